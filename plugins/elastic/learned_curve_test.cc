#include "plugins/elastic/learned_curve.h"

#include "gtest/gtest.h"

namespace shoal::plugins::elastic {
namespace {

absl::Time At(int64_t seconds) { return absl::FromUnixSeconds(seconds); }

// Feeds the log one observation a minute from `start`, `rate` work per
// second at `pods` pods, for `minutes` minutes; returns the progress.
double Feed(ScalingLog& log, int64_t& clock, double progress, int32_t pods,
            double rate, int minutes) {
  for (int m = 0; m < minutes; ++m) {
    log.Observe(At(clock), progress, pods);
    clock += 60;
    progress += rate * 60;
  }
  return progress;
}

TEST(ScalingLogTest, TheFirstIntervalAfterAChangeDoesNotCount) {
  ScalingLog log;
  int64_t clock = 0;
  // Two observations at 2 pods: one interval, the first after the start.
  double p = Feed(log, clock, 0, 2, 10, 2);
  EXPECT_FALSE(log.Measured());
  // A third: the interval 60 s -> 120 s counts (20 work/s).
  p = Feed(log, clock, p, 2, 10, 1);
  EXPECT_TRUE(log.Measured());
  EXPECT_DOUBLE_EQ(log.RateAt(2), 10);
  EXPECT_EQ(log.MeasuredSizes(), "2");
  // Resized to 4: its first interval holds the restart (no progress).
  log.Observe(At(clock), p, 4);
  clock += 60;
  log.Observe(At(clock), p, 4);  // 60 s of restart, nothing done
  clock += 60;
  log.Observe(At(clock), p + 60 * 18, 4);
  EXPECT_DOUBLE_EQ(log.RateAt(4), 18);
  EXPECT_EQ(log.MeasuredSizes(), "2, 4");
}

TEST(ScalingLogTest, FallingProgressStartsOver) {
  ScalingLog log;
  int64_t clock = 0;
  double p = Feed(log, clock, 1000, 1, 5, 3);  // 5/s measured at 1 pod
  EXPECT_DOUBLE_EQ(log.RateAt(1), 5);
  // Restarted from a checkpoint: progress back to 100, then 5/s again.
  (void)p;
  Feed(log, clock, 100, 1, 5, 3);
  EXPECT_DOUBLE_EQ(log.RateAt(1), 5);  // the fall itself never counted
}

TEST(ScalingLogTest, LearnedWithoutADeclaredCurve) {
  // 10/s at 2 pods, 15/s at 4: unit 10/2 = 5 per pod; 2=2, 4=3; beyond,
  // linear from the last point up to the job's 8 pods: 8=6.
  ScalingLog log;
  int64_t clock = 0;
  double p = Feed(log, clock, 0, 2, 10, 3);
  Feed(log, clock, p, 4, 15, 3);
  const Curve learned = log.Learned({}, 8);
  EXPECT_EQ(learned, (Curve{{2, 2}, {4, 3}, {8, 6}}));
}

TEST(ScalingLogTest, LearnedOverADeclaredCurve) {
  // Declared 1=1,2=1.9,4=3.5,8=6.1; measured 9/s at 2 pods, 12/s at 4:
  // unit 9/1.9 per pod, so 2=1.9 and 4=12*1.9/9=2.5333; below 2 the
  // declared 1=1; beyond 4 the declared shape from there: 8 = 2.5333 *
  // 6.1/3.5.
  ScalingLog log;
  int64_t clock = 0;
  double p = Feed(log, clock, 0, 2, 9, 3);
  Feed(log, clock, p, 4, 12, 3);
  const Curve declared = {{1, 1}, {2, 1.9}, {4, 3.5}, {8, 6.1}};
  const Curve learned = log.Learned(declared, 8);
  ASSERT_EQ(learned.size(), 4u);
  EXPECT_EQ(learned[0], (std::pair<int32_t, double>{1, 1}));
  EXPECT_EQ(learned[1].first, 2);
  EXPECT_NEAR(learned[1].second, 1.9, 1e-12);
  EXPECT_EQ(learned[2].first, 4);
  EXPECT_NEAR(learned[2].second, 12 * 1.9 / 9, 1e-12);
  EXPECT_EQ(learned[3].first, 8);
  EXPECT_NEAR(learned[3].second, 12 * 1.9 / 9 * 6.1 / 3.5, 1e-12);
}

TEST(ScalingLogTest, AFlatJobLearnsItGainsNothing) {
  // The same 10/s at 1 pod and at 2: the second pod adds nothing.
  ScalingLog log;
  int64_t clock = 0;
  double p = Feed(log, clock, 0, 1, 10, 3);
  Feed(log, clock, p, 2, 10, 3);
  const Curve learned = log.Learned({}, 2);
  EXPECT_EQ(learned, (Curve{{1, 1}, {2, 1}}));
  EXPECT_NEAR(NextPodGain(learned, 1), 0, 1e-12);
}

TEST(ScalingLogTest, NothingMeasuredLeavesTheDeclaredCurve) {
  ScalingLog log;
  log.Observe(At(0), 0, 4);
  EXPECT_TRUE(log.Learned({{1, 1}, {4, 3}}, 8).empty());
  EXPECT_EQ(log.MeasuredSizes(), "");
}

}  // namespace
}  // namespace shoal::plugins::elastic
