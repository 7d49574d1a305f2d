// PriorityClasses: the value and preemption policy a pod or PodGroup names.
#include "absl/strings/str_cat.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/reader.h"

namespace shoal::kube {

absl::StatusOr<api::PriorityClass> DecodePriorityClass(const json& obj) {
  if (auto s = RequireName(obj, "priorityclass"); !s.ok()) return s;
  Reader r(absl::StrCat("priorityclass ", NameOf(obj)));
  api::PriorityClass pc;
  pc.name = NameOf(obj);
  SHOAL_ASSIGN_OR_RETURN(value, r.Int(obj, "value", "value", 0));
  if (value > 1000000000 && !IsCriticalClass(pc.name)) {
    return r.Error(
        "value",
        absl::StrCat("must be <= 1000000000 for user classes, got ", value));
  }
  pc.value = static_cast<int32_t>(value);
  SHOAL_ASSIGN_OR_RETURN(global,
                         r.Bool(obj, "globalDefault", "globalDefault", false));
  pc.global_default = global;
  SHOAL_ASSIGN_OR_RETURN(policy,
                         r.String(obj, "preemptionPolicy", "preemptionPolicy",
                                  "PreemptLowerPriority"));
  if (policy != "Never" && policy != "PreemptLowerPriority") {
    return r.Error("preemptionPolicy",
                   absl::StrCat("must be Never or PreemptLowerPriority, got \"",
                                policy, "\""));
  }
  pc.preempt_never = policy == "Never";
  return pc;
}

}  // namespace shoal::kube
