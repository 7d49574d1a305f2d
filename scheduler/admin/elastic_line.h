// The "Elastic:" line of `shoalctl explain podgroup`: what the last cycle
// decided for an elastic job, or for any job whose resize costs a restart.
#ifndef SHOAL_SCHEDULER_ADMIN_ELASTIC_LINE_H_
#define SHOAL_SCHEDULER_ADMIN_ELASTIC_LINE_H_

#include <string>

#include "scheduler/api/job_info.h"

namespace shoal::admin {

// "target 12 of 16 pods (minMember 8); resize cost 30s (annotation
// shoal.dev/resize-cost-seconds); 3 resizes, the last at ...; growth from
// 12 to 16 pods skipped: ..."; "" for a job that is not elastic and whose
// resizes cost nothing.
std::string ElasticLine(const api::JobInfo& job);

// The "Throughput:" line of `shoalctl explain podgroup` for a job that
// declares how it scales (shoal.dev/throughput): "1=1,2=1.9,4=3.6,8=7
// (annotation shoal.dev/throughput, relative to one pod); at 4 pods 3.6;
// pod 5 would add 0.85"; "" for a job without a curve. A curve the
// elastic plugin learned says so in place of the annotation
// (JobInfo::throughput_source).
std::string ThroughputLine(const api::JobInfo& job);

}  // namespace shoal::admin

#endif  // SHOAL_SCHEDULER_ADMIN_ELASTIC_LINE_H_
