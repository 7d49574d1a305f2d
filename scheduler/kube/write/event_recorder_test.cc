// The event recorder against the test API server: repeats become one
// Event's count, many messages for one object become client-go's
// combined Event, a flood across pods is folded rather than dropped, and
// what is not delivered is counted in shoal_events_dropped_total.
#include "scheduler/kube/write/event_recorder.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "e2e/emulator/api_server.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "scheduler/metrics/scheduler_metrics.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

double Dropped(const char* reason) {
  return metrics::Shoal().events_dropped.With({reason}).Value();
}
double Aggregated(const char* kind) {
  return metrics::Shoal().events_aggregated.With({kind}).Value();
}

class EventRecorderTest : public ::testing::Test {
 protected:
  void Start(emulator::ApiServerOptions server_options,
             EventRecorderOptions options = {}) {
    server_ = std::make_unique<emulator::ApiServer>(server_options);
    connection_.server =
        absl::StrCat("http://127.0.0.1:", server_->Start("127.0.0.1", 0));
    client_ = std::make_unique<HttpClient>(connection_);
    pool_ = std::make_unique<RequestPool>(connection_, 2);
    events_ = std::make_unique<EventRecorder>(*pool_, "shoal", "test", options);
  }
  void TearDown() override {
    events_.reset();
    pool_.reset();
    client_.reset();
    if (server_) server_->Stop();
  }
  json Events() {
    auto r = client_->Request("GET", "/api/v1/namespaces/default/events");
    EXPECT_TRUE(r.ok() && r->status == 200);
    return json::parse(r->body)["items"];
  }
  static ObjectRef Pod(const std::string& name) {
    return {"v1", "Pod", "default", name, "uid-" + name};
  }

  std::unique_ptr<emulator::ApiServer> server_;
  ConnectionConfig connection_;
  std::unique_ptr<HttpClient> client_;
  std::unique_ptr<RequestPool> pool_;
  std::unique_ptr<EventRecorder> events_;
};

TEST_F(EventRecorderTest, RepeatsBecomeOneEventWithACount) {
  Start({});
  const std::string why = "0/3 nodes are available: 3 Insufficient cpu.";
  double repeats = Aggregated("repeat");
  // Some while the first is still being sent, some after: either way one
  // Event.
  for (int i = 0; i < 50; ++i)
    events_->Record(Pod("p"), "Warning", "FailedScheduling", why);
  pool_->Wait();
  for (int i = 0; i < 50; ++i)
    events_->Record(Pod("p"), "Warning", "FailedScheduling", why);
  pool_->Wait();
  json items = Events();
  ASSERT_EQ(items.size(), 1u) << items.dump(1);
  EXPECT_EQ(items[0]["count"], 100);
  EXPECT_EQ(items[0]["message"], why);
  EXPECT_EQ(items[0]["reason"], "FailedScheduling");
  EXPECT_EQ(items[0]["involvedObject"]["name"], "p");
  EXPECT_GE(items[0]["lastTimestamp"].get<std::string>(),
            items[0]["firstTimestamp"].get<std::string>());
  EXPECT_EQ(Aggregated("repeat") - repeats, 99);
  EXPECT_EQ(events_->dropped(), 0);
}

TEST_F(EventRecorderTest, AClusterScopedObjectsEventIsInDefault) {
  Start({});
  events_->Record({"apiextensions.k8s.io/v1", "CustomResourceDefinition", "",
                   "queues.scheduling.volcano.sh", "crd-uid"},
                  "Warning", "IgnoredFields", "its schema has no spec.parent");
  pool_->Wait();
  json items = Events();
  ASSERT_EQ(items.size(), 1u) << items.dump(1);
  EXPECT_EQ(items[0]["metadata"]["namespace"], "default");
  EXPECT_EQ(items[0]["involvedObject"]["kind"], "CustomResourceDefinition");
  EXPECT_EQ(items[0]["involvedObject"]["namespace"], "");
  EXPECT_EQ(items[0]["reason"], "IgnoredFields");
}

TEST_F(EventRecorderTest, ManyMessagesForOnePodAreCombinedAsClientGoDoes) {
  Start({});
  double similar = Aggregated("similar_messages");
  for (int i = 0; i < 15; ++i) {
    events_->Record(Pod("p"), "Warning", "FailedScheduling",
                    absl::StrCat("0/", i, " nodes are available."));
  }
  pool_->Wait();
  json items = Events();
  // Nine messages of their own; the tenth and later in one combined Event.
  ASSERT_EQ(items.size(), 10u) << items.dump(1);
  int combined = 0;
  for (const json& e : items) {
    std::string message = e["message"];
    if (absl::StartsWith(message, "(combined from similar events): ")) {
      ++combined;
      EXPECT_EQ(e["count"], 6);
      EXPECT_EQ(message,
                "(combined from similar events): 0/14 nodes are available.");
    } else {
      EXPECT_EQ(e["count"], 1);
    }
  }
  EXPECT_EQ(combined, 1);
  EXPECT_EQ(Aggregated("similar_messages") - similar, 6);
}

TEST_F(EventRecorderTest, AFloodAcrossPodsIsFoldedNotDropped) {
  emulator::ApiServerOptions slow;
  slow.event_delay = absl::Milliseconds(200);
  EventRecorderOptions options;
  options.max_pending = 4;
  Start(slow, options);
  double across = Aggregated("across_objects");
  double full = Dropped("queue_full");
  for (int i = 0; i < 60; ++i) {
    events_->Record(
        Pod(absl::StrCat("p", i)), "Normal", "Scheduled",
        absl::StrCat("Successfully assigned default/p", i, " to node-1"));
  }
  pool_->Wait();
  json items = Events();
  int total = 0;
  json combined;
  for (const json& e : items) {
    total += e["count"].get<int>();
    if (absl::StartsWith(e["message"].get<std::string>(), "(combined"))
      combined = e;
  }
  // Every occurrence is told, in far fewer Events than pods.
  EXPECT_EQ(total, 60);
  EXPECT_LE(items.size(), 8u) << items.dump(1);
  ASSERT_TRUE(combined.is_object()) << items.dump(1);
  EXPECT_GE(combined["count"], 52);
  EXPECT_TRUE(
      absl::StrContains(combined["message"].get<std::string>(), " pods: "))
      << combined["message"];
  EXPECT_EQ(Aggregated("across_objects") - across, combined["count"]);
  EXPECT_EQ(Dropped("queue_full") - full, 0);
  EXPECT_EQ(events_->dropped(), 0);
}

TEST_F(EventRecorderTest, WhatIsNotDeliveredIsCounted) {
  emulator::ApiServerOptions slow;
  slow.event_delay = absl::Milliseconds(300);
  EventRecorderOptions options;
  options.max_pending = 3;
  options.max_combined = 0;  // no folding: beyond the queue, dropped
  Start(slow, options);
  double full = Dropped("queue_full");
  double error = Dropped("api_error");
  double shutdown = Dropped("shutdown");
  for (int i = 0; i < 20; ++i) {
    events_->Record(Pod(absl::StrCat("p", i)), "Normal", "Scheduled", "ok");
  }
  // A namespace that does not exist: the API server refuses the Event.
  events_->Record({"v1", "Pod", "nowhere", "q", "uid-q"}, "Normal", "Scheduled",
                  "ok");
  // Two are being sent (two workers); what waits is dropped at shutdown.
  size_t waiting = events_->Abandon();
  pool_->Wait();
  int delivered = Events().size();
  double lost_full = Dropped("queue_full") - full;
  double lost_error = Dropped("api_error") - error;
  double lost_shutdown = Dropped("shutdown") - shutdown;
  EXPECT_EQ(lost_shutdown, static_cast<double>(waiting));
  // At most max_pending wait, and each of the two workers may have taken
  // one off the queue while the loop ran (how many depends on the
  // machine's load): the other 15 of the 20 are dropped as queue_full.
  EXPECT_GE(lost_full, 20 - 3 - 2);
  EXPECT_EQ(delivered + lost_full + lost_error + lost_shutdown, 21);
  EXPECT_EQ(events_->dropped(), 21 - delivered);
}

// client-go's own test cases for its event correlator (tools/record,
// events_cache_test.go and event_test.go), carried over as data and
// played against the recorder and the emulator's API server. Each row
// names the Go test function and case it stands for; the behaviour is
// restated in Shoal's terms (a pod is the involved object, the recorder is
// the correlator, what the server holds after each event is the outcome).
// Rows that do not apply say why and are only listed.
//
// Time: client-go's tests step a fake clock; so do these
// (EventRecorderOptions::clock). Its TestEventCorrelator uses an interval
// clock that moves on every reading, and reading it three times per event
// (the test's own timestamp, the aggregator, the spam filter's bucket),
// so an `intervalSeconds` of N there is a gap of 3N seconds here.
enum class Outcome { kUnchecked, kCreated, kPatched };

struct Step {
  std::string ns, pod, uid, reason, message;
  int times = 1;              // recorded this many times, one after another
  bool vary_message = false;  // "<message>-<i>" for the i-th time
  bool vary_object = false;   // pod, namespace, reason and message vary too
  int gap_seconds = 15;       // the fake clock moves this much before each
  bool expire_first = false;  // the server loses every Event first
  Outcome outcome = Outcome::kUnchecked;  // of the last time
  int count = 0;
  std::string shown;  // the Event's message, when not `message`

  Step& Times(int n) {
    times = n;
    return *this;
  }
  Step& VaryMessage() {
    vary_message = true;
    return *this;
  }
  Step& VaryObject() {
    vary_object = true;
    return *this;
  }
  Step& Gap(int s) {
    gap_seconds = s;
    return *this;
  }
  Step& ExpireFirst() {
    expire_first = true;
    return *this;
  }
  Step& Created(int n) {
    outcome = Outcome::kCreated;
    count = n;
    return *this;
  }
  Step& Patched(int n) {
    outcome = Outcome::kPatched;
    count = n;
    return *this;
  }
  Step& Shows(std::string m) {
    shown = std::move(m);
    return *this;
  }
};

Step Ev(std::string ns, std::string pod, std::string uid, std::string reason,
        std::string message) {
  Step s;
  s.ns = std::move(ns);
  s.pod = std::move(pod);
  s.uid = std::move(uid);
  s.reason = std::move(reason);
  s.message = std::move(message);
  return s;
}

struct ClientGoCase {
  std::string source;  // the Go test function (file and function)
  std::string name;    // the case, as named there
  bool applies;
  // Why not, or how the case maps onto Shoal (and any deliberate
  // difference).
  std::string note;
  std::vector<Step> steps;
  size_t similar_threshold = 10;  // client-go's MaxEvents
  bool replay_on_new_recorder = false;
};

constexpr char kCombinedPrefix[] = "(combined from similar events): ";

// The objects of client-go's tests, as pods.
Step MyPod(std::string reason, std::string message) {
  return Ev("my-ns", "my-pod", "C934D34AFB20242", std::move(reason),
            std::move(message));
}
Step Pod1(std::string reason, std::string message) {
  return Ev("other", "pod1", "C934D34AFB20242", std::move(reason),
            std::move(message));
}
Step Foo(std::string uid, std::string reason, std::string message) {
  return Ev("baz", "foo", std::move(uid), std::move(reason),
            std::move(message));
}

// TestEventf's and TestMultiSinkCache's sequence: the container field
// paths of its references are dropped (Shoal's ObjectRef has none), which
// changes nothing here since the two references to pod "bar" also differ
// in reason.
std::vector<Step> EventfSteps() {
  return {
      Foo("bar", "Started", "some verbose message: 1").Gap(1).Created(1),
      Foo("bar", "Killed", "some other verbose message: 1").Gap(1).Created(1),
      Foo("bar", "Started", "some verbose message: 1").Gap(1).Patched(2),
      Foo("differentUid", "Started", "some verbose message: 1")
          .Gap(1)
          .Created(1),
      Foo("bar", "Started", "some verbose message: 1").Gap(1).Patched(3),
      Foo("differentUid", "Stopped", "some verbose message: 1")
          .Gap(1)
          .Created(1),
      Foo("differentUid", "Stopped", "some verbose message: 1")
          .Gap(1)
          .Patched(2),
  };
}

std::vector<ClientGoCase> ClientGoCases() {
  const std::string similar = "similar message";
  return {
      // client-go tools/record/events_cache_test.go,
      // TestEventAggregatorByReasonFunc (one case)
      {"events_cache_test.go TestEventAggregatorByReasonFunc",
       "same object and reason, different message: one group, two local "
       "keys; another reason: another group",
       true,
       "client-go compares the keys directly; here with a threshold of 2 the "
       "second message of the same reason is combined (same group, distinct "
       "message) and the third reason is not (another group)",
       {Pod1("end-of-world", "it was fun").Created(1),
        Pod1("end-of-world", "it was awful")
            .Created(1)
            .Shows(std::string(kCombinedPrefix) + "it was awful"),
        Pod1("nevermind", "it was a bug").Created(1)},
       2},
      // client-go tools/record/events_cache_test.go,
      // TestEventAggregatorByReasonMessageFunc (one case)
      {"events_cache_test.go TestEventAggregatorByReasonMessageFunc",
       "combined message has the prefix",
       true,
       "with a threshold of 1 the first event is already combined, so its "
       "message is the prefix and the message",
       {Pod1("end-of-world", "it was fun")
            .Created(1)
            .Shows(std::string(kCombinedPrefix) + "it was fun")},
       1},
      // client-go tools/record/events_cache_test.go, TestEventCorrelator
      // "create-a-single-event"
      {"events_cache_test.go TestEventCorrelator",
       "create-a-single-event",
       true,
       "intervalSeconds 5",
       {MyPod("first", "i am first").Created(1)}},
      // client-go tools/record/events_cache_test.go, TestEventCorrelator
      // "the-same-event-should-just-count"
      {"events_cache_test.go TestEventCorrelator",
       "the-same-event-should-just-count",
       true,
       "intervalSeconds 5",
       {MyPod("duplicate", "me again").Created(1),
        MyPod("duplicate", "me again").Patched(2)}},
      // client-go tools/record/events_cache_test.go, TestEventCorrelator
      // "the-same-event-should-just-count-even-if-more-than-aggregate"
      {"events_cache_test.go TestEventCorrelator",
       "the-same-event-should-just-count-even-if-more-than-aggregate",
       true,
       "intervalSeconds 30: eleven of the same event span 15 minutes, past "
       "the aggregation window; one message is never combined",
       {MyPod("duplicate", "me again").Times(10).Gap(90).Patched(10),
        MyPod("duplicate", "me again").Gap(90).Patched(11)}},
      // client-go tools/record/events_cache_test.go, TestEventCorrelator
      // "the-same-event-is-spam-if-happens-too-frequently"
      {"events_cache_test.go TestEventCorrelator",
       "the-same-event-is-spam-if-happens-too-frequently",
       false,
       "client-go's spam filter (a token bucket of 25 per source and object, "
       "refilled once every 5 minutes) drops the 27th event; Shoal has no "
       "such filter: a repeat only raises the count of one Event (one PATCH, "
       "and repeats while it waits share it), and a flood across objects is "
       "bounded by max_pending and folded (AFloodAcrossPodsIsFoldedNotDropped)",
       {}},
      // client-go tools/record/events_cache_test.go, TestEventCorrelator
      // "create-many-unique-events"
      {"events_cache_test.go TestEventCorrelator",
       "create-many-unique-events",
       true,
       "thirty events, each its own pod, namespace, reason and message, then "
       "another: each is created",
       {Ev("ns", "pod", "uid", "reason", "message")
            .Times(30)
            .VaryObject()
            .Created(1),
        MyPod("unique", "snowflake").Created(1)}},
      // client-go tools/record/events_cache_test.go, TestEventCorrelator
      // "similar-events-should-aggregate-event"
      {"events_cache_test.go TestEventCorrelator",
       "similar-events-should-aggregate-event",
       true,
       "nine different messages, then a tenth: the tenth is a new combined "
       "Event",
       {MyPod("similar", similar).Times(9).VaryMessage().Created(1),
        MyPod("similar", similar)
            .Created(1)
            .Shows(std::string(kCombinedPrefix) + similar)}},
      // client-go tools/record/events_cache_test.go, TestEventCorrelator
      // "similar-events-many-times-should-count-the-aggregate"
      {"events_cache_test.go TestEventCorrelator",
       "similar-events-many-times-should-count-the-aggregate",
       true,
       "ten different messages (the tenth combined), then an eleventh: the "
       "combined Event's count becomes 2 and it shows the latest message",
       {MyPod("similar", similar).Times(9).VaryMessage().Created(1),
        MyPod("similar", similar + "-9")
            .Created(1)
            .Shows(std::string(kCombinedPrefix) + similar + "-9"),
        MyPod("similar", similar)
            .Patched(2)
            .Shows(std::string(kCombinedPrefix) + similar)}},
      // client-go tools/record/events_cache_test.go, TestEventCorrelator
      // "events-from-different-containers-do-not-aggregate"
      {"events_cache_test.go TestEventCorrelator",
       "events-from-different-containers-do-not-aggregate",
       false,
       "the two events differ only in involvedObject.fieldPath (a container "
       "of the pod); Shoal's events are about whole pods and never set a "
       "field path",
       {}},
      // client-go tools/record/events_cache_test.go, TestEventCorrelator
      // "similar-events-whose-interval-is-greater-than-aggregate-interval-
      // do-not-aggregate"
      {"events_cache_test.go TestEventCorrelator",
       "similar-events-whose-interval-is-greater-than-aggregate-interval-do-"
       "not-aggregate",
       true,
       "intervalSeconds 600: 30 minutes between events, so the tenth "
       "different message starts afresh and is not combined",
       {MyPod("similar", similar).Times(9).VaryMessage().Gap(1800).Created(1),
        MyPod("similar", similar).Gap(1800).Created(1)}},
      // client-go tools/record/events_cache.go, EventAggregate (no test
      // case of client-go's pins this; its code and the doc of
      // maxIntervalInSeconds do)
      {"events_cache.go EventAggregate (source, no test case)",
       "the window runs from the last similar event",
       true,
       "the aggregation record is kept while similar events come less than "
       "10 minutes apart: ten messages 100 s apart (15 minutes in all) are "
       "combined at the tenth",
       {MyPod("similar", similar).Times(9).VaryMessage().Gap(100).Created(1),
        MyPod("similar", similar)
            .Gap(100)
            .Created(1)
            .Shows(std::string(kCombinedPrefix) + similar)}},
      // client-go tools/record/events_cache.go, EventAggregate (no test
      // case)
      {"events_cache.go EventAggregate (source, no test case)",
       "a repeat of an earlier message once combining has begun",
       false,
       "deliberate difference: client-go keeps all but one arbitrary message "
       "of the group once it combines (sets.String.PopAny), so such a repeat "
       "goes to its own Event or to the combined one depending on map order; "
       "Shoal keeps all ten and sends every later event of the group to the "
       "combined Event",
       {}},
      // client-go tools/record/events_cache_test.go, TestEventSpamFilter
      // "event should be reported as spam if object reference is the same
      // for default spam filter"
      {"events_cache_test.go TestEventSpamFilter",
       "event should be reported as spam if object reference is the same for "
       "default spam filter",
       false,
       "Shoal has no spam filter (see above)",
       {}},
      // client-go tools/record/events_cache_test.go, TestEventSpamFilter
      // "event should not be reported as spam if object reference is the
      // same, but reason is different for custom spam filter"
      {"events_cache_test.go TestEventSpamFilter",
       "event should not be reported as spam if object reference is the "
       "same, but reason is different for custom spam filter",
       false,
       "Shoal has no spam filter nor a spam key to configure",
       {}},
      // client-go tools/record/events_cache_test.go, TestEventSpamFilter
      // "event should  be reported as spam if object reference and reason is
      // the same, but message is different for custom spam filter"
      {"events_cache_test.go TestEventSpamFilter",
       "event should  be reported as spam if object reference and reason is "
       "the same, but message is different for custom spam filter",
       false,
       "Shoal has no spam filter nor a spam key to configure",
       {}},
      // client-go tools/record/event_test.go, TestEventf (its table, in
      // order)
      {"event_test.go TestEventf", "the seven events of its table", true,
       "each event is created or patched as the table says, one second "
       "apart; field paths dropped (see EventfSteps)",
       EventfSteps()},
      // client-go tools/record/event_test.go, TestMultiSinkCache
      {"event_test.go TestMultiSinkCache",
       "a second sink starts with a clean cache", true,
       "a second recorder (the second sink) plays TestEventf's table again "
       "and creates its own Events with the same counts",
       EventfSteps(), 10, true},
      // client-go tools/record/event_test.go, TestUpdateExpiredEvent
      {"event_test.go TestUpdateExpiredEvent",
       "a patch that finds no Event creates it",
       true,
       "the server loses the Event (Events expire): the repeat's PATCH gets "
       "404 and the recorder creates the Event again with the count so far "
       "(client-go clears resourceVersion; Shoal never sends one, and it "
       "names the new Event afresh where client-go reuses the old name)",
       {MyPod("duplicate", "me again").Created(1),
        MyPod("duplicate", "me again").ExpireFirst().Created(2)}},
      // client-go tools/record/event_test.go, TestEventfNoNamespace
      {"event_test.go TestEventfNoNamespace",
       "an object without a namespace",
       false,
       "client-go writes the Event to \"default\"; Shoal records events only "
       "about pods, which always have a namespace",
       {}},
      // client-go tools/record/event_test.go, TestWriteEventError
      {"event_test.go TestWriteEventError",
       "giveUp1, giveUp2, retry1, "
       "retry2, succeedEventually",
       false,
       "client-go retries a failed write up to 12 times with sleeps; Shoal "
       "writes once, never stalls the background lane, and counts the loss "
       "(ARefusedEventIsCountedAsAnApiError)",
       {}},
      // client-go tools/record/event_test.go, TestCancelEvent and
      // TestLotsOfEvents
      {"event_test.go TestCancelEvent, TestLotsOfEvents",
       "retries and cancellation of the sink",
       false,
       "about client-go's retry loop and broadcaster, which Shoal does not "
       "have (see TestWriteEventError)",
       {}},
      // client-go tools/record/event_test.go, TestNonRacyShutdown
      {"event_test.go TestNonRacyShutdown",
       "events then shutdown",
       false,
       "about client-go's broadcaster goroutines; Shoal's shutdown is "
       "Abandon and the destructor (WhatIsNotDeliveredIsCounted)",
       {}},
  };
}

std::string FakeTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

class ClientGoCasesTest : public EventRecorderTest {
 protected:
  // Every Event on the server, by name.
  std::map<std::string, json> AllEvents() {
    auto r = client_->Request("GET", "/api/v1/events");
    EXPECT_TRUE(r.ok() && r->status == 200);
    std::map<std::string, json> out;
    if (!r.ok()) return out;
    json list = json::parse(r->body);
    for (json& e : list["items"]) {
      out[e["metadata"]["name"].get<std::string>()] = e;
    }
    return out;
  }
  void MakeNamespace(const std::string& ns) {
    if (ns == "default" || !namespaces_.insert(ns).second) return;
    json body = {{"apiVersion", "v1"},
                 {"kind", "Namespace"},
                 {"metadata", {{"name", ns}}}};
    auto r = client_->Request("POST", "/api/v1/namespaces", body.dump());
    ASSERT_TRUE(r.ok() && r->status < 300) << ns;
  }
  void NewRecorder(const ClientGoCase& c) {
    events_.reset();
    EventRecorderOptions options;
    options.similar_threshold = c.similar_threshold;
    options.clock = [this] {
      absl::MutexLock lock(&clock_mu_);
      return now_;
    };
    events_ = std::make_unique<EventRecorder>(*pool_, "shoal", "test", options);
  }
  void Play(const ClientGoCase& c) {
    for (size_t i = 0; i < c.steps.size(); ++i) {
      const Step& step = c.steps[i];
      for (int t = 0; t < step.times; ++t) {
        SCOPED_TRACE(absl::StrCat("step ", i, ", time ", t + 1));
        ObjectRef object{"v1", "Pod", step.ns, step.pod, step.uid};
        std::string reason = step.reason, message = step.message;
        if (step.vary_object) {
          object.ns = absl::StrCat(step.ns, "-", t);
          object.name = absl::StrCat(step.pod, "-", t);
          reason = absl::StrCat(step.reason, "-", t);
        }
        if (step.vary_message || step.vary_object) {
          message = absl::StrCat(message, "-", t);
        }
        MakeNamespace(object.ns);
        if (step.expire_first) {
          for (const auto& [name, e] : AllEvents()) {
            auto r = client_->Request(
                "DELETE",
                absl::StrCat("/api/v1/namespaces/",
                             e["metadata"]["namespace"].get<std::string>(),
                             "/events/", name));
            ASSERT_TRUE(r.ok() && r->status < 300);
          }
        }
        std::map<std::string, json> before = AllEvents();
        absl::Time at;
        {
          absl::MutexLock lock(&clock_mu_);
          now_ += absl::Seconds(step.gap_seconds);
          at = now_;
        }
        events_->Record(object, "Normal", reason, message);
        pool_->Wait();
        // Exactly one Event is new or changed: what this event became.
        std::map<std::string, json> after = AllEvents();
        std::vector<std::string> touched;
        for (const auto& [name, e] : after) {
          auto was = before.find(name);
          if (was == before.end() || was->second != e) touched.push_back(name);
        }
        ASSERT_EQ(touched.size(), 1u) << json(after).dump(1);
        const json& e = after[touched[0]];
        const bool existed = before.count(touched[0]) > 0;
        EXPECT_EQ(e["involvedObject"]["name"], object.name);
        EXPECT_EQ(e["involvedObject"]["uid"], object.uid);
        EXPECT_EQ(e["metadata"]["namespace"], object.ns);
        EXPECT_EQ(e["reason"], reason);
        EXPECT_EQ(e["type"], "Normal");
        EXPECT_EQ(e["lastTimestamp"], FakeTime(at)) << e.dump(1);
        // As client-go's validateEvent: one occurrence has equal
        // timestamps, more have moved lastTimestamp.
        if (e["count"] == 1) {
          EXPECT_EQ(e["firstTimestamp"], e["lastTimestamp"]) << e.dump(1);
        } else {
          EXPECT_LT(e["firstTimestamp"].get<std::string>(),
                    e["lastTimestamp"].get<std::string>())
              << e.dump(1);
        }
        if (t + 1 < step.times || step.outcome == Outcome::kUnchecked) {
          continue;
        }
        EXPECT_EQ(existed, step.outcome == Outcome::kPatched) << e.dump(1);
        if (existed) {
          EXPECT_EQ(e["count"], before[touched[0]]["count"].get<int>() + 1);
        }
        EXPECT_EQ(e["count"], step.count) << e.dump(1);
        EXPECT_EQ(e["message"], step.shown.empty() ? message : step.shown)
            << e.dump(1);
      }
    }
  }

  absl::Mutex clock_mu_;
  absl::Time now_ ABSL_GUARDED_BY(clock_mu_) = absl::FromCivil(
      absl::CivilSecond(2026, 1, 2, 3, 4, 5), absl::UTCTimeZone());
  std::set<std::string> namespaces_;
};

TEST_F(ClientGoCasesTest, ClientGoCorrelatorCases) {
  int played = 0;
  for (const ClientGoCase& c : ClientGoCases()) {
    // Listed for the record; the note says why it does not apply.
    if (!c.applies) continue;
    SCOPED_TRACE(absl::StrCat(c.source, " \"", c.name, "\""));
    TearDown();
    namespaces_.clear();
    Start({});
    NewRecorder(c);
    Play(c);
    if (c.replay_on_new_recorder) {
      NewRecorder(c);
      Play(c);
    }
    EXPECT_EQ(events_->dropped(), 0);
    ++played;
  }
  EXPECT_EQ(played, 13);
}

TEST_F(EventRecorderTest, ARefusedEventIsCountedAsAnApiError) {
  Start({});
  double error = Dropped("api_error");
  events_->Record({"v1", "Pod", "nowhere", "q", "uid-q"}, "Normal", "Scheduled",
                  "ok");
  pool_->Wait();
  EXPECT_EQ(Dropped("api_error") - error, 1);
  EXPECT_EQ(events_->dropped(), 1);
}

}  // namespace
}  // namespace shoal::kube
