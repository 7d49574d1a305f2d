#include "scheduler/admin/elastic_line.h"

#include "gtest/gtest.h"

namespace shoal::admin {
namespace {

api::JobInfo Elastic(int min, int pods) {
  api::JobInfo job;
  job.min_member = min;
  for (int i = 0; i < pods; ++i) job.tasks.push_back(i);
  return job;
}

TEST(ElasticLineTest, ARigidJobWithFreeResizesSaysNothing) {
  EXPECT_EQ(ElasticLine(Elastic(4, 4)), "");
}

// A policy without the elastic plugin sets no target: an elastic job's
// line would only say "target 0".
TEST(ElasticLineTest, AnElasticJobNoPluginTargetedSaysNothing) {
  EXPECT_EQ(ElasticLine(Elastic(9, 13)), "");
}

TEST(ElasticLineTest, SaysTargetCostItsSourceResizesAndWhyGrowthWaits) {
  api::JobInfo job = Elastic(8, 16);
  job.elastic_target = 12;
  job.resizing.cost_seconds = 30;
  EXPECT_EQ(ElasticLine(job),
            "target 12 of 16 pods (minMember 8); resize cost 30s (the "
            "elastic plugin's resizeCostSeconds); no resizes since the "
            "scheduler started");
  job.resize_cost_seconds = 30;
  job.resizing.count = 3;
  job.resizing.last = absl::FromUnixSeconds(1700000000);
  job.resizing.held = "growth from 12 to 16 pods held: ...";
  EXPECT_EQ(ElasticLine(job),
            "target 12 of 16 pods (minMember 8); resize cost 30s (annotation "
            "shoal.dev/resize-cost-seconds); 3 resizes, the last at "
            "2023-11-14T22:13:20Z; growth from 12 to 16 pods held: ...");
}

TEST(ThroughputLineTest, StatesTheCurveAndWhatTheNextPodAdds) {
  api::JobInfo job = Elastic(1, 8);
  EXPECT_EQ(ThroughputLine(job), "");  // no curve: linear, nothing to say
  job.throughput = {{1, 1}, {2, 1.9}, {4, 3.6}, {8, 7}};
  job.count_by_status[static_cast<int>(api::TaskStatus::kRunning)] = 4;
  // 4 -> 8 pods: 3.4 over 4 pods, 0.85 each.
  EXPECT_EQ(ThroughputLine(job),
            "1=1,2=1.9,4=3.6,8=7 (annotation shoal.dev/throughput, relative "
            "to one pod); at 4 pods 3.6; pod 5 would add 0.85");
  job.count_by_status[static_cast<int>(api::TaskStatus::kRunning)] = 8;
  EXPECT_EQ(ThroughputLine(job),
            "1=1,2=1.9,4=3.6,8=7 (annotation shoal.dev/throughput, relative "
            "to one pod); at 8 pods 7; pod 9 would add 0 (the curve is flat "
            "past 8 pods)");
  // A curve the elastic plugin learned from the job's progress reports.
  job.throughput_source = "learned from shoal.dev/progress at 2, 4 pods";
  EXPECT_EQ(ThroughputLine(job),
            "1=1,2=1.9,4=3.6,8=7 (learned from shoal.dev/progress at 2, 4 "
            "pods, relative to one pod); at 8 pods 7; pod 9 would add 0 (the "
            "curve is flat past 8 pods)");
}

}  // namespace
}  // namespace shoal::admin
