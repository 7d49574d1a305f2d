#include "scheduler/actions/reclaim.h"

#include "scheduler/actions/evicting_action.h"
#include "scheduler/api/queue_tree.h"

namespace shoal::actions {
namespace {

// Across queues: a queue below its deserved share takes back room from
// reclaimable queues above theirs, through the tiers' Reclaimable answer.
class Reclaim : public EvictingAction {
  const char* reason() const override { return "reclaim"; }
  bool skip_overused() const override { return true; }
  bool Wants(framework::Session&, const api::JobInfo&) const override {
    return true;
  }
  bool MayTake(framework::Session& s,
               const api::TaskInfo& task) const override {
    // preemptionPolicy: Never takes nothing by eviction, whichever action
    // would do the evicting (Volcano issue #3642).
    if (task.pod->preempt_never) return false;
    const api::ClusterInfo& c = s.cluster();
    const api::QueueInfo& queue = c.queues[c.jobs[task.job].queue_index];
    if (s.Table<framework::Preemptive>().empty()) {
      return s.Call<framework::Allocatable>(queue, task);
    }
    // A plugin that judges reclaim on the task's own resources
    // (capacity) bounds the queue by its capability, not by the deserved
    // share its Preemptive answer already weighed.
    s.set_borrowing(true);
    bool within = s.Call<framework::Allocatable>(queue, task);
    s.set_borrowing(false);
    return within && s.Call<framework::Preemptive>(queue, task);
  }
  // In a queue tree, siblings before cousins: victims under the taker's
  // parent first, then under each ancestor in turn, then anywhere. (The
  // root's subtree is everywhere, searched once, unless the root states
  // a capability of its own that room freed under it gives back.)
  std::vector<int32_t> Scopes(const framework::Session& s,
                              const api::TaskInfo& task) const override {
    const api::ClusterInfo& c = s.cluster();
    std::vector<int32_t> scopes;
    int32_t q = c.jobs[task.job].queue_index;
    if (q == api::kNone) return {api::kNone};
    for (int32_t at = c.queues[q].parent_index; at != api::kNone;
         at = c.queues[at].parent_index) {
      if (c.queues[at].parent_index == api::kNone &&
          !c.queues[at].capability.has_value()) {
        break;
      }
      scopes.push_back(at);
    }
    scopes.push_back(api::kNone);
    return scopes;
  }
  bool MayLend(const framework::Session& s, int32_t queue) const override {
    const api::ClusterInfo& c = s.cluster();
    return queue != api::kNone && c.queues[queue].reclaimable &&
           (s.Table<framework::Overused>().empty() ||
            s.Call<framework::Overused>(c.queues[queue]));
  }
  bool Eligible(const framework::Session& s, const api::TaskInfo& taker,
                int32_t queue) const override {
    // Only queues holding more than their deserved share lend back, and
    // only while they do: the tiers' answer alone would let a tier of
    // safety plugins (gang, conformance) decide without asking the
    // fairness plugins in a later tier. Under a policy where no plugin
    // answers Overused (Volcano's capacity has no such callback), the
    // Reclaimable answer alone decides, as in Volcano.
    //
    // In a tree, the victim's queue and each branch above it up to where
    // its path and the taker's part must hold more than they deserve: a
    // leaf over its share under a branch that is not lends to its
    // siblings and cousins inside that branch, never out of it.
    const api::ClusterInfo& c = s.cluster();
    const int32_t taker_queue = c.jobs[taker.job].queue_index;
    if (queue == api::kNone || queue == taker_queue ||
        !c.queues[queue].reclaimable) {
      return false;
    }
    if (s.Table<framework::Overused>().empty()) return true;
    for (int32_t at = queue;
         at != api::kNone && !api::InSubtree(c, taker_queue, at);
         at = c.queues[at].parent_index) {
      if (!s.Call<framework::Overused>(c.queues[at])) return false;
    }
    return true;
  }
  std::vector<api::TaskIndex> Ask(
      const framework::Session& s, const api::TaskInfo& taker,
      const std::vector<api::TaskIndex>& candidates) const override {
    return s.Call<framework::Reclaimable>(taker, candidates);
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Action>> NewReclaim(
    const framework::Arguments&) {
  return std::make_unique<Reclaim>();
}

}  // namespace shoal::actions
