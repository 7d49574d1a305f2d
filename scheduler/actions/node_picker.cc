#include "scheduler/actions/node_picker.h"

#include <algorithm>
#include <iterator>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace shoal::actions {
namespace {

// Max-heap on score; on equal scores the lower node index wins, so runs
// are deterministic.
bool Worse(double score_a, api::NodeIndex a, double score_b, api::NodeIndex b) {
  if (score_a != score_b) return score_a < score_b;
  return a > b;
}

}  // namespace

NodePicker::~NodePicker() {
  for (Heap& h : heaps_) GiveBack(h);
}

std::vector<NodePicker::Candidate> NodePicker::TakeStorage(size_t size) {
  std::vector<Candidate> storage;
  if (shared_ != nullptr && !shared_->spares.empty()) {
    storage = std::move(shared_->spares.back());
    shared_->spares.pop_back();
    storage.clear();
  }
  storage.reserve(size);
  return storage;
}

void NodePicker::GiveBack(Heap& h) {
  // Only a heap of every node (no domains) took its storage from the
  // spares; a few are enough for the pickers of one action to take turns.
  constexpr size_t kKept = 8;
  if (shared_ == nullptr || shared_->spares.size() >= kKept) return;
  if (h.partitions.size() == 1 && h.partitions[0].domain.empty() &&
      h.partitions[0].candidates.capacity() > 0) {
    shared_->spares.push_back(std::move(h.partitions[0].candidates));
  }
}

bool NodePicker::CandidateWorse(const Candidate& a, const Candidate& b) {
  return Worse(a.score, a.node, b.score, b.node);
}

NodePicker::Heap& NodePicker::HeapFor(const api::TaskInfo& task) {
  if (Shares(task)) return SharedHeapFor(task);
  for (Heap& h : heaps_) {
    if (h.subset == only_nodes_ && h.exemplar->PlacedAlike(task)) return h;
  }
  heaps_.push_back(NewHeap(task, /*shared=*/false));
  return heaps_.back();
}

NodePicker::Heap& NodePicker::SharedHeapFor(const api::TaskInfo& task) {
  for (Heap* h : joined_) {
    if (h->exemplar->PlacedAlike(task)) return *h;
  }
  for (const std::unique_ptr<Heap>& shared : shared_->heaps) {
    Heap& h = *shared;
    if (!h.exemplar->PlacedAlike(task)) continue;
    // A job new to the heap brings the next window with it, as a heap
    // of its own would have scanned.
    joined_.push_back(&h);
    if (h.sampled) {
      h.exemplar = &task;
      Extend(h, s_.sampling().to_find());
    }
    return h;
  }
  shared_->heaps.push_back(
      std::make_unique<Heap>(NewHeap(task, /*shared=*/true)));
  joined_.push_back(shared_->heaps.back().get());
  return *joined_.back();
}

NodePicker::Heap NodePicker::NewHeap(const api::TaskInfo& task, bool shared) {
  Heap h;
  h.exemplar = &task;
  h.shared = shared;
  h.subset = only_nodes_;
  if (h.subset != nullptr) h.subset_feasible = SearchedNodes(task);
  h.sampled = h.subset == nullptr && Samples(task);
  if (h.sampled) {
    // The window starts at the first feasible node from the cycle's
    // cursor on (the nodes are in index order), wrapping around.
    const std::vector<api::NodeIndex>& feasible =
        s_.Feasible(task.placement()).nodes;
    auto it = std::lower_bound(feasible.begin(), feasible.end(),
                               s_.sampling().next_start());
    h.first = it == feasible.end() ? 0 : it - feasible.begin();
  }
  Fill(h);
  return h;
}

bool NodePicker::Shares(const api::TaskInfo& task) const {
  // A network-bound job's scores differ from others' (networktopology);
  // inter-pod and domain rules, and claims on devices, depend on where
  // the job's own pods and claims are. (What else depends on the job, a
  // shared heap's pick checks: Admits, Top.)
  return share_heaps_ && only_nodes_ == nullptr && task.topology_class == 0 &&
         task.pod->resource_claims.empty() &&
         s_.topology().DomainKeys(task).empty() &&
         s_.cluster().jobs[task.job].network.mode ==
             api::NetworkConstraint::Mode::kNone;
}

bool NodePicker::Admits(const Heap& h, const api::TaskInfo& task,
                        const api::NodeInfo& node) const {
  return h.shared ? s_.FitsAnyJob(task, node, node.idle(),
                                  framework::TopologyScope::kNode)
                  : s_.Fits(task, node, node.idle(),
                            framework::TopologyScope::kNode);
}

bool NodePicker::Samples(const api::TaskInfo& task) {
  // Inter-pod rules make a node's score depend on where other pods run (a
  // preferred co-location can single out a handful of nodes in the whole
  // cluster) and domain rules compare whole domains: a window would miss
  // exactly the nodes those rules prefer, so such tasks keep scanning
  // every node. Resource scores vary smoothly from node to node, and a
  // window of them holds nodes nearly as good as the best.
  const framework::NodeSampling& sampling = s_.sampling();
  return sampling.samples() && task.topology_class == 0 &&
         s_.topology().DomainKeys(task).empty() &&
         s_.Feasible(task.placement()).nodes.size() > sampling.to_find();
}

bool NodePicker::Extend(Heap& h, size_t to_find, size_t at_least) {
  const api::TaskInfo& task = *h.exemplar;
  const std::vector<api::NodeIndex>& feasible =
      s_.Feasible(task.placement()).nodes;
  if (h.scanned >= feasible.size()) return false;
  std::vector<Candidate>& heap = h.partitions[0].candidates;
  const size_t before = heap.size();
  size_t found = 0;
  api::NodeIndex last = api::kNone;
  while (h.scanned < feasible.size() &&
         (found < to_find || h.scanned < at_least)) {
    const api::NodeIndex n = feasible[(h.first + h.scanned) % feasible.size()];
    ++h.scanned;
    last = n;
    const api::NodeInfo& node = s_.node(n);
    if (!Admits(h, task, node)) continue;
    heap.push_back({ScoreForHeap(task, node), n, node.generation()});
    ++found;
  }
  if (before == 0) {
    std::make_heap(heap.begin(), heap.end(), CandidateWorse);
  } else {
    // A shared heap widening for a job new to it.
    for (size_t i = before; i < heap.size(); ++i)
      std::push_heap(heap.begin(), heap.begin() + i + 1, CandidateWorse);
  }
  s_.sampling().VisitedUpTo(last);
  return true;
}

void NodePicker::Fill(Heap& h) {
  const api::TaskInfo& task = *h.exemplar;
  const framework::PodTopology& topology = s_.topology();
  const std::vector<std::string>& keys = topology.DomainKeys(task);
  GiveBack(h);
  h.partitions.clear();
  h.built_at_discards = s_.discards();
  h.built_at_stamp = topology.NodeRulesStamp(task);
  h.seen_at_moves = s_.moves();
  const std::vector<api::NodeIndex>& feasible = NodesOf(h);
  if (keys.empty() && h.sampled) {
    // A window of the nodes (the common case on a large cluster); a
    // shared heap is built again over the windows it had widened to.
    const size_t to_find = s_.sampling().to_find();
    const size_t span = h.shared ? h.scanned : 0;
    h.scanned = 0;
    h.partitions.push_back(
        Partition{"", api::kNone, TakeStorage(std::max(to_find, span))});
    Extend(h, to_find, span);
    return;
  }
  if (keys.empty()) {
    // No domain rules: one heap of every node (the common case on a
    // small cluster, and for tasks with inter-pod rules).
    Partition all{"", feasible.empty() ? api::kNone : feasible.front(),
                  TakeStorage(feasible.size())};
    for (api::NodeIndex n : feasible) {
      const api::NodeInfo& node = s_.node(n);
      if (!Admits(h, task, node)) continue;
      all.candidates.push_back(
          {ScoreForHeap(task, node), n, node.generation()});
    }
    std::make_heap(all.candidates.begin(), all.candidates.end(),
                   CandidateWorse);
    h.partitions.push_back(std::move(all));
    return;
  }
  // Nodes with equal values of the domain keys share a partition. Every
  // node is scanned: each pick compares the domains' rules and scores,
  // and a gang that must stay together tries them one by one (Domains),
  // so none may be left out.
  absl::flat_hash_map<std::string, size_t> by_domain;
  std::string domain;
  for (api::NodeIndex n : feasible) {
    const api::NodeInfo& node = s_.node(n);
    domain.clear();
    for (const std::string& key : keys) {
      const std::string* v = node.spec().labels.Find(key);
      absl::StrAppend(&domain, v == nullptr ? "\x01" : *v, "\x00");
    }
    auto [it, added] = by_domain.emplace(domain, h.partitions.size());
    if (added) h.partitions.push_back(Partition{domain, n, {}});
    if (!Admits(h, task, node)) continue;
    h.partitions[it->second].candidates.push_back(
        {ScoreForHeap(task, node), n, node.generation()});
  }
  for (Partition& p : h.partitions) {
    std::make_heap(p.candidates.begin(), p.candidates.end(), CandidateWorse);
  }
}

std::optional<NodePicker::Candidate> NodePicker::Top(const api::TaskInfo& task,
                                                     const Heap& h,
                                                     Partition& p) {
  std::vector<Candidate>& heap = p.candidates;
  std::optional<Candidate> found;
  aside_.clear();
  while (!heap.empty()) {
    const Candidate top = heap.front();
    const api::NodeInfo& node = s_.node(top.node);
    // Devices (DRA) can be taken without the node changing: by a claim a
    // pod shares with one placed elsewhere, or on a network-attached pool.
    if (node.generation() == top.generation && s_.DevicesFit(task, node)) {
      // A shared heap's node fits the task's shape; whether it fits the
      // task's job (a reservation, room promised to another job) is
      // asked now, and a node it refuses stays for the other jobs.
      if (!h.shared || s_.FitsItsJob(task, node, node.idle())) {
        found = top;
        break;
      }
      aside_.push_back(top);
      std::pop_heap(heap.begin(), heap.end(), CandidateWorse);
      heap.pop_back();
      continue;
    }
    // The node changed since it was scored: re-check and re-score it.
    std::pop_heap(heap.begin(), heap.end(), CandidateWorse);
    heap.pop_back();
    if (Admits(h, task, node)) {
      heap.push_back({ScoreForHeap(task, node), top.node, node.generation()});
      std::push_heap(heap.begin(), heap.end(), CandidateWorse);
    }
  }
  for (const Candidate& c : aside_) {
    heap.push_back(c);
    std::push_heap(heap.begin(), heap.end(), CandidateWorse);
  }
  return found;
}

bool NodePicker::MostlyStale(const Heap& h) const {
  size_t candidates = 0;
  for (const Partition& p : h.partitions) candidates += p.candidates.size();
  // Fewer moves than half the candidates cannot have made most of them
  // stale: the generations need not be looked at. (An empty heap is not
  // stale: its nodes were full, and only a discard gives room back.)
  if (candidates == 0 || 2 * (s_.moves() - h.seen_at_moves) < candidates)
    return false;
  size_t stale = 0;
  for (const Partition& p : h.partitions) {
    for (const Candidate& c : p.candidates)
      stale += s_.node(c.node).generation() != c.generation;
  }
  return 2 * stale >= candidates;
}

api::NodeIndex NodePicker::Best(const api::TaskInfo& task) {
  Heap& h = HeapFor(task);
  // Whatever fills the heap again checks the nodes for this task: the
  // task it was first built for may be placed by now, its claims'
  // devices taken (DRA), so that no other node fits it.
  h.exemplar = &task;
  const framework::PodTopology& topology = s_.topology();
  // Single-node rules may have opened nodes that the heap dropped (a
  // spread's minimum rose, an affinity term found its first match).
  // A heap its job comes back to after other jobs' turns (a running tree
  // growing one leaf per turn) can hold mostly nodes that changed
  // meanwhile: building it again (from where the cycle's window has got
  // to, on a large cluster) costs less than finding each stale at the top
  // and re-heaping it, and finds nodes with more room.
  if (h.built_at_stamp != topology.NodeRulesStamp(task) || MostlyStale(h))
    Fill(h);
  h.seen_at_moves = s_.moves();
  while (true) {
    api::NodeIndex best = BestInHeap(task, h);
    if (best != api::kNone) return best;
    // The window's nodes are full: the search goes on over the nodes not
    // scanned yet, up to every node, before it gives up.
    if (h.sampled && Extend(h, s_.sampling().to_find())) continue;
    // Nodes left out as full may have room again after a discard.
    if (h.built_at_discards == s_.discards()) return best;
    Fill(h);
  }
}

api::NodeIndex NodePicker::BestInHeap(const api::TaskInfo& task, Heap& h) {
  const framework::PodTopology& topology = s_.topology();
  const bool domains = !topology.DomainKeys(task).empty();
  api::NodeIndex best = api::kNone;
  double best_score = 0;
  for (Partition& p : h.partitions) {
    if (only_domain_.has_value() && p.domain != *only_domain_) continue;
    double domain_score = 0;
    if (domains) {
      const api::NodeInfo& rep = s_.node(p.representative);
      if (topology.Refusal(task, rep, framework::TopologyScope::kDomain) !=
          nullptr)
        continue;
      domain_score = s_.DomainScore(task, rep);
    }
    const std::optional<Candidate> top = Top(task, h, p);
    if (!top.has_value()) continue;
    double score = top->score + domain_score;
    if (best == api::kNone || Worse(best_score, best, score, top->node)) {
      best = top->node;
      best_score = score;
    }
  }
  return best;
}

const std::vector<api::NodeIndex>& NodePicker::SearchedNodes(
    const api::TaskInfo& task) {
  const std::vector<api::NodeIndex>& feasible =
      s_.Feasible(task.placement()).nodes;
  if (only_nodes_ == nullptr) return feasible;
  searched_.clear();
  std::set_intersection(only_nodes_->begin(), only_nodes_->end(),
                        feasible.begin(), feasible.end(),
                        std::back_inserter(searched_));
  return searched_;
}

const std::vector<api::NodeIndex>& NodePicker::NodesOf(const Heap& h) {
  return h.subset != nullptr ? h.subset_feasible
                             : s_.Feasible(h.exemplar->placement()).nodes;
}

std::vector<std::string> NodePicker::Domains(const api::TaskInfo& task) {
  std::vector<std::string> out;
  if (s_.topology().DomainKeys(task).empty()) return out;
  for (const Partition& p : HeapFor(task).partitions) out.push_back(p.domain);
  return out;
}

api::NodeIndex NodePicker::BestAfterEvictions(const api::TaskInfo& task) {
  api::NodeIndex best = api::kNone;
  double best_score = 0;
  for (api::NodeIndex n : SearchedNodes(task)) {
    const api::NodeInfo& node = s_.node(n);
    if (!s_.FitsOnceReleased(task, node, node.FutureIdle())) continue;
    double score = s_.Score(task, node) + s_.DomainScore(task, node);
    if (best == api::kNone || Worse(best_score, best, score, n)) {
      best = n;
      best_score = score;
    }
  }
  return best;
}

namespace {

// Whether free room `a` is tighter than `b`: compared on the extended
// resources first (a GPU node is kept for GPU pods), then cpu, then memory.
bool Tighter(const api::Resource& a, const api::Resource& b) {
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = n; i-- > 0;) {
    auto id = static_cast<api::ResourceId>(i);
    if (id == api::kCpu || id == api::kMemory || id == api::kPods) continue;
    if (a.Get(id) != b.Get(id)) return a.Get(id) < b.Get(id);
  }
  if (a.Get(api::kCpu) != b.Get(api::kCpu))
    return a.Get(api::kCpu) < b.Get(api::kCpu);
  return a.Get(api::kMemory) < b.Get(api::kMemory);
}

}  // namespace

api::NodeIndex NodePicker::TightestFit(const api::TaskInfo& task) {
  api::NodeIndex best = api::kNone;
  for (api::NodeIndex n : SearchedNodes(task)) {
    const api::NodeInfo& node = s_.node(n);
    if (!s_.Fits(task, node, node.idle())) continue;
    if (best == api::kNone || Tighter(node.idle(), s_.node(best).idle()))
      best = n;
  }
  return best;
}

api::NodeIndex NodePicker::FirstFit(const api::TaskInfo& task) {
  for (api::NodeIndex n : SearchedNodes(task)) {
    const api::NodeInfo& node = s_.node(n);
    if (s_.Fits(task, node, node.idle())) return n;
  }
  return api::kNone;
}

}  // namespace shoal::actions
