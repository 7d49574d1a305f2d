// List and watch against a loopback server speaking the API server's
// list/watch protocol.
#include "scheduler/kube/informer.h"

#include <map>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "scheduler/metrics/scheduler_metrics.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

double Relists(const std::string& kind) {
  return metrics::Shoal().informer_relists.With({kind}).Value();
}
double WatchRestarts(const std::string& kind) {
  return metrics::Shoal().informer_watch_restarts.With({kind}).Value();
}

json Node(const std::string& name, const std::string& version) {
  return {{"kind", "Node"},
          {"metadata", {{"name", name}, {"resourceVersion", version}}}};
}

std::string Event(const std::string& type, const json& object) {
  return json{{"type", type}, {"object", object}}.dump() + "\n";
}

class InformerTest : public ::testing::Test {
 protected:
  void Serve(std::function<void(const httplib::Request&, httplib::Response&)>
                 handler) {
    server_.Get("/api/v1/nodes", std::move(handler));
    server_.Get("/apis/scheduling.x-k8s.io/v1alpha1/podgroups", [](const httplib::
                                                                       Request&,
                                                                   httplib::
                                                                       Response&
                                                                           res) {
      res.status = 404;
      res.set_content(
          R"({"kind":"Status","code":404,"message":"the server could not find the requested resource"})",
          "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ConnectionConfig c;
    c.server = "http://127.0.0.1:" + std::to_string(port_);
    client_ = std::make_unique<HttpClient>(c);
  }
  void TearDown() override {
    client_.reset();
    server_.stop();
    thread_.join();
  }
  WatchedKind Nodes() {
    WatchedKind kind;
    kind.name = "nodes";
    kind.list_path = "/api/v1/nodes";
    kind.upsert = [this](const json& o) {
      std::lock_guard<std::mutex> lock(mu_);
      if (o.value("bad", false))
        return absl::InvalidArgumentError("node bad: malformed");
      have_[o["metadata"]["name"]] = o["metadata"].value("resourceVersion", "");
      if (o["metadata"]["name"] == stop_after_) stop_ = true;
      return absl::OkStatus();
    };
    kind.remove = [this](const std::string& key) {
      std::lock_guard<std::mutex> lock(mu_);
      have_.erase(key);
    };
    return kind;
  }
  std::map<std::string, std::string> Have() {
    std::lock_guard<std::mutex> lock(mu_);
    return have_;
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::unique_ptr<HttpClient> client_;
  std::mutex mu_;
  std::map<std::string, std::string> have_;  // name -> resourceVersion
  std::string stop_after_;  // stop Run once this object is applied
  std::atomic<bool> stop_{false};
};

TEST_F(InformerTest, ListThenWatchAppliesEveryEventAndFollowsBookmarks) {
  std::string watched_from;
  Serve([&](const httplib::Request& req, httplib::Response& res) {
    if (!req.has_param("watch")) {
      json list = {{"kind", "NodeList"},
                   {"metadata", {{"resourceVersion", "10"}}},
                   {"items", {Node("n1", "3"), Node("n2", "4")}}};
      res.set_content(list.dump(), "application/json");
      return;
    }
    watched_from = req.get_param_value("resourceVersion");
    std::string body =
        Event("MODIFIED", Node("n1", "11")) +
        Event("DELETED", Node("n2", "12")) +
        Event("ADDED", json{{"bad", true}, {"metadata", {{"name", "x"}}}}) +
        Event("BOOKMARK", Node("", "15"));
    res.set_content(body, "application/json");
  });
  Informer informer(*client_, Nodes());
  auto version = informer.List();
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, "10");
  EXPECT_TRUE(informer.synced());
  std::atomic<bool> stop{false};
  auto newest = informer.Watch(*version, stop);
  ASSERT_TRUE(newest.ok()) << newest.status();
  EXPECT_EQ(watched_from, "10");
  EXPECT_EQ(*newest, "15");  // the bookmark's version
  EXPECT_EQ(
      Have(),
      (std::map<std::string, std::string>{{"n1", "11"}}));  // bad one skipped
}

TEST_F(InformerTest, GoneMeansListAgainAndDropWhatTheListLacks) {
  std::atomic<int> lists{0};
  stop_after_ = "c";
  Serve([&](const httplib::Request& req, httplib::Response& res) {
    if (!req.has_param("watch")) {
      json list = ++lists == 1 ? json{{"metadata", {{"resourceVersion", "1"}}},
                                      {"items", {Node("a", "1")}}}
                               : json{{"metadata", {{"resourceVersion", "5"}}},
                                      {"items", {Node("b", "5")}}};
      res.set_content(list.dump(), "application/json");
      return;
    }
    if (req.get_param_value("resourceVersion") == "1") {
      res.set_content(
          Event("ERROR",
                json{{"kind", "Status"}, {"code", 410}, {"reason", "Expired"}}),
          "application/json");
      return;
    }
    res.set_content(Event("ADDED", Node("c", "6")), "application/json");
  });
  Informer informer(*client_, Nodes(),
                    Backoff{absl::Milliseconds(10), absl::Milliseconds(50)});
  double relists = Relists("nodes"), restarts = WatchRestarts("nodes");
  std::thread run([&] { informer.Run(stop_); });
  run.join();
  EXPECT_EQ(lists.load(), 2);
  EXPECT_EQ(Relists("nodes"), relists + 2);         // the first and after 410
  EXPECT_EQ(WatchRestarts("nodes"), restarts + 1);  // the 410
  EXPECT_EQ(Have(),
            (std::map<std::string, std::string>{{"b", "5"}, {"c", "6"}}));
}

TEST_F(InformerTest, AMissingOptionalKindIsNotFatal) {
  Serve([](const httplib::Request&, httplib::Response& res) {
    res.set_content("{}", "application/json");
  });
  WatchedKind kind = Nodes();
  kind.name = "podgroups.scheduling.x-k8s.io";
  kind.list_path = "/apis/scheduling.x-k8s.io/v1alpha1/podgroups";
  kind.optional = true;
  Informer informer(*client_, kind,
                    Backoff{absl::Milliseconds(10), absl::Milliseconds(20)});
  double relists = Relists(kind.name);
  EXPECT_EQ(informer.List().status().message(),
            "list podgroups.scheduling.x-k8s.io: not served by this API server "
            "(/apis/scheduling.x-k8s.io/v1alpha1/podgroups)");
  std::atomic<bool> stop{false};
  std::thread run([&] { informer.Run(stop); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  stop = true;
  run.join();
  EXPECT_FALSE(informer.synced());
  EXPECT_EQ(Relists(kind.name), relists);  // looking for it is no relist
}

TEST_F(InformerTest, ServerErrorsAreRetried) {
  std::atomic<int> calls{0};
  std::atomic<bool> stop{false};
  Serve([&](const httplib::Request& req, httplib::Response& res) {
    if (++calls <= 2) {
      res.status = 500;
      res.set_content(
          R"({"kind":"Status","code":500,"message":"etcd unavailable"})",
          "application/json");
      return;
    }
    if (!req.has_param("watch")) {
      res.set_content(json{{"metadata", {{"resourceVersion", "7"}}},
                           {"items", {Node("n", "7")}}}
                          .dump(),
                      "application/json");
      return;
    }
    stop = true;
    res.set_content("", "application/json");
  });
  Informer informer(*client_, Nodes(),
                    Backoff{absl::Milliseconds(10), absl::Milliseconds(20)});
  double relists = Relists("nodes"), restarts = WatchRestarts("nodes");
  std::thread run([&] { informer.Run(stop); });
  run.join();
  EXPECT_TRUE(informer.synced());
  EXPECT_EQ(Relists("nodes"), relists + 3);  // two failed lists, then one
  EXPECT_EQ(WatchRestarts("nodes"), restarts);
  EXPECT_EQ(Have().count("n"), 1u);
}

// Found by tools/fuzz (informer_fuzzer): json::value() threw on a member of
// an unexpected type ("type": {}, "metadata": "x", "code": "410", an item
// that is not an object), and the exception ended the scheduler. Whatever
// the server sends, malformed objects are skipped and the rest applied.
TEST_F(InformerTest, MalformedListItemsAndEventsAreSkipped) {
  Serve([](const httplib::Request&, httplib::Response&) {});
  WatchedKind kind = Nodes();
  kind.upsert = [this](const json& o) {
    // As a decoder does: what is not a named object is refused.
    if (!o.is_object() || !o.contains("metadata") ||
        !o["metadata"].is_object() || !o["metadata"].contains("name") ||
        !o["metadata"]["name"].is_string()) {
      return absl::InvalidArgumentError("node: metadata.name: is required");
    }
    std::lock_guard<std::mutex> lock(mu_);
    have_[o["metadata"]["name"].get<std::string>()] = "";
    return absl::OkStatus();
  };
  Informer informer(*client_, std::move(kind));
  auto version = informer.ApplyList(
      R"({"metadata":{"resourceVersion":"7"},"items":[1,{"metadata":"x"},)"
      R"({"metadata":{"name":5}},{"metadata":{"name":"n1"}}]})");
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, "7");
  std::string newest = "7";
  bool gone = false;
  EXPECT_TRUE(
      informer.ApplyEvent(R"({"type":{},"object":{}})", &newest, &gone));
  EXPECT_TRUE(informer.ApplyEvent(
      R"({"type":"ADDED","object":{"metadata":{"name":"n2","resourceVersion":8}}})",
      &newest, &gone));
  EXPECT_EQ(newest, "7");  // a resourceVersion that is not a string
  EXPECT_TRUE(
      informer.ApplyEvent(R"({"type":"DELETED","object":[]})", &newest, &gone));
  EXPECT_FALSE(informer.ApplyEvent(
      R"({"type":"ERROR","object":{"code":"410"}})", &newest, &gone));
  EXPECT_FALSE(gone);
  EXPECT_FALSE(
      informer.ApplyEvent(R"({"type":"ERROR","object":7})", &newest, &gone));
  EXPECT_FALSE(gone);
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_EQ(have_.size(), 2u);
  EXPECT_EQ(have_.count("n1"), 1u);
  EXPECT_EQ(have_.count("n2"), 1u);
}

}  // namespace
}  // namespace shoal::kube
