// ResourceSlices (resource.k8s.io v1, v1beta2, v1beta1): the devices one
// driver publishes for one pool. Attribute and capacity names are kept
// fully qualified: a name without a domain belongs to the driver.
// kSliceFields and kDeviceFields list what Shoal does with each field.
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/api/quantity.h"
#include "scheduler/kube/device_fields.h"
#include "scheduler/kube/fields.h"
#include "scheduler/kube/objects.h"
#include "scheduler/kube/reader.h"

namespace shoal::kube {
namespace {

const SchedulingFields kSliceFields = {
    "resourceslice",
    {
        {"driver", FieldUse::kHonoured},
        {"pool", FieldUse::kHonoured},
        {"nodeName", FieldUse::kHonoured},
        {"nodeSelector", FieldUse::kHonoured},
        {"allNodes", FieldUse::kHonoured},
        {"devices", FieldUse::kHonoured},
        // Partitionable devices and per-device node selection (alpha).
        {"sharedCounters", FieldUse::kNotImplemented},
        {"perDeviceNodeSelection", FieldUse::kNotImplemented},
    }};

const SchedulingFields kDeviceFields = {
    "resourceslice device",
    {
        {"name", FieldUse::kHonoured},
        {"attributes", FieldUse::kHonoured},
        {"capacity", FieldUse::kHonoured},
        {"basic", FieldUse::kHonoured},  // v1beta1's wrapper
        {"consumesCounters", FieldUse::kNotImplemented},
        {"nodeName", FieldUse::kNotImplemented},
        {"nodeSelector", FieldUse::kNotImplemented},
        {"allNodes", FieldUse::kNotImplemented},
        {"taints", FieldUse::kNotImplemented},
        {"bindsToNode", FieldUse::kNotImplemented},
        {"bindingConditions", FieldUse::kNotImplemented},
        {"bindingFailureConditions", FieldUse::kNotImplemented},
        {"allowMultipleAllocations", FieldUse::kNotImplemented},
    }};

std::string Qualified(const std::string& driver, const std::string& name) {
  return absl::StrContains(name, "/") ? name : absl::StrCat(driver, "/", name);
}

absl::StatusOr<api::DeviceAttribute> Attribute(const Reader& r, const json& v,
                                               const std::string& path) {
  api::DeviceAttribute a;
  if (!v.is_object() || v.size() != 1) {
    return r.Error(path, "must hold exactly one of int, bool, string, version");
  }
  const std::string kind = v.begin().key();
  const json& value = v.begin().value();
  if (kind == "int" && value.is_number_integer()) {
    a.kind = api::DeviceAttribute::Kind::kInt;
    a.i = value.get<int64_t>();
  } else if (kind == "bool" && value.is_boolean()) {
    a.kind = api::DeviceAttribute::Kind::kBool;
    a.b = value.get<bool>();
  } else if (kind == "string" && value.is_string()) {
    a.s = value.get<std::string>();
  } else if (kind == "version" && value.is_string()) {
    a.kind = api::DeviceAttribute::Kind::kVersion;
    a.s = value.get<std::string>();
  } else {
    return r.Error(path, absl::StrCat("must hold exactly one of int, bool, "
                                      "string, version, got ",
                                      v.dump()));
  }
  return a;
}

absl::StatusOr<api::Device> DecodeDevice(const Reader& r, const json& d,
                                         const std::string& driver,
                                         const std::string& path,
                                         std::string* unsupported) {
  if (!d.is_object()) return r.Error(path, "must be an object");
  api::Device out;
  SHOAL_ASSIGN_OR_RETURN(name, r.String(d, "name", path + ".name"));
  if (name.empty()) return r.Error(path + ".name", "must not be empty");
  out.name = name;
  // v1beta1 keeps attributes and capacity under `basic`.
  const json* body = Reader::Get(d, "basic");
  if (body == nullptr) body = &d;
  // Unknown fields are warned about; not-implemented ones that ask for
  // something (a false allowMultipleAllocations asks for nothing) keep
  // the slice's devices out of reach.
  r.CheckFields(*body, path, kDeviceFields);
  if (unsupported->empty())
    *unsupported = FirstUnsupported(*body, path, kDeviceFields);
  if (const json* attrs = Reader::Get(*body, "attributes")) {
    if (!attrs->is_object())
      return r.Error(path + ".attributes", "must be a map");
    for (const auto& [k, v] : attrs->items()) {
      SHOAL_ASSIGN_OR_RETURN(a, Attribute(r, v, path + ".attributes." + k));
      out.attributes.emplace_back(Qualified(driver, k), std::move(a));
    }
  }
  if (const json* caps = Reader::Get(*body, "capacity")) {
    if (!caps->is_object()) return r.Error(path + ".capacity", "must be a map");
    for (const auto& [k, v] : caps->items()) {
      // v1beta2 and v1: {value: q}; the first v1beta1 releases: q itself.
      const json* q = v.is_object() ? Reader::Get(v, "value") : &v;
      std::string text;
      if (q != nullptr && q->is_string()) text = q->get<std::string>();
      if (q != nullptr && q->is_number_integer())
        text = std::to_string(q->get<int64_t>());
      if (text.empty()) {
        return r.Error(path + ".capacity." + k,
                       absl::StrCat("must be a quantity, got ", v.dump()));
      }
      auto parsed = api::ParseQuantity(text, api::QuantityScale::kMilli);
      if (!parsed.ok()) {
        return r.Error(path + ".capacity." + k, parsed.status().message());
      }
      out.capacity.emplace_back(Qualified(driver, k), text);
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<api::ResourceSlice> DecodeResourceSlice(
    const json& obj, DecodeWarnings* warnings) {
  if (auto s = RequireName(obj, "resourceslice"); !s.ok()) return s;
  Reader r(absl::StrCat("resourceslice ", NameOf(obj)));
  api::ResourceSlice out;
  out.name = NameOf(obj);
  SHOAL_ASSIGN_OR_RETURN(spec_ptr, r.Section(obj, "spec"));
  const json& spec = *spec_ptr;
  SHOAL_ASSIGN_OR_RETURN(driver, r.String(spec, "driver", "spec.driver"));
  if (driver.empty()) return r.Error("spec.driver", "is required");
  out.driver = driver;
  SHOAL_ASSIGN_OR_RETURN(pool_ptr, r.Section(spec, "pool"));
  SHOAL_ASSIGN_OR_RETURN(pool, r.String(*pool_ptr, "name", "spec.pool.name"));
  if (pool.empty()) return r.Error("spec.pool.name", "is required");
  out.pool = pool;
  SHOAL_ASSIGN_OR_RETURN(
      generation, r.Int(*pool_ptr, "generation", "spec.pool.generation", 0));
  out.generation = generation;
  SHOAL_ASSIGN_OR_RETURN(count, r.Int(*pool_ptr, "resourceSliceCount",
                                      "spec.pool.resourceSliceCount", 1));
  if (count < 1) {
    return r.Error("spec.pool.resourceSliceCount",
                   absl::StrCat("must be >= 1, got ", count));
  }
  out.slice_count = count;
  SHOAL_ASSIGN_OR_RETURN(node, r.String(spec, "nodeName", "spec.nodeName"));
  out.node_name = node;
  SHOAL_ASSIGN_OR_RETURN(all, r.Bool(spec, "allNodes", "spec.allNodes", false));
  out.all_nodes = all;
  if (const json* sel = Reader::Get(spec, "nodeSelector")) {
    const json* terms = Reader::Get(*sel, "nodeSelectorTerms");
    if (terms == nullptr) {
      return r.Error("spec.nodeSelector.nodeSelectorTerms", "is required");
    }
    SHOAL_ASSIGN_OR_RETURN(parsed,
                           fields::NodeSelectorTerms(
                               absl::StrCat("resourceslice ", out.name), *terms,
                               "spec.nodeSelector.nodeSelectorTerms"));
    out.node_selector = std::move(parsed);
  }
  r.CheckFields(spec, "spec", kSliceFields);
  out.unsupported_field = FirstUnsupported(spec, "spec", kSliceFields);
  if (const json* devices = Reader::Get(spec, "devices")) {
    if (!devices->is_array()) return r.Error("spec.devices", "must be a list");
    for (size_t i = 0; i < devices->size(); ++i) {
      SHOAL_ASSIGN_OR_RETURN(d,
                             DecodeDevice(r, (*devices)[i], driver,
                                          absl::StrCat("spec.devices[", i, "]"),
                                          &out.unsupported_field));
      out.devices.push_back(std::move(d));
    }
  }
  if (!out.unsupported_field.empty()) {
    r.Warn(absl::StrCat(out.unsupported_field,
                        " is not implemented by Shoal; the slice's devices "
                        "are not offered to claims"));
  }
  r.TakeWarnings(warnings);
  return out;
}

}  // namespace shoal::kube
