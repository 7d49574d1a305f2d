// A workload of Pollux's benchmark: workload-N.csv, one row per job with
// `name,time,application,num_replicas,batch_size` (arrival in seconds from
// the start; the replicas and global batch size a user tuned for the job).
#ifndef SHOAL_TOOLS_SIMULATOR_POLLUX_WORKLOAD_H_
#define SHOAL_TOOLS_SIMULATOR_POLLUX_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace shoal::sim::pollux {

struct WorkloadJob {
  std::string name;
  int64_t time = 0;         // submission, seconds from the start
  std::string application;  // one of Application::Names()
  int num_replicas = 0;
  int batch_size = 0;
  int line = 0;  // in the file, for messages
};

// Parses the contents of a workload file (`path` only names it in errors).
// Refuses, with "<path>:<line>: field '<name>': ...": a wrong header, a row
// of the wrong width, a non-integer or negative time, an unknown
// application, num_replicas or batch_size not a positive integer, a
// batch_size below num_replicas, a repeated name. Rows keep file order.
absl::StatusOr<std::vector<WorkloadJob>> ParseWorkload(absl::string_view text,
                                                       absl::string_view path);
absl::StatusOr<std::vector<WorkloadJob>> ReadWorkload(const std::string& path);

}  // namespace shoal::sim::pollux

#endif  // SHOAL_TOOLS_SIMULATOR_POLLUX_WORKLOAD_H_
