// A job's scaling curve (JobInfo::throughput, Shoal's annotation
// shoal.dev/throughput): its throughput relative to one pod, by pod count.
// Between declared points it is linear, from nothing at 0 pods up to the
// first point, and flat beyond the last (more pods add nothing the job
// said they would). A job that declares no curve scales linearly:
// throughput(n) = n.
#ifndef SHOAL_PLUGINS_ELASTIC_CURVE_H_
#define SHOAL_PLUGINS_ELASTIC_CURVE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace shoal::plugins::elastic {

using Curve = std::vector<std::pair<int32_t, double>>;

// Relative throughput at `pods` pods (0 at 0 pods).
double ThroughputAt(const Curve& curve, int32_t pods);

// What one more pod adds at `pods` pods: ThroughputAt(pods + 1) -
// ThroughputAt(pods).
double NextPodGain(const Curve& curve, int32_t pods);

// "1=1,2=1.9,4=3.6": the annotation's own syntax, each number as short as
// it can be and still read back the same.
std::string FormatCurve(const Curve& curve);

}  // namespace shoal::plugins::elastic

#endif  // SHOAL_PLUGINS_ELASTIC_CURVE_H_
