// What a cycle decided about a PodGroup is kept until the source shows
// it, or shows something newer, and dropped with the PodGroup.
#include "scheduler/cache/cache.h"

#include "gtest/gtest.h"

namespace shoal::cache {
namespace {

using api::PodGroupPhase;

api::JobInfo Group(const std::string& uid, PodGroupPhase phase) {
  api::JobInfo g;
  g.ns = "ml";
  g.name = "train";
  g.uid = uid;
  g.min_member = 2;
  g.phase = phase;
  return g;
}

// The cycle's verdict on the PodGroup: the snapshot with `phase` decided.
api::ClusterInfo Decided(const Cache& cache, PodGroupPhase phase,
                         int32_t elastic_target = 0) {
  api::ClusterInfo cluster = cache.Snapshot();
  for (api::JobInfo& job : cluster.jobs) {
    job.phase = phase;
    job.elastic_target = elastic_target;
  }
  return cluster;
}

PodGroupPhase PhaseOf(const Cache& cache) {
  return cache.Snapshot().jobs.at(0).phase;
}

TEST(CacheTest, AdmissionIsKeptUntilTheSourceShowsIt) {
  Cache cache("shoal");
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kPending));
  cache.KeepDecisions(Decided(cache, PodGroupPhase::kInqueue, 5));
  // The status write has not come back: the next cycle still sees it
  // admitted, and the elastic target it was given.
  EXPECT_EQ(PhaseOf(cache), PodGroupPhase::kInqueue);
  EXPECT_EQ(cache.Snapshot().jobs[0].elastic_target, 5);
  EXPECT_EQ(cache.KeptCount(), 1);
  // Another change to the PodGroup (its spec) still shows the old phase.
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kPending));
  EXPECT_EQ(PhaseOf(cache), PodGroupPhase::kInqueue);
  // The write comes back: the source's view wins from now on.
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kInqueue));
  EXPECT_EQ(cache.KeptCount(), 0);
  EXPECT_EQ(PhaseOf(cache), PodGroupPhase::kInqueue);
  // The elastic target, which the schema may prune, stays.
  EXPECT_EQ(cache.Snapshot().jobs[0].elastic_target, 5);
}

TEST(CacheTest, AnEarlierWriteOfOursComingBackDoesNotUndoALaterDecision) {
  Cache cache("shoal");
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kPending));
  cache.KeepDecisions(Decided(cache, PodGroupPhase::kInqueue));
  cache.KeepDecisions(Decided(cache, PodGroupPhase::kRunning));
  cache.UpsertPodGroup(
      Group("u1", PodGroupPhase::kInqueue));  // the first write
  EXPECT_EQ(PhaseOf(cache), PodGroupPhase::kRunning);
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kRunning));  // the second
  EXPECT_EQ(cache.KeptCount(), 0);
}

TEST(CacheTest, AnotherWritersPhaseSupersedesTheDecision) {
  Cache cache("shoal");
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kPending));
  cache.KeepDecisions(Decided(cache, PodGroupPhase::kInqueue));
  cache.UpsertPodGroup(
      Group("u1", PodGroupPhase::kCompleted));  // e.g. a job controller
  EXPECT_EQ(PhaseOf(cache), PodGroupPhase::kCompleted);
  EXPECT_EQ(cache.KeptCount(), 0);
}

TEST(CacheTest, DecisionsGoWithTheirPodGroup) {
  Cache cache("shoal");
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kPending));
  cache.KeepDecisions(Decided(cache, PodGroupPhase::kInqueue, 3));
  // Recreated under the same name: a new PodGroup, nothing decided yet.
  cache.UpsertPodGroup(Group("u2", PodGroupPhase::kPending));
  EXPECT_EQ(PhaseOf(cache), PodGroupPhase::kPending);
  EXPECT_EQ(cache.Snapshot().jobs[0].elastic_target, 0);
  cache.KeepDecisions(Decided(cache, PodGroupPhase::kInqueue));
  cache.DeletePodGroup("ml/train");
  EXPECT_EQ(cache.KeptCount(), 0);
  cache.UpsertPodGroup(Group("u2", PodGroupPhase::kPending));
  EXPECT_EQ(PhaseOf(cache), PodGroupPhase::kPending);
  // A verdict on a PodGroup deleted while the cycle ran is not kept.
  api::ClusterInfo late = Decided(cache, PodGroupPhase::kInqueue);
  cache.DeletePodGroup("ml/train");
  cache.KeepDecisions(late);
  EXPECT_EQ(cache.KeptCount(), 0);
}

}  // namespace
}  // namespace shoal::cache
