// Kubernetes' own gang API (scheduling.k8s.io, KEP-4671), in both shapes
// it has been served in:
//  * v1alpha1 (Kubernetes 1.35): a Workload's spec.podGroups, each a gang
//    (policy.gang.minCount) or basic, that pods join by spec.workloadRef;
//  * v1alpha2 (1.36): a Workload of spec.podGroupTemplates, and PodGroup
//    objects made from them (spec.schedulingPolicy) that pods join by
//    spec.schedulingGroup.podGroupName: read as a PodGroup's gang.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "scheduler/kube/objects.h"
#include "scheduler/kube/pod_resource_claims.h"
#include "scheduler/kube/reader.h"

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
    }};

// One entry of spec.podGroups (v1alpha1) or spec.podGroupTemplates
// (v1alpha2).
const SchedulingFields kPodGroupFields = {
    "workload",
    {
        {"name", FieldUse::kHonoured},
        {"policy", FieldUse::kHonoured},
        {"schedulingPolicy", FieldUse::kHonoured},
    }};

// PodGroupSpec (scheduling.k8s.io/v1alpha2).
const SchedulingFields kKubePodGroupFields = {
    "podgroup",
    {
        {"schedulingPolicy", FieldUse::kHonoured},
        {"priorityClassName", FieldUse::kHonoured},
        // Which Workload template made it: for people and tools.
        {"podGroupTemplateRef", FieldUse::kNoEffect},
        // PodGroup: disrupted together (victims.cc takes all or none).
        {"disruptionMode", FieldUse::kHonoured},
        // Claims reserved for the group, shared by its pods (KEP-5729).
        {"resourceClaims", FieldUse::kHonoured},
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

// A policy object, {gang: {minCount}} or {basic: {}}, at `at`.
absl::Status ReadPolicy(const Reader& r, const json* policy,
                        const std::string& at, api::WorkloadPodGroup& group) {
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
    if (k != "minCount")
      r.Warn(
          absl::StrCat(at, ".gang.", k, ": not a field Shoal knows; ignored"));
  }
  SHOAL_ASSIGN_OR_RETURN(min,
                         r.Int(*gang, "minCount", at + ".gang.minCount", 0));
  if (min < 1) {
    return r.Error(at + ".gang.minCount",
                   absl::StrCat("must be >= 1, got ", min));
  }
  group.min_count = static_cast<int32_t>(min);
  return absl::OkStatus();
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
  SHOAL_ASSIGN_OR_RETURN(
      mode, r.String(spec, "disruptionMode", "spec.disruptionMode"));
  if (!mode.empty() && mode != "Pod" && mode != "PodGroup") {
    return r.Error("spec.disruptionMode",
                   absl::StrCat("must be Pod or PodGroup, got \"", mode, "\""));
  }
  job.disrupted_whole = mode == "PodGroup";
  // Read as a pod's are: the same shape, the same controller resolving
  // templates (status.resourceClaimStatuses).
  SHOAL_ASSIGN_OR_RETURN(status, r.Section(obj, "status"));
  SHOAL_ASSIGN_OR_RETURN(claims, DecodePodResourceClaims(r, spec, *status));
  job.group_claims = std::move(claims);
  r.TakeWarnings(warnings);
  return job;
}

}  // namespace shoal::kube
