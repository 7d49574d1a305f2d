// The EDL experiments and the simulator's own promises, on the shipped
// scenarios and policies (run from the workspace root as Bazel does).
#include "tools/simulator/simulator.h"

#include "gtest/gtest.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/framework/config.h"

namespace shoal::sim {
namespace {

Result Simulated(const std::string& scenario_path, bool rigid) {
  auto scenario = LoadScenario(scenario_path);
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  auto config = framework::LoadSchedulerConfig(scenario->policy);
  EXPECT_TRUE(config.ok()) << config.status();
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  EXPECT_TRUE(policy.ok()) << policy.status();
  Options options;
  options.rigid = rigid;
  return Simulate(*scenario, *policy, options);
}

constexpr char kFig1[] = "tools/simulator/scenarios/edl-fig1.yaml";
constexpr char kFig2[] = "tools/simulator/scenarios/edl-fig2.yaml";

TEST(EdlFig1, ElasticStartsEveryJobAtOnceAndSharesFairly) {
  Result r = Simulated(kFig1, false);
  // Every job's minimum runs within 2 periods (2 s) of its arrival.
  EXPECT_LE(r.summary["jobs"]["waitMaxSeconds"].get<double>(), 2.0)
      << r.summary.dump();
  EXPECT_GE(r.summary["fairness"]["jain"].get<double>(), 0.95)
      << r.summary.dump();
  EXPECT_EQ(r.summary["jobs"]["completed"].get<int>(), 20);
  // After the arrivals (20 jobs, 10 s apart) nothing waits.
  for (const Sample& s : r.series) {
    if (s.second >= 200) {
      EXPECT_EQ(s.pending_jobs, 0) << "second " << s.second;
    }
  }
}

TEST(EdlFig1, RigidPendingJobsPileUpWithArrivals) {
  Result r = Simulated(kFig1, true);
  EXPECT_GE(r.summary["pendingJobs"]["max"].get<int>(), 10) << r.summary.dump();
  int at_50 = 0, at_190 = 0;
  for (const Sample& s : r.series) {
    if (s.second == 50) at_50 = s.pending_jobs;
    if (s.second == 190) at_190 = s.pending_jobs;
  }
  EXPECT_GT(at_190, at_50);
}

TEST(EdlFig2, ElasticKeepsTheClusterFullAndServicesFirst) {
  Result elastic = Simulated(kFig2, false);
  EXPECT_GE(elastic.summary["utilization"]["cpu"]["mean"].get<double>(), 0.95)
      << elastic.summary.dump();
  // No nginx pod waits longer than one period (1 s).
  EXPECT_LE(elastic.max_service_wait_seconds, 1);
  Result rigid = Simulated(kFig2, true);
  // Rigid use follows nginx: lower, and it dips when nginx does.
  EXPECT_LT(rigid.summary["utilization"]["cpu"]["mean"].get<double>(),
            elastic.summary["utilization"]["cpu"]["mean"].get<double>() - 0.05);
  EXPECT_LT(rigid.summary["utilization"]["cpu"]["p05"].get<double>(), 0.9);
  EXPECT_GT(rigid.summary["pendingJobs"]["mean"].get<double>(), 1.0);
}

TEST(Simulator, SameScenarioSameResult) {
  Result a = Simulated("tools/simulator/scenarios/starvation.yaml", false);
  Result b = Simulated("tools/simulator/scenarios/starvation.yaml", false);
  EXPECT_EQ(a.summary.dump(), b.summary.dump());
  EXPECT_EQ(SeriesCsv(a.series), SeriesCsv(b.series));
}

// The second the 40-pod gang "big" first ran whole, or -1.
int64_t BigGangStart(const Result& r) {
  for (const Sample& s : r.series) {
    auto it = s.running_pods.find("big");
    if (it != s.running_pods.end() && it->second >= 40) return s.second;
  }
  return -1;
}

TEST(Simulator, StarvingGangRunsThanksToTheReservation) {
  constexpr char kStarvation[] = "tools/simulator/scenarios/starvation.yaml";
  // policies/default.yaml holds nodes for a gang after 5 minutes; 1-pod
  // jobs run 90 s, so the held nodes are empty 90 s later.
  // It arrives at 120 s, when the stream has filled the cluster.
  int64_t with = BigGangStart(Simulated(kStarvation, false));
  EXPECT_GE(with, 120 + 300);
  EXPECT_LE(with, 120 + 300 + 90 + 5);
  // The same without the reservation plugin: the gang never runs.
  auto scenario = LoadScenario(kStarvation);
  ASSERT_TRUE(scenario.ok());
  auto config = framework::ParseSchedulerConfig(R"(
actions: "enqueue, allocate, backfill"
tiers:
- plugins: [{name: priority}, {name: gang}, {name: conformance}]
- plugins: [{name: overcommit}, {name: drf}, {name: predicates}, {name: proportion}, {name: nodeorder}]
)",
                                                "no-reservation.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  ASSERT_TRUE(policy.ok());
  EXPECT_EQ(BigGangStart(Simulate(*scenario, *policy, Options())), -1);
}

TEST(Scenario, RefusalsNameTheField) {
  auto msg = [](const std::string& yaml) {
    return std::string(ParseScenario(yaml, "s.yaml").status().message());
  };
  const std::string base =
      "duration: 1h\ncluster:\n  nodes: [{prefix: n, count: 1, allocatable: "
      "{cpu: \"4\"}}]\n";
  EXPECT_EQ(msg("duration: soon\n"),
            "s.yaml:1: duration: must be a duration such as \"90s\" or \"2h\", "
            "got \"soon\"");
  EXPECT_EQ(
      msg(base + "workloads:\n- kind: Job\n  name: j\n  tasks: [{name: t, "
                 "replicas: 2, min: 3, "
                 "requests: {cpu: \"1\"}}]\n"),
      "s.yaml:7: workloads[0].tasks[0].min: must be <= replicas (2), got 3");
  EXPECT_EQ(msg(base + "workloads:\n- kind: Cron\n  name: j\n"),
            "s.yaml:5: workloads[0].kind: unknown kind \"Cron\" (valid: Job, "
            "Service)");
  EXPECT_EQ(
      msg(base + "workloads:\n- kind: Service\n  name: web\n  requests: {cpu: "
                 "\"-1\"}\n"
                 "  replicas: [{at: 0s, count: 1}]\n"),
      "s.yaml:7: workloads[0].requests.cpu: must not be negative, got \"-1\"");
  EXPECT_EQ(msg(base + "workloads:\n- kind: Job\n  name: j\n  queue: gpu\n  "
                       "tasks: [{name: t, "
                       "replicas: 1, requests: {cpu: \"1\"}}]\n"),
            "s.yaml:7: workloads[0].queue: queue \"gpu\" is not in queues");
  EXPECT_EQ(msg("duration: 1h\nnodes: []\n"),
            "s.yaml:2: nodes: unknown field (valid: duration, period, policy, "
            "priorityClasses, "
            "cluster, queues, workloads)");
}

// The one loop runs the half-bound-gang rule in the simulator too. A
// 4-pod gang is placed on 4 one-cpu nodes at 0 s, but the world refuses
// one bind; at 1 s an online pod takes that node. The three bound members
// are released after the limit (3 cycles), not before, and the gang then
// waits whole.
TEST(PartialGangs, AGangWhoseBindsPartlyFailIsReleasedAfterTheLimit) {
  auto scenario = ParseScenario(R"(
duration: 12s
period: 1s
policy: policies/default.yaml
priorityClasses: [{name: online, value: 1000}]
cluster:
  nodes: [{prefix: node, count: 4, allocatable: {cpu: "1", pods: "110"}}]
queues: [{name: default, weight: 1}]
workloads:
- kind: Job
  name: train
  count: 1
  arrival: {start: 0s, every: 1s}
  queue: default
  tasks:
  - {name: worker, replicas: 4, min: 4, requests: {cpu: "1"}}
  work: {task: worker, podSeconds: 100000}
- kind: Service
  name: web
  priorityClass: online
  requests: {cpu: "1"}
  replicas: [{at: 1s, count: 1}]
)",
                                "partial-gangs.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  auto config = framework::LoadSchedulerConfig(scenario->policy);
  ASSERT_TRUE(config.ok()) << config.status();
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  ASSERT_TRUE(policy.ok()) << policy.status();
  auto run = [&](int limit) {
    Options options;
    options.partial_gang_release_cycles = limit;
    auto refused = std::make_shared<bool>(false);
    options.bind_fails = [refused](const std::string& pod) {
      if (pod != "default/train-0-worker-3" || *refused) return false;
      return *refused = true;  // the first attempt only
    };
    return Simulate(*scenario, *policy, options);
  };
  Result r = run(3);
  // Partial at the end of the cycles at 1, 2, 3 and 4 s: released at 4 s.
  std::vector<int64_t> evictions;
  for (const Sample& s : r.series) evictions.push_back(s.evictions);
  EXPECT_EQ(evictions,
            (std::vector<int64_t>{0, 0, 0, 0, 3, 3, 3, 3, 3, 3, 3, 3}))
      << r.summary.dump();
  EXPECT_EQ(run(1000).series.back().evictions, 0);
}

// Two queues of weight 1 on 8 GPUs (two nodes of 4): queue a runs alone
// from 0 s, queue b submits at 10 s. Per queue, summary.json has the
// completion times and how long the queue waited for min(its weighted
// share, what it asks for); timeseries.csv has each queue's share.
Result TwoQueues(const std::string& a_tasks, const std::string& b_tasks) {
  auto scenario = ParseScenario(R"(
duration: 200s
period: 1s
policy: policies/fair-share.yaml
cluster:
  nodes: [{prefix: node, count: 2, allocatable: {cpu: "8", nvidia.com/gpu: "4", pods: "110"}}]
queues: [{name: a, weight: 1}, {name: b, weight: 1}]
workloads:
- {kind: Job, name: ja, queue: a, )" +
                                    a_tasks + R"(}
- {kind: Job, name: jb, queue: b, arrival: {start: 10s}, )" +
                                    b_tasks + "}\n",
                                "two-queues.yaml");
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  auto config = framework::LoadSchedulerConfig(scenario->policy);
  EXPECT_TRUE(config.ok()) << config.status();
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  EXPECT_TRUE(policy.ok()) << policy.status();
  return Simulate(*scenario, *policy, Options());
}

TEST(Queues, AQueueWaitsForARunningGangToEnd) {
  // a's 2-pod gang holds all 8 GPUs for 100 s; reclaim never cuts a gang
  // below its minimum, so b gets its half when the gang ends.
  Result r = TwoQueues(
      "tasks: [{name: w, replicas: 2, min: 2, requests: {cpu: \"1\", "
      "nvidia.com/gpu: \"4\"}}], work: {task: w, podSeconds: 200}",
      "tasks: [{name: w, replicas: 1, requests: {cpu: \"1\", nvidia.com/gpu: "
      "\"4\"}}], work: {task: w, podSeconds: 50}");
  const auto& a = r.summary["queues"]["a"];
  const auto& b = r.summary["queues"]["b"];
  EXPECT_EQ(a["weightedShare"].get<double>(), 0.5);
  EXPECT_EQ(a["jobs"]["completed"].get<int>(), 1) << r.summary.dump();
  EXPECT_EQ(a["jobs"]["jctMeanSeconds"].get<double>(), 100);
  EXPECT_EQ(a["jobs"]["jctP95Seconds"].get<double>(), 100);
  EXPECT_EQ(a["regain"]["count"].get<int>(), 1);
  EXPECT_EQ(a["regain"]["maxSeconds"].get<double>(), 0);
  EXPECT_EQ(b["regain"]["count"].get<int>(), 1);
  EXPECT_EQ(b["regain"]["meanSeconds"].get<double>(), 90) << r.summary.dump();
  EXPECT_EQ(b["regain"]["unmet"].get<int>(), 0);
  EXPECT_EQ(b["jobs"]["jctMeanSeconds"].get<double>(), 140);  // 10 s to 150 s
  EXPECT_EQ(a["heldMean"].get<double>(), 0.5);    // all of it for 100 of 200 s
  EXPECT_EQ(b["heldMean"].get<double>(), 0.125);  // half of it for 50 s
  EXPECT_EQ(r.summary["evictions"].get<int64_t>(), 0);
  std::string csv = SeriesCsv(r.series);
  EXPECT_NE(csv.find(",queue_a,queue_b\n"), std::string::npos)
      << csv.substr(0, 200);
  EXPECT_EQ(r.series[50].queue_share.at("a"), 1.0);
  EXPECT_EQ(r.series[120].queue_share.at("b"), 0.5);
}

TEST(Queues, ReclaimReturnsAShareWithinSeconds) {
  // a holds b's half too with a pod beyond its job's minimum, which
  // reclaim takes back when b submits.
  Result r = TwoQueues(
      "tasks: [{name: w, replicas: 2, min: 1, requests: {cpu: \"1\", "
      "nvidia.com/gpu: \"4\"}}]",
      "tasks: [{name: w, replicas: 1, requests: {cpu: \"1\", nvidia.com/gpu: "
      "\"4\"}}], work: {task: w, podSeconds: 50}");
  const auto& b = r.summary["queues"]["b"];
  EXPECT_EQ(r.summary["evictions"].get<int64_t>(), 1) << r.summary.dump();
  EXPECT_EQ(b["regain"]["count"].get<int>(), 1);
  EXPECT_EQ(b["regain"]["maxSeconds"].get<double>(), 1) << r.summary.dump();
  EXPECT_EQ(r.summary["queues"]["a"]["jobs"]["completed"].get<int>(), 0);
}

}  // namespace
}  // namespace shoal::sim
