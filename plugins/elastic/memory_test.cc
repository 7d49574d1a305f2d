#include "plugins/elastic/memory.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "scheduler/api/cluster_info.h"
#include "scheduler/api/job_info.h"
#include "scheduler/api/task_info.h"

namespace shoal::plugins::elastic {
namespace {

using api::TaskStatus;

absl::Time At(int64_t seconds) { return absl::FromUnixSeconds(seconds); }

// A PodGroup default/<name> with `running` running pods, `pipelined`
// pipelined and `pending` pending ones (its counts only: Memory reads no
// more).
api::JobInfo Job(const std::string& name, const std::string& uid,
                 int32_t min_member, int32_t running, int32_t pending = 0,
                 int32_t pipelined = 0) {
  api::JobInfo job;
  job.ns = "default";
  job.name = name;
  job.uid = uid;
  job.min_member = min_member;
  job.count_by_status[static_cast<int>(TaskStatus::kRunning)] = running;
  job.count_by_status[static_cast<int>(TaskStatus::kPending)] = pending;
  job.count_by_status[static_cast<int>(TaskStatus::kPipelined)] = pipelined;
  return job;
}

api::ClusterInfo Cluster(absl::Time now, std::vector<api::JobInfo> jobs) {
  api::ClusterInfo c;
  c.now = now;
  for (size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].index = static_cast<api::JobIndex>(i);
  }
  c.jobs = std::move(jobs);
  return c;
}

void AddTask(api::ClusterInfo& c, const std::string& uid, TaskStatus status) {
  auto pod = std::make_shared<api::PodInfo>();
  pod->ns = "default";
  pod->name = uid;
  pod->uid = uid;
  pod->status = status;
  api::TaskInfo t;
  t.pod = pod;
  t.status = status;
  c.tasks.push_back(t);
}

// ----- RecordSizes -----

TEST(MemoryRecordSizesTest, FirstCloseAtMinimumIsTheStart) {
  Memory m(300);
  m.RecordSizes(Cluster(At(100), {Job("a", "ua", 2, 2)}));
  ASSERT_TRUE(m.jobs.contains("default/a"));
  const JobMemory& a = m.jobs.at("default/a");
  EXPECT_EQ(a.uid, "ua");
  EXPECT_TRUE(a.started);
  EXPECT_FALSE(a.interrupted);
  EXPECT_EQ(a.size, 2);
  EXPECT_EQ(a.started_at, At(100));
  EXPECT_EQ(a.changed, At(100));
  EXPECT_EQ(a.resizes, 0);
}

TEST(MemoryRecordSizesTest, FirstCloseAboveMinimumIsTheStart) {
  Memory m(300);
  m.RecordSizes(Cluster(At(100), {Job("a", "ua", 2, 4)}));
  const JobMemory& a = m.jobs.at("default/a");
  EXPECT_TRUE(a.started);
  EXPECT_EQ(a.size, 4);
  EXPECT_EQ(a.resizes, 0);
}

TEST(MemoryRecordSizesTest, BelowMinimumHasNotStarted) {
  Memory m(300);
  m.RecordSizes(Cluster(At(100), {Job("a", "ua", 3, 2, 1)}));
  const JobMemory& a = m.jobs.at("default/a");
  EXPECT_FALSE(a.started);
  EXPECT_EQ(a.size, 0);
  EXPECT_EQ(a.started_at, absl::InfinitePast());
  // It starts when its minimum is placed, with no resize.
  m.RecordSizes(Cluster(At(110), {Job("a", "ua", 3, 3)}));
  EXPECT_TRUE(m.jobs.at("default/a").started);
  EXPECT_EQ(m.jobs.at("default/a").started_at, At(110));
  EXPECT_EQ(m.jobs.at("default/a").resizes, 0);
}

TEST(MemoryRecordSizesTest, PipelinedPodsCountAsPlaced) {
  Memory m(300);
  m.RecordSizes(Cluster(At(100), {Job("a", "ua", 2, 1, 0, 1)}));
  EXPECT_TRUE(m.jobs.at("default/a").started);
  EXPECT_EQ(m.jobs.at("default/a").size, 2);
}

TEST(MemoryRecordSizesTest, ChangedCountIsOneResize) {
  Memory m(300);
  m.RecordSizes(Cluster(At(100), {Job("a", "ua", 2, 2, 2)}));
  m.RecordSizes(Cluster(At(200), {Job("a", "ua", 2, 4)}));
  const JobMemory& a = m.jobs.at("default/a");
  EXPECT_EQ(a.resizes, 1);
  EXPECT_EQ(a.changed, At(200));
  EXPECT_EQ(a.started_at, At(100));
  EXPECT_EQ(a.size, 4);
  // The same count again changes nothing.
  m.RecordSizes(Cluster(At(300), {Job("a", "ua", 2, 4)}));
  EXPECT_EQ(m.jobs.at("default/a").resizes, 1);
  EXPECT_EQ(m.jobs.at("default/a").changed, At(200));
  // A shrink is a resize too.
  m.RecordSizes(Cluster(At(400), {Job("a", "ua", 2, 3, 1)}));
  EXPECT_EQ(m.jobs.at("default/a").resizes, 2);
  EXPECT_EQ(m.jobs.at("default/a").changed, At(400));
  EXPECT_EQ(m.jobs.at("default/a").size, 3);
}

TEST(MemoryRecordSizesTest, FallingBelowMinimumThenRunningIsOneRestart) {
  Memory m(300);
  m.RecordSizes(Cluster(At(100), {Job("a", "ua", 2, 2)}));
  m.RecordSizes(Cluster(At(200), {Job("a", "ua", 2, 1, 1)}));
  {
    const JobMemory& a = m.jobs.at("default/a");
    EXPECT_TRUE(a.interrupted);
    EXPECT_EQ(a.size, 0);
    EXPECT_EQ(a.resizes, 0);  // the fall itself is not counted
    EXPECT_EQ(a.changed, At(100));
  }
  // Still below: still one interruption.
  m.RecordSizes(Cluster(At(250), {Job("a", "ua", 2, 0, 2)}));
  EXPECT_EQ(m.jobs.at("default/a").resizes, 0);
  // Back at the same size: a restart, one resize.
  m.RecordSizes(Cluster(At(300), {Job("a", "ua", 2, 2)}));
  const JobMemory& a = m.jobs.at("default/a");
  EXPECT_EQ(a.resizes, 1);
  EXPECT_EQ(a.changed, At(300));
  EXPECT_FALSE(a.interrupted);
  EXPECT_EQ(a.size, 2);
  EXPECT_EQ(a.started_at, At(100));
}

TEST(MemoryRecordSizesTest, NewUidStartsOver) {
  Memory m(300);
  m.RecordSizes(Cluster(At(100), {Job("a", "ua", 2, 2)}));
  m.RecordSizes(Cluster(At(200), {Job("a", "ua", 2, 3)}));
  ASSERT_EQ(m.jobs.at("default/a").resizes, 1);
  // Deleted and created again under the same name.
  m.RecordSizes(Cluster(At(300), {Job("a", "ua2", 2, 4)}));
  const JobMemory& a = m.jobs.at("default/a");
  EXPECT_EQ(a.uid, "ua2");
  EXPECT_EQ(a.resizes, 0);
  EXPECT_EQ(a.started_at, At(300));
  EXPECT_EQ(a.changed, At(300));
  EXPECT_EQ(a.size, 4);
}

TEST(MemoryRecordSizesTest, NewUidBelowMinimumForgetsTheOldRun) {
  Memory m(300);
  m.RecordSizes(Cluster(At(100), {Job("a", "ua", 2, 2)}));
  m.RecordSizes(Cluster(At(200), {Job("a", "ua2", 2, 0, 2)}));
  const JobMemory& a = m.jobs.at("default/a");
  EXPECT_EQ(a.uid, "ua2");
  EXPECT_FALSE(a.started);
  EXPECT_FALSE(a.interrupted);
  // Its first run is a start, not a restart.
  m.RecordSizes(Cluster(At(300), {Job("a", "ua2", 2, 2)}));
  EXPECT_EQ(m.jobs.at("default/a").resizes, 0);
  EXPECT_EQ(m.jobs.at("default/a").started_at, At(300));
}

TEST(MemoryRecordSizesTest, AtMinimumSinceWhileAtMinimumWithPodsPending) {
  Memory m(300);
  m.RecordSizes(Cluster(At(100), {Job("a", "ua", 2, 2, 2)}));
  EXPECT_EQ(m.jobs.at("default/a").at_minimum_since, At(100));
  // Still there: since when it first was.
  m.RecordSizes(Cluster(At(200), {Job("a", "ua", 2, 2, 2)}));
  EXPECT_EQ(m.jobs.at("default/a").at_minimum_since, At(100));
  // Grown: cleared.
  m.RecordSizes(Cluster(At(300), {Job("a", "ua", 2, 3, 1)}));
  EXPECT_EQ(m.jobs.at("default/a").at_minimum_since, absl::InfiniteFuture());
  // Back at its minimum: from now.
  m.RecordSizes(Cluster(At(400), {Job("a", "ua", 2, 2, 2)}));
  EXPECT_EQ(m.jobs.at("default/a").at_minimum_since, At(400));
  // Below its minimum: cleared.
  m.RecordSizes(Cluster(At(500), {Job("a", "ua", 2, 1, 3)}));
  EXPECT_EQ(m.jobs.at("default/a").at_minimum_since, absl::InfiniteFuture());
}

TEST(MemoryRecordSizesTest, AtMinimumWithNothingPendingIsNotWaiting) {
  Memory m(300);
  m.RecordSizes(Cluster(At(100), {Job("a", "ua", 2, 2, 0)}));
  EXPECT_EQ(m.jobs.at("default/a").at_minimum_since, absl::InfiniteFuture());
  m.RecordSizes(Cluster(At(200), {Job("a", "ua", 2, 2, 1)}));
  EXPECT_EQ(m.jobs.at("default/a").at_minimum_since, At(200));
  m.RecordSizes(Cluster(At(300), {Job("a", "ua", 2, 2, 0)}));
  EXPECT_EQ(m.jobs.at("default/a").at_minimum_since, absl::InfiniteFuture());
}

TEST(MemoryRecordSizesTest, JobsGoneFromTheClusterAreForgotten) {
  Memory m(300);
  m.RecordSizes(Cluster(At(100), {Job("a", "ua", 2, 2), Job("b", "ub", 1, 3)}));
  EXPECT_EQ(m.jobs.size(), 2u);
  m.RecordSizes(Cluster(At(200), {Job("b", "ub", 1, 3)}));
  EXPECT_EQ(m.jobs.size(), 1u);
  EXPECT_FALSE(m.jobs.contains("default/a"));
  EXPECT_TRUE(m.jobs.contains("default/b"));
  // Back under the same name: a new start.
  m.RecordSizes(Cluster(At(300), {Job("a", "ua", 2, 3), Job("b", "ub", 1, 3)}));
  EXPECT_EQ(m.jobs.at("default/a").resizes, 0);
  EXPECT_EQ(m.jobs.at("default/a").started_at, At(300));
}

TEST(MemoryRecordSizesTest, JobsOfOnePodAreNotRemembered) {
  Memory m(300);
  api::JobInfo single = Job("lone", "ul", 1, 1);
  single.source = api::GroupSource::kSinglePod;
  m.RecordSizes(Cluster(At(100), {single}));
  EXPECT_TRUE(m.jobs.empty());
}

// ----- ExpectedRoomAfter -----

// A pod remembered as placed at `placed`.
PodMemory Lent(absl::Time placed, const std::string& job_uid,
               bool beyond_minimum = true) {
  PodMemory p;
  p.cycle = 1;
  p.placed = placed;
  p.beyond_minimum = beyond_minimum;
  p.job = JobId(job_uid);
  return p;
}

TEST(MemoryExpectedRoomTest, GoneLentPodOfRunningJobMovesTheEstimate) {
  Memory m(300);
  m.pods["p1"] = Lent(At(900), "ua");
  api::ClusterInfo c = Cluster(At(1000), {Job("a", "ua", 2, 2, 1)});
  AddTask(c, "p0", TaskStatus::kRunning);
  // 0.8 * 300 + 0.2 * 100.
  EXPECT_DOUBLE_EQ(m.ExpectedRoomAfter(c), 260);
  // The estimate is only returned; the caller stores it.
  EXPECT_DOUBLE_EQ(m.expected_room_seconds(), 300);
}

TEST(MemoryExpectedRoomTest, RecreatedAsPendingStillCountsAsGone) {
  // A pending task under the uid holds no share.
  Memory m(300);
  m.pods["p1"] = Lent(At(900), "ua");
  api::ClusterInfo c = Cluster(At(1000), {Job("a", "ua", 2, 2, 1)});
  AddTask(c, "p1", TaskStatus::kPending);
  EXPECT_DOUBLE_EQ(m.ExpectedRoomAfter(c), 260);
}

TEST(MemoryExpectedRoomTest, TwoGonePodsEachMoveIt) {
  Memory m(300);
  m.pods["p1"] = Lent(At(900), "ua");
  m.pods["p2"] = Lent(At(900), "ua");
  api::ClusterInfo c = Cluster(At(1000), {Job("a", "ua", 2, 2)});
  // 0.8 * (0.8 * 300 + 0.2 * 100) + 0.2 * 100.
  EXPECT_DOUBLE_EQ(m.ExpectedRoomAfter(c), 228);
}

TEST(MemoryExpectedRoomTest, PodStillHoldingShareIsIgnored) {
  Memory m(300);
  m.pods["p1"] = Lent(At(900), "ua");
  for (TaskStatus s :
       {TaskStatus::kRunning, TaskStatus::kBound, TaskStatus::kBinding,
        TaskStatus::kAllocated, TaskStatus::kPipelined}) {
    api::ClusterInfo c = Cluster(At(1000), {Job("a", "ua", 2, 2)});
    AddTask(c, "p1", s);
    EXPECT_DOUBLE_EQ(m.ExpectedRoomAfter(c), 300) << api::TaskStatusName(s);
  }
}

TEST(MemoryExpectedRoomTest, PodWithinMinimumIsIgnored) {
  Memory m(300);
  m.pods["p1"] = Lent(At(900), "ua", /*beyond_minimum=*/false);
  EXPECT_DOUBLE_EQ(
      m.ExpectedRoomAfter(Cluster(At(1000), {Job("a", "ua", 2, 2)})), 300);
}

TEST(MemoryExpectedRoomTest, PodOfGoneJobIsIgnored) {
  Memory m(300);
  m.pods["p1"] = Lent(At(900), "ua");
  // No job at all.
  EXPECT_DOUBLE_EQ(m.ExpectedRoomAfter(Cluster(At(1000), {})), 300);
  // The same name under another uid: a new job, the old one is gone.
  EXPECT_DOUBLE_EQ(
      m.ExpectedRoomAfter(Cluster(At(1000), {Job("a", "ua2", 2, 2)})), 300);
}

TEST(MemoryExpectedRoomTest, PodOfJobBelowItsMinimumIsIgnored) {
  Memory m(300);
  m.pods["p1"] = Lent(At(900), "ua");
  EXPECT_DOUBLE_EQ(
      m.ExpectedRoomAfter(Cluster(At(1000), {Job("a", "ua", 2, 1, 1)})), 300);
}

TEST(MemoryExpectedRoomTest, PodWithoutPlacementTimeIsIgnored) {
  Memory m(300);
  m.pods["p1"] = Lent(absl::InfinitePast(), "ua");
  m.pods["p2"] = Lent(At(1000), "ua");  // lived 0 s
  EXPECT_DOUBLE_EQ(
      m.ExpectedRoomAfter(Cluster(At(1000), {Job("a", "ua", 2, 2)})), 300);
}

}  // namespace
}  // namespace shoal::plugins::elastic
