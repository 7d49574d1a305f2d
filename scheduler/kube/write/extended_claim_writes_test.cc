// A bind of a pod whose extended resources a claim Shoal made serves
// (KEP-5004), against the test API server: the claim is created, its
// status written, the pod's status.extendedResourceClaimStatus set, and
// only then the pod bound; each failure stops the writes that follow.
// And a claim's deallocation (dra/stale_allocations.h), guarded by the
// resourceVersion the snapshot saw.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "e2e/emulator/api_server.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "scheduler/kube/write/api_decision_sink.h"
#include "scheduler/kube/write/event_recorder.h"
#include "scheduler/kube/write/request_pool.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

constexpr char kClaims[] =
    "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims";

class ExtendedClaimWritesTest : public ::testing::Test {
 protected:
  ExtendedClaimWritesTest() : server_(Options()) {
    connection_.server =
        "http://127.0.0.1:" + std::to_string(server_.Start("127.0.0.1", 0));
    client_ = std::make_unique<HttpClient>(connection_);
    pool_ = std::make_unique<RequestPool>(connection_, 1);
    event_pool_ = std::make_unique<RequestPool>(connection_, 1);
    events_ = std::make_unique<EventRecorder>(*event_pool_, "shoal", "test");
    sink_ = std::make_unique<ApiDecisionSink>(*pool_, *events_);
  }
  ~ExtendedClaimWritesTest() override {
    sink_.reset();
    events_.reset();
    event_pool_.reset();
    pool_.reset();
    client_.reset();
    server_.Stop();
  }

  emulator::ApiServerOptions Options() {
    emulator::ApiServerOptions o;
    o.observe = [this](const httplib::Request& req,
                       const httplib::Response& res) {
      if (req.method == "GET" || req.path.find("/events") != std::string::npos)
        return;
      std::lock_guard<std::mutex> lock(mu_);
      writes_.push_back(
          absl::StrCat(req.method, " ", req.path, " ", res.status));
    };
    return o;
  }

  json Call(const std::string& method, const std::string& path,
            const json& body = nullptr) {
    auto r = client_->Request(method, path, body.is_null() ? "" : body.dump());
    EXPECT_TRUE(r.ok() && r->status < 300)
        << (r.ok() ? r->body : r.status().ToString());
    return r.ok() ? json::parse(r->body, nullptr, false) : json();
  }

  std::shared_ptr<api::PodInfo> CreatePod(const std::string& name) {
    json pod = Call("POST", "/api/v1/namespaces/default/pods",
                    {{"metadata", {{"name", name}}},
                     {"spec",
                      {{"schedulerName", "shoal"},
                       {"containers",
                        {{{"name", "trainer"},
                          {"image", "trainer"},
                          {"resources",
                           {{"requests", {{"example.com/gpu", "2"}}},
                            {"limits", {{"example.com/gpu", "2"}}}}}}}}}}});
    auto p = std::make_shared<api::PodInfo>();
    p->ns = "default";
    p->name = name;
    p->uid = pod["metadata"].value("uid", "");
    return p;
  }

  static api::ClaimWrite Write(const api::PodInfo& pod,
                               const std::string& claim_name) {
    auto claim = std::make_shared<api::ResourceClaim>();
    claim->ns = pod.ns;
    claim->name = claim_name;
    claim->api_version = "resource.k8s.io/v1";
    claim->owner_uid = pod.uid;
    claim->owner_name = pod.name;
    claim->extended_resources = true;
    claim->to_create = true;
    api::DeviceRequest request;
    request.name = "container-0-request-0";
    api::DeviceChoice choice;
    choice.name = request.name;
    choice.device_class = "gpu.example.com";
    choice.count = 2;
    request.choices.push_back(choice);
    claim->requests.push_back(request);
    api::ClaimWrite w;
    w.ns = pod.ns;
    w.name = claim_name;
    w.api_version = "resource.k8s.io/v1";
    w.newly_allocated = true;
    w.allocation.node = "node-a";
    for (const char* device : {"gpu-0", "gpu-1"}) {
      w.allocation.results.push_back(
          {"container-0-request-0", "gpu.example.com", "node-a", device});
    }
    w.consumer = {"pods", pod.name, pod.uid};
    w.reserved_for = {w.consumer};
    w.create = claim;
    w.mappings = {{"trainer", "example.com/gpu", "container-0-request-0"}};
    return w;
  }

  absl::Status Bind(std::shared_ptr<api::PodInfo> pod,
                    std::vector<api::ClaimWrite> claims) {
    absl::Status out;
    absl::Notification done;
    sink_->Bind(pod, "node-a", claims, [&](absl::Status s) {
      out = s;
      done.Notify();
    });
    done.WaitForNotification();
    sink_->Wait();
    return out;
  }

  std::vector<std::string> Writes() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    out.swap(writes_);
    return out;
  }

  emulator::ApiServer server_;
  ConnectionConfig connection_;
  std::unique_ptr<HttpClient> client_;
  std::unique_ptr<RequestPool> pool_, event_pool_;
  std::unique_ptr<EventRecorder> events_;
  std::unique_ptr<ApiDecisionSink> sink_;
  std::mutex mu_;
  std::vector<std::string> writes_;  // "METHOD path code"
};

TEST_F(ExtendedClaimWritesTest, CreatesTheClaimWritesThePodStatusThenBinds) {
  auto pod = CreatePod("trainer-0");
  Writes();
  absl::Status s = Bind(pod, {Write(*pod, "trainer-0-extended-resources-1")});
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(Writes(),
            (std::vector<std::string>{
                absl::StrCat("POST ", kClaims, " 201"),
                absl::StrCat("PATCH ", kClaims,
                             "/trainer-0-extended-resources-1/status 200"),
                "PATCH /api/v1/namespaces/default/pods/trainer-0/status 200",
                "POST /api/v1/namespaces/default/pods/trainer-0/binding 201",
            }));
  json claim =
      Call("GET", absl::StrCat(kClaims, "/trainer-0-extended-resources-1"));
  EXPECT_EQ(
      claim["metadata"]["annotations"],
      json::parse(
          R"({"resource.kubernetes.io/extended-resource-claim": "true"})"));
  EXPECT_EQ(claim["metadata"]["ownerReferences"],
            json::array({{{"apiVersion", "v1"},
                          {"kind", "Pod"},
                          {"name", "trainer-0"},
                          {"uid", pod->uid},
                          {"controller", true}}}));
  EXPECT_EQ(
      claim["status"]["reservedFor"],
      json::array(
          {{{"resource", "pods"}, {"name", "trainer-0"}, {"uid", pod->uid}}}));
  EXPECT_EQ(claim["status"]["allocation"]["devices"]["results"].size(), 2u);
  json got = Call("GET", "/api/v1/namespaces/default/pods/trainer-0");
  EXPECT_EQ(got["spec"]["nodeName"], "node-a");
  EXPECT_EQ(got["status"]["extendedResourceClaimStatus"], json::parse(R"({
      "resourceClaimName": "trainer-0-extended-resources-1",
      "requestMappings": [{"containerName": "trainer",
        "resourceName": "example.com/gpu",
        "requestName": "container-0-request-0"}]})"));
  EXPECT_EQ(got["status"]["phase"], "Pending");  // the rest of status kept
}

TEST_F(ExtendedClaimWritesTest, AClaimThatExistsAlreadyStopsTheBind) {
  auto first = CreatePod("trainer-0");
  auto second = CreatePod("trainer-1");
  ASSERT_TRUE(Bind(first, {Write(*first, "shared-name")}).ok());
  Writes();
  absl::Status s = Bind(second, {Write(*second, "shared-name")});
  EXPECT_EQ(s.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(s.message(),
            "resourceclaim default/shared-name exists already; not created "
            "for pod default/trainer-1's extended resources: HTTP 409: "
            "resourceclaims.resource.k8s.io \"shared-name\" already exists");
  EXPECT_EQ(Writes(),
            (std::vector<std::string>{absl::StrCat("POST ", kClaims, " 409")}));
  json got = Call("GET", "/api/v1/namespaces/default/pods/trainer-1");
  EXPECT_FALSE(got["spec"].contains("nodeName"));
  EXPECT_FALSE(got["status"].contains("extendedResourceClaimStatus"));
}

TEST_F(ExtendedClaimWritesTest, APodStatusThatCannotBeWrittenStopsTheBind) {
  auto ghost = std::make_shared<api::PodInfo>();
  ghost->ns = "default";
  ghost->name = "ghost";
  ghost->uid = "ghost-uid";
  absl::Status s = Bind(ghost, {Write(*ghost, "ghost-extended-resources")});
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(),
            "write pod default/ghost status.extendedResourceClaimStatus "
            "(resourceclaim default/ghost-extended-resources): HTTP 404: "
            "pods \"ghost\" not found");
  std::vector<std::string> writes = Writes();
  ASSERT_EQ(writes.size(), 3u);
  EXPECT_EQ(writes[2],
            "PATCH /api/v1/namespaces/default/pods/ghost/status 404");
}

TEST_F(ExtendedClaimWritesTest, ADeallocationClearsTheClaimUnlessItChanged) {
  auto pod = CreatePod("trainer-0");
  ASSERT_TRUE(Bind(pod, {Write(*pod, "c")}).ok());
  json claim = Call("GET", absl::StrCat(kClaims, "/c"));
  api::ResourceClaim after;
  after.ns = "default";
  after.name = "c";
  after.api_version = "resource.k8s.io/v1";
  auto deallocate = [&]() {
    absl::Status out;
    absl::Notification done;
    sink_->Deallocate(after, "devices failed", {"default/trainer-0"},
                      [&](absl::Status s) {
                        out = s;
                        done.Notify();
                      });
    done.WaitForNotification();
    sink_->Wait();
    return out;
  };
  after.resource_version = "1";  // what a stale snapshot saw
  absl::Status stale = deallocate();
  EXPECT_EQ(stale.code(), absl::StatusCode::kAborted) << stale;
  EXPECT_NE(
      stale.message().find("deallocate resourceclaim default/c: HTTP 409"),
      std::string::npos)
      << stale;
  EXPECT_TRUE(Call("GET", absl::StrCat(kClaims, "/c"))["status"].contains(
      "allocation"));
  after.resource_version =
      claim["metadata"]["resourceVersion"].get<std::string>();
  Writes();
  ASSERT_TRUE(deallocate().ok());
  EXPECT_EQ(Writes(), (std::vector<std::string>{
                          absl::StrCat("PATCH ", kClaims, "/c/status 200")}));
  json now = Call("GET", absl::StrCat(kClaims, "/c"));
  EXPECT_FALSE(now["status"].contains("allocation")) << now;
  EXPECT_FALSE(now["status"].contains("reservedFor")) << now;
}

}  // namespace
}  // namespace shoal::kube
