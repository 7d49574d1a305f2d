#include "tools/simulator/pollux/workload.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/simulator/pollux/application.h"
#include "tools/simulator/pollux/csv.h"

namespace shoal::sim::pollux {

absl::StatusOr<std::vector<WorkloadJob>> ParseWorkload(absl::string_view text,
                                                       absl::string_view path) {
  absl::StatusOr<CsvTable> t =
      ParseCsv(text, path,
               {"name", "time", "application", "num_replicas", "batch_size"});
  if (!t.ok()) return t.status();
  std::vector<WorkloadJob> jobs;
  std::set<std::string> names;
  const std::vector<std::string>& apps = Application::Names();
  for (const CsvRow& row : t->rows) {
    WorkloadJob job;
    job.line = row.line;
    job.name = row.fields[0];
    if (!names.insert(job.name).second) {
      return t->Error(row, 0, absl::StrCat("\"", job.name, "\" repeated"));
    }
    absl::StatusOr<int64_t> time = t->Int(row, 1);
    if (!time.ok()) return time.status();
    if (*time < 0) return t->Error(row, 1, "negative");
    job.time = *time;
    job.application = row.fields[2];
    if (std::find(apps.begin(), apps.end(), job.application) == apps.end()) {
      return t->Error(
          row, 2,
          absl::StrCat("unknown application \"", job.application,
                       "\", want one of ", absl::StrJoin(apps, ", ")));
    }
    for (int f : {3, 4}) {
      absl::StatusOr<int64_t> v = t->Int(row, f);
      if (!v.ok()) return v.status();
      if (*v <= 0 || *v > (int64_t{1} << 30)) {
        return t->Error(
            row, f,
            absl::StrCat("want a positive integer, got ", row.fields[f]));
      }
      (f == 3 ? job.num_replicas : job.batch_size) = static_cast<int>(*v);
    }
    if (job.batch_size < job.num_replicas) {
      return t->Error(
          row, 4,
          absl::StrCat("batch_size ", job.batch_size,
                       " is smaller than num_replicas ", job.num_replicas));
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

absl::StatusOr<std::vector<WorkloadJob>> ReadWorkload(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseWorkload(ss.str(), path);
}

}  // namespace shoal::sim::pollux
