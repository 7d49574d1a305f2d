#include "scheduler/kube/snapshot_writer.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "scheduler/kube/device_json.h"
#include "scheduler/kube/node_selector_json.h"
#include "scheduler/kube/objects.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

// An amount as a quantity that parses back to exactly it: cpu in milli
// ("500m", "2"), others with the largest exact binary suffix or plain.
std::string Quantity(api::ResourceId id, int64_t amount) {
  if (id == api::kCpu) {
    if (amount % 1000 == 0) return absl::StrCat(amount / 1000);
    return absl::StrCat(amount, "m");
  }
  static constexpr const char* kBinary[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  if (amount <= 0) return absl::StrCat(amount);
  int unit = -1;
  int64_t v = amount;
  while (unit < 5 && v % 1024 == 0) {
    v /= 1024;
    ++unit;
  }
  if (unit < 0) return absl::StrCat(amount);
  return absl::StrCat(v, kBinary[unit]);
}

// A ResourceList of the amounts that are not zero (`skip_pods`: without
// the pod slot, which the pod decoder adds itself).
json Resources(const api::Resource& r, bool skip_pods = false) {
  json out = json::object();
  for (size_t id = 0; id < r.size(); ++id) {
    auto rid = static_cast<api::ResourceId>(id);
    if (r.Get(rid) == 0 || (skip_pods && rid == api::kPods)) continue;
    out[std::string(api::ResourceName(rid))] = Quantity(rid, r.Get(rid));
  }
  return out;
}

// A queue's capability or deserved: every resource it bounds. A resource
// whose name was not known yet when the queue was read holds 0 (the
// decoder bounds only the names it knows), so it is written as 0.
json Limit(const api::Resource& r) {
  json out = json::object();
  for (int id = 0; id < api::ResourceNameCount(); ++id) {
    auto rid = static_cast<api::ResourceId>(id);
    if (r.Get(rid) == api::kUnlimited) continue;
    out[std::string(api::ResourceName(rid))] = Quantity(rid, r.Get(rid));
  }
  return out;
}

json StringMap(const std::vector<std::pair<std::string, std::string>>& pairs) {
  json out = json::object();
  for (const auto& [k, v] : pairs) out[k] = v;
  return out;
}

// metav1.Time, to the nanosecond when it has a fraction (RFC 3339 reads
// it back exactly).
std::string Time(absl::Time t) {
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E*SZ", t, absl::UTCTimeZone());
}

json Metadata(const std::string& name, const std::string& ns = "") {
  json meta = {{"name", name}};
  if (!ns.empty()) meta["namespace"] = ns;
  return meta;
}

json Object(const char* api_version, const char* kind, json metadata) {
  return {{"apiVersion", api_version},
          {"kind", kind},
          {"metadata", std::move(metadata)}};
}

const char* EffectName(api::TaintEffect e) {
  switch (e) {
    case api::TaintEffect::kNoSchedule:
      return "NoSchedule";
    case api::TaintEffect::kPreferNoSchedule:
      return "PreferNoSchedule";
    case api::TaintEffect::kNoExecute:
      return "NoExecute";
  }
  return "NoSchedule";
}

// A label selector as matchExpressions alone (matchLabels decode to In
// requirements, in order, ahead of the expressions).
json Selector(const api::LabelSelector& s) {
  json out = json::object();
  if (!s.requirements.empty())
    out["matchExpressions"] = Requirements(s.requirements);
  return out;
}

json Taints(const std::vector<api::Taint>& taints) {
  json out = json::array();
  for (const auto& t : taints) {
    json taint = {{"key", t.key}, {"effect", EffectName(t.effect)}};
    if (!t.value.empty()) taint["value"] = t.value;
    out.push_back(std::move(taint));
  }
  return out;
}

json EncodeNode(const api::NodeSpec& node) {
  json meta = Metadata(node.name);
  if (!node.labels.pairs().empty())
    meta["labels"] = StringMap(node.labels.pairs());
  json obj = Object("v1", "Node", std::move(meta));
  json spec = json::object();
  if (node.unschedulable) spec["unschedulable"] = true;
  if (!node.taints.empty()) spec["taints"] = Taints(node.taints);
  obj["spec"] = std::move(spec);
  obj["status"] = {
      {"allocatable", Resources(node.allocatable)},
      {"conditions",
       json::array(
           {{{"type", "Ready"}, {"status", node.ready ? "True" : "False"}}})}};
  return obj;
}

// nodeSelector, node affinity and tolerations into `spec`.
void EncodePlacement(const api::PlacementConstraints& c, json& spec) {
  if (!c.node_selector.pairs().empty())
    spec["nodeSelector"] = StringMap(c.node_selector.pairs());
  json node_affinity = json::object();
  if (c.required_terms.has_value()) {
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
        {"nodeSelectorTerms", Terms(*c.required_terms)}};
  }
  if (!c.preferred_terms.empty()) {
    json list = json::array();
    for (const auto& p : c.preferred_terms) {
      list.push_back({{"weight", p.weight}, {"preference", Term(p.term)}});
    }
    node_affinity["preferredDuringSchedulingIgnoredDuringExecution"] =
        std::move(list);
  }
  if (!node_affinity.empty()) spec["affinity"]["nodeAffinity"] = node_affinity;
  if (!c.tolerations.empty()) {
    json list = json::array();
    for (const auto& t : c.tolerations) {
      json tol = json::object();
      if (!t.key.empty()) tol["key"] = t.key;
      tol["operator"] =
          t.op == api::Toleration::Operator::kExists ? "Exists" : "Equal";
      if (!t.value.empty()) tol["value"] = t.value;
      if (t.effect.has_value()) tol["effect"] = EffectName(*t.effect);
      list.push_back(std::move(tol));
    }
    spec["tolerations"] = std::move(list);
  }
}

json AffinityTerm(const api::PodAffinityTerm& t) {
  json out = {{"topologyKey", t.topology_key}};
  if (!t.selector.nothing) out["labelSelector"] = Selector(t.selector);
  if (!t.namespaces.names.empty()) out["namespaces"] = t.namespaces.names;
  if (t.namespaces.selector.has_value())
    out["namespaceSelector"] = Selector(*t.namespaces.selector);
  return out;
}

json AffinityTerms(const std::vector<api::PodAffinityTerm>& terms,
                   bool preferred) {
  json out = json::array();
  for (const auto& t : terms) {
    if (preferred) {
      out.push_back(
          {{"weight", t.weight}, {"podAffinityTerm", AffinityTerm(t)}});
    } else {
      out.push_back(AffinityTerm(t));
    }
  }
  return out;
}

void EncodeInterPod(const api::InterPodRules& rules, json& spec) {
  struct Kind {
    const char* name;
    const std::vector<api::PodAffinityTerm>* required;
    const std::vector<api::PodAffinityTerm>* preferred;
  };
  for (const Kind& k : {Kind{"podAffinity", &rules.required_affinity,
                             &rules.preferred_affinity},
                        Kind{"podAntiAffinity", &rules.required_anti_affinity,
                             &rules.preferred_anti_affinity}}) {
    json kind = json::object();
    if (!k.required->empty()) {
      kind["requiredDuringSchedulingIgnoredDuringExecution"] =
          AffinityTerms(*k.required, false);
    }
    if (!k.preferred->empty()) {
      kind["preferredDuringSchedulingIgnoredDuringExecution"] =
          AffinityTerms(*k.preferred, true);
    }
    if (!kind.empty()) spec["affinity"][k.name] = std::move(kind);
  }
  if (!rules.spread.empty()) {
    json list = json::array();
    for (const auto& c : rules.spread) {
      json item = {
          {"maxSkew", c.max_skew},
          {"topologyKey", c.topology_key},
          {"whenUnsatisfiable",
           c.do_not_schedule ? "DoNotSchedule" : "ScheduleAnyway"},
          {"nodeAffinityPolicy", c.honor_node_affinity ? "Honor" : "Ignore"},
          {"nodeTaintsPolicy", c.honor_taints ? "Honor" : "Ignore"}};
      if (!c.selector.nothing) item["labelSelector"] = Selector(c.selector);
      if (c.do_not_schedule && c.min_domains != 1)
        item["minDomains"] = c.min_domains;
      list.push_back(std::move(item));
    }
    spec["topologySpreadConstraints"] = std::move(list);
  }
}

json Volumes(const api::PodInfo& pod) {
  json out = json::array();
  const std::string prefix = pod.name + "-";
  for (size_t i = 0; i < pod.volume_claims.size(); ++i) {
    const api::VolumeClaimRef& ref = pod.volume_claims[i];
    if (ref.ephemeral && ref.claim.size() > prefix.size() &&
        ref.claim.compare(0, prefix.size(), prefix) == 0) {
      out.push_back({{"name", ref.claim.substr(prefix.size())},
                     {"ephemeral", {{"volumeClaimTemplate", json::object()}}}});
    } else {
      out.push_back({{"name", absl::StrCat("claim-", i)},
                     {"persistentVolumeClaim", {{"claimName", ref.claim}}}});
    }
  }
  return out;
}

const char* PodPhase(api::TaskStatus s) {
  switch (s) {
    case api::TaskStatus::kSucceeded:
      return "Succeeded";
    case api::TaskStatus::kFailed:
      return "Failed";
    case api::TaskStatus::kRunning:
    case api::TaskStatus::kReleasing:
      return "Running";
    default:
      return "Pending";
  }
}

// A field Shoal does not implement ("spec.workloadRef") goes back as it
// came, so that the snapshot's pods and gangs wait for the same reason.
void WriteUnsupported(const std::string& field, const std::string& value,
                      json& spec) {
  if (field.empty()) return;
  std::string name = field.substr(field.find('.') + 1);
  json parsed = json::parse(value, nullptr, /*allow_exceptions=*/false);
  spec[name] = parsed.is_discarded() ? json::object() : std::move(parsed);
}

// The pod's containers. One, "main", holding all the pod requests, unless
// it asks for extended resources container by container (KEP-5004): the
// claim serving them has a request per container, named by its place.
// Then each such container is written at its place (initContainers,
// short-lived or sidecars, up to the last short-lived one; containers
// after), with its extended resources; places between hold a container
// asking nothing; "main" comes last with the rest of the pod's request,
// which kube-scheduler's sum-and-max gives back as it was.
struct Containers {
  json init = json::array();
  json apps = json::array();  // "main" last
};

Containers EncodeContainers(const api::PodInfo& pod) {
  Containers out;
  std::map<int32_t, std::vector<const api::PodInfo::ExtendedRequest*>> at;
  std::set<std::string> names;
  int32_t last_init = -1;
  for (const auto& e : pod.extended_requests) {
    at[e.index].push_back(&e);
    names.insert(e.container);
    if (e.short_lived) last_init = std::max(last_init, e.index);
  }
  auto unused = [&names](const std::string& base) {
    std::string name = base;
    for (int i = 1; names.count(name) > 0; ++i)
      name = absl::StrCat(base, "-", i);
    names.insert(name);
    return name;
  };
  api::Resource apps, sidecars, peak;  // of the extended resources
  const int32_t places = at.empty() ? 0 : at.rbegin()->first + 1;
  for (int32_t i = 0; i < places; ++i) {
    auto it = at.find(i);
    json c;
    api::Resource req;
    bool short_lived = it == at.end();
    if (it == at.end()) {
      c = {{"name", unused(absl::StrCat("container-", i))}};
    } else {
      c = {{"name", it->second.front()->container}};
      short_lived = it->second.front()->short_lived;
      for (const auto* e : it->second) {
        auto id = api::InternResourceName(e->resource);
        if (id.ok()) req.Set(*id, req.Get(*id) + e->count);
      }
      c["resources"]["requests"] = Resources(req);
    }
    if (i <= last_init) {
      if (short_lived) {
        peak.MaxWith(req + sidecars);
      } else {
        c["restartPolicy"] = "Always";
        sidecars += req;
        peak.MaxWith(sidecars);
      }
      out.init.push_back(std::move(c));
    } else {
      apps += req;
      out.apps.push_back(std::move(c));
    }
  }
  api::Resource counted = apps + sidecars;
  counted.MaxWith(peak);
  api::Resource rest = pod.request - counted;
  rest.MaxWith(api::Resource());
  json main = {{"name", unused("main")}};
  json requests = Resources(rest, /*skip_pods=*/true);
  if (!requests.empty()) main["resources"]["requests"] = requests;
  out.apps.push_back(std::move(main));
  return out;
}

// spec.resourceClaims of a pod or a PodGroup; returns what the
// resourceclaim controller recorded of them (status.resourceClaimStatuses).
json ResourceClaims(const std::vector<api::PodClaim>& list, json& spec) {
  json made = json::array();
  if (list.empty()) return made;
  json claims = json::array();
  for (const api::PodClaim& c : list) {
    if (c.template_name.empty()) {
      claims.push_back({{"name", c.name}, {"resourceClaimName", c.claim}});
      continue;
    }
    claims.push_back(
        {{"name", c.name}, {"resourceClaimTemplateName", c.template_name}});
    if (!c.claim.empty())
      made.push_back({{"name", c.name}, {"resourceClaimName", c.claim}});
  }
  spec["resourceClaims"] = std::move(claims);
  return made;
}

json EncodePod(const cache::CacheContents::Pod& entry) {
  const api::PodInfo& pod = *entry.pod;
  json meta = Metadata(pod.name, pod.ns);
  meta["uid"] = pod.uid;
  if (pod.created != absl::UnixEpoch())
    meta["creationTimestamp"] = Time(pod.created);
  if (!pod.labels.pairs().empty())
    meta["labels"] = StringMap(pod.labels.pairs());
  json annotations = json::object();
  // A Workload's gang is named by spec.workloadRef, not the annotation
  // (unless the pod names a PodGroup too).
  const bool in_workload =
      (!pod.workload_ref.name.empty() || pod.in_scheduling_group) &&
      pod.group_conflict.empty();
  if (!pod.group.empty() && !in_workload)
    annotations[kGroupAnnotation] = pod.group;
  if (!pod.role.empty()) annotations[kTaskSpecAnnotation] = pod.role;
  if (!pod.preemptable || pod.labels.Find(kPreemptableKey) != nullptr)
    annotations[kPreemptableKey] = pod.preemptable ? "true" : "false";
  if (!annotations.empty()) meta["annotations"] = std::move(annotations);

  const std::string node =
      entry.assumed_node.empty() ? pod.node_name : entry.assumed_node;
  api::TaskStatus status = pod.status;
  if (!entry.assumed_node.empty() && status == api::TaskStatus::kPending)
    status = api::TaskStatus::kBound;
  if (status == api::TaskStatus::kReleasing && !node.empty())
    meta["deletionTimestamp"] = Time(pod.created);

  json spec = {{"schedulerName", pod.scheduler_name}};
  if (!node.empty()) spec["nodeName"] = node;
  if (!pod.priority_class.empty())
    spec["priorityClassName"] = pod.priority_class;
  if (entry.has_priority) spec["priority"] = pod.priority;
  if (pod.preemption_policy_set) {
    spec["preemptionPolicy"] =
        pod.preempt_never ? "Never" : "PreemptLowerPriority";
  }
  if (!pod.scheduling_gates.empty()) {
    json gates = json::array();
    for (const auto& g : pod.scheduling_gates) gates.push_back({{"name", g}});
    spec["schedulingGates"] = std::move(gates);
  }
  if (pod.in_scheduling_group)
    spec["schedulingGroup"] = {{"podGroupName", pod.group}};
  if (!pod.workload_ref.name.empty()) {
    json ref = {{"name", pod.workload_ref.name},
                {"podGroup", pod.workload_ref.pod_group}};
    if (!pod.workload_ref.replica_key.empty())
      ref["podGroupReplicaKey"] = pod.workload_ref.replica_key;
    spec["workloadRef"] = std::move(ref);
  }
  WriteUnsupported(pod.unsupported_field, pod.unsupported_value, spec);
  Containers containers = EncodeContainers(pod);
  json& container = containers.apps.back();
  if (!pod.host_ports.empty()) {
    json ports = json::array();
    for (const auto& p : pod.host_ports) {
      json port = {{"containerPort", p.port},
                   {"hostPort", p.port},
                   {"protocol", p.protocol}};
      if (!p.ip.empty()) port["hostIP"] = p.ip;
      ports.push_back(std::move(port));
    }
    container["ports"] = std::move(ports);
  }
  if (!containers.init.empty())
    spec["initContainers"] = std::move(containers.init);
  spec["containers"] = std::move(containers.apps);
  if (!pod.volume_claims.empty()) spec["volumes"] = Volumes(pod);
  if (pod.placement != nullptr) EncodePlacement(*pod.placement, spec);
  if (pod.inter_pod != nullptr) EncodeInterPod(*pod.inter_pod, spec);

  json made = ResourceClaims(pod.resource_claims, spec);

  json obj = Object("v1", "Pod", std::move(meta));
  obj["spec"] = std::move(spec);
  obj["status"] = {{"phase", PodPhase(status)}};
  if (!made.empty()) obj["status"]["resourceClaimStatuses"] = std::move(made);
  if (!pod.extended_claim.empty()) {
    json mappings = json::array();
    for (const api::ContainerRequestMapping& m : pod.extended_mappings) {
      mappings.push_back({{"containerName", m.container},
                          {"resourceName", m.resource},
                          {"requestName", m.request}});
    }
    obj["status"]["extendedResourceClaimStatus"] = {
        {"resourceClaimName", pod.extended_claim},
        {"requestMappings", std::move(mappings)}};
  }
  return obj;
}

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

// A scheduling.k8s.io/v1alpha2 PodGroup (Kubernetes' own); a basic one
// goes back as a gang of one, which Shoal reads the same.
json EncodeKubePodGroup(const api::JobInfo& job) {
  json meta =
      KubeGangMetadata(job.name, job.ns, job.uid, job.created, job.queue,
                       job.resize_cost_seconds, job.throughput, job.progress);
  json obj = Object("scheduling.k8s.io/v1alpha2", "PodGroup", std::move(meta));
  json spec = {
      {"schedulingPolicy", {{"gang", {{"minCount", job.min_member}}}}}};
  if (!job.priority_class.empty())
    spec["priorityClassName"] = job.priority_class;
  if (job.disrupted_whole) spec["disruptionMode"] = "PodGroup";
  json made = ResourceClaims(job.group_claims, spec);
  WriteUnsupported(job.unsupported_field, job.unsupported_value, spec);
  obj["spec"] = std::move(spec);
  if (!made.empty()) obj["status"]["resourceClaimStatuses"] = std::move(made);
  return obj;
}

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

json EncodeNamespace(const std::string& name, const api::Labels& labels) {
  json meta = Metadata(name);
  if (!labels.pairs().empty()) meta["labels"] = StringMap(labels.pairs());
  return Object("v1", "Namespace", std::move(meta));
}

json EncodePriorityClass(const api::PriorityClass& pc) {
  json obj = Object("scheduling.k8s.io/v1", "PriorityClass", Metadata(pc.name));
  obj["value"] = pc.value;
  if (pc.global_default) obj["globalDefault"] = true;
  obj["preemptionPolicy"] = pc.preempt_never ? "Never" : "PreemptLowerPriority";
  return obj;
}

json EncodeClaim(const api::PersistentVolumeClaim& c) {
  json meta = Metadata(c.name, c.ns);
  if (c.deleting) meta["deletionTimestamp"] = Time(absl::UnixEpoch());
  if (!c.owner_uid.empty()) {
    meta["ownerReferences"] =
        json::array({{{"controller", true}, {"uid", c.owner_uid}}});
  }
  // Bound needs a volume name and either phase Bound or the PV
  // controller's annotation (which keeps a Lost claim bound).
  const char* phase = c.lost ? "Lost" : c.bound ? "Bound" : "Pending";
  if (c.bound && c.lost)
    meta["annotations"] = {{"pv.kubernetes.io/bind-completed", "yes"}};
  json obj = Object("v1", "PersistentVolumeClaim", std::move(meta));
  json spec = json::object();
  if (!c.volume_name.empty()) spec["volumeName"] = c.volume_name;
  if (!c.storage_class.empty()) spec["storageClassName"] = c.storage_class;
  obj["spec"] = std::move(spec);
  obj["status"] = {{"phase", phase}};
  return obj;
}

json EncodeVolume(const api::PersistentVolume& pv) {
  json meta = Metadata(pv.name);
  if (!pv.labels.pairs().empty()) meta["labels"] = StringMap(pv.labels.pairs());
  json obj = Object("v1", "PersistentVolume", std::move(meta));
  json spec = json::object();
  if (!pv.storage_class.empty()) spec["storageClassName"] = pv.storage_class;
  if (pv.node_affinity.has_value()) {
    spec["nodeAffinity"] = {
        {"required", {{"nodeSelectorTerms", Terms(*pv.node_affinity)}}}};
  }
  if (!pv.claim_ns.empty() || !pv.claim_name.empty()) {
    json ref = json::object();
    if (!pv.claim_ns.empty()) ref["namespace"] = pv.claim_ns;
    if (!pv.claim_name.empty()) ref["name"] = pv.claim_name;
    spec["claimRef"] = std::move(ref);
  }
  if (!pv.csi_driver.empty() || !pv.csi_handle.empty()) {
    json csi = json::object();
    if (!pv.csi_driver.empty()) csi["driver"] = pv.csi_driver;
    if (!pv.csi_handle.empty()) csi["volumeHandle"] = pv.csi_handle;
    spec["csi"] = std::move(csi);
  }
  obj["spec"] = std::move(spec);
  return obj;
}

json EncodeStorageClass(const api::StorageClass& sc) {
  json obj = Object("storage.k8s.io/v1", "StorageClass", Metadata(sc.name));
  obj["volumeBindingMode"] =
      sc.binding_mode == api::VolumeBindingMode::kWaitForFirstConsumer
          ? "WaitForFirstConsumer"
          : "Immediate";
  return obj;
}

json EncodeCsiNode(const api::CsiNode& node) {
  json obj = Object("storage.k8s.io/v1", "CSINode", Metadata(node.name));
  json drivers = json::array();
  for (const auto& l : node.limits) {
    drivers.push_back(
        {{"name", l.driver}, {"allocatable", {{"count", l.count}}}});
  }
  obj["spec"] = {{"drivers", std::move(drivers)}};
  return obj;
}

}  // namespace

json EncodeSnapshotList(const cache::CacheContents& c) {
  json items = json::array();
  // Kinds that others refer to first, as kubectl would list them.
  for (const auto& [name, labels] : c.namespaces)
    items.push_back(EncodeNamespace(name, labels));
  for (const auto& pc : c.priority_classes)
    items.push_back(EncodePriorityClass(pc));
  for (const auto& sc : c.storage_classes)
    items.push_back(EncodeStorageClass(sc));
  for (const auto& q : c.queues) items.push_back(EncodeQueue(q));
  for (const auto& n : c.nodes) items.push_back(EncodeNode(*n));
  for (const auto& n : c.csi_nodes) items.push_back(EncodeCsiNode(n));
  for (const auto& h : c.hypernodes) items.push_back(EncodeHyperNode(h));
  for (const auto& w : c.workloads) items.push_back(EncodeWorkload(w));
  for (const auto& s : c.resource_slices) items.push_back(ResourceSliceJson(s));
  for (const auto& d : c.device_classes) items.push_back(DeviceClassJson(d));
  for (const auto& r : c.device_taint_rules)
    items.push_back(DeviceTaintRuleJson(r));
  for (const auto& r : c.resource_claims) items.push_back(ResourceClaimJson(r));
  for (const auto& pv : c.volumes) items.push_back(EncodeVolume(pv));
  for (const auto& claim : c.claims) items.push_back(EncodeClaim(claim));
  for (const auto& g : c.pod_groups) items.push_back(EncodePodGroup(g));
  for (const auto& p : c.pods) items.push_back(EncodePod(p));
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}};
}

std::string WriteSnapshotList(const cache::CacheContents& contents) {
  return EncodeSnapshotList(contents).dump(2, ' ', false,
                                           json::error_handler_t::replace) +
         "\n";
}

std::string WriteSnapshotList(const cache::Cache& cache) {
  return WriteSnapshotList(cache.Export());
}

}  // namespace shoal::kube
