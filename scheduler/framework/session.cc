#include "scheduler/framework/session.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <set>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/api/queue_tree.h"
#include "scheduler/dra/device_quota.h"
#include "scheduler/dra/extended_resources.h"
#include "scheduler/dra/group_claims.h"
#include "scheduler/metrics/scheduler_metrics.h"

namespace shoal::framework {

namespace {

// The cluster with its pods' claims as the session reads them, before
// the ledger does: a PodGroup's claims resolved for its pods
// (dra/group_claims.h), each pending pod's claim for its extended
// resources added (dra/extended_resources.h).
api::ClusterInfo WithSessionClaims(api::ClusterInfo cluster) {
  dra::ResolveGroupClaims(cluster);
  dra::AddExtendedResourceClaims(cluster);
  return cluster;
}

// The node label keys the network is built from when no HyperNode
// describes it: the policy's tierLabels and every key a Kubernetes group
// names in schedulingConstraints.topology, narrowest (most values, then
// named deepest in a tree) first.
std::vector<std::string> TierKeysOf(const api::ClusterInfo& c,
                                    std::vector<std::string> keys) {
  const size_t configured = keys.size();
  // How deep in a tree each key is named (a root's 0, a leaf's deepest):
  // between keys of as many values, the deeper is the narrower.
  std::map<std::string, int> depth;
  auto add = [&](const api::NetworkConstraint& n, int at) {
    if (!n.topology_key) return;
    const std::string& key = n.highest_tier_name;
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      keys.push_back(key);
    depth[key] = std::max(depth[key], at);
  };
  for (const api::JobInfo& job : c.jobs) {
    add(job.network, 0);
    for (const api::SubGroupPolicy& p : job.sub_group_policies) {
      int at = 1;
      for (int32_t up = p.parent; up != api::kNone;
           up = job.sub_group_policies[up].parent)
        ++at;
      add(p.network, at);
      for (const api::LeafPodGroup& leaf : p.leaves) add(leaf.network, at + 1);
    }
  }
  if (keys.size() == configured) return keys;
  std::map<std::string, size_t> values;
  for (const std::string& key : keys) {
    std::set<std::string> seen;
    for (const api::NodeInfo& n : c.nodes) {
      if (const std::string* v = n.spec().labels.Find(key)) seen.insert(*v);
    }
    values[key] = seen.size();
  }
  std::stable_sort(keys.begin(), keys.end(),
                   [&](const std::string& a, const std::string& b) {
                     if (values[a] != values[b]) return values[a] > values[b];
                     return depth[a] > depth[b];
                   });
  return keys;
}

}  // namespace

Session::Session(api::ClusterInfo cluster, Policy& policy)
    : cluster_(WithSessionClaims(std::move(cluster))),
      policy_(policy),
      topology_(std::make_unique<PodTopology>(cluster_)),
      devices_(std::make_unique<dra::Ledger>(cluster_.devices, cluster_.nodes)),
      sampling_(policy_.config.percentage_of_nodes_to_score,
                cluster_.nodes.size()) {
  assert(api::IndexesMatchPositions(cluster_));
  if (cluster_.network == nullptr || cluster_.network->empty()) {
    std::vector<std::string> keys =
        TierKeysOf(cluster_, NetworkTierLabels(policy_));
    if (!keys.empty()) {
      cluster_.network = std::make_shared<const api::NetworkTopology>(
          api::NetworkTopology::FromLabelTiers(keys, cluster_.nodes));
    }
  }
  ClassifyClaims();
  held_ = policy_.promises.Hold(cluster_);
  if (!held_.empty()) promised_memo_.resize(cluster_.nodes.size());
  // Nodes serving extended resources through devices publish them first:
  // queues and shares count them from there.
  const std::vector<api::ResourceId> served =
      dra::ServeExtendedResourcesOnNodes(devices_->mutable_inventory(),
                                         cluster_);
  // Devices count in queues and shares as resources of their class; done
  // before anything sums what queues hold.
  dra::CountDevices(devices_->mutable_inventory(), cluster_.nodes,
                    dra::QuotaNames(cluster_.queues), cluster_.tasks,
                    cluster_.total_allocatable, cluster_.device_resources,
                    served);
  for (api::QueueInfo& q : cluster_.queues) q.UnlimitNamesSeenSince();
  queue_held_.assign(cluster_.queues.size(), api::Resource());
  for (const auto& t : cluster_.tasks) {
    if (t.status == api::TaskStatus::kReleasing) {
      ++releasing_count_;
      // Its claims' devices wait for it like its node room does: free
      // for what is pipelined, held for what binds now.
      if (!t.pod->resource_claims.empty()) devices_->Release(*t.pod);
    }
    if (api::HoldsShare(t.status)) HoldInQueues(t, +1);
  }
  // Admission is renewed every cycle until the gang holds something: a
  // promise made when the queue's share was larger (or the cluster
  // emptier) must not keep room idle that others could use now. Done
  // before plugins measure what admission has committed.
  if (policy_.config.HasAction("enqueue")) {
    for (auto& job : cluster_.jobs) {
      if (job.phase == api::PodGroupPhase::kInqueue && job.ReadyCount() == 0 &&
          job.Count(api::TaskStatus::kPipelined) == 0 &&
          job.Count(api::TaskStatus::kReleasing) == 0) {
        job.phase = api::PodGroupPhase::kPending;
        job.renewing_admission = true;
      }
    }
  }
  plugin_sessions_.reserve(policy_.plugins.size());
  for (auto& p : policy_.plugins) {
    Registering reg{p.config, p.tier};
    current_ = &reg;
    metrics::ScopedTimer timed(
        metrics::Shoal().PluginLatency(p.config.name, metrics::kOnSessionOpen));
    plugin_sessions_.push_back(p.plugin->OnSessionOpen(*this));
  }
  current_ = nullptr;
}

void Session::Close() {
  for (size_t i = plugin_sessions_.size(); i-- > 0;) {
    if (plugin_sessions_[i] == nullptr) continue;
    metrics::ScopedTimer timed(metrics::Shoal().PluginLatency(
        policy_.plugins[i].config.name, metrics::kOnSessionClose));
    plugin_sessions_[i]->OnSessionClose(*this);
  }
  for (auto& job : cluster_.jobs) {
    int32_t total = static_cast<int32_t>(job.tasks.size());
    int32_t done = job.Count(api::TaskStatus::kSucceeded) +
                   job.Count(api::TaskStatus::kFailed);
    if (total > 0 && done == total &&
        job.Count(api::TaskStatus::kSucceeded) >= job.min_member) {
      job.phase = api::PodGroupPhase::kCompleted;
    } else if (job.ReadyCount() >= job.min_member) {
      job.phase = api::PodGroupPhase::kRunning;
    } else if (job.phase == api::PodGroupPhase::kRunning) {
      // It ran with its full gang and has lost members since.
      job.phase = api::PodGroupPhase::kUnknown;
    }
  }
}

namespace {

template <typename T>
bool Fallback(const T& a, const T& b) {
  if (a.created != b.created) return a.created < b.created;
  return a.name < b.name;
}

}  // namespace

bool Session::QueueBefore(const api::QueueInfo& a,
                          const api::QueueInfo& b) const {
  if (int r = Call<QueueOrder>(a, b); r != 0) return r < 0;
  return a.name < b.name;
}

bool Session::JobBefore(const api::JobInfo& a, const api::JobInfo& b) const {
  if (int r = Call<JobOrder>(a, b); r != 0) return r < 0;
  if (a.created != b.created) return a.created < b.created;
  return a.Key() < b.Key();
}

bool Session::TaskBefore(const api::TaskInfo& a, const api::TaskInfo& b) const {
  if (int r = Call<TaskOrder>(a, b); r != 0) return r < 0;
  if (a.pod->created != b.pod->created) return a.pod->created < b.pod->created;
  // Pods of one controller differ by a numeric suffix: worker-2 < worker-10.
  const std::string& x = a.pod->name;
  const std::string& y = b.pod->name;
  if (x.size() != y.size()) return x.size() < y.size();
  return x < y;
}

bool Session::JobSchedulable(const api::JobInfo& job, std::string* why) const {
  return JobAdmissible(job, why) && PodsPlaceable(job, why) &&
         Call<JobValid>(job, why);
}

bool Session::PodsPlaceable(const api::JobInfo& job, std::string* why) const {
  for (api::TaskIndex t : job.tasks) {
    const api::TaskInfo& task = cluster_.tasks[t];
    if (task.status != api::TaskStatus::kPending) continue;
    const api::PodInfo& pod = *task.pod;
    if (!pod.scheduling_gates.empty()) {
      *why = absl::StrCat("pod ", pod.Key(), " has scheduling gates (",
                          absl::StrJoin(pod.scheduling_gates, ", "),
                          "); it waits until they are removed");
      return false;
    }
    if (!pod.volume_refusal.empty()) {  // the cache's words, pod named
      *why = pod.volume_refusal;
      return false;
    }
    if (!pod.resource_claims.empty()) {
      std::string refusal = devices_->Refusal(pod);
      if (!refusal.empty()) {
        *why = std::move(refusal);
        return false;
      }
    }
  }
  return true;
}

bool Session::JobAdmissible(const api::JobInfo& job, std::string* why) const {
  if (job.group_missing) {
    *why = !job.missing_reason.empty()
               ? job.missing_reason
               : absl::StrCat("podgroup ", job.Key(),
                              " does not exist; its pods wait until it is "
                              "created");
    return false;
  }
  if (!job.refusal.empty()) {
    *why = job.refusal;
    return false;
  }
  if (!job.unsupported_field.empty()) {
    *why = absl::StrCat(job.source == api::GroupSource::kCompositeTree
                            ? "compositepodgroup "
                            : "podgroup ",
                        job.Key(), " uses ", job.unsupported_field,
                        ", which Shoal does not implement yet; the gang waits "
                        "rather than be placed as if that were absent");
    return false;
  }
  // Nor is room promised to a job whose pods cannot be placed as they are.
  for (api::TaskIndex t : job.tasks) {
    const api::TaskInfo& task = cluster_.tasks[t];
    const api::PodInfo& pod = *task.pod;
    if (task.status != api::TaskStatus::kPending) continue;
    if (!pod.group_conflict.empty()) {
      *why = pod.group_conflict;
      return false;
    }
    if (pod.unsupported_field.empty()) continue;
    *why = absl::StrCat(
        "pod ", pod.Key(), " uses ", pod.unsupported_field,
        ", which Shoal does not implement yet; it waits rather than be "
        "placed as if that were absent");
    return false;
  }
  int32_t q = job.queue_index;
  if (q == api::kNone) {
    *why = absl::StrCat("queue \"", job.queue,
                        "\" does not exist; create it or change spec.queue");
    return false;
  }
  if (!cluster_.queues[q].open) {
    *why = absl::StrCat("queue \"", job.queue,
                        "\" is closed and admits no new work");
    return false;
  }
  // Whatever the policy, a queue tree is honoured or its jobs wait: a
  // job never runs outside limits its queue's parents were meant to set.
  if (std::string tree = api::QueuePlacementError(cluster_, q); !tree.empty()) {
    *why = std::move(tree);
    return false;
  }
  return true;
}

bool Session::Starving(const api::JobInfo& job) const {
  if (Table<framework::JobStarving>().empty()) {
    return job.ReadyCount() + job.Count(api::TaskStatus::kPipelined) <
           job.min_member;
  }
  return Call<framework::JobStarving>(job);
}

bool Session::JobAdmitted(const api::JobInfo& job) const {
  return !policy_.config.HasAction("enqueue") ||
         job.phase != api::PodGroupPhase::kPending;
}

const FeasibleNodes& Session::Feasible(const api::PlacementConstraints& c) {
  auto& bucket = feasible_[c.fingerprint];
  for (const auto& [key, result] : bucket) {
    if (*key == c) return *result;
  }
  auto result = std::make_unique<FeasibleNodes>();
  Reasons why;
  for (api::NodeIndex n = 0;
       n < static_cast<api::NodeIndex>(cluster_.nodes.size()); ++n) {
    why.clear();
    if (Call<Predicate>(c, cluster_.nodes[n], &why)) {
      result->nodes.push_back(n);
    } else {
      for (const auto& r : why) ++result->rejected[r];
    }
  }
  bucket.emplace_back(&c, std::move(result));
  return *bucket.back().second;
}

std::string Session::ExplainUnplaced(const api::TaskInfo& t) {
  const Explained* known = nullptr;
  for (const Explained& e : explained_) {
    if (e.state == state_ && e.exemplar->PlacedAlike(t)) known = &e;
  }
  if (known == nullptr) {
    // A few states back are worth keeping: gangs that fail undo what they
    // placed.
    if (explained_.size() >= 16) explained_.erase(explained_.begin());
    Explained e{&t, state_, Feasible(t.placement()).rejected, {}};
    // Nodes short of room, the common refusal, are counted per resource
    // and named once.
    std::vector<int> short_of(t.request().size(), 0);
    Reasons reasons;
    for (api::NodeIndex n : Feasible(t.placement()).nodes) {
      const api::NodeInfo& node = cluster_.nodes[n];
      if (!t.request().FitsIn(node.idle())) {
        t.request().ForEachShortage(
            node.idle(), [&short_of](api::ResourceId id) { ++short_of[id]; });
        continue;
      }
      reasons.clear();
      if (FitsMechanically(t, node, node.idle(), &reasons)) {
        e.passed.push_back(n);
      } else {
        for (const auto& r : reasons) ++e.refused[r];
      }
    }
    for (size_t id = 0; id < short_of.size(); ++id) {
      if (short_of[id] > 0) {
        e.refused[std::string(api::InsufficientReason(
            static_cast<api::ResourceId>(id)))] += short_of[id];
      }
    }
    explained_.push_back(std::move(e));
    known = &explained_.back();
  }
  // The Fit callbacks may judge by the task's job: asked every time, of
  // the few nodes that pass the rest.
  absl::flat_hash_map<std::string, int> why = known->refused;
  int available = 0;
  Reasons reasons;
  for (api::NodeIndex n : known->passed) {
    reasons.clear();
    const api::NodeInfo& node = cluster_.nodes[n];
    if (const api::Resource* promised = PromisedToOthers(t, node);
        promised != nullptr && !t.request().FitsIn(node.idle() - *promised)) {
      ++why["node(s) had room held for another gang (consolidate)"];
    } else if (Call<Fit>(t, node, node.idle(), &reasons)) {
      ++available;
    } else {
      for (const auto& r : reasons) ++why[r];
    }
  }
  return FormatUnavailable(static_cast<int>(cluster_.nodes.size()), available,
                           why);
}

bool Session::FitsExplained(const api::TaskInfo& t, const api::NodeInfo& n,
                            const api::Resource& available,
                            Reasons* why) const {
  return FitsMechanically(t, n, available, why) &&
         Call<Fit>(t, n, available, why);
}

bool Session::FitsMechanically(const api::TaskInfo& t, const api::NodeInfo& n,
                               const api::Resource& available,
                               Reasons* why) const {
  if (!t.request().FitsIn(available)) {
    t.request().ForEachShortage(available, [why](api::ResourceId id) {
      why->emplace_back(api::InsufficientReason(id));
    });
    return false;  // as kube-scheduler: the first failing check explains
  }
  if (!n.HostPortsFree(t.pod->host_ports)) {
    why->emplace_back(
        "node(s) didn't have free ports for the requested pod ports");
    return false;
  }
  if (!n.VolumesFit(t.pod->csi_volumes)) {
    why->emplace_back("node(s) exceed max volume count");
    return false;
  }
  if (!t.pod->resource_claims.empty()) {
    std::string no_device;
    if (!devices_->Fits(*t.pod, n, &no_device)) {
      why->emplace_back(std::move(no_device));
      return false;
    }
  }
  if (const char* refusal = topology_->Refusal(t, n)) {
    why->emplace_back(refusal);
    return false;
  }
  return true;
}

std::string FormatUnavailable(
    int total, int available,
    const absl::flat_hash_map<std::string, int>& why) {
  std::vector<std::pair<std::string, int>> sorted(why.begin(), why.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::string> parts;
  for (const auto& [reason, count] : sorted) {
    parts.push_back(absl::StrCat(count, " ", reason));
  }
  std::string text =
      absl::StrCat(available, "/", total, " nodes are available");
  if (!parts.empty()) absl::StrAppend(&text, ": ", absl::StrJoin(parts, ", "));
  return text + ".";
}

void Session::ClassifyClaims() {
  absl::flat_hash_map<std::string, int> users;
  for (const api::TaskInfo& t : cluster_.tasks) {
    for (const api::PodClaim& pc : t.pod->resource_claims)
      ++users[absl::StrCat(t.pod->ns, "/", pc.claim)];
  }
  absl::flat_hash_set<std::string> shared;
  for (const auto& [key, n] : users) {
    if (n > 1) shared.insert(key);
  }
  absl::flat_hash_map<std::string, int32_t> classes;
  for (api::TaskInfo& t : cluster_.tasks) {
    if (t.pod->resource_claims.empty()) continue;
    auto [it, fresh] =
        classes.try_emplace(devices_->Signature(*t.pod, shared),
                            static_cast<int32_t>(classes.size()) + 1);
    t.claims_class = it->second;
  }
}

void Session::MoveTask(api::TaskIndex t, api::TaskStatus status,
                       api::NodeIndex node) {
  state_ = ++last_state_;
  api::TaskInfo& task = cluster_.tasks[t];
  const api::TaskStatus old_status = task.status;
  const api::NodeIndex old_node = task.node;
  if (topology_->active()) {
    if (old_node != api::kNone && api::OccupiesNode(old_status)) {
      topology_->Place(*task.pod, old_node, -1,
                       old_status == api::TaskStatus::kReleasing);
    }
    if (node != api::kNone && api::OccupiesNode(status)) {
      topology_->Place(*task.pod, node, +1,
                       status == api::TaskStatus::kReleasing);
    }
  }
  // Claims are allocated when a pending pod is placed and given back
  // when that placement is undone; a placed pod's claims stay allocated
  // through binding, running and eviction (the claim outlives the move).
  // A pipelined pod's claims take devices its victims give back; an
  // evicted pod gives back those of its claims no staying pod shares,
  // for pipelined pods only (dra::Ledger::Release).
  if (!task.pod->resource_claims.empty()) {
    using api::TaskStatus;
    if (old_status == TaskStatus::kPending && node != api::kNone &&
        api::OccupiesNode(status)) {
      devices_->Place(*task.pod, cluster_.nodes[node]);
    } else if (old_status == TaskStatus::kPending &&
               status == TaskStatus::kPipelined) {
      devices_->PlaceOnceReleased(*task.pod, cluster_.nodes[node]);
    } else if (status == TaskStatus::kPending && old_node != api::kNone &&
               (api::OccupiesNode(old_status) ||
                old_status == TaskStatus::kPipelined)) {
      devices_->Unplace(*task.pod);
    } else if (status == TaskStatus::kReleasing &&
               old_status != TaskStatus::kReleasing) {
      devices_->Release(*task.pod);
    } else if (old_status == TaskStatus::kReleasing &&
               status != TaskStatus::kReleasing) {
      devices_->Unrelease(*task.pod);
    }
  }
  if (old_node != api::kNone) {
    api::NodeInfo& n = cluster_.nodes[old_node];
    n.Remove(task.request(), old_status, task.pod->host_ports,
             task.pod->csi_volumes);
    auto& on_node = n.tasks();
    on_node.erase(std::find(on_node.begin(), on_node.end(), t));
  }
  if (node != api::kNone) {
    api::NodeInfo& n = cluster_.nodes[node];
    n.Add(task.request(), status, task.pod->host_ports, task.pod->csi_volumes);
    n.tasks().push_back(t);
  }
  releasing_count_ += (status == api::TaskStatus::kReleasing) -
                      (old_status == api::TaskStatus::kReleasing);
  cluster_.jobs[task.job].Recount(old_status, status);
  task.status = status;
  task.node = node;
  bool held = api::HoldsShare(old_status), holds = api::HoldsShare(status);
  if (held == holds) return;
  HoldInQueues(task, holds ? +1 : -1);
  for (const auto& h : handlers_) {
    const auto& fn = holds ? h.on_allocate : h.on_deallocate;
    if (fn) fn(task);
  }
}

void Session::HoldForReplacement(api::TaskIndex t, api::NodeIndex node,
                                 int sign) {
  state_ = ++last_state_;
  const api::PodInfo& pod = *cluster_.tasks[t].pod;
  if (topology_->active()) topology_->Place(pod, node, sign, false);
  api::NodeInfo& n = cluster_.nodes[node];
  if (sign > 0) {
    n.Add(pod.request, api::TaskStatus::kPipelined, pod.host_ports,
          pod.csi_volumes);
  } else {
    n.Remove(pod.request, api::TaskStatus::kPipelined, pod.host_ports,
             pod.csi_volumes);
  }
}

const api::Resource* Session::PromisedToOthersSlow(
    const api::TaskInfo& t, const api::NodeInfo& n) const {
  auto& [job, sum] = promised_memo_[n.index()];
  if (job != t.job || sum.IsZero()) {
    job = t.job;
    sum.Clear();
    for (const HeldRoom& h : held_[n.index()]) {
      if (h.job != t.job) sum += h.room;
    }
  }
  return sum.IsZero() ? nullptr : &sum;
}

void Session::HoldInQueues(const api::TaskInfo& t, int sign) {
  int32_t q = cluster_.jobs[t.job].queue_index;
  for (int32_t at = q; at != api::kNone;
       at = cluster_.queues[at].parent_index) {
    if (sign > 0) {
      queue_held_[at] += t.counted();
    } else {
      queue_held_[at] -= t.counted();
    }
  }
}

}  // namespace shoal::framework
