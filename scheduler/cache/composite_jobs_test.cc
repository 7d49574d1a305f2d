#include "scheduler/cache/composite_jobs.h"

#include "gtest/gtest.h"

namespace shoal::cache {
namespace {

api::CompositePodGroupSpec Composite(const std::string& name, int32_t min,
                                     const std::string& parent = "") {
  api::CompositePodGroupSpec c;
  c.ns = "ml";
  c.name = name;
  c.uid = "uid-" + name;
  c.gang = true;
  c.min_group_count = min;
  c.parent = parent;
  return c;
}

api::JobInfo Leaf(const std::string& name, int32_t min,
                  const std::string& parent) {
  api::JobInfo g;
  g.ns = "ml";
  g.name = name;
  g.source = api::GroupSource::kKubePodGroup;
  g.min_member = min;
  g.parent_group = parent;
  return g;
}

int32_t NoClass(const std::string&) { return 0; }

struct Tree {
  Composites composites;
  std::map<std::string, api::JobInfo> groups;
  void Add(api::CompositePodGroupSpec c) { composites[c.Key()] = std::move(c); }
  void Add(api::JobInfo g) { groups[g.Key()] = std::move(g); }
  CompositeTrees Build() const {
    return BuildCompositeTrees(composites, groups, NoClass);
  }
};

TEST(CompositeJobsTest, AThreeLevelTreeIsOneJobOfNestedPolicies) {
  Tree t;
  t.Add(Composite("root", 2));
  t.Add(Composite("mid-y", 1, "root"));
  t.Add(Composite("mid-x", 1, "root"));
  t.Add(Leaf("xa", 4, "mid-x"));
  t.Add(Leaf("xb", 2, "mid-x"));
  t.Add(Leaf("ya", 3, "mid-y"));
  t.Add(Leaf("alone", 3, ""));  // a PodGroup of its own: not in a tree
  CompositeTrees trees = t.Build();
  ASSERT_EQ(trees.jobs.size(), 1u);
  const api::JobInfo& job = trees.jobs.at("ml/root");
  EXPECT_EQ(job.source, api::GroupSource::kCompositeTree);
  ASSERT_EQ(job.sub_group_policies.size(), 3u);
  EXPECT_EQ(job.sub_group_policies[0].name, "root");
  EXPECT_EQ(job.sub_group_policies[0].parent, api::kNone);
  EXPECT_EQ(job.sub_group_policies[0].min_groups, 2);
  // Parents first, then by name.
  EXPECT_EQ(job.sub_group_policies[1].name, "mid-x");
  EXPECT_EQ(job.sub_group_policies[1].parent, 0);
  EXPECT_EQ(job.sub_group_policies[1].leaves.size(), 2u);
  EXPECT_EQ(job.sub_group_policies[2].name, "mid-y");
  // The fewest pods: the cheaper leaf of mid-x (2) and mid-y's (3).
  EXPECT_EQ(job.min_member, 5);
  EXPECT_EQ(job.refusal, "");
  EXPECT_EQ(trees.root_of_leaf.at("ml/xa"), "ml/root");
  EXPECT_EQ(trees.root_of_leaf.count("ml/alone"), 0u);
}

TEST(CompositeJobsTest, ALeafOfABrokenTreeWaitsSayingWhy) {
  Tree t;
  t.Add(Leaf("orphan", 2, "ghost"));
  t.Add(Composite("mid", 1, "gone"));
  t.Add(Leaf("under-mid", 2, "mid"));
  t.Add(Composite("a", 1, "b"));
  t.Add(Composite("b", 1, "a"));
  t.Add(Leaf("in-cycle", 2, "a"));
  t.Add(Composite("l1", 1));
  t.Add(Composite("l2", 1, "l1"));
  t.Add(Composite("l3", 1, "l2"));
  t.Add(Composite("l4", 1, "l3"));
  t.Add(Leaf("deep", 1, "l4"));
  CompositeTrees trees = t.Build();
  EXPECT_EQ(trees.broken_leaf.at("ml/orphan"),
            "compositepodgroup ml/ghost does not exist (podgroup ml/orphan "
            "names it in spec.parentCompositePodGroupName); its pods wait "
            "until it is created");
  EXPECT_EQ(trees.broken_leaf.at("ml/under-mid"),
            "compositepodgroup ml/gone does not exist (compositepodgroup "
            "ml/mid names it in spec.parentCompositePodGroupName); the "
            "tree's pods wait until it is created");
  EXPECT_EQ(trees.broken_leaf.at("ml/in-cycle"),
            "compositepodgroup ml/b is its own ancestor "
            "(spec.parentCompositePodGroupName): the tree has a cycle, and "
            "its pods wait until it is mended");
  EXPECT_EQ(trees.broken_leaf.at("ml/deep"),
            "the tree under compositepodgroup ml/l1 is 5 levels deep, more "
            "than the 4 the API allows; its pods wait");
  // l1..l4 is a tree of its own with no leaf under l4 only: refused whole.
  ASSERT_EQ(trees.jobs.size(), 0u);
  t.Add(Leaf("shallow", 1, "l1"));
  trees = t.Build();
  EXPECT_EQ(trees.jobs.at("ml/l1").refusal,
            "compositepodgroup ml/l4 is on level 4 of the tree under "
            "compositepodgroup ml/l1; a composite may be at most on level 3 "
            "(the API allows 4 levels, PodGroups included): the tree's pods "
            "wait");
}

TEST(CompositeJobsTest, OnePriorityAndOnePreemptionPolicyAcrossTheTree) {
  Tree t;
  t.Add(Composite("root", 1));
  api::JobInfo loud = Leaf("loud", 1, "root");
  loud.priority_class = "high";
  t.Add(loud);
  CompositeTrees trees = BuildCompositeTrees(
      t.composites, t.groups,
      [](const std::string& c) { return c == "high" ? 100 : 0; });
  EXPECT_EQ(trees.jobs.at("ml/root").refusal,
            "every group of a CompositePodGroup tree must have its root's "
            "priority: podgroup ml/loud has 100, compositepodgroup ml/root "
            "has 0");
  t.groups.at("ml/loud").priority_class = "";
  t.groups.at("ml/loud").preemption_policy = "Never";
  EXPECT_EQ(t.Build().jobs.at("ml/root").refusal,
            "every group of a CompositePodGroup tree must have its root's "
            "spec.preemptionPolicy: podgroup ml/loud has Never, "
            "compositepodgroup ml/root has PreemptLowerPriority");
  // Unset reads as the default, so an explicit default agrees.
  t.groups.at("ml/loud").preemption_policy = "PreemptLowerPriority";
  EXPECT_EQ(t.Build().jobs.at("ml/root").refusal, "");
}

}  // namespace
}  // namespace shoal::cache
