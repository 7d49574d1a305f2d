// ResourceSlices (resource.k8s.io v1, v1beta2, v1beta1): the devices one
// driver publishes for one pool. Attribute and capacity names are kept
// fully qualified: a name without a domain belongs to the driver.
// kSliceFields and kDeviceFields list what Shoal does with each field.
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/api/quantity.h"
#include "scheduler/kube/decode/device_fields.h"
#include "scheduler/kube/decode/fields.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/reader.h"

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
        {"sharedCounters", FieldUse::kHonoured},
        {"perDeviceNodeSelection", FieldUse::kHonoured},
    }};

const SchedulingFields kDeviceFields = {
    "resourceslice device",
    {
        {"name", FieldUse::kHonoured},
        {"attributes", FieldUse::kHonoured},
        {"capacity", FieldUse::kHonoured},
        {"basic", FieldUse::kHonoured},  // v1beta1's wrapper
        {"consumesCounters", FieldUse::kHonoured},
        {"nodeName", FieldUse::kHonoured},
        {"nodeSelector", FieldUse::kHonoured},
        {"allNodes", FieldUse::kHonoured},
        {"taints", FieldUse::kHonoured},
        {"allowMultipleAllocations", FieldUse::kHonoured},
        {"bindsToNode", FieldUse::kHonoured},
        {"bindingConditions", FieldUse::kHonoured},
        {"bindingFailureConditions", FieldUse::kHonoured},
    }};

// A map of counters {name: {value: q}} at `path`.
absl::StatusOr<std::vector<api::CounterAmount>> Counters(
    const Reader& r, const json* counters, const std::string& path) {
  std::vector<api::CounterAmount> out;
  if (counters == nullptr) return out;
  if (!counters->is_object()) return r.Error(path, "must be a map");
  for (const auto& [name, c] : counters->items()) {
    const json* v = c.is_object() ? Reader::Get(c, "value") : nullptr;
    if (v == nullptr)
      return r.Error(path + "." + name + ".value", "is required");
    SHOAL_ASSIGN_OR_RETURN(text,
                           QuantityText(r, *v, path + "." + name + ".value"));
    out.push_back({name, text});
  }
  return out;
}

absl::StatusOr<std::vector<api::CounterSet>> CounterSets(
    const Reader& r, const json* sets, const std::string& path) {
  std::vector<api::CounterSet> out;
  if (sets == nullptr) return out;
  if (!sets->is_array()) return r.Error(path, "must be a list");
  for (size_t i = 0; i < sets->size(); ++i) {
    const std::string at = absl::StrCat(path, "[", i, "]");
    const json& e = (*sets)[i];
    if (!e.is_object()) return r.Error(at, "must be an object");
    SHOAL_ASSIGN_OR_RETURN(name, r.String(e, "name", at + ".name"));
    if (name.empty()) return r.Error(at + ".name", "is required");
    SHOAL_ASSIGN_OR_RETURN(
        counters, Counters(r, Reader::Get(e, "counters"), at + ".counters"));
    out.push_back({name, std::move(counters)});
  }
  return out;
}

absl::StatusOr<api::CapacityPolicy> Policy(const Reader& r, const json& p,
                                           const std::string& path) {
  api::CapacityPolicy out;
  if (!p.is_object()) return r.Error(path, "must be an object");
  if (const json* d = Reader::Get(p, "default")) {
    SHOAL_ASSIGN_OR_RETURN(text, QuantityText(r, *d, path + ".default"));
    out.default_value = text;
  }
  if (const json* values = Reader::Get(p, "validValues")) {
    if (!values->is_array())
      return r.Error(path + ".validValues", "must be a list");
    for (size_t i = 0; i < values->size(); ++i) {
      SHOAL_ASSIGN_OR_RETURN(
          text, QuantityText(r, (*values)[i],
                             absl::StrCat(path, ".validValues[", i, "]")));
      out.valid_values.push_back(text);
    }
  }
  if (const json* range = Reader::Get(p, "validRange")) {
    const std::string at = path + ".validRange";
    if (!range->is_object()) return r.Error(at, "must be an object");
    const json* min = Reader::Get(*range, "min");
    if (min == nullptr) return r.Error(at + ".min", "is required");
    SHOAL_ASSIGN_OR_RETURN(min_text, QuantityText(r, *min, at + ".min"));
    out.min = min_text;
    if (const json* max = Reader::Get(*range, "max")) {
      SHOAL_ASSIGN_OR_RETURN(text, QuantityText(r, *max, at + ".max"));
      out.max = text;
    }
    if (const json* step = Reader::Get(*range, "step")) {
      SHOAL_ASSIGN_OR_RETURN(text, QuantityText(r, *step, at + ".step"));
      if (*api::ParseQuantity(text, api::QuantityScale::kMilli) == 0)
        return r.Error(at + ".step", "must be greater than zero");
      out.step = text;
    }
  }
  return out;
}

// perDeviceNodeSelection's per-device nodeName, nodeSelector, allNodes.
absl::Status DeviceNodes(const Reader& r, const json& d,
                         const std::string& path, api::Device& out) {
  SHOAL_ASSIGN_OR_RETURN(node, r.String(d, "nodeName", path + ".nodeName"));
  out.node_name = node;
  SHOAL_ASSIGN_OR_RETURN(all, r.Bool(d, "allNodes", path + ".allNodes", false));
  out.all_nodes = all;
  if (const json* sel = Reader::Get(d, "nodeSelector")) {
    const json* terms = Reader::Get(*sel, "nodeSelectorTerms");
    if (terms == nullptr)
      return r.Error(path + ".nodeSelector.nodeSelectorTerms", "is required");
    SHOAL_ASSIGN_OR_RETURN(
        parsed,
        fields::NodeSelectorTerms(r.object(), *terms,
                                  path + ".nodeSelector.nodeSelectorTerms"));
    out.node_selector = std::move(parsed);
  }
  return absl::OkStatus();
}

std::string Qualified(const std::string& driver, const std::string& name) {
  return absl::StrContains(name, "/") ? name : absl::StrCat(driver, "/", name);
}

constexpr const char* kAttributeKinds =
    "int, bool, string, version, ints, bools, strings, versions";

// A list-typed attribute (DRAListTypeAttributes): `kind` is "ints",
// "bools", "strings" or "versions", `value` a non-empty list of that.
absl::StatusOr<api::DeviceAttribute> ListAttribute(const Reader& r,
                                                   const std::string& kind,
                                                   const json& value,
                                                   const std::string& path) {
  const std::string at = absl::StrCat(path, ".", kind);
  const char* element = kind == "ints"    ? "an integer"
                        : kind == "bools" ? "a boolean"
                                          : "a string";
  if (!value.is_array()) {
    return r.Error(
        at, absl::StrCat("must be a list of ", kind, ", got ", value.dump()));
  }
  if (value.empty()) return r.Error(at, "must not be empty");
  api::DeviceAttribute a;
  a.list = true;
  a.kind = kind == "ints"       ? api::DeviceAttribute::Kind::kInt
           : kind == "bools"    ? api::DeviceAttribute::Kind::kBool
           : kind == "versions" ? api::DeviceAttribute::Kind::kVersion
                                : api::DeviceAttribute::Kind::kString;
  for (size_t k = 0; k < value.size(); ++k) {
    const json& e = value[k];
    const bool fits = kind == "ints"    ? e.is_number_integer()
                      : kind == "bools" ? e.is_boolean()
                                        : e.is_string();
    if (!fits) {
      return r.Error(absl::StrCat(at, "[", k, "]"),
                     absl::StrCat("must be ", element, ", got ", e.dump()));
    }
    if (kind == "ints") {
      a.ints.push_back(e.get<int64_t>());
    } else if (kind == "bools") {
      a.bools.push_back(e.get<bool>());
    } else {
      a.strings.push_back(e.get<std::string>());
    }
  }
  return a;
}

absl::StatusOr<api::DeviceAttribute> Attribute(const Reader& r, const json& v,
                                               const std::string& path) {
  api::DeviceAttribute a;
  if (!v.is_object() || v.size() != 1) {
    return r.Error(path, absl::StrCat("must hold exactly one of ",
                                      kAttributeKinds, ", got ", v.dump()));
  }
  const std::string kind = v.begin().key();
  const json& value = v.begin().value();
  if (kind == "ints" || kind == "bools" || kind == "strings" ||
      kind == "versions") {
    return ListAttribute(r, kind, value, path);
  }
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
    return r.Error(path, absl::StrCat("must hold exactly one of ",
                                      kAttributeKinds, ", got ", v.dump()));
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
      if (q == nullptr) {
        return r.Error(path + ".capacity." + k,
                       absl::StrCat("must be a quantity, got ", v.dump()));
      }
      SHOAL_ASSIGN_OR_RETURN(text,
                             QuantityText(r, *q, path + ".capacity." + k));
      api::DeviceCapacity c{Qualified(driver, k), text, k, std::nullopt};
      if (const json* p =
              v.is_object() ? Reader::Get(v, "requestPolicy") : nullptr) {
        SHOAL_ASSIGN_OR_RETURN(
            policy, Policy(r, *p, path + ".capacity." + k + ".requestPolicy"));
        c.policy = std::move(policy);
      }
      out.capacity.push_back(std::move(c));
    }
  }
  if (const json* uses = Reader::Get(*body, "consumesCounters")) {
    if (!uses->is_array())
      return r.Error(path + ".consumesCounters", "must be a list");
    for (size_t i = 0; i < uses->size(); ++i) {
      const std::string at = absl::StrCat(path, ".consumesCounters[", i, "]");
      const json& e = (*uses)[i];
      if (!e.is_object()) return r.Error(at, "must be an object");
      SHOAL_ASSIGN_OR_RETURN(set,
                             r.String(e, "counterSet", at + ".counterSet"));
      if (set.empty()) return r.Error(at + ".counterSet", "is required");
      SHOAL_ASSIGN_OR_RETURN(
          counters, Counters(r, Reader::Get(e, "counters"), at + ".counters"));
      out.consumes_counters.push_back({set, std::move(counters)});
    }
  }
  SHOAL_RETURN_IF_ERROR(DeviceNodes(r, *body, path, out));
  SHOAL_ASSIGN_OR_RETURN(
      taints, Taints(r, Reader::Get(*body, "taints"), path + ".taints"));
  out.taints = std::move(taints);
  SHOAL_ASSIGN_OR_RETURN(multi,
                         r.Bool(*body, "allowMultipleAllocations",
                                path + ".allowMultipleAllocations", false));
  out.allow_multiple_allocations = multi;
  SHOAL_ASSIGN_OR_RETURN(
      binds, r.Bool(*body, "bindsToNode", path + ".bindsToNode", false));
  out.binds_to_node = binds;
  SHOAL_ASSIGN_OR_RETURN(conditions,
                         StringList(r, Reader::Get(*body, "bindingConditions"),
                                    path + ".bindingConditions"));
  out.binding_conditions = std::move(conditions);
  SHOAL_ASSIGN_OR_RETURN(
      failures, StringList(r, Reader::Get(*body, "bindingFailureConditions"),
                           path + ".bindingFailureConditions"));
  out.binding_failure_conditions = std::move(failures);
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
  SHOAL_ASSIGN_OR_RETURN(per_device,
                         r.Bool(spec, "perDeviceNodeSelection",
                                "spec.perDeviceNodeSelection", false));
  out.per_device_node_selection = per_device;
  SHOAL_ASSIGN_OR_RETURN(shared,
                         CounterSets(r, Reader::Get(spec, "sharedCounters"),
                                     "spec.sharedCounters"));
  out.shared_counters = std::move(shared);
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
