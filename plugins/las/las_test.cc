#include "plugins/las/las.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/cache/cache.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/testing.h"
#include "scheduler/scheduler.h"
#include "scheduler/test_world.h"

namespace shoal::plugins::las {
namespace {

using framework::testing::Node;
using framework::testing::Pod;

const absl::Time kT0 = absl::FromUnixSeconds(1700000000);

// A job of the picture one session sees.
struct JobSpec {
  std::string name;
  int created = 0;  // seconds after kT0
  int pods = 1;
  int gpus = 1;  // per pod; 0: a cpu-only job
  bool running = false;
  int32_t priority = 0;
  std::string uid;  // "" : uid-<name>
};

// Runs sessions on one policy holding `las` (with `args`), the clock
// advancing between them, as the scheduler's loop does.
class Cycles {
 public:
  explicit Cycles(const std::string& args = "") {
    framework::PluginRegistry registry;
    registry.Add("las", New);
    policy_ = framework::testing::MustPolicy(
        absl::StrCat("actions: allocate\ntiers:\n- plugins:\n  - name: las\n",
                     args),
        registry, framework::testing::IdleActions());
  }

  // Opens a session at kT0 + `at` seconds on `jobs` (index = position).
  std::unique_ptr<framework::Session> Open(int at,
                                           const std::vector<JobSpec>& jobs) {
    api::ClusterBuilder b;
    b.SetNow(kT0 + absl::Seconds(at));
    b.AddNode(Node("n0", {{"cpu", "1000"}, {"nvidia.com/gpu", "1000"}}));
    for (const JobSpec& spec : jobs) {
      api::JobInfo job;
      job.ns = "default";
      job.name = spec.name;
      job.uid = spec.uid.empty() ? "uid-" + spec.name : spec.uid;
      job.min_member = spec.pods;
      job.priority = spec.priority;
      job.created = kT0 + absl::Seconds(spec.created);
      api::JobIndex j = b.AddJob(job);
      for (int i = 0; i < spec.pods; ++i) {
        framework::testing::ResourceList request = {{"cpu", "2"}};
        if (spec.gpus > 0)
          request.push_back({"nvidia.com/gpu", absl::StrCat(spec.gpus)});
        auto pod = Pod(absl::StrCat(spec.name, "-", i), request);
        pod->priority = spec.priority;
        if (spec.running) {
          pod->node_name = "n0";
          pod->status = api::TaskStatus::kRunning;
        }
        b.AddTask(pod, j);
      }
    }
    return std::make_unique<framework::Session>(std::move(b).Build(), policy_);
  }

  // One whole cycle: open, then close.
  void Run(int at, const std::vector<JobSpec>& jobs) {
    Open(at, jobs)->Close();
  }

  std::optional<Standing> Of(const std::string& name) const {
    return Remembered(*policy_.plugins[0].plugin, "default/" + name);
  }

 private:
  framework::Policy policy_;
};

// Job indices in the session's order.
std::vector<std::string> Ordered(const framework::Session& s) {
  std::vector<const api::JobInfo*> jobs;
  for (const auto& j : s.cluster().jobs) jobs.push_back(&j);
  std::stable_sort(jobs.begin(), jobs.end(),
                   [&s](const api::JobInfo* a, const api::JobInfo* b) {
                     return s.JobBefore(*a, *b);
                   });
  std::vector<std::string> names;
  for (const auto* j : jobs) names.push_back(j->name);
  return names;
}

TEST(LasTest, OrdersByAttainedServiceAcrossCycles) {
  Cycles cycles("    arguments: {thresholds: \"100,1000\"}\n");
  // big: 4 GPUs from t=0; small: 1 GPU, arrived a second later.
  std::vector<JobSpec> jobs = {{"big", 0, 2, 2, true},
                               {"small", 1, 1, 1, true}};
  cycles.Run(0, jobs);
  EXPECT_EQ(Ordered(*cycles.Open(0, jobs)),
            (std::vector<std::string>{"big", "small"}));
  // 30 s on: big has 120 GPU-seconds (band 1), small 30 (band 0).
  cycles.Run(30, jobs);
  EXPECT_DOUBLE_EQ(cycles.Of("big")->attained, 120);
  EXPECT_EQ(cycles.Of("big")->band, 1);
  EXPECT_EQ(cycles.Of("big")->entered_band, kT0 + absl::Seconds(30));
  EXPECT_DOUBLE_EQ(cycles.Of("small")->attained, 30);
  EXPECT_EQ(cycles.Of("small")->band, 0);
  EXPECT_EQ(Ordered(*cycles.Open(30, jobs)),
            (std::vector<std::string>{"small", "big"}));
  // small crosses 100 at t=100 and joins band 1 behind big (Tiresias
  // appends to the end of Q1), though it arrived later and used less.
  cycles.Run(60, jobs);
  cycles.Run(100, jobs);
  EXPECT_DOUBLE_EQ(cycles.Of("small")->attained, 100);
  EXPECT_EQ(cycles.Of("small")->band, 1);
  EXPECT_DOUBLE_EQ(cycles.Of("big")->attained, 400);
  EXPECT_EQ(Ordered(*cycles.Open(100, jobs)),
            (std::vector<std::string>{"big", "small"}));
}

TEST(LasTest, ABandIsCrossedAtTheThreshold) {
  Cycles cycles;  // 57600 GPU-seconds: Tiresias' two queues
  std::vector<JobSpec> jobs = {{"eight", 0, 1, 8, true}};
  cycles.Run(0, jobs);
  cycles.Run(7199, jobs);
  EXPECT_DOUBLE_EQ(cycles.Of("eight")->attained, 57592);
  EXPECT_EQ(cycles.Of("eight")->band, 0);
  cycles.Run(7200, jobs);
  EXPECT_DOUBLE_EQ(cycles.Of("eight")->attained, 57600);
  EXPECT_EQ(cycles.Of("eight")->band, 1);
  // No promotion back: a pause attains nothing and keeps the band.
  jobs[0].running = false;
  cycles.Run(9000, jobs);
  EXPECT_DOUBLE_EQ(cycles.Of("eight")->attained, 57600);
  EXPECT_EQ(cycles.Of("eight")->band, 1);
}

TEST(LasTest, CpuJobsAreChargedInCores) {
  Cycles cycles;
  std::vector<JobSpec> jobs = {{"cpu-only", 0, 3, 0, true}};  // 3 x 2 cores
  cycles.Run(0, jobs);
  cycles.Run(10, jobs);
  EXPECT_DOUBLE_EQ(cycles.Of("cpu-only")->attained, 60);
}

TEST(LasTest, FifoWithinABand) {
  Cycles cycles;
  // Names against arrival; a running job in the band is no exception.
  std::vector<JobSpec> jobs = {{"a", 30}, {"b", 10, 1, 1, true}, {"c", 20}};
  cycles.Run(40, jobs);
  cycles.Run(50, jobs);
  EXPECT_EQ(Ordered(*cycles.Open(50, jobs)),
            (std::vector<std::string>{"b", "c", "a"}));
}

TEST(LasTest, PriorityDecidesBeforeTheBands) {
  Cycles cycles("    arguments: {thresholds: \"10\"}\n");
  std::vector<JobSpec> jobs = {{"important", 0, 1, 1, true, 100}, {"fresh", 5}};
  cycles.Run(0, jobs);
  cycles.Run(20, jobs);
  EXPECT_EQ(cycles.Of("important")->band, 1);
  EXPECT_EQ(Ordered(*cycles.Open(20, jobs)),
            (std::vector<std::string>{"important", "fresh"}));
}

TEST(LasTest, PreemptsOnlyJobsLaterInTheOrder) {
  Cycles cycles("    arguments: {thresholds: \"100\"}\n");
  // old and vip (priority 10) run in band 1, young in band 0; fresh (band
  // 0) and low (priority -5) wait.
  std::vector<JobSpec> jobs = {{"old", 0, 1, 2, true},
                               {"young", 50, 1, 1, true},
                               {"fresh", 90},
                               {"low", 95, 1, 1, false, -5},
                               {"vip", 60, 1, 4, true, 10}};
  cycles.Run(0, jobs);
  cycles.Run(99, jobs);  // old 198, young 99, vip 396
  ASSERT_EQ(cycles.Of("old")->band, 1);
  ASSERT_EQ(cycles.Of("young")->band, 0);
  ASSERT_EQ(cycles.Of("vip")->band, 1);
  auto s = cycles.Open(99, jobs);
  // Tasks in job order: old-0 (0), young-0 (1), fresh-0 (2), low-0 (3),
  // vip-0 (4).
  const std::vector<api::TaskIndex> all = {0, 1, 2, 3, 4};
  auto victims_of = [&](api::TaskIndex taker) {
    return s->Call<framework::Preemptable>(s->task(taker), all);
  };
  // fresh (band 0) may take old (band 1) and low (lower priority), not
  // young (band 0, earlier) nor vip (higher priority).
  EXPECT_EQ(victims_of(2), (std::vector<api::TaskIndex>{0, 3}));
  // young may take old and fresh, later in band 0, and low.
  EXPECT_EQ(victims_of(1), (std::vector<api::TaskIndex>{0, 2, 3}));
  // old (band 1) takes only what priority puts below it.
  EXPECT_EQ(victims_of(0), (std::vector<api::TaskIndex>{3}));
  // vip: priority first, whatever its band.
  EXPECT_EQ(victims_of(4), (std::vector<api::TaskIndex>{0, 1, 2, 3}));
  // low takes nothing.
  EXPECT_TRUE(victims_of(3).empty());
}

TEST(LasTest, ForgetsJobsThatAreGone) {
  Cycles cycles;
  std::vector<JobSpec> both = {{"done", 0, 1, 1, true}, {"stays", 0}};
  cycles.Run(0, both);
  cycles.Run(60, both);
  ASSERT_TRUE(cycles.Of("done").has_value());
  EXPECT_DOUBLE_EQ(cycles.Of("done")->attained, 60);
  cycles.Run(120, {{"stays", 0}});
  EXPECT_FALSE(cycles.Of("done").has_value());
  EXPECT_TRUE(cycles.Of("stays").has_value());
  // Another job under the same name (another uid) starts anew.
  cycles.Run(180, {{"stays", 0}, {"done", 150, 1, 1, true, 0, "uid-again"}});
  EXPECT_DOUBLE_EQ(cycles.Of("done")->attained, 0);
  EXPECT_EQ(cycles.Of("done")->uid, "uid-again");
}

TEST(LasTest, ASessionThatNeverClosesChangesNothing) {
  Cycles cycles;
  std::vector<JobSpec> jobs = {{"a", 0, 1, 1, true}};
  cycles.Run(0, jobs);
  cycles.Open(500, jobs);  // an explanation
  cycles.Run(10, jobs);
  EXPECT_DOUBLE_EQ(cycles.Of("a")->attained, 10);
}

TEST(LasTest, BadArgumentsAreRefusedByName) {
  auto refused = [](std::map<std::string, std::string> values) {
    auto plugin = New(framework::Arguments("plugin las", values));
    return plugin.ok() ? std::string("accepted")
                       : std::string(plugin.status().message());
  };
  const std::string kShape =
      ": must be ascending positive unit-seconds separated by commas "
      "(\"57600\", \"3600,57600\"), got ";
  EXPECT_EQ(refused({{"thresholds", "16h"}}),
            "plugin las: arguments.thresholds" + kShape + "\"16h\"");
  EXPECT_EQ(refused({{"thresholds", "3600,600"}}),
            "plugin las: arguments.thresholds" + kShape + "\"3600,600\"");
  EXPECT_EQ(refused({{"thresholds", "0"}}),
            "plugin las: arguments.thresholds" + kShape + "\"0\"");
  EXPECT_EQ(refused({{"thresholds", "100,,200"}}),
            "plugin las: arguments.thresholds" + kShape + "\"100,,200\"");
  EXPECT_EQ(refused({{"resource", "count/pods"}}),
            "plugin las: arguments.resource: must name a resource nodes have "
            "(cpu, nvidia.com/gpu, ...), got \"count/pods\"");
  EXPECT_EQ(refused({{"thresholds", " 3600, 57600 "}, {"resource", "cpu"}}),
            "accepted");
}

// --- The real loop: tools/simulator/policies/tiresias-las.yaml with a
// threshold of 100 GPU-seconds.

constexpr char kTiresias[] = R"(
actions: "enqueue, allocate, preempt, backfill"
tiers:
- plugins:
  - name: priority
    enablePreemptable: false
  - name: gang
    enableJobOrder: false
  - name: las
    arguments: {thresholds: "100"}
  - name: conformance
- plugins:
  - name: predicates
  - name: nodeorder
configurations:
- name: preempt
  arguments: {endWholeGangs: tiers}
)";

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
        policy_(framework::testing::MustPolicy(kTiresias, BuiltinPlugins(),
                                               actions::BuiltinActions())),
        world_(cache_,
               [this](const api::PodInfo& gone) {
                 auto again = std::make_shared<api::PodInfo>(gone);
                 again->name = absl::StrCat(gone.name, "-r", ++recreated_);
                 again->uid = again->name;
                 again->node_name.clear();
                 again->status = api::TaskStatus::kPending;
                 return again;
               }),
        scheduler_(cache_, policy_, world_, world_, Quiet()) {}

  void AddNode(const std::string& name, int gpus) {
    cache_.UpsertNode(
        Node(name, {{"cpu", "64"}, {"nvidia.com/gpu", absl::StrCat(gpus)}}));
  }
  // A job of `count` 1-GPU pods, minMember `min`.
  void AddJob(const std::string& name, int min, int count) {
    api::JobInfo job;
    job.ns = "default";
    job.name = name;
    job.uid = "uid-" + name;
    job.min_member = min;
    job.created = now_;
    job.phase = api::PodGroupPhase::kPending;
    cache_.UpsertPodGroup(job);
    for (int i = 0; i < count; ++i) {
      auto pod = Pod(absl::StrCat(name, "-", i),
                     {{"cpu", "1"}, {"nvidia.com/gpu", "1"}});
      pod->group = name;
      pod->created = now_;
      cache_.UpsertPod(pod, true);
    }
  }
  AppliedCycle Cycle(absl::Duration after = absl::Seconds(10)) {
    AppliedCycle out = *scheduler_.RunOnce();
    now_ += after;
    return out;
  }
  std::map<std::string, int> Running() {
    std::map<std::string, int> out;
    api::ClusterInfo c = cache_.Snapshot();
    for (const auto& job : c.jobs) out[job.name] = job.ScheduledCount();
    return out;
  }

 private:
  absl::Time now_ = kT0;
  cache::Cache cache_;
  framework::Policy policy_;
  int recreated_ = 0;
  testing::TestWorld world_;
  Scheduler scheduler_;
};

TEST(LasTest, AnEarlierJobTakesALaterJobsSurplusPods) {
  World w;
  w.AddNode("n0", 4);
  w.AddJob("elastic", 1, 4);  // minMember 1, four pods: three surplus
  for (int i = 0; i < 4; ++i) w.Cycle();
  ASSERT_EQ(w.Running()["elastic"], 4);
  // 4 GPUs x 40 s = 160 GPU-seconds: band 1. A new gang of 2 is band 0.
  w.AddJob("gang", 2, 2);
  for (int i = 0; i < 4; ++i) w.Cycle();
  EXPECT_EQ(w.Running()["gang"], 2);
  EXPECT_EQ(w.Running()["elastic"], 2);
}

// Tiresias ends a later rigid job whole when an earlier one needs its
// GPUs: preempt with endWholeGangs: tiers lets the tiers' answer end a
// gang of equal priority.
TEST(LasTest, AnEarlierJobEndsALaterRigidGangWhole) {
  World w;
  w.AddNode("n0", 4);
  w.AddJob("rigid", 4, 4);
  for (int i = 0; i < 4; ++i) w.Cycle();
  ASSERT_EQ(w.Running()["rigid"], 4);
  w.AddJob("gang", 2, 2);
  for (int i = 0; i < 4; ++i) w.Cycle();
  EXPECT_EQ(w.Running()["gang"], 2);
  EXPECT_EQ(w.Running()["rigid"], 0);
}

}  // namespace
}  // namespace shoal::plugins::las
