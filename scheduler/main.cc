// shoal-scheduler: the batch scheduler. Connected to a cluster it watches
// nodes, pods, PodGroups, Queues and PriorityClasses and binds pods every
// --schedule-period; with --snapshot it replays a cluster dump and prints
// what it would do, touching no API server.
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "plugins/builtin.h"
#include "policies/default_policy.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/admin/explain.h"
#include "scheduler/admin/flags.h"
#include "scheduler/admin/server.h"
#include "scheduler/cache/cache.h"
#include "scheduler/cli/flags.h"
#include "scheduler/cli/version.h"
#include "scheduler/framework/config.h"
#include "scheduler/framework/policy.h"
#include "scheduler/kube/client/connection_config.h"
#include "scheduler/kube/snapshot/snapshot_file.h"
#include "scheduler/live.h"
#include "scheduler/replay.h"

ABSL_FLAG(std::string, snapshot, "",
          "Replay this cluster dump (multi-document YAML or JSON of Nodes, "
          "Pods, PodGroups, Queues, PriorityClasses) instead of connecting "
          "to a cluster.");
ABSL_FLAG(
    std::string, kubeconfig, "",
    "Kubeconfig of the cluster to schedule (default: $KUBECONFIG; inside a "
    "pod, the service account is used when neither is set).");
ABSL_FLAG(std::string, context, "",
          "Kubeconfig context (default: its current-context).");
ABSL_FLAG(std::string, scheduler_conf, "",
          "Scheduler configuration (Volcano format). Default: the built-in "
          "policies/default.yaml.");
ABSL_FLAG(std::string, scheduler_name, "shoal",
          "Schedule only pods whose spec.schedulerName is this.");
ABSL_FLAG(int, cycles, 1, "With --snapshot: how many cycles to replay.");
ABSL_FLAG(std::string, explain, "",
          "With --snapshot: instead of replaying, say for pending pod "
          "NAMESPACE/NAME why each "
          "node takes it or not, and how kube-scheduler's plugins would score "
          "those that do.");
ABSL_FLAG(std::string, output, "text", "With --snapshot: text or json.");
ABSL_FLAG(
    absl::Duration, schedule_period, absl::Seconds(1),
    "Time between scheduling cycles. With --snapshot, the replay's clock "
    "starts at the dump's newest creationTimestamp and advances this much "
    "per cycle.");
ABSL_FLAG(int, bind_concurrency, 16,
          "Binds and evictions in flight at once against the API server, each "
          "on its own "
          "kept-alive connection.");
// kube-scheduler's flag names; its defaults (50 qps, burst 100) suit a
// scheduler that writes a bind per pod at a human pace, not one that binds
// gangs of thousands in a cycle: at 50 writes/s a 10,000-pod job would take
// over three minutes to bind. A real kube-apiserver took ~1,300 binds/s
// from 16 connections and the test emulator ~2,000/s: 2,000/s is a guard
// against a runaway loop that leaves the server's own flow control to
// set the pace, and the lanes (binds first) to share it. The burst is
// twice the rate, as kube-scheduler's.
ABSL_FLAG(double, kube_api_qps, 2000,
          "Writes per second to the API server (binds, evictions, status, "
          "Events) as a token bucket; binds and evictions go first, status "
          "and Events get a fortieth of it while binds are pending.");
ABSL_FLAG(int, kube_api_burst, 4000,
          "Writes allowed at once above --kube-api-qps after a quiet spell "
          "(the token bucket's size).");
ABSL_FLAG(
    int, partial_gang_release_cycles, 30,
    "A gang that stays below minMember with some pods bound for more than this "
    "many "
    "cycles has those pods released (evicted), so they stop holding room.");
ABSL_FLAG(int, claim_controller_lag, 1,
          "With --snapshot: the replay plays Kubernetes' resourceclaim "
          "controller this many cycles after an eviction (the evicted pod "
          "leaves its claims' status.reservedFor, a claim no pod reserves is "
          "deallocated); 1: before the next cycle; 0: never.");
ABSL_FLAG(bool, recreate_evicted, false,
          "With --snapshot: the replay plays the job controllers as well: "
          "an evicted pod of a job with a PodGroup comes back pending, same "
          "name, before the next cycle (what consolidate's moves count on).");
ABSL_FLAG(std::string, metrics_address, ":8080",
          "Where to serve Prometheus /metrics, /healthz and /readyz "
          "(HOST:PORT or :PORT; port 0 picks a free one; empty: off).");
ABSL_FLAG(bool, leader_elect, false,
          "Run several replicas: only the holder of a coordination.k8s.io "
          "Lease schedules.");
ABSL_FLAG(std::string, leader_elect_namespace, "shoal-system",
          "Namespace of the leader Lease.");
ABSL_FLAG(std::string, leader_elect_name, "shoal-scheduler",
          "Name of the leader Lease.");
ABSL_FLAG(absl::Duration, leader_elect_lease_duration, absl::Seconds(15),
          "How long a standby waits, after the leader's last renewal, before "
          "taking over.");

namespace {

std::atomic<bool> stopping{false};

void Stop(int) { stopping = true; }

// glibc gives threads up to eight malloc arenas per core, and an arena
// keeps what it once held. A LIST page's body is allocated by the thread
// that fetches it and freed by the one that applies it, so at 50,000
// pods the arenas' leftovers added a sixth to the peak (240 MiB against
// 200 MiB with two per core; start_at_scale_bench). An operator's own
// MALLOC_ARENA_MAX or GLIBC_TUNABLES wins.
void LimitMallocArenas() {
#ifdef __GLIBC__
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr ||
      std::getenv("GLIBC_TUNABLES") != nullptr) {
    return;
  }
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  mallopt(M_ARENA_MAX, static_cast<int>(2 * cores));
#endif
}

int Refuse(const std::string& message) {
  std::cerr << "shoal-scheduler: " << message << "\n";
  return shoal::cli::kBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  LimitMallocArenas();  // before any thread starts
  absl::SetProgramUsageMessage(
      "Gang-aware batch scheduler for Kubernetes.\n"
      "  shoal-scheduler [--kubeconfig=FILE [--context=NAME]] "
      "[--scheduler-conf=FILE] "
      "[--scheduler-name=shoal] [--schedule-period=1s]\n"
      "  shoal-scheduler --snapshot=cluster.yaml [--scheduler-conf=FILE] "
      "[--cycles=N] [--output=text|json]\n"
      "  shoal-scheduler --snapshot=cluster.yaml --explain=NAMESPACE/POD "
      "[--output=text|json]");
  absl::FlagsUsageConfig usage_config;
  usage_config.version_string = [] {
    return absl::StrCat("shoal-scheduler ", shoal::cli::kVersion, "\n");
  };
  absl::SetFlagsUsageConfig(usage_config);
  std::vector<std::string> rest =
      shoal::cli::ParseFlags(argc, argv, "shoal-scheduler");
  if (rest.size() > 1) {
    return Refuse(absl::StrCat("unexpected argument \"", rest[1],
                               "\"; flags take the form --name=value"));
  }
  const std::string output = absl::GetFlag(FLAGS_output);
  if (output != "text" && output != "json") {
    return Refuse(
        absl::StrCat("--output must be text or json, got \"", output, "\""));
  }
  if (absl::GetFlag(FLAGS_cycles) < 1) {
    return Refuse(absl::StrCat("--cycles must be at least 1, got ",
                               absl::GetFlag(FLAGS_cycles)));
  }

  // The configuration is checked before anything else is touched.
  const std::string conf_path = absl::GetFlag(FLAGS_scheduler_conf);
  auto config =
      conf_path.empty()
          ? shoal::framework::ParseSchedulerConfig(
                shoal::policies::kDefaultPolicy, "policies/default.yaml")
          : shoal::framework::LoadSchedulerConfig(conf_path);
  if (!config.ok()) return Refuse(std::string(config.status().message()));
  auto policy =
      shoal::framework::BuildPolicy(*config, shoal::plugins::BuiltinPlugins(),
                                    shoal::actions::BuiltinActions());
  if (!policy.ok()) return Refuse(std::string(policy.status().message()));
  for (const auto& w : policy->warnings) std::cerr << "warning: " << w << "\n";

  if (absl::GetFlag(FLAGS_schedule_period) <= absl::ZeroDuration()) {
    return Refuse("--schedule-period must be positive, got " +
                  absl::FormatDuration(absl::GetFlag(FLAGS_schedule_period)));
  }
  if (absl::GetFlag(FLAGS_bind_concurrency) < 1) {
    return Refuse(absl::StrCat("--bind-concurrency must be at least 1, got ",
                               absl::GetFlag(FLAGS_bind_concurrency)));
  }
  shoal::kube::WriteBudgetOptions writes;
  writes.qps = absl::GetFlag(FLAGS_kube_api_qps);
  writes.burst = absl::GetFlag(FLAGS_kube_api_burst);
  if (absl::Status s = shoal::kube::CheckWriteBudgetOptions(writes); !s.ok())
    return Refuse(std::string(s.message()));
  if (absl::GetFlag(FLAGS_partial_gang_release_cycles) < 1) {
    return Refuse(
        absl::StrCat("--partial-gang-release-cycles must be at least 1, got ",
                     absl::GetFlag(FLAGS_partial_gang_release_cycles)));
  }
  if (absl::GetFlag(FLAGS_claim_controller_lag) < 0) {
    return Refuse(
        absl::StrCat("--claim-controller-lag must be at least 0, got ",
                     absl::GetFlag(FLAGS_claim_controller_lag)));
  }
  if (absl::GetFlag(FLAGS_leader_elect_lease_duration) < absl::Seconds(1)) {
    return Refuse(
        "--leader-elect-lease-duration must be at least 1s, got " +
        absl::FormatDuration(absl::GetFlag(FLAGS_leader_elect_lease_duration)));
  }
  const shoal::admin::AdminOptions admin =
      shoal::admin::AdminOptionsFromFlags();
  if (!admin.address.empty()) {
    if (absl::Status s = shoal::admin::CheckAdminOptions(admin); !s.ok())
      return Refuse(std::string(s.message()));
  }
  const std::string snapshot = absl::GetFlag(FLAGS_snapshot);
  if (snapshot.empty()) {
    // Live: a kubeconfig, else the pod's service account.
    std::string kubeconfig = absl::GetFlag(FLAGS_kubeconfig);
    if (kubeconfig.empty() && std::getenv("KUBECONFIG") != nullptr) {
      kubeconfig = std::getenv("KUBECONFIG");
    }
    absl::StatusOr<shoal::kube::ConnectionConfig> connection;
    if (!kubeconfig.empty()) {
      connection =
          shoal::kube::LoadKubeconfig(kubeconfig, absl::GetFlag(FLAGS_context));
    } else if (std::getenv("KUBERNETES_SERVICE_HOST") != nullptr) {
      connection = shoal::kube::InClusterConfig(
          "/var/run/secrets/kubernetes.io/serviceaccount");
    } else {
      return Refuse(
          "no cluster to schedule: pass --kubeconfig=FILE, run inside a "
          "cluster, or pass "
          "--snapshot=FILE to replay a cluster dump");
    }
    if (!connection.ok())
      return Refuse(std::string(connection.status().message()));
    FLAGS_logtostderr = true;
    google::InitGoogleLogging("shoal-scheduler");
    std::signal(SIGTERM, Stop);
    std::signal(SIGINT, Stop);
    shoal::LiveOptions options;
    options.scheduler_name = absl::GetFlag(FLAGS_scheduler_name);
    options.period = absl::GetFlag(FLAGS_schedule_period);
    options.bind_concurrency = absl::GetFlag(FLAGS_bind_concurrency);
    options.writes = writes;
    options.partial_gang_release_cycles =
        absl::GetFlag(FLAGS_partial_gang_release_cycles);
    options.leader_elect = absl::GetFlag(FLAGS_leader_elect);
    options.lease_namespace = absl::GetFlag(FLAGS_leader_elect_namespace);
    options.lease_name = absl::GetFlag(FLAGS_leader_elect_name);
    options.lease_duration = absl::GetFlag(FLAGS_leader_elect_lease_duration);
    options.admin = admin;
    options.metrics_address = absl::GetFlag(FLAGS_metrics_address);
    std::cerr << "shoal-scheduler: scheduling pods of schedulerName "
              << options.scheduler_name << " on " << connection->server
              << " (context " << connection->context << ")\n";
    absl::Status s = shoal::RunLive(*connection, *policy, options, stopping);
    if (!s.ok()) {
      std::cerr << "shoal-scheduler: " << s.message() << "\n";
      return 1;
    }
    return 0;
  }
  absl::Time clock;
  shoal::cache::Cache cache(absl::GetFlag(FLAGS_scheduler_name),
                            [&clock] { return clock; });
  std::vector<std::string> warnings;
  if (auto s = shoal::kube::LoadSnapshotFile(snapshot, cache, &warnings);
      !s.ok()) {
    return Refuse(std::string(s.message()));
  }
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";

  if (const std::string pod = absl::GetFlag(FLAGS_explain); !pod.empty()) {
    clock = cache.LatestCreation();
    auto explained = shoal::ExplainPod(cache.Snapshot(), *policy, pod);
    if (!explained.ok())
      return Refuse(std::string(explained.status().message()));
    std::cout << (output == "json" ? explained->dump() + "\n"
                                   : shoal::ExplainText(*explained));
    return 0;
  }
  shoal::ReplayOptions replay;
  replay.cycles = absl::GetFlag(FLAGS_cycles);
  replay.period = absl::GetFlag(FLAGS_schedule_period);
  replay.cycle.partial_gang_release_cycles =
      absl::GetFlag(FLAGS_partial_gang_release_cycles);
  replay.claim_controller_lag = absl::GetFlag(FLAGS_claim_controller_lag);
  replay.recreate_evicted = absl::GetFlag(FLAGS_recreate_evicted);
  shoal::v1::ReplayReport report =
      shoal::Replay(cache, *policy, replay, &clock);
  std::cout << (output == "json" ? shoal::ReportJson(report) + "\n"
                                 : shoal::ReportText(report));
  return 0;
}
