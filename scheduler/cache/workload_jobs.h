// The jobs of Kubernetes' Workloads (api/workload.h): each pod naming a
// gang podGroup by spec.workloadRef joins the job of its (Workload,
// podGroup, podGroupReplicaKey); a pod of a basic podGroup is a job of
// its own.
#ifndef SHOAL_SCHEDULER_CACHE_WORKLOAD_JOBS_H_
#define SHOAL_SCHEDULER_CACHE_WORKLOAD_JOBS_H_

#include <map>
#include <string>

#include "scheduler/api/job_info.h"
#include "scheduler/api/task_info.h"
#include "scheduler/api/workload.h"

namespace shoal::cache {

using Workloads = std::map<std::string, api::WorkloadSpec>;

// Whether the pod names a podGroup of policy basic (each pod on its own).
bool InBasicPodGroup(const Workloads& workloads, const api::PodInfo& pod);

// The job of the gang the pod names (its workloadRef set): minCount its
// minimum, the Workload's queue; or, when the Workload or the podGroup
// does not exist, a job that waits saying which.
api::JobInfo WorkloadGangJob(const Workloads& workloads,
                             const api::PodInfo& pod);

}  // namespace shoal::cache

#endif  // SHOAL_SCHEDULER_CACHE_WORKLOAD_JOBS_H_
