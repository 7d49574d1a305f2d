#include "scheduler/partial_gangs.h"

#include "gtest/gtest.h"

namespace shoal {
namespace {

// A gang of `size`, minMember `size`, whose first `bound` pods are bound
// and the rest pending.
api::ClusterInfo Gang(int size, int bound) {
  api::ClusterInfo c;
  api::JobInfo job;
  job.uid = "gang";
  job.min_member = size;
  for (int i = 0; i < size; ++i) {
    api::TaskInfo t;
    t.job = 0;
    t.status = i < bound ? api::TaskStatus::kBound : api::TaskStatus::kPending;
    job.tasks.push_back(i);
    ++job.count_by_status[static_cast<int>(t.status)];
    c.tasks.push_back(t);
  }
  c.jobs.push_back(job);
  return c;
}

TEST(PartialGangsTest, ReleasesBoundMembersAfterTheLimitAndNotBefore) {
  PartialGangs rule(3);
  api::ClusterInfo half = Gang(6, 3);
  for (int cycle = 1; cycle <= 3; ++cycle)
    EXPECT_TRUE(rule.Review(half).empty()) << cycle;
  EXPECT_EQ(rule.Review(half), (std::vector<api::TaskIndex>{0, 1, 2}));
  // Counting starts over after a release.
  EXPECT_TRUE(rule.Review(half).empty());
}

TEST(PartialGangsTest, AGangThatCompletesOrHasNothingBoundIsLeftAlone) {
  PartialGangs rule(1);
  api::ClusterInfo half = Gang(4, 2);
  EXPECT_TRUE(rule.Review(half).empty());
  // Completed in the next cycle: the count is forgotten.
  EXPECT_TRUE(rule.Review(Gang(4, 4)).empty());
  EXPECT_TRUE(rule.Review(half).empty());
  for (int cycle = 0; cycle < 5; ++cycle)
    EXPECT_TRUE(rule.Review(Gang(4, 0)).empty());
}

}  // namespace
}  // namespace shoal
