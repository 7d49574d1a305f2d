#include "scheduler/live.h"

#include <unistd.h>

#include <initializer_list>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "scheduler/admin/cache_backend.h"
#include "scheduler/cache/cache.h"
#include "scheduler/framework/cycle.h"
#include "scheduler/kube/client/informer.h"
#include "scheduler/kube/client/leader_lease.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/snapshot/snapshot_writer.h"
#include "scheduler/kube/write/api_binder.h"
#include "scheduler/kube/write/api_decision_sink.h"
#include "scheduler/kube/write/event_recorder.h"
#include "scheduler/kube/write/request_pool.h"
#include "scheduler/kube/write/status_writer.h"
#include "scheduler/live_kinds.h"
#include "scheduler/metrics/http_endpoint.h"
#include "scheduler/metrics/metrics.h"
#include "scheduler/scheduler.h"

namespace shoal {
namespace {

using nlohmann::json;

std::string HostName() {
  char name[256] = {0};
  return gethostname(name, sizeof(name) - 1) == 0 ? std::string(name) : "shoal";
}

// As Volcano's scheduler does: PodGroups that name no queue go to
// `default`, so it is created when the Queue CRD exists and it does not.
void EnsureDefaultQueue(kube::HttpClient& client) {
  const std::string path = "/apis/scheduling.volcano.sh/v1beta1/queues";
  auto existing = client.Request("GET", path + "/default");
  if (!existing.ok() || existing->status != 404)
    return;  // there, or no way to tell
  json queue = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                {"kind", "Queue"},
                {"metadata", {{"name", "default"}}},
                {"spec", {{"weight", 1}, {"reclaimable", true}}}};
  auto created = client.Request("POST", path, queue.dump());
  if (!created.ok()) {
    LOG(WARNING) << "could not create the default Queue: "
                 << created.status().message();
  } else if (created->status == 201) {
    LOG(INFO) << "created the default Queue";
  } else if (created->status != 409) {
    LOG(WARNING) << "could not create the default Queue: HTTP "
                 << created->status << ": "
                 << kube::StatusMessage(created->body);
  }
}

// The newest resource.k8s.io version the API server serves of those
// Shoal reads (v1 from Kubernetes 1.34, v1beta2 in 1.33, v1beta1 from
// 1.32), or "" when it serves none. Asked once at start: a cluster
// upgraded underneath a running scheduler restarts it anyway.
std::string PreferredDraVersion(kube::HttpClient& client) {
  auto r = client.Request("GET", "/apis/resource.k8s.io");
  if (!r.ok() || r->status != 200) return "";
  nlohmann::json group =
      nlohmann::json::parse(r->body, nullptr, /*allow_exceptions=*/false);
  if (!group.is_object() || !group.contains("versions") ||
      !group["versions"].is_array()) {
    return "";
  }
  for (const char* wanted : {"v1", "v1beta2", "v1beta1"}) {
    for (const auto& v : group["versions"]) {
      if (v.is_object() && v.value("version", "") == wanted)
        return std::string("resource.k8s.io/") + wanted;
    }
  }
  return "";
}

// The first of `versions` of API group `group` whose resource list holds
// `resource`, as "group/version", or "": a version's resource list says,
// the group's version list does not (1.36 serves resource.k8s.io/v1
// without DeviceTaintRules).
std::string ServedVersion(kube::HttpClient& client, const std::string& group,
                          const std::string& resource,
                          std::initializer_list<const char*> versions) {
  for (const char* wanted : versions) {
    auto r = client.Request("GET", absl::StrCat("/apis/", group, "/", wanted));
    if (!r.ok() || r->status != 200) continue;
    nlohmann::json list =
        nlohmann::json::parse(r->body, nullptr, /*allow_exceptions=*/false);
    if (!list.is_object() || !list["resources"].is_array()) continue;
    for (const auto& served : list["resources"]) {
      if (served.is_object() && served.value("name", "") == resource)
        return absl::StrCat(group, "/", wanted);
    }
  }
  return "";
}

// The newest resource.k8s.io version that serves DeviceTaintRules (v1
// from 1.37, v1beta2 in 1.36, v1alpha3 before, each only with its
// feature on), or "".
std::string TaintRuleVersion(kube::HttpClient& client) {
  return ServedVersion(client, "resource.k8s.io", "devicetaintrules",
                       {"v1", "v1beta2", "v1alpha3"});
}

// Kubernetes' gang API, each kind in the newest version served: 1.37's
// v1beta1 (v1alpha3 beside it for CompositePodGroups), 1.36's v1alpha2,
// 1.35's v1alpha1 (Workloads only).
GangApiVersions ServedGangVersions(kube::HttpClient& client) {
  GangApiVersions out;
  out.workloads =
      ServedVersion(client, "scheduling.k8s.io", "workloads",
                    {"v1beta1", "v1alpha3", "v1alpha2", "v1alpha1"});
  out.pod_groups = ServedVersion(client, "scheduling.k8s.io", "podgroups",
                                 {"v1beta1", "v1alpha3", "v1alpha2"});
  out.composite_pod_groups =
      ServedVersion(client, "scheduling.k8s.io", "compositepodgroups",
                    {"v1beta1", "v1alpha3"});
  return out;
}

}  // namespace

absl::Status RunLive(const kube::ConnectionConfig& connection,
                     framework::Policy& policy, const LiveOptions& options,
                     const std::atomic<bool>& stop) {
  cache::Cache cache(options.scheduler_name);
  // Binds and evictions on the priority lane; status and Events on the
  // background one, with few connections of their own (a bound on what
  // they have in flight), so that they never hold a bind back.
  kube::WriteBudget budget(options.writes);
  kube::RequestPool event_pool(connection, 2, &budget,
                               kube::WriteBudget::Lane::kBackground);
  kube::EventRecorder events(event_pool, options.scheduler_name, HostName());
  kube::RequestPool status_pool(connection, 4, &budget,
                                kube::WriteBudget::Lane::kBackground);
  kube::StatusWriter status(status_pool, events);
  kube::RequestPool bind_pool(connection, options.bind_concurrency, &budget,
                              kube::WriteBudget::Lane::kPriority);
  kube::ApiDecisionSink decisions(bind_pool, events);

  // /metrics, /healthz and /readyz, served from the start: a probe sees a
  // replica that is still listing, or standing by.
  metrics::HealthOptions health_options;
  health_options.period = options.period;
  metrics::Health health(health_options);
  // Named before the first probe can ask: /readyz lists what is unlisted.
  kube::WarningLog warnings(
      [&events](const kube::ObjectRef& object, const std::string& message) {
        events.Record(object, "Warning", kube::WarningLog::kReason, message);
      });
  // What the installed CRDs would drop (shoalctl crds).
  kube::CrdFindings crds;
  std::string dra_version, taint_rule_version;
  GangApiVersions gang;
  {
    kube::HttpClient discovery(connection);
    dra_version = PreferredDraVersion(discovery);
    if (!dra_version.empty()) taint_rule_version = TaintRuleVersion(discovery);
    gang = ServedGangVersions(discovery);
  }
  cache.SetKubePodGroupVersion(gang.pod_groups);
  LOG(INFO) << "Kubernetes' gang API: "
            << (gang.workloads.empty() && gang.pod_groups.empty()
                    ? std::string("scheduling.k8s.io serves no Workload or "
                                  "PodGroup; pods naming one wait for it")
                    : absl::StrCat(
                          "Workloads in ",
                          gang.workloads.empty() ? "none" : gang.workloads,
                          ", PodGroups in ",
                          gang.pod_groups.empty() ? "none" : gang.pod_groups,
                          ", CompositePodGroups in ",
                          gang.composite_pod_groups.empty()
                              ? "none"
                              : gang.composite_pod_groups));
  LOG(INFO) << "dynamic resource allocation: "
            << (dra_version.empty()
                    ? std::string("resource.k8s.io is not served; pods with "
                                  "resourceClaims wait for their claims")
                    : "watching ResourceSlices, DeviceClasses and "
                      "ResourceClaims in " +
                          dra_version);
  std::vector<kube::WatchedKind> kinds = LiveKinds(
      cache, status, warnings, dra_version, taint_rule_version, &crds, gang);
  if (!taint_rule_version.empty()) {
    LOG(INFO) << "dynamic resource allocation: watching DeviceTaintRules in "
              << taint_rule_version;
  }
  std::vector<std::string> required;
  for (const auto& kind : kinds) {
    if (!kind.optional) required.push_back(kind.name);
  }
  health.SetUnsynced(required);
  metrics::HttpEndpoint endpoint(metrics::DefaultRegistry(), health);
  if (!options.metrics_address.empty()) {
    if (absl::Status s = endpoint.Start(options.metrics_address); !s.ok()) {
      return absl::Status(
          s.code(), absl::StrCat("--metrics-address=", options.metrics_address,
                                 ": ", s.message()));
    }
    LOG(INFO) << "serving /metrics, /healthz and /readyz on "
              << options.metrics_address << " (port " << endpoint.port() << ")";
  }

  SchedulerOptions scheduler_options;
  scheduler_options.period = options.period;
  scheduler_options.cycle.partial_gang_release_cycles =
      options.partial_gang_release_cycles;
  scheduler_options.on_cycle = [&health](const AppliedCycle&) {
    health.CycleFinished();
  };
  Scheduler scheduler(cache, policy, decisions, status, scheduler_options);

  // Served from the start: a standby, or one still listing, can be asked
  // too. Declared after what it reads, so it stops first.
  admin::CacheBackend admin_backend(
      cache, policy.config, [&cache] { return kube::WriteSnapshotList(cache); },
      [&scheduler]() -> std::optional<api::ClusterInfo> {
        auto last = scheduler.last_cycle();
        if (!last) return std::nullopt;
        return last->cluster;
      });
  admin_backend.set_crds(
      [&crds]() -> std::optional<std::vector<admin::CrdFinding>> {
        if (!crds.Seen()) return std::nullopt;
        std::vector<admin::CrdFinding> out;
        for (const auto& [name, pruned] : crds.All()) {
          admin::CrdFinding f{name, {}, {}};
          for (const kube::PrunedField& p : pruned) {
            f.fields.push_back(p.path);
            f.messages.push_back(p.message);
          }
          out.push_back(std::move(f));
        }
        return out;
      });
  std::unique_ptr<admin::AdminServer> admin_server;
  if (!options.admin.address.empty()) {
    auto started = admin::StartAdminServer(options.admin, admin_backend);
    if (started.ok()) {
      admin_server = std::move(*started);
      LOG(INFO) << "admin service on " << admin_server->address();
    } else if (options.admin.address == admin::kDefaultAdminAddress) {
      LOG(WARNING) << "admin service not served: "
                   << started.status().message();
    } else {
      return started.status();
    }
  }

  // One HTTP client per thread: libcurl handles are not shared.
  std::vector<std::unique_ptr<kube::HttpClient>> clients;
  std::vector<std::unique_ptr<kube::Informer>> informers;
  std::vector<std::thread> threads;
  std::atomic<bool> informers_stop{false};
  for (auto& kind : kinds) {
    clients.push_back(std::make_unique<kube::HttpClient>(connection));
    informers.push_back(
        std::make_unique<kube::Informer>(*clients.back(), kind));
    kube::Informer* informer = informers.back().get();
    threads.emplace_back(
        [informer, &informers_stop] { informer->Run(informers_stop); });
  }
  auto join = [&] {
    informers_stop = true;
    for (auto& t : threads) t.join();
  };
  // Schedule only on a complete picture: every required kind listed once.
  absl::Time deadline = absl::Now() + options.sync_timeout;
  auto unsynced = [&] {
    std::vector<std::string> names;
    for (size_t k = 0; k < kinds.size(); ++k) {
      if (!kinds[k].optional && !informers[k]->synced())
        names.push_back(kinds[k].name);
    }
    return names;
  };
  for (size_t i = 0; i < kinds.size() && !stop.load(); ++i) {
    while (!kinds[i].optional && !informers[i]->synced() && !stop.load()) {
      health.SetUnsynced(unsynced());
      if (absl::Now() > deadline) {
        join();
        return absl::DeadlineExceededError(absl::StrCat(
            "could not list ", kinds[i].name, " from ", connection.server,
            " within ", absl::FormatDuration(options.sync_timeout)));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  health.SetSynced(true);
  kube::HttpClient lease_client(connection);
  kube::LeaderLease lease(
      lease_client, options.lease_namespace, options.lease_name,
      absl::StrCat(HostName(), "_", getpid()), options.lease_duration);
  absl::Time renewed = absl::InfinitePast();
  if (options.leader_elect) {
    LOG(INFO) << "waiting to lead: lease " << options.lease_namespace << "/"
              << options.lease_name << " as " << lease.identity();
    // Standbys try every fifth of a lease, as client-go's retry period.
    while (!stop.load()) {
      auto held = lease.TryAcquireOrRenew(absl::Now());
      if (held.ok() && *held) break;
      if (!held.ok()) LOG(WARNING) << held.status().message();
      if (held.ok()) health.SetLeadership(metrics::Leadership::kStandby);
      for (absl::Duration d; d < options.lease_duration / 5 && !stop.load();
           d += absl::Milliseconds(50)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    renewed = absl::Now();
    if (!stop.load()) LOG(INFO) << "leading: lease " << options.lease_name;
  }
  health.SetLeadership(options.leader_elect
                           ? metrics::Leadership::kLeader
                           : metrics::Leadership::kNotElecting);
  if (!stop.load()) EnsureDefaultQueue(lease_client);
  LOG(INFO) << "synced with " << connection.server << "; scheduling every "
            << absl::FormatDuration(options.period);
  absl::Status outcome = scheduler.Run(stop, [&](absl::Time now) {
    if (!options.leader_elect || now - renewed < options.lease_duration / 3)
      return absl::OkStatus();
    auto held = lease.TryAcquireOrRenew(now);
    if (held.ok() && *held) {
      renewed = now;
    } else if (held.ok() || now - renewed > options.lease_duration * 2 / 3) {
      // Another instance may lead now: stop before deciding anything.
      return absl::AbortedError(absl::StrCat(
          "lost the leader lease ", options.lease_namespace, "/",
          options.lease_name,
          held.ok() ? absl::StrCat(" to ", lease.holder())
                    : absl::StrCat(": ", held.status().message())));
    }
    return absl::OkStatus();
  });
  // Queued status writes and events are dropped (the events counted in
  // shoal_events_dropped_total); those already sent are let finish (they
  // use the writer, which must outlive them).
  size_t dropped = status_pool.Abandon() + events.Abandon();
  event_pool.Abandon();
  if (dropped > 0)
    LOG(INFO) << "stopping: " << dropped << " status writes and events dropped";
  status_pool.Wait();
  event_pool.Wait();
  if (options.leader_elect && outcome.ok()) {
    // Hand over at once instead of making a standby wait out the lease.
    if (absl::Status s = lease.Release(); !s.ok()) LOG(WARNING) << s.message();
  }
  join();
  return outcome;
}

}  // namespace shoal
