#include "scheduler/api/placement.h"

#include "gtest/gtest.h"

namespace shoal::api {
namespace {

Labels L(std::vector<std::pair<std::string, std::string>> p) {
  return Labels(std::move(p));
}

TEST(TolerationTest, Matching) {
  Taint gpu{"gpu", "true", TaintEffect::kNoSchedule};
  EXPECT_TRUE(Tolerates(
      {"gpu", Toleration::Operator::kEqual, "true", std::nullopt}, gpu));
  EXPECT_FALSE(Tolerates(
      {"gpu", Toleration::Operator::kEqual, "false", std::nullopt}, gpu));
  EXPECT_TRUE(
      Tolerates({"gpu", Toleration::Operator::kExists, "", std::nullopt}, gpu));
  EXPECT_TRUE(
      Tolerates({"", Toleration::Operator::kExists, "", std::nullopt}, gpu));
  EXPECT_FALSE(
      Tolerates({"", Toleration::Operator::kEqual, "", std::nullopt}, gpu));
  EXPECT_FALSE(Tolerates(
      {"gpu", Toleration::Operator::kExists, "", TaintEffect::kNoExecute},
      gpu));
  EXPECT_TRUE(Tolerates(
      {"gpu", Toleration::Operator::kExists, "", TaintEffect::kNoSchedule},
      gpu));
  EXPECT_FALSE(Tolerates(
      {"other", Toleration::Operator::kExists, "", std::nullopt}, gpu));
}

TEST(NodeSelectorTest, Operators) {
  Labels labels = L({{"zone", "a"}, {"cores", "32"}});
  auto term = [](std::string key, SelectorOperator op,
                 std::vector<std::string> v) {
    NodeSelectorTerm t;
    t.match_expressions.push_back({std::move(key), op, std::move(v)});
    return t;
  };
  EXPECT_TRUE(MatchesTerm(term("zone", SelectorOperator::kIn, {"a", "b"}),
                          labels, "n"));
  EXPECT_FALSE(
      MatchesTerm(term("zone", SelectorOperator::kIn, {"b"}), labels, "n"));
  EXPECT_TRUE(
      MatchesTerm(term("zone", SelectorOperator::kNotIn, {"b"}), labels, "n"));
  EXPECT_TRUE(
      MatchesTerm(term("rack", SelectorOperator::kNotIn, {"b"}), labels, "n"));
  EXPECT_TRUE(
      MatchesTerm(term("zone", SelectorOperator::kExists, {}), labels, "n"));
  EXPECT_FALSE(
      MatchesTerm(term("rack", SelectorOperator::kExists, {}), labels, "n"));
  EXPECT_TRUE(MatchesTerm(term("rack", SelectorOperator::kDoesNotExist, {}),
                          labels, "n"));
  EXPECT_TRUE(
      MatchesTerm(term("cores", SelectorOperator::kGt, {"16"}), labels, "n"));
  EXPECT_FALSE(
      MatchesTerm(term("cores", SelectorOperator::kGt, {"32"}), labels, "n"));
  EXPECT_TRUE(
      MatchesTerm(term("cores", SelectorOperator::kLt, {"64"}), labels, "n"));
  EXPECT_FALSE(
      MatchesTerm(term("zone", SelectorOperator::kLt, {"64"}), labels, "n"));
  EXPECT_FALSE(MatchesTerm(NodeSelectorTerm{}, labels, "n"));  // empty term
  NodeSelectorTerm by_name;
  by_name.match_fields.push_back(
      {"metadata.name", SelectorOperator::kIn, {"node-a"}});
  EXPECT_TRUE(MatchesTerm(by_name, labels, "node-a"));
  EXPECT_FALSE(MatchesTerm(by_name, labels, "node-b"));
}

TEST(PlacementTest, SelectorAndAffinityBothApply) {
  PlacementConstraints c;
  c.node_selector = L({{"zone", "a"}});
  NodeSelectorTerm t1, t2;
  t1.match_expressions.push_back({"gpu", SelectorOperator::kExists, {}});
  t2.match_expressions.push_back({"big", SelectorOperator::kExists, {}});
  c.required_terms = std::vector<NodeSelectorTerm>{t1, t2};  // ORed
  EXPECT_TRUE(
      MatchesNodeSelectorAndAffinity(c, L({{"zone", "a"}, {"big", ""}}), "n"));
  EXPECT_FALSE(
      MatchesNodeSelectorAndAffinity(c, L({{"zone", "b"}, {"big", ""}}), "n"));
  EXPECT_FALSE(MatchesNodeSelectorAndAffinity(c, L({{"zone", "a"}}), "n"));
  c.required_terms = std::vector<NodeSelectorTerm>{};  // no terms: nothing
  EXPECT_FALSE(MatchesNodeSelectorAndAffinity(c, L({{"zone", "a"}}), "n"));
}

TEST(PlacementTest, FingerprintFollowsEquality) {
  PlacementConstraints a, b;
  a.node_selector = L({{"zone", "a"}});
  b.node_selector = L({{"zone", "a"}});
  a.ComputeFingerprint();
  b.ComputeFingerprint();
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  b.tolerations.push_back(
      {"gpu", Toleration::Operator::kExists, "", std::nullopt});
  b.ComputeFingerprint();
  EXPECT_NE(a.fingerprint, b.fingerprint);
}

}  // namespace
}  // namespace shoal::api
