// Kubernetes' own gang API (scheduling.k8s.io, KEP-4671), in every shape
// it has been served in, one decoder per kind reading them all:
//  * v1alpha1 (Kubernetes 1.35): a Workload's spec.podGroups, each a gang
//    (policy.gang.minCount) or basic, that pods join by spec.workloadRef;
//  * v1alpha2 (1.36): a Workload of spec.podGroupTemplates, and PodGroup
//    objects made from them (spec.schedulingPolicy) that pods join by
//    spec.schedulingGroup.podGroupName: read as a PodGroup's gang;
//  * v1beta1 and v1alpha3 (1.37): the same, the template named by
//    spec.workloadRef, disruptionMode an object ({single: {}} or
//    {all: {}}), spec.priority and spec.preemptionPolicy, and (v1alpha3)
//    CompositePodGroups over them: a PodGroup names its parent by
//    spec.parentCompositePodGroupName (api/composite_pod_group.h).
// What a version lacks reads as absent; no field means two things.
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/pod_resource_claims.h"
#include "scheduler/kube/decode/reader.h"

namespace shoal::kube {
namespace {

// WorkloadSpec (scheduling.k8s.io/v1alpha1, Kubernetes 1.35).
const SchedulingFields kWorkloadFields = {
    "workload",
    {
        // Which object made the Workload (a Job, a JobSet): for people and
        // tools, not for placement.
        {"controllerRef", FieldUse::kNoEffect},
        {"podGroups", FieldUse::kHonoured},
        // v1alpha2: templates for PodGroup objects, which carry the policy
        // Shoal reads.
        {"podGroupTemplates", FieldUse::kHonoured},
        // v1beta1/v1alpha3: templates of a tree; the CompositePodGroups
        // and PodGroups made from them carry what Shoal reads.
        {"compositePodGroupTemplates", FieldUse::kNoEffect},
    }};

// One entry of spec.podGroups (v1alpha1) or spec.podGroupTemplates
// (v1alpha2).
const SchedulingFields kPodGroupFields = {
    "workload",
    {
        {"name", FieldUse::kHonoured},
        {"policy", FieldUse::kHonoured},
        {"schedulingPolicy", FieldUse::kHonoured},
        // The PodGroups made from the template carry these (v1beta1).
        {"schedulingConstraints", FieldUse::kNoEffect},
        {"disruptionMode", FieldUse::kNoEffect},
        {"priorityClassName", FieldUse::kNoEffect},
        {"priority", FieldUse::kNoEffect},
        {"preemptionPolicy", FieldUse::kNoEffect},
        {"resourceClaims", FieldUse::kNoEffect},
    }};

// PodGroupSpec (scheduling.k8s.io v1alpha2, v1beta1, v1alpha3).
const SchedulingFields kKubePodGroupFields = {
    "podgroup",
    {
        {"schedulingPolicy", FieldUse::kHonoured},
        {"priorityClassName", FieldUse::kHonoured},
        {"priority", FieldUse::kHonoured},
        {"preemptionPolicy", FieldUse::kHonoured},
        // Which Workload template made it (v1alpha2, then v1beta1's name):
        // for people and tools.
        {"podGroupTemplateRef", FieldUse::kNoEffect},
        {"workloadRef", FieldUse::kNoEffect},
        // Its CompositePodGroup: the cache folds it into the tree's job.
        {"parentCompositePodGroupName", FieldUse::kHonoured},
        // PodGroup/all: disrupted together (victims.cc takes all or none).
        {"disruptionMode", FieldUse::kHonoured},
        // Claims reserved for the group, shared by its pods (KEP-5729).
        {"resourceClaims", FieldUse::kHonoured},
        // KEP-5732: the group inside one domain of a node label.
        {"schedulingConstraints", FieldUse::kHonoured},
    }};

// CompositePodGroupSpec (scheduling.k8s.io/v1alpha3).
const SchedulingFields kCompositeFields = {
    "compositepodgroup",
    {
        {"schedulingPolicy", FieldUse::kHonoured},
        {"parentCompositePodGroupName", FieldUse::kHonoured},
        {"workloadRef", FieldUse::kNoEffect},
        {"schedulingConstraints", FieldUse::kHonoured},
        {"disruptionMode", FieldUse::kHonoured},
        {"priorityClassName", FieldUse::kHonoured},
        {"priority", FieldUse::kHonoured},
        {"preemptionPolicy", FieldUse::kHonoured},
    }};

// What a Workload and a PodGroup of scheduling.k8s.io read alike from
// their metadata.
struct Identity {
  std::string uid;  // metadata.uid, or ns/name when it has none
  absl::Time created;
  std::string queue;  // kQueueNameAnnotation (annotation, else label)
  int32_t resize_cost_seconds = -1;                    // kResizeCostAnnotation
  std::vector<std::pair<int32_t, double>> throughput;  // kThroughputAnnotation
  double progress = -1;                                // kProgressAnnotation
};

absl::StatusOr<Identity> IdentityOf(const Reader& r, const json& obj) {
  const json& meta = Metadata(obj);
  Identity out;
  SHOAL_ASSIGN_OR_RETURN(uid, r.String(meta, "uid", "metadata.uid"));
  out.uid =
      uid.empty() ? absl::StrCat(NamespaceOf(obj), "/", NameOf(obj)) : uid;
  SHOAL_ASSIGN_OR_RETURN(created, Timestamp(r, meta, "creationTimestamp",
                                            "metadata.creationTimestamp"));
  out.created = created;
  SHOAL_ASSIGN_OR_RETURN(
      annotations,
      r.StringMap(Reader::Get(meta, "annotations"), "metadata.annotations"));
  SHOAL_ASSIGN_OR_RETURN(
      labels, r.StringMap(Reader::Get(meta, "labels"), "metadata.labels"));
  SHOAL_ASSIGN_OR_RETURN(resize_cost, ResizeCostOf(r, meta));
  out.resize_cost_seconds = resize_cost;
  SHOAL_ASSIGN_OR_RETURN(throughput, ThroughputOf(r, meta));
  out.throughput = std::move(throughput);
  SHOAL_ASSIGN_OR_RETURN(progress, ProgressOf(r, meta));
  out.progress = progress;
  out.queue = "default";
  for (const auto* list : {&labels, &annotations}) {  // annotation wins
    for (const auto& [k, v] : *list) {
      if (k == kQueueNameAnnotation && !v.empty()) out.queue = v;
    }
  }
  return out;
}

// Kind `kind` of group scheduling.k8s.io, any version.
bool IsKubeScheduling(const json& obj, const char* kind) {
  return StringMember(obj, "kind") == kind &&
         StringMember(obj, "apiVersion").rfind("scheduling.k8s.io/", 0) == 0;
}

// A policy object, {gang: {minCount}} or {basic: {}}, at `at`; a
// CompositePodGroup's gang counts groups (`count` "minGroupCount").
absl::Status ReadPolicy(const Reader& r, const json* policy,
                        const std::string& at, api::WorkloadPodGroup& group,
                        const char* count = "minCount") {
  if (policy == nullptr || !policy->is_object())
    return r.Error(at, "must be an object: {gang: ...} or {basic: {}}");
  const json* gang = Reader::Get(*policy, "gang");
  const json* basic = Reader::Get(*policy, "basic");
  if ((gang != nullptr) == (basic != nullptr))
    return r.Error(at, "must set exactly one of gang and basic");
  for (const auto& [k, v] : policy->items()) {
    if (k != "gang" && k != "basic")
      r.Warn(absl::StrCat(at, ".", k, ": not a policy Shoal knows; ignored"));
  }
  if (gang == nullptr) return absl::OkStatus();
  group.gang = true;
  if (!gang->is_object()) return r.Error(at + ".gang", "must be an object");
  for (const auto& [k, v] : gang->items()) {
    if (k != count)
      r.Warn(
          absl::StrCat(at, ".gang.", k, ": not a field Shoal knows; ignored"));
  }
  const std::string field = absl::StrCat(at, ".gang.", count);
  SHOAL_ASSIGN_OR_RETURN(min, r.Int(*gang, count, field, 0));
  if (min < 1) return r.Error(field, absl::StrCat("must be >= 1, got ", min));
  group.min_count = static_cast<int32_t>(min);
  return absl::OkStatus();
}

// spec.disruptionMode: "Pod"/"PodGroup" (v1alpha2) or {single: {}} /
// {all: {}} (v1beta1 on); whether the group is disrupted whole.
absl::StatusOr<bool> DisruptedWhole(const Reader& r, const json& spec) {
  const json* mode = Reader::Get(spec, "disruptionMode");
  if (mode == nullptr) return false;
  if (mode->is_string()) {
    const std::string m = mode->get<std::string>();
    if (m != "Pod" && m != "PodGroup") {
      return r.Error("spec.disruptionMode",
                     absl::StrCat("must be Pod or PodGroup, got \"", m, "\""));
    }
    return m == "PodGroup";
  }
  const bool single = Reader::Get(*mode, "single") != nullptr;
  const bool all = Reader::Get(*mode, "all") != nullptr;
  if (!mode->is_object() || mode->size() != 1 || single == all) {
    return r.Error(
        "spec.disruptionMode",
        absl::StrCat("must be {single: {}} or {all: {}}, got ", mode->dump()));
  }
  return all;
}

// spec.schedulingConstraints.topology[].key (KEP-5732): at most one.
absl::StatusOr<api::NetworkConstraint> TopologyOf(const Reader& r,
                                                  const json& spec) {
  api::NetworkConstraint c;
  SHOAL_ASSIGN_OR_RETURN(section, r.Section(spec, "schedulingConstraints"));
  const json* list = Reader::Get(*section, "topology");
  if (list == nullptr) return c;
  const std::string at = "spec.schedulingConstraints.topology";
  if (!list->is_array()) return r.Error(at, "must be a list");
  if (list->size() > 1) {
    return r.Error(
        at, absl::StrCat("must have at most 1 entry, got ", list->size()));
  }
  if (list->empty()) return c;
  SHOAL_ASSIGN_OR_RETURN(key, r.String((*list)[0], "key", at + "[0].key"));
  if (key.empty()) return r.Error(at + "[0].key", "must be a node label key");
  c.mode = api::NetworkConstraint::Mode::kHard;
  c.highest_tier_name = key;
  c.topology_key = true;
  return c;
}

// spec.priority (set by the API server's priority admission), if present.
absl::StatusOr<std::optional<int32_t>> PriorityOf(const Reader& r,
                                                  const json& spec) {
  if (Reader::Get(spec, "priority") == nullptr) return std::nullopt;
  SHOAL_ASSIGN_OR_RETURN(p, r.Int(spec, "priority", "spec.priority", 0));
  if (p < -2147483648LL || p > 1000000000LL) {
    return r.Error("spec.priority",
                   absl::StrCat("must be at most 1000000000, got ", p));
  }
  return static_cast<int32_t>(p);
}

// spec.preemptionPolicy: PreemptLowerPriority, Never, or unset.
absl::StatusOr<std::string> PreemptionPolicyOf(const Reader& r,
                                               const json& spec) {
  SHOAL_ASSIGN_OR_RETURN(
      policy, r.String(spec, "preemptionPolicy", "spec.preemptionPolicy"));
  if (!policy.empty() && policy != "PreemptLowerPriority" &&
      policy != "Never") {
    return r.Error("spec.preemptionPolicy",
                   absl::StrCat("must be PreemptLowerPriority or Never, got \"",
                                policy, "\""));
  }
  return policy;
}

}  // namespace

bool IsWorkload(const json& obj) { return IsKubeScheduling(obj, "Workload"); }

absl::StatusOr<api::WorkloadSpec> DecodeWorkload(const json& obj,
                                                 DecodeWarnings* warnings) {
  if (auto s = RequireName(obj, "workload"); !s.ok()) return s;
  Reader r(NamedObject("workload",
                       absl::StrCat(NamespaceOf(obj), "/", NameOf(obj))));
  SHOAL_ASSIGN_OR_RETURN(spec_ptr, r.Section(obj, "spec"));
  const json& spec = *spec_ptr;
  r.CheckFields(spec, "spec", kWorkloadFields, nullptr);
  api::WorkloadSpec w;
  w.ns = NamespaceOf(obj);
  w.name = NameOf(obj);
  w.api_version = StringMember(obj, "apiVersion");
  SHOAL_ASSIGN_OR_RETURN(id, IdentityOf(r, obj));
  w.uid = id.uid;
  w.created = id.created;
  w.queue = id.queue;
  w.resize_cost_seconds = id.resize_cost_seconds;
  w.throughput = id.throughput;
  w.progress = id.progress;
  const char* list = Reader::Get(spec, "podGroupTemplates") != nullptr
                         ? "podGroupTemplates"
                         : "podGroups";
  const json* groups = Reader::Get(spec, list);
  // A tree's templates: its objects carry what Shoal reads.
  if (groups == nullptr &&
      Reader::Get(spec, "compositePodGroupTemplates") != nullptr) {
    r.TakeWarnings(warnings);
    return w;
  }
  if (groups == nullptr || !groups->is_array() || groups->empty()) {
    return r.Error(absl::StrCat("spec.", list),
                   "must be a list of at least one group");
  }
  for (size_t i = 0; i < groups->size(); ++i) {
    const json& g = (*groups)[i];
    const std::string at = absl::StrCat("spec.", list, "[", i, "]");
    if (!g.is_object()) return r.Error(at, "must be an object");
    r.CheckFields(g, at, kPodGroupFields, nullptr);
    api::WorkloadPodGroup group;
    SHOAL_ASSIGN_OR_RETURN(name, r.String(g, "name", at + ".name"));
    if (name.empty()) return r.Error(at + ".name", "must be set");
    if (w.Find(name) != nullptr) {
      return r.Error(at + ".name",
                     absl::StrCat("\"", name, "\" is used twice"));
    }
    group.name = name;
    const bool v1 = Reader::Get(g, "policy") != nullptr;
    SHOAL_RETURN_IF_ERROR(
        ReadPolicy(r, Reader::Get(g, v1 ? "policy" : "schedulingPolicy"),
                   at + (v1 ? ".policy" : ".schedulingPolicy"), group));
    w.pod_groups.push_back(std::move(group));
  }
  r.TakeWarnings(warnings);
  return w;
}

bool IsKubePodGroup(const json& obj) {
  return IsKubeScheduling(obj, "PodGroup");
}

absl::StatusOr<api::JobInfo> DecodeKubePodGroup(const json& obj,
                                                DecodeWarnings* warnings) {
  if (auto s = RequireName(obj, "podgroup"); !s.ok()) return s;
  Reader r(NamedObject("podgroup",
                       absl::StrCat(NamespaceOf(obj), "/", NameOf(obj))));
  SHOAL_ASSIGN_OR_RETURN(spec_ptr, r.Section(obj, "spec"));
  const json& spec = *spec_ptr;
  api::JobInfo job;
  job.ns = NamespaceOf(obj);
  job.name = NameOf(obj);
  job.source = api::GroupSource::kKubePodGroup;
  job.unsupported_field =
      r.CheckFields(spec, "spec", kKubePodGroupFields, &job.unsupported_value);
  SHOAL_ASSIGN_OR_RETURN(id, IdentityOf(r, obj));
  job.uid = id.uid;
  job.created = id.created;
  job.queue = id.queue;
  job.resize_cost_seconds = id.resize_cost_seconds;
  job.throughput = id.throughput;
  job.progress = id.progress;
  api::WorkloadPodGroup policy;
  SHOAL_RETURN_IF_ERROR(ReadPolicy(r, Reader::Get(spec, "schedulingPolicy"),
                                   "spec.schedulingPolicy", policy));
  // basic: no gang; each pod is placed as soon as it fits.
  job.min_member = policy.gang ? policy.min_count : 1;
  SHOAL_ASSIGN_OR_RETURN(
      pc, r.String(spec, "priorityClassName", "spec.priorityClassName"));
  job.priority_class = pc;
  SHOAL_ASSIGN_OR_RETURN(priority, PriorityOf(r, spec));
  job.priority_stated = priority.has_value();
  job.priority = priority.value_or(0);
  SHOAL_ASSIGN_OR_RETURN(preemption, PreemptionPolicyOf(r, spec));
  job.preemption_policy = preemption;
  SHOAL_ASSIGN_OR_RETURN(whole, DisruptedWhole(r, spec));
  job.disrupted_whole = whole;
  SHOAL_ASSIGN_OR_RETURN(network, TopologyOf(r, spec));
  job.network = network;
  SHOAL_ASSIGN_OR_RETURN(parent, r.String(spec, "parentCompositePodGroupName",
                                          "spec.parentCompositePodGroupName"));
  job.parent_group = parent;
  // Read as a pod's are: the same shape, the same controller resolving
  // templates (status.resourceClaimStatuses).
  SHOAL_ASSIGN_OR_RETURN(status, r.Section(obj, "status"));
  SHOAL_ASSIGN_OR_RETURN(claims, DecodePodResourceClaims(r, spec, *status));
  job.group_claims = std::move(claims);
  r.TakeWarnings(warnings);
  return job;
}

bool IsCompositePodGroup(const json& obj) {
  return IsKubeScheduling(obj, "CompositePodGroup");
}

absl::StatusOr<api::CompositePodGroupSpec> DecodeCompositePodGroup(
    const json& obj, DecodeWarnings* warnings) {
  if (auto s = RequireName(obj, "compositepodgroup"); !s.ok()) return s;
  Reader r(NamedObject("compositepodgroup",
                       absl::StrCat(NamespaceOf(obj), "/", NameOf(obj))));
  SHOAL_ASSIGN_OR_RETURN(spec_ptr, r.Section(obj, "spec"));
  const json& spec = *spec_ptr;
  r.CheckFields(spec, "spec", kCompositeFields, nullptr);
  api::CompositePodGroupSpec g;
  g.ns = NamespaceOf(obj);
  g.name = NameOf(obj);
  g.api_version = StringMember(obj, "apiVersion");
  SHOAL_ASSIGN_OR_RETURN(id, IdentityOf(r, obj));
  g.uid = id.uid;
  g.created = id.created;
  g.queue = id.queue;
  api::WorkloadPodGroup policy;
  SHOAL_RETURN_IF_ERROR(ReadPolicy(r, Reader::Get(spec, "schedulingPolicy"),
                                   "spec.schedulingPolicy", policy,
                                   "minGroupCount"));
  g.gang = policy.gang;
  g.min_group_count = policy.gang ? policy.min_count : 1;
  SHOAL_ASSIGN_OR_RETURN(parent, r.String(spec, "parentCompositePodGroupName",
                                          "spec.parentCompositePodGroupName"));
  g.parent = parent;
  SHOAL_ASSIGN_OR_RETURN(network, TopologyOf(r, spec));
  g.network = network;
  SHOAL_ASSIGN_OR_RETURN(
      pc, r.String(spec, "priorityClassName", "spec.priorityClassName"));
  g.priority_class = pc;
  SHOAL_ASSIGN_OR_RETURN(priority, PriorityOf(r, spec));
  g.priority = priority;
  SHOAL_ASSIGN_OR_RETURN(preemption, PreemptionPolicyOf(r, spec));
  g.preemption_policy = preemption;
  SHOAL_ASSIGN_OR_RETURN(whole, DisruptedWhole(r, spec));
  g.disrupted_whole = whole;
  r.TakeWarnings(warnings);
  return g;
}

}  // namespace shoal::kube
