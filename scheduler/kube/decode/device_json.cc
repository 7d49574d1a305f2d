#include "scheduler/kube/decode/device_json.h"

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "scheduler/kube/decode/node_selector_json.h"

namespace shoal::kube {

using nlohmann::json;

namespace {

json Parsed(const std::string& text) {
  return json::parse(text, nullptr, /*allow_exceptions=*/false);
}

json Selectors(const std::vector<std::string>& exprs) {
  json out = json::array();
  for (const std::string& e : exprs)
    out.push_back({{"cel", {{"expression", e}}}});
  return out;
}

json AttributeJson(const api::DeviceAttribute& a) {
  if (a.list) {
    switch (a.kind) {
      case api::DeviceAttribute::Kind::kBool:
        return {{"bools", a.bools}};
      case api::DeviceAttribute::Kind::kInt:
        return {{"ints", a.ints}};
      case api::DeviceAttribute::Kind::kVersion:
        return {{"versions", a.strings}};
      case api::DeviceAttribute::Kind::kString:
        break;
    }
    return {{"strings", a.strings}};
  }
  switch (a.kind) {
    case api::DeviceAttribute::Kind::kBool:
      return {{"bool", a.b}};
    case api::DeviceAttribute::Kind::kInt:
      return {{"int", a.i}};
    case api::DeviceAttribute::Kind::kVersion:
      return {{"version", a.s}};
    case api::DeviceAttribute::Kind::kString:
      break;
  }
  return {{"string", a.s}};
}

// Names of the slice's own driver are written without their domain, as
// drivers publish them.
std::string Local(const std::string& driver, const std::string& name) {
  const std::string prefix = driver + "/";
  return absl::StartsWith(name, prefix) ? name.substr(prefix.size()) : name;
}

json TolerationsJson(const std::vector<api::DeviceToleration>& list) {
  json out = json::array();
  for (const api::DeviceToleration& t : list) {
    json e = {{"operator", t.op}};
    if (!t.key.empty()) e["key"] = t.key;
    if (!t.value.empty()) e["value"] = t.value;
    if (!t.effect.empty()) e["effect"] = t.effect;
    if (t.toleration_seconds.has_value())
      e["tolerationSeconds"] = *t.toleration_seconds;
    out.push_back(std::move(e));
  }
  return out;
}

json TaintsJson(const std::vector<api::DeviceTaint>& list) {
  json out = json::array();
  for (const api::DeviceTaint& t : list) {
    json e = {{"key", t.key}, {"effect", t.effect}};
    if (!t.value.empty()) e["value"] = t.value;
    if (!t.time_added.empty()) e["timeAdded"] = t.time_added;
    out.push_back(std::move(e));
  }
  return out;
}

json CountersJson(const std::vector<api::CounterAmount>& counters) {
  json out = json::object();
  for (const api::CounterAmount& c : counters)
    out[c.name] = {{"value", c.value}};
  return out;
}

json PolicyJson(const api::CapacityPolicy& p) {
  json out = json::object();
  if (p.default_value.has_value()) out["default"] = *p.default_value;
  if (!p.valid_values.empty()) out["validValues"] = p.valid_values;
  if (p.min.has_value()) {
    json range = {{"min", *p.min}};
    if (p.max.has_value()) range["max"] = *p.max;
    if (p.step.has_value()) range["step"] = *p.step;
    out["validRange"] = range;
  }
  return out;
}

json ChoiceJson(const api::DeviceChoice& c, bool with_name) {
  json out = {{"deviceClassName", c.device_class}};
  if (with_name) out["name"] = c.name;
  if (!c.selectors.empty()) out["selectors"] = Selectors(c.selectors);
  if (c.mode == api::AllocationMode::kAll) {
    out["allocationMode"] = "All";
  } else {
    out["allocationMode"] = "ExactCount";
    out["count"] = c.count;
  }
  if (c.admin_access) out["adminAccess"] = true;
  if (!c.tolerations.empty())
    out["tolerations"] = TolerationsJson(c.tolerations);
  if (!c.capacity_requests.empty()) {
    json requests = json::object();
    for (const auto& [n, q] : c.capacity_requests) requests[n] = q;
    out["capacity"] = {{"requests", requests}};
  }
  return out;
}

}  // namespace

json AllocationJson(const api::DeviceAllocation& a) {
  json results = json::array();
  for (const api::DeviceResult& r : a.results) {
    json e = {{"request", r.request},
              {"driver", r.driver},
              {"pool", r.pool},
              {"device", r.device}};
    if (r.admin_access) e["adminAccess"] = true;
    if (!r.tolerations.empty())
      e["tolerations"] = TolerationsJson(r.tolerations);
    if (!r.binding_conditions.empty())
      e["bindingConditions"] = r.binding_conditions;
    if (!r.binding_failure_conditions.empty())
      e["bindingFailureConditions"] = r.binding_failure_conditions;
    if (!r.share_id.empty()) e["shareID"] = r.share_id;
    if (!r.consumed_capacity.empty()) {
      json used = json::object();
      for (const auto& [n, q] : r.consumed_capacity) used[n] = q;
      e["consumedCapacity"] = used;
    }
    results.push_back(std::move(e));
  }
  json devices = {{"results", results}};
  if (!a.config.empty()) {
    json config = json::array();
    for (const std::string& c : a.config) config.push_back(Parsed(c));
    devices["config"] = config;
  }
  json out = {{"devices", devices}};
  if (!a.node.empty()) {
    out["nodeSelector"] = {
        {"nodeSelectorTerms",
         json::array(
             {{{"matchFields",
                json::array({{{"key", "metadata.name"},
                              {"operator", "In"},
                              {"values", json::array({a.node})}}})}}})}};
  } else if (a.node_selector.has_value()) {
    out["nodeSelector"] = {{"nodeSelectorTerms", Terms(*a.node_selector)}};
  }
  if (!a.allocated_at.empty()) out["allocationTimestamp"] = a.allocated_at;
  return out;
}

json ConsumerJson(const api::ClaimConsumer& c) {
  json out = {{"resource", c.resource}, {"name", c.name}, {"uid", c.uid}};
  if (!c.api_group.empty()) out["apiGroup"] = c.api_group;
  return out;
}

json ResourceSliceJson(const api::ResourceSlice& s) {
  json spec = {{"driver", s.driver},
               {"pool",
                {{"name", s.pool},
                 {"generation", s.generation},
                 {"resourceSliceCount", s.slice_count}}}};
  if (!s.node_name.empty()) spec["nodeName"] = s.node_name;
  if (s.all_nodes) spec["allNodes"] = true;
  if (s.per_device_node_selection) spec["perDeviceNodeSelection"] = true;
  if (!s.shared_counters.empty()) {
    json sets = json::array();
    for (const api::CounterSet& c : s.shared_counters)
      sets.push_back(
          {{"name", c.name}, {"counters", CountersJson(c.counters)}});
    spec["sharedCounters"] = sets;
  }
  if (s.node_selector.has_value())
    spec["nodeSelector"] = {{"nodeSelectorTerms", Terms(*s.node_selector)}};
  json devices = json::array();
  for (const api::Device& d : s.devices) {
    json dev = {{"name", d.name}};
    if (!d.attributes.empty()) {
      json attrs = json::object();
      for (const auto& [n, v] : d.attributes)
        attrs[Local(s.driver, n)] = AttributeJson(v);
      dev["attributes"] = attrs;
    }
    if (!d.capacity.empty()) {
      json caps = json::object();
      for (const api::DeviceCapacity& c : d.capacity) {
        json e = {{"value", c.value}};
        if (c.policy.has_value()) e["requestPolicy"] = PolicyJson(*c.policy);
        caps[c.written.empty() ? Local(s.driver, c.name) : c.written] = e;
      }
      dev["capacity"] = caps;
    }
    if (!d.consumes_counters.empty()) {
      json uses = json::array();
      for (const api::CounterConsumption& c : d.consumes_counters) {
        uses.push_back({{"counterSet", c.counter_set},
                        {"counters", CountersJson(c.counters)}});
      }
      dev["consumesCounters"] = uses;
    }
    if (!d.node_name.empty()) dev["nodeName"] = d.node_name;
    if (d.all_nodes) dev["allNodes"] = true;
    if (d.node_selector.has_value())
      dev["nodeSelector"] = {{"nodeSelectorTerms", Terms(*d.node_selector)}};
    if (!d.taints.empty()) dev["taints"] = TaintsJson(d.taints);
    if (d.allow_multiple_allocations) dev["allowMultipleAllocations"] = true;
    if (d.binds_to_node) dev["bindsToNode"] = true;
    if (!d.binding_conditions.empty())
      dev["bindingConditions"] = d.binding_conditions;
    if (!d.binding_failure_conditions.empty())
      dev["bindingFailureConditions"] = d.binding_failure_conditions;
    devices.push_back(std::move(dev));
  }
  spec["devices"] = devices;
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", s.name}}},
          {"spec", spec}};
}

json DeviceClassJson(const api::DeviceClass& c) {
  json spec = json::object();
  if (!c.selectors.empty()) spec["selectors"] = Selectors(c.selectors);
  if (!c.config.empty()) {
    json config = json::array();
    for (const std::string& e : c.config) config.push_back(Parsed(e));
    spec["config"] = config;
  }
  if (!c.extended_resource_name.empty()) {
    spec["extendedResourceName"] = c.extended_resource_name;
  }
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "DeviceClass"},
          {"metadata", {{"name", c.name}}},
          {"spec", spec}};
}

json DeviceTaintRuleJson(const api::DeviceTaintRule& r) {
  json selector = json::object();
  if (!r.driver.empty()) selector["driver"] = r.driver;
  if (!r.pool.empty()) selector["pool"] = r.pool;
  if (!r.device.empty()) selector["device"] = r.device;
  return {
      {"apiVersion", "resource.k8s.io/v1beta2"},
      {"kind", "DeviceTaintRule"},
      {"metadata", {{"name", r.name}}},
      {"spec",
       {{"deviceSelector", selector}, {"taint", TaintsJson({r.taint})[0]}}}};
}

namespace {

json RequestsJson(const std::vector<api::DeviceRequest>& list) {
  json requests = json::array();
  for (const api::DeviceRequest& r : list) {
    json q = {{"name", r.name}};
    if (r.first_available) {
      json alts = json::array();
      for (const api::DeviceChoice& ch : r.choices)
        alts.push_back(ChoiceJson(ch, true));
      q["firstAvailable"] = alts;
    } else if (!r.choices.empty()) {
      q["exactly"] = ChoiceJson(r.choices[0], false);
    }
    requests.push_back(std::move(q));
  }
  return requests;
}

json OwnerReferences(const api::ResourceClaim& c) {
  return json::array({{{"apiVersion", "v1"},
                       {"kind", "Pod"},
                       {"name", c.owner_name},
                       {"uid", c.owner_uid},
                       {"controller", true}}});
}

}  // namespace

json ResourceClaimJson(const api::ResourceClaim& c) {
  json devices = {{"requests", RequestsJson(c.requests)}};
  if (!c.constraints.empty()) {
    json constraints = json::array();
    for (const api::DeviceConstraint& k : c.constraints) {
      json e = k.distinct_attribute.empty()
                   ? json{{"matchAttribute", k.match_attribute}}
                   : json{{"distinctAttribute", k.distinct_attribute}};
      if (!k.requests.empty()) e["requests"] = k.requests;
      constraints.push_back(std::move(e));
    }
    devices["constraints"] = constraints;
  }
  if (!c.config.empty()) {
    json config = json::array();
    for (const std::string& e : c.config) config.push_back(Parsed(e));
    devices["config"] = config;
  }
  json meta = {{"name", c.name}, {"namespace", c.ns}};
  if (!c.uid.empty()) meta["uid"] = c.uid;
  if (!c.resource_version.empty()) meta["resourceVersion"] = c.resource_version;
  // When it was asked to go is not kept, only that it was.
  if (c.deleting) meta["deletionTimestamp"] = "1970-01-01T00:00:00Z";
  if (!c.owner_uid.empty()) meta["ownerReferences"] = OwnerReferences(c);
  if (c.extended_resources)
    meta["annotations"] = {{kExtendedResourceClaimAnnotation, "true"}};
  json status = json::object();
  if (c.allocation.has_value())
    status["allocation"] = AllocationJson(*c.allocation);
  if (!c.device_statuses.empty()) {
    json devices = json::array();
    for (const api::DeviceStatus& d : c.device_statuses) {
      json e = {{"driver", d.driver}, {"pool", d.pool}, {"device", d.device}};
      if (!d.share_id.empty()) e["shareID"] = d.share_id;
      json conditions = json::array();
      for (const auto& [type, value] : d.conditions)
        conditions.push_back({{"type", type}, {"status", value}});
      if (!conditions.empty()) e["conditions"] = conditions;
      devices.push_back(std::move(e));
    }
    status["devices"] = devices;
  }
  if (!c.reserved_for.empty()) {
    json reserved = json::array();
    for (const api::ClaimConsumer& r : c.reserved_for)
      reserved.push_back(ConsumerJson(r));
    status["reservedFor"] = reserved;
  }
  json out = {{"apiVersion", "resource.k8s.io/v1"},
              {"kind", "ResourceClaim"},
              {"metadata", meta},
              {"spec", {{"devices", devices}}}};
  if (!status.empty()) out["status"] = status;
  return out;
}

json NewClaimJson(const api::ResourceClaim& c) {
  json meta = {{"name", c.name},
               {"namespace", c.ns},
               {"ownerReferences", OwnerReferences(c)},
               {"annotations", {{kExtendedResourceClaimAnnotation, "true"}}}};
  const std::string version =
      c.api_version.empty() ? "resource.k8s.io/v1" : c.api_version;
  json requests = RequestsJson(c.requests);
  if (version == "resource.k8s.io/v1beta1") {
    // v1beta1 writes a request's class and amount on the request itself.
    for (json& q : requests) {
      if (!q.contains("exactly")) continue;
      for (const auto& [k, v] : q["exactly"].items()) q[k] = v;
      q.erase("exactly");
    }
  }
  return {{"apiVersion", version},
          {"kind", "ResourceClaim"},
          {"metadata", meta},
          {"spec", {{"devices", {{"requests", requests}}}}}};
}

std::string ClaimStatusPatch(const api::ClaimWrite& w) {
  json ops = json::array();
  json reserved = json::array();
  for (const api::ClaimConsumer& c : w.reserved_for)
    reserved.push_back(ConsumerJson(c));
  if (w.follows) {
    // The first pod's write made the allocation (the resourceVersion the
    // snapshot saw is stale by then): this one holds only if that
    // allocation is there, and writes the same reservedFor or more.
    ops.push_back(
        {{"op", "test"},
         {"path", "/status/allocation/devices/results"},
         {"value", AllocationJson(w.allocation)["devices"]["results"]}});
    ops.push_back(
        {{"op", "add"}, {"path", "/status/reservedFor"}, {"value", reserved}});
    return ops.dump();
  }
  if (!w.resource_version.empty()) {
    ops.push_back({{"op", "test"},
                   {"path", "/metadata/resourceVersion"},
                   {"value", w.resource_version}});
  }
  if (w.newly_allocated) {
    json allocation = AllocationJson(w.allocation);
    // As kube-scheduler does: devices that must report binding conditions
    // are given until allocationTimestamp + the binding timeout.
    if (w.allocation.WaitsForDevices() && w.allocation.allocated_at.empty()) {
      allocation["allocationTimestamp"] = absl::FormatTime(
          "%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
    }
    ops.push_back(
        {{"op", "add"},
         {"path", "/status"},
         {"value", {{"allocation", allocation}, {"reservedFor", reserved}}}});
  } else {
    ops.push_back(
        {{"op", "add"}, {"path", "/status/reservedFor"}, {"value", reserved}});
  }
  return ops.dump();
}

}  // namespace shoal::kube
