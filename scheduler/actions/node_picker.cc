#include "scheduler/actions/node_picker.h"

#include <algorithm>

namespace shoal::actions {
namespace {

// Max-heap on score; on equal scores the lower node index wins, so runs
// are deterministic.
bool Worse(double score_a, api::NodeIndex a, double score_b, api::NodeIndex b) {
  if (score_a != score_b) return score_a < score_b;
  return a > b;
}

}  // namespace

bool NodePicker::CandidateWorse(const Candidate& a, const Candidate& b) {
  return Worse(a.score, a.node, b.score, b.node);
}

NodePicker::Heap& NodePicker::HeapFor(const api::TaskInfo& task) {
  for (Heap& h : heaps_) {
    if (h.exemplar->PlacedAlike(task)) return h;
  }
  heaps_.push_back(Heap{&task, {}, 0});
  Fill(heaps_.back());
  return heaps_.back();
}

void NodePicker::Fill(Heap& h) {
  const api::TaskInfo& task = *h.exemplar;
  h.candidates.clear();
  h.built_at_discards = s_.discards();
  for (api::NodeIndex n : s_.Feasible(task.placement()).nodes) {
    const api::NodeInfo& node = s_.node(n);
    if (!s_.Fits(task, node, node.idle())) continue;
    h.candidates.push_back({s_.Score(task, node), n, node.generation()});
  }
  std::make_heap(h.candidates.begin(), h.candidates.end(), CandidateWorse);
}

api::NodeIndex NodePicker::Best(const api::TaskInfo& task) {
  Heap& h = HeapFor(task);
  std::vector<Candidate>& heap = h.candidates;
  while (true) {
    while (!heap.empty()) {
      const Candidate top = heap.front();
      const api::NodeInfo& node = s_.node(top.node);
      if (node.generation() == top.generation) return top.node;
      // The node changed since it was scored: re-check and re-score it.
      std::pop_heap(heap.begin(), heap.end(), CandidateWorse);
      heap.pop_back();
      if (s_.Fits(task, node, node.idle())) {
        heap.push_back({s_.Score(task, node), top.node, node.generation()});
        std::push_heap(heap.begin(), heap.end(), CandidateWorse);
      }
    }
    // Nodes left out as full may have room again after a discard.
    if (h.built_at_discards == s_.discards()) return api::kNone;
    Fill(h);
  }
}

api::NodeIndex NodePicker::BestAfterEvictions(const api::TaskInfo& task) {
  api::NodeIndex best = api::kNone;
  double best_score = 0;
  for (api::NodeIndex n : s_.Feasible(task.placement()).nodes) {
    const api::NodeInfo& node = s_.node(n);
    if (!s_.Fits(task, node, node.FutureIdle())) continue;
    double score = s_.Score(task, node);
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
  if (a.Get(api::kCpu) != b.Get(api::kCpu)) return a.Get(api::kCpu) < b.Get(api::kCpu);
  return a.Get(api::kMemory) < b.Get(api::kMemory);
}

}  // namespace

api::NodeIndex NodePicker::TightestFit(const api::TaskInfo& task) {
  api::NodeIndex best = api::kNone;
  for (api::NodeIndex n : s_.Feasible(task.placement()).nodes) {
    const api::NodeInfo& node = s_.node(n);
    if (!s_.Fits(task, node, node.idle())) continue;
    if (best == api::kNone || Tighter(node.idle(), s_.node(best).idle())) best = n;
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
