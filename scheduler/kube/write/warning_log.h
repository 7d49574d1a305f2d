// Says each of the decoders' warnings once (objects.h, DecodeWarning):
// what one object holds, once for that object until what it says changes
// (and as a Warning Event on it, so that `kubectl describe` shows it); a
// field Shoal does not know at all, once for its kind. The informers
// decode an object again at every update and relist: without this, one
// PodGroup would fill the log.
#ifndef SHOAL_SCHEDULER_KUBE_WRITE_WARNING_LOG_H_
#define SHOAL_SCHEDULER_KUBE_WRITE_WARNING_LOG_H_

#include <functional>
#include <map>
#include <set>
#include <string>

#include "absl/synchronization/mutex.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/write/event_recorder.h"

namespace shoal::kube {

class WarningLog {
 public:
  // Receives each warning about one object that is new; may be empty.
  using EventSink =
      std::function<void(const ObjectRef& object, const std::string& message)>;
  explicit WarningLog(EventSink events = nullptr)
      : events_(std::move(events)) {}

  // Logs (glog WARNING) what was not said yet; returns how many that was.
  int Report(const ObjectRef& object, const DecodeWarnings& warnings);
  // The object is gone: a new one of that name is warned about afresh.
  void Forget(const std::string& once_key);

  // The Event reason, as kubectl shows it.
  static constexpr char kReason[] = "IgnoredFields";

 private:
  EventSink events_;
  absl::Mutex mu_;
  std::map<std::string, std::set<std::string>> said_ ABSL_GUARDED_BY(mu_);
};

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_WRITE_WARNING_LOG_H_
