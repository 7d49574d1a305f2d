#include "scheduler/actions/node_picker.h"

#include <algorithm>
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
  if (spares_ != nullptr && !spares_->empty()) {
    storage = std::move(spares_->back());
    spares_->pop_back();
    storage.clear();
  }
  storage.reserve(size);
  return storage;
}

void NodePicker::GiveBack(Heap& h) {
  // Only a heap of every node (no domains) took its storage from the
  // spares; a few are enough for the pickers of one action to take turns.
  constexpr size_t kKept = 8;
  if (spares_ == nullptr || spares_->size() >= kKept) return;
  if (h.partitions.size() == 1 && h.partitions[0].domain.empty() &&
      h.partitions[0].candidates.capacity() > 0) {
    spares_->push_back(std::move(h.partitions[0].candidates));
  }
}

bool NodePicker::CandidateWorse(const Candidate& a, const Candidate& b) {
  return Worse(a.score, a.node, b.score, b.node);
}

NodePicker::Heap& NodePicker::HeapFor(const api::TaskInfo& task) {
  for (Heap& h : heaps_) {
    if (h.exemplar->PlacedAlike(task)) return h;
  }
  heaps_.push_back(Heap{&task, {}, 0, 0});
  Fill(heaps_.back());
  return heaps_.back();
}

void NodePicker::Fill(Heap& h) {
  const api::TaskInfo& task = *h.exemplar;
  const framework::PodTopology& topology = s_.topology();
  const std::vector<std::string>& keys = topology.DomainKeys(task);
  GiveBack(h);
  h.partitions.clear();
  h.built_at_discards = s_.discards();
  h.built_at_stamp = topology.NodeRulesStamp(task);
  const std::vector<api::NodeIndex>& feasible =
      s_.Feasible(task.placement()).nodes;
  if (keys.empty()) {
    // No domain rules: one heap of every node (the common case).
    Partition all{"", feasible.empty() ? api::kNone : feasible.front(),
                  TakeStorage(feasible.size())};
    for (api::NodeIndex n : feasible) {
      const api::NodeInfo& node = s_.node(n);
      if (!s_.Fits(task, node, node.idle(), framework::TopologyScope::kNode))
        continue;
      all.candidates.push_back({s_.Score(task, node), n, node.generation()});
    }
    std::make_heap(all.candidates.begin(), all.candidates.end(),
                   CandidateWorse);
    h.partitions.push_back(std::move(all));
    return;
  }
  // Nodes with equal values of the domain keys share a partition.
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
    if (!s_.Fits(task, node, node.idle(), framework::TopologyScope::kNode))
      continue;
    h.partitions[it->second].candidates.push_back(
        {s_.Score(task, node), n, node.generation()});
  }
  for (Partition& p : h.partitions) {
    std::make_heap(p.candidates.begin(), p.candidates.end(), CandidateWorse);
  }
}

const NodePicker::Candidate* NodePicker::Top(const api::TaskInfo& task,
                                             Partition& p) {
  std::vector<Candidate>& heap = p.candidates;
  while (!heap.empty()) {
    const Candidate top = heap.front();
    const api::NodeInfo& node = s_.node(top.node);
    if (node.generation() == top.generation) return &heap.front();
    // The node changed since it was scored: re-check and re-score it.
    std::pop_heap(heap.begin(), heap.end(), CandidateWorse);
    heap.pop_back();
    if (s_.Fits(task, node, node.idle(), framework::TopologyScope::kNode)) {
      heap.push_back({s_.Score(task, node), top.node, node.generation()});
      std::push_heap(heap.begin(), heap.end(), CandidateWorse);
    }
  }
  return nullptr;
}

api::NodeIndex NodePicker::Best(const api::TaskInfo& task) {
  Heap& h = HeapFor(task);
  const framework::PodTopology& topology = s_.topology();
  // Single-node rules may have opened nodes that the heap dropped (a
  // spread's minimum rose, an affinity term found its first match).
  if (h.built_at_stamp != topology.NodeRulesStamp(task)) Fill(h);
  while (true) {
    api::NodeIndex best = BestInHeap(task, h);
    // Nodes left out as full may have room again after a discard.
    if (best != api::kNone || h.built_at_discards == s_.discards()) return best;
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
    const Candidate* top = Top(task, p);
    if (top == nullptr) continue;
    double score = top->score + domain_score;
    if (best == api::kNone || Worse(best_score, best, score, top->node)) {
      best = top->node;
      best_score = score;
    }
  }
  return best;
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
  for (api::NodeIndex n : s_.Feasible(task.placement()).nodes) {
    const api::NodeInfo& node = s_.node(n);
    if (!s_.Fits(task, node, node.FutureIdle())) continue;
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
  for (api::NodeIndex n : s_.Feasible(task.placement()).nodes) {
    const api::NodeInfo& node = s_.node(n);
    if (!s_.Fits(task, node, node.idle())) continue;
    if (best == api::kNone || Tighter(node.idle(), s_.node(best).idle()))
      best = n;
  }
  return best;
}

api::NodeIndex NodePicker::FirstFit(const api::TaskInfo& task) {
  for (api::NodeIndex n : s_.Feasible(task.placement()).nodes) {
    const api::NodeInfo& node = s_.node(n);
    if (s_.Fits(task, node, node.idle())) return n;
  }
  return api::kNone;
}

}  // namespace shoal::actions
