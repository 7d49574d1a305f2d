// Bind and evict against a loopback HTTP server answering as the API
// server does.
#include "scheduler/kube/write/api_binder.h"

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
    // DRA extended resources (KEP-5004): the claim made for a pod, its
    // status, and the pod's status naming it.
    server_.Post(
        R"(/apis/resource.k8s.io/v1/namespaces/([^/]+)/resourceclaims)",
        [this](const httplib::Request& req, httplib::Response& res) {
          Record(req);
          json claim = json::parse(req.body);
          if (claim["metadata"]["name"] == "taken") {
            res.status = 409;
            res.set_content(
                R"({"kind":"Status","code":409,"reason":"AlreadyExists","message":"resourceclaims.resource.k8s.io \"taken\" already exists"})",
                "application/json");
            return;
          }
          claim["metadata"]["uid"] = "claim-uid-1";
          claim["metadata"]["resourceVersion"] = "41";
          res.status = 201;
          res.set_content(claim.dump(), "application/json");
        });
    server_.Patch(
        R"(/apis/resource.k8s.io/v1/namespaces/([^/]+)/resourceclaims/([^/]+)/status)",
        [this](const httplib::Request& req, httplib::Response& res) {
          Record(req);
          res.status = 200;
          res.set_content("{}", "application/json");
        });
    server_.Patch(
        R"(/api/v1/namespaces/([^/]+)/pods/([^/]+)/status)",
        [this](const httplib::Request& req, httplib::Response& res) {
          Record(req);
          if (req.matches[2] == "gone") {
            res.status = 404;
            res.set_content(
                R"({"kind":"Status","code":404,"message":"pods \"gone\" not found"})",
                "application/json");
            return;
          }
          res.status = 200;
          res.set_content("{}", "application/json");
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

  void Record(const httplib::Request& req) {
    requests_.push_back(json::parse(req.body));
    paths_.push_back(req.path);
    calls_.push_back(req.method + " " + req.path + " " +
                     req.get_header_value("Content-Type"));
  }
  // A claim Shoal made for pod ml/trainer-0's two GPUs, to create.
  static api::ClaimWrite ExtendedClaimWrite(const std::string& name) {
    auto claim = std::make_shared<api::ResourceClaim>();
    claim->ns = "ml";
    claim->name = name;
    claim->api_version = "resource.k8s.io/v1";
    claim->owner_uid = "pod-uid-0";
    claim->owner_name = "trainer-0";
    claim->extended_resources = true;
    claim->to_create = true;
    api::DeviceRequest request;
    request.name = "container-0-request-1";
    api::DeviceChoice choice;
    choice.name = request.name;
    choice.device_class = "gpu.example.com";
    choice.count = 2;
    request.choices.push_back(choice);
    claim->requests.push_back(request);
    api::ClaimWrite w;
    w.ns = "ml";
    w.name = name;
    w.api_version = "resource.k8s.io/v1";
    w.newly_allocated = true;
    w.allocation.node = "node-a";
    w.allocation.results.push_back(
        {"container-0-request-1", "gpu.example.com", "node-a", "gpu-0"});
    w.consumer = {"pods", "trainer-0", "pod-uid-0"};
    w.reserved_for = {w.consumer};
    w.create = claim;
    w.mappings = {{"trainer", "example.com/gpu", "container-0-request-1"}};
    return w;
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::unique_ptr<HttpClient> client_;
  std::vector<json> requests_;
  std::vector<std::string> paths_;
  std::vector<std::string> calls_;  // "METHOD path content-type"
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

TEST_F(ApiBinderTest, AClaimToCreateIsPostedThenItsStatusPatchedAtItsVersion) {
  ApiBinder binder(*client_);
  api::ClaimWrite w = ExtendedClaimWrite("trainer-0-extended-resources-x7k2p");
  absl::Status s = binder.WriteClaim(w);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(calls_.size(), 2u);
  EXPECT_EQ(calls_[0],
            "POST /apis/resource.k8s.io/v1/namespaces/ml/resourceclaims "
            "application/json");
  EXPECT_EQ(calls_[1],
            "PATCH /apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/"
            "trainer-0-extended-resources-x7k2p/status "
            "application/json-patch+json");
  EXPECT_EQ(requests_[0], json::parse(R"({
      "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
      "metadata": {"name": "trainer-0-extended-resources-x7k2p",
        "namespace": "ml",
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod",
          "name": "trainer-0", "uid": "pod-uid-0", "controller": true}],
        "annotations": {
          "resource.kubernetes.io/extended-resource-claim": "true"}},
      "spec": {"devices": {"requests": [{"name": "container-0-request-1",
        "exactly": {"deviceClassName": "gpu.example.com",
          "allocationMode": "ExactCount", "count": 2}}]}}})"));
  // Guarded by the version the API server gave the new claim.
  const json& patch = requests_[1];
  ASSERT_TRUE(patch.is_array());
  EXPECT_EQ(patch[0], json::parse(R"({"op": "test",
      "path": "/metadata/resourceVersion", "value": "41"})"));
  EXPECT_EQ(patch[1]["path"], "/status");
  EXPECT_EQ(patch[1]["value"]["reservedFor"],
            json::parse(R"([{"resource": "pods", "name": "trainer-0",
                             "uid": "pod-uid-0"}])"));
  EXPECT_EQ(patch[1]["value"]["allocation"]["devices"]["results"][0]["device"],
            "gpu-0");
}

TEST_F(ApiBinderTest, AClaimToCreateThatExistsAlreadyIsAborted) {
  ApiBinder binder(*client_);
  absl::Status s = binder.WriteClaim(ExtendedClaimWrite("taken"));
  EXPECT_EQ(s.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(s.message(),
            "resourceclaim ml/taken exists already; not created for pod "
            "ml/trainer-0's extended resources: HTTP 409: "
            "resourceclaims.resource.k8s.io \"taken\" already exists");
  EXPECT_EQ(calls_.size(), 1u);  // no status patch
}

TEST_F(ApiBinderTest, AClaimThatExistsIsOnlyPatched) {
  ApiBinder binder(*client_);
  api::ClaimWrite w = ExtendedClaimWrite("made-before");
  w.create = nullptr;
  w.resource_version = "7";
  ASSERT_TRUE(binder.WriteClaim(w).ok());
  ASSERT_EQ(calls_.size(), 1u);
  EXPECT_EQ(calls_[0].substr(0, 6), "PATCH ");
  EXPECT_EQ(requests_[0][0]["value"], "7");
}

TEST_F(ApiBinderTest, PodExtendedClaimStatusIsAMergePatchOfPodStatus) {
  ApiBinder binder(*client_);
  api::ClaimWrite w = ExtendedClaimWrite("trainer-0-extended-resources-x7k2p");
  w.mappings.push_back({"init", "example.com/gpu", "container-0-request-0"});
  ASSERT_TRUE(binder.WritePodExtendedClaimStatus(Pod("trainer-0"), w).ok());
  ASSERT_EQ(calls_.size(), 1u);
  EXPECT_EQ(calls_[0],
            "PATCH /api/v1/namespaces/ml/pods/trainer-0/status "
            "application/merge-patch+json");
  EXPECT_EQ(requests_[0], json::parse(R"({"status": {
      "extendedResourceClaimStatus": {
        "resourceClaimName": "trainer-0-extended-resources-x7k2p",
        "requestMappings": [
          {"containerName": "trainer", "resourceName": "example.com/gpu",
           "requestName": "container-0-request-1"},
          {"containerName": "init", "resourceName": "example.com/gpu",
           "requestName": "container-0-request-0"}]}}})"));
  absl::Status gone = binder.WritePodExtendedClaimStatus(Pod("gone"), w);
  EXPECT_EQ(gone.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(gone.message(),
            "write pod ml/gone status.extendedResourceClaimStatus "
            "(resourceclaim ml/trainer-0-extended-resources-x7k2p): HTTP 404: "
            "pods \"gone\" not found");
}

}  // namespace
}  // namespace shoal::kube
