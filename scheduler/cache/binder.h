// Where committed decisions go: the Kubernetes client in a cluster, the
// replay's in-memory recorder with --snapshot, the simulator's clock.
#ifndef SHOAL_SCHEDULER_CACHE_BINDER_H_
#define SHOAL_SCHEDULER_CACHE_BINDER_H_

#include <string>

#include "absl/status/status.h"
#include "scheduler/api/task_info.h"

namespace shoal::cache {

class Binder {
 public:
  virtual ~Binder() = default;
  virtual absl::Status Bind(const api::PodInfo& pod,
                            const std::string& node) = 0;
};

class Evictor {
 public:
  virtual ~Evictor() = default;
  // `preemptor` is the ns/name of the pod the room is for, if any.
  virtual absl::Status Evict(const api::PodInfo& pod, const std::string& reason,
                             const std::string& preemptor) = 0;
};

}  // namespace shoal::cache

#endif  // SHOAL_SCHEDULER_CACHE_BINDER_H_
