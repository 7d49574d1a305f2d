#include "scheduler/kube/write/warning_log.h"

#include <vector>

#include "glog/logging.h"

namespace shoal::kube {

int WarningLog::Report(const ObjectRef& object,
                       const DecodeWarnings& warnings) {
  std::vector<const DecodeWarning*> fresh;
  {
    absl::MutexLock lock(&mu_);
    for (const DecodeWarning& w : warnings) {
      // Once per kind means once, whichever object says it first.
      std::set<std::string>& said = said_[w.once_key];
      if (!w.per_object && !said.empty()) continue;
      if (said.insert(w.message).second) fresh.push_back(&w);
    }
  }
  for (const DecodeWarning* w : fresh) {
    LOG(WARNING) << w->message;
    if (w->per_object && events_) events_(object, w->message);
  }
  return static_cast<int>(fresh.size());
}

void WarningLog::Forget(const std::string& once_key) {
  absl::MutexLock lock(&mu_);
  said_.erase(once_key);
}

}  // namespace shoal::kube
