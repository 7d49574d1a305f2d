// Least attained service (Tiresias' discretised LAS): the job that has
// used least of a resource (GPU-time by default) goes first, in bands.
//
// The plugin remembers, across cycles, each job's attained service: every
// session that closes adds (units of `resource` its running pods hold) x
// (seconds since the last closed session saw it). A job holding none of
// `resource` is charged its running pods' cpu cores instead, so that
// cpu-only work ages too (units then are core-seconds). Pods count while
// binding, bound or running (a restart's start-up included, as Tiresias
// counts a job RUNNING from when it is given GPUs); pending, pipelined and
// releasing pods count nothing. A job the cluster no longer has is
// forgotten; one recreated under the same name (another uid) starts anew.
//
// Bands: `thresholds` (comma-separated unit-seconds, ascending; default
// "57600" = Tiresias' two queues at 16 GPU-hours); a job's band is how
// many thresholds its attained service has reached (>=). Bands only rise
// (attained service never falls): no promotion back.
//
// Order (JobOrder) and preemption (Preemptable) follow one total order:
//   1. higher PriorityClass value first (priority bands: the plugin
//      embeds the priority plugin's rule, so where priorities differ
//      priority decides whichever of the two comes first in the tiers);
//   2. lower LAS band first;
//   3. within a band, the job that entered it first: for band 0 its
//      creation (FIFO by arrival), for higher bands the cycle that saw it
//      cross (Tiresias appends a demoted job to the end of Q1);
//   4. then creation, then namespace/name.
// A taker may evict a pod of another job later in that order; inside one
// job, a pod of lower pod priority (as the priority plugin). Gang safety
// is the actions' mechanism: a running gang is never cut below its
// minimum, whatever this answers.
//
// In a policy (tools/simulator/policies/tiresias-las.yaml): list priority
// before las in the first tier with priority's preemptable off
// (`enablePreemptable: false`): victim sets of one tier intersect, and
// priority's answer (strictly lower priority only) would empty las's at
// equal priority; las already refuses victims of higher priority. (las in
// an earlier tier than priority works too for preemption, but then a
// later tier's answers apply whenever las's tier answers nothing.) Turn
// gang's job order off, or list las before gang, to keep pure LAS order
// between running and waiting jobs.
//
// By default the preempt action ends a running gang whole only for a
// taker of strictly higher priority (actions/victims.h FindWholeGang):
// at equal priority las then takes only the pods of a job above its
// minimum (elastic surplus). With preempt's `endWholeGangs: tiers` this
// answer ends a later rigid gang whole too, as Tiresias preempts.
//
// Visible: each job's attained service and band at VLOG(2) ("las: job
// ns/name attained N unit-seconds, band B"), and through Remembered.
#ifndef SHOAL_PLUGINS_LAS_LAS_H_
#define SHOAL_PLUGINS_LAS_LAS_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/framework/arguments.h"
#include "scheduler/framework/plugin.h"

namespace shoal::plugins::las {

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args);

// What the plugin remembers of one job after the last closed session.
struct Standing {
  std::string uid;
  double attained = 0;  // unit-seconds
  int band = 0;
  absl::Time entered_band = absl::InfinitePast();
  absl::Time last_seen = absl::InfinitePast();
};

// The standing `plugin` (made by New) remembers for the job `key`
// (namespace/name); nullopt when it remembers none or `plugin` is not las.
std::optional<Standing> Remembered(const framework::Plugin& plugin,
                                   const std::string& key);

}  // namespace shoal::plugins::las

#endif  // SHOAL_PLUGINS_LAS_LAS_H_
