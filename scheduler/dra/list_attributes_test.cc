// List-typed device attributes (DRAListTypeAttributes): the allocator's
// matchAttribute and distinctAttribute over them, and what a CEL selector
// sees of them.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/dra/allocator.h"
#include "scheduler/dra/device_variable.h"
#include "scheduler/dra/inventory.h"
#include "scheduler/dra/testing.h"
#include "scheduler/dra/usage.h"

namespace shoal::dra {
namespace {

using api::DeviceAttribute;
using testing::Claim;
using testing::kDriver;
using testing::World;

DeviceAttribute Strings(std::vector<std::string> v) {
  DeviceAttribute a;
  a.list = true;
  a.strings = std::move(v);
  return a;
}

DeviceAttribute Ints(std::vector<int64_t> v) {
  DeviceAttribute a;
  a.kind = DeviceAttribute::Kind::kInt;
  a.list = true;
  a.ints = std::move(v);
  return a;
}

DeviceAttribute String(const std::string& s) {
  DeviceAttribute a;
  a.s = s;
  return a;
}

DeviceAttribute Int(int64_t i) {
  DeviceAttribute a;
  a.kind = DeviceAttribute::Kind::kInt;
  a.i = i;
  return a;
}

// A device whose only attribute is gpu.example.com/topo.
api::Device Dev(const std::string& name, DeviceAttribute topo) {
  api::Device d;
  d.name = name;
  d.attributes = {{std::string(kDriver) + "/topo", std::move(topo)}};
  return d;
}

// Allocates `claim` on the world's only node: the devices chosen, by
// name, or {"none"} with why not.
std::vector<std::string> Allocate(World& w, const api::ResourceClaim& claim,
                                  std::string* why = nullptr) {
  Inventory inv(w.devices, w.nodes);
  Usage usage(inv);
  Allocator alloc(inv, usage);
  std::vector<api::DeviceAllocation> out;
  std::string words;
  if (!alloc.Allocate({&claim}, w.nodes[0], &out, &words)) {
    if (why != nullptr) *why = words;
    return {"none"};
  }
  std::vector<std::string> names;
  for (const api::DeviceResult& r : out[0].results) names.push_back(r.device);
  return names;
}

api::ResourceClaim WithConstraint(api::ResourceClaim c, bool distinct) {
  api::DeviceConstraint k;
  (distinct ? k.distinct_attribute : k.match_attribute) =
      std::string(kDriver) + "/topo";
  c.constraints = {k};
  return c;
}

TEST(ListAttributesTest, HoldsAndOverlapsTakeAttributesAsSets) {
  EXPECT_TRUE(Strings({"a", "b"}).Overlaps(Strings({"b", "c"})));
  EXPECT_FALSE(Strings({"a", "b"}).Overlaps(Strings({"c"})));
  // A scalar is a set of one.
  EXPECT_TRUE(String("b").Overlaps(Strings({"a", "b"})));
  EXPECT_TRUE(Strings({"a", "b"}).Holds(String("a"), 0));
  EXPECT_FALSE(String("a").Holds(Strings({"b", "a"}), 0));
  EXPECT_TRUE(String("a").Holds(Strings({"b", "a"}), 1));
  // Values of different kinds are never the same: 1 is not "1".
  EXPECT_FALSE(Ints({1}).Overlaps(Strings({"1"})));
  EXPECT_FALSE(Int(1).Overlaps(String("1")));
  // Versions are compared as written, strings of their own kind.
  DeviceAttribute v = Strings({"1.0.0"});
  v.kind = DeviceAttribute::Kind::kVersion;
  EXPECT_FALSE(v.Overlaps(Strings({"1.0.0"})));
  EXPECT_EQ(Strings({"a", "b", "c"}).size(), 3u);
  EXPECT_EQ(String("a").size(), 1u);
  EXPECT_FALSE(Strings({"a"}) == String("a"));
}

TEST(ListAttributesTest, MatchNeedsAValueCommonToEveryDevice) {
  World w;
  // Each pair shares a value, no value is in all three.
  w.AddNode("n1",
            {Dev("g1", Strings({"a", "b"})), Dev("g2", Strings({"b", "c"})),
             Dev("g3", Strings({"c", "a"}))});
  std::string why;
  EXPECT_EQ(Allocate(w, WithConstraint(Claim("c", 3), false), &why),
            std::vector<std::string>{"none"});
  EXPECT_EQ(why, "cannot allocate all claims");
  EXPECT_EQ(Allocate(w, WithConstraint(Claim("c", 2), false)),
            (std::vector<std::string>{"g1", "g2"}));
}

TEST(ListAttributesTest, MatchWidensTheCommonValuesAgainWhenItBacktracks) {
  World w;
  // g1 and g2 leave only "a" in common, which g3 and g4 lack; without g2
  // "b" is common again.
  w.AddNode("n1", {Dev("g1", Strings({"a", "b"})), Dev("g2", Strings({"a"})),
                   Dev("g3", Strings({"b"})), Dev("g4", Strings({"b"}))});
  EXPECT_EQ(Allocate(w, WithConstraint(Claim("c", 3), false)),
            (std::vector<std::string>{"g1", "g3", "g4"}));
}

TEST(ListAttributesTest, MatchTakesAScalarAsASetOfOne) {
  World w;
  w.AddNode("n1", {Dev("g1", String("a")), Dev("g2", Strings({"b", "a"})),
                   Dev("g3", Int(7))});
  EXPECT_EQ(Allocate(w, WithConstraint(Claim("c", 2), false)),
            (std::vector<std::string>{"g1", "g2"}));
  // An int never matches a string, listed or not.
  World other;
  other.AddNode("n1", {Dev("g1", Ints({1, 2})), Dev("g2", Strings({"1"}))});
  EXPECT_EQ(Allocate(other, WithConstraint(Claim("c", 2), false)),
            std::vector<std::string>{"none"});
}

TEST(ListAttributesTest, DistinctNeedsEveryPairDisjoint) {
  World w;
  w.AddNode("n1", {Dev("g1", Ints({0, 1})), Dev("g2", Ints({1, 2})),
                   Dev("g3", Ints({2, 3}))});
  EXPECT_EQ(Allocate(w, WithConstraint(Claim("c", 2), true)),
            (std::vector<std::string>{"g1", "g3"}));
  EXPECT_EQ(Allocate(w, WithConstraint(Claim("c", 3), true)),
            std::vector<std::string>{"none"});
  // A scalar clashes with a list that holds it; values of another kind
  // never clash.
  World mixed;
  mixed.AddNode("n1", {Dev("g1", Int(1)), Dev("g2", Ints({1, 2})),
                       Dev("g3", Strings({"1"}))});
  EXPECT_EQ(Allocate(mixed, WithConstraint(Claim("c", 2), true)),
            (std::vector<std::string>{"g1", "g3"}));
}

TEST(ListAttributesTest, DistinctAcrossRequestsForgetsADeviceGivenBack) {
  World w;
  w.AddNode(
      "n1",
      {Dev("d1", Strings({"v1", "v2", "v3"})),
       Dev("d2", Strings({"v3", "v4", "v5"})), Dev("d3", Strings({"v1", "v2"})),
       Dev("d4", Strings({"v3", "v4"})), Dev("d0", Strings({"v5", "v6"}))});
  api::ResourceClaim c = WithConstraint(Claim("c", 1), true);
  api::DeviceRequest r = c.requests[0];
  c.requests.clear();
  for (const char* name : {"r0", "r1", "r2"}) {
    r.name = name;
    r.choices[0].name = name;
    c.requests.push_back(r);
  }
  EXPECT_EQ(Allocate(w, c), (std::vector<std::string>{"d3", "d4", "d0"}));
}

TEST(ListAttributesTest, SelectorsSeeAListAndIncludesAsksIt) {
  World w;
  DeviceAttribute versions = Strings({"1.2.0", "2.0.0"});
  versions.kind = DeviceAttribute::Kind::kVersion;
  api::Device g1 = Dev("g1", Ints({0, 1}));
  g1.attributes.emplace_back(std::string(kDriver) + "/drivers", versions);
  w.AddNode("n1", {g1, Dev("g2", Ints({2, 3})), Dev("g3", Int(1))});
  const std::string topo = "device.attributes['gpu.example.com'].topo";
  Inventory inv(w.devices, w.nodes);
  auto matches = [&](const std::string& expr) {
    std::vector<std::string> out;
    const Selector& s = inv.SelectorFor(expr);
    for (DeviceId d = 0; d < static_cast<DeviceId>(inv.devices().size()); ++d) {
      absl::StatusOr<bool> m = inv.Matches(s, d);
      EXPECT_TRUE(m.ok()) << expr << ": " << m.status();
      if (m.ok() && *m) out.push_back(inv.devices()[d].device->name);
    }
    return out;
  };
  // includes() on a list, and on a scalar (equality).
  EXPECT_EQ(matches(topo + ".includes(1)"),
            (std::vector<std::string>{"g1", "g3"}));
  // Devices with other lists are other looks: each is asked.
  EXPECT_EQ(matches(topo + " == [0, 1]"), std::vector<std::string>{"g1"});
  EXPECT_EQ(matches(topo + " == [2, 3]"), std::vector<std::string>{"g2"});
  EXPECT_EQ(matches(topo + ".includes(3)"), std::vector<std::string>{"g2"});
  EXPECT_EQ(
      matches("type(" + topo + ") == list && " + topo + ".exists(n, n > 2)"),
      std::vector<std::string>{"g2"});
  EXPECT_EQ(matches("type(" + topo + ") == list && " + topo + "[0] == 2"),
            std::vector<std::string>{"g2"});
  // Versions are semvers in the list.
  EXPECT_EQ(matches("'drivers' in device.attributes['gpu.example.com'] && "
                    "device.attributes['gpu.example.com'].drivers.exists(v, "
                    "v.isGreaterThan(semver('1.5.0')))"),
            std::vector<std::string>{"g1"});
  EXPECT_EQ(matches("'drivers' in device.attributes['gpu.example.com'] && "
                    "device.attributes['gpu.example.com'].drivers.includes("
                    "semver('1.2.0'))"),
            std::vector<std::string>{"g1"});
}

}  // namespace
}  // namespace shoal::dra
