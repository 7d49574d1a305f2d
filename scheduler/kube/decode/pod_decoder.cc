// Pods: what they request, where they may run, their group and priority,
// and their state. kPodSpecFields lists every field of the spec with what
// Shoal does with it (scheduling_fields.h).
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "scheduler/api/quantity.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/pod_placement.h"
#include "scheduler/kube/decode/pod_resource_claims.h"
#include "scheduler/kube/decode/reader.h"
#include "scheduler/kube/decode/volumes.h"

namespace shoal::kube {

namespace {

// PodSpec's fields (Kubernetes 1.35) and what each does to placement.
// Pods come from the API server, which refuses a field it does not
// serve; one this list lacks is newer than Shoal, and warned about.
const SchedulingFields kPodSpecFields = {
    "pod",
    {
        // Requests, and where the pod may go.
        {"containers", FieldUse::kHonoured},
        {"initContainers", FieldUse::kHonoured},
        {"overhead", FieldUse::kHonoured},
        {"nodeName", FieldUse::kHonoured},
        {"nodeSelector", FieldUse::kHonoured},
        {"affinity", FieldUse::kHonoured},
        {"tolerations", FieldUse::kHonoured},
        {"topologySpreadConstraints", FieldUse::kHonoured},
        {"hostNetwork", FieldUse::kHonoured},  // its ports become host ports
        {"volumes", FieldUse::kHonoured},
        {"schedulingGates", FieldUse::kHonoured},
        {"schedulerName", FieldUse::kHonoured},
        {"priorityClassName", FieldUse::kHonoured},
        {"priority", FieldUse::kHonoured},
        {"preemptionPolicy", FieldUse::kHonoured},
        // Dynamic Resource Allocation: devices the scheduler must pick.
        {"resourceClaims", FieldUse::kHonoured},
        // KEP-4671: the pod belongs to a Workload's gang (workloadRef in
        // Kubernetes 1.35; schedulingGroup, naming a scheduling.k8s.io
        // PodGroup object, from 1.36).
        {"workloadRef", FieldUse::kHonoured},
        {"schedulingGroup", FieldUse::kHonoured},
        // KEP-2837: pod-level requests replace the containers' sum.
        {"resources", FieldUse::kNotImplemented},
        // Not read by kube-scheduler either. A RuntimeClass's overhead and
        // node selector are merged into the pod by admission.
        {"ephemeralContainers", FieldUse::kNoEffect},
        {"runtimeClassName", FieldUse::kNoEffect},
        {"restartPolicy", FieldUse::kNoEffect},
        {"terminationGracePeriodSeconds", FieldUse::kNoEffect},
        {"activeDeadlineSeconds", FieldUse::kNoEffect},
        {"dnsPolicy", FieldUse::kNoEffect},
        {"dnsConfig", FieldUse::kNoEffect},
        {"serviceAccountName", FieldUse::kNoEffect},
        {"serviceAccount", FieldUse::kNoEffect},
        {"automountServiceAccountToken", FieldUse::kNoEffect},
        {"hostPID", FieldUse::kNoEffect},
        {"hostIPC", FieldUse::kNoEffect},
        {"hostUsers", FieldUse::kNoEffect},
        {"shareProcessNamespace", FieldUse::kNoEffect},
        {"securityContext", FieldUse::kNoEffect},
        {"imagePullSecrets", FieldUse::kNoEffect},
        {"hostname", FieldUse::kNoEffect},
        {"hostnameOverride", FieldUse::kNoEffect},
        {"subdomain", FieldUse::kNoEffect},
        {"setHostnameAsFQDN", FieldUse::kNoEffect},
        {"hostAliases", FieldUse::kNoEffect},
        {"readinessGates", FieldUse::kNoEffect},
        {"enableServiceLinks", FieldUse::kNoEffect},
        {"os", FieldUse::kNoEffect},
    }};

// requests, with limits standing in for requests that are not given (the
// API server's defaulting).
absl::StatusOr<api::Resource> ContainerRequest(const Reader& r, const json& c,
                                               const std::string& path) {
  const json* res = Reader::Get(c, "resources");
  // Made in place (see Reader::Resources).
  if (res == nullptr) return absl::StatusOr<api::Resource>(absl::in_place);
  SHOAL_ASSIGN_OR_RETURN(requests,
                         r.WorkloadResources(Reader::Get(*res, "requests"),
                                             path + ".resources.requests"));
  SHOAL_ASSIGN_OR_RETURN(limits,
                         r.WorkloadResources(Reader::Get(*res, "limits"),
                                             path + ".resources.limits"));
  for (size_t id = 0; id < limits.size(); ++id) {
    auto rid = static_cast<api::ResourceId>(id);
    const json* req = Reader::Get(*res, "requests");
    bool given =
        req != nullptr && req->contains(std::string(api::ResourceName(rid)));
    if (!given && limits.Get(rid) > 0) requests.Set(rid, limits.Get(rid));
  }
  return requests;
}

// What kube-scheduler counts for a pod: the larger of (app containers +
// sidecars) and each init container's peak (itself plus the sidecars
// started before it), plus overhead, plus one pod slot.
absl::StatusOr<api::Resource> PodRequest(const Reader& r, const json& spec) {
  api::Resource containers;
  const json* list = Reader::Get(spec, "containers");
  if (list == nullptr || !list->is_array() || list->empty()) {
    return r.Error("spec.containers", "must list at least one container");
  }
  for (size_t i = 0; i < list->size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(
        req, ContainerRequest(r, (*list)[i],
                              absl::StrCat("spec.containers[", i, "]")));
    containers += req;
  }
  api::Resource sidecars, init_peak;
  if (const json* inits = Reader::Get(spec, "initContainers")) {
    if (!inits->is_array())
      return r.Error("spec.initContainers", "must be a list");
    for (size_t i = 0; i < inits->size(); ++i) {
      std::string path = absl::StrCat("spec.initContainers[", i, "]");
      SHOAL_ASSIGN_OR_RETURN(req, ContainerRequest(r, (*inits)[i], path));
      SHOAL_ASSIGN_OR_RETURN(policy, r.String((*inits)[i], "restartPolicy",
                                              path + ".restartPolicy"));
      if (policy == "Always") {
        sidecars += req;
        init_peak.MaxWith(sidecars);
      } else {
        init_peak.MaxWith(req + sidecars);
      }
    }
  }
  api::Resource total = containers + sidecars;
  total.MaxWith(init_peak);
  SHOAL_ASSIGN_OR_RETURN(
      overhead,
      r.WorkloadResources(Reader::Get(spec, "overhead"), "spec.overhead"));
  total += overhead;
  total.Set(api::kPods, 1);
  return total;
}
// The host ports the pod's containers bind, sidecars (init containers with
// restartPolicy: Always) included; an ordinary init container has exited
// before the pod's containers start, so kube-scheduler does not count its
// ports. hostPort where given; with spec.hostNetwork, every container
// port (the API server defaults hostPort to it).
absl::StatusOr<std::vector<api::HostPort>> HostPorts(const Reader& r,
                                                     const json& spec) {
  std::vector<api::HostPort> out;
  SHOAL_ASSIGN_OR_RETURN(
      host_network, r.Bool(spec, "hostNetwork", "spec.hostNetwork", false));
  for (const char* list : {"initContainers", "containers"}) {
    const json* containers = Reader::Get(spec, list);
    if (containers == nullptr || !containers->is_array()) continue;
    for (size_t i = 0; i < containers->size(); ++i) {
      const json* ports = Reader::Get((*containers)[i], "ports");
      if (ports == nullptr) continue;
      if (std::string(list) == "initContainers" &&
          StringMember((*containers)[i], "restartPolicy") != "Always") {
        continue;
      }
      const std::string path = absl::StrCat("spec.", list, "[", i, "].ports");
      if (!ports->is_array()) return r.Error(path, "must be a list");
      for (size_t j = 0; j < ports->size(); ++j) {
        const json& p = (*ports)[j];
        const std::string at = absl::StrCat(path, "[", j, "]");
        SHOAL_ASSIGN_OR_RETURN(host_port,
                               r.Int(p, "hostPort", at + ".hostPort", 0));
        SHOAL_ASSIGN_OR_RETURN(container_port, r.Int(p, "containerPort",
                                                     at + ".containerPort", 0));
        if (host_port == 0 && host_network) host_port = container_port;
        if (host_port == 0) continue;
        if (host_port < 0 || host_port > 65535) {
          return r.Error(at + ".hostPort",
                         absl::StrCat("must be 1 to 65535, got ", host_port));
        }
        api::HostPort hp;
        hp.port = static_cast<int32_t>(host_port);
        SHOAL_ASSIGN_OR_RETURN(
            protocol, r.String(p, "protocol", at + ".protocol", "TCP"));
        SHOAL_ASSIGN_OR_RETURN(ip, r.String(p, "hostIP", at + ".hostIP"));
        hp.protocol = protocol;
        hp.ip = ip;
        out.push_back(std::move(hp));
      }
    }
  }
  return out;
}

// The prefix of the extended resource names a DeviceClass serves without
// naming one (KEP-5004): deviceclass.resource.kubernetes.io/<class>.
constexpr absl::string_view kDeviceClassResourcePrefix =
    "deviceclass.resource.kubernetes.io/";

// Kubernetes' extended resource names (v1helper.IsExtendedResourceName),
// and the names DeviceClasses serve implicitly: domain-qualified, outside
// kubernetes.io/ and *.kubernetes.io/, not ResourceQuota's spellings.
bool IsExtendedResourceName(absl::string_view name) {
  if (absl::StartsWith(name, kDeviceClassResourcePrefix)) {
    return name.size() > kDeviceClassResourcePrefix.size();
  }
  // Quota's spellings, not a container's.
  if (absl::StartsWith(name, "requests.") ||
      absl::StartsWith(name, "limits.") || absl::StartsWith(name, "count/")) {
    return false;
  }
  size_t slash = name.find('/');
  if (slash == absl::string_view::npos || slash == 0 ||
      slash + 1 == name.size()) {
    return false;  // cpu, memory, hugepages-2Mi, ...: native names
  }
  // kubernetes.io/ and *.kubernetes.io/ are Kubernetes' own (native).
  return !absl::StrContains(name, "kubernetes.io/");
}

// Each container's extended resources as whole units (KEP-5004), init
// containers first: requests after the API server's defaulting (a limit
// stands in for a request that is not given), each with its position
// among the container's sorted request names, which names the request
// of the claim that serves it ("container-<index>-request-<name_index>").
absl::StatusOr<std::vector<api::PodInfo::ExtendedRequest>> ExtendedRequests(
    const Reader& r, const json& spec) {
  std::vector<api::PodInfo::ExtendedRequest> out;
  int32_t index = 0;
  for (const char* list : {"initContainers", "containers"}) {
    const json* containers = Reader::Get(spec, list);
    if (containers == nullptr || !containers->is_array()) continue;
    const bool init = std::string(list) == "initContainers";
    for (size_t i = 0; i < containers->size(); ++i, ++index) {
      const json& c = (*containers)[i];
      const json* res = Reader::Get(c, "resources");
      if (res == nullptr || !res->is_object()) continue;
      // Sorted by name, as strings: limits first, requests over them.
      std::map<std::string, json> requests;
      for (const char* kind : {"limits", "requests"}) {
        const json* m = Reader::Get(*res, kind);
        if (m == nullptr || !m->is_object()) continue;
        for (const auto& [name, value] : m->items()) requests[name] = value;
      }
      const std::string path = absl::StrCat("spec.", list, "[", i, "]");
      int32_t name_index = 0;
      for (const auto& [name, value] : requests) {
        const int32_t at = name_index++;
        if (!IsExtendedResourceName(name)) continue;
        std::string text =
            value.is_string() ? value.get<std::string>() : value.dump();
        // Where it came from, for errors: requests, or limits standing in.
        const json* given = Reader::Get(*res, "requests");
        const bool requested =
            given != nullptr && given->is_object() && given->contains(name);
        const std::string field = absl::StrCat(
            path, ".resources.", requested ? "requests" : "limits", ".", name);
        auto milli = api::ParseQuantity(text, api::QuantityScale::kMilli);
        if (!milli.ok()) return r.Error(field, milli.status().message());
        if (*milli <= 0) continue;
        if (*milli % 1000 != 0) {
          return r.Error(field,
                         absl::StrCat("must be a whole number for an extended "
                                      "resource, got \"",
                                      text, "\""));
        }
        api::PodInfo::ExtendedRequest e;
        SHOAL_ASSIGN_OR_RETURN(cname, r.String(c, "name", path + ".name"));
        e.container = cname;
        e.index = index;
        e.name_index = at;
        if (init) {
          SHOAL_ASSIGN_OR_RETURN(
              policy, r.String(c, "restartPolicy", path + ".restartPolicy"));
          e.short_lived = policy != "Always";
        }
        e.resource = name;
        e.count = *milli / 1000;
        out.push_back(std::move(e));
      }
    }
  }
  return out;
}

// status.extendedResourceClaimStatus: the claim a scheduler made for the
// pod's extended resources, and which of its requests serves which
// container's resource.
absl::Status ExtendedClaimStatus(const Reader& r, const json& status,
                                 api::PodInfo& pod) {
  const json* s = Reader::Get(status, "extendedResourceClaimStatus");
  if (s == nullptr) return absl::OkStatus();
  const std::string path = "status.extendedResourceClaimStatus";
  if (!s->is_object()) {
    return r.Error(path, absl::StrCat("must be an object, got ", s->dump()));
  }
  SHOAL_ASSIGN_OR_RETURN(
      claim, r.String(*s, "resourceClaimName", path + ".resourceClaimName"));
  if (claim.empty()) return r.Error(path + ".resourceClaimName", "must be set");
  std::vector<api::ContainerRequestMapping> mappings;
  if (const json* list = Reader::Get(*s, "requestMappings")) {
    if (!list->is_array()) {
      return r.Error(path + ".requestMappings",
                     absl::StrCat("must be a list, got ", list->dump()));
    }
    for (size_t i = 0; i < list->size(); ++i) {
      const json& m = (*list)[i];
      const std::string at = absl::StrCat(path, ".requestMappings[", i, "]");
      if (!m.is_object()) {
        return r.Error(at, absl::StrCat("must be an object, got ", m.dump()));
      }
      api::ContainerRequestMapping e;
      for (auto [key, field] :
           {std::pair<const char*, std::string*>{"containerName", &e.container},
            {"resourceName", &e.resource},
            {"requestName", &e.request}}) {
        SHOAL_ASSIGN_OR_RETURN(value, r.String(m, key, at + "." + key));
        if (value.empty()) return r.Error(at + "." + key, "must be set");
        *field = value;
      }
      mappings.push_back(std::move(e));
    }
  }
  pod.extended_claim = claim;
  pod.extended_mappings = std::move(mappings);
  return absl::OkStatus();
}

// spec.schedulingGates[].name.
absl::StatusOr<std::vector<std::string>> SchedulingGates(const Reader& r,
                                                         const json& spec) {
  std::vector<std::string> names;
  const json* gates = Reader::Get(spec, "schedulingGates");
  if (gates == nullptr) return names;
  if (!gates->is_array())
    return r.Error("spec.schedulingGates", "must be a list");
  for (size_t i = 0; i < gates->size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(
        name, r.String((*gates)[i], "name",
                       absl::StrCat("spec.schedulingGates[", i, "].name")));
    names.push_back(name);
  }
  return names;
}
// volcano.sh/preemptable, annotation first, then label, as Volcano reads
// it: unmarked pods may be evicted; a value that is not a boolean keeps
// the pod safe (not preemptable), as in Volcano.
bool Preemptable(
    const std::vector<std::pair<std::string, std::string>>& annotations,
    const std::vector<std::pair<std::string, std::string>>& labels) {
  for (const auto* list : {&annotations, &labels}) {
    for (const auto& [k, v] : *list) {
      if (k != kPreemptableKey) continue;
      bool value = false;
      return absl::SimpleAtob(v, &value) && value;
    }
  }
  return true;
}
// spec.workloadRef: the Workload (same namespace), its podGroup and, for
// a podGroup replicated into independent gangs, the replica's key.
absl::StatusOr<api::WorkloadRef> WorkloadRefAt(const Reader& r,
                                               const json& ref) {
  if (!ref.is_object()) return r.Error("spec.workloadRef", "must be an object");
  api::WorkloadRef out;
  SHOAL_ASSIGN_OR_RETURN(name, r.String(ref, "name", "spec.workloadRef.name"));
  SHOAL_ASSIGN_OR_RETURN(
      group, r.String(ref, "podGroup", "spec.workloadRef.podGroup"));
  SHOAL_ASSIGN_OR_RETURN(replica,
                         r.String(ref, "podGroupReplicaKey",
                                  "spec.workloadRef.podGroupReplicaKey"));
  if (name.empty()) return r.Error("spec.workloadRef.name", "must be set");
  if (group.empty()) return r.Error("spec.workloadRef.podGroup", "must be set");
  for (const auto& [k, v] : ref.items()) {
    if (k != "name" && k != "podGroup" && k != "podGroupReplicaKey") {
      r.Warn(absl::StrCat("spec.workloadRef.", k,
                          ": not a field Shoal knows; ignored"));
    }
  }
  out.name = name;
  out.pod_group = group;
  out.replica_key = replica;
  return out;
}

}  // namespace

absl::StatusOr<DecodedPod> DecodePod(const json& obj,
                                     DecodeWarnings* warnings) {
  if (auto s = RequireName(obj, "pod"); !s.ok()) return s;
  Reader r(
      NamedObject("pod", absl::StrCat(NamespaceOf(obj), "/", NameOf(obj))));
  static const json kEmpty = json::object();
  const json& meta = Metadata(obj);
  const json* spec_ptr = Reader::Get(obj, "spec");
  if (spec_ptr == nullptr || !spec_ptr->is_object())
    return r.Error("spec", "is required");
  const json& spec = *spec_ptr;
  SHOAL_ASSIGN_OR_RETURN(status_ptr, r.Section(obj, "status"));
  const json& status = *status_ptr;

  auto pod = std::make_shared<api::PodInfo>();
  pod->ns = NamespaceOf(obj);
  pod->name = NameOf(obj);
  SHOAL_ASSIGN_OR_RETURN(uid, r.String(meta, "uid", "metadata.uid"));
  pod->uid = uid.empty() ? pod->Key() : uid;
  SHOAL_ASSIGN_OR_RETURN(created, Timestamp(r, meta, "creationTimestamp",
                                            "metadata.creationTimestamp"));
  pod->created = created;
  SHOAL_ASSIGN_OR_RETURN(
      annotations,
      r.StringMap(Reader::Get(meta, "annotations"), "metadata.annotations"));
  SHOAL_ASSIGN_OR_RETURN(
      labels, r.StringMap(Reader::Get(meta, "labels"), "metadata.labels"));
  for (const auto& [k, v] : annotations) {
    if (k == kGroupAnnotation) pod->group = v;
    if (k == kTaskSpecAnnotation) pod->role = v;
  }
  // Volcano's job controller writes the task name as a label too; the
  // annotation wins when both are set (as Volcano reads them).
  for (const auto& [k, v] : labels) {
    if (k == kGroupLabel && pod->group.empty()) pod->group = v;
    if (k == kTaskSpecAnnotation && pod->role.empty()) pod->role = v;
  }
  if (const json* sg = Reader::Get(spec, "schedulingGroup");
      sg != nullptr && !sg->is_null()) {
    if (!sg->is_object())
      return r.Error("spec.schedulingGroup", "must be an object");
    SHOAL_ASSIGN_OR_RETURN(name, r.String(*sg, "podGroupName",
                                          "spec.schedulingGroup.podGroupName"));
    if (name.empty())
      return r.Error("spec.schedulingGroup.podGroupName", "must be set");
    for (const auto& [k, v] : sg->items()) {
      if (k != "podGroupName") {
        r.Warn(absl::StrCat("spec.schedulingGroup.", k,
                            ": not a field Shoal knows; ignored"));
      }
    }
    if (!pod->group.empty() && pod->group != name) {
      pod->group_conflict =
          absl::StrCat("pod ", pod->Key(), " names two gangs: podgroup ",
                       pod->group, " and podgroup ", name,
                       " (spec.schedulingGroup); it waits until it names one");
    } else {
      pod->group = name;
      pod->in_scheduling_group = true;
    }
  }
  if (const json* ref = Reader::Get(spec, "workloadRef");
      ref != nullptr && !ref->is_null()) {
    SHOAL_ASSIGN_OR_RETURN(workload_ref, WorkloadRefAt(r, *ref));
    pod->workload_ref = std::move(workload_ref);
    if (!pod->group.empty()) {
      // Counted in one gang or the other, never both: it waits, and the
      // PodGroup's gang with it, until one is dropped.
      pod->group_conflict =
          absl::StrCat("pod ", pod->Key(), " names two gangs: podgroup ",
                       pod->group, " and workload ", pod->workload_ref.name,
                       " podGroup ", pod->workload_ref.pod_group,
                       " (spec.workloadRef); it waits until it names one");
    } else {
      pod->group = pod->workload_ref.GangName();
    }
  }
  pod->preemptable = Preemptable(annotations, labels);
  pod->labels = api::Labels(std::move(labels));
  SHOAL_ASSIGN_OR_RETURN(scheduler,
                         r.String(spec, "schedulerName", "spec.schedulerName",
                                  "default-scheduler"));
  pod->scheduler_name = scheduler;
  SHOAL_ASSIGN_OR_RETURN(node_name,
                         r.String(spec, "nodeName", "spec.nodeName"));
  pod->node_name = node_name;
  SHOAL_ASSIGN_OR_RETURN(
      pc, r.String(spec, "priorityClassName", "spec.priorityClassName"));
  pod->priority_class = pc;
  pod->critical = IsCriticalClass(pc);
  DecodedPod out;
  out.has_priority = Reader::Get(spec, "priority") != nullptr;
  SHOAL_ASSIGN_OR_RETURN(priority, r.Int(spec, "priority", "spec.priority", 0));
  pod->priority = static_cast<int32_t>(priority);
  SHOAL_ASSIGN_OR_RETURN(
      preemption, r.String(spec, "preemptionPolicy", "spec.preemptionPolicy"));
  pod->preempt_never = preemption == "Never";
  pod->preemption_policy_set = !preemption.empty();
  SHOAL_ASSIGN_OR_RETURN(gates, SchedulingGates(r, spec));
  pod->scheduling_gates = std::move(gates);
  pod->unsupported_field =
      r.CheckFields(spec, "spec", kPodSpecFields, &pod->unsupported_value);
  SHOAL_ASSIGN_OR_RETURN(
      claims,
      DecodePodVolumeClaims(spec, pod->name, absl::StrCat("pod ", pod->Key())));
  pod->volume_claims = std::move(claims);
  SHOAL_ASSIGN_OR_RETURN(resource_claims,
                         DecodePodResourceClaims(r, spec, status));
  pod->resource_claims = std::move(resource_claims);
  SHOAL_ASSIGN_OR_RETURN(host_ports, HostPorts(r, spec));
  pod->host_ports = std::move(host_ports);
  SHOAL_ASSIGN_OR_RETURN(request, PodRequest(r, spec));
  pod->request = std::move(request);
  SHOAL_ASSIGN_OR_RETURN(extended, ExtendedRequests(r, spec));
  pod->extended_requests = std::move(extended);
  SHOAL_RETURN_IF_ERROR(ExtendedClaimStatus(r, status, *pod));
  SHOAL_ASSIGN_OR_RETURN(placement, Placement(r, spec));
  pod->placement = std::move(placement);
  SHOAL_ASSIGN_OR_RETURN(inter_pod, InterPod(r, spec, pod->ns, pod->labels));
  pod->inter_pod = std::move(inter_pod);

  SHOAL_ASSIGN_OR_RETURN(phase,
                         r.String(status, "phase", "status.phase", "Pending"));
  bool terminating = Reader::Get(meta, "deletionTimestamp") != nullptr;
  if (phase == "Succeeded") {
    pod->status = api::TaskStatus::kSucceeded;
  } else if (phase == "Failed") {
    pod->status = api::TaskStatus::kFailed;
  } else if (pod->node_name.empty()) {
    pod->status = api::TaskStatus::kPending;
  } else if (terminating) {
    pod->status = api::TaskStatus::kReleasing;
  } else {
    pod->status = phase == "Running" ? api::TaskStatus::kRunning
                                     : api::TaskStatus::kBound;
  }
  r.TakeWarnings(warnings);
  out.pod = std::move(pod);
  return out;
}

}  // namespace shoal::kube
