// End to end through an API server: gangs of pods are created over HTTP,
// shoal-scheduler's live loop (informers, cycles, concurrent binds,
// status writes, events) places them, and the clock stops when a watch
// has seen every pod bound. Reports pods bound per second, from the first
// create to the last bind seen.
//
// By default it starts the test API server emulator in-process on a free
// port. With SHOAL_BENCH_KUBECONFIG=path it runs against that cluster
// instead (a kube-apiserver with no kubelets is enough; it creates and
// deletes its own nodes and namespace).
//
//   bazel run -c opt //tools/bench:live_bench -- --benchmark_repetitions=5
#include <atomic>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "e2e/emulator/api_server.h"
#include "glog/logging.h"
#include "nlohmann/json.hpp"
#include "plugins/builtin.h"
#include "policies/default_policy.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/framework/config.h"
#include "scheduler/kube/client/http_client.h"
#include "scheduler/live.h"
#include "tools/bench/bound_pods.h"
#include "tools/bench/parallel_requests.h"
#include "tools/bench/peak_rss.h"

namespace shoal::bench {
namespace {

using nlohmann::json;

// Where to run: the emulator (started here) or a real cluster.
struct Target {
  std::unique_ptr<emulator::ApiServer> server;
  kube::ConnectionConfig connection;
};

// `write_qps` and `event_delay` slow the emulator down (ignored on a real
// cluster).
std::unique_ptr<Target> StartTarget(
    double write_qps = 0, absl::Duration event_delay = absl::ZeroDuration()) {
  auto t = std::make_unique<Target>();
  if (const char* kubeconfig = std::getenv("SHOAL_BENCH_KUBECONFIG")) {
    auto c = kube::LoadKubeconfig(kubeconfig, "");
    if (!c.ok()) LOG(FATAL) << c.status().message();
    t->connection = *c;
    return t;
  }
  emulator::ApiServerOptions options;
  options.threads = 128;
  options.write_qps = write_qps;
  options.event_delay = event_delay;
  t->server = std::make_unique<emulator::ApiServer>(options);
  int port = t->server->Start("127.0.0.1", 0);
  t->connection.server = absl::StrCat("http://127.0.0.1:", port);
  return t;
}

void MustRequest(kube::HttpClient& c, const std::string& method,
                 const std::string& path, const json& body = nullptr) {
  auto r = c.Request(method, path, body.is_null() ? "" : body.dump());
  if (!r.ok() || (r->status >= 300 && r->status != 404 && r->status != 409)) {
    LOG(FATAL) << method << " " << path << ": "
               << (r.ok() ? absl::StrCat(r->status, " ", r->body)
                          : std::string(r.status().message()));
  }
}

// `count` Ready nodes named NS-node-I, each with `cpus` cpus, 256Gi of
// memory and room for 110 pods.
void CreateReadyNodes(const kube::ConnectionConfig& conn, const std::string& ns,
                      int count, int cpus) {
  Parallel(conn, count, 8, [&](kube::HttpClient& c, int i) {
    std::string name = absl::StrCat(ns, "-node-", i);
    json capacity = {
        {"cpu", absl::StrCat(cpus)}, {"memory", "256Gi"}, {"pods", "110"}};
    MustRequest(c, "POST", "/api/v1/nodes", {{"metadata", {{"name", name}}}});
    auto r = c.Request(
        "PATCH", absl::StrCat("/api/v1/nodes/", name, "/status"),
        json{{"status",
              {{"capacity", capacity},
               {"allocatable", capacity},
               {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}}
            .dump(),
        "application/strategic-merge-patch+json");
    if (!r.ok() || r->status != 200) LOG(FATAL) << "node status " << name;
  });
}

// The namespace's pod list's resourceVersion: a watch from it sees every
// change after it.
std::string NewestVersion(const kube::ConnectionConfig& conn,
                          const std::string& ns) {
  kube::HttpClient c(conn);
  auto list =
      c.Request("GET", absl::StrCat("/api/v1/namespaces/", ns, "/pods"));
  if (!list.ok() || list->status != 200) LOG(FATAL) << "list pods in " << ns;
  return json::parse(list->body)["metadata"]["resourceVersion"];
}

void BM_PodsBoundThroughApiServer(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int gangs = static_cast<int>(state.range(1));
  const int gang_size = 10;
  const int pods = gangs * gang_size;
  auto config =
      framework::ParseSchedulerConfig(policies::kDefaultPolicy, "default.yaml");
  int round = 0;
  for (auto _ : state) {
    std::unique_ptr<Target> target = StartTarget();
    const kube::ConnectionConfig& conn = target->connection;
    const std::string ns = absl::StrCat("shoal-bench-", getpid(), "-", round++);
    kube::HttpClient admin(conn);
    MustRequest(admin, "POST", "/api/v1/namespaces",
                {{"metadata", {{"name", ns}}}});
    MustRequest(admin, "POST", "/apis/scheduling.volcano.sh/v1beta1/queues",
                {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                 {"kind", "Queue"},
                 {"metadata", {{"name", "default"}}},
                 {"spec", {{"weight", 1}}}});
    // Nodes with room for exactly all pods (10 cpus each for 10 per node).
    CreateReadyNodes(conn, ns, nodes, pods / nodes);

    auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                         actions::BuiltinActions());
    std::atomic<bool> stop{false};
    LiveOptions options;
    options.period = absl::Milliseconds(100);
    options.bind_concurrency = 16;
    options.metrics_address = "";  // no port to collide with another run
    std::thread scheduler([&] { (void)RunLive(conn, *policy, options, stop); });

    // A watch counts pods as they become bound.
    BoundPods bound(conn, absl::StrCat("/api/v1/namespaces/", ns, "/pods"),
                    NewestVersion(conn, ns));
    // Let the scheduler sync its (empty) namespace first.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));

    absl::Time start = absl::Now();
    Parallel(conn, gangs, 8, [&](kube::HttpClient& c, int g) {
      std::string group = absl::StrCat("gang-", g);
      MustRequest(
          c, "POST",
          absl::StrCat("/apis/scheduling.volcano.sh/v1beta1/namespaces/", ns,
                       "/podgroups"),
          {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
           {"kind", "PodGroup"},
           {"metadata", {{"name", group}}},
           {"spec", {{"minMember", gang_size}}}});
      for (int p = 0; p < gang_size; ++p) {
        json requests = {{"cpu", "1"}, {"memory", "1Gi"}};
        MustRequest(
            c, "POST", absl::StrCat("/api/v1/namespaces/", ns, "/pods"),
            {{"metadata",
              {{"name", absl::StrCat(group, "-", p)},
               {"annotations", {{"scheduling.k8s.io/group-name", group}}}}},
             {"spec",
              {{"schedulerName", "shoal"},
               {"containers",
                {{{"name", "main"},
                  {"image", "registry.k8s.io/pause:3.9"},
                  {"resources", {{"requests", requests}}}}}}}}});
      }
    });
    absl::Time created = absl::Now();
    bound.WaitFor(pods, absl::Minutes(2));
    absl::Time done = absl::Now();
    stop = true;
    scheduler.join();
    if (bound.count() < pods) {
      state.SkipWithError(
          absl::StrCat("only ", bound.count(), " of ", pods, " pods bound")
              .c_str());
      break;
    }
    double seconds = absl::ToDoubleSeconds(done - start);
    state.SetIterationTime(seconds);
    state.counters["pods_per_s"] = pods / seconds;
    state.counters["create_s"] = absl::ToDoubleSeconds(created - start);
    // On a real cluster, leave nothing behind.
    if (!target->server) {
      Parallel(conn, nodes, 8, [&](kube::HttpClient& c, int i) {
        MustRequest(c, "DELETE",
                    absl::StrCat("/api/v1/nodes/", ns, "-node-", i));
      });
      MustRequest(admin, "DELETE", absl::StrCat("/api/v1/namespaces/", ns));
    }
  }
  state.counters["peak_rss_MiB"] = PeakRssMib();
}

// An API server that admits a fixed number of writes a second (as a
// kube-apiserver's priority and fairness holds one client) and answers
// Events slowly, while the scheduler also writes a Scheduled Event per
// bind, PodGroup status per gang, and an Unschedulable condition and a
// FailedScheduling Event for pods that fit nowhere. The pods exist before
// the scheduler starts, so every write it makes competes for the same
// rate; `binds_per_s` is measured between the first and the last bind a
// watch sees, and `of_write_rate` is that over the server's rate (1.0:
// the binds took every write the server admitted).
void BM_BindsAtAFixedWriteRate(benchmark::State& state) {
  const double write_qps = static_cast<double>(state.range(0));
  const int gangs = static_cast<int>(state.range(1));
  const int gang_size = 10;
  const int pods = gangs * gang_size;
  const int nodes = gangs;
  // Pods of one whose nodeSelector no node matches: each cycle keeps a
  // condition and a FailedScheduling Event on them.
  const int stuck = gangs / 2;
  auto config =
      framework::ParseSchedulerConfig(policies::kDefaultPolicy, "default.yaml");
  for (auto _ : state) {
    std::unique_ptr<Target> target = StartTarget(write_qps);
    if (!target->server) {
      state.SkipWithError("needs the emulator (it sets the write rate)");
      break;
    }
    const kube::ConnectionConfig& conn = target->connection;
    const std::string ns = "shoal-bench-rate";
    kube::HttpClient admin(conn);
    MustRequest(admin, "POST", "/api/v1/namespaces",
                {{"metadata", {{"name", ns}}}});
    MustRequest(admin, "POST", "/apis/scheduling.volcano.sh/v1beta1/queues",
                {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                 {"kind", "Queue"},
                 {"metadata", {{"name", "default"}}},
                 {"spec", {{"weight", 1}}}});
    CreateReadyNodes(conn, ns, nodes, gang_size + 2);
    auto pod = [&](const std::string& name, const std::string& group,
                   const std::string& cpu) {
      json meta = {{"name", name}};
      if (!group.empty())
        meta["annotations"] = {{"scheduling.k8s.io/group-name", group}};
      json selector = json::object();
      if (group.empty()) selector["disktype"] = "none-has-it";
      return json{
          {"metadata", meta},
          {"spec",
           {{"schedulerName", "shoal"},
            {"nodeSelector", selector},
            {"containers",
             {{{"name", "main"},
               {"image", "registry.k8s.io/pause:3.9"},
               {"resources",
                {{"requests", {{"cpu", cpu}, {"memory", "1Gi"}}}}}}}}}}};
    };
    Parallel(conn, gangs, 16, [&](kube::HttpClient& c, int g) {
      std::string group = absl::StrCat("gang-", g);
      MustRequest(
          c, "POST",
          absl::StrCat("/apis/scheduling.volcano.sh/v1beta1/namespaces/", ns,
                       "/podgroups"),
          {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
           {"kind", "PodGroup"},
           {"metadata", {{"name", group}}},
           {"spec", {{"minMember", gang_size}}}});
      for (int p = 0; p < gang_size; ++p) {
        MustRequest(c, "POST", absl::StrCat("/api/v1/namespaces/", ns, "/pods"),
                    pod(absl::StrCat(group, "-", p), group, "1"));
      }
      if (g < stuck) {
        MustRequest(c, "POST", absl::StrCat("/api/v1/namespaces/", ns, "/pods"),
                    pod(absl::StrCat("nowhere-", g), "", "1"));
      }
    });

    std::atomic<bool> stop{false};
    BoundPods bound(conn, absl::StrCat("/api/v1/namespaces/", ns, "/pods"),
                    NewestVersion(conn, ns));

    auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                         actions::BuiltinActions());
    LiveOptions options;
    options.period = absl::Milliseconds(100);
    options.bind_concurrency = 16;
    options.metrics_address = "";
    if (state.range(2) > 0) {
      // A budget far above the server's rate: no lane waits for a token,
      // every write goes first come, first served, as before the budget.
      options.writes.qps = static_cast<double>(state.range(2));
      options.writes.burst = static_cast<int>(state.range(2));
    }
    absl::Time start = absl::Now();
    std::thread scheduler([&] { (void)RunLive(conn, *policy, options, stop); });
    bound.WaitFor(pods, absl::Minutes(2));
    stop = true;
    scheduler.join();
    if (bound.count() < pods) {
      state.SkipWithError(
          absl::StrCat("only ", bound.count(), " of ", pods, " pods bound")
              .c_str());
      break;
    }
    const absl::Time first_bind = bound.first(), last_bind = bound.last();
    double window = absl::ToDoubleSeconds(last_bind - first_bind);
    double binds_per_s = (pods - 1) / window;
    state.SetIterationTime(absl::ToDoubleSeconds(last_bind - start));
    state.counters["binds_per_s"] = binds_per_s;
    state.counters["of_write_rate"] = binds_per_s / write_qps;
    state.counters["first_bind_s"] = absl::ToDoubleSeconds(first_bind - start);
  }
}

// 2,000 pods in 200 gangs against an API server admitting 1,000
// writes/s; the scheduler's default budget, then one that never holds a
// write back (the third argument: --kube-api-qps and burst).
BENCHMARK(BM_BindsAtAFixedWriteRate)
    ->Args({1000, 200, 0})
    ->Args({1000, 200, 1000000})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(1);

BENCHMARK(BM_PodsBoundThroughApiServer)
    ->Args({100, 100})    // 1,000 pods in 100 gangs of 10 on 100 nodes
    ->Args({1000, 1000})  // 10,000 pods on 1,000 nodes
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(1);

}  // namespace
}  // namespace shoal::bench
