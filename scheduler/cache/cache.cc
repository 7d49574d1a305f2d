#include "scheduler/cache/cache.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

// The sources' side of the cache: objects upserted and deleted, binds and
// claim writes assumed and forgotten. What a cycle schedules is built
// from them in cache_model.cc.
namespace shoal::cache {

Cache::Cache(std::string scheduler_name, std::function<absl::Time()> clock)
    : scheduler_name_(std::move(scheduler_name)), clock_(std::move(clock)) {}

void Cache::UpsertNode(std::shared_ptr<const api::NodeSpec> node) {
  absl::MutexLock lock(&mu_);
  std::string name = node->name;
  auto found = nodes_.find(name);
  // Labels can move a node between HyperNodes (labelMatch members).
  const bool relabelled = found != nodes_.end() && !hypernodes_.empty() &&
                          !(found->second->labels == node->labels);
  auto [it, added] = nodes_.insert_or_assign(std::move(name), std::move(node));
  if (added || relabelled) {
    network_stale_ = true;
    Restructure();
  } else {
    changed_nodes_.insert(it->first);
  }
}

void Cache::DeleteNode(const std::string& name) {
  absl::MutexLock lock(&mu_);
  if (nodes_.erase(name) > 0) {
    network_stale_ = true;
    Restructure();
  }
}

void Cache::UpsertHyperNode(api::HyperNodeSpec hypernode) {
  absl::MutexLock lock(&mu_);
  std::string name = hypernode.name;
  hypernodes_[std::move(name)] = std::move(hypernode);
  network_stale_ = true;
  Restructure();
}

void Cache::DeleteHyperNode(const std::string& name) {
  absl::MutexLock lock(&mu_);
  if (hypernodes_.erase(name) == 0) return;
  network_stale_ = true;
  Restructure();
}

void Cache::UpsertWorkload(api::WorkloadSpec workload) {
  absl::MutexLock lock(&mu_);
  std::string key = workload.Key();
  workloads_[std::move(key)] = std::move(workload);
  Restructure();
}

void Cache::DeleteWorkload(const std::string& key) {
  absl::MutexLock lock(&mu_);
  if (workloads_.erase(key) > 0) Restructure();
}

void Cache::UpsertCompositePodGroup(api::CompositePodGroupSpec group) {
  absl::MutexLock lock(&mu_);
  std::string key = group.Key();
  composites_[std::move(key)] = std::move(group);
  Restructure();
}

void Cache::SetKubePodGroupVersion(std::string api_version) {
  absl::MutexLock lock(&mu_);
  kube_pod_group_version_ = std::move(api_version);
  Restructure();
}

void Cache::DeleteCompositePodGroup(const std::string& key) {
  absl::MutexLock lock(&mu_);
  if (composites_.erase(key) > 0) Restructure();
}

std::shared_ptr<const api::NetworkTopology> Cache::NetworkFor(
    const api::ClusterInfo& cluster, bool fresh) const {
  if (!fresh && !network_stale_) return network_;
  std::shared_ptr<const api::NetworkTopology> network;
  if (!hypernodes_.empty()) {
    std::vector<api::HyperNodeSpec> specs;
    specs.reserve(hypernodes_.size());
    for (const auto& [name, h] : hypernodes_) specs.push_back(h);
    network = std::make_shared<const api::NetworkTopology>(
        api::NetworkTopology::FromHyperNodes(specs, cluster.nodes));
  }
  if (!fresh) {
    network_ = network;
    network_stale_ = false;
  }
  return network;
}

void Cache::UpsertPod(std::shared_ptr<const api::PodInfo> pod,
                      bool has_priority) {
  absl::MutexLock lock(&mu_);
  std::string key = pod->Key();
  // The source now shows the pod on a node: the assumption is confirmed.
  if (!pod->node_name.empty()) assumed_.erase(key);
  PodChanged(key);
  PodEntry& entry = pods_[key];
  entry.pod = std::move(pod);
  entry.has_priority = has_priority;
  entry.derived_epoch = 0;  // what the model holds is stale
}

void Cache::DeletePod(const std::string& key) {
  absl::MutexLock lock(&mu_);
  PodChanged(key);
  pods_.erase(key);
  assumed_.erase(key);
}

void Cache::UpsertPodGroup(api::JobInfo group) {
  absl::MutexLock lock(&mu_);
  Reconcile(group);
  // A leaf of a CompositePodGroup tree is part of its root's job: the
  // tree is assembled again.
  const bool leaf = !group.parent_group.empty();
  auto [it, added] = groups_.insert_or_assign(group.Key(), std::move(group));
  if (added || leaf) {
    Restructure();
  } else {
    changed_groups_.insert(it->first);
  }
}

void Cache::DeletePodGroup(const std::string& key) {
  absl::MutexLock lock(&mu_);
  if (groups_.erase(key) > 0) Restructure();
  decisions_.erase(key);
}

void Cache::Reconcile(const api::JobInfo& group) {
  auto it = decisions_.find(group.Key());
  if (it == decisions_.end()) return;
  Decision& d = it->second;
  if (d.uid != group.uid) {  // recreated: nothing decided applies
    decisions_.erase(it);
    return;
  }
  if (!d.has_phase) return;
  if (group.phase == d.phase) {
    d.has_phase = false;  // the source has it now
  } else if (group.phase != d.source_phase && d.ours.count(group.phase) == 0) {
    d.has_phase = false;  // someone else moved it since: theirs wins
  }
  // Otherwise it still shows what it did, or an earlier write of ours.
  if (!d.has_phase) d.ours.clear();
}

void Cache::KeepDecisions(const api::ClusterInfo& cluster) {
  absl::MutexLock lock(&mu_);
  for (const api::JobInfo& job : cluster.jobs) {
    if (job.source == api::GroupSource::kSinglePod || job.group_missing)
      continue;
    // A Workload's gang has no object of its own (no phase to keep); its
    // job is made anew on each assembly.
    const bool workload = job.source == api::GroupSource::kWorkload ||
                          job.source == api::GroupSource::kCompositeTree;
    auto group = groups_.find(job.Key());
    if (!workload && (group == groups_.end() || group->second.uid != job.uid)) {
      continue;  // gone meanwhile
    }
    Decision& d = decisions_[job.Key()];
    if (d.uid != job.uid) d = Decision{job.uid};
    const Decision before = d;
    d.elastic_target = job.elastic_target;
    d.cycles_below_minimum = job.PartlyBound() ? d.cycles_below_minimum + 1 : 0;
    if (workload) {
      // Assemble again when what the job carries changed (rare: a gang
      // left partly bound, a resize).
      if (d.elastic_target != before.elastic_target ||
          d.cycles_below_minimum != before.cycles_below_minimum) {
        Restructure();
      }
      continue;
    }
    changed_groups_.insert(group->first);
    api::PodGroupPhase source_phase = group->second.phase;
    if (job.phase == source_phase) {
      d.has_phase = false;
      d.ours.clear();
      continue;
    }
    if (!d.has_phase) d.source_phase = source_phase;
    d.has_phase = true;
    d.phase = job.phase;
    d.ours.insert(job.phase);
  }
}

int Cache::KeptCount() const {
  absl::MutexLock lock(&mu_);
  int phases = 0;
  for (const auto& [key, d] : decisions_) phases += d.has_phase ? 1 : 0;
  return phases;
}

void Cache::SetPodGroupPhase(const std::string& key, api::PodGroupPhase phase) {
  absl::MutexLock lock(&mu_);
  auto it = groups_.find(key);
  if (it == groups_.end()) return;
  it->second.phase = phase;
  changed_groups_.insert(key);
}

void Cache::UpsertQueue(api::QueueInfo queue) {
  absl::MutexLock lock(&mu_);
  queues_[queue.name] = std::move(queue);
  Restructure();
}

void Cache::DeleteQueue(const std::string& name) {
  absl::MutexLock lock(&mu_);
  queues_.erase(name);
  Restructure();
}

void Cache::UpsertNamespace(const std::string& name, api::Labels labels) {
  absl::MutexLock lock(&mu_);
  namespaces_[name] = std::move(labels);
  Restructure();
}

void Cache::DeleteNamespace(const std::string& name) {
  absl::MutexLock lock(&mu_);
  namespaces_.erase(name);
  Restructure();
}

void Cache::UpsertPriorityClass(api::PriorityClass pc) {
  absl::MutexLock lock(&mu_);
  priority_classes_[pc.name] = std::move(pc);
  InvalidateDerived();
}

void Cache::DeletePriorityClass(const std::string& name) {
  absl::MutexLock lock(&mu_);
  priority_classes_.erase(name);
  InvalidateDerived();
}

void Cache::UpsertPersistentVolumeClaim(api::PersistentVolumeClaim claim) {
  absl::MutexLock lock(&mu_);
  std::string key = claim.Key();
  claims_[key] = std::move(claim);
  InvalidateDerived();
}

void Cache::DeletePersistentVolumeClaim(const std::string& key) {
  absl::MutexLock lock(&mu_);
  claims_.erase(key);
  InvalidateDerived();
}

void Cache::UpsertPersistentVolume(api::PersistentVolume pv) {
  absl::MutexLock lock(&mu_);
  std::string name = pv.name;
  volumes_[name] = std::move(pv);
  InvalidateDerived();
}

void Cache::DeletePersistentVolume(const std::string& name) {
  absl::MutexLock lock(&mu_);
  volumes_.erase(name);
  InvalidateDerived();
}

void Cache::UpsertStorageClass(api::StorageClass sc) {
  absl::MutexLock lock(&mu_);
  std::string name = sc.name;
  storage_classes_[name] = std::move(sc);
  InvalidateDerived();
}

void Cache::DeleteStorageClass(const std::string& name) {
  absl::MutexLock lock(&mu_);
  storage_classes_.erase(name);
  InvalidateDerived();
}

void Cache::UpsertCsiNode(api::CsiNode node) {
  absl::MutexLock lock(&mu_);
  Restructure();
  if (node.limits.empty()) {
    csi_nodes_.erase(node.name);
    return;
  }
  csi_nodes_[node.name] = std::make_shared<const std::vector<api::VolumeLimit>>(
      std::move(node.limits));
}

void Cache::DeleteCsiNode(const std::string& name) {
  absl::MutexLock lock(&mu_);
  csi_nodes_.erase(name);
  Restructure();
}

namespace {
void AddCsiVolume(const api::PersistentVolume& pv,
                  std::vector<api::CsiVolume>& out) {
  if (pv.csi_driver.empty() || pv.csi_handle.empty()) return;
  api::CsiVolume v{pv.csi_driver, pv.csi_handle};
  if (std::find(out.begin(), out.end(), v) == out.end())
    out.push_back(std::move(v));
}
}  // namespace

std::vector<api::CsiVolume> Cache::AttachedCsiVolumes(
    const api::PodInfo& pod) const {
  std::vector<api::CsiVolume> out;
  for (const api::VolumeClaimRef& ref : pod.volume_claims) {
    auto claim = claims_.find(pod.ns + "/" + ref.claim);
    if (claim == claims_.end() || claim->second.volume_name.empty()) continue;
    if (ref.ephemeral && claim->second.owner_uid != pod.uid) continue;
    auto pv = volumes_.find(claim->second.volume_name);
    if (pv != volumes_.end()) AddCsiVolume(pv->second, out);
  }
  return out;
}

void Cache::ResolveClaims(api::PodInfo& pod) const {
  // kube-scheduler's VolumeBinding, in its words: `reason` is what it
  // reports for every node; the pod's message names the pod too.
  auto refuse = [&pod](std::string reason, std::string sentence = "") {
    pod.volume_refusal = sentence.empty()
                             ? absl::StrCat("pod ", pod.Key(), ": ", reason)
                             : std::move(sentence);
    pod.volume_reason = std::move(reason);
  };
  auto quote = [](const std::string& claim) {
    return absl::StrCat("persistentvolumeclaim \"", claim, "\"");
  };
  // Every claim must exist before any is looked at further (its PreFilter).
  for (const api::VolumeClaimRef& ref : pod.volume_claims) {
    if (claims_.count(pod.ns + "/" + ref.claim) > 0) continue;
    refuse(ref.ephemeral
               ? absl::StrCat(
                     "waiting for ephemeral volume controller to create the ",
                     quote(ref.claim))
               : absl::StrCat(quote(ref.claim), " not found"));
    return;
  }
  std::shared_ptr<api::PlacementConstraints> placement;
  for (const api::VolumeClaimRef& ref : pod.volume_claims) {
    const std::string quoted = quote(ref.claim);
    const api::PersistentVolumeClaim& claim =
        claims_.at(pod.ns + "/" + ref.claim);
    if (claim.deleting) {
      refuse(absl::StrCat(quoted, " is being deleted"));
      return;
    }
    if (ref.ephemeral && claim.owner_uid != pod.uid) {
      refuse(absl::StrCat("PVC ", claim.Key(), " was not created for pod ",
                          pod.Key(), " (pod is not owner)"));
      return;
    }
    if (claim.lost) {
      refuse(absl::StrCat(quoted, " bound to non-existent persistentvolume \"",
                          claim.volume_name, "\""));
      return;
    }
    if (!claim.bound) {
      auto cls = storage_classes_.find(claim.storage_class);
      bool on_first_consumer =
          !claim.storage_class.empty() && cls != storage_classes_.end() &&
          cls->second.binding_mode ==
              api::VolumeBindingMode::kWaitForFirstConsumer;
      if (on_first_consumer) {
        refuse(absl::StrCat(
                   quoted, " is not bound yet and Shoal does not bind volumes"),
               absl::StrCat("pod ", pod.Key(), " uses ", quoted,
                            ", which is not bound yet (storage class \"",
                            claim.storage_class,
                            "\" binds on first consumer; Shoal does not bind "
                            "volumes yet)"));
      } else {
        refuse(
            "pod has unbound immediate PersistentVolumeClaims",
            absl::StrCat("pod ", pod.Key(),
                         ": pod has unbound immediate PersistentVolumeClaims (",
                         quoted, " waits for its volume to be bound)"));
      }
      return;
    }
    auto pv = volumes_.find(claim.volume_name);
    if (pv == volumes_.end()) {
      refuse(
          "node(s) unavailable due to one or more pvc(s) bound to non-existent "
          "pv(s)",
          absl::StrCat("pod ", pod.Key(), ": ", quoted,
                       " is bound to persistentvolume \"", claim.volume_name,
                       "\", which does not exist (node(s) unavailable due to "
                       "one or more "
                       "pvc(s) bound to non-existent pv(s))"));
      return;
    }
    AddCsiVolume(pv->second, pod.csi_volumes);
    auto zones = api::VolumeZoneTerms(pv->second.labels);
    if (!pv->second.node_affinity.has_value() && zones.empty()) continue;
    if (placement == nullptr) {
      placement = std::make_shared<api::PlacementConstraints>(*pod.placement);
    }
    if (pv->second.node_affinity.has_value()) {
      placement->volume_node_affinity.push_back(*pv->second.node_affinity);
    }
    for (auto& z : zones) placement->volume_zones.push_back(std::move(z));
  }
  if (placement != nullptr) {
    placement->ComputeFingerprint();
    pod.placement = std::move(placement);
  }
}

void Cache::UpsertDeviceTaintRule(api::DeviceTaintRule rule) {
  absl::MutexLock lock(&mu_);
  devices_.UpsertTaintRule(std::move(rule));
}

void Cache::DeleteDeviceTaintRule(const std::string& name) {
  absl::MutexLock lock(&mu_);
  devices_.DeleteTaintRule(name);
}

void Cache::UpsertResourceSlice(api::ResourceSlice slice) {
  absl::MutexLock lock(&mu_);
  devices_.UpsertSlice(std::move(slice));
}

void Cache::DeleteResourceSlice(const std::string& name) {
  absl::MutexLock lock(&mu_);
  devices_.DeleteSlice(name);
}

void Cache::UpsertDeviceClass(api::DeviceClass cls) {
  absl::MutexLock lock(&mu_);
  devices_.UpsertClass(std::move(cls));
}

void Cache::DeleteDeviceClass(const std::string& name) {
  absl::MutexLock lock(&mu_);
  devices_.DeleteClass(name);
}

void Cache::UpsertResourceClaim(api::ResourceClaim claim) {
  absl::MutexLock lock(&mu_);
  devices_.UpsertClaim(std::move(claim));
}

void Cache::DeleteResourceClaim(const std::string& key) {
  absl::MutexLock lock(&mu_);
  devices_.DeleteClaim(key);
}

void Cache::AssumeClaims(const std::vector<api::ClaimWrite>& writes) {
  absl::MutexLock lock(&mu_);
  devices_.Assume(writes);
}

void Cache::ForgetClaims(const std::vector<api::ClaimWrite>& writes) {
  absl::MutexLock lock(&mu_);
  devices_.Forget(writes);
}

void Cache::ForgetAssumedClaim(const std::string& key) {
  absl::MutexLock lock(&mu_);
  devices_.ForgetAll(key);
}

void Cache::AssumeBound(const std::string& pod_key, const std::string& node) {
  absl::MutexLock lock(&mu_);
  assumed_[pod_key] = node;
  PodChanged(pod_key);
}

void Cache::ForgetAssumed(const std::string& pod_key) {
  absl::MutexLock lock(&mu_);
  if (assumed_.erase(pod_key) > 0) PodChanged(pod_key);
}

int Cache::AssumedCount() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(assumed_.size());
}

std::shared_ptr<const api::PodInfo> Cache::FindPod(
    const std::string& key) const {
  absl::MutexLock lock(&mu_);
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : it->second.pod;
}

absl::Time Cache::LatestCreation() const {
  absl::MutexLock lock(&mu_);
  absl::Time latest = absl::UnixEpoch();
  for (const auto& [key, entry] : pods_)
    latest = std::max(latest, entry.pod->created);
  for (const auto& [key, group] : groups_)
    latest = std::max(latest, group.created);
  return latest;
}

const api::PriorityClass* Cache::ClassOf(const std::string& class_name) const {
  if (!class_name.empty()) {
    auto it = priority_classes_.find(class_name);
    if (it != priority_classes_.end()) return &it->second;
  }
  for (const auto& [name, pc] : priority_classes_) {
    if (pc.global_default) return &pc;
  }
  return nullptr;
}

int32_t Cache::PriorityOf(const std::string& class_name) const {
  const api::PriorityClass* pc = ClassOf(class_name);
  return pc == nullptr ? 0 : pc->value;
}

}  // namespace shoal::cache
