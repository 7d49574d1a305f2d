// Every kind of callback a plugin can register, declared once: its name,
// the config switch that turns it off, its signature and how the tiers
// combine the answers. Session dispatches all of them through the one
// generic walk in tier_walk.h; adding a kind is one struct here.
#ifndef SHOAL_SCHEDULER_FRAMEWORK_CALLBACKS_H_
#define SHOAL_SCHEDULER_FRAMEWORK_CALLBACKS_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/api/cluster_info.h"

namespace shoal::framework {

// How the answers of the plugins in the tiers become one answer.
enum class Combine {
  // Orderings: the first plugin, tier by tier, that returns non-zero wins.
  kFirstPreference,
  // Filters: every plugin must return true; the walk stops at the first no.
  kAllPass,
  // Scores: the answers of every plugin are added.
  kSum,
  // Votes (+1 permit, 0 abstain, -1 reject): any reject says no; otherwise
  // the first tier with a permit says yes; no opinion at all says yes.
  kVote,
  // Alarms: true as soon as any plugin says true.
  kAnyTrue,
  // Victims: within a tier, the non-abstaining answers (nullopt abstains)
  // are intersected; the first tier whose intersection is non-empty decides.
  kIntersectVictims,
};

// Why a node was refused, in kube-scheduler's words ("Insufficient cpu").
using Reasons = std::vector<std::string>;
using Victims = std::optional<std::vector<api::TaskIndex>>;

#define SHOAL_CALLBACK(Type, kind_name, switch_key, combine, ...) \
  struct Type {                                                   \
    static constexpr const char* kName = kind_name;               \
    static constexpr const char* kSwitch = switch_key;            \
    static constexpr Combine kCombine = combine;                  \
    using Fn = std::function<__VA_ARGS__>;                        \
  }

// Orderings: negative when the first argument goes first.
SHOAL_CALLBACK(QueueOrder, "queueOrder", "enableQueueOrder",
               Combine::kFirstPreference,
               int(const api::QueueInfo&, const api::QueueInfo&));
SHOAL_CALLBACK(JobOrder, "jobOrder", "enableJobOrder",
               Combine::kFirstPreference,
               int(const api::JobInfo&, const api::JobInfo&));
SHOAL_CALLBACK(TaskOrder, "taskOrder", "enableTaskOrder",
               Combine::kFirstPreference,
               int(const api::TaskInfo&, const api::TaskInfo&));

// Job gates. JobValid writes why not into *why.
SHOAL_CALLBACK(JobValid, "jobValid", "", Combine::kAllPass,
               bool(const api::JobInfo&, std::string* why));
SHOAL_CALLBACK(JobReady, "jobReady", "enableJobReady", Combine::kAllPass,
               bool(const api::JobInfo&));
SHOAL_CALLBACK(JobPipelined, "jobPipelined", "enableJobPipelined",
               Combine::kVote, int(const api::JobInfo&));
// A reject writes why into *why ("queue research: ...").
SHOAL_CALLBACK(JobEnqueueable, "jobEnqueueable", "enableJobEnqueued",
               Combine::kVote, int(const api::JobInfo&, std::string* why));

// Whether the job should take room by eviction now (a gang below its
// minimum, an elastic job below its target). With no plugin registered,
// a job is starving while its gang minimum is not met.
SHOAL_CALLBACK(JobStarving, "jobStarving", "enableJobStarving",
               Combine::kAnyTrue, bool(const api::JobInfo&));

// Queue gates. Overused: the queue holds its deserved share or more, at
// its own level (an action that weighs a tree asks of each level).
// Allocatable: the queue may take this task now.
SHOAL_CALLBACK(Overused, "overused", "enabledOverused", Combine::kAnyTrue,
               bool(const api::QueueInfo&));
SHOAL_CALLBACK(Allocatable, "allocatable", "enabledAllocatable",
               Combine::kAllPass,
               bool(const api::QueueInfo&, const api::TaskInfo&));
// Preemptive: the queue may take this task's room back from other queues
// (reclaim), judged on the resources the task asks for.
SHOAL_CALLBACK(Preemptive, "preemptive", "enablePreemptive", Combine::kAllPass,
               bool(const api::QueueInfo&, const api::TaskInfo&));

// Node filters. A predicate sees only the pod's placement constraints and
// the node's static facts, so the session caches its answer per distinct
// set of constraints. A fit check sees the task and what the node has
// `available` now. Both fill `why` (which may be null) when they say no.
SHOAL_CALLBACK(Predicate, "predicate", "enablePredicate", Combine::kAllPass,
               bool(const api::PlacementConstraints&, const api::NodeInfo&,
                    Reasons* why));
SHOAL_CALLBACK(Fit, "fit", "enablePredicate", Combine::kAllPass,
               bool(const api::TaskInfo&, const api::NodeInfo&,
                    const api::Resource& available, Reasons* why));

// Node scores, higher is better. Must depend only on the task's request
// and placement and on the node itself: allocate re-scores only the nodes
// that changed.
SHOAL_CALLBACK(NodeOrder, "nodeOrder", "enableNodeOrder", Combine::kSum,
               double(const api::TaskInfo&, const api::NodeInfo&));

// Scores of rules over topology domains (zones, racks): may depend only on
// the task and on the pods PodTopology counts in the node's domains for
// the task's DomainKeys (never on the node's own room), so that callers
// ask once per domain. Added to NodeOrder's score.
SHOAL_CALLBACK(DomainOrder, "domainOrder", "enableNodeOrder", Combine::kSum,
               double(const api::TaskInfo&, const api::NodeInfo&));

// Victim selection: which of `candidates` the preemptor may evict.
SHOAL_CALLBACK(Preemptable, "preemptable", "enablePreemptable",
               Combine::kIntersectVictims,
               Victims(const api::TaskInfo& preemptor,
                       const std::vector<api::TaskIndex>& candidates));
SHOAL_CALLBACK(Reclaimable, "reclaimable", "enableReclaimable",
               Combine::kIntersectVictims,
               Victims(const api::TaskInfo& reclaimer,
                       const std::vector<api::TaskIndex>& candidates));

#undef SHOAL_CALLBACK

// Not tiered: told of every change a statement makes, so shares stay
// current without recomputation.
struct EventHandler {
  std::function<void(const api::TaskInfo&)> on_allocate;
  std::function<void(const api::TaskInfo&)> on_deallocate;
};

// Every config switch of Volcano's plugin options, spelt as Volcano spells
// them (some "enable...", some "enabled..."), plus the other spelling of
// those that were renamed, so that files of any Volcano release load.
const std::vector<std::string>& KnownSwitches();
// The spelling a switch is stored under: Volcano's current one
// ("enableOverused" -> "enabledOverused").
std::string CanonicalSwitch(const std::string& key);
// Whether any callback kind obeys the (canonical) switch; the others name
// Volcano features Shoal does not have.
bool SwitchHasCallback(const std::string& canonical);

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_CALLBACKS_H_
