#include "scheduler/kube/event_recorder.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "glog/logging.h"
#include "nlohmann/json.hpp"
#include "scheduler/kube/api_binder.h"
#include "scheduler/kube/timestamps.h"

namespace shoal::kube {

using nlohmann::json;

EventRecorder::EventRecorder(RequestPool& pool, std::string component,
                             std::string instance, size_t max_outstanding)
    : pool_(pool),
      component_(std::move(component)),
      instance_(std::move(instance)),
      max_outstanding_(max_outstanding) {}

void EventRecorder::Record(const ObjectRef& object, const std::string& type,
                           const std::string& reason,
                           const std::string& message) {
  if (pool_.Outstanding() >= max_outstanding_) {
    int64_t n = ++dropped_;
    if (n == 1 || n % 1000 == 0) {
      LOG(WARNING) << "the API server is behind on events; " << n
                   << " dropped so far";
    }
    return;
  }
  absl::Time now = absl::Now();
  std::string stamp = Rfc3339(now);
  // Unique per object: its name, then the time and a sequence number.
  std::string name = absl::StrFormat(
      "%s.%x%04x", object.name, absl::ToUnixNanos(now), ++sequence_ & 0xffff);
  json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", name}, {"namespace", object.ns}}},
                {"involvedObject",
                 {{"apiVersion", object.api_version},
                  {"kind", object.kind},
                  {"namespace", object.ns},
                  {"name", object.name},
                  {"uid", object.uid}}},
                {"type", type},
                {"reason", reason},
                {"message", message},
                {"source", {{"component", component_}}},
                {"reportingComponent", component_},
                {"reportingInstance", instance_},
                {"firstTimestamp", stamp},
                {"lastTimestamp", stamp},
                {"count", 1}};
  std::string path = absl::StrCat("/api/v1/namespaces/", object.ns, "/events");
  pool_.Submit([path, body = event.dump(),
                what = reason + " " + object.name](HttpClient& c) {
    auto r = c.Request("POST", path, body);
    if (!r.ok()) {
      LOG(WARNING) << "event " << what << ": " << r.status().message();
    } else if (r->status >= 300) {
      LOG(WARNING) << "event " << what << ": HTTP " << r->status << ": "
                   << StatusMessage(r->body);
    }
  });
}

}  // namespace shoal::kube
