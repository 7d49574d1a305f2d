#include "plugins/elastic/sharing.h"

#include <vector>

#include "gtest/gtest.h"
#include "scheduler/api/resource.h"
#include "scheduler/api/resource_name.h"

namespace shoal::plugins::elastic {
namespace {

// `milli` milli-cpu.
api::Resource Cpu(int64_t milli) {
  api::Resource r;
  r.Set(api::kCpu, milli);
  return r;
}

absl::Time At(int64_t seconds) { return absl::FromUnixSeconds(seconds); }

// A running job holding its minimum of `held` milli-cpu, growing by
// 1-cpu pods up to `max_extra`.
Grower Running(api::JobIndex job, int64_t held, int32_t max_extra,
               absl::Time submitted = absl::InfinitePast()) {
  Grower g;
  g.job = job;
  g.held = Cpu(held);
  g.pod = Cpu(1000);
  g.max_extra = max_extra;
  g.submitted = submitted;
  return g;
}

// A job whose minimum is not placed yet: `min_pods` of its 1-cpu pods are
// its minimum and `min_pods + max_extra` all of them. As the plugin does,
// it holds its minimum in the books.
Grower Starting(api::JobIndex job, int32_t min_pods, int32_t max_extra,
                absl::Time submitted, bool resize_free = true) {
  Grower g = Running(job, 1000 * min_pods, max_extra, submitted);
  g.starting = true;
  g.minimum = Cpu(1000 * min_pods);
  g.whole = Cpu(1000 * (min_pods + max_extra));
  g.resize_free = resize_free;
  return g;
}

const api::Resource kTotal = Cpu(100000);

TEST(ShareEvenTest, EqualJobsGetEqualExtras) {
  std::vector<Grower> growers = {Running(0, 2000, 10), Running(1, 2000, 10)};
  Share(Sharing::kEven, kTotal, Cpu(6000), growers);
  EXPECT_EQ(growers[0].extra, 3);
  EXPECT_EQ(growers[1].extra, 3);
  EXPECT_EQ(growers[0].held, Cpu(5000));
  EXPECT_EQ(growers[1].held, Cpu(5000));
}

TEST(ShareEvenTest, SmallerShareCatchesUpFirst) {
  // Job 1 holds 2 cpus more: job 0 gets the first two pods.
  std::vector<Grower> growers = {Running(0, 2000, 10), Running(1, 4000, 10)};
  Share(Sharing::kEven, kTotal, Cpu(2000), growers);
  EXPECT_EQ(growers[0].extra, 2);
  EXPECT_EQ(growers[1].extra, 0);
}

TEST(ShareEvenTest, RespectsMaxExtraAndPassesTheRestOn) {
  std::vector<Grower> growers = {Running(0, 2000, 1), Running(1, 2000, 10)};
  Share(Sharing::kEven, kTotal, Cpu(6000), growers);
  EXPECT_EQ(growers[0].extra, 1);
  EXPECT_EQ(growers[1].extra, 5);
}

TEST(ShareEvenTest, StopsAtMaxExtraWithRoomLeft) {
  std::vector<Grower> growers = {Running(0, 2000, 2), Running(1, 2000, 3)};
  Share(Sharing::kEven, kTotal, Cpu(50000), growers);
  EXPECT_EQ(growers[0].extra, 2);
  EXPECT_EQ(growers[1].extra, 3);
}

TEST(ShareEvenTest, PodLargerThanRoomIsNotTaken) {
  std::vector<Grower> growers = {Running(0, 2000, 5)};
  Share(Sharing::kEven, kTotal, Cpu(999), growers);
  EXPECT_EQ(growers[0].extra, 0);
  EXPECT_EQ(growers[0].held, Cpu(2000));
}

TEST(ShareOldestFirstTest, OlderTakesAllItCanBeforeYoungerGetsAny) {
  // Job 1 is the older, though listed second.
  std::vector<Grower> growers = {Running(0, 2000, 10, At(200)),
                                 Running(1, 2000, 3, At(100))};
  Share(Sharing::kOldestFirst, kTotal, Cpu(5000), growers);
  EXPECT_EQ(growers[1].extra, 3);
  EXPECT_EQ(growers[0].extra, 2);

  std::vector<Grower> tight = {Running(0, 2000, 10, At(200)),
                               Running(1, 2000, 10, At(100))};
  Share(Sharing::kOldestFirst, kTotal, Cpu(5000), tight);
  EXPECT_EQ(tight[1].extra, 5);
  EXPECT_EQ(tight[0].extra, 0);
}

TEST(ShareOldestFirstTest, StartingJobTakesWholeInItsTurn) {
  // Job 0 (older) has not started: 2 pods minimum, 4 in all.
  std::vector<Grower> growers = {Starting(0, 2, 2, At(100)),
                                 Running(1, 2000, 5, At(200))};
  Share(Sharing::kOldestFirst, kTotal, Cpu(6000), growers);
  EXPECT_TRUE(growers[0].starts);
  EXPECT_EQ(growers[0].extra, growers[0].max_extra);
  EXPECT_EQ(growers[0].held, Cpu(4000));
  // 6 - 4 cpus left for the younger job.
  EXPECT_EQ(growers[1].extra, 2);
}

TEST(ShareOldestFirstTest, StartingJobThatDoesNotFitWholeIsSkipped) {
  // Job 0 (older) needs 8 cpus whole; 5 are free: the younger takes them.
  std::vector<Grower> growers = {Starting(0, 2, 6, At(100)),
                                 Running(1, 2000, 5, At(200))};
  Share(Sharing::kOldestFirst, kTotal, Cpu(5000), growers);
  EXPECT_FALSE(growers[0].starts);
  EXPECT_EQ(growers[0].extra, 0);
  EXPECT_EQ(growers[1].extra, 5);
}

TEST(ShareOldestFirstTest, FreeResizeStartsWithMinimumInLeftoverRoom) {
  // Job 0 cannot start whole (8 cpus of 5); job 1 takes its one pod, and
  // job 0 then starts with its 2-pod minimum and grows into the last 2.
  std::vector<Grower> growers = {Starting(0, 2, 6, At(100)),
                                 Running(1, 2000, 1, At(200))};
  Share(Sharing::kOldestFirst, kTotal, Cpu(5000), growers);
  EXPECT_EQ(growers[1].extra, 1);
  EXPECT_TRUE(growers[0].starts);
  EXPECT_EQ(growers[0].extra, 2);
  EXPECT_EQ(growers[0].held, Cpu(4000));
}

TEST(ShareOldestFirstTest, CostlyResizeWaitsToStartWhole) {
  std::vector<Grower> growers = {
      Starting(0, 2, 6, At(100), /*resize_free=*/false),
      Running(1, 2000, 1, At(200))};
  Share(Sharing::kOldestFirst, kTotal, Cpu(5000), growers);
  EXPECT_EQ(growers[1].extra, 1);
  EXPECT_FALSE(growers[0].starts);
  EXPECT_EQ(growers[0].extra, 0);
  EXPECT_EQ(growers[0].held, Cpu(2000));
}

TEST(ShareOldestFirstTest, LeftoverTooSmallForMinimumDoesNotStart) {
  // 1 cpu left after job 1; job 0's minimum is 2.
  std::vector<Grower> growers = {Starting(0, 2, 6, At(100)),
                                 Running(1, 2000, 2, At(200))};
  Share(Sharing::kOldestFirst, kTotal, Cpu(3000), growers);
  EXPECT_EQ(growers[1].extra, 2);
  EXPECT_FALSE(growers[0].starts);
  EXPECT_EQ(growers[0].extra, 0);
}

TEST(ShareOldestFirstTest, StarvedJobGoesFirstAndStartsWithItsMinimum) {
  // Job 0 is the younger and cannot start whole (6 cpus of 5), but it
  // waited past the fairness bound: it goes before the older job 1 and
  // starts with its 2-pod minimum, growing into what is left.
  Grower starved = Starting(0, 2, 4, At(200), /*resize_free=*/false);
  starved.starved = true;
  starved.starved_since = At(300);
  std::vector<Grower> growers = {starved, Running(1, 2000, 10, At(100))};
  Share(Sharing::kOldestFirst, kTotal, Cpu(5000), growers);
  EXPECT_TRUE(growers[0].starts);
  EXPECT_EQ(growers[0].extra, 3);
  EXPECT_EQ(growers[0].held, Cpu(5000));
  EXPECT_EQ(growers[1].extra, 0);
}

TEST(ShareOldestFirstTest, StarvedJobStartsWithMinimumEvenIfOnlyThatFits) {
  Grower starved = Starting(0, 2, 4, At(200), /*resize_free=*/false);
  starved.starved = true;
  starved.starved_since = At(300);
  std::vector<Grower> growers = {starved, Running(1, 2000, 10, At(100))};
  Share(Sharing::kOldestFirst, kTotal, Cpu(2000), growers);
  EXPECT_TRUE(growers[0].starts);
  EXPECT_EQ(growers[0].extra, 0);
  EXPECT_EQ(growers[0].held, Cpu(2000));
  EXPECT_EQ(growers[1].extra, 0);
}

TEST(ShareOldestFirstTest, LongestStarvedGoesFirst) {
  Grower a = Running(0, 2000, 10, At(100));
  a.starved = true;
  a.starved_since = At(500);
  Grower b = Running(1, 2000, 10, At(200));
  b.starved = true;
  b.starved_since = At(400);
  std::vector<Grower> growers = {a, b};
  Share(Sharing::kOldestFirst, kTotal, Cpu(3000), growers);
  EXPECT_EQ(growers[1].extra, 3);
  EXPECT_EQ(growers[0].extra, 0);
}

TEST(ShareOldestFirstTest, SameSubmissionOrderedByJobIndex) {
  std::vector<Grower> growers = {Running(1, 2000, 10, At(100)),
                                 Running(0, 2000, 10, At(100))};
  Share(Sharing::kOldestFirst, kTotal, Cpu(3000), growers);
  EXPECT_EQ(growers[1].extra, 3);  // job 0
  EXPECT_EQ(growers[0].extra, 0);  // job 1
}

}  // namespace
}  // namespace shoal::plugins::elastic
