#include "plugins/elastic/elastic.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/cache/cache.h"
#include "scheduler/framework/cycle.h"
#include "scheduler/framework/testing.h"
#include "scheduler/scheduler.h"
#include "scheduler/test_world.h"

namespace shoal::plugins::elastic {
namespace {

using framework::testing::Node;
using framework::testing::Pod;

constexpr char kPolicy[] = R"(
actions: "enqueue, allocate, backfill, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: elastic
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
)";

// The role of pod `key` in the cycle's picture.
std::string RoleOf(const api::ClusterInfo& cluster, const std::string& key) {
  for (const auto& t : cluster.tasks)
    if (t.pod->Key() == key) return t.pod->role;
  return "(no such pod)";
}

SchedulerOptions Quiet() {
  SchedulerOptions options;
  options.log_cycles = false;
  return options;
}

// A cluster that lives across cycles: binds start pods, evictions delete
// them and the job's controller recreates them as new pending pods.
class World {
 public:
  World()
      : cache_("shoal", [this] { return now_; }),
        policy_(framework::testing::MustPolicy(kPolicy, BuiltinPlugins(),
                                               actions::BuiltinActions())),
        world_(cache_,
               [this](const api::PodInfo& gone) {
                 // The job's controller recreates it as a new pending pod.
                 auto again = std::make_shared<api::PodInfo>(gone);
                 again->name = absl::StrCat(gone.name, "-r", ++recreated_);
                 again->uid = again->name;
                 again->node_name.clear();
                 again->status = api::TaskStatus::kPending;
                 return again;
               }),
        scheduler_(cache_, policy_, world_, world_, Quiet()) {}

  void AddNodes(int n, const std::string& cpu) {
    for (int i = 0; i < n; ++i)
      cache_.UpsertNode(Node(absl::StrCat("n", i), {{"cpu", cpu}}));
  }
  // A job of `count` 1-cpu pods, minMember `min`; the first `running` of
  // them already run on n0.. in turn. Roles: the first `ps` pods are "ps"
  // (minTaskMember ps = ps), the rest "worker".
  void AddJob(const std::string& name, int min, int count, int running = 0,
              int ps = 0) {
    api::JobInfo job;
    job.ns = "default";
    job.name = name;
    job.min_member = min;
    if (ps > 0) job.min_task_member["ps"] = ps;
    job.created = now_;
    job.phase = running > 0 ? api::PodGroupPhase::kRunning
                            : api::PodGroupPhase::kInqueue;
    cache_.UpsertPodGroup(job);
    for (int i = 0; i < count; ++i) {
      auto pod = Pod(absl::StrCat(name, "-", i), {{"cpu", "1"}});
      pod->group = name;
      pod->role = i < ps ? "ps" : "worker";
      pod->created = now_;
      if (i < running) {
        pod->node_name = absl::StrCat("n", i % nodes_hint_);
        pod->status = api::TaskStatus::kRunning;
      }
      cache_.UpsertPod(pod, true);
    }
  }
  void set_nodes_hint(int n) { nodes_hint_ = n; }

  // One cycle of the real loop; returns what it did.
  AppliedCycle Cycle() {
    AppliedCycle out = *scheduler_.RunOnce();
    now_ += absl::Seconds(1);
    return out;
  }

  // Running pods per job now.
  std::map<std::string, int> Running() {
    std::map<std::string, int> out;
    api::ClusterInfo c = cache_.Snapshot();
    for (const auto& job : c.jobs) out[job.name] = job.ScheduledCount();
    return out;
  }

 private:
  absl::Time now_ = absl::FromUnixSeconds(1700000000);
  cache::Cache cache_;
  framework::Policy policy_;
  int nodes_hint_ = 1;
  int recreated_ = 0;
  testing::TestWorld world_;
  Scheduler scheduler_;
};

TEST(ElasticTest, IdleCapacityIsSharedEquallyAndTargetsArePublished) {
  World w;
  w.AddNodes(1, "12");
  for (const char* j : {"a", "b", "c"}) w.AddJob(j, 1, 10);
  AppliedCycle out = w.Cycle();
  EXPECT_EQ(w.Running(),
            (std::map<std::string, int>{{"a", 4}, {"b", 4}, {"c", 4}}));
  for (const auto& job : out.cluster.jobs)
    EXPECT_EQ(job.elastic_target, 4) << job.name;
}

TEST(ElasticTest, AJobAtFullSizeKeepsATargetCoveringItsPods) {
  World w;
  w.AddNodes(1, "12");
  w.AddJob("full", 2, 6, /*running=*/6);  // nothing pending: all placed
  w.AddJob("growing", 2, 10);
  AppliedCycle out = w.Cycle();
  for (const auto& job : out.cluster.jobs) {
    // 12 cpus: "full" keeps its 6, "growing" gets the other 6.
    EXPECT_EQ(job.elastic_target, 6) << job.name;
  }
  EXPECT_TRUE(out.evictions.empty());
}

TEST(ElasticTest, GrowthWaitsForEveryGangMinimum) {
  World w;
  w.AddNodes(1, "10");
  w.AddJob("elastic", 2, 10);  // created first: would take everything FIFO
  w.AddJob("gang", 6, 6);
  w.Cycle();
  EXPECT_EQ(w.Running(),
            (std::map<std::string, int>{{"elastic", 4}, {"gang", 6}}));
}

TEST(ElasticTest, AnArrivingGangShrinksElasticJobsButNotBelowMinimum) {
  World w;
  w.AddNodes(1, "10");
  w.AddJob("elastic", 2, 10, /*running=*/10);
  w.AddJob("gang", 6, 6);
  AppliedCycle first = w.Cycle();
  ASSERT_EQ(first.evictions.size(), 6u);
  for (const auto& e : first.evictions) EXPECT_EQ(e.reason, "elastic");
  w.Cycle();
  EXPECT_EQ(w.Running(),
            (std::map<std::string, int>{{"elastic", 4}, {"gang", 6}}));
}

TEST(ElasticTest, RebalancesToEqualSharesWithoutFlapping) {
  World w;
  w.AddNodes(1, "10");
  w.AddJob("old", 1, 10, /*running=*/10);
  w.AddJob("new", 1, 10);
  int evictions = 0;
  std::map<std::string, int> last;
  for (int cycle = 0; cycle < 8; ++cycle) {
    AppliedCycle out = w.Cycle();
    evictions += static_cast<int>(out.evictions.size());
    if (cycle >= 4) {
      // Settled: nothing moves any more.
      EXPECT_TRUE(out.evictions.empty()) << "cycle " << cycle;
      EXPECT_TRUE(out.binds.empty()) << "cycle " << cycle;
    }
  }
  EXPECT_EQ(w.Running(), (std::map<std::string, int>{{"new", 5}, {"old", 5}}));
  EXPECT_EQ(evictions, 5);  // exactly the difference, each pod once
}

TEST(ElasticTest, RoleMinimumsAreNeverShrunk) {
  World w;
  w.AddNodes(1, "8");
  // 3 parameter servers (all needed) and 5 workers (1 needed) fill the node.
  w.AddJob("paddle", 4, 8, /*running=*/8, /*ps=*/3);
  w.AddJob("gang", 4, 4);
  AppliedCycle out = w.Cycle();
  ASSERT_EQ(out.evictions.size(), 4u);
  for (const auto& e : out.evictions) {
    EXPECT_EQ(RoleOf(out.cluster, e.pod), "worker");
  }
}

}  // namespace
}  // namespace shoal::plugins::elastic
