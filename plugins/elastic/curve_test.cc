#include "plugins/elastic/curve.h"

#include "gtest/gtest.h"

namespace shoal::plugins::elastic {
namespace {

TEST(CurveTest, NoCurveIsLinear) {
  EXPECT_DOUBLE_EQ(ThroughputAt({}, 0), 0);
  EXPECT_DOUBLE_EQ(ThroughputAt({}, 5), 5);
  EXPECT_DOUBLE_EQ(NextPodGain({}, 7), 1);
}

TEST(CurveTest, LinearBetweenPointsAndFlatBeyondTheLast) {
  const Curve c = {{1, 1}, {2, 1.9}, {4, 3.5}, {8, 6.1}};
  EXPECT_DOUBLE_EQ(ThroughputAt(c, 1), 1);
  EXPECT_DOUBLE_EQ(ThroughputAt(c, 3), 2.7);   // halfway from 1.9 to 3.5
  EXPECT_DOUBLE_EQ(ThroughputAt(c, 6), 4.8);   // halfway from 3.5 to 6.1
  EXPECT_DOUBLE_EQ(ThroughputAt(c, 12), 6.1);  // flat
  EXPECT_NEAR(NextPodGain(c, 1), 0.9, 1e-12);
  EXPECT_NEAR(NextPodGain(c, 4), 0.65, 1e-12);
  EXPECT_DOUBLE_EQ(NextPodGain(c, 8), 0);
}

TEST(CurveTest, BelowTheFirstPointItRisesFromNothing) {
  const Curve c = {{2, 1.9}, {4, 3.5}};
  EXPECT_DOUBLE_EQ(ThroughputAt(c, 1), 0.95);
  EXPECT_DOUBLE_EQ(NextPodGain(c, 0), 0.95);
}

TEST(CurveTest, FormatsAsTheAnnotationSaysIt) {
  EXPECT_EQ(FormatCurve({{1, 1}, {2, 1.9}, {4, 3.5}, {8, 6.1}}),
            "1=1,2=1.9,4=3.5,8=6.1");
  EXPECT_EQ(FormatCurve({{1, 0.1 + 0.2}}), "1=0.30000000000000004");
}

}  // namespace
}  // namespace shoal::plugins::elastic
