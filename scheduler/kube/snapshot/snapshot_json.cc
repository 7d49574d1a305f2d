#include "scheduler/kube/snapshot/snapshot_json.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "scheduler/kube/decode/node_selector_json.h"
#include "scheduler/kube/decode/objects.h"

namespace shoal::kube::snapshot_json {

// An amount as a quantity that parses back to exactly it: cpu in milli
// ("500m", "2"), others with the largest exact binary suffix or plain.
std::string Quantity(api::ResourceId id, int64_t amount) {
  if (id == api::kCpu) {
    if (amount % 1000 == 0) return absl::StrCat(amount / 1000);
    return absl::StrCat(amount, "m");
  }
  static constexpr const char* kBinary[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  if (amount <= 0) return absl::StrCat(amount);
  int unit = -1;
  int64_t v = amount;
  while (unit < 5 && v % 1024 == 0) {
    v /= 1024;
    ++unit;
  }
  if (unit < 0) return absl::StrCat(amount);
  return absl::StrCat(v, kBinary[unit]);
}

// A ResourceList of the amounts that are not zero (`skip_pods`: without
// the pod slot, which the pod decoder adds itself).
json Resources(const api::Resource& r, bool skip_pods) {
  json out = json::object();
  for (size_t id = 0; id < r.size(); ++id) {
    auto rid = static_cast<api::ResourceId>(id);
    if (r.Get(rid) == 0 || (skip_pods && rid == api::kPods)) continue;
    out[std::string(api::ResourceName(rid))] = Quantity(rid, r.Get(rid));
  }
  return out;
}

// A queue's capability or deserved: every resource it bounds. A resource
// whose name was not known yet when the queue was read holds 0 (the
// decoder bounds only the names it knows), so it is written as 0.
json Limit(const api::Resource& r) {
  json out = json::object();
  for (int id = 0; id < api::ResourceNameCount(); ++id) {
    auto rid = static_cast<api::ResourceId>(id);
    if (r.Get(rid) == api::kUnlimited) continue;
    out[std::string(api::ResourceName(rid))] = Quantity(rid, r.Get(rid));
  }
  return out;
}

json StringMap(const std::vector<std::pair<std::string, std::string>>& pairs) {
  json out = json::object();
  for (const auto& [k, v] : pairs) out[k] = v;
  return out;
}

// metav1.Time, to the nanosecond when it has a fraction (RFC 3339 reads
// it back exactly).
std::string Time(absl::Time t) {
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E*SZ", t, absl::UTCTimeZone());
}

json Metadata(const std::string& name, const std::string& ns) {
  json meta = {{"name", name}};
  if (!ns.empty()) meta["namespace"] = ns;
  return meta;
}

json Object(const char* api_version, const char* kind, json metadata) {
  return {{"apiVersion", api_version},
          {"kind", kind},
          {"metadata", std::move(metadata)}};
}

// A label selector as matchExpressions alone (matchLabels decode to In
// requirements, in order, ahead of the expressions).
json Selector(const api::LabelSelector& s) {
  json out = json::object();
  if (!s.requirements.empty())
    out["matchExpressions"] = Requirements(s.requirements);
  return out;
}

// A field Shoal does not implement ("spec.workloadRef") goes back as it
// came, so that the snapshot's pods and gangs wait for the same reason.
void WriteUnsupported(const std::string& field, const std::string& value,
                      json& spec) {
  if (field.empty()) return;
  std::string name = field.substr(field.find('.') + 1);
  json parsed = json::parse(value, nullptr, /*allow_exceptions=*/false);
  spec[name] = parsed.is_discarded() ? json::object() : std::move(parsed);
}

// spec.resourceClaims of a pod or a PodGroup; returns what the
// resourceclaim controller recorded of them (status.resourceClaimStatuses).
json ResourceClaims(const std::vector<api::PodClaim>& list, json& spec) {
  json made = json::array();
  if (list.empty()) return made;
  json claims = json::array();
  for (const api::PodClaim& c : list) {
    if (c.template_name.empty()) {
      claims.push_back({{"name", c.name}, {"resourceClaimName", c.claim}});
      continue;
    }
    claims.push_back(
        {{"name", c.name}, {"resourceClaimTemplateName", c.template_name}});
    if (!c.claim.empty())
      made.push_back({{"name", c.name}, {"resourceClaimName", c.claim}});
  }
  spec["resourceClaims"] = std::move(claims);
  return made;
}

}  // namespace shoal::kube::snapshot_json
