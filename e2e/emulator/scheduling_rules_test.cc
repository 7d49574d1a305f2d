// The emulator refuses the gang objects kube-apiserver refuses
// (scheduling_rules.h), with the real server's Status.
#include "e2e/emulator/scheduling_rules.h"

#include <memory>
#include <string>

#include "e2e/emulator/emulator_test_fixture.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"

namespace shoal::emulator {
namespace {

using nlohmann::json;

constexpr char kApis[] = "/apis/scheduling.k8s.io/";

class SchedulingRulesTest : public EmulatorTest {
 protected:
  // POSTs `kind` (plural `resource`) of `version` named `name` with
  // `spec`; the answer's code and body.
  json Create(const std::string& version, const std::string& resource,
              const std::string& kind, const std::string& name,
              const json& spec, int* code) {
    const json object = {
        {"apiVersion", "scheduling.k8s.io/" + version},
        {"kind", kind},
        {"metadata", {{"name", name}, {"namespace", "default"}}},
        {"spec", spec}};
    return Call(
        "POST",
        std::string(kApis) + version + "/namespaces/default/" + resource,
        object, code);
  }
};

const json kWorkloadRef = {{"workloadName", "train"}, {"templateName", "leaf"}};

TEST_F(SchedulingRulesTest, AGangTemplateWithoutMinCountIsRefusedAs136Did) {
  // What kube-apiserver 1.36.3 answered (../shared/fixtures/k8s-1.36.3/
  // 20-workload-invalid.json), field by field.
  int code = 0;
  json status = Create("v1alpha2", "workloads", "Workload", "bad",
                       {{"podGroupTemplates",
                         {{{"name", "workers"},
                           {"schedulingPolicy", {{"gang", json::object()}}}}}}},
                       &code);
  EXPECT_EQ(code, 422);
  EXPECT_EQ(status["reason"], "Invalid");
  EXPECT_EQ(status["message"],
            "Workload.scheduling.k8s.io \"bad\" is invalid: "
            "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: "
            "Required value");
  EXPECT_EQ(status["details"]["group"], "scheduling.k8s.io");
  EXPECT_EQ(status["details"]["kind"], "Workload");
  EXPECT_EQ(status["details"]["causes"],
            json::parse(R"([{"reason": "FieldValueRequired",
                             "message": "Required value",
                             "field": "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount"}])"));
}

TEST_F(SchedulingRulesTest, ACompositePodGroupNeedsItsWorkloadAndACountOfOne) {
  int code = 0;
  json status =
      Create("v1alpha3", "compositepodgroups", "CompositePodGroup", "root",
             {{"schedulingPolicy", {{"gang", {{"minGroupCount", 0}}}}}}, &code);
  EXPECT_EQ(code, 422);
  EXPECT_EQ(status["message"],
            "CompositePodGroup.scheduling.k8s.io \"root\" is invalid: "
            "[spec.workloadRef: Required value, "
            "spec.schedulingPolicy.gang.minGroupCount: Invalid value: 0: must "
            "be greater than or equal to 1]");
  // A nested composite template's count, too.
  status =
      Create("v1alpha3", "workloads", "Workload", "tree",
             {{"compositePodGroupTemplates",
               {{{"name", "root"},
                 {"schedulingPolicy", {{"gang", json::object()}}},
                 {"podGroupTemplates",
                  {{{"name", "leaf"},
                    {"schedulingPolicy", {{"gang", {{"minCount", 0}}}}}}}}}}}},
             &code);
  EXPECT_EQ(code, 422);
  EXPECT_EQ(status["message"],
            "Workload.scheduling.k8s.io \"tree\" is invalid: "
            "[spec.compositePodGroupTemplates[0].schedulingPolicy.gang."
            "minGroupCount: Required value, "
            "spec.compositePodGroupTemplates[0].podGroupTemplates[0]."
            "schedulingPolicy.gang.minCount: Invalid value: 0: must be "
            "greater than or equal to 1]");

  Create("v1alpha3", "compositepodgroups", "CompositePodGroup", "root",
         {{"workloadRef", kWorkloadRef},
          {"schedulingPolicy", {{"gang", {{"minGroupCount", 2}}}}}},
         &code);
  EXPECT_EQ(code, 201);
}

TEST_F(SchedulingRulesTest, APodGroupWithAParentMustNameItsWorkload) {
  int code = 0;
  json status = Create("v1beta1", "podgroups", "PodGroup", "leaf",
                       {{"parentCompositePodGroupName", "root"},
                        {"schedulingPolicy", {{"gang", {{"minCount", 4}}}}}},
                       &code);
  EXPECT_EQ(code, 422);
  EXPECT_EQ(status["message"],
            "PodGroup.scheduling.k8s.io \"leaf\" is invalid: "
            "spec.workloadRef: Required value: must be specified when "
            "`parentCompositePodGroupName` is set");
  EXPECT_EQ(status["details"]["causes"][0]["reason"], "FieldValueRequired");
  // Standalone, it needs none.
  Create("v1beta1", "podgroups", "PodGroup", "alone",
         {{"schedulingPolicy", {{"gang", {{"minCount", 4}}}}}}, &code);
  EXPECT_EQ(code, 201);
  Create("v1beta1", "podgroups", "PodGroup", "leaf",
         {{"parentCompositePodGroupName", "root"},
          {"workloadRef", kWorkloadRef},
          {"schedulingPolicy", {{"gang", {{"minCount", 4}}}}}},
         &code);
  EXPECT_EQ(code, 201);
}

TEST_F(SchedulingRulesTest, AGroupNamesAtMostOneTopologyKey) {
  int code = 0;
  json status = Create("v1beta1", "podgroups", "PodGroup", "racks",
                       {{"schedulingPolicy", {{"gang", {{"minCount", 2}}}}},
                        {"schedulingConstraints",
                         {{"topology",
                           {{{"key", "topology.kubernetes.io/rack"}},
                            {{"key", "topology.kubernetes.io/zone"}}}}}}},
                       &code);
  EXPECT_EQ(code, 422);
  EXPECT_EQ(status["message"],
            "PodGroup.scheduling.k8s.io \"racks\" is invalid: "
            "spec.schedulingConstraints.topology: Too many: 2: must have at "
            "most 1 items");
  EXPECT_EQ(status["details"]["causes"][0]["reason"], "FieldValueTooMany");
}

TEST_F(SchedulingRulesTest, AnUpdateIsHeldToTheSameRules) {
  int code = 0;
  Create("v1beta1", "podgroups", "PodGroup", "g",
         {{"schedulingPolicy", {{"gang", {{"minCount", 2}}}}}}, &code);
  ASSERT_EQ(code, 201);
  const json patch = {
      {"spec", {{"schedulingPolicy", {{"gang", {{"minCount", 0}}}}}}}};
  httplib::Result r = client_->Patch(
      std::string(kApis) + "v1beta1/namespaces/default/podgroups/g",
      patch.dump(), "application/merge-patch+json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 422);
  EXPECT_EQ(json::parse(r->body)["message"],
            "PodGroup.scheduling.k8s.io \"g\" is invalid: "
            "spec.schedulingPolicy.gang.minCount: Invalid value: 0: must be "
            "greater than or equal to 1");
}

}  // namespace
}  // namespace shoal::emulator
