#include "scheduler/actions/preempt.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "scheduler/actions/evicting_action.h"

namespace shoal::actions {
namespace {

// Inside a queue: a starving job (gang incomplete, or an elastic job below
// its target) takes room from the
// tasks the tiers let it preempt (by default: lower priority, surplus
// above other gangs' minimum, never system pods). A pod with
// preemptionPolicy: Never takes nothing. When no surplus suffices, a whole
// lower-priority gang may go, if the tiers allow every one of its pods.
class Preempt : public EvictingAction {
 public:
  explicit Preempt(bool equal_priority_gangs)
      : equal_priority_gangs_(equal_priority_gangs) {}

 private:
  const bool equal_priority_gangs_;
  bool ends_equal_priority_gangs() const override {
    return equal_priority_gangs_;
  }
  const char* reason() const override { return "preempt"; }
  bool skip_overused() const override { return false; }
  bool may_end_whole_gangs() const override { return true; }
  bool Wants(framework::Session&, const api::JobInfo&) const override {
    return true;
  }
  bool MayTake(framework::Session&, const api::TaskInfo& task) const override {
    return !task.pod->preempt_never;
  }
  // Preempting makes room inside the queue; it is not a way around the
  // queue's limits. The victims (the queue's own pods) must free enough
  // that the queue may then take the task (Allocatable: its deserved
  // share) and stays within its capability (Volcano issue #3161 is that
  // bug).
  FreedEnough FreedEnoughFor(const framework::Session& s,
                             const api::TaskInfo& task) const override {
    const api::ClusterInfo& c = s.cluster();
    const int32_t q = c.jobs[task.job].queue_index;
    const api::QueueInfo& queue = c.queues[q];
    const bool allocatable_now = s.Call<framework::Allocatable>(queue, task);
    api::Resource over_capability;
    if (queue.capability.has_value()) {
      api::Resource after = task.request();
      for (const api::JobInfo& job : c.jobs) {
        if (job.queue_index == q) after += c.Held(job);
      }
      over_capability = after - *queue.capability;
      over_capability.MaxWith(api::Resource());
    }
    if (allocatable_now && over_capability.IsZero()) return nullptr;
    return [&s, &queue, &task, allocatable_now,
            over_capability](const api::Resource& freed) {
      if (!over_capability.AllLessEqual(freed)) return false;
      if (allocatable_now) return true;
      // What the queue must still take once the victims are gone.
      auto rest = std::make_shared<api::PodInfo>(*task.pod);
      rest->request = task.request() - freed;
      rest->request.MaxWith(api::Resource());
      api::TaskInfo remainder = task;
      remainder.pod = std::move(rest);
      return s.Call<framework::Allocatable>(queue, remainder);
    };
  }
  bool Eligible(const framework::Session& s, const api::TaskInfo& taker,
                int32_t queue) const override {
    return queue == s.cluster().jobs[taker.job].queue_index;
  }
  std::vector<api::TaskIndex> Ask(
      const framework::Session& s, const api::TaskInfo& taker,
      const std::vector<api::TaskIndex>& candidates) const override {
    return s.Call<framework::Preemptable>(taker, candidates);
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Action>> NewPreempt(
    const framework::Arguments& args) {
  // endWholeGangs: higherPriority (a whole running gang is ended only for
  // a taker of higher priority) or tiers (also one of equal priority that
  // the tiers' preemptable answer gives up whole: least-attained-service
  // ends the later gang, as Tiresias does).
  const std::string whole = args.GetString("endWholeGangs", "higherPriority");
  if (whole != "higherPriority" && whole != "tiers") {
    return absl::InvalidArgumentError(absl::StrCat(
        args.owner(), ": endWholeGangs must be higherPriority or tiers, got \"",
        whole, "\""));
  }
  return std::make_unique<Preempt>(whole == "tiers");
}

}  // namespace shoal::actions
