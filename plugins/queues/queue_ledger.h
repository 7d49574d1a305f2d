// What each queue holds, asks for and has been promised, measured from its
// jobs when a session opens, summed up the queue tree (a parent's amounts
// are its subtree's), and kept current as the session's statements move
// tasks. Shared by the plugins that divide the cluster between queues
// (proportion, capacity), which differ in how they set each queue's limits
// but must count the same way.
#ifndef SHOAL_PLUGINS_QUEUES_QUEUE_LEDGER_H_
#define SHOAL_PLUGINS_QUEUES_QUEUE_LEDGER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "scheduler/api/cluster_info.h"
#include "scheduler/api/queue_tree.h"

namespace shoal::plugins::queues {

struct QueueAccount {
  api::Resource allocated;  // held by the queue's tasks now
  api::Resource request;    // everything its jobs ask for: held + pending
  // What admission has committed, by job priority: held by the queue's
  // jobs (less elastic surplus, which only borrows) plus the minimums of
  // admitted gangs not placed yet.
  std::map<int32_t, api::Resource> committed;

  // Committed by jobs of priority `from` or higher (every job when `from`
  // is the lowest priority there is).
  api::Resource CommittedFrom(int32_t from) const;
  api::Resource Committed() const;
};

class QueueLedger {
 public:
  explicit QueueLedger(const api::ClusterInfo& c);

  const QueueAccount& operator[](int32_t q) const { return accounts_[q]; }
  size_t size() const { return accounts_.size(); }

  // A task of a job in queue `q` started (+1) or stopped (-1) holding its
  // request: the queue and each of its ancestors.
  void Move(int32_t q, const api::Resource& request, int sign);
  // An admitted gang's unheld minimum is promised to it.
  void Admit(int32_t q, int32_t priority, const api::Resource& promised);

 private:
  const api::ClusterInfo& c_;
  std::vector<QueueAccount> accounts_;  // by queue
};

// What the branches under `ancestor` other than the one holding queue `q`
// hold beyond what each deserves (`deserved_of(child)`; kUnlimited where
// it names nothing): room reclaim may take back for a job of `q`, which
// admission at `ancestor` need not count against it. Only reclaimable
// branches lend.
template <typename DeservedOf>
api::Resource SurplusBeside(const api::ClusterInfo& c,
                            const QueueLedger& ledger, int32_t ancestor,
                            int32_t q, DeservedOf deserved_of) {
  api::Resource surplus;
  for (int32_t child : c.queues[ancestor].children) {
    if (api::InSubtree(c, q, child) || !c.queues[child].reclaimable) continue;
    api::Resource over = ledger[child].allocated - deserved_of(child);
    over.MaxWith(api::Resource());
    surplus += over;
  }
  return surplus;
}

// Every resource at kUnlimited: a limit that names nothing.
api::Resource Unlimited();

// Where dividing the cluster starts. The root of a queue tree (kNone when
// there is none) bounds only what it states, and its children share the
// cluster, within the root's capability, as top-level queues would:
// checked against the whole cluster's commitments, the root would refuse
// the very job reclaim or preempt is to make room for. `top` holds the
// other queues without a parent (every queue, in a flat cluster).
struct TreeTop {
  int32_t root = api::kNone;
  api::Resource root_capability;  // spec.capability, or Unlimited()
  api::Resource for_children;     // the cluster, within root_capability
  std::vector<int32_t> top;
};
TreeTop TopOf(const api::ClusterInfo& c);

// "cpu would reach 12 of 10, memory would reach ..." for the resources
// `minimum` asks for that `after` takes past `limit`.
std::string Overshoot(const api::Resource& after, const api::Resource& limit,
                      const api::Resource& asked);

// Where a queue with a parent names that parent in a message: "queue ml
// (under eng)"; a top-level queue is just "queue ml".
std::string QueueAndPlace(const api::ClusterInfo& c, int32_t q);

// Compares queues a and b where their paths from the top part: the two
// ancestors (or the queues themselves) that are siblings, by `key`
// (smaller first). Returns -1, 0 or 1.
template <typename Key>
int CompareAtFork(const api::ClusterInfo& c, int32_t a, int32_t b, Key key) {
  if (a == b) return 0;
  // Lift the deeper one to the other's depth, then both until siblings.
  while (c.queues[a].depth > c.queues[b].depth) a = c.queues[a].parent_index;
  while (c.queues[b].depth > c.queues[a].depth) b = c.queues[b].parent_index;
  if (a == b) return 0;  // one is an ancestor of the other
  while (c.queues[a].parent_index != c.queues[b].parent_index) {
    a = c.queues[a].parent_index;
    b = c.queues[b].parent_index;
  }
  auto ka = key(a), kb = key(b);
  return ka < kb ? -1 : (kb < ka ? 1 : 0);
}

}  // namespace shoal::plugins::queues

#endif  // SHOAL_PLUGINS_QUEUES_QUEUE_LEDGER_H_
