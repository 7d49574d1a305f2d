#include "plugins/elastic/learned_curve.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shoal::plugins::elastic {

void ScalingLog::Observe(absl::Time now, double progress, int32_t pods) {
  if (seen_ && now > last_.at && pods > 0 && pods == last_.pods &&
      pods_before_ == pods && progress >= last_.progress) {
    Rate& r = rates_[pods];
    r.work += progress - last_.progress;
    r.seconds += absl::ToDoubleSeconds(now - last_.at);
  }
  if (seen_ && now <= last_.at) return;  // the same cycle again
  pods_before_ = seen_ ? last_.pods : -1;
  // Progress that fell is a new start: the next interval measures from it.
  if (seen_ && progress < last_.progress) pods_before_ = -1;
  last_ = {now, progress, pods};
  seen_ = true;
}

double ScalingLog::RateAt(int32_t pods) const {
  auto it = rates_.find(pods);
  if (it == rates_.end() || it->second.seconds < kSettleSeconds) return 0;
  return it->second.work / it->second.seconds;
}

bool ScalingLog::Measured() const {
  for (const auto& [pods, rate] : rates_) {
    if (rate.seconds >= kSettleSeconds && rate.work > 0) return true;
  }
  return false;
}

std::string ScalingLog::MeasuredSizes() const {
  std::vector<int32_t> sizes;
  for (const auto& [pods, rate] : rates_) {
    if (rate.seconds >= kSettleSeconds && rate.work > 0) sizes.push_back(pods);
  }
  return absl::StrJoin(sizes, ", ");
}

Curve ScalingLog::Learned(const Curve& declared, int32_t most_pods) const {
  Curve measured;
  for (const auto& [pods, rate] : rates_) {
    if (rate.seconds >= kSettleSeconds && rate.work > 0)
      measured.emplace_back(pods, rate.work / rate.seconds);
  }
  if (measured.empty()) return {};
  const auto [n0, rate0] = measured.front();
  const double declared0 = declared.empty() ? n0 : ThroughputAt(declared, n0);
  const double unit = rate0 / std::max(declared0, 1e-12);
  Curve curve;
  // Below the first measured size: what the job declared, or linear.
  for (const auto& [pods, value] : declared) {
    if (pods < n0) curve.emplace_back(pods, value);
  }
  for (const auto& [pods, rate] : measured)
    curve.emplace_back(pods, rate / unit);
  const auto [last_pods, last_value] = curve.back();
  if (most_pods <= last_pods) return curve;
  if (declared.empty()) {
    curve.emplace_back(most_pods, last_value * most_pods / last_pods);
    return curve;
  }
  // The declared shape from the last measured point on.
  const double at_last = ThroughputAt(declared, last_pods);
  if (at_last <= 0) return curve;
  for (const auto& [pods, value] : declared) {
    if (pods > last_pods && pods <= most_pods)
      curve.emplace_back(pods, last_value * value / at_last);
  }
  if (curve.back().first < most_pods) {
    curve.emplace_back(
        most_pods, last_value * ThroughputAt(declared, most_pods) / at_last);
  }
  return curve;
}

}  // namespace shoal::plugins::elastic
