#include "scheduler/kube/stream/yaml_stream.h"

#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/kube/stream/yaml_json.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

struct Read {
  std::vector<json> objects;
  std::vector<int> lines;
  absl::Status status;
};

Read ReadAll(const std::string& text) {
  Read r;
  std::istringstream in(text);
  auto docs = ReadYamlObjects(in, [&r](json o, int line) {
    r.objects.push_back(std::move(o));
    r.lines.push_back(line);
    return absl::OkStatus();
  });
  r.status = docs.status();
  return r;
}

TEST(YamlStreamTest, HandsOnDocumentsAndListItemsWithTheirLines) {
  Read r = ReadAll(R"(---
kind: Node
metadata: {name: a}
---
---
apiVersion: v1
kind: List
items:
- kind: Pod
  metadata: {name: p}
- kind: Pod
  metadata: {name: q}
)");
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.objects.size(), 3u);
  EXPECT_EQ(r.lines, (std::vector<int>{2, 9, 11}));
  EXPECT_EQ(r.objects[2]["metadata"]["name"], "q");
}

TEST(YamlStreamTest, TypesScalarsAsTheTreeReaderDoes) {
  const std::string text = R"(kind: X
quoted: "42"
int: 42
negative: -7
float: 0.5
quantity: 1e3
big: 123456789012345678901234567890
yes: true
no: False
nothing: ~
empty:
text: plain words
)";
  Read r = ReadAll(text);
  ASSERT_TRUE(r.status.ok()) << r.status;
  auto docs = ParseYamlDocuments(text, "x.yaml");
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ(r.objects[0], (*docs)[0].value);
  EXPECT_EQ(r.objects[0]["quoted"], "42");
  EXPECT_EQ(r.objects[0]["int"], 42);
  EXPECT_EQ(r.objects[0]["float"], "0.5");
  EXPECT_TRUE(r.objects[0]["empty"].is_null());
}

TEST(YamlStreamTest, AVeryLongNumberIsTextNotAStackOverflow) {
  Read r = ReadAll("kind: X\nn: " + std::string(100000, '7') + "\n");
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.objects[0]["n"], std::string(100000, '7'));
}

TEST(YamlStreamTest, AliasesReplayWhatTheirAnchorHeld) {
  const std::string text = R"(kind: X
base: &res {cpu: "1", memory: 2Gi, nested: [a, {b: c}]}
copy: *res
name: &n shared
again: *n
list:
- &item {k: v}
- *item
)";
  Read r = ReadAll(text);
  ASSERT_TRUE(r.status.ok()) << r.status;
  auto docs = ParseYamlDocuments(text, "x.yaml");
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ(r.objects[0], (*docs)[0].value);
  EXPECT_EQ(r.objects[0]["copy"], r.objects[0]["base"]);
  EXPECT_EQ(r.objects[0]["again"], "shared");
}

TEST(YamlStreamTest, LeavesOutTheBulkAsTheJsonReaderDoes) {
  Read r = ReadAll(R"(kind: Pod
metadata:
  name: p
  managedFields: [{manager: kubectl}]
  labels: {env: prod}
spec:
  containers:
  - name: c
    env: [{name: A, value: "1"}]
    resources: {requests: {cpu: "1"}}
)");
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.objects[0], json::parse(R"({"kind": "Pod",
      "metadata": {"name": "p", "labels": {"env": "prod"}},
      "spec": {"containers": [{"name": "c",
          "resources": {"requests": {"cpu": "1"}}}]}})"));
}

TEST(YamlStreamTest, RefusalsSayWhere) {
  EXPECT_EQ(ReadAll("kind: X\n  bad: [\n").status.message(),
            "2:6: malformed YAML: illegal map value");
  EXPECT_EQ(ReadAll("kind: X\n? [a, b]\n: c\n").status.message(),
            "2: a mapping key must be text, not a list or map");
  // Bytes that are not UTF-8 never reach a tree (yaml-cpp replaces them,
  // or the tree refuses them): whatever is kept prints.
  Read raw = ReadAll("kind: X\nname: a\xff\xfe\n");
  if (raw.status.ok()) {
    EXPECT_NO_THROW(raw.objects[0].dump());
  } else {
    EXPECT_EQ(raw.status.message(), "2: a string is not valid UTF-8");
  }
}

// yaml-cpp 0.7 yields empty documents forever after a stray ",".
TEST(YamlStreamTest, TextAfterTheLastDocumentIsRefusedNotAHang) {
  EXPECT_EQ(ReadAll("kind: List\nitems: []\n---\n,\n").status.message(),
            "4:1: malformed YAML: unexpected text after the end of a document");
  EXPECT_EQ(ReadAll("{},\n").status.message(),
            "1:3: malformed YAML: unexpected text after the end of a document");
}

TEST(YamlStreamTest, AHandlersErrorStopsTheReading) {
  std::istringstream in("items:\n- {n: 1}\n- {n: 2}\n- {n: 3}\n");
  int seen = 0;
  auto r = ReadYamlObjects(in, [&seen](json o, int) {
    ++seen;
    if (o["n"] == 2) return absl::InvalidArgumentError("no twos");
    return absl::OkStatus();
  });
  EXPECT_EQ(r.status().message(), "no twos");
  EXPECT_EQ(seen, 2);
}

}  // namespace
}  // namespace shoal::kube
