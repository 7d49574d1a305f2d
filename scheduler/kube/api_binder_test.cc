// Bind and evict against a loopback HTTP server answering as the API
// server does.
#include "scheduler/kube/api_binder.h"

#include <thread>

#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"

namespace shoal::kube {
namespace {

using nlohmann::json;

class ApiBinderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Post(
        R"(/api/v1/namespaces/([^/]+)/pods/([^/]+)/(binding|eviction))",
        [this](const httplib::Request& req, httplib::Response& res) {
          requests_.push_back(json::parse(req.body));
          paths_.push_back(req.path);
          std::string pod = req.matches[2];
          if (pod == "gone") {
            res.status = 404;
            res.set_content(
                R"({"kind":"Status","code":404,"message":"pods \"gone\" not found"})",
                "application/json");
          } else if (pod == "bound") {
            res.status = 409;
            res.set_content(
                R"({"kind":"Status","code":409,"message":"pod bound is already assigned to node \"b\""})",
                "application/json");
          } else if (pod == "guarded") {
            res.status = 429;
            res.set_content(
                R"({"kind":"Status","code":429,"message":"Cannot evict pod as it would violate the pod's disruption budget."})",
                "application/json");
          } else {
            res.status = 201;
            res.set_content(
                R"({"kind":"Status","status":"Success","code":201})",
                "application/json");
          }
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
    client_
        .reset();  // closes its kept-alive connection, so stop() need not wait
    server_.stop();
    thread_.join();
  }
  static api::PodInfo Pod(const std::string& name) {
    api::PodInfo p;
    p.ns = "ml";
    p.name = name;
    return p;
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::unique_ptr<HttpClient> client_;
  std::vector<json> requests_;
  std::vector<std::string> paths_;
};

TEST_F(ApiBinderTest, BindPostsABindingToTheNode) {
  ApiBinder binder(*client_);
  ASSERT_TRUE(binder.Bind(Pod("worker-0"), "node-a").ok());
  EXPECT_EQ(paths_[0], "/api/v1/namespaces/ml/pods/worker-0/binding");
  EXPECT_EQ(requests_[0], json::parse(R"({"apiVersion":"v1","kind":"Binding",
      "metadata":{"name":"worker-0","namespace":"ml"},
      "target":{"apiVersion":"v1","kind":"Node","name":"node-a"}})"));
}

TEST_F(ApiBinderTest, BindRefusalsSayWhatTheApiServerSaid) {
  ApiBinder binder(*client_);
  absl::Status conflict = binder.Bind(Pod("bound"), "node-a");
  EXPECT_EQ(conflict.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(conflict.message(),
            "bind pod ml/bound to node-a: HTTP 409: pod bound is already "
            "assigned to node \"b\"");
  EXPECT_EQ(binder.Bind(Pod("gone"), "node-a").code(),
            absl::StatusCode::kNotFound);
}

TEST_F(ApiBinderTest, EvictUsesTheEvictionApiAndHonoursBudgets) {
  ApiBinder binder(*client_);
  ASSERT_TRUE(
      binder.Evict(Pod("trainer-3"), "elastic", "default/nginx-7").ok());
  EXPECT_EQ(paths_[0], "/api/v1/namespaces/ml/pods/trainer-3/eviction");
  EXPECT_EQ(requests_[0],
            json::parse(R"({"apiVersion":"policy/v1","kind":"Eviction",
      "metadata":{"name":"trainer-3","namespace":"ml"}})"));
  absl::Status budget = binder.Evict(Pod("guarded"), "preempt", "ml/urgent-0");
  EXPECT_EQ(budget.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(budget.message(),
            "evict pod ml/guarded (preempt for ml/urgent-0): HTTP 429: Cannot "
            "evict pod as it "
            "would violate the pod's disruption budget.");
  EXPECT_TRUE(binder.Evict(Pod("gone"), "preempt", "").ok());  // already gone
}

}  // namespace
}  // namespace shoal::kube
