#include "scheduler/cache/workload_jobs.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shoal::cache {
namespace {

const api::WorkloadSpec* Find(const Workloads& workloads,
                              const api::PodInfo& pod) {
  auto it = workloads.find(pod.ns + "/" + pod.workload_ref.name);
  return it == workloads.end() ? nullptr : &it->second;
}

}  // namespace

bool InBasicPodGroup(const Workloads& workloads, const api::PodInfo& pod) {
  if (pod.workload_ref.name.empty() || !pod.group_conflict.empty())
    return false;
  const api::WorkloadSpec* w = Find(workloads, pod);
  if (w == nullptr) return false;
  const api::WorkloadPodGroup* g = w->Find(pod.workload_ref.pod_group);
  return g != nullptr && !g->gang;
}

api::JobInfo WorkloadGangJob(const Workloads& workloads,
                             const api::PodInfo& pod) {
  const api::WorkloadRef& ref = pod.workload_ref;
  api::JobInfo job;
  job.ns = pod.ns;
  job.name = ref.GangName();
  job.source = api::GroupSource::kWorkload;
  const api::WorkloadSpec* w = Find(workloads, pod);
  const std::string workload = absl::StrCat("workload ", pod.ns, "/", ref.name);
  if (w == nullptr) {
    job.uid = job.Key();
    job.group_missing = true;
    job.missing_reason = absl::StrCat(
        workload,
        " does not exist; the pods that name it (spec.workloadRef) "
        "wait until it is created");
    return job;
  }
  job.owner = {w->api_version, "Workload", w->name, w->uid};
  job.uid = absl::StrCat(w->uid, "/", ref.pod_group,
                         ref.replica_key.empty() ? "" : "/", ref.replica_key);
  job.created = w->created;
  job.queue = w->queue;
  job.resize_cost_seconds = w->resize_cost_seconds;
  job.throughput = w->throughput;
  job.progress = w->progress;
  const api::WorkloadPodGroup* g = w->Find(ref.pod_group);
  if (g == nullptr) {
    std::vector<std::string> names;
    for (const api::WorkloadPodGroup& known : w->pod_groups)
      names.push_back(known.name);
    job.group_missing = true;
    job.missing_reason =
        absl::StrCat(workload, " has no podGroup \"", ref.pod_group,
                     "\" (spec.podGroups names ", absl::StrJoin(names, ", "),
                     "); the pods that name it wait until it does");
    return job;
  }
  job.min_member = g->min_count;
  return job;
}

}  // namespace shoal::cache
