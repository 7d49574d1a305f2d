// The cache's model: from what the sources gave to the cluster a cycle
// schedules (Assemble from scratch, or PatchModel with the pods, nodes
// and PodGroups changed since), the derived views of pods (priority,
// claims, assumed binds), and the contents a snapshot file is written
// from. The sources' side (Upsert/Delete, assumptions) is cache.cc.
#include <algorithm>
#include <set>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "scheduler/api/cluster_builder.h"
#include "scheduler/cache/cache.h"
#include "scheduler/cache/cluster_patch.h"
#include "scheduler/cache/composite_jobs.h"
#include "scheduler/cache/workload_jobs.h"

namespace shoal::cache {
namespace {

// A Queue's limits widened for resource names first seen since it was
// read (api::QueueInfo::UnlimitNamesSeenSince).
api::QueueInfo WithNamesSeenSince(const api::QueueInfo& queue) {
  api::QueueInfo q = queue;
  q.UnlimitNamesSeenSince();
  return q;
}

}  // namespace

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
  for (const auto& [key, c] : composites_)
    out.composite_pod_groups.push_back(c);
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
  if (!job.priority_stated) {
    job.priority =
        job.priority_class.empty() ? 0 : PriorityOf(job.priority_class);
  }
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
  const CompositeTrees trees =
      composites_.empty()
          ? CompositeTrees{}
          : BuildCompositeTrees(composites_, groups_,
                                [this](const std::string& class_name)
                                    ABSL_NO_THREAD_SAFETY_ANALYSIS {
                                      return PriorityOf(class_name);
                                    });
  std::map<std::string, api::JobIndex> tree_jobs;
  for (const auto& [key, tree] : trees.jobs) {
    api::JobInfo job = tree;
    ApplyKept(key, job);
    tree_jobs[key] = b.AddJob(std::move(job));
  }
  for (const auto& [key, group] : groups_) {
    if (theirs.count(key) > 0 && ours.count(key) == 0) continue;
    if (auto root = trees.root_of_leaf.find(key);
        root != trees.root_of_leaf.end()) {
      job_of_group[key] = tree_jobs.at(root->second);
      continue;
    }
    api::JobInfo job = GroupJob(key, group);
    if (auto broken = trees.broken_leaf.find(key);
        broken != trees.broken_leaf.end()) {
      job.group_missing = true;
      job.missing_reason = broken->second;
    } else if (!group.parent_group.empty()) {
      job.group_missing = true;
      job.missing_reason = absl::StrCat(
          "compositepodgroup ", group.ns, "/", group.parent_group,
          " does not exist (podgroup ", key,
          " names it in spec.parentCompositePodGroupName); its pods wait "
          "until it is created");
    }
    job_of_group[key] = b.AddJob(std::move(job));
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
          if (pod->in_scheduling_group && kube_pod_group_version_.empty()) {
            made.missing_reason = absl::StrCat(
                "podgroup ", group_key,
                " cannot be read: the API server serves no scheduling.k8s.io "
                "PodGroup version Shoal reads (v1beta1, v1alpha3, v1alpha2); "
                "its pods (spec.schedulingGroup) wait until one is served");
          }
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
  // A Workload's gang (or a tree's) has no object to hold a phase: it runs
  // once it has pods on nodes.
  for (api::JobInfo& j : cluster.jobs) {
    if ((j.source == api::GroupSource::kWorkload ||
         j.source == api::GroupSource::kCompositeTree) &&
        j.ScheduledCount() > 0)
      j.phase = api::PodGroupPhase::kRunning;
  }
  for (const auto& [root, j] : tree_jobs)
    CheckTreePods(cluster, cluster.jobs[j], theirs, trees.root_of_leaf);
  // A PodGroup without a class of its own ranks as its highest pod.
  for (const auto& [job, priority] : pod_priorities) {
    api::JobInfo& j = cluster.jobs[job];
    if (j.priority_class.empty() && !j.priority_stated &&
        j.source != api::GroupSource::kSinglePod && priority > j.priority) {
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
        model_->jobs[job->second].source == api::GroupSource::kCompositeTree ||
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
    if (model_->jobs[job->second].group_missing ||
        model_->jobs[job->second].source == api::GroupSource::kCompositeTree)
      return false;
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
