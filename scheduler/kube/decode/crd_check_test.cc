#include "scheduler/kube/decode/crd_check.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/kube/stream/yaml_json.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

// The CRDs of a manifest file, by name.
std::map<std::string, json> Crds(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto docs = ParseYamlDocuments(text.str(), path);
  EXPECT_TRUE(docs.ok()) << docs.status();
  std::map<std::string, json> out;
  if (!docs.ok()) return out;
  for (const YamlDocument& d : *docs) {
    if (d.value.value("kind", "") == "CustomResourceDefinition")
      out[d.value["metadata"]["name"].get<std::string>()] = d.value;
  }
  return out;
}

std::vector<std::string> Paths(const std::vector<PrunedField>& pruned) {
  std::vector<std::string> out;
  for (const PrunedField& p : pruned) out.push_back(p.path);
  return out;
}

TEST(CrdCheckTest, ShoalsCrdsKeepEveryField) {
  std::map<std::string, json> crds = Crds("conf/crds.yaml");
  ASSERT_EQ(crds.size(), 4u);
  for (const auto& [name, crd] : crds) {
    EXPECT_TRUE(PrunedFields(crd).empty())
        << name << ": " << PrunedFields(crd).front().message;
  }
}

// Volcano's CRDs as the e2e suite installs them declare networkTopology
// and parent, not subGroupPolicy nor a Queue's priority.
TEST(CrdCheckTest, VolcanosCrdsAsTheE2eSuiteInstallsThem) {
  std::map<std::string, json> crds = Crds("e2e/live/crds/volcano-crds.yaml");
  ASSERT_EQ(crds.size(), 3u);
  EXPECT_EQ(Paths(PrunedFields(crds.at("podgroups.scheduling.volcano.sh"))),
            std::vector<std::string>{"spec.subGroupPolicy"});
  EXPECT_EQ(Paths(PrunedFields(crds.at("queues.scheduling.volcano.sh"))),
            std::vector<std::string>{"spec.priority"});
  EXPECT_TRUE(PrunedFields(crds.at("hypernodes.topology.volcano.sh")).empty());
}

// Volcano's CRDs before networkTopology and parent were declared (v1.7):
// the same CRDs with those properties taken out.
TEST(CrdCheckTest, AnOlderVolcanoCrdPrunesNetworkTopologyAndParent) {
  std::map<std::string, json> crds = Crds("e2e/live/crds/volcano-crds.yaml");
  json pg = crds.at("podgroups.scheduling.volcano.sh");
  json& spec_schema = pg["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
                        ["properties"]["spec"];
  ASSERT_TRUE(spec_schema["properties"].contains("networkTopology"));
  spec_schema["properties"].erase("networkTopology");
  const std::vector<PrunedField> pruned = PrunedFields(pg);
  EXPECT_EQ(Paths(pruned), (std::vector<std::string>{"spec.networkTopology",
                                                     "spec.subGroupPolicy"}));
  ASSERT_EQ(pruned.size(), 2u);
  EXPECT_EQ(pruned[0].message,
            "CustomResourceDefinition podgroups.scheduling.volcano.sh: the "
            "schema of v1beta1 has no spec.networkTopology, so the API server "
            "drops it from every PodGroup before Shoal reads it (the gang's "
            "network topology: a hard gang spreads over domains); install "
            "Shoal's CRDs (kubectl apply -f conf/crds.yaml) or a newer "
            "release's CRD that declares it");
  json queue = crds.at("queues.scheduling.volcano.sh");
  queue["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
       ["spec"]["properties"]
           .erase("parent");
  EXPECT_EQ(Paths(PrunedFields(queue)),
            (std::vector<std::string>{"spec.priority", "spec.parent"}));
  // Preserving unknown fields under spec keeps them, declared or not.
  queue["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
       ["spec"]["x-kubernetes-preserve-unknown-fields"] = true;
  EXPECT_TRUE(PrunedFields(queue).empty());
}

TEST(CrdCheckTest, AVersionShoalReadsThatIsNotServedIsSaid) {
  std::map<std::string, json> crds = Crds("conf/crds.yaml");
  json pg = crds.at("podgroups.scheduling.x-k8s.io");
  pg["spec"]["versions"][0]["served"] = false;
  const std::vector<PrunedField> pruned = PrunedFields(pg);
  ASSERT_EQ(pruned.size(), 1u);
  EXPECT_EQ(pruned[0].message,
            "CustomResourceDefinition podgroups.scheduling.x-k8s.io: does not "
            "serve v1alpha1, the version Shoal reads: no PodGroup of it is "
            "seen; install Shoal's CRDs (kubectl apply -f conf/crds.yaml) or "
            "a newer release's CRD that declares it");
}

TEST(CrdCheckTest, OtherCrdsAreNotShoals) {
  json other = {{"apiVersion", "apiextensions.k8s.io/v1"},
                {"kind", "CustomResourceDefinition"},
                {"metadata", {{"name", "jobs.batch.volcano.sh"}}},
                {"spec", {{"versions", json::array()}}}};
  EXPECT_TRUE(PrunedFields(other).empty());
  EXPECT_TRUE(PrunedFields(json("not an object")).empty());
  // Malformed where the API server would never let it be: nothing thrown.
  json odd = {{"metadata", {{"name", "queues.scheduling.volcano.sh"}}},
              {"spec", {{"versions", {{{"name", 3}, {"served", "yes"}}}}}}};
  EXPECT_EQ(PrunedFields(odd).size(), 1u);  // v1beta1 is not served
}

TEST(CrdCheckTest, SchemaKeepsFollowsPropertiesAndPreservation) {
  const json schema = json::parse(R"({
    "type": "object",
    "properties": {
      "spec": {"type": "object", "properties": {
        "a": {"type": "object", "properties": {"b": {"type": "string"}}},
        "m": {"type": "object", "additionalProperties": {"type": "integer"}},
        "open": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
      }}}})");
  EXPECT_TRUE(SchemaKeeps(schema, "spec.a.b"));
  EXPECT_FALSE(SchemaKeeps(schema, "spec.a.c"));
  EXPECT_FALSE(SchemaKeeps(schema, "spec.z"));
  EXPECT_TRUE(SchemaKeeps(schema, "spec.m.anything"));
  EXPECT_TRUE(SchemaKeeps(schema, "spec.open.x.y"));
}

}  // namespace
}  // namespace shoal::kube
