// DeviceTaintRules (resource.k8s.io v1 from 1.37, v1beta2 in 1.36,
// v1alpha3 before): an administrator takes devices out of service with a
// taint, as a driver does in its slices. The selector's driver, pool and
// device are honoured; a class or CEL selectors (v1alpha3) are not
// evaluated, so such a rule taints every device the rest picks (kept
// from more claims, never fewer) and says so.
#include "absl/strings/str_cat.h"
#include "scheduler/kube/decode/device_fields.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/reader.h"

namespace shoal::kube {

absl::StatusOr<api::DeviceTaintRule> DecodeDeviceTaintRule(
    const json& obj, DecodeWarnings* warnings) {
  if (auto s = RequireName(obj, "devicetaintrule"); !s.ok()) return s;
  api::DeviceTaintRule out;
  out.name = NameOf(obj);
  Reader r(absl::StrCat("devicetaintrule ", out.name));
  SHOAL_ASSIGN_OR_RETURN(spec, r.Section(obj, "spec"));
  const json* selector = Reader::Get(*spec, "deviceSelector");
  if (selector == nullptr) {
    // "Without a selector, no devices are matched."
    r.Warn("spec.deviceSelector is not set, so the rule taints no device");
    out.device = std::string(1, '\0');  // a name no device has
  } else {
    if (!selector->is_object())
      return r.Error("spec.deviceSelector", "must be an object");
    SHOAL_ASSIGN_OR_RETURN(
        driver, r.String(*selector, "driver", "spec.deviceSelector.driver"));
    SHOAL_ASSIGN_OR_RETURN(
        pool, r.String(*selector, "pool", "spec.deviceSelector.pool"));
    SHOAL_ASSIGN_OR_RETURN(
        device, r.String(*selector, "device", "spec.deviceSelector.device"));
    out.driver = driver;
    out.pool = pool;
    out.device = device;
    for (const char* field : {"deviceClassName", "selectors"}) {
      if (Reader::Get(*selector, field) == nullptr) continue;
      out.broadened = true;
      r.Warn(absl::StrCat("spec.deviceSelector.", field,
                          " is not evaluated by Shoal; the taint is applied "
                          "to every device the driver, pool and device "
                          "fields pick"));
    }
  }
  const json* taint = Reader::Get(*spec, "taint");
  if (taint == nullptr) return r.Error("spec.taint", "is required");
  SHOAL_ASSIGN_OR_RETURN(parsed, Taint(r, *taint, "spec.taint"));
  out.taint = std::move(parsed);
  if (out.taint.effect != "NoSchedule" && out.taint.effect != "NoExecute" &&
      out.taint.effect != "None") {
    return r.Error("spec.taint.effect",
                   absl::StrCat("must be NoSchedule, NoExecute or None, got \"",
                                out.taint.effect, "\""));
  }
  r.TakeWarnings(warnings);
  return out;
}

}  // namespace shoal::kube
