#include "scheduler/kube/snapshot/snapshot_writer.h"

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
#include "scheduler/kube/decode/device_json.h"
#include "scheduler/kube/decode/node_selector_json.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/snapshot/snapshot_json.h"

namespace shoal::kube {
namespace {

using nlohmann::json;
// The pieces and the scheduling objects' encoders (snapshot_json.h).
using namespace snapshot_json;  // NOLINT(build/namespaces)

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
  for (const auto& g : c.composite_pod_groups)
    items.push_back(EncodeCompositePodGroup(g));
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
