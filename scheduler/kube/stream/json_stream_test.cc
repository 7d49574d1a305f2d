#include "scheduler/kube/stream/json_stream.h"

#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

struct Read {
  std::vector<json> objects;
  std::vector<int> lines;
  JsonEnvelope envelope;
};

Read ReadAll(const std::string& text) {
  Read r;
  JsonSource source = JsonSource::Text(text);
  auto envelope = ReadJsonObjects(source, [&r](json o, int line) {
    r.objects.push_back(std::move(o));
    r.lines.push_back(line);
    return absl::OkStatus();
  });
  EXPECT_TRUE(envelope.ok()) << envelope.status();
  if (envelope.ok()) r.envelope = *envelope;
  return r;
}

absl::Status ReadError(const std::string& text) {
  JsonSource source = JsonSource::Text(text);
  return ReadJsonObjects(source, [](json, int) { return absl::OkStatus(); })
      .status();
}

TEST(JsonStreamTest, HandsOnEachItemOfAListWithItsLine) {
  Read r = ReadAll(R"({
  "apiVersion": "v1",
  "items": [
    {"kind": "Node", "metadata": {"name": "a"}},
    {"kind": "Pod",
     "metadata": {"name": "p"}}
  ],
  "kind": "PodList",
  "metadata": {"resourceVersion": "42", "continue": "next"}
})");
  ASSERT_EQ(r.objects.size(), 2u);
  EXPECT_EQ(r.objects[0],
            json::parse(R"({"kind":"Node","metadata":{"name":"a"}})"));
  EXPECT_EQ(r.lines, (std::vector<int>{4, 5}));
  EXPECT_TRUE(r.envelope.had_items);
  EXPECT_EQ(r.envelope.fields,
            json::parse(R"({"apiVersion":"v1","kind":"PodList",
                "metadata":{"resourceVersion":"42","continue":"next"}})"));
}

TEST(JsonStreamTest, AListsHeadIsReadWithoutItsItems) {
  // kube-apiserver's order: the continue token comes before the items.
  auto head = ReadListHead(
      R"({"kind":"PodList","apiVersion":"v1",)"
      R"("metadata":{"resourceVersion":"7","continue":"abc"},)"
      R"("items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}, oops)");
  ASSERT_TRUE(head.ok()) << head.status();  // never read as far as "oops"
  EXPECT_EQ(*head, json::parse(R"({"kind":"PodList","apiVersion":"v1",)"
                               R"("metadata":{"resourceVersion":"7",)"
                               R"("continue":"abc"}})"));
  // Members after the items are not seen; a list without items is read
  // whole.
  head = ReadListHead(R"({"items":[{}],"metadata":{"continue":"x"}})");
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(*head, json::object());
  head = ReadListHead(R"({"kind":"PodList","items":[]})");
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(*head, json::parse(R"({"kind":"PodList"})"));
  EXPECT_EQ(ReadListHead(R"({"kind":)").status().message(),
            "1:9: malformed JSON: Invalid value.");
}

TEST(JsonStreamTest, AnObjectThatIsNotAListIsHandedOnWhole) {
  Read r =
      ReadAll("\n\n  {\"kind\": \"Pod\", \"spec\": {\"nodeName\": \"n\"}}");
  ASSERT_EQ(r.objects.size(), 1u);
  EXPECT_EQ(r.lines, (std::vector<int>{3}));
  EXPECT_EQ(r.objects[0]["spec"]["nodeName"], "n");
  EXPECT_FALSE(r.envelope.had_items);
}

TEST(JsonStreamTest, LeavesOutWhatNoDecoderReadsAndKeepsTheRest) {
  Read r = ReadAll(R"({"kind": "List", "items": [{
    "kind": "Pod",
    "metadata": {
      "name": "p",
      "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}],
      "labels": {"env": "prod", "image": "x", "managedFields": "kept"},
      "annotations": {
        "kubectl.kubernetes.io/last-applied-configuration": "{\"huge\": 1}",
        "scheduling.k8s.io/group-name": "g"
      }
    },
    "spec": {
      "nodeSelector": {"command": "kept"},
      "containers": [{
        "name": "c",
        "image": "busybox",
        "command": ["sh"], "args": ["-c"],
        "env": [{"name": "A", "value": "1"}],
        "livenessProbe": {"exec": {"command": ["true"]}},
        "volumeMounts": [{"name": "v", "mountPath": "/v"}],
        "resources": {"requests": {"cpu": "1"}},
        "ports": [{"containerPort": 80, "hostPort": 8080}]
      }],
      "env": "kept: not a container's"
    },
    "status": {
      "phase": "Running",
      "conditions": [{"type": "Ready", "status": "True"}],
      "containerStatuses": [{"name": "c", "ready": true}]
    }
  }]})");
  ASSERT_EQ(r.objects.size(), 1u);
  EXPECT_EQ(r.objects[0], json::parse(R"({
    "kind": "Pod",
    "metadata": {
      "name": "p",
      "labels": {"env": "prod", "image": "x", "managedFields": "kept"},
      "annotations": {"scheduling.k8s.io/group-name": "g"}
    },
    "spec": {
      "nodeSelector": {"command": "kept"},
      "containers": [{
        "name": "c",
        "resources": {"requests": {"cpu": "1"}},
        "ports": [{"containerPort": 80, "hostPort": 8080}]
      }],
      "env": "kept: not a container's"
    },
    "status": {
      "phase": "Running",
      "conditions": [{"type": "Ready", "status": "True"}]
    }
  })"));
}

TEST(JsonStreamTest, NumbersAreReadAsNlohmannReadsThem) {
  Read r = ReadAll(
      R"({"kind": "X", "i": -3, "u": 18446744073709551615, "f": 0.5,
          "e": 1e3, "big": 123456789012345678901234567890})");
  ASSERT_EQ(r.objects.size(), 1u);
  const json& o = r.objects[0];
  EXPECT_TRUE(o["i"].is_number_integer());
  EXPECT_EQ(o["i"], -3);
  EXPECT_TRUE(o["u"].is_number_unsigned());
  EXPECT_EQ(o["u"].get<uint64_t>(), 18446744073709551615ull);
  EXPECT_TRUE(o["f"].is_number_float());
  EXPECT_EQ(o["f"], 0.5);
  EXPECT_EQ(o["e"], 1000.0);
  EXPECT_TRUE(o["big"].is_number_float());
  EXPECT_EQ(o, json::parse(R"({"kind": "X", "i": -3, "u": 18446744073709551615,
      "f": 0.5, "e": 1e3, "big": 123456789012345678901234567890})"));
}

TEST(JsonStreamTest, MalformedJsonIsNamedWithLineAndColumn) {
  EXPECT_EQ(ReadError("{\n  \"kind\": \"Pod\"\n  \"x\": 1\n}").message(),
            "3:3: malformed JSON: Missing a comma or '}' after an object "
            "member.");
  EXPECT_EQ(ReadError("").message(),
            "1:1: malformed JSON: The document is empty.");
  EXPECT_EQ(ReadError("{\"items\": [{\"kind\": \"Pod\"}").message(),
            "1:27: malformed JSON: Missing a comma or ']' after an array "
            "element.");
}

TEST(JsonStreamTest, TextThatIsNotUtf8IsRefusedWhereItIsKept) {
  EXPECT_EQ(ReadError("{\"kind\": \"P\xc3\x28\"}").message(),
            "1: a string is not valid UTF-8");
  EXPECT_EQ(ReadError("{\"k\xff\": 1}").message(),
            "1: a key is not valid UTF-8");
  // Overlong and surrogate forms are not UTF-8 either.
  EXPECT_FALSE(ReadError("{\"a\": \"\xc0\xaf\"}").ok());
  EXPECT_FALSE(ReadError("{\"a\": \"\xed\xa0\x80\"}").ok());
  // Multi-byte text is fine.
  EXPECT_TRUE(
      ReadError("{\"a\": \"h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x90\x9f\"}")
          .ok());
  // What is left out is never read, so never checked.
  EXPECT_TRUE(ReadError("{\"metadata\": {\"managedFields\": \"\xff\"}}").ok());
}

TEST(JsonStreamTest, NestingDeeperThanAnyObjectIsRefusedNotAStackOverflow) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(ReadError(deep).message(), "1: nested deeper than 512 levels");
  EXPECT_TRUE(ReadError(std::string(100, '[') + std::string(100, ']')).ok());
}

TEST(JsonStreamTest, AHandlersErrorStopsTheReadingAndIsReturned) {
  JsonSource source =
      JsonSource::Text(R"({"items": [{"n": 1}, {"n": 2}, {"n": 3}]})");
  int seen = 0;
  auto r = ReadJsonObjects(source, [&seen](json o, int) {
    ++seen;
    if (o["n"] == 2) return absl::InvalidArgumentError("no twos");
    return absl::OkStatus();
  });
  EXPECT_EQ(r.status().message(), "no twos");
  EXPECT_EQ(seen, 2);
}

TEST(JsonStreamTest, AFileIsReadInBlocksWithLinesCountedAcrossThem) {
  // Items spread over several 64 KiB blocks, each on its own line.
  std::string text = "{\"kind\": \"List\", \"items\": [\n";
  const std::string pad(1000, ' ');
  for (int i = 0; i < 300; ++i) {
    text += (i ? ",\n" : "") + pad + "{\"n\": " + std::to_string(i) + "}";
  }
  text += "\n]}\n";
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  std::fwrite(text.data(), 1, text.size(), f);
  std::rewind(f);
  JsonSource source = JsonSource::File(f);
  std::vector<int> lines;
  int n = 0;
  auto r = ReadJsonObjects(source, [&](json o, int line) {
    EXPECT_EQ(o["n"], n++);
    lines.push_back(line);
    return absl::OkStatus();
  });
  std::fclose(f);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(lines.size(), 300u);
  for (int i = 0; i < 300; ++i) EXPECT_EQ(lines[i], i + 2);
}

TEST(JsonStreamTest, AWatchEventGivesItsTypeAndTheObjectWithoutTheBulk) {
  auto e = ReadWatchEvent(
      R"({"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"p",)"
      R"("managedFields":[{"manager":"m"}]}}})");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->type, "MODIFIED");
  EXPECT_EQ(e->object,
            json::parse(R"({"kind":"Pod","metadata":{"name":"p"}})"));
  EXPECT_EQ(ReadWatchEvent("{\"type\": ").status().message(),
            "1:10: malformed JSON: Invalid value.");
  EXPECT_EQ(ReadWatchEvent("[1]").status().message(),
            "watch event: not a JSON object");
}

}  // namespace
}  // namespace shoal::kube
