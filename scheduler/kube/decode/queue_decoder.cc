// Volcano's Queues: weight, limits, guarantee, state. kQueueFields says
// what Shoal does with each field of the spec (scheduling_fields.h).
#include "absl/strings/str_cat.h"
#include "scheduler/api/resource_name.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/reader.h"

namespace shoal::kube {
namespace {

// Volcano's QueueSpec (v1.13).
const SchedulingFields kQueueFields = {
    "queue",
    {
        {"weight", FieldUse::kHonoured},
        {"capability", FieldUse::kHonoured},
        {"deserved", FieldUse::kHonoured},
        {"guarantee", FieldUse::kHonoured},
        {"reclaimable", FieldUse::kHonoured},
        {"priority", FieldUse::kHonoured},
        // A queue hierarchy: the parent's limits bound its children
        // (scheduler/api/queue_tree.h).
        {"parent", FieldUse::kHonoured},
        // Node groups the queue's pods must (or prefer to) run on.
        {"affinity", FieldUse::kNotImplemented},
        // In which order a queue's jobs are tried for admission.
        {"dequeueStrategy", FieldUse::kNotImplemented},
        // For Volcano's multi-cluster dispatcher; not this cluster's
        // placement.
        {"extendClusters", FieldUse::kNoEffect},
        {"type", FieldUse::kNoEffect},
    }};

// Volcano's quota of a consumable capacity of a class's devices,
// "<dim>.deviceclass/<class>" (cores of shared GPUs): Shoal counts whole
// devices ("deviceclass/<class>") only, so it says it does not bound by
// these rather than leave them unenforced without a word.
bool IsDeviceCapacityName(absl::string_view name) {
  const size_t at = name.find(".deviceclass/");
  return at != absl::string_view::npos && at > 0 && name.find('/') == at + 12;
}

void WarnDeviceCapacity(const Reader& r, const json* list,
                        absl::string_view path) {
  if (list == nullptr || !list->is_object()) return;
  for (const auto& item : list->items()) {
    if (!IsDeviceCapacityName(item.key())) continue;
    r.Warn(absl::StrCat(path, "[\"", item.key(),
                        "\"]: quotas of a device capacity are not implemented "
                        "(Shoal counts whole devices, deviceclass/<class>); "
                        "the queue is not bounded by it"));
  }
}

// A queue's capability or deserved: it bounds only the resources it names;
// every other resource is kUnlimited.
absl::StatusOr<api::Resource> Limit(const Reader& r, const json& list,
                                    absl::string_view path) {
  WarnDeviceCapacity(r, &list, path);
  SHOAL_ASSIGN_OR_RETURN(named, r.WorkloadResources(&list, path));
  api::Resource limit;
  for (int id = 0; id < api::ResourceNameCount(); ++id) {
    limit.Set(static_cast<api::ResourceId>(id), api::kUnlimited);
  }
  for (const auto& item : list.items()) {
    if (!api::IsNodeResourceName(item.key()) ||
        IsDeviceCapacityName(item.key())) {
      continue;  // warned about
    }
    api::ResourceId id = *api::InternResourceName(item.key());
    limit.Set(id, named.Get(id));
  }
  return limit;
}

}  // namespace

absl::StatusOr<api::QueueInfo> DecodeQueue(const json& obj,
                                           DecodeWarnings* warnings) {
  if (auto s = RequireName(obj, "queue"); !s.ok()) return s;
  Reader r(NamedObject("queue", NameOf(obj)));
  static const json kEmpty = json::object();
  const json* spec_ptr = Reader::Get(obj, "spec");
  const json& spec = spec_ptr != nullptr ? *spec_ptr : kEmpty;
  SHOAL_ASSIGN_OR_RETURN(status_ptr, r.Section(obj, "status"));
  const json& status = *status_ptr;
  api::QueueInfo q;
  q.name = NameOf(obj);
  SHOAL_ASSIGN_OR_RETURN(weight, r.Int(spec, "weight", "spec.weight", 1));
  if (weight < 1)
    return r.Error("spec.weight", absl::StrCat("must be >= 1, got ", weight));
  q.weight = static_cast<int32_t>(weight);
  SHOAL_ASSIGN_OR_RETURN(priority, r.Int(spec, "priority", "spec.priority", 0));
  q.priority = static_cast<int32_t>(priority);
  if (const json* cap = Reader::Get(spec, "capability")) {
    SHOAL_ASSIGN_OR_RETURN(limit, Limit(r, *cap, "spec.capability"));
    q.capability = std::move(limit);
  }
  if (const json* deserved = Reader::Get(spec, "deserved")) {
    SHOAL_ASSIGN_OR_RETURN(limit, Limit(r, *deserved, "spec.deserved"));
    q.deserved = std::move(limit);
  }
  if (const json* guarantee = Reader::Get(spec, "guarantee")) {
    WarnDeviceCapacity(r, Reader::Get(*guarantee, "resource"),
                       "spec.guarantee.resource");
    SHOAL_ASSIGN_OR_RETURN(
        res, r.WorkloadResources(Reader::Get(*guarantee, "resource"),
                                 "spec.guarantee.resource"));
    q.guarantee = std::move(res);
  }
  SHOAL_ASSIGN_OR_RETURN(reclaimable,
                         r.Bool(spec, "reclaimable", "spec.reclaimable", true));
  q.reclaimable = reclaimable;
  SHOAL_ASSIGN_OR_RETURN(parent, r.String(spec, "parent", "spec.parent", ""));
  q.parent = parent;
  SHOAL_ASSIGN_OR_RETURN(state,
                         r.String(status, "state", "status.state", "Open"));
  q.open = state == "Open" || state.empty();
  // A Queue has no pods of its own to hold back: a field it cannot honour
  // is a warning (and an Event on the Queue), and the queue runs without.
  std::string value;
  std::string unsupported = r.CheckFields(spec, "spec", kQueueFields, &value);
  if (!unsupported.empty()) {
    r.Warn(absl::StrCat(unsupported, ": ", value,
                        ": Shoal does not implement it yet; the queue is "
                        "scheduled as if it were absent"));
  }
  r.TakeWarnings(warnings);
  return q;
}

}  // namespace shoal::kube
