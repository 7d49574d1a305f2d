// Kubernetes Events (core/v1) about pods: Scheduled, FailedScheduling,
// Evict, Preempted. Sent in the background (a RequestPool on the write
// budget's background lane) so that they never slow a cycle.
//
// Correlated as client-go's recorder (tools/record) does, so that a
// scheduler saying the same thing every cycle writes one Event, not one
// per cycle:
//  * Repeats: an event for the same object, type, reason and message as
//    one already sent becomes a PATCH of that Event: `count` grows and
//    `lastTimestamp` moves. Repeats that come while the Event is still
//    waiting to be sent only raise the count it will be sent with.
//  * Similar messages: once one object has had `similar_threshold`
//    different messages for the same type and reason, none of them more
//    than `similar_window` after the one before (the window slides, as
//    client-go's does), further ones go to a single Event whose message is
//    "(combined from similar events): " and the latest message.
//  * Across objects (Shoal's own, for a flood): when `max_pending` Events
//    are already waiting, a new one is folded into one waiting Event per
//    namespace, type and reason that names how many pods it stands for,
//    instead of being dropped.
// What is not delivered (no room even for that, an API error, shutdown)
// is counted in shoal_events_dropped_total{reason}; what is folded, in
// shoal_events_aggregated_total{kind}.
#ifndef SHOAL_SCHEDULER_KUBE_WRITE_EVENT_RECORDER_H_
#define SHOAL_SCHEDULER_KUBE_WRITE_EVENT_RECORDER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/kube/write/request_pool.h"

namespace shoal::kube {

struct ObjectRef {
  std::string api_version = "v1";
  std::string kind = "Pod";
  std::string ns;
  std::string name;
  std::string uid;
};

struct EventRecorderOptions {
  // Distinct Events waiting to be sent; beyond it, folded across objects.
  size_t max_pending = 1000;
  // Combined Events across objects that may wait beyond max_pending (one
  // per namespace, type and reason); beyond that, dropped.
  size_t max_combined = 100;
  // Events remembered for repeats (client-go's LRU holds 4096).
  size_t cache_size = 4096;
  // client-go's aggregator: 10 different messages, each within 10 minutes
  // of the group's previous event.
  size_t similar_threshold = 10;
  absl::Duration similar_window = absl::Minutes(10);
  // The time of each Record; absl::Now when empty. Tests step it, as
  // client-go's own tests step a fake clock.
  std::function<absl::Time()> clock;
};

class EventRecorder {
 public:
  // `component` goes into source.component (the scheduler's name);
  // `instance` into reportingInstance (the host).
  EventRecorder(RequestPool& pool, std::string component, std::string instance,
                EventRecorderOptions options = {});
  // Drops what still waits (counted) and waits for the sends under way:
  // the pool's tasks refer to the recorder.
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // `type`: Normal or Warning. Never blocks on the API server.
  void Record(const ObjectRef& object, const std::string& type,
              const std::string& reason, const std::string& message);

  // Counts the occurrences still waiting as dropped (reason "shutdown")
  // and forgets them; the pool's queued sends then find nothing to do.
  size_t Abandon();

  // Occurrences not delivered, for any reason.
  int64_t dropped() const;

 private:
  struct Series {
    ObjectRef object;
    std::string type, reason, message;
    std::string name;       // metadata.name on the server
    int64_t count = 0;      // occurrences so far
    int64_t delivered = 0;  // occurrences sent (or given up on)
    absl::Time first, last;
    bool created = false;             // the server has it
    bool queued = false;              // waiting in queue_
    bool in_flight = false;           // being sent
    bool across = false;              // combined across objects
    std::vector<std::string> folded;  // across: the pods it stands for
    std::list<std::string>::iterator lru;
  };
  struct Similar {
    absl::Time last;  // the group's latest event
    std::set<std::string> messages;
  };

  // Sends the Event at the front of the queue (one pool task each).
  void SendOne(HttpClient& client);
  void Enqueue(const std::string& key, Series& s)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Series& NewSeries(const std::string& key, const ObjectRef& object,
                    const std::string& type, const std::string& reason,
                    const std::string& message, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Drop(const char* reason, int64_t n) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Trim() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  RequestPool& pool_;
  const std::string component_;
  const std::string instance_;
  const EventRecorderOptions options_;
  mutable absl::Mutex mu_;
  std::unordered_map<std::string, Series> series_ ABSL_GUARDED_BY(mu_);
  std::list<std::string> lru_ ABSL_GUARDED_BY(mu_);  // most recent first
  std::deque<std::string> queue_ ABSL_GUARDED_BY(mu_);
  size_t queued_across_ ABSL_GUARDED_BY(mu_) = 0;
  std::unordered_map<std::string, Similar> similar_ ABSL_GUARDED_BY(mu_);
  int64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t sequence_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_WRITE_EVENT_RECORDER_H_
