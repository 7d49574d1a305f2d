// ResourceClaims (resource.k8s.io v1, v1beta2, v1beta1): what devices a
// pod asks for, and, once a scheduler has allocated them, which ones it
// got and which pods use them. v1beta1 writes a request's class and
// amount on the request itself; v1beta2 and v1 under `exactly`.
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "scheduler/kube/decode/device_fields.h"
#include "scheduler/kube/decode/device_json.h"
#include "scheduler/kube/decode/fields.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/reader.h"

namespace shoal::kube {

namespace {

// A request's (or subrequest's) fields and what Shoal does with each.
const SchedulingFields kRequestFields = {
    "resourceclaim request",
    {
        {"name", FieldUse::kHonoured},
        {"exactly", FieldUse::kHonoured},
        {"firstAvailable", FieldUse::kHonoured},
        {"deviceClassName", FieldUse::kHonoured},
        {"selectors", FieldUse::kHonoured},
        {"allocationMode", FieldUse::kHonoured},
        {"count", FieldUse::kHonoured},
        {"adminAccess", FieldUse::kHonoured},
        {"tolerations", FieldUse::kHonoured},
        {"capacity", FieldUse::kHonoured},
    }};

const SchedulingFields kDevicesFields = {
    "resourceclaim",
    {
        {"requests", FieldUse::kHonoured},
        {"constraints", FieldUse::kHonoured},
        {"config", FieldUse::kHonoured},
    }};

absl::StatusOr<api::DeviceChoice> Choice(const Reader& r, const json& c,
                                         const std::string& path,
                                         std::string* unsupported) {
  api::DeviceChoice out;
  r.CheckFields(c, path, kRequestFields);
  if (unsupported->empty())
    *unsupported = FirstUnsupported(c, path, kRequestFields);
  SHOAL_ASSIGN_OR_RETURN(name, r.String(c, "name", path + ".name"));
  out.name = name;
  SHOAL_ASSIGN_OR_RETURN(
      cls, r.String(c, "deviceClassName", path + ".deviceClassName"));
  if (cls.empty()) return r.Error(path + ".deviceClassName", "is required");
  out.device_class = cls;
  SHOAL_ASSIGN_OR_RETURN(
      selectors,
      DeviceSelectors(r, Reader::Get(c, "selectors"), path + ".selectors"));
  out.selectors = std::move(selectors);
  SHOAL_ASSIGN_OR_RETURN(
      mode,
      r.String(c, "allocationMode", path + ".allocationMode", "ExactCount"));
  if (mode == "All") {
    out.mode = api::AllocationMode::kAll;
  } else if (mode != "ExactCount") {
    return r.Error(
        path + ".allocationMode",
        absl::StrCat("must be ExactCount or All, got \"", mode, "\""));
  }
  SHOAL_ASSIGN_OR_RETURN(count, r.Int(c, "count", path + ".count", 1));
  if (out.mode == api::AllocationMode::kExactCount && count < 1) {
    return r.Error(path + ".count", absl::StrCat("must be >= 1, got ", count));
  }
  out.count = count;
  SHOAL_ASSIGN_OR_RETURN(
      admin, r.Bool(c, "adminAccess", path + ".adminAccess", false));
  out.admin_access = admin;
  SHOAL_ASSIGN_OR_RETURN(
      tolerations,
      Tolerations(r, Reader::Get(c, "tolerations"), path + ".tolerations"));
  out.tolerations = std::move(tolerations);
  if (const json* cap = Reader::Get(c, "capacity")) {
    const json* requests = Reader::Get(*cap, "requests");
    if (requests != nullptr && !requests->is_object())
      return r.Error(path + ".capacity.requests", "must be a map");
    if (requests != nullptr) {
      for (const auto& [name, q] : requests->items()) {
        SHOAL_ASSIGN_OR_RETURN(
            text, QuantityText(r, q, path + ".capacity.requests." + name));
        out.capacity_requests.emplace_back(name, text);
      }
    }
  }
  return out;
}

absl::StatusOr<api::DeviceRequest> Request(const Reader& r, const json& q,
                                           const std::string& path,
                                           std::string* unsupported) {
  if (!q.is_object()) return r.Error(path, "must be an object");
  api::DeviceRequest out;
  SHOAL_ASSIGN_OR_RETURN(name, r.String(q, "name", path + ".name"));
  if (name.empty()) return r.Error(path + ".name", "is required");
  out.name = name;
  if (const json* alts = Reader::Get(q, "firstAvailable")) {
    if (!alts->is_array() || alts->empty()) {
      return r.Error(path + ".firstAvailable", "must be a non-empty list");
    }
    out.first_available = true;
    for (size_t i = 0; i < alts->size(); ++i) {
      SHOAL_ASSIGN_OR_RETURN(
          c,
          Choice(r, (*alts)[i], absl::StrCat(path, ".firstAvailable[", i, "]"),
                 unsupported));
      if (c.name.empty()) {
        return r.Error(absl::StrCat(path, ".firstAvailable[", i, "].name"),
                       "is required");
      }
      out.choices.push_back(std::move(c));
    }
    return out;
  }
  // v1 and v1beta2: `exactly`; v1beta1: on the request itself.
  const json* exactly = Reader::Get(q, "exactly");
  SHOAL_ASSIGN_OR_RETURN(
      c, Choice(r, exactly != nullptr ? *exactly : q,
                exactly != nullptr ? path + ".exactly" : path, unsupported));
  c.name = name;
  out.choices.push_back(std::move(c));
  return out;
}

absl::StatusOr<api::DeviceAllocation> Allocation(const Reader& r,
                                                 const json& a) {
  api::DeviceAllocation out;
  SHOAL_ASSIGN_OR_RETURN(devices, r.Section(a, "devices"));
  if (const json* results = Reader::Get(*devices, "results")) {
    if (!results->is_array()) {
      return r.Error("status.allocation.devices.results", "must be a list");
    }
    for (size_t i = 0; i < results->size(); ++i) {
      const json& e = (*results)[i];
      const std::string at =
          absl::StrCat("status.allocation.devices.results[", i, "]");
      api::DeviceResult d;
      SHOAL_ASSIGN_OR_RETURN(req, r.String(e, "request", at + ".request"));
      SHOAL_ASSIGN_OR_RETURN(drv, r.String(e, "driver", at + ".driver"));
      SHOAL_ASSIGN_OR_RETURN(pool, r.String(e, "pool", at + ".pool"));
      SHOAL_ASSIGN_OR_RETURN(dev, r.String(e, "device", at + ".device"));
      d.request = req;
      d.driver = drv;
      d.pool = pool;
      d.device = dev;
      SHOAL_ASSIGN_OR_RETURN(
          admin, r.Bool(e, "adminAccess", at + ".adminAccess", false));
      d.admin_access = admin;
      SHOAL_ASSIGN_OR_RETURN(
          tolerations,
          Tolerations(r, Reader::Get(e, "tolerations"), at + ".tolerations"));
      d.tolerations = std::move(tolerations);
      SHOAL_ASSIGN_OR_RETURN(conditions,
                             StringList(r, Reader::Get(e, "bindingConditions"),
                                        at + ".bindingConditions"));
      d.binding_conditions = std::move(conditions);
      SHOAL_ASSIGN_OR_RETURN(
          failures, StringList(r, Reader::Get(e, "bindingFailureConditions"),
                               at + ".bindingFailureConditions"));
      d.binding_failure_conditions = std::move(failures);
      SHOAL_ASSIGN_OR_RETURN(share, r.String(e, "shareID", at + ".shareID"));
      d.share_id = share;
      if (const json* used = Reader::Get(e, "consumedCapacity")) {
        if (!used->is_object())
          return r.Error(at + ".consumedCapacity", "must be a map");
        for (const auto& [name, q] : used->items()) {
          SHOAL_ASSIGN_OR_RETURN(
              text, QuantityText(r, q, at + ".consumedCapacity." + name));
          d.consumed_capacity.emplace_back(name, text);
        }
      }
      out.results.push_back(std::move(d));
    }
  }
  if (const json* config = Reader::Get(*devices, "config")) {
    if (config->is_array()) {
      for (const json& e : *config) out.config.push_back(e.dump());
    }
  }
  SHOAL_ASSIGN_OR_RETURN(stamp,
                         r.String(a, "allocationTimestamp",
                                  "status.allocation.allocationTimestamp", ""));
  if (!stamp.empty()) {
    absl::Time at;
    std::string error;
    if (!absl::ParseTime(absl::RFC3339_full, stamp, &at, &error)) {
      return r.Error(
          "status.allocation.allocationTimestamp",
          absl::StrCat("must be an RFC 3339 time, got \"", stamp, "\""));
    }
    out.allocated_at = stamp;
  }
  if (const json* sel = Reader::Get(a, "nodeSelector")) {
    const json* terms = Reader::Get(*sel, "nodeSelectorTerms");
    if (terms != nullptr) {
      SHOAL_ASSIGN_OR_RETURN(
          parsed, fields::NodeSelectorTerms(
                      "resourceclaim", *terms,
                      "status.allocation.nodeSelector.nodeSelectorTerms"));
      // One node by name (devices local to it) is kept as its name.
      if (parsed.size() == 1 && parsed[0].match_expressions.empty() &&
          parsed[0].match_fields.size() == 1 &&
          parsed[0].match_fields[0].key == "metadata.name" &&
          parsed[0].match_fields[0].op == api::SelectorOperator::kIn &&
          parsed[0].match_fields[0].values.size() == 1) {
        out.node = parsed[0].match_fields[0].values[0];
      } else {
        out.node_selector = std::move(parsed);
      }
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<api::ResourceClaim> DecodeResourceClaim(
    const json& obj, DecodeWarnings* warnings) {
  if (auto s = RequireName(obj, "resourceclaim"); !s.ok()) return s;
  api::ResourceClaim out;
  out.ns = NamespaceOf(obj);
  out.name = NameOf(obj);
  Reader r(absl::StrCat("resourceclaim ", out.Key()));
  const json& meta = Metadata(obj);
  SHOAL_ASSIGN_OR_RETURN(uid, r.String(meta, "uid", "metadata.uid"));
  out.uid = uid;
  SHOAL_ASSIGN_OR_RETURN(
      version, r.String(meta, "resourceVersion", "metadata.resourceVersion"));
  out.resource_version = version;
  if (obj.contains("apiVersion") && obj["apiVersion"].is_string())
    out.api_version = obj["apiVersion"].get<std::string>();
  out.deleting = Reader::Get(meta, "deletionTimestamp") != nullptr;
  SHOAL_ASSIGN_OR_RETURN(
      annotations,
      r.StringMap(Reader::Get(meta, "annotations"), "metadata.annotations"));
  for (const auto& [k, v] : annotations) {
    if (k == kExtendedResourceClaimAnnotation) {
      out.extended_resources = v == "true";
    }
  }
  if (const json* owners = Reader::Get(meta, "ownerReferences")) {
    if (owners->is_array()) {
      for (const json& o : *owners) {
        const json* controller = Reader::Get(o, "controller");
        const json* kind = Reader::Get(o, "kind");
        const json* uid = Reader::Get(o, "uid");
        if (controller != nullptr && controller->is_boolean() &&
            controller->get<bool>() && kind != nullptr && *kind == "Pod" &&
            uid != nullptr && uid->is_string()) {
          out.owner_uid = uid->get<std::string>();
        }
      }
    }
  }
  SHOAL_ASSIGN_OR_RETURN(spec, r.Section(obj, "spec"));
  SHOAL_ASSIGN_OR_RETURN(devices, r.Section(*spec, "devices"));
  r.CheckFields(*devices, "spec.devices", kDevicesFields);
  if (const json* requests = Reader::Get(*devices, "requests")) {
    if (!requests->is_array()) {
      return r.Error("spec.devices.requests", "must be a list");
    }
    for (size_t i = 0; i < requests->size(); ++i) {
      SHOAL_ASSIGN_OR_RETURN(
          q, Request(r, (*requests)[i],
                     absl::StrCat("spec.devices.requests[", i, "]"),
                     &out.unsupported_field));
      out.requests.push_back(std::move(q));
    }
  }
  if (const json* constraints = Reader::Get(*devices, "constraints")) {
    if (!constraints->is_array()) {
      return r.Error("spec.devices.constraints", "must be a list");
    }
    for (size_t i = 0; i < constraints->size(); ++i) {
      const json& c = (*constraints)[i];
      const std::string at = absl::StrCat("spec.devices.constraints[", i, "]");
      api::DeviceConstraint k;
      if (const json* reqs = Reader::Get(c, "requests")) {
        if (!reqs->is_array())
          return r.Error(at + ".requests", "must be a list");
        for (const json& q : *reqs) {
          if (!q.is_string()) {
            return r.Error(at + ".requests", "must be a list of names");
          }
          k.requests.push_back(q.get<std::string>());
        }
      }
      SHOAL_ASSIGN_OR_RETURN(
          attr, r.String(c, "matchAttribute", at + ".matchAttribute"));
      SHOAL_ASSIGN_OR_RETURN(distinct, r.String(c, "distinctAttribute",
                                                at + ".distinctAttribute"));
      k.distinct_attribute = distinct;
      if (attr.empty() && distinct.empty()) {
        if (out.unsupported_field.empty()) {
          out.unsupported_field = at;  // a constraint kind Shoal lacks
        }
        continue;
      }
      if (!attr.empty() && !distinct.empty()) {
        return r.Error(at,
                       "must name exactly one of matchAttribute and "
                       "distinctAttribute");
      }
      k.match_attribute = attr;
      out.constraints.push_back(std::move(k));
    }
  }
  SHOAL_ASSIGN_OR_RETURN(
      config,
      DeviceConfig(r, Reader::Get(*devices, "config"), "spec.devices.config"));
  out.config = std::move(config);
  SHOAL_ASSIGN_OR_RETURN(status, r.Section(obj, "status"));
  if (const json* a = Reader::Get(*status, "allocation")) {
    SHOAL_ASSIGN_OR_RETURN(allocation, Allocation(r, *a));
    out.allocation = std::move(allocation);
  }
  if (const json* devices = Reader::Get(*status, "devices")) {
    if (!devices->is_array())
      return r.Error("status.devices", "must be a list");
    for (size_t i = 0; i < devices->size(); ++i) {
      const json& e = (*devices)[i];
      const std::string at = absl::StrCat("status.devices[", i, "]");
      api::DeviceStatus d;
      SHOAL_ASSIGN_OR_RETURN(drv, r.String(e, "driver", at + ".driver"));
      SHOAL_ASSIGN_OR_RETURN(pool, r.String(e, "pool", at + ".pool"));
      SHOAL_ASSIGN_OR_RETURN(dev, r.String(e, "device", at + ".device"));
      SHOAL_ASSIGN_OR_RETURN(share, r.String(e, "shareID", at + ".shareID"));
      d.driver = drv;
      d.pool = pool;
      d.device = dev;
      d.share_id = share;
      if (const json* conditions = Reader::Get(e, "conditions")) {
        if (!conditions->is_array())
          return r.Error(at + ".conditions", "must be a list");
        for (size_t k = 0; k < conditions->size(); ++k) {
          const std::string c = absl::StrCat(at, ".conditions[", k, "]");
          SHOAL_ASSIGN_OR_RETURN(
              type, r.String((*conditions)[k], "type", c + ".type"));
          SHOAL_ASSIGN_OR_RETURN(
              value, r.String((*conditions)[k], "status", c + ".status"));
          d.conditions.emplace_back(type, value);
        }
      }
      out.device_statuses.push_back(std::move(d));
    }
  }
  if (const json* reserved = Reader::Get(*status, "reservedFor")) {
    if (!reserved->is_array()) {
      return r.Error("status.reservedFor", "must be a list");
    }
    for (size_t i = 0; i < reserved->size(); ++i) {
      const json& c = (*reserved)[i];
      const std::string at = absl::StrCat("status.reservedFor[", i, "]");
      SHOAL_ASSIGN_OR_RETURN(resource,
                             r.String(c, "resource", at + ".resource"));
      SHOAL_ASSIGN_OR_RETURN(name, r.String(c, "name", at + ".name"));
      SHOAL_ASSIGN_OR_RETURN(uid, r.String(c, "uid", at + ".uid"));
      SHOAL_ASSIGN_OR_RETURN(group, r.String(c, "apiGroup", at + ".apiGroup"));
      out.reserved_for.push_back({resource, name, uid, group});
    }
  }
  r.TakeWarnings(warnings);
  return out;
}

}  // namespace shoal::kube
