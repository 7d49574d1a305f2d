// Finds the best node for each task of one job without scoring every node
// for every task. Tasks of a job that share a request, placement, host
// ports and topology class share one heap of (score, node); placing a task
// changes only the chosen node, so only that node is re-checked and
// re-scored, lazily, when it next reaches the top (its generation tells
// that it changed). A job of 50 pods on 5,000 nodes costs one pass over the
// nodes plus 50 heap operations, not 250,000 evaluations.
//
// Rules over a topology domain (anti-affinity per zone, spread over zones)
// change for every node of the domain at once, so a task with such rules
// gets one heap per domain (per combination of its keys' values): the
// heaps hold what is node-local, and each pick asks the domain rules and
// scores once per domain.
//
// On a large cluster a heap does not hold every node: as kube-scheduler's
// percentageOfNodesToScore, it is filled from a window of the nodes that
// starts where the cycle's previous window stopped and ends once it holds
// NodeSampling::to_find() nodes with room (framework/node_sampling.h).
// When the window's nodes are full, the next window is scanned, up to
// every node, so a task that fits anywhere is still placed; only which
// node, among those that fit, can differ from a full scan. A job's cost
// is then bounded by the window, not the cluster, and a cycle grows with
// jobs + nodes instead of jobs x nodes. Tasks with domain rules, and tasks
// any inter-pod rule bears on, still get every node (see Fill).
//
// Jobs that grow take turns, a pod or a sub-group at a time (allocate's
// growth phase), and between two turns of a job the others' placements
// leave most of its heap stale. Growing jobs' pickers therefore share
// heaps (ShareHeaps) for tasks whose fit and score do not depend on their
// job: every job of a shape takes from one heap, which re-scores only the
// node a placement changed. A shared heap widens by one window for each
// job that comes to it, so each job still brings the cycle's next window,
// and a shape many jobs grow with ends up holding every node.
#ifndef SHOAL_SCHEDULER_ACTIONS_NODE_PICKER_H_
#define SHOAL_SCHEDULER_ACTIONS_NODE_PICKER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/framework/session.h"

namespace shoal::actions {

class NodePicker {
 public:
  struct Candidate {
    double score;
    api::NodeIndex node;
    uint64_t generation;
  };

 private:
  // The nodes of one domain (all of them when the task has no domain rules).
  struct Partition {
    std::string domain;  // the values of the task's domain keys
    api::NodeIndex representative;
    std::vector<Candidate> candidates;
  };
  struct Heap {
    const api::TaskInfo* exemplar;
    std::vector<Partition> partitions;
    uint64_t built_at_discards = 0;  // Session::discards() when built
    uint64_t built_at_stamp = 0;     // PodTopology::NodeRulesStamp when built
    uint64_t seen_at_moves = 0;      // Session::moves() when last searched
    // Sampled heaps (one partition): the position in the feasible nodes
    // where the heap's window starts, and how many of them, from there on
    // and wrapping around, have been scanned. Unsampled heaps scan all.
    bool sampled = false;
    size_t first = 0;
    size_t scanned = 0;
    // A heap of a restricted search: the set it was built for, and its
    // nodes that are feasible for the exemplar.
    const std::vector<api::NodeIndex>* subset = nullptr;
    std::vector<api::NodeIndex> subset_feasible;
    // A heap in Shared, which any job's picker may take from.
    bool shared = false;
  };

 public:
  // What the pickers of one action share: heap storage handed from one
  // picker to the next (an action that makes a picker per job would
  // otherwise allocate, and fault in, a heap of every node per job), and
  // the heaps any job may take from (see the top of this file). It must
  // outlive the pickers.
  struct Shared {
    std::vector<std::vector<Candidate>> spares;
    std::vector<std::unique_ptr<Heap>> heaps;
  };

  explicit NodePicker(framework::Session& s, Shared* shared = nullptr)
      : s_(s), shared_(shared) {}
  ~NodePicker();
  NodePicker(NodePicker&&) = default;

  // From now on, searches for tasks that may share (see the top of this
  // file) use Shared's heaps; needs a Shared.
  void ShareHeaps() { share_heaps_ = shared_ != nullptr; }

  // The feasible node with room for `task` now and the highest score (ties
  // go to the earlier node), or kNone. Valid while only this picker's
  // caller changes the session.
  api::NodeIndex Best(const api::TaskInfo& task);

  // The domains (values of the task's DomainKeys, one string each) its
  // feasible nodes fall in, in node order; empty when it has no domain
  // rules.
  std::vector<std::string> Domains(const api::TaskInfo& task);
  // While set, Best() looks only at nodes of this domain: a gang that must
  // stay together (required affinity to itself) may try the domains one
  // by one rather than follow wherever its first pod went.
  void RestrictTo(std::optional<std::string> domain) {
    only_domain_ = std::move(domain);
  }
  // While set (non-null), every search looks only at these nodes (sorted
  // indices; they must outlive the restriction): a gang bound to one
  // network domain (api/network_topology.h) is placed inside it. Each
  // set gets heaps of its own, kept for when it is set again.
  void RestrictToNodes(const std::vector<api::NodeIndex>* nodes) {
    only_nodes_ = nodes;
  }

  // The best node whose room once evictions finish (FutureIdle) fits the
  // task; used to pipeline. A plain scan: only needed while victims leave.
  api::NodeIndex BestAfterEvictions(const api::TaskInfo& task);

  // Ignoring scores: the feasible node with room for `task` now that has
  // the least room left, scarce resources (GPUs and other extended
  // resources) first, then cpu, then memory (best fit). A plain scan, for
  // a gang that the scores' choices could not complete.
  api::NodeIndex TightestFit(const api::TaskInfo& task);
  // Ignoring scores: the first feasible node, in node (name) order, with
  // room for `task` now (first fit).
  api::NodeIndex FirstFit(const api::TaskInfo& task);

  // How many times this picker scored a node for its heaps (tests check
  // that sampling scores fewer nodes on a large cluster).
  size_t nodes_scored() const { return nodes_scored_; }

 private:
  static bool CandidateWorse(const Candidate& a, const Candidate& b);
  Heap& HeapFor(const api::TaskInfo& task);
  Heap& SharedHeapFor(const api::TaskInfo& task);
  // Whether searches for `task` use a heap in Shared: sharing is on, and
  // its fit and score are the same whichever job it belongs to.
  bool Shares(const api::TaskInfo& task) const;
  // A new heap for `task` (for Shared, or this picker's own), filled.
  Heap NewHeap(const api::TaskInfo& task, bool shared);
  // Whether at least half the heap's candidates are stale (their nodes
  // changed since they were scored).
  bool MostlyStale(const Heap& h) const;
  void Fill(Heap& h);
  // Scans the sampled heap's next nodes until it has found `to_find` more
  // with room (and scanned `at_least` of its nodes in all) or scanned them
  // all; false when none were left to scan.
  bool Extend(Heap& h, size_t to_find, size_t at_least = 0);
  // Whether searches for `task` may leave nodes out.
  bool Samples(const api::TaskInfo& task);
  // The nodes a search for `task` looks at: its feasible nodes, within
  // the restriction when one is set.
  // (Valid until the next call.)
  const std::vector<api::NodeIndex>& SearchedNodes(const api::TaskInfo& task);
  const std::vector<api::NodeIndex>& NodesOf(const Heap& h);
  double ScoreForHeap(const api::TaskInfo& task, const api::NodeInfo& node) {
    ++nodes_scored_;
    return s_.Score(task, node);
  }
  std::vector<Candidate> TakeStorage(size_t size);
  void GiveBack(Heap& h);
  // Best() over the heap as it stands.
  api::NodeIndex BestInHeap(const api::TaskInfo& task, Heap& h);
  // The best still-valid candidate of a partition of `h`, if any.
  std::optional<Candidate> Top(const api::TaskInfo& task, const Heap& h,
                               Partition& p);
  // Whether `node` goes into heap `h` for `task`: it fits the task (a
  // shared heap: whichever job the task belongs to).
  bool Admits(const Heap& h, const api::TaskInfo& task,
              const api::NodeInfo& node) const;

  framework::Session& s_;
  Shared* shared_;
  std::vector<Heap> heaps_;
  bool share_heaps_ = false;
  std::vector<Heap*> joined_;     // the shared heaps this picker used
  std::vector<Candidate> aside_;  // Top's, kept for its storage
  std::optional<std::string> only_domain_;
  const std::vector<api::NodeIndex>* only_nodes_ = nullptr;
  std::vector<api::NodeIndex> searched_;  // SearchedNodes' answer
  size_t nodes_scored_ = 0;
};

}  // namespace shoal::actions

#endif  // SHOAL_SCHEDULER_ACTIONS_NODE_PICKER_H_
