// The event recorder against the test API server: repeats become one
// Event's count, many messages for one object become client-go's
// combined Event, a flood across pods is folded rather than dropped, and
// what is not delivered is counted in shoal_events_dropped_total.
#include "scheduler/kube/event_recorder.h"

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
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
  EXPECT_GE(lost_full, 17);
  EXPECT_EQ(delivered + lost_full + lost_error + lost_shutdown, 21);
  EXPECT_EQ(events_->dropped(), 21 - delivered);
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
