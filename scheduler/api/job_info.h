// A PodGroup (or a lone pod, as a job of one) and its tasks.
#ifndef SHOAL_SCHEDULER_API_JOB_INFO_H_
#define SHOAL_SCHEDULER_API_JOB_INFO_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/api/network_topology.h"
#include "scheduler/api/resource.h"
#include "scheduler/api/sub_groups.h"
#include "scheduler/api/task_info.h"

namespace shoal::api {

enum class PodGroupPhase { kPending, kInqueue, kRunning, kUnknown, kCompleted };
const char* PodGroupPhaseName(PodGroupPhase p);

// Which API the job's PodGroup came from.
enum class GroupSource {
  kVolcano,           // scheduling.volcano.sh/v1beta1
  kSchedulerPlugins,  // scheduling.x-k8s.io/v1alpha1
  kWorkload,          // a gang of a scheduling.k8s.io/v1alpha1 Workload
  kKubePodGroup,      // scheduling.k8s.io PodGroup (v1alpha2 on)
  kCompositeTree,     // a scheduling.k8s.io CompositePodGroup tree
  kSinglePod,         // no PodGroup: a job of one
};

struct JobInfo {
  std::string ns;
  std::string name;  // PodGroup name, or the pod's name for a job of one
  std::string uid;
  GroupSource source = GroupSource::kVolcano;
  // Position in ClusterInfo::jobs, set once when the snapshot is built
  // (ClusterBuilder::AddJob); kNone outside a cluster.
  JobIndex index = kNone;
  std::string queue = "default";
  // Index of `queue` in ClusterInfo.queues, or kNone when it does not
  // exist; resolved once when the snapshot is built.
  int32_t queue_index = kNone;
  int32_t min_member = 1;
  std::map<std::string, int32_t> min_task_member;  // per role
  std::optional<Resource> min_resources;
  std::string priority_class;
  int32_t priority = 0;
  // A scheduling.k8s.io group's spec.priority (set by the API server's
  // priority admission): `priority` is it, whatever the class or pods say.
  bool priority_stated = false;
  PodGroupPhase phase = PodGroupPhase::kPending;
  // Where in the network its pods must or should run (spec.networkTopology).
  NetworkConstraint network;
  // Written during a session: a hard network constraint kept the gang
  // waiting (no domain within its limit could take it).
  bool waiting_on_network = false;
  // spec.subGroupPolicy, and the sub-groups its pods form (api/sub_groups.h;
  // rebuilt whenever the job's pods or PodGroup change).
  std::vector<SubGroupPolicy> sub_group_policies;
  std::vector<SubGroup> sub_groups;
  // Pods name this group but no PodGroup object exists (yet); for a
  // Workload's gang, why it is missing (its Workload or its podGroup).
  bool group_missing = false;
  std::string missing_reason;
  // For a Workload's gang: the Workload, as Events name it.
  struct Owner {
    std::string api_version, kind, name, uid;
  };
  Owner owner;
  // The first field of the PodGroup that bears on placement and that
  // Shoal does not implement yet ("spec.networkTopology"): the gang waits,
  // naming it, rather than be placed as if it were absent. Its value
  // (JSON) is kept so that a snapshot of the cache writes it back.
  std::string unsupported_field;
  // A scheduling.k8s.io PodGroup's spec.resourceClaims (KEP-5729): claims
  // reserved for the whole group and shared by its pods, each resolved
  // to its claim's name (a template's from status.resourceClaimStatuses,
  // "" until the resourceclaim controller has made it).
  std::vector<PodClaim> group_claims;
  // spec.disruptionMode: PodGroup (a scheduling.k8s.io PodGroup): the
  // group is disrupted together, so an eviction takes all its pods or
  // none (preempt ends it whole; nothing takes a single pod of it).
  bool disrupted_whole = false;
  std::string unsupported_value;
  // A scheduling.k8s.io PodGroup under a CompositePodGroup: its
  // spec.parentCompositePodGroupName. The cache folds such a leaf into its
  // tree's job (cache/composite_jobs.h); "" for a PodGroup of its own.
  std::string parent_group;
  // spec.preemptionPolicy of a scheduling.k8s.io group ("" when unset).
  std::string preemption_policy;
  // Why the job may not run as its objects stand (a CompositePodGroup
  // tree breaking a rule of the API, named): it waits, saying so.
  std::string refusal;
  // Admitted (Inqueue) in an earlier cycle without placing anything yet:
  // the session puts it back to Pending and enqueue decides again, so an
  // admission never holds room that allocate would not give it.
  bool renewing_admission = false;
  absl::Time created = absl::UnixEpoch();

  std::vector<TaskIndex> tasks;
  std::array<int32_t, kTaskStatusCount> count_by_status{};

  // Written during a session. fit_error: kube-scheduler's sentence for the
  // first task no node would take. message: what users see on the
  // PodGroup (and, for a job of one, the pod) about why it waits.
  std::string fit_error;
  std::string message;
  // For an elastic job (more pods than minMember): how many pods it should
  // run now, between minMember and its pod count; 0 otherwise. Written by
  // the elastic plugin for job controllers that resize themselves.
  int32_t elastic_target = 0;
  // Consecutive earlier cycles that ended with this gang partly bound
  // (framework/partial_gang_release.h); kept by the cache between cycles.
  int32_t cycles_below_minimum = 0;

  // What one change of the job's running pod count costs it, in seconds
  // (Shoal's annotation shoal.dev/resize-cost-seconds: a trainer that
  // restarts its worker group from a checkpoint on every membership
  // change); -1 when the PodGroup does not say, and the elastic plugin's
  // default applies.
  int32_t resize_cost_seconds = -1;
  // How the job's progress grows with its pod count (Shoal's annotation
  // shoal.dev/throughput, "1=1,2=1.9,4=3.5,8=6.1": throughput relative to
  // one pod), by pod count ascending; empty when the PodGroup does not
  // say. Written by the user, a training operator, or the simulator.
  std::vector<std::pair<int32_t, double>> throughput;
  // The work the job has done so far, in any unit (steps, samples), as
  // its trainer reports it (Shoal's annotation shoal.dev/progress),
  // raised as it trains; -1 when it does not say. The elastic plugin
  // learns the job's scaling curve from how fast it grows at each size.
  double progress = -1;
  // Where the throughput curve the scheduler goes by came from: "" its
  // annotation (or none), else what the elastic plugin says it learned
  // ("learned from shoal.dev/progress at 2, 4 pods"), for explain.
  std::string throughput_source;
  // Written by the elastic plugin (from what it remembers across cycles)
  // for the status, metrics and explain: the cost it applies, how many
  // times the running job's pod count changed since the scheduler started,
  // when it last did, and why growth is held back now ("" when it is not).
  // shrink_rank orders the jobs whose resize costs something for evictions
  // that must shrink one (1 first; 0: its resize is free, unranked).
  struct Resizing {
    int32_t cost_seconds = 0;
    int32_t count = 0;
    absl::Time last = absl::InfinitePast();
    std::string held;
    int32_t shrink_rank = 0;
  };
  Resizing resizing;

  // Per-role minimums count only when minMember covers their sum; a
  // PodGroup asking for fewer pods in all than its roles do is checked on
  // minMember alone (Volcano's rule, kept so its Jobs behave the same).
  bool RoleMinimumsApply() const;

  // More pods than its gang minimum: the rest grow and shrink.
  bool elastic() const {
    return static_cast<int32_t>(tasks.size()) > min_member;
  }

  std::string Key() const { return ns + "/" + name; }
  int32_t Count(TaskStatus s) const {
    return count_by_status[static_cast<int>(s)];
  }
  // Allocated, binding, bound, running or succeeded.
  int32_t ReadyCount() const;
  // Tasks that can still count toward the minimum (not failed/releasing).
  int32_t ValidCount() const;
  int32_t PendingCount() const { return Count(TaskStatus::kPending); }
  // Bound or running: what users see as scheduled.
  int32_t ScheduledCount() const;
  // A gang with members bound but its minimum unmet, not waiting for
  // evictions (pipelined) to make the rest of its room.
  bool PartlyBound() const;
  void Recount(TaskStatus from, TaskStatus to) {
    --count_by_status[static_cast<int>(from)];
    ++count_by_status[static_cast<int>(to)];
    ++status_changes;
  }
  // How many times one of its tasks changed status (never goes back, not
  // even when a statement is undone): what is worked out from the tasks'
  // statuses alone holds while it stays the same.
  uint64_t status_changes = 0;
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_JOB_INFO_H_
