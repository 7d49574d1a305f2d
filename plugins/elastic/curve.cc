#include "plugins/elastic/curve.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace shoal::plugins::elastic {

double ThroughputAt(const Curve& curve, int32_t pods) {
  if (pods <= 0) return 0;
  if (curve.empty()) return pods;
  int32_t x0 = 0;
  double y0 = 0;
  for (const auto& [x1, y1] : curve) {
    if (pods <= x1) return y0 + (y1 - y0) * (pods - x0) / (x1 - x0);
    x0 = x1;
    y0 = y1;
  }
  return y0;  // flat beyond the last point
}

double NextPodGain(const Curve& curve, int32_t pods) {
  return ThroughputAt(curve, pods + 1) - ThroughputAt(curve, pods);
}

std::string FormatCurve(const Curve& curve) {
  return absl::StrJoin(curve, ",", [](std::string* out, const auto& point) {
    std::string v = absl::StrFormat("%.15g", point.second);
    if (std::strtod(v.c_str(), nullptr) != point.second)
      v = absl::StrFormat("%.17g", point.second);
    absl::StrAppend(out, point.first, "=", v);
  });
}

}  // namespace shoal::plugins::elastic
