// How the room beyond every gang's minimum is shared between elastic
// jobs: the `share` argument of the elastic plugin.
//
// * even (Volcano's and EDL's way): one pod at a time to the job with the
//   smallest dominant share (water-filling), so twenty jobs get about
//   equal trainers;
// * oldest-first: jobs in the order they were submitted, each taking all
//   it can before the next gets any: the oldest runs widest and finishes
//   first, which lowers the mean completion time when jobs cannot all run
//   wide. A job that has not started takes its turn only if it can start
//   whole (every pod): one started narrow runs long beside older jobs, and
//   growing it later costs a restart. Room nobody could take whole then
//   goes to the jobs that could not start and whose resize is free,
//   narrower (they grow later at no cost); a job whose resize costs a
//   restart waits to start whole, up to the fairness bound. A job waiting
//   longer than the
//   fairness bound (to start, or at its minimum with pods pending) goes
//   ahead of every job that was not, and starts with its minimum, so none
//   waits forever;
// * throughput: by marginal gain. One pod at a time to the job whose next
//   pod adds the most relative throughput (curve.h: its shoal.dev/
//   throughput annotation, linear without one) per unit of its dominant
//   resource, ties to the smaller share. A job whose next pod adds nothing
//   takes no more (a flat curve gets no second pod). Hysteresis: a pod a
//   job runs now counts `margin` (of one pod's throughput) more for that
//   job, so a pod moves to another job only when it gains more than that
//   there. Shrinking follows the same curve: the pods a job gives up are
//   the ones it gains least from;
// * job-order: the jobs in the order the policy's other plugins put them
//   (las: least attained service first), each taking all it can before
//   the next gets any, and no pod whose gain its curve says is nothing.
//   Every admitted job has its minimum first, so this is least-attained
//   service for the room beyond minimums: a new job runs wide at once and
//   a long one narrows as newer jobs come (Tiresias' discipline with
//   elastic jobs). Running jobs' surplus is redistributed whatever their
//   resize costs, since the order, not the present, decides; growth that
//   costs a restart still has to pay (resize_rule.h).
#ifndef SHOAL_PLUGINS_ELASTIC_SHARING_H_
#define SHOAL_PLUGINS_ELASTIC_SHARING_H_

#include <cstdint>
#include <vector>

#include "absl/time/time.h"
#include "plugins/elastic/curve.h"
#include "scheduler/api/job_info.h"
#include "scheduler/api/resource.h"

namespace shoal::plugins::elastic {

enum class Sharing { kEven, kOldestFirst, kThroughput, kJobOrder };

struct Grower {
  api::JobIndex job = api::kNone;
  api::Resource held;  // what its minimum and its extra pods hold
  api::Resource pod;   // what one more pod asks for
  int32_t extra = 0;   // pods beyond its minimum so far
  int32_t max_extra = 0;
  // For oldest-first: when it was submitted; whether it has waited
  // longer than the fairness bound (then since when); and, for a job whose
  // minimum is not placed yet, what its minimum and all its pods ask for,
  // which it takes from the room in its turn (`starts` says whether that
  // fit).
  absl::Time submitted = absl::InfinitePast();
  bool starved = false;
  absl::Time starved_since = absl::InfinitePast();
  bool starting = false;
  api::Resource minimum;
  api::Resource whole;
  bool starts = true;
  bool resize_free = true;  // its resize cost is 0
  // For throughput: its scaling curve (null or empty: linear), its
  // minimum in pods (its pod count is min_pods + extra), and how many of
  // its extra pods it runs now (those count the margin more for it).
  const Curve* curve = nullptr;
  int32_t min_pods = 0;
  int32_t kept = 0;
  // For job-order: its place in the session's job order (0 first).
  int32_t rank = 0;
};

// Hands `room` out to `growers` a pod at a time, from each one's `extra`
// up to its `max_extra`, in the sharing's order; dominant shares are of
// `total`. `margin`: throughput's hysteresis, in one pod's throughput.
void Share(Sharing sharing, const api::Resource& total, api::Resource room,
           std::vector<Grower>& growers, double margin = 0.1);

// Throughput: what the grower's next pod adds (its curve, from its pod
// count now), and that per unit of `total`'s share its pod takes, with the
// margin when the pod is one it runs now.
double NextGain(const Grower& g);
double NextScore(const Grower& g, const api::Resource& total, double margin);

}  // namespace shoal::plugins::elastic

#endif  // SHOAL_PLUGINS_ELASTIC_SHARING_H_
