#include "scheduler/kube/decode/volumes.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/kube/decode/fields.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

#define SHOAL_ASSIGN_OR_RETURN(lhs, expr)       \
  auto lhs##_or = (expr);                       \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = std::move(*lhs##_or)

// Annotations that speak for a claim's class and binding (the PV
// controller's and the legacy class annotation, which wins over
// spec.storageClassName as in kube-scheduler).
constexpr char kBetaStorageClass[] = "volume.beta.kubernetes.io/storage-class";
constexpr char kBindCompleted[] = "pv.kubernetes.io/bind-completed";

// `obj[key]` when present: it must be an object; an empty object otherwise.
absl::StatusOr<const json*> Object(const std::string& what, const json& obj,
                                   const char* key, absl::string_view path) {
  static const json kEmpty = json::object();
  const json* v = fields::Get(obj, key);
  if (v == nullptr) return &kEmpty;
  if (!v->is_object()) {
    return fields::Error(what, path,
                         absl::StrCat("must be an object, got ", v->dump()));
  }
  return v;
}

}  // namespace

absl::StatusOr<std::vector<api::VolumeClaimRef>> DecodePodVolumeClaims(
    const json& spec, const std::string& pod_name, const std::string& what) {
  std::vector<api::VolumeClaimRef> out;
  const json* volumes = fields::Get(spec, "volumes");
  if (volumes == nullptr) return out;
  if (!volumes->is_array())
    return fields::Error(what, "spec.volumes", "must be a list");
  for (size_t i = 0; i < volumes->size(); ++i) {
    const json& v = (*volumes)[i];
    const std::string path = absl::StrCat("spec.volumes[", i, "]");
    if (!v.is_object()) {
      return fields::Error(what, path,
                           absl::StrCat("must be an object, got ", v.dump()));
    }
    if (const json* pvc = fields::Get(v, "persistentVolumeClaim")) {
      const std::string p = path + ".persistentVolumeClaim";
      if (!pvc->is_object()) return fields::Error(what, p, "must be an object");
      SHOAL_ASSIGN_OR_RETURN(
          claim, fields::String(what, *pvc, "claimName", p + ".claimName"));
      if (claim.empty())
        return fields::Error(what, p + ".claimName", "is required");
      out.push_back({claim, false});
    } else if (const json* eph = fields::Get(v, "ephemeral")) {
      if (!eph->is_object())
        return fields::Error(what, path + ".ephemeral", "must be an object");
      SHOAL_ASSIGN_OR_RETURN(name,
                             fields::String(what, v, "name", path + ".name"));
      if (name.empty())
        return fields::Error(what, path + ".name", "is required");
      out.push_back({absl::StrCat(pod_name, "-", name), true});
    }
  }
  return out;
}

absl::StatusOr<api::PersistentVolumeClaim> DecodePersistentVolumeClaim(
    const json& obj) {
  if (auto s = fields::RequireName(obj, "persistentvolumeclaim"); !s.ok())
    return s;
  api::PersistentVolumeClaim c;
  c.ns = fields::Namespace(obj);
  c.name = fields::Name(obj);
  const std::string what = absl::StrCat("persistentvolumeclaim ", c.Key());
  const json& meta = fields::Metadata(obj);
  SHOAL_ASSIGN_OR_RETURN(spec, Object(what, obj, "spec", "spec"));
  SHOAL_ASSIGN_OR_RETURN(status, Object(what, obj, "status", "status"));
  SHOAL_ASSIGN_OR_RETURN(
      annotations, fields::StringMap(what, fields::Get(meta, "annotations"),
                                     "metadata.annotations"));
  SHOAL_ASSIGN_OR_RETURN(
      volume, fields::String(what, *spec, "volumeName", "spec.volumeName"));
  c.volume_name = volume;
  SHOAL_ASSIGN_OR_RETURN(cls, fields::String(what, *spec, "storageClassName",
                                             "spec.storageClassName"));
  c.storage_class = cls;
  bool bind_completed = false;
  for (const auto& [k, v] : annotations) {
    if (k == kBetaStorageClass) c.storage_class = v;
    if (k == kBindCompleted) bind_completed = true;
  }
  SHOAL_ASSIGN_OR_RETURN(
      phase, fields::String(what, *status, "phase", "status.phase"));
  c.bound = !c.volume_name.empty() && (phase == "Bound" || bind_completed);
  c.lost = phase == "Lost";
  c.deleting = fields::Get(meta, "deletionTimestamp") != nullptr;
  if (const json* owners = fields::Get(meta, "ownerReferences")) {
    if (!owners->is_array())
      return fields::Error(what, "metadata.ownerReferences", "must be a list");
    for (size_t i = 0; i < owners->size(); ++i) {
      const json& o = (*owners)[i];
      const std::string p = absl::StrCat("metadata.ownerReferences[", i, "]");
      if (!o.is_object()) return fields::Error(what, p, "must be an object");
      const json* controller = fields::Get(o, "controller");
      if (controller != nullptr && !controller->is_boolean()) {
        return fields::Error(
            what, p + ".controller",
            absl::StrCat("must be true or false, got ", controller->dump()));
      }
      SHOAL_ASSIGN_OR_RETURN(uid, fields::String(what, o, "uid", p + ".uid"));
      if (controller != nullptr && controller->get<bool>()) c.owner_uid = uid;
    }
  }
  return c;
}

absl::StatusOr<api::PersistentVolume> DecodePersistentVolume(const json& obj) {
  if (auto s = fields::RequireName(obj, "persistentvolume"); !s.ok()) return s;
  api::PersistentVolume pv;
  pv.name = fields::Name(obj);
  const std::string what = absl::StrCat("persistentvolume ", pv.name);
  SHOAL_ASSIGN_OR_RETURN(
      labels,
      fields::StringMap(what, fields::Get(fields::Metadata(obj), "labels"),
                        "metadata.labels"));
  pv.labels = api::Labels(std::move(labels));
  SHOAL_ASSIGN_OR_RETURN(spec, Object(what, obj, "spec", "spec"));
  SHOAL_ASSIGN_OR_RETURN(cls, fields::String(what, *spec, "storageClassName",
                                             "spec.storageClassName"));
  pv.storage_class = cls;
  SHOAL_ASSIGN_OR_RETURN(
      affinity, Object(what, *spec, "nodeAffinity", "spec.nodeAffinity"));
  if (const json* required = fields::Get(*affinity, "required")) {
    const std::string path = "spec.nodeAffinity.required";
    if (!required->is_object())
      return fields::Error(what, path, "must be an object");
    const json* terms = fields::Get(*required, "nodeSelectorTerms");
    static const json kNone = json::array();
    SHOAL_ASSIGN_OR_RETURN(
        t, fields::NodeSelectorTerms(what, terms != nullptr ? *terms : kNone,
                                     path + ".nodeSelectorTerms"));
    pv.node_affinity = std::move(t);
  }
  SHOAL_ASSIGN_OR_RETURN(claim_ref,
                         Object(what, *spec, "claimRef", "spec.claimRef"));
  SHOAL_ASSIGN_OR_RETURN(claim_ns, fields::String(what, *claim_ref, "namespace",
                                                  "spec.claimRef.namespace"));
  SHOAL_ASSIGN_OR_RETURN(claim_name, fields::String(what, *claim_ref, "name",
                                                    "spec.claimRef.name"));
  pv.claim_ns = claim_ns;
  pv.claim_name = claim_name;
  SHOAL_ASSIGN_OR_RETURN(csi, Object(what, *spec, "csi", "spec.csi"));
  SHOAL_ASSIGN_OR_RETURN(
      driver, fields::String(what, *csi, "driver", "spec.csi.driver"));
  SHOAL_ASSIGN_OR_RETURN(handle, fields::String(what, *csi, "volumeHandle",
                                                "spec.csi.volumeHandle"));
  pv.csi_driver = driver;
  pv.csi_handle = handle;
  return pv;
}

absl::StatusOr<api::StorageClass> DecodeStorageClass(const json& obj) {
  if (auto s = fields::RequireName(obj, "storageclass"); !s.ok()) return s;
  api::StorageClass sc;
  sc.name = fields::Name(obj);
  const std::string what = absl::StrCat("storageclass ", sc.name);
  SHOAL_ASSIGN_OR_RETURN(
      mode, fields::String(what, obj, "volumeBindingMode", "volumeBindingMode",
                           "Immediate"));
  if (mode == "WaitForFirstConsumer") {
    sc.binding_mode = api::VolumeBindingMode::kWaitForFirstConsumer;
  } else if (mode != "Immediate") {
    return fields::Error(
        what, "volumeBindingMode",
        absl::StrCat("unknown binding mode \"", mode,
                     "\" (valid: Immediate, WaitForFirstConsumer)"));
  }
  return sc;
}

absl::StatusOr<api::CsiNode> DecodeCsiNode(const json& obj) {
  if (auto s = fields::RequireName(obj, "csinode"); !s.ok()) return s;
  api::CsiNode node;
  node.name = fields::Name(obj);
  const std::string what = absl::StrCat("csinode ", node.name);
  SHOAL_ASSIGN_OR_RETURN(spec, Object(what, obj, "spec", "spec"));
  const json* drivers = fields::Get(*spec, "drivers");
  if (drivers == nullptr) return node;
  if (!drivers->is_array())
    return fields::Error(what, "spec.drivers", "must be a list");
  for (size_t i = 0; i < drivers->size(); ++i) {
    const json& d = (*drivers)[i];
    const std::string path = absl::StrCat("spec.drivers[", i, "]");
    if (!d.is_object()) {
      return fields::Error(what, path,
                           absl::StrCat("must be an object, got ", d.dump()));
    }
    SHOAL_ASSIGN_OR_RETURN(name,
                           fields::String(what, d, "name", path + ".name"));
    if (name.empty()) return fields::Error(what, path + ".name", "is required");
    SHOAL_ASSIGN_OR_RETURN(
        allocatable, Object(what, d, "allocatable", path + ".allocatable"));
    const json* count = fields::Get(*allocatable, "count");
    if (count == nullptr) continue;  // no limit for this driver
    const std::string count_path = path + ".allocatable.count";
    if (!count->is_number_integer()) {
      return fields::Error(
          what, count_path,
          absl::StrCat("must be a whole number, got ", count->dump()));
    }
    int64_t n = count->is_number_unsigned()
                    ? static_cast<int64_t>(
                          std::min<uint64_t>(count->get<uint64_t>(), INT64_MAX))
                    : count->get<int64_t>();
    if (n < 0) {
      return fields::Error(what, count_path,
                           absl::StrCat("must not be negative, got ", n));
    }
    node.limits.push_back({name, n});
  }
  return node;
}

}  // namespace shoal::kube
