#include "scheduler/admin/elastic_line.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "plugins/elastic/curve.h"

namespace shoal::admin {

std::string ElasticLine(const api::JobInfo& job) {
  const api::JobInfo::Resizing& r = job.resizing;
  // The elastic plugin writes a target of at least minMember; none means
  // the policy runs no elastic plugin, and "target 0" would mislead.
  const bool targeted = job.elastic() && job.elastic_target > 0;
  if (!targeted && r.cost_seconds == 0 && r.count == 0) return "";
  std::vector<std::string> parts;
  if (targeted) {
    parts.push_back(absl::StrCat("target ", job.elastic_target, " of ",
                                 job.tasks.size(), " pods (minMember ",
                                 job.min_member, ")"));
  }
  parts.push_back(absl::StrCat("resize cost ", r.cost_seconds, "s (",
                               job.resize_cost_seconds >= 0
                                   ? "annotation shoal.dev/resize-cost-seconds"
                                   : "the elastic plugin's resizeCostSeconds",
                               ")"));
  if (r.count == 0) {
    parts.push_back("no resizes since the scheduler started");
  } else {
    parts.push_back(absl::StrCat(
        r.count, r.count == 1 ? " resize" : " resizes", ", the last at ",
        absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", r.last, absl::UTCTimeZone())));
  }
  if (!r.held.empty()) parts.push_back(r.held);
  return absl::StrJoin(parts, "; ");
}

std::string ThroughputLine(const api::JobInfo& job) {
  if (job.throughput.empty()) return "";
  using plugins::elastic::ThroughputAt;
  const int32_t pods = job.ReadyCount();
  const double gain = plugins::elastic::NextPodGain(job.throughput, pods);
  std::string line = absl::StrCat(
      plugins::elastic::FormatCurve(job.throughput), " (",
      job.throughput_source.empty() ? "annotation shoal.dev/throughput"
                                    : job.throughput_source,
      ", relative to one pod); at ", pods, pods == 1 ? " pod " : " pods ",
      absl::StrFormat("%.3g", ThroughputAt(job.throughput, pods)), "; pod ",
      pods + 1, " would add ", absl::StrFormat("%.3g", gain));
  if (pods >= job.throughput.back().first) {
    absl::StrAppend(&line, " (the curve is flat past ",
                    job.throughput.back().first, " pods)");
  }
  return line;
}

}  // namespace shoal::admin
