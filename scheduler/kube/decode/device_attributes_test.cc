// A ResourceSlice's device attributes, scalar and list-typed
// (DRAListTypeAttributes: ints, bools, strings, versions), as the decoder
// reads them and the writer writes them back.
#include <string>

#include "gtest/gtest.h"
#include "scheduler/kube/decode/device_json.h"
#include "scheduler/kube/decode/objects.h"

namespace shoal::kube {
namespace {

using api::DeviceAttribute;
using nlohmann::json;

json Slice(json attributes) {
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", "gpus"}}},
          {"spec",
           {{"driver", "gpu.example.com"},
            {"pool", {{"name", "n1"}, {"generation", 1}}},
            {"nodeName", "n1"},
            {"devices",
             json::array({{{"name", "g0"}, {"attributes", attributes}}})}}}};
}

// The message of the decoder's refusal, or "" when it reads the slice.
std::string Refusal(json attributes) {
  absl::StatusOr<api::ResourceSlice> s =
      DecodeResourceSlice(Slice(attributes), nullptr);
  return s.ok() ? "" : std::string(s.status().message());
}

const DeviceAttribute& Only(const api::ResourceSlice& s,
                            const std::string& name) {
  for (const auto& [n, a] : s.devices.at(0).attributes) {
    if (n == name) return a;
  }
  ADD_FAILURE() << "no attribute " << name;
  static const DeviceAttribute kNone;
  return kNone;
}

TEST(DeviceAttributesTest, ReadsListsOfEveryKind) {
  absl::StatusOr<api::ResourceSlice> s = DecodeResourceSlice(
      Slice({{"numa", {{"ints", {0, 1}}}},
             {"healthy", {{"bools", {true}}}},
             {"resource.kubernetes.io/pcieRoot",
              {{"strings", {"pci0000:00", "pci0000:01"}}}},
             {"firmware", {{"versions", {"1.0.0", "2.1.0-rc.1"}}}},
             {"model", {{"string", "a100"}}}}),
      nullptr);
  ASSERT_TRUE(s.ok()) << s.status();
  const DeviceAttribute& numa = Only(*s, "gpu.example.com/numa");
  EXPECT_TRUE(numa.list);
  EXPECT_EQ(numa.kind, DeviceAttribute::Kind::kInt);
  EXPECT_EQ(numa.ints, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(numa.size(), 2u);
  const DeviceAttribute& healthy = Only(*s, "gpu.example.com/healthy");
  EXPECT_EQ(healthy.kind, DeviceAttribute::Kind::kBool);
  EXPECT_EQ(healthy.bools, std::vector<bool>{true});
  // A name with a domain keeps it; a list of strings.
  const DeviceAttribute& root = Only(*s, "resource.kubernetes.io/pcieRoot");
  EXPECT_EQ(root.kind, DeviceAttribute::Kind::kString);
  EXPECT_EQ(root.strings,
            (std::vector<std::string>{"pci0000:00", "pci0000:01"}));
  const DeviceAttribute& firmware = Only(*s, "gpu.example.com/firmware");
  EXPECT_EQ(firmware.kind, DeviceAttribute::Kind::kVersion);
  EXPECT_TRUE(firmware.list);
  EXPECT_EQ(firmware.strings,
            (std::vector<std::string>{"1.0.0", "2.1.0-rc.1"}));
  const DeviceAttribute& model = Only(*s, "gpu.example.com/model");
  EXPECT_FALSE(model.list);
  EXPECT_EQ(model.s, "a100");
}

TEST(DeviceAttributesTest, WritesThemBackAsRead) {
  const json attributes = {{"numa", {{"ints", {3, 1, 3}}}},
                           {"healthy", {{"bools", {true, false}}}},
                           {"roots", {{"strings", {"b", "a"}}}},
                           {"firmware", {{"versions", {"1.0.0"}}}},
                           {"count", {{"int", 2}}},
                           {"on", {{"bool", true}}},
                           {"model", {{"string", "a100"}}},
                           {"driver", {{"version", "1.2.3"}}}};
  absl::StatusOr<api::ResourceSlice> s =
      DecodeResourceSlice(Slice(attributes), nullptr);
  ASSERT_TRUE(s.ok()) << s.status();
  const json written = ResourceSliceJson(*s);
  EXPECT_EQ(written["spec"]["devices"][0]["attributes"], attributes)
      << written.dump();
  absl::StatusOr<api::ResourceSlice> again =
      DecodeResourceSlice(written, nullptr);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->devices[0].attributes, s->devices[0].attributes);
}

TEST(DeviceAttributesTest, RefusesBadValuesNamingTheField) {
  const std::string at = "resourceslice gpus: spec.devices[0].attributes.numa";
  EXPECT_EQ(Refusal({{"numa", {{"ints", json::array()}}}}),
            at + ".ints: must not be empty");
  EXPECT_EQ(Refusal({{"numa", {{"ints", {1, "2"}}}}}),
            at + ".ints[1]: must be an integer, got \"2\"");
  EXPECT_EQ(Refusal({{"numa", {{"ints", {1, 2.5}}}}}),
            at + ".ints[1]: must be an integer, got 2.5");
  EXPECT_EQ(Refusal({{"numa", {{"bools", {true, nullptr}}}}}),
            at + ".bools[1]: must be a boolean, got null");
  EXPECT_EQ(Refusal({{"numa", {{"strings", {"a", 1}}}}}),
            at + ".strings[1]: must be a string, got 1");
  EXPECT_EQ(Refusal({{"numa", {{"versions", {{{"v", 1}}}}}}}),
            at + ".versions[0]: must be a string, got {\"v\":1}");
  EXPECT_EQ(Refusal({{"numa", {{"strings", "a"}}}}),
            at + ".strings: must be a list of strings, got \"a\"");
  // Exactly one value: not none, not a scalar and a list.
  EXPECT_EQ(Refusal({{"numa", json::object()}}),
            at + ": must hold exactly one of int, bool, string, version, "
                 "ints, bools, strings, versions, got {}");
  EXPECT_EQ(Refusal({{"numa", {{"int", 1}, {"ints", {1}}}}}),
            at +
                ": must hold exactly one of int, bool, string, version, "
                "ints, bools, strings, versions, got {\"int\":1,\"ints\":[1]}");
  EXPECT_EQ(Refusal({{"numa", {{"int", "1"}}}}),
            at + ": must hold exactly one of int, bool, string, version, "
                 "ints, bools, strings, versions, got {\"int\":\"1\"}");
  EXPECT_EQ(Refusal({{"numa", {{"floats", {1.5}}}}}),
            at + ": must hold exactly one of int, bool, string, version, "
                 "ints, bools, strings, versions, got {\"floats\":[1.5]}");
}

}  // namespace
}  // namespace shoal::kube
