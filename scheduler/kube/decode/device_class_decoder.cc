// DeviceClasses (resource.k8s.io): the CEL selectors a device must pass
// to be of the class, and configuration copied into allocations.
#include "absl/strings/str_cat.h"
#include "scheduler/api/resource_name.h"
#include "scheduler/kube/decode/device_fields.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/reader.h"

namespace shoal::kube {
namespace {

const SchedulingFields kDeviceClassFields = {
    "deviceclass",
    {
        {"selectors", FieldUse::kHonoured},
        {"config", FieldUse::kHonoured},
        // The extended resource the class's devices also serve (alpha,
        // 1.34): queues count the class's devices under that name too.
        // Shoal does not turn a container's request for it into a claim:
        // such pods go only to nodes that publish it (README, "Devices").
        {"extendedResourceName", FieldUse::kHonoured},
    }};

}  // namespace

absl::StatusOr<std::vector<std::string>> DeviceSelectors(
    const Reader& r, const json* list, const std::string& path) {
  std::vector<std::string> out;
  if (list == nullptr) return out;
  if (!list->is_array()) return r.Error(path, "must be a list");
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string at = absl::StrCat(path, "[", i, "]");
    const json* cel = Reader::Get((*list)[i], "cel");
    if (cel == nullptr) {
      return r.Error(at, "must have cel (the only selector kind there is)");
    }
    SHOAL_ASSIGN_OR_RETURN(
        expr, r.String(*cel, "expression", at + ".cel.expression"));
    if (expr.empty()) return r.Error(at + ".cel.expression", "is required");
    out.push_back(expr);
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> DeviceConfig(const Reader& r,
                                                      const json* list,
                                                      const std::string& path) {
  std::vector<std::string> out;
  if (list == nullptr) return out;
  if (!list->is_array()) return r.Error(path, "must be a list");
  for (size_t i = 0; i < list->size(); ++i) {
    const json& e = (*list)[i];
    if (!e.is_object() || Reader::Get(e, "opaque") == nullptr) {
      return r.Error(absl::StrCat(path, "[", i, "]"),
                     absl::StrCat("must have opaque, got ", e.dump()));
    }
    out.push_back(e.dump());
  }
  return out;
}

std::string FirstUnsupported(const json& section, const std::string& path,
                             const SchedulingFields& fields) {
  if (!section.is_object()) return "";
  for (const auto& [k, v] : section.items()) {
    const FieldRule* rule = fields.Find(k);
    if (rule == nullptr || rule->use != FieldUse::kNotImplemented) continue;
    const bool asks = v.is_boolean()                  ? v.get<bool>()
                      : v.is_array() || v.is_object() ? !v.empty()
                                                      : !v.is_null();
    if (asks) return absl::StrCat(path, ".", k);
  }
  return "";
}

absl::StatusOr<api::DeviceClass> DecodeDeviceClass(const json& obj,
                                                   DecodeWarnings* warnings) {
  if (auto s = RequireName(obj, "deviceclass"); !s.ok()) return s;
  Reader r(absl::StrCat("deviceclass ", NameOf(obj)));
  api::DeviceClass out;
  out.name = NameOf(obj);
  SHOAL_ASSIGN_OR_RETURN(spec, r.Section(obj, "spec"));
  SHOAL_ASSIGN_OR_RETURN(
      selectors,
      DeviceSelectors(r, Reader::Get(*spec, "selectors"), "spec.selectors"));
  out.selectors = std::move(selectors);
  SHOAL_ASSIGN_OR_RETURN(
      config, DeviceConfig(r, Reader::Get(*spec, "config"), "spec.config"));
  out.config = std::move(config);
  SHOAL_ASSIGN_OR_RETURN(extended, r.String(*spec, "extendedResourceName",
                                            "spec.extendedResourceName", ""));
  if (!extended.empty() && (extended.find('/') == std::string::npos ||
                            !api::IsNodeResourceName(extended))) {
    return r.Error("spec.extendedResourceName",
                   absl::StrCat("must be an extended resource name such as "
                                "example.com/gpu, got \"",
                                extended, "\""));
  }
  out.extended_resource_name = extended;
  out.unsupported_field = r.CheckFields(*spec, "spec", kDeviceClassFields);
  r.TakeWarnings(warnings);
  return out;
}

}  // namespace shoal::kube
