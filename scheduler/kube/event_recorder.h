// Kubernetes Events (core/v1) about pods: Scheduled, FailedScheduling,
// Evict, Preempted. Sent in the background so that they never slow a
// cycle; when the API server falls behind, events beyond a bound are
// dropped and counted, as client-go's recorder does.
#ifndef SHOAL_SCHEDULER_KUBE_EVENT_RECORDER_H_
#define SHOAL_SCHEDULER_KUBE_EVENT_RECORDER_H_

#include <atomic>
#include <string>

#include "scheduler/kube/request_pool.h"

namespace shoal::kube {

struct ObjectRef {
  std::string api_version = "v1";
  std::string kind = "Pod";
  std::string ns;
  std::string name;
  std::string uid;
};

class EventRecorder {
 public:
  // `component` goes into source.component (the scheduler's name);
  // `instance` into reportingInstance (the host).
  EventRecorder(RequestPool& pool, std::string component, std::string instance,
                size_t max_outstanding = 1000);

  // `type`: Normal or Warning.
  void Record(const ObjectRef& object, const std::string& type,
              const std::string& reason, const std::string& message);

  int64_t dropped() const { return dropped_.load(); }

 private:
  RequestPool& pool_;
  const std::string component_;
  const std::string instance_;
  const size_t max_outstanding_;
  std::atomic<int64_t> dropped_{0};
  std::atomic<uint64_t> sequence_{0};
};

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_EVENT_RECORDER_H_
