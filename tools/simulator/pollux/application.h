// One training application of Pollux's published benchmark (OSDI '21): its
// measured step times on every placement and its per-epoch statistical
// progress at each validated global batch size. Mirrors the behaviour of
// the artifact's simulator/applications.py (petuum/adaptdl, osdi21-artifact)
// so a Shoal simulation of the benchmark can be compared with the paper's.
//
// Data layout (tools/simulator/traces/pollux-osdi21/README.md):
//   <dir>/placements.csv   placement,local_bsz,step_time,sync_time
//   <dir>/scalability.csv  num_nodes,num_replicas,local_bsz,step_time,sync_time
//   <dir>/validation-<B>.csv progress,iteration,metric,grad_sqr,grad_var
#ifndef SHOAL_TOOLS_SIMULATOR_POLLUX_APPLICATION_H_
#define SHOAL_TOOLS_SIMULATOR_POLLUX_APPLICATION_H_

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"

namespace shoal::sim::pollux {

// Seconds per training iteration and the part of it spent synchronising
// gradients, at one placement and per-GPU ("local") batch size.
struct StepTimes {
  double step_time = 0;
  double sync_time = 0;
  // True when the answer lies outside what was measured (see StepTime):
  // the artifact would have failed there; we clamp or extrapolate.
  bool extrapolated = false;
};

struct GradStats {
  double grad_sqr = 0;
  double grad_var = 0;
};

// One row of validation-<B>.csv: the state at the end of one epoch.
struct ValidationRow {
  double progress = 0;
  double iteration = 0;
  double metric = 0;
  double grad_sqr = 0;
  double grad_var = 0;
};

// What the artifact's APPLICATIONS table sets per application; zero means
// "from the data" as in the artifact (init batch size: smallest validated
// one; max batch size: largest validated one; local batch limits: the
// extremes of placements.csv; max_epochs: shortest validation table).
struct ApplicationOptions {
  int max_epochs = 0;
  int init_batch_size = 0;
  int max_batch_size = 0;
  int min_local_bsz = 0;
  int max_local_bsz = 0;
};

class Application {
 public:
  // The six applications and the options the artifact gives them:
  // bert 2 epochs, cifar10 100, deepspeech2 80, imagenet 90, ncf 10,
  // yolov3 50 with a largest local batch of 8.
  static const std::vector<std::string>& Names();
  static absl::StatusOr<ApplicationOptions> DefaultOptions(
      const std::string& name);

  // Loads <traces_dir>/<name> with DefaultOptions(name).
  static absl::StatusOr<Application> LoadNamed(const std::string& traces_dir,
                                               const std::string& name);
  // Loads one application directory; its name is the directory's base name.
  // Malformed CSV is refused with "<file>:<line>: field '<name>': ...".
  static absl::StatusOr<Application> Load(const std::string& dir,
                                          const ApplicationOptions& options);

  const std::string& name() const { return name_; }
  int init_batch_size() const { return init_batch_size_; }
  int max_batch_size() const { return max_batch_size_; }
  int min_local_bsz() const { return min_local_bsz_; }
  int max_local_bsz() const { return max_local_bsz_; }
  int max_epochs() const { return max_epochs_; }
  // Validated global batch sizes -> their per-epoch rows, ascending.
  const std::map<int, std::vector<ValidationRow>>& validation() const {
    return validation_;
  }

  // The placement (GPUs used on each node) as the artifact keys it: zeros
  // dropped, then the lexicographically smallest rotation. {2,1,3} ->
  // {1,3,2}; {0,4,0,2} -> {2,4}.
  static std::vector<int> NormalizePlacement(const std::vector<int>& placement);

  // Step and sync time of one iteration at `placement` with `local_bsz`
  // samples per GPU (artifact: get_throughput).
  //  * A placement measured in placements.csv (after NormalizePlacement):
  //    linear interpolation in local_bsz between its rows. Below its
  //    smallest measured local_bsz the value there is used (clamp); above
  //    its largest, the last segment is extended linearly (never below the
  //    last measured value); both set `extrapolated` (the artifact raises).
  //  * Otherwise (5 or more nodes; the file measures every placement of up
  //    to 4 nodes of up to 4 GPUs): piecewise-linear interpolation over
  //    (num_nodes, num_replicas, local_bsz) of placements.csv averaged per
  //    (num_nodes, num_replicas, local_bsz) plus scalability.csv, with
  //    num_nodes capped at 16 as the artifact does. See Interpolate3().
  // An empty placement is an error of the caller (returns zeros).
  StepTimes StepTime(const std::vector<int>& placement, double local_bsz) const;

  // The 3-D interpolation used by StepTime for unmeasured placements
  // (public for tests). The artifact uses scipy's LinearNDInterpolator
  // (Delaunay); we use a structured scheme on the data's (nodes, replicas)
  // groups instead:
  //  1. Within each measured group (n, r): linear in local_bsz, if
  //     local_bsz lies within the group's measured range.
  //  2. Within a measured node count m (a "row"): linear in num_replicas
  //     between the two nearest groups that answered step 1 and bracket r.
  //  3. Linear in num_nodes between the nearest rows below and above n
  //     that answered step 2 (if only one side answers, its value).
  //  If that fails (r outside every row's measured range), steps 2-3 are
  //  redone with replicas per node r/n in place of r (row m is queried at
  //  r*m/n). If that fails too, the nearest group in (n, r) answers with
  //  local_bsz clamped into its range, and `extrapolated` is set.
  StepTimes Interpolate3(int num_nodes, int num_replicas,
                         double local_bsz) const;

  // Statistical progress reached at the end of epoch `epoch` - 1 (0 for
  // epoch 0): the smallest `progress` of row epoch-1 over all validation
  // tables (artifact: get_progress). Valid for 0 <= epoch <= max_epochs.
  double Progress(int epoch) const;
  // Gradient statistics during `epoch` at global batch size `batch_size`,
  // linear between the two validated batch sizes around it (artifact:
  // get_grad_stats; outside the validated range the nearest is used).
  GradStats GetGradStats(double batch_size, int epoch) const;
  // Iterations done at the end of `epoch` at `batch_size`, interpolated
  // the same way (artifact: get_iteration).
  double Iteration(double batch_size, int epoch) const;
  // The last epoch a job must finish: max_epochs - 1 (the artifact sets no
  // target metric for any application, so every batch size is the same).
  int CompletionEpoch(double batch_size) const;

 private:
  struct Point {
    double local_bsz;
    double step_time;
    double sync_time;
  };
  // Returns false when `local_bsz` is outside `points`' range.
  static bool Lerp1(const std::vector<Point>& points, double local_bsz,
                    StepTimes* out);
  bool Row(int nodes, double x, double local_bsz, bool by_ratio,
           StepTimes* out) const;
  bool AcrossRows(int nodes, int replicas, double local_bsz, bool by_ratio,
                  StepTimes* out) const;
  std::pair<int, int> Bracket(double batch_size) const;

  std::string name_;
  int init_batch_size_ = 0;
  int max_batch_size_ = 0;
  int min_local_bsz_ = 0;
  int max_local_bsz_ = 0;
  int max_epochs_ = 0;
  std::map<int, std::vector<ValidationRow>> validation_;
  // Normalised placement (e.g. "1132") -> rows ascending in local_bsz.
  std::map<std::string, std::vector<Point>> placements_;
  // num_nodes -> num_replicas -> points ascending in local_bsz.
  std::map<int, std::map<int, std::vector<Point>>> groups_;
};

}  // namespace shoal::sim::pollux

#endif  // SHOAL_TOOLS_SIMULATOR_POLLUX_APPLICATION_H_
