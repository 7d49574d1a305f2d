#include "scheduler/api/network_topology.h"

#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shoal::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<NodeInfo> Nodes(std::vector<std::pair<std::string, Labels>> specs) {
  std::vector<NodeInfo> out;
  for (auto& [name, labels] : specs) {
    auto spec = std::make_shared<NodeSpec>();
    spec->name = name;
    spec->labels = labels;
    out.emplace_back(spec, static_cast<NodeIndex>(out.size()));
  }
  return out;
}

Labels L(std::vector<std::pair<std::string, std::string>> pairs) {
  return Labels(std::move(pairs));
}

HyperNodeMember Exact(std::string name, bool hypernode = false) {
  HyperNodeMember m;
  m.type = hypernode ? HyperNodeMember::Type::kHyperNode
                     : HyperNodeMember::Type::kNode;
  m.value = std::move(name);
  return m;
}

HyperNodeMember Regex(std::string pattern) {
  HyperNodeMember m;
  m.match = HyperNodeMember::Match::kRegex;
  m.value = std::move(pattern);
  return m;
}

HyperNodeSpec Hyper(std::string name, int32_t tier,
                    std::vector<HyperNodeMember> members) {
  HyperNodeSpec h;
  h.name = std::move(name);
  h.tier = tier;
  h.members = std::move(members);
  return h;
}

TEST(NetworkTopology, RacksUnderASpine) {
  auto nodes = Nodes({{"n0", {}}, {"n1", {}}, {"n2", {}}, {"n3", {}}});
  HyperNodeMember gpu;
  gpu.match = HyperNodeMember::Match::kLabels;
  gpu.labels.requirements.push_back({"rack", SelectorOperator::kIn, {"b"}});
  auto t = NetworkTopology::FromHyperNodes(
      {Hyper("spine", 2, {Exact("rack-a", true), Exact("rack-b", true)}),
       Hyper("rack-a", 1, {Regex("^n[01]$")}),
       Hyper("rack-b", 1, {Exact("n2"), Exact("n3")})},
      nodes);
  EXPECT_THAT(t.warnings(), IsEmpty());
  ASSERT_EQ(t.domains().size(), 3u);
  // Tier first, then name.
  EXPECT_EQ(t.domain(0).name, "rack-a");
  EXPECT_EQ(t.domain(1).name, "rack-b");
  EXPECT_EQ(t.domain(2).name, "spine");
  EXPECT_THAT(t.domain(0).nodes, ElementsAre(0, 1));
  EXPECT_THAT(t.domain(2).nodes, ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(t.domain(0).parent, 2);
  EXPECT_THAT(t.domain(2).children, ElementsAre(0, 1));
  EXPECT_THAT(t.DomainsOf(3), ElementsAre(1, 2));
  EXPECT_TRUE(t.Contains(2, 3));
  EXPECT_FALSE(t.Contains(0, 3));
  EXPECT_THAT(t.tiers(), ElementsAre(1, 2));
  EXPECT_EQ(t.NarrowestHolding({2, 3}), 1);
  EXPECT_EQ(t.NarrowestHolding({1, 2}), 2);
  EXPECT_EQ(t.WidestHolding({2, 3}, 2), 2);
  EXPECT_EQ(t.WidestHolding({2, 3}, 1), 1);
  EXPECT_EQ(t.WidestHolding({1, 2}, 1), kNone);
}

TEST(NetworkTopology, LabelMatchSelectsNodes) {
  auto nodes = Nodes({{"n0", L({{"rack", "a"}})}, {"n1", L({{"rack", "b"}})}});
  HyperNodeMember m;
  m.match = HyperNodeMember::Match::kLabels;
  m.labels.requirements.push_back({"rack", SelectorOperator::kIn, {"b"}});
  auto t = NetworkTopology::FromHyperNodes({Hyper("rack-b", 1, {m})}, nodes);
  EXPECT_THAT(t.domain(0).nodes, ElementsAre(1));
}

TEST(NetworkTopology, ANodeInTwoDomainsOfATierIsLeftOutOfEach) {
  auto nodes = Nodes({{"n0", {}}, {"n1", {}}, {"n2", {}}});
  auto t = NetworkTopology::FromHyperNodes(
      {Hyper("r0", 1, {Exact("n0"), Exact("n1")}),
       Hyper("r1", 1, {Exact("n1"), Exact("n2")})},
      nodes);
  ASSERT_EQ(t.warnings().size(), 1u);
  EXPECT_EQ(t.warnings()[0],
            "node n1 is in hypernodes r0, r1, all of tier 1; a node belongs "
            "to one domain per tier, so it is left out of each");
  EXPECT_THAT(t.domain(0).nodes, ElementsAre(0));
  EXPECT_THAT(t.domain(1).nodes, ElementsAre(2));
  EXPECT_THAT(t.DomainsOf(1), IsEmpty());
}

TEST(NetworkTopology, UnknownMembersBadTiersAndGapsAreNamed) {
  auto nodes = Nodes({{"n0", {}}});
  auto t = NetworkTopology::FromHyperNodes(
      {Hyper("r0", 1, {Exact("n0"), Exact("n9"), Regex("(")}),
       Hyper("s0", 3, {Exact("r0", true), Exact("ghost", true)}),
       Hyper("s1", 3, {Exact("s0", true)})},
      nodes);
  EXPECT_THAT(t.warnings(),
              ElementsAre(HasSubstr("hypernode r0: spec.members[1]: node n9 "
                                    "does not exist; it is left out"),
                          HasSubstr("hypernode r0: spec.members[2].selector."
                                    "regexMatch.pattern \"(\" is not a valid "
                                    "regular expression"),
                          HasSubstr("hypernode s0: spec.members[1]: hypernode "
                                    "ghost does not exist"),
                          HasSubstr("hypernode s1 (tier 3): spec.members[0] "
                                    "is hypernode s0 of tier 3; a member must "
                                    "be of a lower tier"),
                          HasSubstr("no hypernode has tier 2 (tiers go from 1 "
                                    "to 3)")));
  EXPECT_THAT(t.domain(t.Find("s0")).nodes, ElementsAre(0));
  EXPECT_THAT(t.domain(t.Find("s1")).nodes, IsEmpty());
}

TEST(NetworkTopology, AHyperNodeWithTwoParentsIsLeftOutOfBoth) {
  auto nodes = Nodes({{"n0", {}}});
  auto t = NetworkTopology::FromHyperNodes(
      {Hyper("r0", 1, {Exact("n0")}), Hyper("s0", 2, {Exact("r0", true)}),
       Hyper("s1", 2, {Exact("r0", true)})},
      nodes);
  EXPECT_THAT(t.warnings(),
              ElementsAre("hypernode r0 is a member of hypernodes s0, s1; a "
                          "hypernode has one parent, so it is left out of "
                          "each"));
  EXPECT_THAT(t.domain(t.Find("s0")).nodes, IsEmpty());
  EXPECT_EQ(t.domain(t.Find("r0")).parent, kNone);
}

TEST(NetworkTopology, TierNames) {
  auto nodes = Nodes({{"n0", {}}});
  HyperNodeSpec rack = Hyper("r0", 1, {Exact("n0")});
  rack.tier_name = "rack";
  auto t = NetworkTopology::FromHyperNodes({rack}, nodes);
  EXPECT_EQ(t.TierNamed("rack"), 1);
  EXPECT_EQ(t.TierNamed("spine"), 0);
}

TEST(NetworkTopology, LabelTiers) {
  auto nodes = Nodes({{"n0", L({{"rack", "r1"}, {"spine", "s1"}})},
                      {"n1", L({{"rack", "r1"}, {"spine", "s2"}})},
                      {"n2", L({{"rack", "r2"}, {"spine", "s1"}})},
                      {"n3", L({{"rack", "r9"}})}});
  auto t = NetworkTopology::FromLabelTiers({"rack", "spine"}, nodes);
  EXPECT_EQ(t.source(), "node labels rack, spine");
  // Racks of the same name under two spines are two domains; a node
  // without the spine label is in no rack either.
  std::vector<std::string> names;
  for (const auto& d : t.domains()) names.push_back(d.name);
  EXPECT_THAT(names, ElementsAre("s1/r1", "s1/r2", "s2/r1", "s1", "s2"));
  EXPECT_EQ(t.domain(0).tier, 1);
  EXPECT_EQ(t.domain(0).tier_name, "rack");
  EXPECT_EQ(t.domain(0).parent, t.Find("s1"));
  EXPECT_THAT(t.domain(t.Find("s1")).nodes, ElementsAre(0, 2));
  EXPECT_THAT(t.DomainsOf(3), IsEmpty());
  EXPECT_EQ(t.TierNamed("spine"), 2);
}

}  // namespace
}  // namespace shoal::api
