// Loads a cluster dump (`kubectl get nodes,pods,podgroups,queues,
// priorityclasses,pv,pvc,storageclasses -A -o yaml`, or any
// multi-document YAML/JSON of such
// objects, `kind: List` included) into a cache.
#ifndef SHOAL_SCHEDULER_KUBE_SNAPSHOT_SNAPSHOT_FILE_H_
#define SHOAL_SCHEDULER_KUBE_SNAPSHOT_SNAPSHOT_FILE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "scheduler/cache/cache.h"

namespace shoal::kube {

// Objects of kinds Shoal does not read are skipped with one warning line
// each in *warnings. A malformed object fails the whole load, naming the
// file, line, object and field; nothing is loaded into `cache` then.
absl::Status LoadSnapshot(absl::string_view text, absl::string_view file,
                          cache::Cache& cache,
                          std::vector<std::string>* warnings);
absl::Status LoadSnapshotFile(const std::string& path, cache::Cache& cache,
                              std::vector<std::string>* warnings);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_SNAPSHOT_SNAPSHOT_FILE_H_
