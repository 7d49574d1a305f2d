// DRA extended resources (KEP-5004) in the kube layer: what the pod
// decoder reads of a pod's extended resources and of the claim a
// scheduler made for them, the claim's annotation, and the JSON written
// back (snapshots, the claim's creation).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "scheduler/kube/decode/device_json.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/snapshot/snapshot_file.h"
#include "scheduler/kube/snapshot/snapshot_writer.h"

namespace shoal::kube {
namespace {

using nlohmann::json;
using Request = api::PodInfo::ExtendedRequest;

std::string Describe(const Request& e) {
  return absl::StrCat(e.container, " #", e.index, " name ", e.name_index,
                      e.short_lived ? " short-lived " : " ", e.resource, " ",
                      e.count);
}

std::vector<std::string> Describe(const std::vector<Request>& list) {
  std::vector<std::string> out;
  for (const Request& e : list) out.push_back(Describe(e));
  return out;
}

json Pod(json spec, json status = nullptr) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "trainer-0"}, {"namespace", "ml"}}},
              {"spec", std::move(spec)}};
  if (!status.is_null()) pod["status"] = std::move(status);
  return pod;
}

absl::StatusOr<std::shared_ptr<api::PodInfo>> Decode(const json& pod) {
  auto d = DecodePod(pod, nullptr);
  if (!d.ok()) return d.status();
  return d->pod;
}

TEST(ExtendedRequestsTest, EachContainersExtendedResourcesInitContainersFirst) {
  json spec = json::parse(R"({
    "schedulerName": "shoal",
    "initContainers": [
      {"name": "fetch", "resources": {"requests": {
        "example.com/gpu": "1", "cpu": "1"}}},
      {"name": "proxy", "restartPolicy": "Always", "resources": {
        "requests": {"example.com/nic": 1}}},
      {"name": "no-devices", "resources": {"requests": {"cpu": "1"}}}
    ],
    "containers": [
      {"name": "trainer", "resources": {
        "requests": {"memory": "1Gi", "example.com/gpu": "2", "cpu": "4",
                     "deviceclass.resource.kubernetes.io/fpga": "1"}}},
      {"name": "limits-only", "resources": {
        "limits": {"example.com/gpu": "3", "cpu": "1"},
        "requests": {"cpu": "500m"}}}
    ]})");
  auto pod = Decode(Pod(spec));
  ASSERT_TRUE(pod.ok()) << pod.status();
  // Sorted names: fetch [cpu, example.com/gpu]; trainer [cpu,
  // deviceclass.resource.kubernetes.io/fpga, example.com/gpu, memory];
  // limits-only [cpu, example.com/gpu].
  EXPECT_EQ(Describe((*pod)->extended_requests),
            (std::vector<std::string>{
                "fetch #0 name 1 short-lived example.com/gpu 1",
                "proxy #1 name 0 example.com/nic 1",
                "trainer #3 name 1 deviceclass.resource.kubernetes.io/fpga 1",
                "trainer #3 name 2 example.com/gpu 2",
                "limits-only #4 name 1 example.com/gpu 3",
            }));
  // The pod's request counts them as before: 2 + 3 beside the init's 1.
  auto gpu = api::InternResourceName("example.com/gpu");
  ASSERT_TRUE(gpu.ok());
  EXPECT_EQ((*pod)->request.Get(*gpu), 5);
  EXPECT_TRUE((*pod)->extended_claim.empty());
  EXPECT_TRUE((*pod)->extended_mappings.empty());
}

TEST(ExtendedRequestsTest, NativeAndKubernetesNamesAndZerosAreNotExtended) {
  json spec = json::parse(R"({
    "containers": [{"name": "c", "resources": {"requests": {
      "cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi",
      "hugepages-2Mi": "2Mi", "kubernetes.io/something": "1",
      "node.kubernetes.io/thing": "1", "example.com/zero": "0",
      "deviceclass.resource.kubernetes.io/gpu": "1"}}}]})");
  auto pod = Decode(Pod(spec));
  ASSERT_TRUE(pod.ok()) << pod.status();
  // Second of the eight names sorted (cpu first).
  EXPECT_EQ(Describe((*pod)->extended_requests),
            (std::vector<std::string>{
                "c #0 name 1 deviceclass.resource.kubernetes.io/gpu 1"}));
}

TEST(ExtendedRequestsTest, AFractionOfAnExtendedResourceIsRefused) {
  json spec = json::parse(R"({"containers": [{"name": "c", "resources": {
      "limits": {"example.com/gpu": "500m"}}}]})");
  auto pod = Decode(Pod(spec));
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.status().message(),
            "pod ml/trainer-0: spec.containers[0].resources.limits."
            "example.com/gpu: must be a whole number for an extended "
            "resource, got \"500m\"");
}

TEST(ExtendedClaimStatusTest, ReadsTheClaimAndItsMappings) {
  json spec = json::parse(R"({"containers": [{"name": "trainer",
      "resources": {"requests": {"example.com/gpu": "2"}}}]})");
  json status = json::parse(R"({"phase": "Pending",
    "extendedResourceClaimStatus": {
      "resourceClaimName": "trainer-0-extended-resources-x7k2p",
      "requestMappings": [{"containerName": "trainer",
        "resourceName": "example.com/gpu",
        "requestName": "container-0-request-0"}]}})");
  auto pod = Decode(Pod(spec, status));
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ((*pod)->extended_claim, "trainer-0-extended-resources-x7k2p");
  ASSERT_EQ((*pod)->extended_mappings.size(), 1u);
  EXPECT_EQ((*pod)->extended_mappings[0],
            (api::ContainerRequestMapping{"trainer", "example.com/gpu",
                                          "container-0-request-0"}));
}

TEST(ExtendedClaimStatusTest, MalformedStatusIsRefusedNamingTheField) {
  json spec = json::parse(R"({"containers": [{"name": "c"}]})");
  struct Case {
    const char* status;
    const char* error;
  };
  const Case cases[] = {
      {R"({"extendedResourceClaimStatus": "claim"})",
       "pod ml/trainer-0: status.extendedResourceClaimStatus: must be an "
       "object, got \"claim\""},
      {R"({"extendedResourceClaimStatus": {"requestMappings": []}})",
       "pod ml/trainer-0: status.extendedResourceClaimStatus."
       "resourceClaimName: must be set"},
      {R"({"extendedResourceClaimStatus": {"resourceClaimName": 3}})",
       "pod ml/trainer-0: status.extendedResourceClaimStatus."
       "resourceClaimName: must be a string, got 3"},
      {R"({"extendedResourceClaimStatus": {"resourceClaimName": "x",
           "requestMappings": {}}})",
       "pod ml/trainer-0: status.extendedResourceClaimStatus.requestMappings: "
       "must be a list, got {}"},
      {R"({"extendedResourceClaimStatus": {"resourceClaimName": "x",
           "requestMappings": ["c"]}})",
       "pod ml/trainer-0: status.extendedResourceClaimStatus."
       "requestMappings[0]: must be an object, got \"c\""},
      {R"({"extendedResourceClaimStatus": {"resourceClaimName": "x",
           "requestMappings": [{"containerName": "c",
             "resourceName": "example.com/gpu"}]}})",
       "pod ml/trainer-0: status.extendedResourceClaimStatus."
       "requestMappings[0].requestName: must be set"},
  };
  for (const Case& c : cases) {
    auto pod = Decode(Pod(spec, json::parse(c.status)));
    ASSERT_FALSE(pod.ok()) << c.status;
    EXPECT_EQ(pod.status().message(), c.error);
  }
}

json Claim(json annotations) {
  json claim = json::parse(R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
    "metadata": {"name": "trainer-0-extended-resources-x7k2p",
      "namespace": "ml", "uid": "claim-uid", "resourceVersion": "41",
      "ownerReferences": [
        {"apiVersion": "v1", "kind": "Pod", "name": "other",
         "uid": "not-controller"},
        {"apiVersion": "v1", "kind": "Pod", "name": "trainer-0",
         "uid": "pod-uid", "controller": true}]},
    "spec": {"devices": {"requests": [{"name": "container-0-request-0",
      "exactly": {"deviceClassName": "gpu.example.com",
        "allocationMode": "ExactCount", "count": 2}}]}}})");
  if (!annotations.is_null())
    claim["metadata"]["annotations"] = std::move(annotations);
  return claim;
}

TEST(ExtendedResourceClaimTest, TheAnnotationMarksIt) {
  auto marked = DecodeResourceClaim(
      Claim({{"resource.kubernetes.io/extended-resource-claim", "true"}}),
      nullptr);
  ASSERT_TRUE(marked.ok()) << marked.status();
  EXPECT_TRUE(marked->extended_resources);
  EXPECT_EQ(marked->owner_uid, "pod-uid");  // the controller owner
  for (json other :
       {json(nullptr), json{{"unrelated", "true"}},
        json{{"resource.kubernetes.io/extended-resource-claim", "false"}}}) {
    auto c = DecodeResourceClaim(Claim(other), nullptr);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_FALSE(c->extended_resources) << other.dump();
  }
}

TEST(ExtendedResourceClaimTest, WrittenBackItReadsTheSame) {
  auto claim = DecodeResourceClaim(
      Claim({{"resource.kubernetes.io/extended-resource-claim", "true"}}),
      nullptr);
  ASSERT_TRUE(claim.ok()) << claim.status();
  json written = ResourceClaimJson(*claim);
  EXPECT_EQ(
      written["metadata"]["annotations"],
      json::parse(
          R"({"resource.kubernetes.io/extended-resource-claim": "true"})"));
  auto again = DecodeResourceClaim(written, nullptr);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->extended_resources);
  EXPECT_EQ(again->owner_uid, "pod-uid");
  EXPECT_EQ(ResourceClaimJson(*again), written);
  api::ResourceClaim plain = *claim;
  plain.extended_resources = false;
  EXPECT_FALSE(ResourceClaimJson(plain)["metadata"].contains("annotations"));
}

TEST(ExtendedResourceClaimTest, NewClaimJsonIsWhatKubeSchedulerPosts) {
  api::ResourceClaim c;
  c.ns = "ml";
  c.name = "trainer-0-extended-resources-x7k2p";
  c.api_version = "resource.k8s.io/v1beta2";
  c.owner_uid = "pod-uid";
  c.owner_name = "trainer-0";
  c.extended_resources = true;
  c.to_create = true;
  api::DeviceRequest r;
  r.name = "container-1-request-0";
  api::DeviceChoice choice;
  choice.name = r.name;
  choice.device_class = "gpu.example.com";
  choice.count = 2;
  r.choices.push_back(choice);
  c.requests.push_back(r);
  EXPECT_EQ(NewClaimJson(c), json::parse(R"({
      "apiVersion": "resource.k8s.io/v1beta2", "kind": "ResourceClaim",
      "metadata": {"name": "trainer-0-extended-resources-x7k2p",
        "namespace": "ml",
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod",
          "name": "trainer-0", "uid": "pod-uid", "controller": true}],
        "annotations": {
          "resource.kubernetes.io/extended-resource-claim": "true"}},
      "spec": {"devices": {"requests": [{"name": "container-1-request-0",
        "exactly": {"deviceClassName": "gpu.example.com",
          "allocationMode": "ExactCount", "count": 2}}]}}})"));
  // v1beta1 has no `exactly`: the class and amount are on the request.
  c.api_version = "resource.k8s.io/v1beta1";
  EXPECT_EQ(NewClaimJson(c)["spec"]["devices"]["requests"][0],
            json::parse(R"({"name": "container-1-request-0",
                "deviceClassName": "gpu.example.com",
                "allocationMode": "ExactCount", "count": 2})"));
  // Read back, it is the claim Shoal made.
  c.api_version = "resource.k8s.io/v1";
  auto read = DecodeResourceClaim(NewClaimJson(c), nullptr);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(read->extended_resources);
  EXPECT_EQ(read->owner_uid, "pod-uid");
  ASSERT_EQ(read->requests.size(), 1u);
  EXPECT_EQ(read->requests[0].choices[0].count, 2);
}

// A snapshot written out and read back keeps the pod's extended
// resources container by container and the claim its status names.
TEST(ExtendedSnapshotTest, PodsExtendedResourcesAndClaimStatusRoundTrip) {
  json pod = Pod(json::parse(R"({
    "schedulerName": "shoal",
    "initContainers": [
      {"name": "fetch", "resources": {"requests": {"example.com/gpu": "1"}}},
      {"name": "proxy", "restartPolicy": "Always", "resources": {
        "requests": {"example.com/gpu": "1", "cpu": "1"}}},
      {"name": "warm", "resources": {"requests": {"example.com/gpu": "4"}}}
    ],
    "containers": [
      {"name": "plain", "resources": {"requests": {"cpu": "1"}}},
      {"name": "trainer", "resources": {"requests": {
        "example.com/gpu": "2", "cpu": "2", "memory": "1Gi"}}}
    ]})"),
                 json::parse(R"({"phase": "Pending",
    "extendedResourceClaimStatus": {
      "resourceClaimName": "trainer-0-extended-resources-x7k2p",
      "requestMappings": [{"containerName": "trainer",
        "resourceName": "example.com/gpu",
        "requestName": "container-4-request-1"}]}})"));
  json list = {
      {"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array({pod})}};
  std::vector<std::string> warnings;
  cache::Cache original("shoal");
  absl::Status read = LoadSnapshot(list.dump(), "in.json", original, &warnings);
  ASSERT_TRUE(read.ok()) << read;
  const std::string text = WriteSnapshotList(original);
  cache::Cache copy("shoal");
  warnings.clear();
  absl::Status loaded = LoadSnapshot(text, "out.json", copy, &warnings);
  ASSERT_TRUE(loaded.ok()) << loaded << "\n" << text;
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  EXPECT_EQ(WriteSnapshotList(copy), text);
  api::ClusterInfo a = original.Snapshot(), b = copy.Snapshot();
  ASSERT_EQ(a.tasks.size(), 1u);
  ASSERT_EQ(b.tasks.size(), 1u);
  const api::PodInfo& x = *a.tasks[0].pod;
  const api::PodInfo& y = *b.tasks[0].pod;
  EXPECT_EQ(y.request, x.request) << text;
  EXPECT_EQ(y.extended_claim, x.extended_claim);
  EXPECT_EQ(y.extended_mappings, x.extended_mappings);
  // Names, places and amounts; a request's place among its container's
  // names is not kept (the written container asks for nothing else).
  ASSERT_EQ(y.extended_requests.size(), x.extended_requests.size()) << text;
  for (size_t i = 0; i < x.extended_requests.size(); ++i) {
    Request e = x.extended_requests[i];
    e.name_index = y.extended_requests[i].name_index;
    EXPECT_EQ(Describe(y.extended_requests[i]), Describe(e)) << text;
  }
}

}  // namespace
}  // namespace shoal::kube
