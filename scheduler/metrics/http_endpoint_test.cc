// Health's verdicts, then the endpoint over real HTTP (libcurl) on a port
// the kernel picks.
#include "scheduler/metrics/http_endpoint.h"

#include <curl/curl.h>

#include "gtest/gtest.h"

namespace shoal::metrics {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'000'000);

Health::Options Options() {
  Health::Options o;
  o.period = absl::Seconds(1);
  o.stuck_periods = 10;
  o.min_stuck = absl::Seconds(30);
  return o;
}

TEST(HealthTest, StuckAfterIsPeriodsOrTheMinimum) {
  Health h(Options(), kStart);
  EXPECT_EQ(h.StuckAfter(), absl::Seconds(30));
  h.SetPeriod(absl::Seconds(5));
  EXPECT_EQ(h.StuckAfter(), absl::Seconds(50));
}

TEST(HealthTest, ALeaderWithoutCyclesIsStuckAfterTheLimit) {
  Health h(Options(), kStart);
  h.SetSynced(true);
  h.SetLeadership(Leadership::kLeader, kStart);
  EXPECT_EQ(h.Liveness(kStart + absl::Seconds(30)).code, 200);
  h.CycleFinished(kStart + absl::Seconds(20));
  EXPECT_EQ(h.Liveness(kStart + absl::Seconds(50)).code, 200);
  Health::Verdict v = h.Liveness(kStart + absl::Seconds(65));
  EXPECT_EQ(v.code, 500);
  EXPECT_EQ(v.body,
            "stuck: the last scheduling cycle finished 45s ago (limit 30s)\n");
  h.CycleFinished(kStart + absl::Seconds(64));
  EXPECT_EQ(h.Liveness(kStart + absl::Seconds(65)).code, 200);
}

TEST(HealthTest, NoCycleSinceLeadingBeganIsStuckToo) {
  Health h(Options(), kStart);
  h.SetSynced(true);
  h.SetLeadership(Leadership::kNotElecting, kStart + absl::Seconds(100));
  Health::Verdict v = h.Liveness(kStart + absl::Seconds(200));
  EXPECT_EQ(v.code, 500);
  EXPECT_EQ(v.body,
            "stuck: no scheduling cycle finished in the 1m40s since "
            "scheduling began (limit 30s)\n");
}

TEST(HealthTest, AStandbyOrAnUnsyncedReplicaIsAlive) {
  Health h(Options(), kStart);
  EXPECT_EQ(h.Liveness(kStart + absl::Hours(1)).code, 200);  // unknown
  h.SetLeadership(Leadership::kStandby, kStart);
  h.SetSynced(true);
  EXPECT_EQ(h.Liveness(kStart + absl::Hours(1)).body, "ok\n");
  // Taking over later: the clock starts at the takeover, not at start.
  h.SetLeadership(Leadership::kLeader, kStart + absl::Hours(2));
  EXPECT_EQ(h.Liveness(kStart + absl::Hours(2) + absl::Seconds(10)).code, 200);
  EXPECT_EQ(h.Liveness(kStart + absl::Hours(2) + absl::Seconds(31)).code, 500);
}

TEST(HealthTest, ReadinessNamesWhatIsMissing) {
  Health h(Options(), kStart);
  EXPECT_EQ(h.Readiness().code, 503);
  EXPECT_EQ(h.Readiness().body,
            "not ready: caches not synced; leadership not yet known\n");
  h.SetUnsynced({"pods", "nodes"});
  h.SetLeadership(Leadership::kStandby);
  EXPECT_EQ(h.Readiness().body, "not ready: caches not synced: pods, nodes\n");
  h.SetUnsynced({});
  EXPECT_EQ(h.Readiness().code, 200);
  EXPECT_EQ(h.Readiness().body, "standby\n");  // a standby is ready
  h.SetLeadership(Leadership::kLeader);
  EXPECT_EQ(h.Readiness().body, "leader\n");
  h.SetLeadership(Leadership::kNotElecting);
  EXPECT_EQ(h.Readiness().body, "leader (not electing)\n");
  h.SetSynced(false);
  EXPECT_EQ(h.Readiness().body, "not ready: caches not synced\n");
}

struct Reply {
  long code = 0;
  std::string type;
  std::string body;
};

size_t Collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

Reply Get(int port, const std::string& path) {
  Reply r;
  CURL* c = curl_easy_init();
  std::string url = "http://127.0.0.1:" + std::to_string(port) + path;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
  EXPECT_EQ(curl_easy_perform(c), CURLE_OK) << url;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.code);
  char* type = nullptr;
  curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &type);
  if (type != nullptr) r.type = type;
  curl_easy_cleanup(c);
  return r;
}

TEST(HttpEndpointTest, ServesMetricsHealthzAndReadyz) {
  Registry registry;
  registry.AddCounter("shoal_test_total", "A test counter.").Inc(3);
  Health::Options o;
  o.period = absl::Milliseconds(10);
  o.stuck_periods = 2;
  o.min_stuck = absl::ZeroDuration();
  Health health(o);
  HttpEndpoint endpoint(registry, health);
  ASSERT_TRUE(endpoint.Start("127.0.0.1:0").ok());
  ASSERT_GT(endpoint.port(), 0);

  Reply m = Get(endpoint.port(), "/metrics");
  EXPECT_EQ(m.code, 200);
  EXPECT_EQ(m.type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(m.body,
            "# HELP shoal_test_total A test counter.\n"
            "# TYPE shoal_test_total counter\n"
            "shoal_test_total 3\n");

  Reply ready = Get(endpoint.port(), "/readyz");
  EXPECT_EQ(ready.code, 503);
  EXPECT_EQ(ready.body,
            "not ready: caches not synced; leadership not yet known\n");
  health.SetSynced(true);
  health.SetLeadership(Leadership::kLeader);
  ready = Get(endpoint.port(), "/readyz");
  EXPECT_EQ(ready.code, 200);
  EXPECT_EQ(ready.body, "leader\n");

  health.CycleFinished(absl::Now());
  EXPECT_EQ(Get(endpoint.port(), "/healthz").code, 200);
  EXPECT_EQ(Get(endpoint.port(), "/healthz").body, "ok\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // > 20 ms
  Reply stuck = Get(endpoint.port(), "/healthz");
  EXPECT_EQ(stuck.code, 500);
  EXPECT_EQ(stuck.body.rfind("stuck: the last scheduling cycle finished ", 0),
            0u)
      << stuck.body;

  EXPECT_EQ(Get(endpoint.port(), "/nothing").code, 404);
  endpoint.Stop();
}

TEST(HttpEndpointTest, RefusesBadAddresses) {
  Registry registry;
  Health health;
  HttpEndpoint endpoint(registry, health);
  EXPECT_EQ(endpoint.Start("8080").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(endpoint.Start("localhost:http").code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(endpoint.Start(":0").ok());
  HttpEndpoint second(registry, health);
  EXPECT_EQ(second.Start("0.0.0.0:" + std::to_string(endpoint.port())).code(),
            absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace shoal::metrics
