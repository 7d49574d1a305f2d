// A scheduling.k8s.io PodGroup's claims (KEP-5729): decoded as a pod's
// are (a template's claim from status.resourceClaimStatuses), refused by
// field when malformed, and written back; a reservedFor naming the
// PodGroup (apiGroup) read and written.
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "scheduler/kube/decode/device_json.h"
#include "scheduler/kube/decode/objects.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

json PodGroup(const json& claims, const json& status = json::object()) {
  return {{"apiVersion", "scheduling.k8s.io/v1alpha2"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", "train"}, {"namespace", "ml"}}},
          {"spec",
           {{"schedulingPolicy", {{"gang", {{"minCount", 2}}}}},
            {"resourceClaims", claims}}},
          {"status", status}};
}

TEST(PodGroupClaims, ByNameAndByTemplateOnceTheControllerMadeIt) {
  auto job =
      DecodeKubePodGroup(PodGroup(json::parse(R"([
        {"name": "gpus", "resourceClaimName": "shared-gpus"},
        {"name": "nics", "resourceClaimTemplateName": "nic-template"},
        {"name": "fpga", "resourceClaimTemplateName": "fpga-template"}])"),
                                  json::parse(R"({"resourceClaimStatuses": [
        {"name": "nics", "resourceClaimName": "train-nics-4xz9q"}]})")),
                         nullptr);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->unsupported_field, "");  // spec.resourceClaims is read
  ASSERT_EQ(job->group_claims.size(), 3u);
  EXPECT_EQ(job->group_claims[0].claim, "shared-gpus");
  EXPECT_EQ(job->group_claims[1].claim, "train-nics-4xz9q");
  EXPECT_EQ(job->group_claims[1].template_name, "nic-template");
  EXPECT_EQ(job->group_claims[2].claim, "");  // not made yet
}

TEST(PodGroupClaims, AMalformedEntryIsRefusedByField) {
  auto both = DecodeKubePodGroup(
      PodGroup(json::parse(R"([{"name": "gpus", "resourceClaimName": "a",
                                 "resourceClaimTemplateName": "b"}])")),
      nullptr);
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().message(),
            "podgroup ml/train: spec.resourceClaims[0]: must name exactly one "
            "of resourceClaimName and resourceClaimTemplateName");
  auto unnamed = DecodeKubePodGroup(
      PodGroup(json::parse(R"([{"resourceClaimName": "a"}])")), nullptr);
  ASSERT_FALSE(unnamed.ok());
  EXPECT_EQ(unnamed.status().message(),
            "podgroup ml/train: spec.resourceClaims[0].name: must not be "
            "empty");
}

TEST(PodGroupClaims, AReservationForThePodGroupIsReadAndWritten) {
  api::ClaimConsumer group{"podgroups", "train", "pg-uid", "scheduling.k8s.io"};
  EXPECT_EQ(ConsumerJson(group), json::parse(R"({"apiGroup":
      "scheduling.k8s.io", "resource": "podgroups", "name": "train",
      "uid": "pg-uid"})"));
  EXPECT_FALSE(ConsumerJson({"pods", "p", "u"}).contains("apiGroup"));
}

}  // namespace
}  // namespace shoal::kube
