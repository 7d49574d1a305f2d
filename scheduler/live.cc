#include "scheduler/live.h"

#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "scheduler/cache/cache.h"
#include "scheduler/framework/cycle.h"
#include "scheduler/kube/api_binder.h"
#include "scheduler/kube/informer.h"
#include "scheduler/kube/objects.h"

namespace shoal {
namespace {

using nlohmann::json;

// List items of core kinds come without apiVersion and kind; the decoders
// tell PodGroup APIs apart by them.
json Typed(json object, const char* api_version, const char* kind) {
  if (!object.contains("apiVersion")) object["apiVersion"] = api_version;
  if (!object.contains("kind")) object["kind"] = kind;
  return object;
}

std::vector<kube::WatchedKind> Kinds(cache::Cache& cache) {
  std::vector<kube::WatchedKind> kinds;
  kinds.push_back({"nodes", "/api/v1/nodes", false,
                   [&cache](const json& o) {
                     auto node = kube::DecodeNode(Typed(o, "v1", "Node"));
                     if (!node.ok()) return node.status();
                     cache.UpsertNode(*node);
                     return absl::OkStatus();
                   },
                   [&cache](const std::string& key) { cache.DeleteNode(key); }});
  kinds.push_back({"pods", "/api/v1/pods", false,
                   [&cache](const json& o) {
                     auto pod = kube::DecodePod(Typed(o, "v1", "Pod"));
                     if (!pod.ok()) return pod.status();
                     cache.UpsertPod(pod->pod, pod->has_priority);
                     return absl::OkStatus();
                   },
                   [&cache](const std::string& key) { cache.DeletePod(key); }});
  for (const auto& [path, api_version] :
       {std::pair<const char*, const char*>{"/apis/scheduling.volcano.sh/v1beta1/podgroups",
                                            "scheduling.volcano.sh/v1beta1"},
        {"/apis/scheduling.x-k8s.io/v1alpha1/podgroups", "scheduling.x-k8s.io/v1alpha1"}}) {
    std::string version = api_version;
    kinds.push_back({absl::StrCat("podgroups (", api_version, ")"), path, true,
                     [&cache, version](const json& o) {
                       auto group = kube::DecodePodGroup(Typed(o, version.c_str(), "PodGroup"));
                       if (!group.ok()) return group.status();
                       cache.UpsertPodGroup(*group);
                       return absl::OkStatus();
                     },
                     [&cache](const std::string& key) { cache.DeletePodGroup(key); }});
  }
  kinds.push_back({"queues", "/apis/scheduling.volcano.sh/v1beta1/queues", true,
                   [&cache](const json& o) {
                     auto queue = kube::DecodeQueue(o);
                     if (!queue.ok()) return queue.status();
                     cache.UpsertQueue(*queue);
                     return absl::OkStatus();
                   },
                   [&cache](const std::string& key) { cache.DeleteQueue(key); }});
  kinds.push_back({"priorityclasses", "/apis/scheduling.k8s.io/v1/priorityclasses", false,
                   [&cache](const json& o) {
                     auto pc = kube::DecodePriorityClass(o);
                     if (!pc.ok()) return pc.status();
                     cache.UpsertPriorityClass(*pc);
                     return absl::OkStatus();
                   },
                   [&cache](const std::string& key) { cache.DeletePriorityClass(key); }});
  return kinds;
}

}  // namespace

absl::Status RunLive(const kube::ConnectionConfig& connection, framework::Policy& policy,
                     const LiveOptions& options, const std::atomic<bool>& stop) {
  cache::Cache cache(options.scheduler_name);
  std::vector<kube::WatchedKind> kinds = Kinds(cache);
  // One HTTP client per thread: libcurl handles are not shared.
  std::vector<std::unique_ptr<kube::HttpClient>> clients;
  std::vector<std::unique_ptr<kube::Informer>> informers;
  std::vector<std::thread> threads;
  std::atomic<bool> informers_stop{false};
  for (auto& kind : kinds) {
    clients.push_back(std::make_unique<kube::HttpClient>(connection));
    informers.push_back(std::make_unique<kube::Informer>(*clients.back(), kind));
    kube::Informer* informer = informers.back().get();
    threads.emplace_back([informer, &informers_stop] { informer->Run(informers_stop); });
  }
  auto join = [&] {
    informers_stop = true;
    for (auto& t : threads) t.join();
  };
  // Schedule only on a complete picture: every required kind listed once.
  absl::Time deadline = absl::Now() + options.sync_timeout;
  for (size_t i = 0; i < kinds.size() && !stop.load(); ++i) {
    while (!kinds[i].optional && !informers[i]->synced() && !stop.load()) {
      if (absl::Now() > deadline) {
        join();
        return absl::DeadlineExceededError(absl::StrCat(
            "could not list ", kinds[i].name, " from ", connection.server, " within ",
            absl::FormatDuration(options.sync_timeout)));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  LOG(INFO) << "synced with " << connection.server << "; scheduling every "
            << absl::FormatDuration(options.period);
  kube::HttpClient api(connection);
  kube::ApiBinder binder(api);
  while (!stop.load()) {
    absl::Time start = absl::Now();
    framework::CycleOutcome out = framework::RunCycle(cache.Snapshot(), policy);
    for (const auto& b : out.binds) {
      const api::PodInfo& pod = *out.cluster.tasks[b.task].pod;
      const std::string& node = out.cluster.nodes[b.node].name();
      absl::Status s = binder.Bind(pod, node);
      if (s.ok()) {
        cache.AssumeBound(pod.Key(), node);
      } else {
        LOG(WARNING) << s.message();
      }
    }
    for (const auto& e : out.evictions) {
      const api::PodInfo& pod = *out.cluster.tasks[e.task].pod;
      absl::Status s = binder.Evict(pod, e.reason, e.preemptor);
      if (!s.ok()) LOG(WARNING) << s.message();
    }
    absl::Duration left = options.period - (absl::Now() - start);
    for (; left > absl::ZeroDuration() && !stop.load(); left -= absl::Milliseconds(20)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  join();
  return absl::OkStatus();
}

}  // namespace shoal
