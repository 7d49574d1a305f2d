#include "scheduler/kube/write/event_recorder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "glog/logging.h"
#include "nlohmann/json.hpp"
#include "scheduler/kube/client/timestamps.h"
#include "scheduler/kube/write/api_binder.h"
#include "scheduler/metrics/scheduler_metrics.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

constexpr char kCombined[] = "(combined from similar events): ";
// Pods named in an Event combined across objects; the rest are counted.
constexpr size_t kNamedPods = 5;
// Keys join fields with a byte no name or reason holds.
constexpr char kSep[] = "\x1f";

std::string ObjectKey(const ObjectRef& o) {
  return absl::StrCat(o.api_version, kSep, o.kind, kSep, o.ns, kSep, o.name,
                      kSep, o.uid);
}

std::string EventsPath(const std::string& ns) {
  return absl::StrCat("/api/v1/namespaces/", ns, "/events");
}

void Aggregated(const char* kind) {
  metrics::Shoal().events_aggregated.With({kind}).Inc();
}

}  // namespace

EventRecorder::EventRecorder(RequestPool& pool, std::string component,
                             std::string instance, EventRecorderOptions options)
    : pool_(pool),
      component_(std::move(component)),
      instance_(std::move(instance)),
      options_(options) {}

EventRecorder::~EventRecorder() {
  Abandon();
  pool_.Wait();
}

int64_t EventRecorder::dropped() const {
  absl::MutexLock lock(&mu_);
  return dropped_;
}

void EventRecorder::Drop(const char* reason, int64_t n) {
  if (n <= 0) return;
  int64_t before = dropped_;
  dropped_ += n;
  metrics::Shoal().events_dropped.With({reason}).Inc(static_cast<double>(n));
  // Logged on the first and then every thousandth, not once each.
  if (before == 0 || before / 1000 != dropped_ / 1000) {
    LOG(WARNING) << "events not delivered (" << reason << "); " << dropped_
                 << " so far";
  }
}

EventRecorder::Series& EventRecorder::NewSeries(
    const std::string& key, const ObjectRef& object, const std::string& type,
    const std::string& reason, const std::string& message, absl::Time now) {
  Series& s = series_[key];
  s.object = object;
  s.type = type;
  s.reason = reason;
  s.message = message;
  // Unique per object: its name, then the time and a sequence number, as
  // client-go names Events.
  s.name = absl::StrFormat("%s.%x%04x", object.name, absl::ToUnixNanos(now),
                           ++sequence_ & 0xffff);
  s.count = 0;
  s.first = s.last = now;
  lru_.push_front(key);
  s.lru = lru_.begin();
  return s;
}

void EventRecorder::Enqueue(const std::string& key, Series& s) {
  s.queued = true;
  if (s.across) ++queued_across_;
  queue_.push_back(key);
  pool_.Submit([this](HttpClient& c) { SendOne(c); });
}

void EventRecorder::Trim() {
  // Forget the least recent Events beyond the cache, except those still
  // to be sent: a later repeat then starts a new Event, as in client-go.
  auto it = lru_.end();
  while (series_.size() > options_.cache_size && it != lru_.begin()) {
    --it;
    auto found = series_.find(*it);
    if (found->second.queued || found->second.in_flight) continue;
    series_.erase(found);
    it = lru_.erase(it);
  }
  if (similar_.size() > options_.cache_size) similar_.clear();
}

void EventRecorder::Record(const ObjectRef& object, const std::string& type,
                           const std::string& reason,
                           const std::string& message) {
  absl::Time now = options_.clock ? options_.clock() : absl::Now();
  absl::MutexLock lock(&mu_);
  // client-go's aggregator: many different messages for one object and
  // reason within the window go to one combined Event.
  std::string object_key =
      absl::StrCat(ObjectKey(object), kSep, type, kSep, reason);
  // The group is forgotten only after a quiet window: the window runs
  // from its latest event, not its first, as in client-go.
  Similar& similar = similar_[object_key];
  if (similar.messages.empty() ||
      now - similar.last > options_.similar_window) {
    similar.messages.clear();
  }
  similar.last = now;
  std::string key, text = message;
  bool combined = false;
  // Once the threshold is met every event of the key is combined, the
  // message that reached it included; the set stops growing there.
  if (similar.messages.size() < options_.similar_threshold) {
    similar.messages.insert(message);
  }
  if (similar.messages.size() >= options_.similar_threshold) {
    key = absl::StrCat(object_key, kSep, "combined");
    text = kCombined + message;
    combined = true;
    Aggregated("similar_messages");
  } else {
    key = absl::StrCat(object_key, kSep, message);
  }

  auto found = series_.find(key);
  if (found != series_.end()) {
    Series& s = found->second;
    ++s.count;
    s.last = now;
    s.message = text;
    lru_.splice(lru_.begin(), lru_, s.lru);
    if (!combined) Aggregated("repeat");  // each occurrence counted once
    // Waiting or being sent: that send (or the one after it) carries the
    // new count.
    if (s.queued || s.in_flight) return;
    if (queue_.size() - queued_across_ >= options_.max_pending) {
      // Kept in the count: the next repeat with room sends it.
      Drop("queue_full", 1);
      s.delivered = s.count;
      return;
    }
    Enqueue(key, s);
    return;
  }
  if (queue_.size() - queued_across_ < options_.max_pending) {
    Series& s = NewSeries(key, object, type, reason, text, now);
    s.count = 1;
    Enqueue(key, s);
    Trim();
    return;
  }
  // The queue is full: fold into the namespace's waiting Event for this
  // type and reason, which stands for every pod folded into it.
  std::string across_key =
      absl::StrCat("across", kSep, object.ns, kSep, type, kSep, reason);
  auto across = series_.find(across_key);
  if (across != series_.end() && !across->second.queued) {
    // Sent already (or being sent): a new batch makes a new Event.
    if (across->second.in_flight) {
      Drop("queue_full", 1);
      return;
    }
    lru_.erase(across->second.lru);
    series_.erase(across);
    across = series_.end();
  }
  if (across == series_.end()) {
    if (queued_across_ >= options_.max_combined) {
      Drop("queue_full", 1);
      return;
    }
    Series& s = NewSeries(across_key, object, type, reason, text, now);
    s.across = true;
    across = series_.find(across_key);
    Enqueue(across_key, s);
  }
  Series& s = across->second;
  ++s.count;
  s.last = now;
  if (s.folded.size() < kNamedPods) s.folded.push_back(object.name);
  s.message = absl::StrCat(
      kCombined, message, " (", s.count,
      s.count == 1 ? " pod: " : " pods: ", absl::StrJoin(s.folded, ", "),
      s.count > static_cast<int64_t>(kNamedPods) ? ", ..." : "", ")");
  Aggregated("across_objects");
}

void EventRecorder::SendOne(HttpClient& client) {
  std::string key;
  Series sent;
  {
    absl::MutexLock lock(&mu_);
    if (queue_.empty()) return;  // abandoned
    key = std::move(queue_.front());
    queue_.pop_front();
    Series& s = series_.at(key);
    s.queued = false;
    if (s.across) --queued_across_;
    s.in_flight = true;
    sent = s;
  }
  const std::string what =
      absl::StrCat(sent.reason, " ", sent.object.ns, "/", sent.object.name);
  // An Event about a cluster-scoped object (a Queue, a CRD) lives in
  // "default", where kubectl describe looks for it.
  const std::string event_ns =
      sent.object.ns.empty() ? "default" : sent.object.ns;
  std::string path = EventsPath(event_ns);
  absl::StatusOr<HttpResponse> r;
  std::string name = sent.name;
  if (sent.created) {
    // A repeat: the existing Event's count and last time.
    json patch = {{"count", sent.count},
                  {"lastTimestamp", Rfc3339(sent.last)},
                  {"message", sent.message}};
    r = client.Request("PATCH", absl::StrCat(path, "/", name), patch.dump(),
                       "application/merge-patch+json");
  }
  // Not created yet, or gone meanwhile (Events expire after an hour):
  // create it, with the count so far.
  if (!sent.created || (r.ok() && r->status == 404)) {
    if (sent.created) {
      name = absl::StrFormat("%s.%x", sent.object.name,
                             absl::ToUnixNanos(absl::Now()));
    }
    json event = {{"apiVersion", "v1"},
                  {"kind", "Event"},
                  {"metadata", {{"name", name}, {"namespace", event_ns}}},
                  {"involvedObject",
                   {{"apiVersion", sent.object.api_version},
                    {"kind", sent.object.kind},
                    {"namespace", sent.object.ns},
                    {"name", sent.object.name},
                    {"uid", sent.object.uid}}},
                  {"type", sent.type},
                  {"reason", sent.reason},
                  {"message", sent.message},
                  {"source", {{"component", component_}}},
                  {"reportingComponent", component_},
                  {"reportingInstance", instance_},
                  {"firstTimestamp", Rfc3339(sent.first)},
                  {"lastTimestamp", Rfc3339(sent.last)},
                  {"count", sent.count}};
    r = client.Request("POST", path, event.dump());
  }
  bool ok = r.ok() && r->status < 300;
  if (!ok) {
    LOG_EVERY_N(WARNING, 100)
        << "event " << what << ": "
        << (r.ok()
                ? absl::StrCat("HTTP ", r->status, ": ", StatusMessage(r->body))
                : std::string(r.status().message()));
  }
  absl::MutexLock lock(&mu_);
  auto it = series_.find(key);
  if (it == series_.end()) return;
  Series& s = it->second;
  s.in_flight = false;
  if (ok) {
    s.created = true;
    s.name = name;
  } else {
    Drop("api_error", sent.count - s.delivered);
  }
  s.delivered = sent.count;
  // Repeats that came while it was being sent: send the new count.
  if (s.count > s.delivered && !s.across) Enqueue(key, s);
}

size_t EventRecorder::Abandon() {
  absl::MutexLock lock(&mu_);
  size_t n = queue_.size();
  for (const std::string& key : queue_) {
    Series& s = series_.at(key);
    s.queued = false;
    Drop("shutdown", s.count - s.delivered);
    s.delivered = s.count;
  }
  queue_.clear();
  queued_across_ = 0;
  return n;
}

}  // namespace shoal::kube
