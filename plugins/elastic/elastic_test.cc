#include "plugins/elastic/elastic.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
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
  explicit World(const std::string& policy = kPolicy)
      : cache_("shoal", [this] { return now_; }),
        policy_(framework::testing::MustPolicy(policy, BuiltinPlugins(),
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
              int ps = 0, int resize_cost = -1,
              std::vector<std::pair<int32_t, double>> throughput = {}) {
    api::JobInfo job;
    job.ns = "default";
    job.name = name;
    job.min_member = min;
    job.resize_cost_seconds = resize_cost;
    job.throughput = std::move(throughput);
    if (ps > 0) job.min_task_member["ps"] = ps;
    job.created = now_;
    job.phase = running > 0 ? api::PodGroupPhase::kRunning
                            : api::PodGroupPhase::kInqueue;
    cache_.UpsertPodGroup(job);
    groups_[name] = job;
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
  // A lone pod of `priority`, asking for one cpu.
  void AddLonePod(const std::string& name, int32_t priority) {
    auto pod = Pod(name, {{"cpu", "1"}});
    pod->priority = priority;
    pod->created = now_;
    cache_.UpsertPod(pod, true);
  }
  void Advance(absl::Duration d) { now_ += d; }
  // The job's trainer reports the work done so far (shoal.dev/progress).
  void Report(const std::string& name, double progress) {
    api::JobInfo& job = groups_.at(name);
    job.progress = progress;
    cache_.UpsertPodGroup(job);
  }

  // One cycle of the real loop; returns what it did.
  AppliedCycle Cycle() {
    AppliedCycle out = *scheduler_.RunOnce();
    now_ += absl::Seconds(1);
    return out;
  }

  // The job `name` as the last cycle left it.
  static const api::JobInfo& JobIn(const AppliedCycle& out,
                                   const std::string& name) {
    for (const auto& job : out.cluster.jobs) {
      if (job.name == name) return job;
    }
    static const api::JobInfo kNone;
    return kNone;
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
  std::map<std::string, api::JobInfo> groups_;  // as added, by name
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

// The policy above with arguments for the elastic plugin.
std::string PolicyWith(const std::string& arguments) {
  std::string policy = kPolicy;
  const std::string at = "  - name: elastic\n";
  policy.insert(policy.find(at) + at.size(),
                "    arguments: {" + arguments + "}\n");
  return policy;
}

TEST(ElasticTest, AResizeCostKeepsARunningJobsPodsWhereEqualSharesWouldMove) {
  // Without a cost "old" gives "new" half its pods (the test above); with
  // one, moving pods between running jobs does no more work and costs both
  // a restart: "new" gets only its minimum, and "old" one resize.
  World w(PolicyWith("resizeCostSeconds: 30"));
  w.AddNodes(1, "10");
  w.AddJob("old", 1, 10, /*running=*/10);
  w.AddJob("new", 1, 10);
  int evictions = 0;
  AppliedCycle out;
  for (int cycle = 0; cycle < 6; ++cycle) {
    out = w.Cycle();
    evictions += static_cast<int>(out.evictions.size());
  }
  EXPECT_EQ(evictions, 1);
  EXPECT_EQ(w.Running(), (std::map<std::string, int>{{"new", 1}, {"old", 9}}));
  EXPECT_EQ(World::JobIn(out, "old").resizing.count, 1);
  EXPECT_EQ(World::JobIn(out, "old").resizing.cost_seconds, 30);
  EXPECT_EQ(World::JobIn(out, "new").resizing.count, 0);
}

TEST(ElasticTest, GrowthWaitsOutTheHoldAndComesInOneBatch) {
  World w(PolicyWith("resizeCostSeconds: 30"));
  w.AddNodes(1, "10");
  w.AddJob("a", 2, 20, /*running=*/2);
  AppliedCycle out = w.Cycle();  // grows into the node at once: one resize
  EXPECT_EQ(out.binds.size(), 8u);
  w.Cycle();
  // More room: growth pays, but the job changed a second ago.
  w.AddNodes(2, "10");
  for (int cycle = 0; cycle < 25; ++cycle) {
    out = w.Cycle();
    ASSERT_TRUE(out.binds.empty()) << "cycle " << cycle;
  }
  EXPECT_THAT(World::JobIn(out, "a").resizing.held,
              ::testing::HasSubstr("held: its pod count changed"));
  w.Advance(absl::Seconds(5));
  out = w.Cycle();
  EXPECT_EQ(out.binds.size(), 10u);  // the whole batch, once
  for (int cycle = 0; cycle < 3; ++cycle) EXPECT_TRUE(w.Cycle().binds.empty());
  EXPECT_EQ(w.Running()["a"], 20);
  EXPECT_EQ(World::JobIn(w.Cycle(), "a").resizing.count, 2);
}

TEST(ElasticTest, GrowthThatDoesNotPayItsRestartIsSkipped) {
  // One more pod for the ~300 s room is expected to stay does not pay a
  // restart of 3 pods at 600 s each (the PodGroup's own cost).
  World w;
  w.AddNodes(1, "3");
  w.AddJob("a", 2, 3, /*running=*/2, /*ps=*/0, /*resize_cost=*/600);
  AppliedCycle out;
  for (int cycle = 0; cycle < 3; ++cycle) {
    out = w.Cycle();
    EXPECT_TRUE(out.binds.empty());
  }
  const api::JobInfo& a = World::JobIn(out, "a");
  EXPECT_EQ(a.elastic_target, 2);
  EXPECT_THAT(a.resizing.held,
              ::testing::HasSubstr("growth from 2 to 3 pods skipped"));
  EXPECT_THAT(a.resizing.held, ::testing::HasSubstr("600s"));
}

TEST(ElasticTest, OldestFirstStartsAJobWholeOrNotWhileItsResizeCosts) {
  World w(PolicyWith("share: oldest-first, resizeCostSeconds: 30"));
  w.AddNodes(1, "10");
  w.AddJob("older", 2, 8);
  w.Advance(absl::Seconds(1));
  w.AddJob("younger", 2, 8);
  AppliedCycle out = w.Cycle();
  // The older job whole; the younger would start narrow in the 2 cpus
  // left and run long: it waits to start whole.
  EXPECT_EQ(w.Running(),
            (std::map<std::string, int>{{"older", 8}, {"younger", 0}}));
  EXPECT_THAT(World::JobIn(out, "younger").resizing.held,
              ::testing::HasSubstr("oldest-first"));
}

TEST(ElasticTest, OldestFirstStartsAFreeJobNarrowInRoomNobodyTakesWhole) {
  World w(PolicyWith("share: oldest-first"));
  w.AddNodes(1, "10");
  w.AddJob("older", 2, 8);
  w.Advance(absl::Seconds(1));
  w.AddJob("younger", 2, 8);
  w.Cycle();
  EXPECT_EQ(w.Running(),
            (std::map<std::string, int>{{"older", 8}, {"younger", 2}}));
}

TEST(ElasticTest, AHigherPriorityPodEndsACostlyJobWholeRatherThanShrinkIt) {
  for (int cost : {0, 30}) {
    World w;
    w.AddNodes(1, "10");
    w.AddJob("train", 2, 10, /*running=*/10, /*ps=*/0, cost);
    w.Cycle();
    w.AddLonePod("web", 1000);
    AppliedCycle out = w.Cycle();
    // Free resizes shrink; a costly one would pay the restart and then run
    // narrow, so the job ends whole and starts again whole.
    EXPECT_EQ(out.evictions.size(), cost == 0 ? 1u : 10u) << "cost " << cost;
  }
}

TEST(ElasticTest, ShrinkingTakesFromOneJobBeforeTheNext) {
  World w(PolicyWith("resizeCostSeconds: 30"));
  w.set_nodes_hint(2);
  w.AddNodes(2, "5");
  // Each job's pods alternate between the nodes.
  w.AddJob("x", 1, 5, /*running=*/5);
  w.AddJob("y", 1, 5, /*running=*/5);
  w.Cycle();
  w.AddJob("gang", 4, 4);
  AppliedCycle out = w.Cycle();
  ASSERT_EQ(out.evictions.size(), 4u);
  std::set<std::string> jobs;
  for (const auto& e : out.evictions) jobs.insert(e.pod.substr(0, 1));
  EXPECT_EQ(jobs.size(), 1u) << "one job restarts, not two";
}

using Curve = std::vector<std::pair<int32_t, double>>;
const Curve kScales = {{1, 1}, {2, 1.9}, {4, 3.6}, {8, 7}};
const Curve kBarely = {{1, 1}, {2, 1.05}, {4, 1.1}, {8, 1.1}};

TEST(ElasticThroughputTest, TheJobThatScalesBetterGetsTheExtraPods) {
  // 10 cpus, minimum 1 each: 8 left. "scales" adds 0.9, then 0.85 a pod
  // up to 8; "barely" 0.05 for its second pod. 7 go to "scales", 1 to
  // "barely".
  World w(PolicyWith("share: throughput"));
  w.AddNodes(1, "10");
  w.AddJob("barely", 1, 8, 0, 0, -1, kBarely);
  w.AddJob("scales", 1, 8, 0, 0, -1, kScales);
  AppliedCycle out = w.Cycle();
  EXPECT_EQ(w.Running(),
            (std::map<std::string, int>{{"barely", 2}, {"scales", 8}}));
  EXPECT_EQ(World::JobIn(out, "scales").elastic_target, 8);
  EXPECT_EQ(World::JobIn(out, "barely").elastic_target, 2);
}

TEST(ElasticThroughputTest, AFlatCurveGetsNoSecondPodBesideALinearJob) {
  World w(PolicyWith("share: throughput"));
  w.AddNodes(1, "6");
  w.AddJob("flat", 1, 8, 0, 0, -1, Curve{{1, 1}, {2, 1}});
  w.AddJob("linear", 1, 8);  // no curve: each pod adds one
  w.Cycle();
  EXPECT_EQ(w.Running(),
            (std::map<std::string, int>{{"flat", 1}, {"linear", 5}}));
}

TEST(ElasticThroughputTest, TheJobThatGainsLeastFromItsPodsGivesThemUp) {
  // Running 4 and 6 of 10 cpus: "barely"'s pods beyond its second add
  // 0.025 each (0.125 with the margin), "scales"' next ones 0.85: four
  // move, from "barely" alone.
  World w(PolicyWith("share: throughput"));
  w.AddNodes(1, "10");
  w.AddJob("barely", 1, 8, /*running=*/6, 0, -1, kBarely);
  w.AddJob("scales", 1, 8, /*running=*/4, 0, -1, kScales);
  int evictions = 0;
  for (int cycle = 0; cycle < 6; ++cycle) {
    AppliedCycle out = w.Cycle();
    for (const auto& e : out.evictions) {
      EXPECT_THAT(e.pod, ::testing::HasSubstr("barely-"));
      ++evictions;
    }
  }
  EXPECT_EQ(evictions, 4);
  EXPECT_EQ(w.Running(),
            (std::map<std::string, int>{{"barely", 2}, {"scales", 8}}));
}

TEST(ElasticThroughputTest, HysteresisMovesAPodOnlyForMoreThanTheMargin) {
  for (bool jump : {false, true}) {
    // Both linear: moving a pod from "old" to "new" gains nothing, and
    // "new" gets its minimum only (even sharing would give it half).
    // With a second pod worth 1.2 to "new", more than the 1 + 0.1 it is
    // worth to "old", that pod moves too.
    World w(PolicyWith("share: throughput"));
    w.AddNodes(1, "10");
    w.AddJob("old", 1, 10, /*running=*/10);
    w.AddJob("new", 1, 10, 0, 0, -1, jump ? Curve{{1, 1}, {2, 2.2}} : Curve{});
    int evictions = 0;
    for (int cycle = 0; cycle < 6; ++cycle)
      evictions += static_cast<int>(w.Cycle().evictions.size());
    EXPECT_EQ(evictions, jump ? 2 : 1);
    EXPECT_EQ(w.Running(), (std::map<std::string, int>{{"new", jump ? 2 : 1},
                                                       {"old", jump ? 8 : 9}}))
        << "jump " << jump;
  }
}

TEST(ElasticThroughputTest, ARestartIsWeighedByTheJobsCurve) {
  // Running 2 of 8 pods on 10 cpus, a resize costing 60 s, room expected
  // to stay 300 s. "barely" 2 -> 4 pods would gain (1.1 - 1.05) * 300 = 15
  // against 60 * 1.1 = 66: skipped (pod counts would say 2 * 300 = 600
  // against 240). "scales" 2 -> 8 gains (7 - 1.9) * 300 = 1530 against
  // 60 * 7 = 420: it grows, once.
  for (const char* name : {"barely", "scales"}) {
    World w(PolicyWith("share: throughput"));
    w.AddNodes(1, "10");
    const bool barely = std::string(name) == "barely";
    w.AddJob(name, 1, 8, /*running=*/2, 0, /*resize_cost=*/60,
             barely ? kBarely : kScales);
    AppliedCycle out = w.Cycle();
    EXPECT_EQ(out.binds.size(), barely ? 0u : 6u) << name;
    const api::JobInfo& job = World::JobIn(out, name);
    EXPECT_EQ(job.elastic_target, barely ? 2 : 8) << name;
    if (barely) {
      EXPECT_EQ(job.resizing.held,
                "growth from 2 to 4 pods skipped: its throughput would go "
                "from 1.05 to 1.1 (shoal.dev/throughput), and that for the "
                "~300s room is expected to stay (15 pod-s) does not pay a "
                "restart at throughput 1.1 (60s: 66 pod-s)");
    }
  }
}

// Job-order: the jobs in the order las (least attained service, here of
// cpu, in two bands at 100 cpu-seconds) puts them, each taking all it can
// beyond every job's minimum before the next takes any.
constexpr char kJobOrderPolicy[] = R"(
actions: "enqueue, allocate, backfill, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
    enableJobOrder: false
  - name: las
    arguments: {resource: cpu, thresholds: "100"}
  - name: conformance
- plugins:
  - name: elastic
    arguments: {share: job-order}
- plugins:
  - name: predicates
  - name: nodeorder
)";

TEST(ElasticJobOrderTest, TheFirstJobRunsWidestAndNarrowsOnceDemoted) {
  World w(kJobOrderPolicy);
  w.AddNodes(1, "10");
  w.AddJob("first", 1, 8);
  w.Advance(absl::Seconds(1));
  w.AddJob("second", 1, 8);
  AppliedCycle out = w.Cycle();
  EXPECT_EQ(w.Running(),
            (std::map<std::string, int>{{"first", 8}, {"second", 2}}));
  EXPECT_EQ(World::JobIn(out, "first").elastic_target, 8);
  EXPECT_EQ(World::JobIn(out, "second").elastic_target, 2);
  // 8 cpus for 20 s: past 100 cpu-seconds, "first" drops to the second
  // band and "second" goes first; its growth takes "first"'s surplus.
  w.Advance(absl::Seconds(20));
  for (int cycle = 0; cycle < 5; ++cycle) out = w.Cycle();
  EXPECT_EQ(w.Running(),
            (std::map<std::string, int>{{"first", 2}, {"second", 8}}));
  EXPECT_EQ(World::JobIn(out, "first").elastic_target, 2);
}

TEST(ElasticJobOrderTest, ANewJobTakesOnlyPodsBeyondTargets) {
  // 10 cpus: minimums 1 each, then "a" (first) all it can (6), "b" the
  // rest (3). "c"'s minimum comes out of "b"'s surplus, not "a"'s pods.
  World w(kJobOrderPolicy);
  w.AddNodes(1, "10");
  w.AddJob("a", 1, 6, /*running=*/6);
  w.Advance(absl::Seconds(1));
  w.AddJob("b", 1, 4, /*running=*/4);
  w.Cycle();
  w.Advance(absl::Seconds(1));
  w.AddJob("c", 1, 4);
  int evictions = 0;
  for (int cycle = 0; cycle < 4; ++cycle) {
    for (const auto& e : w.Cycle().evictions) {
      EXPECT_THAT(e.pod, ::testing::StartsWith("default/b-"));
      ++evictions;
    }
  }
  EXPECT_EQ(evictions, 1);
  EXPECT_EQ(w.Running(),
            (std::map<std::string, int>{{"a", 6}, {"b", 3}, {"c", 1}}));
}

TEST(ElasticJobOrderTest, AJobWhoseGrowthIsHeldKeepsWhatItRuns) {
  // "a" grows to fill the node, then more nodes come within its hold: it
  // may not grow yet, and keeps its 10 pods (its surplus is up for
  // redistribution in this mode, but held growth means "stay"), while
  // "b", after it in the order, starts in the new room.
  World w(kJobOrderPolicy);
  w.AddNodes(1, "10");
  w.AddJob("a", 2, 20, /*running=*/2, /*ps=*/0, /*resize_cost=*/30);
  AppliedCycle out = w.Cycle();
  EXPECT_EQ(out.binds.size(), 8u);
  w.Cycle();
  w.AddJob("b", 1, 4, /*running=*/0, /*ps=*/0, /*resize_cost=*/30);
  w.AddNodes(2, "10");
  for (int cycle = 0; cycle < 10; ++cycle) {
    out = w.Cycle();
    EXPECT_TRUE(out.evictions.empty()) << "cycle " << cycle;
  }
  EXPECT_EQ(World::JobIn(out, "a").elastic_target, 10);
  EXPECT_THAT(World::JobIn(out, "a").resizing.held,
              ::testing::HasSubstr("held: its pod count changed"));
  EXPECT_EQ(w.Running(), (std::map<std::string, int>{{"a", 10}, {"b", 4}}));
}

TEST(ElasticThroughputTest, ACurveLearnedFromProgressReportsDecides) {
  // "a" declares nothing (linear) but reports its progress: 10 per second
  // at 1 pod, and the same at 6. Learned: 1=1,6=1, flat: when "b" comes,
  // "a" keeps its minimum and "b" gets every other pod (linear, it would
  // have had half).
  World w(PolicyWith("share: throughput"));
  w.AddNodes(1, "1");
  w.AddJob("a", 1, 6, /*running=*/1);
  double progress = 0;
  auto minute = [&]() {
    w.Report("a", progress);
    AppliedCycle out = w.Cycle();
    w.Advance(absl::Seconds(59));
    progress += 600;
    return out;
  };
  for (int m = 0; m < 4; ++m) minute();  // measured at 1 pod
  w.AddNodes(1, "6");                    // n0 grows to 6 cpus: "a" grows to 6
  AppliedCycle out;
  for (int m = 0; m < 5; ++m) out = minute();
  EXPECT_EQ(w.Running()["a"], 6);
  const api::JobInfo& a = World::JobIn(out, "a");
  EXPECT_EQ(a.throughput_source,
            "learned from shoal.dev/progress at 1, 6 pods");
  EXPECT_EQ(a.throughput,
            (std::vector<std::pair<int32_t, double>>{{1, 1}, {6, 1}}));
  w.AddJob("b", 1, 5);
  for (int m = 0; m < 6; ++m) out = minute();
  EXPECT_EQ(w.Running(), (std::map<std::string, int>{{"a", 1}, {"b", 5}}));
  EXPECT_EQ(World::JobIn(out, "a").elastic_target, 1);
}

TEST(ElasticTest, BadArgumentsAreRefusedByName) {
  auto refused = [](std::map<std::string, std::string> values) {
    auto plugin = New(framework::Arguments("plugin elastic", values));
    return plugin.ok() ? std::string("accepted")
                       : std::string(plugin.status().message());
  };
  EXPECT_EQ(refused({{"share", "fair"}}),
            "plugin elastic: arguments.share: must be even, oldest-first, "
            "throughput or job-order, got \"fair\"");
  EXPECT_EQ(refused({{"throughputMargin", "-0.5"}}),
            "plugin elastic: arguments.throughputMargin: must be a number "
            "from 0 to 1000 (of one pod's throughput), got -0.5");
  EXPECT_EQ(refused({{"share", "throughput"}, {"throughputMargin", "0.25"}}),
            "accepted");
  EXPECT_EQ(refused({{"resizeCostSeconds", "-5"}}),
            "plugin elastic: arguments.resizeCostSeconds: must be a whole "
            "number of seconds from 0 to 604800 (a week), got -5");
  EXPECT_EQ(refused({{"holdSeconds", "soon"}}),
            "plugin elastic: arguments.holdSeconds: expected a whole number, "
            "got \"soon\"");
  EXPECT_EQ(refused({{"fairnessBoundSeconds", "0"}}),
            "plugin elastic: arguments.fairnessBoundSeconds: must be a whole "
            "number of seconds from 1 to 604800 (a week), got 0");
  EXPECT_EQ(refused({{"share", "oldest-first"}, {"resizeCostSeconds", "30"}}),
            "accepted");
}

}  // namespace
}  // namespace shoal::plugins::elastic
