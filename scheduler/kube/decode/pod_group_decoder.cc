// PodGroups of Volcano (scheduling.volcano.sh) and of scheduler-plugins'
// coscheduling (scheduling.x-k8s.io), read into one JobInfo. The field
// lists say what Shoal does with each field of either spec
// (scheduling_fields.h).
#include <optional>

#include "absl/strings/str_cat.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/pod_placement.h"
#include "scheduler/kube/decode/reader.h"

namespace shoal::kube {
namespace {

// Volcano's PodGroupSpec (v1.13).
const SchedulingFields kVolcanoFields = {
    "podgroup",
    {
        {"minMember", FieldUse::kHonoured},
        {"minTaskMember", FieldUse::kHonoured},
        {"minResources", FieldUse::kHonoured},
        {"queue", FieldUse::kHonoured},
        {"priorityClassName", FieldUse::kHonoured},
        // Network-topology-aware placement (api/network_topology.h).
        {"networkTopology", FieldUse::kHonoured},
        // Sub-groups, each placed together in a domain of its own.
        {"subGroupPolicy", FieldUse::kHonoured},
    }};

// One entry of Volcano's spec.subGroupPolicy.
const SchedulingFields kSubGroupPolicyFields = {
    "podgroup",
    {
        {"name", FieldUse::kHonoured},
        {"subGroupSize", FieldUse::kHonoured},
        {"minSubGroups", FieldUse::kHonoured},
        {"labelSelector", FieldUse::kHonoured},
        {"matchLabelKeys", FieldUse::kHonoured},
        {"networkTopology", FieldUse::kHonoured},
    }};

// scheduler-plugins' coscheduling PodGroupSpec (v1alpha1).
const SchedulingFields kCoschedulingFields = {
    "podgroup",
    {
        {"minMember", FieldUse::kHonoured},
        {"minResources", FieldUse::kHonoured},
        // How long coscheduling holds a partial gang at Permit. Shoal
        // binds a gang whole or not at all and never holds part of one.
        {"scheduleTimeoutSeconds", FieldUse::kNoEffect},
    }};

// spec.networkTopology (or a sub-group policy's, at `path`): the domain
// of the network the gang must (hard) or should (soft) fit in.
absl::StatusOr<api::NetworkConstraint> NetworkTopologyAt(
    const Reader& r, const json& nt,
    const std::string& path = "spec.networkTopology") {
  api::NetworkConstraint c;
  if (!nt.is_object()) return r.Error(path, "must be an object");
  SHOAL_ASSIGN_OR_RETURN(mode, r.String(nt, "mode", path + ".mode", "hard"));
  if (mode == "hard") {
    c.mode = api::NetworkConstraint::Mode::kHard;
  } else if (mode == "soft") {
    c.mode = api::NetworkConstraint::Mode::kSoft;
  } else {
    return r.Error(path + ".mode",
                   absl::StrCat("must be hard or soft, got \"", mode, "\""));
  }
  const bool has_tier = Reader::Get(nt, "highestTierAllowed") != nullptr;
  SHOAL_ASSIGN_OR_RETURN(
      tier, r.Int(nt, "highestTierAllowed", path + ".highestTierAllowed", 0));
  if (has_tier && tier < 0) {
    return r.Error(path + ".highestTierAllowed",
                   absl::StrCat("must be >= 0, got ", tier));
  }
  SHOAL_ASSIGN_OR_RETURN(
      tier_name, r.String(nt, "highestTierName", path + ".highestTierName"));
  if (has_tier && !tier_name.empty()) {
    return r.Error(path,
                   "highestTierAllowed and highestTierName cannot both be set");
  }
  c.highest_tier = static_cast<int32_t>(tier);
  c.highest_tier_name = tier_name;
  if (c.mode == api::NetworkConstraint::Mode::kHard && !has_tier &&
      tier_name.empty()) {
    // Volcano reads a hard mode without a tier as no limit at all.
    r.Warn(absl::StrCat(
        path,
        ": mode hard names neither highestTierAllowed nor highestTierName, so "
        "it limits nothing (as Volcano reads it); the pods are placed as mode "
        "soft: inside one domain where one holds them"));
    c.mode = api::NetworkConstraint::Mode::kSoft;
  }
  return c;
}

// spec.subGroupPolicy (api/sub_groups.h).
absl::StatusOr<std::vector<api::SubGroupPolicy>> SubGroupPoliciesAt(
    const Reader& r, const json& list) {
  if (!list.is_array()) return r.Error("spec.subGroupPolicy", "must be a list");
  std::vector<api::SubGroupPolicy> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = absl::StrCat("spec.subGroupPolicy[", i, "]");
    const json& item = list[i];
    if (!item.is_object()) return r.Error(path, "must be an object");
    api::SubGroupPolicy p;
    SHOAL_ASSIGN_OR_RETURN(name, r.String(item, "name", path + ".name"));
    p.name = name.empty() ? absl::StrCat(i) : name;
    for (const api::SubGroupPolicy& before : out) {
      if (before.name == p.name) {
        return r.Error(path + ".name",
                       absl::StrCat("\"", p.name, "\" is used twice"));
      }
    }
    SHOAL_ASSIGN_OR_RETURN(
        size, r.Int(item, "subGroupSize", path + ".subGroupSize", 1));
    if (size < 1) {
      return r.Error(path + ".subGroupSize",
                     absl::StrCat("must be >= 1, got ", size));
    }
    p.size = static_cast<int32_t>(size);
    SHOAL_ASSIGN_OR_RETURN(
        min_groups, r.Int(item, "minSubGroups", path + ".minSubGroups", 0));
    if (min_groups < 0) {
      return r.Error(path + ".minSubGroups",
                     absl::StrCat("must be >= 0, got ", min_groups));
    }
    p.min_groups = static_cast<int32_t>(min_groups);
    if (const json* sel = Reader::Get(item, "labelSelector")) {
      SHOAL_ASSIGN_OR_RETURN(selector,
                             LabelSelectorAt(r, sel, path + ".labelSelector"));
      p.selector = std::move(selector);
    }
    if (const json* keys = Reader::Get(item, "matchLabelKeys")) {
      if (!keys->is_array())
        return r.Error(path + ".matchLabelKeys",
                       "must be a list of label keys");
      for (const json& k : *keys) {
        if (!k.is_string() || k.get<std::string>().empty()) {
          return r.Error(
              path + ".matchLabelKeys",
              absl::StrCat("must be a list of label keys, got ", keys->dump()));
        }
        p.match_label_keys.push_back(k.get<std::string>());
      }
    }
    if (const json* nt = Reader::Get(item, "networkTopology")) {
      SHOAL_ASSIGN_OR_RETURN(
          network, NetworkTopologyAt(r, *nt, path + ".networkTopology"));
      p.network = network;
    }
    r.CheckFields(item, path, kSubGroupPolicyFields, nullptr);
    out.push_back(std::move(p));
  }
  return out;
}

// KAI-Scheduler's topology annotations, which its pod grouper copies from
// the workload onto the PodGroup: a level (a node label key) the gang must
// fit in, and one it should. Read as spec.networkTopology with that label
// key as the tier name: the levels are the tiers the policy names
// (network-topology-aware's tierLabels).
constexpr char kKaiRequired[] = "kai.scheduler/topology-required-placement";
constexpr char kKaiPreferred[] = "kai.scheduler/topology-preferred-placement";

absl::StatusOr<std::optional<api::NetworkConstraint>> KaiTopology(
    const Reader& r, const json& meta) {
  SHOAL_ASSIGN_OR_RETURN(
      annotations,
      r.StringMap(Reader::Get(meta, "annotations"), "metadata.annotations"));
  // kai.scheduler/topology names KAI's Topology object, which Shoal does
  // not read: the levels are the policy's tierLabels (README).
  std::string required, preferred;
  for (const auto& [k, v] : annotations) {
    if (k == kKaiRequired) required = v;
    if (k == kKaiPreferred) preferred = v;
  }
  if (required.empty() && preferred.empty()) return std::nullopt;
  api::NetworkConstraint c;
  if (!required.empty()) {
    c.mode = api::NetworkConstraint::Mode::kHard;
    c.highest_tier_name = required;
  } else {
    c.mode = api::NetworkConstraint::Mode::kSoft;
  }
  return std::optional<api::NetworkConstraint>(c);
}

}  // namespace

absl::StatusOr<api::JobInfo> DecodePodGroup(const json& obj,
                                            DecodeWarnings* warnings) {
  if (auto s = RequireName(obj, "podgroup"); !s.ok()) return s;
  Reader r(NamedObject("podgroup",
                       absl::StrCat(NamespaceOf(obj), "/", NameOf(obj))));
  static const json kEmpty = json::object();
  const json& meta = Metadata(obj);
  const json* spec_ptr = Reader::Get(obj, "spec");
  const json& spec = spec_ptr != nullptr ? *spec_ptr : kEmpty;
  SHOAL_ASSIGN_OR_RETURN(status_ptr, r.Section(obj, "status"));
  const json& status = *status_ptr;
  api::JobInfo job;
  job.ns = NamespaceOf(obj);
  job.name = NameOf(obj);
  SHOAL_ASSIGN_OR_RETURN(uid, r.String(meta, "uid", "metadata.uid"));
  job.uid = uid.empty() ? job.Key() : uid;
  SHOAL_ASSIGN_OR_RETURN(created, Timestamp(r, meta, "creationTimestamp",
                                            "metadata.creationTimestamp"));
  job.created = created;
  bool volcano = IsVolcanoPodGroup(obj);
  job.source = volcano ? api::GroupSource::kVolcano
                       : api::GroupSource::kSchedulerPlugins;
  job.unsupported_field = r.CheckFields(
      spec, "spec", volcano ? kVolcanoFields : kCoschedulingFields,
      &job.unsupported_value);
  SHOAL_ASSIGN_OR_RETURN(min_member,
                         r.Int(spec, "minMember", "spec.minMember", 1));
  // 0 is legal (Volcano accepts it): no gang minimum, every pod on its own.
  if (min_member < 0) {
    return r.Error("spec.minMember",
                   absl::StrCat("must be >= 0, got ", min_member));
  }
  job.min_member = static_cast<int32_t>(min_member);
  if (const json* mtm = Reader::Get(spec, "minTaskMember")) {
    if (!mtm->is_object())
      return r.Error("spec.minTaskMember",
                     "must be a map of task names to counts");
    for (const auto& [role, count] : mtm->items()) {
      std::string path = absl::StrCat("spec.minTaskMember.", role);
      if (!count.is_number_integer() || count.get<int64_t>() < 0) {
        return r.Error(path, absl::StrCat("must be a whole number >= 0, got ",
                                          count.dump()));
      }
      job.min_task_member[role] = count.get<int32_t>();
    }
  }
  if (const json* mr = Reader::Get(spec, "minResources")) {
    SHOAL_ASSIGN_OR_RETURN(res, r.WorkloadResources(mr, "spec.minResources"));
    job.min_resources = std::move(res);
  }
  SHOAL_ASSIGN_OR_RETURN(resize_cost, ResizeCostOf(r, meta));
  job.resize_cost_seconds = resize_cost;
  SHOAL_ASSIGN_OR_RETURN(throughput, ThroughputOf(r, meta));
  job.throughput = std::move(throughput);
  SHOAL_ASSIGN_OR_RETURN(progress, ProgressOf(r, meta));
  job.progress = progress;
  SHOAL_ASSIGN_OR_RETURN(kai, KaiTopology(r, meta));
  if (const json* nt =
          volcano ? Reader::Get(spec, "networkTopology") : nullptr) {
    SHOAL_ASSIGN_OR_RETURN(network, NetworkTopologyAt(r, *nt));
    job.network = network;
    if (kai.has_value()) {
      r.Warn(absl::StrCat(
          "metadata.annotations: ", kKaiRequired, " / ", kKaiPreferred,
          " are not read, because spec.networkTopology is set and says the "
          "same thing"));
    }
  } else if (kai.has_value()) {
    job.network = *kai;
  }
  if (const json* sgp =
          volcano ? Reader::Get(spec, "subGroupPolicy") : nullptr) {
    SHOAL_ASSIGN_OR_RETURN(policies, SubGroupPoliciesAt(r, *sgp));
    job.sub_group_policies = std::move(policies);
  }
  if (volcano) {
    SHOAL_ASSIGN_OR_RETURN(queue,
                           r.String(spec, "queue", "spec.queue", "default"));
    job.queue = queue.empty() ? "default" : queue;
  }
  SHOAL_ASSIGN_OR_RETURN(
      pc, r.String(spec, "priorityClassName", "spec.priorityClassName"));
  job.priority_class = pc;
  SHOAL_ASSIGN_OR_RETURN(phase,
                         r.String(status, "phase", "status.phase", "Pending"));
  if (phase == "Inqueue") {
    job.phase = api::PodGroupPhase::kInqueue;
  } else if (phase == "Running" || phase == "Scheduled") {
    job.phase = api::PodGroupPhase::kRunning;
  } else if (phase == "Unknown") {
    job.phase = api::PodGroupPhase::kUnknown;
  } else if (phase == "Completed" || phase == "Finished") {
    job.phase = api::PodGroupPhase::kCompleted;
  } else {
    job.phase = api::PodGroupPhase::kPending;
  }
  r.TakeWarnings(warnings);
  return job;
}

}  // namespace shoal::kube
