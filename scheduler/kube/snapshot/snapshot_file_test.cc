#include "scheduler/kube/snapshot/snapshot_file.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace shoal::kube {
namespace {

constexpr char kCluster[] = R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata:
    name: lone
    namespace: default
  spec:
    schedulerName: shoal
    priorityClassName: urgent
    containers: [{name: c, resources: {requests: {cpu: 1}}}]
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: urgent}
value: 500
---
apiVersion: v1
kind: Pod
metadata:
  name: member-0
  namespace: default
  annotations: {scheduling.k8s.io/group-name: ghost}
spec:
  schedulerName: shoal
  containers: [{name: c}]
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  nodeName: n1
  containers: [{name: c, resources: {requests: {cpu: 3}}}]
status: {phase: Running}
)";

TEST(SnapshotFileTest, LoadsListsAndDocumentsIntoAConsistentCluster) {
  cache::Cache cache("shoal");
  std::vector<std::string> warnings;
  ASSERT_TRUE(LoadSnapshot(kCluster, "c.yaml", cache, &warnings).ok());
  EXPECT_TRUE(warnings.empty());
  api::ClusterInfo c = cache.Snapshot();
  ASSERT_EQ(c.nodes.size(), 1u);
  // The other scheduler's pod takes 3 of the node's 4 cpus.
  EXPECT_EQ(c.nodes[0].idle().Get(api::kCpu), 1000);
  ASSERT_EQ(c.jobs.size(), 2u);
  const api::JobInfo* lone = nullptr;
  const api::JobInfo* ghost = nullptr;
  for (const auto& j : c.jobs) (j.name == "lone" ? lone : ghost) = &j;
  ASSERT_TRUE(lone && ghost);
  EXPECT_EQ(lone->source, api::GroupSource::kSinglePod);
  EXPECT_EQ(c.tasks[lone->tasks[0]].pod->priority, 500);  // from its class
  EXPECT_TRUE(ghost->group_missing);
  EXPECT_EQ(c.FindQueue("default"), 0);  // implicit
}

TEST(SnapshotFileTest, ErrorsNameFileLineObjectAndFieldAndLoadNothing) {
  cache::Cache cache("shoal");
  std::vector<std::string> warnings;
  std::string bad = std::string(kCluster) +
                    "---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\n"
                    "status: {allocatable: {cpu: lots}}\n";
  auto s = LoadSnapshot(bad, "c.yaml", cache, &warnings);
  // Line 41 is where the bad Node document begins.
  EXPECT_EQ(std::string(s.message()).substr(0, 10), "c.yaml:41:");
  EXPECT_EQ(s.message(),
            "c.yaml:41: node n2: status.allocatable.cpu: quantity \"lots\" is "
            "malformed: it "
            "has no digits (expected forms like \"500m\", \"2\", \"1.5Gi\", "
            "\"2G\", \"1e3\")");
  EXPECT_TRUE(cache.Snapshot().nodes.empty());
  EXPECT_EQ(LoadSnapshot("kind: [\n", "x.yaml", cache, &warnings)
                .message()
                .substr(0, 27),
            "x.yaml:2:1: malformed YAML:");
  EXPECT_EQ(LoadSnapshot("metadata: {name: a}\n", "x.yaml", cache, &warnings)
                .message(),
            "x.yaml:1: not a Kubernetes object: it has no \"kind\"");
  EXPECT_EQ(LoadSnapshotFile("/nonexistent.yaml", cache, &warnings).message(),
            "/nonexistent.yaml: cannot read the snapshot file");
}

// Found by tools/fuzz (snapshot_fuzzer): on a "," after a document (a JSON
// file with a trailing comma) yaml-cpp's LoadAll never returned, making
// empty documents until memory ran out.
TEST(SnapshotFileTest, TextAfterTheLastDocumentIsRefusedNotAHang) {
  cache::Cache cache("shoal");
  std::vector<std::string> warnings;
  EXPECT_EQ(LoadSnapshot("{\"kind\": \"List\", \"items\": []},\n", "c.json",
                         cache, &warnings)
                .message(),
            "c.json:1:30: malformed JSON: The document root must not be "
            "followed by other values.");
  EXPECT_EQ(LoadSnapshot("kind: List\nitems: []\n---\n,\n", "c.yaml", cache,
                         &warnings)
                .message(),
            "c.yaml:4:1: malformed YAML: unexpected text after the end of a "
            "document");
}

// Found while fuzzing (a long scalar, beyond the fuzzer's input size):
// telling numbers from text used std::regex_match, which recursed once per
// character and overflowed the stack on some 30,000 digits.
TEST(SnapshotFileTest, AVeryLongNumberIsReadWithoutOverflowingTheStack) {
  cache::Cache cache("shoal");
  std::vector<std::string> warnings;
  // Too long for an int64, so it stays text, as a label value must be.
  const std::string digits(200000, '7');
  absl::Status s = LoadSnapshot(
      absl::StrCat("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n"
                   "  labels: {zone: ",
                   digits, "}\n"),
      "c.yaml", cache, &warnings);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(cache.Snapshot().nodes.size(), 1u);
}

// Found by tools/fuzz (snapshot_fuzzer): a string that is not UTF-8 (YAML
// passes raw bytes through) reached a decoder, whose refusal dumps the
// value, and nlohmann::json threw; the exception ended the process.
TEST(SnapshotFileTest, InvalidUtf8IsRefusedWhereItIs) {
  cache::Cache cache("shoal");
  std::vector<std::string> warnings;
  EXPECT_EQ(LoadSnapshot("kind: Node\nmetadata:\n  name: [\"a\xff\"]\n",
                         "c.yaml", cache, &warnings)
                .message(),
            "c.yaml:3: a string is not valid UTF-8");
  EXPECT_EQ(LoadSnapshot("kind: Node\nmetadata:\n  \xc3: n1\n", "c.yaml", cache,
                         &warnings)
                .message(),
            "c.yaml:3: a key is not valid UTF-8");
}

// Found by tools/fuzz (snapshot_fuzzer): an alias inside its own anchor
// made an endless node graph, and converting it overflowed the stack;
// nested aliases ("billion laughs") would take time and memory without
// bound. Ordinary aliases, as Python's YAML dumper writes them, load.
TEST(SnapshotFileTest, AliasesThatExpandWithoutBoundAreRefused) {
  cache::Cache cache("shoal");
  std::vector<std::string> warnings;
  EXPECT_EQ(
      LoadSnapshot("kind: Node\nmetadata: {name: n1}\nstatus:\n"
                   "  capacity: &a\n    cpu: '1'\n    more: *a\n",
                   "c.yaml", cache, &warnings)
          .message(),
      "c.yaml:6: malformed YAML: an alias names no complete anchor before "
      "it (an alias inside its own anchor?)");
  std::string laughs = "kind: Node\nmetadata: {name: n1}\nl0: &l0 [x, x]\n";
  for (int i = 1; i < 30; ++i) {
    laughs +=
        absl::StrCat("l", i, ": &l", i, " [*l", i - 1, ", *l", i - 1, "]\n");
  }
  EXPECT_EQ(LoadSnapshot(laughs, "c.yaml", cache, &warnings).message(),
            "c.yaml:17:12: malformed YAML: aliases expand to too many nodes");
  warnings.clear();
  absl::Status s = LoadSnapshot(
      "kind: Node\nmetadata: {name: n1}\nstatus:\n"
      "  capacity: &a {cpu: '1'}\n  allocatable: *a\n",
      "c.yaml", cache, &warnings);
  EXPECT_TRUE(s.ok()) << s;
}

// A field of the wrong type anywhere is refused by name, never a crash
// (issue 11 found 13 of 300 damaged files aborting the process).
TEST(SnapshotFileTest, WrongTypesAreRefusedByName) {
  cache::Cache cache("shoal");
  std::vector<std::string> warnings;
  EXPECT_EQ(
      LoadSnapshot("kind: Node\nmetadata: {name: n}\n"
                   "status: {conditions: [{type: Ready, status: 7}]}\n",
                   "x.yaml", cache, &warnings)
          .message(),
      "x.yaml:1: node n: status.conditions[0].status: must be a string, got 7");
  EXPECT_EQ(
      LoadSnapshot(
          "apiVersion: null\nkind: Pod\nmetadata: {name: p, namespace: d}\n",
          "x.yaml", cache, &warnings)
          .message(),
      "x.yaml:1: Pod d/p: apiVersion: must be a string, got null");
  EXPECT_EQ(
      LoadSnapshot("kind: true\nitems: []\n", "x.yaml", cache, &warnings)
          .message(),
      "x.yaml:1: not a Kubernetes object: kind: must be a string, got true");
}

TEST(SnapshotFileTest, AssumedBindsHoldUntilConfirmed) {
  cache::Cache cache("shoal");
  std::vector<std::string> warnings;
  ASSERT_TRUE(LoadSnapshot(kCluster, "c.yaml", cache, &warnings).ok());
  cache.AssumeBound("default/lone", "n1");
  api::ClusterInfo c = cache.Snapshot();
  EXPECT_EQ(c.nodes[0].idle().Get(api::kCpu), 0);
  EXPECT_EQ(cache.AssumedCount(), 1);
  cache.ForgetAssumed("default/lone");
  EXPECT_EQ(cache.Snapshot().nodes[0].idle().Get(api::kCpu), 1000);
}

}  // namespace
}  // namespace shoal::kube
