// PodGroups of Volcano (scheduling.volcano.sh) and of scheduler-plugins'
// coscheduling (scheduling.x-k8s.io), read into one JobInfo. The field
// lists say what Shoal does with each field of either spec
// (scheduling_fields.h).
#include "absl/strings/str_cat.h"
#include "scheduler/kube/objects.h"
#include "scheduler/kube/reader.h"

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
        // Network-topology-aware placement (HyperNodes) and the sub-groups
        // it places together.
        {"networkTopology", FieldUse::kNotImplemented},
        {"subGroupPolicy", FieldUse::kNotImplemented},
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
