// A training job of Pollux's benchmark with a fixed global batch size (the
// `batch_size` a user tuned, as rigid schedulers such as Tiresias and
// Optimus run it): how far it gets in simulated time on the GPUs it is
// given. Mirrors Job.step / Job.reallocate / Job.update_local_bsz of the
// artifact's simulator/simulator.py for a fixed target batch size.
//
// Usage by a simulator loop (the artifact's order): every interval, first
// Step(interval) every job (also those not yet submitted or stopped: time
// passes for them too), then decide allocations and call Reallocate() on
// each job whose allocation changed (empty placement = stop it).
#ifndef SHOAL_TOOLS_SIMULATOR_POLLUX_JOB_MODEL_H_
#define SHOAL_TOOLS_SIMULATOR_POLLUX_JOB_MODEL_H_

#include <optional>
#include <vector>

#include "tools/simulator/pollux/application.h"

namespace shoal::sim::pollux {

// How a global batch is split on a number of replicas: each replica runs
// accum_steps + 1 micro-steps of atomic_bsz samples per iteration.
struct LocalBatch {
  int atomic_bsz = 0;
  int accum_steps = 0;
  // num_replicas * atomic_bsz * (accum_steps + 1): the batch size the job
  // really trains with (rounding up may make it a little larger than asked).
  int batch_size = 0;
};

// The artifact's update_local_bsz for a fixed target batch size:
//   local = ceil(batch_size / num_replicas)
//   accum_steps = ceil(local / max_local_bsz) - 1
//   with one replica and batch_size > init_batch_size: accum_steps >= 1
//     (the artifact's quirk: a single GPU always accumulates at least two
//     micro-steps above the initial batch size)
//   atomic_bsz = ceil(local / (accum_steps + 1)),
//     then capped at floor(max_batch_size / (num_replicas*(accum_steps+1))).
LocalBatch SplitBatch(const Application& app, int batch_size, int num_replicas);

// `num_gpus` packed on nodes of `gpus_per_node`: 10 -> {4, 4, 2}.
std::vector<int> PackedPlacement(int num_gpus, int gpus_per_node = 4);

class JobModel {
 public:
  // Restart delay of each (re)allocation to a non-empty placement.
  static constexpr double kRescaleSeconds = 30;

  // `app` must outlive the job. `current_time` is the simulation clock the
  // job starts at (the artifact starts every job's clock at 0 and steps it
  // from the start of the simulation, submitted or not).
  JobModel(const Application* app, int batch_size, double current_time = 0);

  // Runs the job on `placement` (GPUs used on each node, e.g. {4, 2}; zeros
  // are ignored) from now on; empty stops it. A non-empty placement always
  // starts a 30 s restart during which the job holds its GPUs (attained
  // service accrues) but makes no progress: the first start too, as in the
  // artifact. num_restarts() counts non-empty reallocations after the first.
  void Reallocate(const std::vector<int>& placement);

  // Advances the job's clock by `seconds`, with progress when it runs.
  // Epoch boundaries are crossed at whole seconds (the artifact rounds the
  // time to each boundary to the nearest second, ties to even).
  void Step(double seconds);

  bool done() const { return completion_time_.has_value(); }
  // Simulation time at which the last epoch completed.
  std::optional<double> completion_time() const { return completion_time_; }
  // GPU-seconds held (including restart delays).
  double attained_service() const { return attained_service_; }
  // -1 before the first start, then the artifact's num_restarts.
  int num_restarts() const { return num_restarts_; }
  double current_time() const { return current_time_; }
  double progress() const { return progress_; }
  // Iterations trained so far: what a trainer's step counter says (the
  // simulator reports it as the job's shoal.dev/progress). Unlike
  // progress() its rate at a placement does not change with the epoch.
  double iterations() const { return iterations_; }
  int epoch() const { return epoch_; }
  double rescale_seconds_left() const { return rescale_time_; }
  const std::vector<int>& placement() const { return placement_; }
  const LocalBatch& local_batch() const { return local_batch_; }
  int target_batch_size() const { return batch_size_; }
  const Application& application() const { return *app_; }

  // Progress per second (goodput) the job would make at `placement` in its
  // current epoch, ignoring restart delays; 0 for an empty placement.
  double Speed(const std::vector<int>& placement) const;
  // Speed(PackedPlacement(num_gpus)) / Speed({1}): the job's scaling curve.
  double RelativeThroughput(int num_gpus) const;

 private:
  const Application* app_;
  int batch_size_;
  double current_time_;
  double rescale_time_ = 0;
  std::vector<int> placement_;
  LocalBatch local_batch_;
  double progress_ = 0;
  double iterations_ = 0;
  int epoch_ = 0;
  double attained_service_ = 0;
  int num_restarts_ = -1;
  std::optional<double> completion_time_;
};

}  // namespace shoal::sim::pollux

#endif  // SHOAL_TOOLS_SIMULATOR_POLLUX_JOB_MODEL_H_
