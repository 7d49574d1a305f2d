// A scheduler started on a large cluster that is already there: 5,000
// nodes and 50,000 pending pods in 1,000 gangs of 50, each object the size
// the API server returns (realistic_objects.h), created in the API server
// emulator before `shoal-scheduler` starts. The scheduler runs as its own
// process, so its memory is its own. Reported:
//   synced_s      start until /readyz answers 200 (every kind listed)
//   first_bind_s  start until a watch sees the first pod bound
//   all_bound_s   start until every pod that fits is bound
//   peak_rss_MiB  the scheduler process's VmHWM
//   cpu_s_per_1k  the scheduler's CPU time (user + system) per 1,000 binds
//
//   bazel run //tools/bench:start_at_scale_bench -- --benchmark_repetitions=3
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "e2e/emulator/api_server.h"
#include "glog/logging.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "scheduler/cache/cache.h"
#include "scheduler/kube/client/http_client.h"
#include "scheduler/kube/snapshot/snapshot_writer.h"
#include "tools/bench/bound_pods.h"
#include "tools/bench/parallel_requests.h"
#include "tools/bench/realistic_objects.h"
#include "tools/bench/synthetic_cluster.h"

namespace shoal::bench {
namespace {

using nlohmann::json;

// $SHOAL_SCHEDULER, or the binary in this one's runfiles (bazel run
// starts in them; run directly, they are next to the executable).
std::string SchedulerBinary() {
  if (const char* path = std::getenv("SHOAL_SCHEDULER")) return path;
  if (access("scheduler/shoal-scheduler", X_OK) == 0)
    return "scheduler/shoal-scheduler";
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "scheduler/shoal-scheduler";
  return absl::StrCat(std::string(self, n),
                      ".runfiles/shoal/scheduler/shoal-scheduler");
}

// A port nobody listens on now: bound to 0, read back, closed.
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    LOG(FATAL) << "no free port";
  }
  close(fd);
  return ntohs(addr.sin_port);
}

std::string CollectionPath(const json& o) {
  const std::string kind = o.value("kind", "");
  const std::string ns = o["metadata"].value("namespace", "");
  if (kind == "Node") return "/api/v1/nodes";
  if (kind == "Namespace") return "/api/v1/namespaces";
  if (kind == "Pod") return absl::StrCat("/api/v1/namespaces/", ns, "/pods");
  if (kind == "Queue") return "/apis/scheduling.volcano.sh/v1beta1/queues";
  if (kind == "PodGroup")
    return absl::StrCat("/apis/scheduling.volcano.sh/v1beta1/namespaces/", ns,
                        "/podgroups");
  return "";
}

// Creates the synthetic cluster's objects, dressed, in the API server.
int CreateCluster(const kube::ConnectionConfig& conn, int nodes) {
  SyntheticClusterSpec spec;
  spec.nodes = nodes;
  spec.gangs = nodes / 5;
  spec.pods_per_gang = 50;
  cache::Cache cache("shoal");
  BuildSyntheticCluster(spec, cache);
  json list = kube::EncodeSnapshotList(cache.Export());
  std::set<std::string> namespaces;
  std::vector<json> first, then;  // namespaces, nodes and queues first
  const auto queues = QueuesOfPodGroups(list);
  int pods = 0;
  for (json& item : list["items"]) {
    const std::string kind = item.value("kind", "");
    if (kind == "Pod") {
      DressPod(item, pods++, QueueOfPod(queues, item));
      item.erase("status");  // the API server sets it on create
    } else if (kind == "Node") {
      DressNode(item, first.size());
    }
    const std::string ns = item["metadata"].value("namespace", "");
    if (!ns.empty() && namespaces.insert(ns).second) {
      first.push_back({{"apiVersion", "v1"},
                       {"kind", "Namespace"},
                       {"metadata", {{"name", ns}}}});
    }
    (kind == "Pod" || kind == "PodGroup" ? then : first)
        .push_back(std::move(item));
  }
  for (const auto* batch : {&first, &then}) {
    Parallel(conn, static_cast<int>(batch->size()), 8,
             [&](kube::HttpClient& c, int i) {
               const json& o = (*batch)[i];
               auto r = c.Request("POST", CollectionPath(o), o.dump());
               if (!r.ok() || r->status >= 300) {
                 LOG(FATAL)
                     << "create " << o.value("kind", "") << " "
                     << o["metadata"].value("name", "") << ": "
                     << (r.ok() ? r->body : std::string(r.status().message()));
               }
             });
  }
  return pods;
}

struct ProcessUse {
  double peak_rss_mib = 0;
  double cpu_seconds = 0;
};

ProcessUse Use(pid_t pid) {
  ProcessUse use;
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0)
      use.peak_rss_mib = std::stod(line.substr(6)) / 1024.0;
  }
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string all((std::istreambuf_iterator<char>(stat)), {});
  // Fields after the command's closing parenthesis; utime and stime are
  // the 14th and 15th of the whole line.
  std::vector<std::string> f =
      absl::StrSplit(all.substr(all.rfind(')') + 2), ' ');
  if (f.size() > 13) {
    use.cpu_seconds =
        (std::stod(f[11]) + std::stod(f[12])) / sysconf(_SC_CLK_TCK);
  }
  return use;
}

void BM_SchedulerStartsOnALargeCluster(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  for (auto _ : state) {
    emulator::ApiServerOptions options;
    options.threads = 64;
    emulator::ApiServer server(options);
    int port = server.Start("127.0.0.1", 0);
    kube::ConnectionConfig conn;
    conn.server = absl::StrCat("http://127.0.0.1:", port);
    const int pods = CreateCluster(conn, nodes);

    const std::string dir =
        std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
    const std::string kubeconfig =
        absl::StrCat(dir, "/start-at-scale-", getpid(), ".kubeconfig");
    std::ofstream(kubeconfig)
        << "apiVersion: v1\nkind: Config\ncurrent-context: bench\n"
        << "clusters: [{name: bench, cluster: {server: '" << conn.server
        << "'}}]\nusers: [{name: bench, user: {}}]\n"
        << "contexts: [{name: bench, context: {cluster: bench, user: "
           "bench}}]\n";
    const int metrics_port = FreePort();

    // Counts bound pods from a watch started before the scheduler, from
    // the newest resourceVersion without listing 50,000 pods: that of an
    // object created now.
    kube::HttpClient admin(conn);
    auto marker = admin.Request("POST", "/api/v1/namespaces",
                                R"({"metadata":{"name":"start-at-scale"}})");
    if (!marker.ok() || marker->status != 201) LOG(FATAL) << "marker namespace";
    BoundPods bound(conn, "/api/v1/pods",
                    json::parse(marker->body)["metadata"]["resourceVersion"]);

    const absl::Time start = absl::Now();
    pid_t pid = fork();
    if (pid == 0) {
      // Its log (a line per cycle) goes to a file, not into the table.
      if (!std::freopen(absl::StrCat(dir, "/start-at-scale.log").c_str(), "w",
                        stderr)) {
        _exit(126);
      }
      const std::string binary = SchedulerBinary();
      std::string kc = "--kubeconfig=" + kubeconfig;
      std::string metrics =
          absl::StrCat("--metrics-address=127.0.0.1:", metrics_port);
      execl(binary.c_str(), binary.c_str(), kc.c_str(), metrics.c_str(),
            "--admin-address=", "--schedule-period=100ms",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    // Ready: every kind listed (and, without election, leading).
    absl::Time synced = absl::InfiniteFuture();
    httplib::Client probe("127.0.0.1", metrics_port);
    probe.set_connection_timeout(0, 100000);
    int exit_status = 0;
    while (absl::Now() - start < absl::Minutes(5)) {
      if (waitpid(pid, &exit_status, WNOHANG) == pid) {
        state.SkipWithError(absl::StrCat("shoal-scheduler exited (status ",
                                         exit_status, "); see ", dir,
                                         "/start-at-scale.log")
                                .c_str());
        return;
      }
      auto r = probe.Get("/readyz");
      if (r && r->status == 200) {
        synced = absl::Now();
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // Every pod of the synthetic cluster fits but 2,500 (5%).
    const int expected = pods - pods / 20;
    bound.WaitFor(expected, absl::Minutes(5) - (absl::Now() - start));
    const absl::Time all_bound = absl::Now();
    ProcessUse use = Use(pid);
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
    server.Stop();
    std::remove(kubeconfig.c_str());
    if (bound.count() < expected) {
      state.SkipWithError(
          absl::StrCat("only ", bound.count(), " of ", expected, " pods bound")
              .c_str());
      break;
    }
    state.SetIterationTime(absl::ToDoubleSeconds(all_bound - start));
    state.counters["synced_s"] = absl::ToDoubleSeconds(synced - start);
    const absl::Time first_bind = bound.first();
    state.counters["first_bind_s"] = absl::ToDoubleSeconds(first_bind - start);
    state.counters["all_bound_s"] = absl::ToDoubleSeconds(all_bound - start);
    state.counters["pods_per_s"] =
        bound.count() / absl::ToDoubleSeconds(all_bound - first_bind);
    state.counters["peak_rss_MiB"] = use.peak_rss_mib;
    state.counters["cpu_s_per_1k"] = use.cpu_seconds * 1000 / bound.count();
  }
}

BENCHMARK(BM_SchedulerStartsOnALargeCluster)
    ->Arg(5000)  // 5,000 nodes, 50,000 pods
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(1);

}  // namespace
}  // namespace shoal::bench
