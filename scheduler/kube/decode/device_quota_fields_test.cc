// The fields that make devices count in queues: a DeviceClass's
// extendedResourceName and a Queue's device quotas.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/api/resource_name.h"
#include "scheduler/kube/decode/device_json.h"
#include "scheduler/kube/decode/objects.h"

namespace shoal::kube {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;

json Class(json spec) {
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "DeviceClass"},
          {"metadata", {{"name", "gpu.example.com"}}},
          {"spec", spec}};
}

TEST(DeviceClassTest, ExtendedResourceNameIsReadAndWrittenBack) {
  json obj = Class(
      {{"selectors",
        {{{"cel", {{"expression", "device.driver == 'gpu.example.com'"}}}}}},
       {"extendedResourceName", "example.com/gpu"}});
  auto cls = DecodeDeviceClass(obj, nullptr);
  ASSERT_TRUE(cls.ok()) << cls.status();
  EXPECT_EQ(cls->extended_resource_name, "example.com/gpu");
  // No longer a field that keeps the class's claims waiting.
  EXPECT_EQ(cls->unsupported_field, "");
  auto again = DecodeDeviceClass(DeviceClassJson(*cls), nullptr);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->extended_resource_name, "example.com/gpu");
  EXPECT_EQ(again->selectors, cls->selectors);
}

TEST(DeviceClassTest, AnExtendedResourceNameWithoutADomainIsRefusedByField) {
  auto cls =
      DecodeDeviceClass(Class({{"extendedResourceName", "gpu"}}), nullptr);
  ASSERT_FALSE(cls.ok());
  EXPECT_EQ(cls.status().message(),
            "deviceclass gpu.example.com: spec.extendedResourceName: must be "
            "an extended resource name such as example.com/gpu, got \"gpu\"");
}

json Queue(json spec) {
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "Queue"},
          {"metadata", {{"name", "vgpu"}}},
          {"spec", spec}};
}

TEST(QueueDeviceQuotaTest, ADeviceClassQuotaBoundsItsDevices) {
  auto q = DecodeQueue(
      Queue({{"capability", {{"deviceclass/gpu.example.com", "8"}}}}), nullptr);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->capability->Get(
                *api::InternResourceName("deviceclass/gpu.example.com")),
            8);
}

TEST(QueueDeviceQuotaTest, ADeviceCapacityQuotaIsWarnedAboutAndNotEnforced) {
  DecodeWarnings warnings;
  auto q = DecodeQueue(
      Queue(
          {{"capability",
            {{"cores.deviceclass/hami-core-gpu.project-hami.io", "800"},
             {"cpu", "8"}}},
           {"guarantee",
            {{"resource",
              {{"cores.deviceclass/hami-core-gpu.project-hami.io", "100"}}}}}}),
      &warnings);
  ASSERT_TRUE(q.ok()) << q.status();
  std::vector<std::string> messages;
  for (const DecodeWarning& w : warnings) messages.push_back(w.message);
  EXPECT_THAT(
      messages,
      ElementsAre(
          "queue vgpu: "
          "spec.capability[\"cores.deviceclass/hami-core-gpu.project-hami.io\"]"
          ": quotas of a device capacity are not implemented (Shoal counts "
          "whole devices, deviceclass/<class>); the queue is not bounded by "
          "it",
          "queue vgpu: spec.guarantee.resource[\"cores.deviceclass/"
          "hami-core-gpu.project-hami.io\"]: quotas of a device capacity are "
          "not implemented (Shoal counts whole devices, deviceclass/<class>); "
          "the queue is not bounded by it"));
  const auto cores = *api::InternResourceName(
      "cores.deviceclass/hami-core-gpu.project-hami.io");
  EXPECT_EQ(q->capability->Get(cores), api::kUnlimited);
  EXPECT_EQ(q->capability->Get(api::kCpu), 8000);
}

}  // namespace
}  // namespace shoal::kube
