// A job's scaling curve learned from what it reports while it runs: its
// PodGroup's (or Workload's) shoal.dev/progress annotation, the work it
// has done so far in any unit (steps, samples), which its trainer keeps
// raising. Each cycle the elastic plugin shows a ScalingLog the job's
// progress and how many pods it runs; the log measures the rate at each
// pod count the job has run at, and Learned() turns the rates into a
// curve (curve.h) for the elastic plugin to allocate by, in place of the
// declared one (shoal.dev/throughput) where it measured.
//
// What counts: an interval between two cycles at the same pod count, the
// count unchanged since the cycle before the interval began (the first
// interval after a change holds the restart, and says nothing about the
// new size). Progress that falls (a restart from a checkpoint) starts
// over from the new value. A size counts once it has `kSettleSeconds` of
// such intervals.
//
// The curve, relative to one pod as a declared one is: its unit is the
// rate at the smallest size measured, n0, divided by the declared curve's
// value there, or by n0 when the job declares none (linear up to n0).
// Each measured size is its rate in that unit. Below n0 the declared
// curve (or linear) holds; beyond the largest size measured the declared
// curve's shape carries on from the last measured point (proportionally),
// or, without one, linearly up to the job's pod count: a job is tried
// wider as long as nothing said it gains nothing there, and what it
// measures then replaces the guess.
#ifndef SHOAL_PLUGINS_ELASTIC_LEARNED_CURVE_H_
#define SHOAL_PLUGINS_ELASTIC_LEARNED_CURVE_H_

#include <cstdint>
#include <map>

#include "absl/time/time.h"
#include "plugins/elastic/curve.h"

namespace shoal::plugins::elastic {

class ScalingLog {
 public:
  // Seconds of clean intervals a pod count needs before it counts.
  static constexpr double kSettleSeconds = 60;

  // The job at `now` has done `progress` (>= 0) and runs `pods` pods (0:
  // it does not run).
  void Observe(absl::Time now, double progress, int32_t pods);

  // Measured progress per second at `pods`; 0 when not measured (yet).
  double RateAt(int32_t pods) const;
  // Whether any pod count counts yet.
  bool Measured() const;
  // The pod counts that count, ascending, as "1, 2, 4".
  std::string MeasuredSizes() const;

  // The curve to allocate by, up to `most_pods` pods (the job's pod
  // count); `declared` is the job's own (empty: none). Empty when nothing
  // is measured yet (then the declared curve stands).
  Curve Learned(const Curve& declared, int32_t most_pods) const;

 private:
  struct Sample {
    absl::Time at = absl::InfinitePast();
    double progress = 0;
    int32_t pods = 0;
  };
  struct Rate {
    double work = 0;
    double seconds = 0;
  };
  bool seen_ = false;
  Sample last_;
  // The pod count before last_ (whether last_ began a clean interval).
  int32_t pods_before_ = -1;
  std::map<int32_t, Rate> rates_;  // by pod count
};

}  // namespace shoal::plugins::elastic

#endif  // SHOAL_PLUGINS_ELASTIC_LEARNED_CURVE_H_
