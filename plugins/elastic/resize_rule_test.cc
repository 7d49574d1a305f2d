#include "plugins/elastic/resize_rule.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shoal::plugins::elastic {
namespace {

using ::testing::HasSubstr;

// A growth from 2 to 4 pods with a restart cost of 100 s, long past any
// hold, where room is expected to stay `room` seconds: it gains
// 2 * room pod-seconds against 4 * 100 = 400.
Growth TwoToFour(double room) {
  Growth g;
  g.size = 2;
  g.target = 4;
  g.cost_seconds = 100;
  g.since_change_seconds = 1000;
  g.hold_seconds = 60;
  g.expected_room_seconds = room;
  return g;
}

TEST(GrowthHeldBackTest, FreeResizeAlwaysGoesAhead) {
  Growth g = TwoToFour(0);     // would never pay
  g.since_change_seconds = 0;  // and is within its hold
  g.cost_seconds = 0;
  EXPECT_EQ(GrowthHeldBack(g), "");
  g.cost_seconds = -1;
  EXPECT_EQ(GrowthHeldBack(g), "");
}

TEST(GrowthHeldBackTest, NoGrowthIsNeverHeldBack) {
  Growth g = TwoToFour(0);
  g.since_change_seconds = 0;
  g.target = g.size;
  EXPECT_EQ(GrowthHeldBack(g), "");
  g.target = g.size - 1;  // a shrink
  EXPECT_EQ(GrowthHeldBack(g), "");
}

TEST(GrowthHeldBackTest, HeldWithinHoldNamingIt) {
  Growth g = TwoToFour(1e6);  // would pay handsomely
  g.since_change_seconds = 10;
  g.hold_seconds = 60;
  const std::string why = GrowthHeldBack(g);
  EXPECT_THAT(why, HasSubstr("growth from 2 to 4 pods held"));
  EXPECT_THAT(why, HasSubstr("changed 10s ago"));
  EXPECT_THAT(why, HasSubstr("at least 60s between resizes"));
  EXPECT_EQ(why,
            "growth from 2 to 4 pods held: its pod count changed 10s ago, "
            "and a job keeps its size at least 60s between resizes");
}

TEST(GrowthHeldBackTest, HoldEndsExactlyAtHoldSeconds) {
  Growth g = TwoToFour(1e6);
  g.hold_seconds = 60;
  g.since_change_seconds = 59.9;
  EXPECT_THAT(GrowthHeldBack(g), HasSubstr("held"));
  g.since_change_seconds = 60;
  EXPECT_EQ(GrowthHeldBack(g), "");
}

TEST(GrowthHeldBackTest, HoldIsCheckedBeforeThePayoff) {
  Growth g = TwoToFour(1);  // would not pay either
  g.since_change_seconds = 5;
  const std::string why = GrowthHeldBack(g);
  EXPECT_THAT(why, HasSubstr("held"));
  EXPECT_THAT(why, ::testing::Not(HasSubstr("skipped")));
}

TEST(GrowthHeldBackTest, GrowsWhenGainExceedsCost) {
  // 2 * 201 = 402 pod-s > 4 * 100 = 400.
  EXPECT_EQ(GrowthHeldBack(TwoToFour(201)), "");
  EXPECT_EQ(GrowthHeldBack(TwoToFour(1e6)), "");
}

TEST(GrowthHeldBackTest, GainEqualToCostIsRefused) {
  // 2 * 200 = 400 pod-s == 4 * 100 = 400: no gain, no growth.
  const std::string why = GrowthHeldBack(TwoToFour(200));
  EXPECT_EQ(why,
            "growth from 2 to 4 pods skipped: 2 more pods for the ~200s room "
            "is expected to stay (400 pod-s) do not pay a restart of 4 pods "
            "(100s: 400 pod-s)");
}

TEST(GrowthHeldBackTest, SkippedSentenceNamesSizesAndCost) {
  Growth g;
  g.size = 3;
  g.target = 8;
  g.cost_seconds = 120;
  g.since_change_seconds = 600;
  g.hold_seconds = 300;
  g.expected_room_seconds = 150;  // 5 * 150 = 750 < 8 * 120 = 960
  const std::string why = GrowthHeldBack(g);
  EXPECT_THAT(why, HasSubstr("growth from 3 to 8 pods skipped"));
  EXPECT_THAT(why, HasSubstr("5 more pods"));
  EXPECT_THAT(why, HasSubstr("~150s room"));
  EXPECT_THAT(why, HasSubstr("(750 pod-s)"));
  EXPECT_THAT(why, HasSubstr("restart of 8 pods (120s: 960 pod-s)"));
}

TEST(GrowthHeldBackTest, NoExpectedRoomNeverPays) {
  EXPECT_THAT(GrowthHeldBack(TwoToFour(0)), HasSubstr("skipped"));
}

TEST(GrowthHeldBackTest, GrowingByOnePodBoundary) {
  // 1 * room > 10 * 30 = 300.
  Growth g;
  g.size = 9;
  g.target = 10;
  g.cost_seconds = 30;
  g.since_change_seconds = 100;
  g.hold_seconds = 0;
  g.expected_room_seconds = 300;
  EXPECT_THAT(GrowthHeldBack(g), HasSubstr("from 9 to 10 pods skipped"));
  g.expected_room_seconds = 300.5;
  EXPECT_EQ(GrowthHeldBack(g), "");
}

TEST(GrowthHeldBackTest, AScalingCurveIsWeighedInsteadOfPodCounts) {
  // Linear, 2 -> 4 pods for ~300 s: 600 pod-s against 4 * 100 = 400: it
  // pays. A job that scales well (3.6 at 4 pods, 1.9 at 2) gains
  // 1.7 * 300 = 510 against 3.6 * 100 = 360: it pays too. One whose curve
  // is nearly flat gains 0.05 * 300 = 15 against 1.1 * 100 = 110: it does
  // not.
  Growth g = TwoToFour(300);
  EXPECT_EQ(GrowthHeldBack(g), "");
  const Curve good = {{1, 1}, {2, 1.9}, {4, 3.6}, {8, 7}};
  g.curve = &good;
  EXPECT_EQ(GrowthHeldBack(g), "");
  const Curve flat = {{1, 1}, {2, 1.05}, {4, 1.1}, {8, 1.1}};
  g.curve = &flat;
  EXPECT_EQ(GrowthHeldBack(g),
            "growth from 2 to 4 pods skipped: its throughput would go from "
            "1.05 to 1.1 (shoal.dev/throughput), and that for the ~300s room "
            "is expected to stay (15 pod-s) does not pay a restart at "
            "throughput 1.1 (100s: 110 pod-s)");
  // 200 s: 1.7 * 200 = 340 < 360, where linear 2 * 200 = 400 ties 400.
  g = TwoToFour(200);
  g.curve = &good;
  EXPECT_THAT(GrowthHeldBack(g),
              HasSubstr("is expected to stay (340 pod-s) does not pay a "
                        "restart at throughput 3.6 (100s: 360 pod-s)"));
}

}  // namespace
}  // namespace shoal::plugins::elastic
