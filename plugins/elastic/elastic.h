// Elastic jobs: a PodGroup with more pods than minMember runs its gang
// minimum and grows into capacity nobody's gang needs, and gives it back
// when others need it.
//
// Each cycle the plugin computes every elastic job's target size by
// water-filling on dominant share: what the cluster has left after all
// other work and every admitted gang's minimum goes one pod at a time to
// the elastic job with the smallest share, up to its pod count. Then:
// * grow: allocate places pods beyond a job's minimum only after every
//   minimum had its turn (allocate's second phase), and only up to the
//   target (allocatable);
// * shrink: a job below its target may take pods from elastic jobs above
//   theirs (preemptable), never pods placed in this or the previous cycle
//   (no flapping), and never below a job's minimum (the victim search's
//   gang floor). Gangs and higher-priority pods take elastic pods first
//   through the other plugins' answers, young or not.
// The target is published on the job (JobInfo::elastic_target) for job
// controllers that resize themselves.
//
// Resizes that cost a restart (README "Resizes that cost a restart"): a
// job's resize cost (its PodGroup's shoal.dev/resize-cost-seconds, else
// the `resizeCostSeconds` argument) above 0 changes three things. The
// running job keeps its pods (no redistribution between running jobs);
// it grows only when the gain pays (resize_rule.h), never sooner than a
// hold after its last change; and evictions that must shrink elastic jobs
// take from the cheapest, least recently changed job first, all they need
// from it before the next (actions/victims.h). Arguments: share (even |
// oldest-first | throughput | job-order, sharing.h), resizeCostSeconds (0),
// holdSeconds (each job's resize cost), fairnessBoundSeconds (600),
// expectedRoomSeconds (300: how long lent room stays, until evictions
// teach otherwise), throughputMargin (0.1: share: throughput's hysteresis,
// in one pod's throughput).
//
// A job's scaling curve (JobInfo::throughput, its shoal.dev/throughput
// annotation; curve.h) is read in every mode by the resize rule: growth
// that costs a restart is weighed by what the curve says it gains. Under
// share: throughput it also decides who gets the room: each job gets its
// minimum first, then room goes a pod at a time where the next pod adds
// the most throughput per unit of its dominant resource (sharing.h); the
// targets follow, so a job above its target (the one that gains least
// from its last pods) gives them up to one below.
//
// Under share: job-order the other plugins' job order (las) decides who
// gets the room beyond minimums, and a running job's surplus is up for
// redistribution whatever its resize cost; a job whose growth the resize
// rule holds back keeps what it runs. Every taker, a job short of its
// minimum too, takes only pods beyond their job's target: the targets
// already hold every minimum.
#ifndef SHOAL_PLUGINS_ELASTIC_ELASTIC_H_
#define SHOAL_PLUGINS_ELASTIC_ELASTIC_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/arguments.h"
#include "scheduler/framework/plugin.h"

namespace shoal::plugins::elastic {

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args);

}  // namespace shoal::plugins::elastic

#endif  // SHOAL_PLUGINS_ELASTIC_ELASTIC_H_
