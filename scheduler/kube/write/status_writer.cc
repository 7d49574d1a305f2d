#include "scheduler/kube/write/status_writer.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "glog/logging.h"
#include "scheduler/kube/client/object_meta.h"
#include "scheduler/kube/write/api_binder.h"
#include "scheduler/kube/write/pod_group_status.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

const char* ApiResourceVersionOf(const api::JobInfo& job) {
  return job.source == api::GroupSource::kSchedulerPlugins
             ? "scheduling.x-k8s.io/v1alpha1"
             : "scheduling.volcano.sh/v1beta1";
}

// The PodGroups whose status Shoal writes: Volcano's and
// scheduler-plugins'. Kubernetes' own gangs have none of Shoal's; their
// pods say why they wait.
bool WritesGroupStatus(const api::JobInfo& job) {
  return job.source == api::GroupSource::kVolcano ||
         job.source == api::GroupSource::kSchedulerPlugins;
}

std::string GroupKey(const std::string& api_version, const std::string& key) {
  return api_version + "/" + key;
}

// Whatever the pod holds: json::value() would throw on a member of
// another type than its default's.
json PodScheduledCondition(const json& pod) {
  auto status = pod.find("status");
  if (status == pod.end() || !status->is_object()) return nullptr;
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return nullptr;
  for (const json& c : *conditions) {
    if (!c.is_object()) continue;
    auto type = c.find("type");
    if (type != c.end() && *type == "PodScheduled") return c;
  }
  return nullptr;
}

}  // namespace

StatusWriter::StatusWriter(RequestPool& pool, EventRecorder& events)
    : pool_(pool), events_(events) {}

void StatusWriter::Remember(std::map<std::string, Observed>& into,
                            const std::string& key, Observed seen) {
  auto it = into.find(key);
  uint64_t known, now;
  // resourceVersions are opaque, but etcd's are numbers; when both parse,
  // an older answer (a late watch event) does not overwrite a newer one.
  if (it != into.end() &&
      absl::SimpleAtoi(it->second.resource_version, &known) &&
      absl::SimpleAtoi(seen.resource_version, &now) && now < known) {
    return;
  }
  into[key] = std::move(seen);
}

void StatusWriter::ObservePodGroup(const json& object) {
  absl::MutexLock lock(&mu_);
  Remember(groups_, GroupKey(object.value("apiVersion", ""), ObjectKey(object)),
           {ResourceVersionOf(object), object.value("status", json::object())});
}

void StatusWriter::ForgetPodGroup(const std::string& api_version,
                                  const std::string& key) {
  absl::MutexLock lock(&mu_);
  groups_.erase(GroupKey(api_version, key));
  written_.erase(GroupKey(api_version, key));
}

void StatusWriter::ObservePod(const json& object) {
  absl::MutexLock lock(&mu_);
  Remember(pods_, ObjectKey(object),
           {ResourceVersionOf(object), PodScheduledCondition(object)});
}

void StatusWriter::ForgetPod(const std::string& key) {
  absl::MutexLock lock(&mu_);
  pods_.erase(key);
}

void StatusWriter::SetKubeGroupVersions(const std::string& pod_groups,
                                        const std::string& composites) {
  absl::MutexLock lock(&mu_);
  kube_pod_group_version_ = pod_groups;
  kube_composite_version_ = composites;
}

void StatusWriter::ObserveKubeGroup(const std::string& resource,
                                    const json& object) {
  const std::string key = ObjectKey(object);
  const size_t slash = key.find('/');
  KubeGroupVerdict at{object.value("apiVersion", ""), resource,
                      key.substr(0, slash), key.substr(slash + 1)};
  absl::MutexLock lock(&mu_);
  Remember(kube_groups_, at.Path(),
           {ResourceVersionOf(object), object.value("status", json::object())});
}

void StatusWriter::ForgetKubeGroup(const std::string& api_version,
                                   const std::string& resource,
                                   const std::string& key) {
  const size_t slash = key.find('/');
  KubeGroupVerdict at{api_version, resource, key.substr(0, slash),
                      key.substr(slash + 1)};
  absl::MutexLock lock(&mu_);
  kube_groups_.erase(at.Path());
}

int64_t StatusWriter::writes() const {
  absl::MutexLock lock(&mu_);
  return writes_;
}

void StatusWriter::Publish(const api::ClusterInfo& cluster) {
  absl::Time now = absl::Now();
  absl::MutexLock lock(&mu_);
  for (const api::JobInfo& job : cluster.jobs) {
    // A Workload carries no status of Shoal's: why its gang waits goes on
    // its pods (below) and, once per change, into an Event on it.
    if (job.source == api::GroupSource::kWorkload && !job.owner.name.empty()) {
      const std::string why = job.ReadyCount() < job.min_member
                                  ? PendingReason(job)
                                  : std::string();
      std::string& said = workload_said_[job.Key()];
      if (!why.empty() && why != said) {
        const std::string gang = job.name.substr(job.owner.name.size() + 1);
        events_.Record({job.owner.api_version, job.owner.kind, job.ns,
                        job.owner.name, job.owner.uid},
                       "Warning", "FailedScheduling",
                       absl::StrCat("podGroup ", gang, ": ", why));
      }
      said = why;
    }
    for (KubeGroupVerdict& v : KubeGroupVerdicts(
             cluster, job, kube_pod_group_version_, kube_composite_version_)) {
      const std::string path = v.Path();
      auto seen = kube_groups_.find(path);
      if (seen == kube_groups_.end() || in_flight_.count(path) > 0) continue;
      if (DesiredKubeGroupStatus(v, seen->second.status, now).is_null())
        continue;
      in_flight_.insert(path);
      pool_.Submit(
          [this, v = std::move(v)](HttpClient& c) { WriteKubeGroup(c, v); });
    }
    if (!WritesGroupStatus(job) || job.group_missing) continue;
    std::string key = GroupKey(ApiResourceVersionOf(job), job.Key());
    auto seen = groups_.find(key);
    if (seen == groups_.end() || in_flight_.count(key) > 0) continue;
    json desired = DesiredPodGroupStatus(job, seen->second.status, now);
    if (AlreadySays(seen->second.status, desired)) continue;
    // Written already, and nothing changed since: what is missing was
    // pruned by the CRD's schema.
    auto written = written_.find(key);
    if (written != written_.end() &&
        written->second.resource_version == seen->second.resource_version &&
        AlreadySays(written->second.status, desired)) {
      continue;
    }
    in_flight_.insert(key);
    pool_.Submit(
        [this, key, job](HttpClient& c) { WritePodGroup(c, key, job); });
  }
  for (const api::TaskInfo& task : cluster.tasks) {
    if (task.status != api::TaskStatus::kPending) continue;
    const api::JobInfo& job = cluster.jobs[task.job];
    // Pods of a gang still missing members wait for their siblings, not
    // for room: the PodGroup says so; the pods are not marked (unless no
    // status of ours says it).
    if (WritesGroupStatus(job) && job.ValidCount() < job.min_member) continue;
    std::string message = PendingReason(job);
    if (message.empty()) continue;
    const std::string key = task.pod->Key();
    auto seen = pods_.find(key);
    if (seen == pods_.end() || in_flight_.count(key) > 0) continue;
    if (AlreadySays(
            seen->second.status,
            UnschedulableCondition(message, seen->second.status, now))) {
      continue;
    }
    in_flight_.insert(key);
    pool_.Submit([this, pod = task.pod, message](HttpClient& c) {
      WritePodCondition(c, *pod, message);
    });
  }
}

bool StatusWriter::ServesStatus(HttpClient& client,
                                const std::string& api_version, bool relearn) {
  {
    absl::MutexLock lock(&mu_);
    auto known = serves_status_.find(api_version);
    if (known != serves_status_.end() && !relearn) return known->second;
  }
  auto r = client.Request("GET", absl::StrCat("/apis/", api_version));
  json list = r.ok() && r->status == 200 ? json::parse(r->body, nullptr, false)
                                         : json();
  const json& resources =
      list.is_object() ? list.value("resources", json()) : json();
  if (!resources.is_array()) {
    // Discovery did not answer: write as before (through /status) and
    // ask again next time.
    LOG(WARNING) << "discovery of " << api_version << ": "
                 << (!r.ok() ? std::string(r.status().message())
                     : r->status != 200
                         ? absl::StrCat("HTTP ", r->status, ": ",
                                        StatusMessage(r->body))
                         : std::string("no resource list in the answer"));
    return true;
  }
  bool serves = false;
  for (const json& resource : resources) {
    if (resource.is_object() &&
        resource.value("name", "") == "podgroups/status")
      serves = true;
  }
  absl::MutexLock lock(&mu_);
  auto known = serves_status_.find(api_version);
  if (known == serves_status_.end() || known->second != serves) {
    LOG(INFO) << "podgroups " << api_version << ": "
              << (serves ? "writing status through the /status subresource"
                         : "the CRD declares no status subresource; writing "
                           "status through the "
                           "PodGroup itself");
  }
  serves_status_[api_version] = serves;
  return serves;
}

void StatusWriter::WritePodGroup(HttpClient& client, const std::string& key,
                                 const api::JobInfo& job) {
  constexpr int kAttempts = 3;
  const std::string api_version = ApiResourceVersionOf(job);
  const std::string object_path = absl::StrCat(
      "/apis/", api_version, "/namespaces/", job.ns, "/podgroups/", job.name);
  bool relearned = false;
  bool through_status = ServesStatus(client, api_version, false);
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    Observed seen;
    {
      absl::MutexLock lock(&mu_);
      seen = groups_[key];
    }
    json desired = DesiredPodGroupStatus(job, seen.status, absl::Now());
    json patch = {{"metadata", {{"resourceVersion", seen.resource_version}}},
                  {"status", desired}};
    auto r = client.Request(
        "PATCH", through_status ? object_path + "/status" : object_path,
        patch.dump(), "application/merge-patch+json");
    if (r.ok() && r->status == 200) {
      json updated = json::parse(r->body, nullptr, /*allow_exceptions=*/false);
      absl::MutexLock lock(&mu_);
      if (updated.is_object()) {
        Observed now{ResourceVersionOf(updated),
                     updated.value("status", json::object())};
        written_[key] = {now.resource_version, desired};
        Remember(groups_, key, std::move(now));
      }
      ++writes_;
      in_flight_.erase(key);
      return;
    }
    if (r.ok() && r->status == 409 && attempt < kAttempts) {
      // Someone else wrote in between: read it afresh and recompute.
      auto fresh = client.Request("GET", object_path);
      json object =
          fresh.ok() ? json::parse(fresh->body, nullptr, false) : json();
      if (fresh.ok() && fresh->status == 200 && object.is_object()) {
        absl::MutexLock lock(&mu_);
        groups_[key] = {ResourceVersionOf(object),
                        object.value("status", json::object())};
        continue;
      }
    }
    if (r.ok() && r->status == 404 && through_status && !relearned) {
      // A CRD without a status subresource answers 404 too: ask
      // discovery again (the CRD may have changed) before taking it for
      // a deleted PodGroup.
      relearned = true;
      through_status = ServesStatus(client, api_version, true);
      if (!through_status) {
        --attempt;  // not a conflict: the same attempt, the other way
        continue;
      }
    }
    if (r.ok() && r->status == 404) break;  // deleted meanwhile
    LOG(WARNING) << "podgroup " << job.Key() << " status: "
                 << (r.ok() ? absl::StrCat("HTTP ", r->status, ": ",
                                           StatusMessage(r->body))
                            : std::string(r.status().message()));
    break;
  }
  absl::MutexLock lock(&mu_);
  in_flight_.erase(key);
}

void StatusWriter::WriteKubeGroup(HttpClient& client,
                                  const KubeGroupVerdict& verdict) {
  const std::string path = verdict.Path();
  Observed seen;
  {
    absl::MutexLock lock(&mu_);
    seen = kube_groups_[path];
  }
  json desired = DesiredKubeGroupStatus(verdict, seen.status, absl::Now());
  absl::StatusOr<HttpResponse> r = absl::CancelledError("nothing to write");
  if (!desired.is_null()) {
    json patch = {{"metadata", {{"resourceVersion", seen.resource_version}}},
                  {"status", desired}};
    r = client.Request("PATCH", path + "/status", patch.dump(),
                       "application/merge-patch+json");
  }
  json updated;
  if (r.ok() && r->status == 200) {
    updated = json::parse(r->body, nullptr, /*allow_exceptions=*/false);
  } else if (r.ok() && r->status == 409) {
    // Someone else wrote in between: read it afresh; the next cycle
    // writes again if it still must.
    auto fresh = client.Request("GET", path);
    if (fresh.ok() && fresh->status == 200)
      updated = json::parse(fresh->body, nullptr, false);
  } else if (r.ok() && r->status != 404) {
    LOG(WARNING) << verdict.resource << " " << verdict.ns << "/" << verdict.name
                 << " status: HTTP " << r->status << ": "
                 << StatusMessage(r->body);
  } else if (!r.ok() && !desired.is_null()) {
    LOG(WARNING) << verdict.resource << " " << verdict.ns << "/" << verdict.name
                 << " status: " << r.status().message();
  }
  absl::MutexLock lock(&mu_);
  if (updated.is_object()) {
    Remember(
        kube_groups_, path,
        {ResourceVersionOf(updated), updated.value("status", json::object())});
    if (r.ok() && r->status == 200) ++writes_;
  }
  in_flight_.erase(path);
}

void StatusWriter::WritePodCondition(HttpClient& client,
                                     const api::PodInfo& pod,
                                     const std::string& message) {
  json observed;
  {
    absl::MutexLock lock(&mu_);
    observed = pods_[pod.Key()].status;
  }
  json condition = UnschedulableCondition(message, observed, absl::Now());
  // A strategic merge patch merges the conditions list by type, leaving
  // the kubelet's conditions alone.
  json patch = {{"status", {{"conditions", json::array({condition})}}}};
  std::string path = absl::StrCat("/api/v1/namespaces/", pod.ns, "/pods/",
                                  pod.name, "/status");
  auto r = client.Request("PATCH", path, patch.dump(),
                          "application/strategic-merge-patch+json");
  bool written = r.ok() && r->status == 200;
  if (written) {
    events_.Record({"v1", "Pod", pod.ns, pod.name, pod.uid}, "Warning",
                   "FailedScheduling", message);
  } else if (!(r.ok() && r->status == 404)) {
    LOG(WARNING) << "pod " << pod.Key() << " condition: "
                 << (r.ok() ? absl::StrCat("HTTP ", r->status, ": ",
                                           StatusMessage(r->body))
                            : std::string(r.status().message()));
  }
  absl::MutexLock lock(&mu_);
  if (written) {
    json updated = json::parse(r->body, nullptr, /*allow_exceptions=*/false);
    if (updated.is_object()) {
      Remember(pods_, pod.Key(),
               {ResourceVersionOf(updated), PodScheduledCondition(updated)});
    }
    ++writes_;
  }
  in_flight_.erase(pod.Key());
}

}  // namespace shoal::kube
