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

// A running job at its minimum of `min_pods` 1-cpu pods, growing by
// 1-cpu pods up to `max_extra`, along `curve` (null: linear); `kept` of
// its extra pods run now.
Grower Scaling(api::JobIndex job, int32_t min_pods, int32_t max_extra,
               const Curve* curve, int32_t kept = 0) {
  Grower g = Running(job, 1000 * min_pods, max_extra);
  g.min_pods = min_pods;
  g.curve = curve;
  g.kept = kept;
  return g;
}

const Curve kFlat = {{1, 1}, {2, 1}};
const Curve kScales = {{1, 1}, {2, 1.9}, {4, 3.6}, {8, 7}};
const Curve kBarely = {{1, 1}, {2, 1.05}, {4, 1.1}, {8, 1.1}};

TEST(ShareThroughputTest, AFlatCurveGetsNoSecondPodWhileALinearJobGains) {
  std::vector<Grower> growers = {Scaling(0, 1, 10, &kFlat),
                                 Scaling(1, 1, 10, nullptr)};
  Share(Sharing::kThroughput, kTotal, Cpu(6000), growers);
  EXPECT_EQ(growers[0].extra, 0);
  EXPECT_EQ(growers[1].extra, 6);
  // Alone, it still gets none: a pod that adds nothing is not placed.
  std::vector<Grower> alone = {Scaling(0, 1, 10, &kFlat)};
  Share(Sharing::kThroughput, kTotal, Cpu(6000), alone);
  EXPECT_EQ(alone[0].extra, 0);
}

TEST(ShareThroughputTest, LinearJobsShareEvenly) {
  // No curves: every pod adds 1, ties go to the smaller share, as even.
  std::vector<Grower> growers = {Scaling(0, 1, 10, nullptr),
                                 Scaling(1, 3, 10, nullptr)};
  Share(Sharing::kThroughput, kTotal, Cpu(6000), growers);
  EXPECT_EQ(growers[0].extra, 4);  // 1 + 4 = 5 pods
  EXPECT_EQ(growers[1].extra, 2);  // 3 + 2 = 5 pods
}

TEST(ShareThroughputTest, TheJobThatScalesBetterGetsTheRoom) {
  // Minimum 1 each. kScales' next pods add 0.9, then 0.85 each up to 8
  // pods; kBarely's add 0.05, then 0.025 twice, then nothing.
  std::vector<Grower> growers = {Scaling(0, 1, 7, &kScales),
                                 Scaling(1, 1, 7, &kBarely)};
  Share(Sharing::kThroughput, kTotal, Cpu(8000), growers);
  EXPECT_EQ(growers[0].extra, 7);  // 8 pods
  EXPECT_EQ(growers[1].extra, 1);  // 2 pods
  // More room: kBarely up to 4 pods, where its curve ends; 2 cpus idle.
  growers = {Scaling(0, 1, 7, &kScales), Scaling(1, 1, 7, &kBarely)};
  Share(Sharing::kThroughput, kTotal, Cpu(12000), growers);
  EXPECT_EQ(growers[0].extra, 7);
  EXPECT_EQ(growers[1].extra, 3);
}

TEST(ShareThroughputTest, TwoConcaveCurvesInterleaveByMarginalGain) {
  // a adds 0.9, 0.8, 0.8, then 0.65 a pod; b adds 0.8, 0.7, 0.7, then
  // nothing. Five pods: a (0.9); a and b at 0.8, b's share is smaller: b;
  // a (0.8), a (0.8); then b's 0.7 beats a's 0.65.
  const Curve a = {{1, 1}, {2, 1.9}, {4, 3.5}, {8, 6.1}};
  const Curve b = {{1, 1}, {2, 1.8}, {4, 3.2}};
  std::vector<Grower> growers = {Scaling(0, 1, 7, &a), Scaling(1, 1, 7, &b)};
  Share(Sharing::kThroughput, kTotal, Cpu(5000), growers);
  EXPECT_EQ(growers[0].extra, 3);
  EXPECT_EQ(growers[1].extra, 2);
}

TEST(ShareThroughputTest, GainIsPerUnitOfTheDominantResource) {
  // A linear job of 2-cpu pods gains 1 per 2 cpus; one of 1-cpu pods
  // whose curve adds 0.6 a pod (1 to 2.8 over 3 pods) gains 0.6 per cpu:
  // it goes first, then the 2-cpu job takes what fits.
  const Curve sixth = {{1, 1}, {4, 2.8}};
  std::vector<Grower> growers = {Scaling(0, 1, 10, nullptr),
                                 Scaling(1, 1, 3, &sixth)};
  growers[0].pod = Cpu(2000);
  Share(Sharing::kThroughput, kTotal, Cpu(6000), growers);
  EXPECT_EQ(growers[1].extra, 3);  // 3 cpus
  EXPECT_EQ(growers[0].extra, 1);  // 2 cpus; 1 left
}

TEST(ShareThroughputTest, HysteresisKeepsPodsUnlessTheGainBeatsTheMargin) {
  // Both linear, "a" runs 3 extra pods: moving one to "b" gains nothing,
  // so none moves, where even sharing would give "b" half.
  std::vector<Grower> growers = {Scaling(0, 1, 10, nullptr, /*kept=*/3),
                                 Scaling(1, 1, 10, nullptr)};
  Share(Sharing::kThroughput, kTotal, Cpu(3000), growers);
  EXPECT_EQ(growers[0].extra, 3);
  EXPECT_EQ(growers[1].extra, 0);
  // "b"'s second pod adds 1.2 (1 to 2.2, flat after): more than a's 1 by
  // more than the margin (0.1), so one pod moves; not by more than 0.3.
  const Curve jump = {{1, 1}, {2, 2.2}};
  growers = {Scaling(0, 1, 10, nullptr, /*kept=*/3), Scaling(1, 1, 10, &jump)};
  Share(Sharing::kThroughput, kTotal, Cpu(3000), growers);
  EXPECT_EQ(growers[0].extra, 2);
  EXPECT_EQ(growers[1].extra, 1);
  growers = {Scaling(0, 1, 10, nullptr, /*kept=*/3), Scaling(1, 1, 10, &jump)};
  Share(Sharing::kThroughput, kTotal, Cpu(3000), growers, /*margin=*/0.3);
  EXPECT_EQ(growers[0].extra, 3);
  EXPECT_EQ(growers[1].extra, 0);
}

TEST(ShareJobOrderTest, EachTakesAllItCanInRankOrder) {
  // Grower 1 ranks first, though listed second: it takes all it can (3),
  // grower 0 the rest.
  std::vector<Grower> growers = {Running(0, 2000, 10), Running(1, 2000, 3)};
  growers[0].rank = 1;
  growers[1].rank = 0;
  Share(Sharing::kJobOrder, kTotal, Cpu(5000), growers);
  EXPECT_EQ(growers[1].extra, 3);
  EXPECT_EQ(growers[0].extra, 2);
}

TEST(ShareJobOrderTest, NoPodWhoseGainIsNothing) {
  // The first ranked job's curve is flat after 2 pods: it stops there
  // and the room passes on.
  const Curve flat = {{1, 1}, {2, 1.8}, {4, 1.8}};
  std::vector<Grower> growers = {Running(0, 1000, 10), Running(1, 1000, 10)};
  growers[0].curve = &flat;
  growers[0].min_pods = 1;
  growers[1].rank = 1;
  Share(Sharing::kJobOrder, kTotal, Cpu(6000), growers);
  EXPECT_EQ(growers[0].extra, 1);
  EXPECT_EQ(growers[1].extra, 5);
}

}  // namespace
}  // namespace shoal::plugins::elastic
