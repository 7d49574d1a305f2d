// The scheduling objects of a snapshot: PodGroups of Volcano,
// scheduler-plugins and Kubernetes, Queues, Workloads and HyperNodes,
// written as their decoders read them (snapshot_json.h).
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/snapshot/snapshot_json.h"

namespace shoal::kube::snapshot_json {
namespace {

json NetworkTopology(const api::NetworkConstraint& c) {
  json nt = {{"mode",
              c.mode == api::NetworkConstraint::Mode::kHard ? "hard" : "soft"}};
  if (!c.highest_tier_name.empty()) {
    nt["highestTierName"] = c.highest_tier_name;
  } else if (c.highest_tier > 0) {
    nt["highestTierAllowed"] = c.highest_tier;
  }
  return nt;
}

// A number as short as reads back the same.
std::string ShortNumber(double value) {
  std::string v = absl::StrFormat("%.15g", value);
  if (std::strtod(v.c_str(), nullptr) != value)
    v = absl::StrFormat("%.17g", value);
  return v;
}

// A scaling curve as kThroughputAnnotation says it, "1=1,2=1.9".
std::string Throughput(const std::vector<std::pair<int32_t, double>>& curve) {
  std::string out;
  for (const auto& [pods, value] : curve)
    absl::StrAppend(&out, out.empty() ? "" : ",", pods, "=",
                    ShortNumber(value));
  return out;
}

// Shoal's own annotations of a gang: its resize cost, scaling curve and
// progress.
void ShoalAnnotations(int32_t resize_cost_seconds,
                      const std::vector<std::pair<int32_t, double>>& curve,
                      double progress, json& annotations) {
  if (resize_cost_seconds >= 0)
    annotations[kResizeCostAnnotation] = absl::StrCat(resize_cost_seconds);
  if (!curve.empty()) annotations[kThroughputAnnotation] = Throughput(curve);
  if (progress >= 0) annotations[kProgressAnnotation] = ShortNumber(progress);
}

// The metadata of a Workload or PodGroup of scheduling.k8s.io: the queue,
// which their spec cannot name, the resize cost and the scaling curve, as
// the annotations Shoal reads them from.
json KubeGangMetadata(const std::string& name, const std::string& ns,
                      const std::string& uid, absl::Time created,
                      const std::string& queue, int32_t resize_cost_seconds,
                      const std::vector<std::pair<int32_t, double>>& curve,
                      double progress) {
  json meta = Metadata(name, ns);
  meta["uid"] = uid;
  if (created != absl::UnixEpoch()) meta["creationTimestamp"] = Time(created);
  json annotations = json::object();
  if (queue != "default") annotations[kQueueNameAnnotation] = queue;
  ShoalAnnotations(resize_cost_seconds, curve, progress, annotations);
  if (!annotations.empty()) meta["annotations"] = std::move(annotations);
  return meta;
}

// spec.schedulingConstraints of a Kubernetes group, into `spec`.
void SchedulingConstraints(const api::NetworkConstraint& c, json& spec) {
  if (!c.topology_key) return;
  spec["schedulingConstraints"] = {
      {"topology", json::array({{{"key", c.highest_tier_name}}})}};
}

// A PodGroup of scheduling.k8s.io (Kubernetes' own): v1alpha2 as 1.36
// serves it, or v1beta1 when it carries what only 1.37 has (a parent, a
// topology, spec.priority, spec.preemptionPolicy); a basic one goes back
// as a gang of one, which Shoal reads the same.
json EncodeKubePodGroup(const api::JobInfo& job) {
  json meta =
      KubeGangMetadata(job.name, job.ns, job.uid, job.created, job.queue,
                       job.resize_cost_seconds, job.throughput, job.progress);
  const bool beta = !job.parent_group.empty() || job.network.topology_key ||
                    job.priority_stated || !job.preemption_policy.empty();
  json obj =
      Object(beta ? "scheduling.k8s.io/v1beta1" : "scheduling.k8s.io/v1alpha2",
             "PodGroup", std::move(meta));
  json spec = {
      {"schedulingPolicy", {{"gang", {{"minCount", job.min_member}}}}}};
  if (!job.priority_class.empty())
    spec["priorityClassName"] = job.priority_class;
  if (job.priority_stated) spec["priority"] = job.priority;
  if (!job.preemption_policy.empty())
    spec["preemptionPolicy"] = job.preemption_policy;
  if (!job.parent_group.empty())
    spec["parentCompositePodGroupName"] = job.parent_group;
  SchedulingConstraints(job.network, spec);
  if (job.disrupted_whole) {
    spec["disruptionMode"] =
        beta ? json{{"all", json::object()}} : json("PodGroup");
  }
  json made = ResourceClaims(job.group_claims, spec);
  WriteUnsupported(job.unsupported_field, job.unsupported_value, spec);
  obj["spec"] = std::move(spec);
  if (!made.empty()) obj["status"]["resourceClaimStatuses"] = std::move(made);
  return obj;
}

}  // namespace

json EncodePodGroup(const api::JobInfo& job) {
  if (job.source == api::GroupSource::kKubePodGroup)
    return EncodeKubePodGroup(job);
  bool volcano = job.source != api::GroupSource::kSchedulerPlugins;
  json meta = Metadata(job.name, job.ns);
  meta["uid"] = job.uid;
  if (job.created != absl::UnixEpoch())
    meta["creationTimestamp"] = Time(job.created);
  json annotations = json::object();
  ShoalAnnotations(job.resize_cost_seconds, job.throughput, job.progress,
                   annotations);
  if (!annotations.empty()) meta["annotations"] = std::move(annotations);
  json obj = Object(volcano ? "scheduling.volcano.sh/v1beta1"
                            : "scheduling.x-k8s.io/v1alpha1",
                    "PodGroup", std::move(meta));
  json spec = {{"minMember", job.min_member}};
  if (!job.min_task_member.empty()) {
    json mtm = json::object();
    for (const auto& [role, n] : job.min_task_member) mtm[role] = n;
    spec["minTaskMember"] = std::move(mtm);
  }
  if (job.min_resources.has_value())
    spec["minResources"] = Resources(*job.min_resources);
  if (volcano) spec["queue"] = job.queue;
  if (!job.priority_class.empty())
    spec["priorityClassName"] = job.priority_class;
  if (job.network.mode != api::NetworkConstraint::Mode::kNone)
    spec["networkTopology"] = NetworkTopology(job.network);
  if (!job.sub_group_policies.empty()) {
    json list = json::array();
    for (const api::SubGroupPolicy& p : job.sub_group_policies) {
      json item = {{"name", p.name},
                   {"subGroupSize", p.size},
                   {"minSubGroups", p.min_groups}};
      if (p.selector.has_value()) item["labelSelector"] = Selector(*p.selector);
      if (!p.match_label_keys.empty())
        item["matchLabelKeys"] = p.match_label_keys;
      if (p.network.mode != api::NetworkConstraint::Mode::kNone)
        item["networkTopology"] = NetworkTopology(p.network);
      list.push_back(std::move(item));
    }
    spec["subGroupPolicy"] = std::move(list);
  }
  WriteUnsupported(job.unsupported_field, job.unsupported_value, spec);
  obj["spec"] = std::move(spec);
  obj["status"] = {{"phase", api::PodGroupPhaseName(job.phase)}};
  return obj;
}

json EncodeQueue(const api::QueueInfo& q) {
  json obj = Object("scheduling.volcano.sh/v1beta1", "Queue", Metadata(q.name));
  json spec = {{"weight", q.weight}, {"reclaimable", q.reclaimable}};
  if (q.priority != 0) spec["priority"] = q.priority;
  if (!q.parent.empty()) spec["parent"] = q.parent;
  if (q.capability.has_value()) spec["capability"] = Limit(*q.capability);
  if (q.deserved.has_value()) spec["deserved"] = Limit(*q.deserved);
  if (!q.guarantee.IsZero())
    spec["guarantee"] = {{"resource", Resources(q.guarantee)}};
  obj["spec"] = std::move(spec);
  obj["status"] = {{"state", q.open ? "Open" : "Closed"}};
  return obj;
}

json EncodeWorkload(const api::WorkloadSpec& w) {
  json meta = KubeGangMetadata(w.name, w.ns, w.uid, w.created, w.queue,
                               w.resize_cost_seconds, w.throughput, w.progress);
  json obj = Object(w.api_version.empty() ? "scheduling.k8s.io/v1alpha1"
                                          : w.api_version.c_str(),
                    "Workload", std::move(meta));
  json groups = json::array();
  for (const api::WorkloadPodGroup& g : w.pod_groups) {
    json policy = g.gang ? json{{"gang", {{"minCount", g.min_count}}}}
                         : json{{"basic", json::object()}};
    groups.push_back({{"name", g.name}, {"policy", std::move(policy)}});
  }
  obj["spec"] = {{"podGroups", std::move(groups)}};
  return obj;
}

json EncodeCompositePodGroup(const api::CompositePodGroupSpec& g) {
  json meta =
      KubeGangMetadata(g.name, g.ns, g.uid, g.created, g.queue, -1, {}, -1);
  json obj = Object(g.api_version.empty() ? "scheduling.k8s.io/v1alpha3"
                                          : g.api_version.c_str(),
                    "CompositePodGroup", std::move(meta));
  json spec = {{"schedulingPolicy",
                g.gang ? json{{"gang", {{"minGroupCount", g.min_group_count}}}}
                       : json{{"basic", json::object()}}}};
  if (!g.parent.empty()) spec["parentCompositePodGroupName"] = g.parent;
  SchedulingConstraints(g.network, spec);
  if (!g.priority_class.empty()) spec["priorityClassName"] = g.priority_class;
  if (g.priority.has_value()) spec["priority"] = *g.priority;
  if (!g.preemption_policy.empty())
    spec["preemptionPolicy"] = g.preemption_policy;
  if (g.disrupted_whole) spec["disruptionMode"] = {{"all", json::object()}};
  obj["spec"] = std::move(spec);
  return obj;
}

json EncodeHyperNode(const api::HyperNodeSpec& h) {
  json obj =
      Object("topology.volcano.sh/v1alpha1", "HyperNode", Metadata(h.name));
  json spec = {{"tier", h.tier}};
  if (!h.tier_name.empty()) spec["tierName"] = h.tier_name;
  json members = json::array();
  for (const api::HyperNodeMember& m : h.members) {
    json selector;
    switch (m.match) {
      case api::HyperNodeMember::Match::kExact:
        selector["exactMatch"] = {{"name", m.value}};
        break;
      case api::HyperNodeMember::Match::kRegex:
        selector["regexMatch"] = {{"pattern", m.value}};
        break;
      case api::HyperNodeMember::Match::kLabels:
        selector["labelMatch"] = Selector(m.labels);
        break;
    }
    members.push_back(
        {{"type",
          m.type == api::HyperNodeMember::Type::kNode ? "Node" : "HyperNode"},
         {"selector", std::move(selector)}});
  }
  spec["members"] = std::move(members);
  obj["spec"] = std::move(spec);
  return obj;
}

}  // namespace shoal::kube::snapshot_json
