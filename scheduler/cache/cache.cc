#include "scheduler/cache/cache.h"

#include <algorithm>
#include <set>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "scheduler/api/cluster_builder.h"
#include "scheduler/cache/cluster_patch.h"
#include "scheduler/cache/workload_jobs.h"

namespace shoal::cache {
namespace {

api::QueueInfo WithNamesSeenSince(const api::QueueInfo& queue) {
  api::QueueInfo q = queue;
  q.UnlimitNamesSeenSince();
  return q;
}

}  // namespace

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
  auto [it, added] = groups_.insert_or_assign(group.Key(), std::move(group));
  if (added) {
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
    const bool workload = job.source == api::GroupSource::kWorkload;
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

CacheContents Cache::Export() const {
  absl::MutexLock lock(&mu_);
  CacheContents out;
  out.scheduler_name = scheduler_name_;
  for (const auto& [name, node] : nodes_) out.nodes.push_back(node);
  for (const auto& [key, entry] : pods_) {
    auto assumed = assumed_.find(key);
    out.pods.push_back({entry.pod, entry.has_priority,
                        assumed == assumed_.end() ? "" : assumed->second});
  }
  for (const auto& [key, group] : groups_) {
    api::JobInfo job = group;
    auto kept = decisions_.find(key);
    if (kept != decisions_.end() && kept->second.uid == job.uid) {
      if (kept->second.has_phase) job.phase = kept->second.phase;
      job.elastic_target = kept->second.elastic_target;
    }
    out.pod_groups.push_back(std::move(job));
  }
  for (const auto& [name, queue] : queues_)
    out.queues.push_back(WithNamesSeenSince(queue));
  for (const auto& [name, labels] : namespaces_)
    out.namespaces.emplace_back(name, labels);
  for (const auto& [name, pc] : priority_classes_)
    out.priority_classes.push_back(pc);
  for (const auto& [key, claim] : claims_) out.claims.push_back(claim);
  for (const auto& [name, pv] : volumes_) out.volumes.push_back(pv);
  for (const auto& [name, sc] : storage_classes_)
    out.storage_classes.push_back(sc);
  for (const auto& [name, limits] : csi_nodes_)
    out.csi_nodes.push_back({name, *limits});
  for (const auto& [name, h] : hypernodes_) out.hypernodes.push_back(h);
  for (const auto& [key, w] : workloads_) out.workloads.push_back(w);
  out.resource_slices = devices_.Slices();
  out.device_classes = devices_.Classes();
  out.device_taint_rules = devices_.TaintRules();
  out.resource_claims = devices_.Claims();
  return out;
}

void Cache::PodChanged(const std::string& key) {
  auto it = pods_.find(key);
  if (it != pods_.end()) it->second.derived_epoch = 0;
  if (restructure_) return;
  // Patching costs a few times what assembling does per pod (a search
  // for each, nodes accounted again): past a tenth of the pods, assemble.
  if (changed_pods_.size() > 64 && changed_pods_.size() * 10 > pods_.size()) {
    Restructure();
    return;
  }
  // The first change since the model was made: keep what the model holds.
  changed_pods_.try_emplace(key,
                            it == pods_.end() ? nullptr : it->second.derived);
}

std::shared_ptr<const api::PodInfo> Cache::Derive(const std::string& key,
                                                  const PodEntry& entry) const {
  std::shared_ptr<const api::PodInfo> pod = entry.pod;
  auto assumed = assumed_.empty() ? assumed_.end() : assumed_.find(key);
  const api::PriorityClass* pc =
      pod->preemption_policy_set ? nullptr : ClassOf(pod->priority_class);
  bool inherit_never =
      pc != nullptr && pc->preempt_never && !pod->preempt_never;
  // Only a pending pod of ours is placed, so only its claims matter.
  bool claims = !pod->volume_claims.empty() && pod->node_name.empty() &&
                assumed == assumed_.end() &&
                pod->status == api::TaskStatus::kPending &&
                pod->scheduler_name == scheduler_name_;
  // A pod on a node (of any scheduler) holds its CSI volumes' attachments.
  std::vector<api::CsiVolume> attached;
  if (!pod->volume_claims.empty() && !claims &&
      (!pod->node_name.empty() || assumed != assumed_.end())) {
    attached = AttachedCsiVolumes(*pod);
  }
  if (entry.has_priority && !inherit_never && assumed == assumed_.end() &&
      !claims && attached.empty()) {
    return pod;
  }
  auto copy = std::make_shared<api::PodInfo>(*pod);
  if (claims) ResolveClaims(*copy);
  if (!attached.empty()) copy->csi_volumes = std::move(attached);
  if (!entry.has_priority) copy->priority = PriorityOf(copy->priority_class);
  if (inherit_never) copy->preempt_never = true;
  if (assumed != assumed_.end()) {
    copy->node_name = assumed->second;
    copy->status = api::TaskStatus::kBinding;
  }
  return copy;
}

api::JobInfo Cache::GroupJob(const std::string& key,
                             const api::JobInfo& group) const {
  api::JobInfo job = group;
  job.priority =
      job.priority_class.empty() ? 0 : PriorityOf(job.priority_class);
  ApplyKept(key, job);
  return job;
}

void Cache::ApplyKept(const std::string& key, api::JobInfo& job) const {
  auto kept = decisions_.find(key);
  if (kept == decisions_.end() || kept->second.uid != job.uid) return;
  if (kept->second.has_phase) job.phase = kept->second.phase;
  job.elastic_target = kept->second.elastic_target;
  job.cycles_below_minimum = kept->second.cycles_below_minimum;
}

api::ClusterInfo Cache::Assemble(
    bool fresh,
    absl::flat_hash_map<std::string, api::JobIndex>* job_of_group_out,
    std::set<std::string>* theirs_out) const {
  api::ClusterBuilder b;
  // At most a job per group and per pod (jobs of one), a task per pod.
  b.Reserve(nodes_.size(), groups_.size() + pods_.size(), pods_.size());
  for (const auto& [name, node] : nodes_) b.AddNode(node);
  for (const auto& [name, limits] : csi_nodes_) b.SetVolumeLimits(name, limits);
  for (const auto& [name, queue] : queues_)
    b.AddQueue(WithNamesSeenSince(queue));
  for (const auto& [name, labels] : namespaces_)
    b.SetNamespaceLabels(name, labels);

  // A PodGroup whose pods all belong to another scheduler (Volcano
  // running alongside) is that scheduler's: not admitted, not charged to
  // a queue, its status not written.
  // Keys are built only when some other scheduler's pod names a group,
  // so the usual snapshot pays one comparison per pod.
  std::set<std::string> ours, theirs;
  for (const auto& [key, entry] : pods_) {
    const api::PodInfo& pod = *entry.pod;
    if (!pod.group.empty() && pod.scheduler_name != scheduler_name_) {
      theirs.insert(pod.ns + "/" + pod.group);
    }
  }
  if (!theirs.empty()) {
    for (const auto& [key, entry] : pods_) {
      const api::PodInfo& pod = *entry.pod;
      if (pod.group.empty() || pod.scheduler_name != scheduler_name_) continue;
      std::string group_key = pod.ns + "/" + pod.group;
      if (theirs.count(group_key) > 0) ours.insert(std::move(group_key));
    }
  }
  absl::flat_hash_map<std::string, api::JobIndex> job_of_group;
  job_of_group.reserve(groups_.size());
  for (const auto& [key, group] : groups_) {
    if (theirs.count(key) > 0 && ours.count(key) == 0) continue;
    job_of_group[key] = b.AddJob(GroupJob(key, group));
  }
  // (job, pod priority) pairs: a PodGroup without a class ranks as its
  // highest pod, settled once every pod is known.
  std::vector<std::pair<api::JobIndex, int32_t>> pod_priorities;
  std::vector<std::pair<std::shared_ptr<const api::PodInfo>, api::JobIndex>>
      tasks;
  tasks.reserve(pods_.size());
  pod_priorities.reserve(pods_.size());
  std::string group_key;  // reused: no allocation per pod
  for (const auto& [key, entry] : pods_) {
    std::shared_ptr<const api::PodInfo> pod;
    if (fresh) {
      pod = Derive(key, entry);
    } else {
      if (entry.derived_epoch != derive_epoch_) {
        entry.derived = Derive(key, entry);
        entry.derived_epoch = derive_epoch_;
      }
      pod = entry.derived;
    }
    if (pod->scheduler_name != scheduler_name_) {
      if (!pod->node_name.empty() && api::OccupiesNode(pod->status)) {
        b.AddForeignPod(pod);
      }
      continue;
    }
    api::JobIndex job;
    if (pod->group.empty() || InBasicPodGroup(workloads_, *pod)) {
      job = b.AddJob(SinglePodJob(*pod));
    } else {
      group_key.assign(pod->ns).append("/").append(pod->group);
      auto it = job_of_group.find(group_key);
      if (it == job_of_group.end()) {
        api::JobInfo made;
        // A pod naming a PodGroup (even beside a Workload) waits for it.
        if (pod->workload_ref.name.empty() || !pod->group_conflict.empty()) {
          made.ns = pod->ns;
          made.name = pod->group;
          made.uid = group_key;
          made.group_missing = true;
        } else {
          made = WorkloadGangJob(workloads_, *pod);
          ApplyKept(group_key, made);
        }
        it = job_of_group.emplace(group_key, b.AddJob(std::move(made))).first;
      }
      job = it->second;
    }
    pod_priorities.emplace_back(job, pod->priority);
    tasks.emplace_back(std::move(pod), job);
  }
  for (auto& [pod, job] : tasks) b.AddTask(std::move(pod), job);
  api::ClusterInfo cluster = std::move(b).Build();
  cluster.network = NetworkFor(cluster, fresh);
  // A Workload's gang has no object to hold a phase: it runs once it has
  // pods on nodes.
  for (api::JobInfo& j : cluster.jobs) {
    if (j.source == api::GroupSource::kWorkload && j.ScheduledCount() > 0)
      j.phase = api::PodGroupPhase::kRunning;
  }
  // A PodGroup without a class of its own ranks as its highest pod.
  for (const auto& [job, priority] : pod_priorities) {
    api::JobInfo& j = cluster.jobs[job];
    if (j.priority_class.empty() && j.source != api::GroupSource::kSinglePod &&
        priority > j.priority) {
      j.priority = priority;
    }
  }
  if (job_of_group_out != nullptr) *job_of_group_out = std::move(job_of_group);
  if (theirs_out != nullptr) *theirs_out = std::move(theirs);
  return cluster;
}

bool Cache::PatchModel() const {
  // Every changed pod first: if one moves jobs or nodes (or changes which
  // PodGroups are another scheduler's), nothing is patched.
  std::vector<std::string> deleted;
  std::vector<std::pair<std::shared_ptr<const api::PodInfo>, api::JobIndex>>
      added;
  std::vector<
      std::pair<const std::string*, std::shared_ptr<const api::PodInfo>>>
      replaced;
  std::vector<
      std::pair<const api::PodInfo*, std::shared_ptr<const api::PodInfo>>>
      foreign;
  std::vector<std::pair<const PodEntry*, std::shared_ptr<const api::PodInfo>>>
      views;
  // Our pods of no PodGroup coming (their views) and going (their keys).
  std::vector<std::shared_ptr<const api::PodInfo>> added_singles;
  std::vector<std::string> deleted_singles;
  std::string group_key;
  for (const auto& [key, old] : changed_pods_) {
    auto it = pods_.find(key);
    std::shared_ptr<const api::PodInfo> view;
    if (it != pods_.end()) {
      view = Derive(key, it->second);
      views.emplace_back(&it->second, view);
    }
    if (old == nullptr && view == nullptr) continue;  // came and went
    if (old != nullptr && view != nullptr) {
      const bool ours = view->scheduler_name == scheduler_name_;
      if (ours != (old->scheduler_name == scheduler_name_) ||
          view->group != old->group) {
        return false;
      }
      if (ours) {
        replaced.emplace_back(&key, std::move(view));
      } else {
        foreign.emplace_back(old.get(), std::move(view));
      }
      continue;
    }
    // Added or deleted: another scheduler's pod of no PodGroup, one of
    // ours of no PodGroup (a job of one), or one of ours in a PodGroup
    // that has a job already and stays ours.
    const api::PodInfo& pod = old != nullptr ? *old : *view;
    if (pod.scheduler_name != scheduler_name_) {
      if (!pod.group.empty()) return false;
      foreign.emplace_back(old.get(), std::move(view));
      continue;
    }
    if (pod.group.empty()) {  // a job of one comes or goes
      if (old != nullptr) {
        deleted_singles.push_back(key);
      } else {
        added_singles.push_back(std::move(view));
      }
      continue;
    }
    group_key.assign(pod.ns).append("/").append(pod.group);
    auto job = model_jobs_.find(group_key);
    if (job == model_jobs_.end() || model_->jobs[job->second].group_missing ||
        model_theirs_.count(group_key) > 0) {
      return false;
    }
    if (old != nullptr) {
      deleted.push_back(key);
    } else {
      added.emplace_back(std::move(view), job->second);
    }
  }
  for (auto& [entry, view] : views) {
    entry->derived = std::move(view);
    entry->derived_epoch = derive_epoch_;
  }
  if (changed_pods_.empty() && changed_nodes_.empty() &&
      changed_groups_.empty()) {
    return true;
  }
  // A snapshot may still be copying the model outside the lock.
  if (model_.use_count() > 1)
    model_ = std::make_shared<api::ClusterInfo>(*model_);
  ClusterPatch patch(*model_);
  // The log is unordered; jobs of one and tasks are in key order.
  std::sort(deleted_singles.begin(), deleted_singles.end());
  std::sort(added_singles.begin(), added_singles.end(),
            [](const auto& a, const auto& b) {
              return CompareKey(*a, b->Key()) < 0;
            });
  const std::vector<api::JobIndex> single_jobs =
      patch.ChangeSingleJobs(deleted_singles, added_singles);
  const std::vector<api::JobIndex>& renumbered = patch.job_renumbering();
  if (!renumbered.empty()) {
    // Jobs of missing PodGroups may have moved among the jobs of one.
    for (auto& [group, j] : model_jobs_) j = renumbered[j];
    for (auto& [pod, j] : added) j = renumbered[j];
  }
  // The tasks of the jobs of one join the others', in key order.
  for (size_t i = 0; i < added_singles.size(); ++i)
    added.emplace_back(std::move(added_singles[i]), single_jobs[i]);
  for (std::string& key : deleted_singles) deleted.push_back(std::move(key));
  std::sort(deleted.begin(), deleted.end());
  std::sort(added.begin(), added.end(), [](const auto& a, const auto& b) {
    return CompareKey(*a.first, b.first->Key()) < 0;
  });
  patch.ChangeTasks(deleted, added);
  for (auto& [key, view] : replaced) patch.ReplaceTask(*key, std::move(view));
  for (auto& [old, view] : foreign)
    patch.ReplaceForeignPod(old, std::move(view));
  for (const std::string& name : changed_nodes_) {
    api::NodeIndex n = model_->FindNode(name);
    if (n == api::kNone) return false;
    patch.NodeSpecChanged(n);
  }
  for (const std::string& key : changed_groups_) {
    auto group = groups_.find(key);
    if (group == groups_.end()) return false;
    auto job = model_jobs_.find(key);
    // Not in the model: another scheduler's, as it was then.
    if (job == model_jobs_.end()) continue;
    if (model_->jobs[job->second].group_missing) return false;
    patch.ReplaceGroupJob(job->second, GroupJob(key, group->second));
  }
  std::move(patch).Finish(nodes_, csi_nodes_);
  if (!single_jobs.empty() || !renumbered.empty()) ++single_pod_patches_;
  return true;
}

void Cache::UpdateModel(Garbage& garbage) const {
  // A resource name first seen since (a node or pod updated in place
  // with a new extended resource) widens every Queue's limits
  // (WithNamesSeenSince): assemble.
  const int names = api::ResourceNameCount();
  if (model_ == nullptr || restructure_ || names != model_names_ ||
      !PatchModel()) {
    model_names_ = names;
    garbage.model = std::move(model_);
    model_ = std::make_shared<api::ClusterInfo>(
        Assemble(false, &model_jobs_, &model_theirs_));
  }
  restructure_ = false;
  // Often the last hold on the pods' old views.
  garbage.views.swap(changed_pods_);
  changed_pods_.clear();
  changed_nodes_.clear();
  changed_groups_.clear();
}

api::ClusterInfo Cache::Snapshot() const {
  std::shared_ptr<const api::ClusterInfo> model;
  std::shared_ptr<const api::DeviceWorld> devices;
  absl::Time now;
  Garbage garbage;  // freed last, after the lock
  {
    absl::MutexLock lock(&mu_);
    now = clock_();
    UpdateModel(garbage);
    model = model_;
    devices = devices_.World();
  }
  // The session's own copy, made without holding up the sources: the
  // model is not changed while it is shared (PatchModel copies it first).
  api::ClusterInfo cluster = *model;
  cluster.now = now;
  cluster.devices = std::move(devices);
  return cluster;
}

int64_t Cache::SinglePodPatches() const {
  absl::MutexLock lock(&mu_);
  return single_pod_patches_;
}

api::ClusterInfo Cache::SnapshotFromScratch() const {
  absl::MutexLock lock(&mu_);
  api::ClusterInfo cluster = Assemble(/*fresh=*/true, nullptr, nullptr);
  cluster.now = clock_();
  cluster.devices = devices_.World();
  return cluster;
}

}  // namespace shoal::cache
