#include "scheduler/framework/tier_walk.h"

#include "gtest/gtest.h"

namespace shoal::framework {
namespace {

api::JobInfo job;

TEST(TierWalkTest, FirstPreferenceWinsTierByTier) {
  CallbackTable<JobOrder> t;
  EXPECT_EQ(t.Run(job, job), 0);  // nobody registered: no preference
  t.Add(0, "abstains", [](const auto&, const auto&) { return 0; });
  t.Add(1, "later", [](const auto&, const auto&) { return 1; });
  EXPECT_EQ(t.Run(job, job), 1);
  t.Add(0, "first", [](const auto&, const auto&) { return -1; });
  EXPECT_EQ(t.Run(job, job), -1);  // a tier-0 preference beats tier 1
  EXPECT_EQ(t.Plugins(),
            (std::vector<std::string>{"abstains", "first", "later"}));
}

TEST(TierWalkTest, AllPassStopsAtFirstRefusal) {
  CallbackTable<JobReady> t;
  EXPECT_TRUE(t.Run(job));
  int calls = 0;
  t.Add(0, "yes", [&](const auto&) {
    ++calls;
    return true;
  });
  t.Add(0, "no", [&](const auto&) {
    ++calls;
    return false;
  });
  t.Add(1, "never-asked", [&](const auto&) {
    ++calls;
    return true;
  });
  EXPECT_FALSE(t.Run(job));
  EXPECT_EQ(calls, 2);
}

TEST(TierWalkTest, SumAddsEveryScore) {
  CallbackTable<NodeOrder> t;
  t.Add(0, "a", [](const auto&, const auto&) { return 1.5; });
  t.Add(2, "b", [](const auto&, const auto&) { return 2.0; });
  api::TaskInfo task;
  api::NodeInfo node(std::make_shared<api::NodeSpec>());
  EXPECT_DOUBLE_EQ(t.Run(task, node), 3.5);
}

TEST(TierWalkTest, VoteRejectPermitAbstain) {
  auto vote = [](int v) { return [v](const api::JobInfo&) { return v; }; };
  // JobPipelined and JobEnqueueable share the vote rule.
  {
    CallbackTable<JobPipelined> t;
    EXPECT_TRUE(t.Run(job));  // no opinion: yes
  }
  {
    CallbackTable<JobPipelined> t;
    t.Add(0, "permit", vote(1));
    t.Add(1, "reject", vote(-1));
    EXPECT_TRUE(t.Run(job));  // tier 0 decided before tier 1 was asked
  }
  {
    CallbackTable<JobPipelined> t;
    t.Add(0, "abstain", vote(0));
    t.Add(1, "permit", vote(1));
    t.Add(1, "reject", vote(-1));
    EXPECT_FALSE(t.Run(job));  // a reject in the deciding tier wins
  }
}

TEST(TierWalkTest, AnyTrueRaisesOnFirstYes) {
  CallbackTable<Overused> t;
  api::QueueInfo q;
  EXPECT_FALSE(t.Run(q));
  t.Add(0, "no", [](const api::QueueInfo&) { return false; });
  EXPECT_FALSE(t.Run(q));
  t.Add(1, "yes", [](const api::QueueInfo&) { return true; });
  EXPECT_TRUE(t.Run(q));
}

TEST(TierWalkTest, VictimsIntersectWithinTierFirstNonEmptyTierDecides) {
  api::TaskInfo preemptor;
  std::vector<api::TaskIndex> all = {1, 2, 3, 4};
  auto answer = [](Victims v) {
    return [v](const api::TaskInfo&, const std::vector<api::TaskIndex>&) {
      return v;
    };
  };
  CallbackTable<Preemptable> t;
  EXPECT_TRUE(t.Run(preemptor, all).empty());
  t.Add(0, "a", answer(std::vector<api::TaskIndex>{3, 1, 2}));
  t.Add(0, "abstains", answer(std::nullopt));
  t.Add(0, "b", answer(std::vector<api::TaskIndex>{2, 3, 4}));
  t.Add(1, "c", answer(std::vector<api::TaskIndex>{4}));
  EXPECT_EQ(t.Run(preemptor, all), (std::vector<api::TaskIndex>{2, 3}));

  CallbackTable<Preemptable> empty_first;
  empty_first.Add(0, "a", answer(std::vector<api::TaskIndex>{1}));
  empty_first.Add(0, "b", answer(std::vector<api::TaskIndex>{2}));
  empty_first.Add(1, "c", answer(std::vector<api::TaskIndex>{4}));
  EXPECT_EQ(empty_first.Run(preemptor, all), (std::vector<api::TaskIndex>{4}));
}

}  // namespace
}  // namespace shoal::framework
