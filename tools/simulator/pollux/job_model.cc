#include "tools/simulator/pollux/job_model.h"

#include <algorithm>
#include <cmath>

namespace shoal::sim::pollux {
namespace {

// ceil(a / b) for positive integers, as the artifact's
// math.ceil(a / b - 1e-8) computes it for the sizes that occur.
int CeilDiv(int a, int b) { return (a + b - 1) / b; }

int Sum(const std::vector<int>& placement) {
  int n = 0;
  for (int g : placement) n += std::max(g, 0);
  return n;
}

std::vector<int> Compact(const std::vector<int>& placement) {
  std::vector<int> p;
  for (int g : placement) {
    if (g > 0) p.push_back(g);
  }
  return p;
}

// Seconds of one iteration at `placement` with `lb`, its accumulation
// micro-steps included: step_time + accum_steps * (step_time - sync_time).
double IterationSeconds(const Application& app,
                        const std::vector<int>& placement,
                        const LocalBatch& lb) {
  StepTimes st = app.StepTime(placement, lb.atomic_bsz);
  return st.step_time + (st.step_time - st.sync_time) * lb.accum_steps;
}

// Statistical progress one iteration of `lb`'s batch makes in `epoch`.
double Gain(const Application& app, const LocalBatch& lb, int epoch) {
  double scale = static_cast<double>(lb.batch_size) / app.init_batch_size();
  GradStats gs = app.GetGradStats(lb.batch_size, epoch);
  double denom = gs.grad_var / scale + gs.grad_sqr;
  return denom > 0 ? (gs.grad_var + gs.grad_sqr) / denom : 1.0;
}

// Progress per second (the artifact's goodput): gain per iteration over
// the seconds of one; 0 for an iteration that takes none.
double Goodput(const Application& app, const LocalBatch& lb, int epoch,
               double iteration_seconds) {
  return iteration_seconds > 0 ? Gain(app, lb, epoch) / iteration_seconds : 0.0;
}

}  // namespace

LocalBatch SplitBatch(const Application& app, int batch_size,
                      int num_replicas) {
  LocalBatch lb;
  if (num_replicas <= 0 || batch_size <= 0) return lb;
  int local = CeilDiv(batch_size, num_replicas);
  lb.accum_steps = CeilDiv(local, app.max_local_bsz()) - 1;
  if (num_replicas == 1 && batch_size > app.init_batch_size()) {
    lb.accum_steps = std::max(1, lb.accum_steps);
  }
  lb.atomic_bsz = CeilDiv(local, lb.accum_steps + 1);
  int count = num_replicas * (lb.accum_steps + 1);
  lb.atomic_bsz = std::min(lb.atomic_bsz, app.max_batch_size() / count);
  lb.batch_size = num_replicas * lb.atomic_bsz * (lb.accum_steps + 1);
  return lb;
}

std::vector<int> PackedPlacement(int num_gpus, int gpus_per_node) {
  std::vector<int> p;
  while (num_gpus > 0) {
    int g = std::min(num_gpus, gpus_per_node);
    p.push_back(g);
    num_gpus -= g;
  }
  return p;
}

JobModel::JobModel(const Application* app, int batch_size, double current_time)
    : app_(app), batch_size_(batch_size), current_time_(current_time) {}

void JobModel::Reallocate(const std::vector<int>& placement) {
  std::vector<int> p = Compact(placement);
  if (!p.empty()) {
    placement_ = std::move(p);
    local_batch_ = SplitBatch(*app_, batch_size_, Sum(placement_));
    rescale_time_ = kRescaleSeconds;
    ++num_restarts_;  // -1 -> 0 at the first start
  } else {
    placement_.clear();
    local_batch_ = LocalBatch{};
  }
}

void JobModel::Step(double seconds) {
  if (placement_.empty()) {
    current_time_ += seconds;
    return;
  }
  const int gpus = Sum(placement_);
  double delay = std::min(rescale_time_, seconds);
  current_time_ += delay;
  attained_service_ += delay * gpus;
  rescale_time_ -= delay;
  seconds -= delay;
  while (seconds > 0 && !completion_time_.has_value() &&
         epoch_ < app_->max_epochs()) {
    const double iteration = IterationSeconds(*app_, placement_, local_batch_);
    const double goodput = Goodput(*app_, local_batch_, epoch_, iteration);
    if (!(goodput > 0)) break;
    double next_progress = app_->Progress(epoch_ + 1);
    if (progress_ + goodput * seconds < next_progress) {
      // The whole interval passes inside this epoch.
      progress_ += goodput * seconds;
      iterations_ += seconds / iteration;
      current_time_ += seconds;
      attained_service_ += seconds * gpus;
      seconds = 0;
    } else {
      // An epoch boundary is crossed, at a whole second.
      ++epoch_;
      double delta = std::nearbyint((next_progress - progress_) / goodput);
      delta = std::min(delta, seconds);
      if (epoch_ > app_->CompletionEpoch(local_batch_.batch_size)) {
        completion_time_ = current_time_ + delta;
      }
      progress_ = next_progress;
      iterations_ += delta / iteration;
      current_time_ += delta;
      attained_service_ += delta * gpus;
      seconds -= delta;
    }
  }
  current_time_ += seconds;  // whatever is left after completion
}

double JobModel::Speed(const std::vector<int>& placement) const {
  std::vector<int> p = Compact(placement);
  if (p.empty() || epoch_ >= app_->max_epochs()) return 0.0;
  LocalBatch lb = SplitBatch(*app_, batch_size_, Sum(p));
  if (lb.atomic_bsz <= 0) return 0.0;
  return Goodput(*app_, lb, epoch_, IterationSeconds(*app_, p, lb));
}

double JobModel::RelativeThroughput(int num_gpus) const {
  double one = Speed({1});
  return one > 0 ? Speed(PackedPlacement(num_gpus)) / one : 0.0;
}

}  // namespace shoal::sim::pollux
