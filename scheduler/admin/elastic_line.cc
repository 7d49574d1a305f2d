#include "scheduler/admin/elastic_line.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"

namespace shoal::admin {

std::string ElasticLine(const api::JobInfo& job) {
  const api::JobInfo::Resizing& r = job.resizing;
  if (!job.elastic() && r.cost_seconds == 0 && r.count == 0) return "";
  std::vector<std::string> parts;
  if (job.elastic()) {
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

}  // namespace shoal::admin
