// The claim serving a pod's extended resources, request by request and
// mapping by mapping as kube-scheduler 1.36 builds it (the cases of its
// Test_createRequestsAndMappings, carried), its name, and the session
// steps around it.
#include "scheduler/dra/extended_resources.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/api/resource_name.h"
#include "scheduler/dra/ledger.h"
#include "scheduler/dra/testing.h"

namespace shoal::dra {
namespace {

using Extended = api::PodInfo::ExtendedRequest;

constexpr char kGpu[] = "example.com/gpu";
constexpr char kGpu1[] = "example.com/gpu1";
constexpr char kInit[] = "example.com/gpuinit";

// A container's extended request: name, index, resource, count; the
// name's position among the container's request names is 0 unless given.
Extended Ask(const std::string& container, int index, const std::string& r,
             int64_t count, bool short_lived = false, int name_index = 0) {
  Extended e;
  e.container = container;
  e.index = index;
  e.name_index = name_index;
  e.short_lived = short_lived;
  e.resource = r;
  e.count = count;
  return e;
}

std::string Describe(const ExtendedClaimSpec& s) {
  std::string out;
  for (const api::DeviceRequest& r : s.requests) {
    out += r.name + "=" + r.choices[0].device_class + "x" +
           std::to_string(r.choices[0].count) + " ";
  }
  out += "|";
  for (const auto& m : s.mappings)
    out += " " + m.container + ":" + m.resource + "->" + m.request;
  return out;
}

const absl::flat_hash_map<std::string, std::string> kOneClass = {
    {kGpu, "class"}};
const absl::flat_hash_map<std::string, std::string> kTwoClasses = {
    {kGpu, "class"}, {kGpu1, "class1"}};
const absl::flat_hash_map<std::string, std::string> kInitClasses = {
    {kGpu, "class"},
    {kInit, "classInit"},
    {"deviceclass.resource.kubernetes.io/classInit", "classInit"}};

TEST(ExtendedClaimSpec, NothingWhenNoClassServesTheResources) {
  api::PodInfo pod;
  pod.extended_requests = {Ask("con0", 0, kGpu, 1)};
  EXPECT_EQ(Describe(BuildExtendedClaimSpec(pod, {})), "|");
}

TEST(ExtendedClaimSpec, OneRequestPerContainerAndResourceServed) {
  api::PodInfo pod;  // one container asking two resources
  pod.extended_requests = {Ask("con0", 0, kGpu, 1, false, 0),
                           Ask("con0", 0, kGpu1, 2, false, 1)};
  EXPECT_EQ(Describe(BuildExtendedClaimSpec(pod, kOneClass)),
            "container-0-request-0=classx1 "
            "| con0:example.com/gpu->container-0-request-0");
  EXPECT_EQ(Describe(BuildExtendedClaimSpec(pod, kTwoClasses)),
            "container-0-request-0=classx1 container-0-request-1=class1x2 "
            "| con0:example.com/gpu->container-0-request-0 "
            "con0:example.com/gpu1->container-0-request-1");
  api::PodInfo two;  // two containers
  two.extended_requests = {Ask("con0", 0, kGpu, 1), Ask("con1", 1, kGpu1, 2)};
  EXPECT_EQ(Describe(BuildExtendedClaimSpec(two, kTwoClasses)),
            "container-0-request-0=classx1 container-1-request-0=class1x2 "
            "| con0:example.com/gpu->container-0-request-0 "
            "con1:example.com/gpu1->container-1-request-0");
}

TEST(ExtendedClaimSpec, InitContainersShareTheLargestRequest) {
  api::PodInfo one;  // an init container and a regular one
  one.extended_requests = {Ask("init-con0", 0, kInit, 2, true),
                           Ask("con0", 1, kGpu, 1)};
  EXPECT_EQ(Describe(BuildExtendedClaimSpec(one, kInitClasses)),
            "container-0-request-0=classInitx2 container-1-request-0=classx1 "
            "| con0:example.com/gpu->container-1-request-0 "
            "init-con0:example.com/gpuinit->container-0-request-0");
  api::PodInfo two;  // two init containers, one regular
  two.extended_requests = {Ask("init-con0", 0, kInit, 1, true),
                           Ask("init-con1", 1, kInit, 2, true),
                           Ask("con0", 2, kGpu, 1)};
  EXPECT_EQ(Describe(BuildExtendedClaimSpec(two, kInitClasses)),
            "container-1-request-0=classInitx2 container-2-request-0=classx1 "
            "| con0:example.com/gpu->container-2-request-0 "
            "init-con0:example.com/gpuinit->container-1-request-0 "
            "init-con1:example.com/gpuinit->container-1-request-0");
}

TEST(ExtendedClaimSpec, AnInitContainerUsesTheDevicesOfASidecarAfterIt) {
  api::PodInfo pod;  // init, sidecar, init, regular
  pod.extended_requests = {
      Ask("init-con0", 0, kInit, 1, true), Ask("sidecar-con1", 1, kInit, 1),
      Ask("init-con2", 2, kInit, 2, true), Ask("con0", 3, kGpu, 1)};
  EXPECT_EQ(Describe(BuildExtendedClaimSpec(pod, kInitClasses)),
            "container-1-request-0=classInitx1 "
            "container-2-request-0=classInitx2 container-3-request-0=classx1 "
            "| con0:example.com/gpu->container-3-request-0 "
            "sidecar-con1:example.com/gpuinit->container-1-request-0 "
            "init-con0:example.com/gpuinit->container-1-request-0 "
            "init-con2:example.com/gpuinit->container-2-request-0");
}

TEST(ExtendedClaimSpec, ExplicitAndImplicitNamesOfOneClass) {
  api::PodInfo pod;
  pod.extended_requests = {
      Ask("init-con0", 0, "deviceclass.resource.kubernetes.io/classInit", 2,
          true, 0),
      Ask("init-con0", 0, kInit, 1, true, 1)};
  EXPECT_EQ(Describe(BuildExtendedClaimSpec(pod, kInitClasses)),
            "container-0-request-0=classInitx2 "
            "container-0-request-1=classInitx1 "
            "| init-con0:deviceclass.resource.kubernetes.io/classInit->"
            "container-0-request-0 "
            "init-con0:example.com/gpuinit->container-0-request-1");
}

TEST(ExtendedResourceClasses, ExplicitNamesAndEveryClassByItsOwnName) {
  api::DeviceWorld world;
  world.classes["b-gpu"].name = "b-gpu";
  world.classes["b-gpu"].extended_resource_name = kGpu;
  world.classes["a-gpu"].name = "a-gpu";
  world.classes["a-gpu"].extended_resource_name = kGpu;
  world.classes["fpga"].name = "fpga";
  auto classes = ExtendedResourceClasses(world);
  EXPECT_EQ(classes.size(), 4u);
  EXPECT_EQ(classes[kGpu], "a-gpu");  // two name it: the first by name
  EXPECT_EQ(classes["deviceclass.resource.kubernetes.io/fpga"], "fpga");
  EXPECT_EQ(classes["deviceclass.resource.kubernetes.io/b-gpu"], "b-gpu");
}

TEST(ExtendedClaimName, KubeSchedulersShapeAndLength) {
  api::PodInfo pod;
  pod.ns = "ml";
  pod.name = "trainer-0";
  pod.uid = "5b6c1f0e";
  const std::string name = ExtendedClaimName(pod);
  EXPECT_EQ(name.rfind("trainer-0-extended-resources-", 0), 0u) << name;
  EXPECT_EQ(name.size(),
            std::string("trainer-0-extended-resources-").size() + 5);
  EXPECT_EQ(name, ExtendedClaimName(pod));  // known before it is created
  pod.name = std::string(80, 'p');
  EXPECT_EQ(ExtendedClaimName(pod).size(), 63u);
  EXPECT_EQ(ExtendedClaimName(pod).substr(0, 58), std::string(58, 'p'));
}

// A cluster of a node publishing example.com/gpu itself (the device
// plugin's) and a node whose two GPUs only DRA offers; one pending pod
// asking two of them.
struct Mixed {
  testing::World w;
  api::ClusterInfo cluster;
  Mixed() {
    w.devices->classes["gpu"].extended_resource_name = kGpu;
    w.AddNode("plugin-node", {});
    w.AddNode("dra-node", {testing::Gpu("gpu-0"), testing::Gpu("gpu-1")});
    auto gpu = api::InternResourceName(kGpu);
    auto plugin = std::make_shared<api::NodeSpec>(w.nodes[0].spec());
    plugin->allocatable.Set(*gpu, 4);
    w.nodes[0] = api::NodeInfo(plugin, 0);
    cluster.nodes = w.nodes;
    cluster.devices = w.devices;
    auto pod = std::make_shared<api::PodInfo>();
    pod->ns = "ml";
    pod->name = "p";
    pod->uid = "uid-p";
    pod->request.Set(*gpu, 2);
    pod->extended_requests = {Ask("main", 0, kGpu, 2)};
    api::TaskInfo t;
    t.pod = pod;
    cluster.tasks.push_back(t);
  }
};

TEST(ExtendedResources, APendingPodGetsItsClaimAndDraNodesServeTheResource) {
  Mixed m;
  AddExtendedResourceClaims(m.cluster);
  const api::PodInfo& pod = *m.cluster.tasks[0].pod;
  ASSERT_EQ(pod.resource_claims.size(), 1u);
  EXPECT_TRUE(pod.resource_claims[0].extended);
  const std::string key = "ml/" + pod.resource_claims[0].claim;
  ASSERT_TRUE(m.cluster.devices->claims.contains(key));
  const api::ResourceClaim& c = m.cluster.devices->claims.at(key);
  EXPECT_TRUE(c.to_create);
  EXPECT_TRUE(c.extended_resources);
  EXPECT_EQ(c.owner_uid, "uid-p");
  ASSERT_EQ(c.requests.size(), 1u);
  EXPECT_EQ(c.requests[0].name, "container-0-request-0");
  EXPECT_EQ(c.requests[0].choices[0].count, 2);
  // The world the snapshot had is left as it was (it is shared).
  EXPECT_FALSE(m.w.devices->claims.contains(key));

  Ledger ledger(m.cluster.devices, m.cluster.nodes);
  auto served =
      ServeExtendedResourcesOnNodes(ledger.mutable_inventory(), m.cluster);
  auto gpu = *api::InternResourceName(kGpu);
  EXPECT_EQ(served, std::vector<api::ResourceId>{gpu});
  EXPECT_EQ(m.cluster.nodes[0].allocatable().Get(gpu), 4);  // its own
  EXPECT_EQ(m.cluster.nodes[1].allocatable().Get(gpu), 2);  // two GPUs
  EXPECT_TRUE(m.cluster.nodes[0].spec().served_by_devices.empty());

  // On the plugin's node the claim is not used, nor written.
  EXPECT_TRUE(ledger.Fits(pod, m.cluster.nodes[0]));
  ledger.Place(pod, m.cluster.nodes[0]);
  EXPECT_TRUE(ledger.WritesFor(pod).empty());
  ledger.Unplace(pod);
  // On the DRA node it takes both GPUs and is created by the bind, with
  // the pod's mapping.
  EXPECT_TRUE(ledger.Fits(pod, m.cluster.nodes[1]));
  ledger.Place(pod, m.cluster.nodes[1]);
  EXPECT_EQ(ledger.TakenCount(), 2);
  auto writes = ledger.WritesFor(pod);
  ASSERT_EQ(writes.size(), 1u);
  ASSERT_NE(writes[0].create, nullptr);
  EXPECT_EQ(writes[0].create->name, pod.resource_claims[0].claim);
  EXPECT_TRUE(writes[0].newly_allocated);
  ASSERT_EQ(writes[0].mappings.size(), 1u);
  EXPECT_EQ(writes[0].mappings[0].request, "container-0-request-0");
  EXPECT_EQ(writes[0].mappings[0].container, "main");
}

TEST(ExtendedResources, AClaimMadeAlreadyForThePodIsUsed) {
  Mixed m;
  api::ResourceClaim made = testing::Claim("p-extended-resources-abcde");
  made.extended_resources = true;
  made.owner_uid = "uid-p";
  m.w.AddClaim(made);
  AddExtendedResourceClaims(m.cluster);
  const api::PodInfo& pod = *m.cluster.tasks[0].pod;
  ASSERT_EQ(pod.resource_claims.size(), 1u);
  EXPECT_EQ(pod.resource_claims[0].claim, "p-extended-resources-abcde");
  EXPECT_EQ(m.cluster.devices, m.w.devices);  // nothing added
  // Its status does not name the claim yet: the bind will.
  EXPECT_EQ(pod.extended_mappings.size(), 1u);
}

TEST(ExtendedResources, APodNotAskingAServedResourceIsLeftAlone) {
  Mixed m;
  m.w.devices->classes["gpu"].extended_resource_name = "example.com/other";
  AddExtendedResourceClaims(m.cluster);
  EXPECT_TRUE(m.cluster.tasks[0].pod->resource_claims.empty());
  Ledger ledger(m.cluster.devices, m.cluster.nodes);
  EXPECT_TRUE(
      ServeExtendedResourcesOnNodes(ledger.mutable_inventory(), m.cluster)
          .empty());
}

}  // namespace
}  // namespace shoal::dra
