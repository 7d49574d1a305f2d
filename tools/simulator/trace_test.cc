// Trace mode (trace.h): jobs of Pollux's benchmark progressing by the
// measured job model on the GPUs the scheduler gives their pods, and the
// scheduler's `share: throughput` on jobs' scaling curves. Run from the
// workspace root as Bazel does.
#include "tools/simulator/trace.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/framework/config.h"
#include "tools/simulator/pollux/job_model.h"
#include "tools/simulator/simulator.h"

namespace shoal::sim {
namespace {

constexpr char kScenario[] = "tools/simulator/scenarios/pollux.yaml";
constexpr char kApps[] = "tools/simulator/traces/pollux-osdi21/traces";
constexpr char kWorkload1[] =
    "tools/simulator/traces/pollux-osdi21/workloads/workload-1.csv";

Result Simulated(const Scenario& scenario, const std::string& policy_path,
                 bool rigid) {
  auto config = framework::LoadSchedulerConfig(policy_path);
  EXPECT_TRUE(config.ok()) << config.status();
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  EXPECT_TRUE(policy.ok()) << policy.status();
  Options options;
  options.rigid = rigid;
  return Simulate(scenario, *policy, options);
}

// pollux.yaml with `trace`'s jobs.
Scenario WithTrace(const Trace& trace, bool rigid) {
  auto scenario = LoadScenario(kScenario);
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  AddTraceJobs(trace, rigid, &*scenario);
  return *scenario;
}

std::unique_ptr<Trace> Load(const std::string& workload) {
  auto trace = LoadTrace(workload, kApps);
  EXPECT_TRUE(trace.ok()) << trace.status();
  return trace.ok() ? std::move(*trace) : nullptr;
}

// The placements of `gpus` GPUs on nodes of 4: {4, 4, 2}, {3, 1}, ...
void Placements(int gpus, int most, std::vector<int>* prefix,
                std::vector<std::vector<int>>* out) {
  if (gpus == 0) {
    out->push_back(*prefix);
    return;
  }
  for (int g = std::min({gpus, most, 4}); g >= 1; --g) {
    prefix->push_back(g);
    Placements(gpus - g, g, prefix, out);
    prefix->pop_back();
  }
}

// Seconds from the first allocation to completion, alone on `placement`.
double AloneSeconds(const pollux::Application& app, int batch_size,
                    const std::vector<int>& placement) {
  pollux::JobModel model(&app, batch_size, 0);
  model.Reallocate(placement);
  while (!model.done() && model.current_time() < 1e7) model.Step(60);
  return model.completion_time().value_or(-1);
}

TEST(Trace, AJobAloneFinishesAtItsModelTime) {
  auto trace = Load(kWorkload1);
  ASSERT_NE(trace, nullptr);
  // cifar10-0 (6 replicas, batch 2048) arrives at 107 s; alone, rigid.
  trace->jobs.resize(1);
  const pollux::WorkloadJob job = trace->jobs[0];
  ASSERT_EQ(job.name, "cifar10-0");
  Result r = Simulated(WithTrace(*trace, true), "policies/default.yaml", true);
  ASSERT_EQ(r.trace_jobs.size(), 1u);
  const TraceOutcome& got = r.trace_jobs[0];
  EXPECT_EQ(got.arrival, job.time);
  EXPECT_EQ(got.pods, job.num_replicas);
  ASSERT_GE(got.finished, 0);
  EXPECT_EQ(got.restarts, 0);
  // Started at the first cycle after it arrived (60 s period).
  EXPECT_GE(got.started, job.time);
  EXPECT_LT(got.started, job.time + 60);
  // It finished at the model's time on one of the placements of its GPUs
  // over as many nodes as its pods spanned, within one period.
  std::vector<std::vector<int>> placements;
  std::vector<int> prefix;
  Placements(job.num_replicas, 4, &prefix, &placements);
  const pollux::Application& app = *trace->apps.at(job.application);
  double nearest = std::numeric_limits<double>::infinity();
  std::ostringstream tried;
  for (const auto& p : placements) {
    if (static_cast<int>(p.size()) != got.nodes) continue;
    const double t = AloneSeconds(app, job.batch_size, p);
    tried << " " << p.size() << " nodes: " << t;
    nearest = std::min(nearest, std::abs(got.finished - got.arrival - t));
  }
  EXPECT_LE(nearest, 60) << "jct " << got.finished - got.arrival << " on "
                         << got.nodes << " nodes; model:" << tried.str();
  // It held its GPUs from its start to its end.
  EXPECT_NEAR(got.gpu_seconds,
              static_cast<double>(got.finished - got.started) * got.pods, 1);
  EXPECT_EQ(r.summary["jobs"]["completed"].get<int>(), 1);
  EXPECT_EQ(r.summary["jobs"]["makespanSeconds"].get<int64_t>(), got.finished);
}

// The first 20 jobs of workload-1, rigid and elastic: every one completes,
// no sooner than it could alone on the best placement of its GPUs.
TEST(Trace, First20JobsOfWorkload1Complete) {
  auto trace = Load(kWorkload1);
  ASSERT_NE(trace, nullptr);
  trace->jobs.resize(20);
  for (bool rigid : {true, false}) {
    SCOPED_TRACE(rigid ? "rigid" : "elastic");
    Result r = Simulated(
        WithTrace(*trace, rigid),
        rigid ? "policies/default.yaml" : "policies/elastic.yaml", rigid);
    EXPECT_EQ(r.summary["jobs"]["completed"].get<int>(), 20)
        << r.summary.dump();
    ASSERT_EQ(r.trace_jobs.size(), 20u);
    EXPECT_EQ(r.summary["trace"]["completed"].get<int>(), 20);
    for (size_t i = 0; i < r.trace_jobs.size(); ++i) {
      const TraceOutcome& got = r.trace_jobs[i];
      const pollux::WorkloadJob& job = trace->jobs[i];
      EXPECT_EQ(got.name, job.name);
      EXPECT_GE(got.started, got.arrival);
      EXPECT_GT(got.finished, got.started);
      if (!rigid) continue;
      EXPECT_EQ(got.pods, job.num_replicas);
      std::vector<std::vector<int>> placements;
      std::vector<int> prefix;
      Placements(job.num_replicas, 4, &prefix, &placements);
      double best = std::numeric_limits<double>::infinity();
      for (const auto& p : placements) {
        best = std::min(best, AloneSeconds(*trace->apps.at(job.application),
                                           job.batch_size, p));
      }
      EXPECT_GE(got.finished - got.started, best - 1) << job.name;
    }
    // The run stopped when the last job was done, not at the cap.
    EXPECT_LT(r.series.size(), 24u * 3600);
  }
}

// All of workload-1 (a second or two per run): every job completes, rigid
// jobs under a policy that never evicts are never restarted, and elastic
// ones carry their jobs' restarts into the summary.
TEST(Trace, Workload1Completes) {
  auto trace = Load(kWorkload1);
  ASSERT_NE(trace, nullptr);
  for (bool rigid : {true, false}) {
    SCOPED_TRACE(rigid ? "rigid" : "elastic");
    Result r = Simulated(
        WithTrace(*trace, rigid),
        rigid ? "policies/default.yaml" : "policies/elastic.yaml", rigid);
    EXPECT_EQ(r.summary["jobs"]["completed"].get<int>(), 160);
    EXPECT_EQ(r.summary["trace"]["completed"].get<int>(), 160);
    const double restarts = r.summary["trace"]["restartsPerJob"].get<double>();
    if (rigid) {
      EXPECT_EQ(restarts, 0);
    }
    int total = 0;
    for (const TraceOutcome& job : r.trace_jobs) total += job.restarts;
    EXPECT_NEAR(restarts, total / 160.0, 1e-3);
    EXPECT_EQ(r.summary["jobs"]["makespanSeconds"].get<int64_t>() / 60,
              static_cast<int64_t>(r.series.size() - 1) / 60);
  }
}

// Two elastic jobs of 8 pods (1 GPU each) on 8 GPUs: one whose curve is
// flat (a second pod adds nothing), one that gains from every pod; with
// `curves` their PodGroups say so, with `cost` each resize costs them 30 s
// (and the elastic plugin's resize rule weighs growth by the curve).
Scenario FlatAndGaining(bool curves, bool cost) {
  auto base = LoadScenario(kScenario);
  EXPECT_TRUE(base.ok()) << base.status();
  Scenario sc = *base;
  sc.pools[0].count = 2;  // 8 GPUs
  sc.stop_when_done = false;
  sc.duration = absl::Minutes(30);
  for (const char* name : {"flat", "gains"}) {
    JobWorkload w;
    w.name = name;
    w.count = 1;
    w.arrivals = {absl::ZeroDuration()};
    TaskSpec task;
    task.name = "worker";
    task.replicas = 8;
    task.min = 1;
    task.requests = *api::Resource::FromList({{"cpu", "1"},
                                              {"memory", "2Gi"},
                                              {"nvidia.com/gpu", "1"},
                                              {"pods", "1"}},
                                             "test");
    w.tasks.push_back(task);
    w.work_task = "worker";
    w.pod_seconds = 1e9;  // runs to the end
    w.resize_cost = absl::Seconds(cost ? 30 : 0);
    w.resize_cost_given = true;
    for (int n : {1, 2, 4, 8}) {
      if (curves)
        w.throughput.emplace_back(n, std::string(name) == "flat" ? 1.0 : n);
    }
    sc.jobs.push_back(std::move(w));
  }
  return sc;
}

int MostFlatPodsWhileOtherWaits(const Result& r) {
  int most = 0;
  for (const Sample& s : r.series) {
    auto flat = s.running_pods.find("flat");
    auto gains = s.running_pods.find("gains");
    const int g = gains == s.running_pods.end() ? 0 : gains->second;
    if (flat != s.running_pods.end() && g < 8)
      most = std::max(most, flat->second);
  }
  return most;
}

// share: throughput, resizes free (the sharing alone decides) or costing
// 30 s: the flat job never runs a second pod while the other one has pods
// waiting, and the gaining job gets the rest.
TEST(Trace, FlatCurveNeverGetsASecondPodWhileAnotherJobGains) {
  for (bool cost : {false, true}) {
    SCOPED_TRACE(cost ? "resize cost 30 s" : "resizes free");
    Result r = Simulated(FlatAndGaining(true, cost),
                         "policies/elastic-throughput.yaml", false);
    EXPECT_EQ(MostFlatPodsWhileOtherWaits(r), 1);
    int most_gains = 0;
    for (const Sample& s : r.series) {
      auto it = s.running_pods.find("gains");
      if (it != s.running_pods.end())
        most_gains = std::max(most_gains, it->second);
    }
    EXPECT_EQ(most_gains, 7);
  }
}

// The check tells policies apart: even sharing without the curves, resizes
// free, gives the flat job half.
TEST(Trace, EvenSharingWithoutCurvesGivesTheFlatJobMore) {
  Result r =
      Simulated(FlatAndGaining(false, false), "policies/elastic.yaml", false);
  EXPECT_GT(MostFlatPodsWhileOtherWaits(r), 1);
}

// Elastic trace jobs carry their curve to the scheduler.
TEST(Trace, ElasticJobsCarryTheirCurveAndPods) {
  auto trace = Load(kWorkload1);
  ASSERT_NE(trace, nullptr);
  Scenario sc, batch;
  AddTraceJobs(*trace, false, &sc);
  AddTraceJobs(*trace, false, &batch, ElasticMost::kBatch);
  ASSERT_EQ(sc.jobs.size(), trace->jobs.size());
  ASSERT_EQ(batch.jobs.size(), trace->jobs.size());
  int wider = 0;
  for (size_t i = 0; i < sc.jobs.size(); ++i) {
    const JobWorkload& w = sc.jobs[i];
    const pollux::WorkloadJob& row = trace->jobs[i];
    ASSERT_EQ(w.tasks.size(), 1u);
    EXPECT_EQ(w.tasks[0].min, 1);
    const int pods = w.tasks[0].replicas;
    // Tuned (the default): at most the user's num_replicas; batch: as
    // wide as the batch splits, never narrower.
    EXPECT_EQ(pods, std::min(row.num_replicas, ElasticPods(row, *w.app)));
    EXPECT_EQ(batch.jobs[i].tasks[0].replicas, ElasticPods(row, *w.app));
    if (batch.jobs[i].tasks[0].replicas > pods) ++wider;
    EXPECT_GE(pods, 1);
    EXPECT_LE(pods, 64);
    if (w.app->name() == "ncf") {
      EXPECT_EQ(pods, 1);
    }
    ASSERT_FALSE(w.throughput.empty());
    EXPECT_EQ(w.throughput.front().first, 1);
    EXPECT_NEAR(w.throughput.front().second, 1.0, 1e-9);
    EXPECT_EQ(w.throughput.back().first, pods);
    EXPECT_EQ(w.resize_cost, absl::Seconds(30));
  }
  EXPECT_GT(wider, 0);
  Scenario rigid;
  AddTraceJobs(*trace, true, &rigid);
  for (size_t i = 0; i < rigid.jobs.size(); ++i) {
    EXPECT_EQ(rigid.jobs[i].tasks[0].replicas, trace->jobs[i].num_replicas);
    EXPECT_EQ(rigid.jobs[i].tasks[0].min, trace->jobs[i].num_replicas);
  }
}

// Learned curves: nothing declared, each job's trainer reports its
// iterations; every job still completes, under both elastic presets that
// read curves.
TEST(Trace, Workload1CompletesWithCurvesLearnedFromProgress) {
  auto trace = Load(kWorkload1);
  ASSERT_NE(trace, nullptr);
  auto scenario = LoadScenario(kScenario);
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  AddTraceJobs(*trace, false, &*scenario, ElasticMost::kTuned,
               TraceCurves::kLearned);
  for (const JobWorkload& w : scenario->jobs) {
    EXPECT_TRUE(w.throughput.empty());
    EXPECT_TRUE(w.reports_progress);
  }
  for (const char* policy : {"policies/elastic-throughput.yaml",
                             "tools/simulator/policies/elastic-las.yaml"}) {
    SCOPED_TRACE(policy);
    Result r = Simulated(*scenario, policy, false);
    EXPECT_EQ(r.summary["trace"]["completed"].get<int>(), 160);
  }
}

TEST(Trace, CurvesAreParsedOrRefusedByName) {
  EXPECT_EQ(*ParseTraceCurves("declared"), TraceCurves::kDeclared);
  EXPECT_EQ(*ParseTraceCurves("learned"), TraceCurves::kLearned);
  EXPECT_EQ(*ParseTraceCurves("both"), TraceCurves::kBoth);
  absl::StatusOr<TraceCurves> bad = ParseTraceCurves("guessed");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "--trace-curves=\"guessed\": must be declared (shoal.dev/"
            "throughput from the model), learned (shoal.dev/progress "
            "reported, nothing declared) or both");
  Scenario both;
  auto trace = Load(kWorkload1);
  ASSERT_NE(trace, nullptr);
  AddTraceJobs(*trace, false, &both, ElasticMost::kTuned, TraceCurves::kBoth);
  EXPECT_FALSE(both.jobs.front().throughput.empty());
  EXPECT_TRUE(both.jobs.front().reports_progress);
}

TEST(Trace, ElasticMostIsParsedOrRefusedByName) {
  EXPECT_EQ(*ParseElasticMost("tuned"), ElasticMost::kTuned);
  EXPECT_EQ(*ParseElasticMost("batch"), ElasticMost::kBatch);
  absl::StatusOr<ElasticMost> bad = ParseElasticMost("wide");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "--trace-elastic-most=\"wide\": must be tuned (each job's "
            "num_replicas) or batch (batch_size / the smallest local batch, "
            "up to 64)");
}

}  // namespace
}  // namespace shoal::sim
