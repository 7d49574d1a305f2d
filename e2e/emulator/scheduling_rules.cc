#include "e2e/emulator/scheduling_rules.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e/emulator/field_errors.h"

namespace shoal::emulator {
namespace {

using nlohmann::json;

constexpr char kGroup[] = "scheduling.k8s.io";

class Checker {
 public:
  // A gang policy (`policy`: a schedulingPolicy at `path`) states its
  // count, at least 1.
  void Gang(const json* policy, const std::string& path, const char* count) {
    const json* gang =
        policy == nullptr ? nullptr : PresentMember(*policy, "gang");
    if (gang == nullptr) return;
    const std::string field = absl::StrCat(path, ".gang.", count);
    const json* n = PresentMember(*gang, count);
    if (n == nullptr) {
      errors_.push_back(RequiredField(field));
    } else if (n->is_number_integer() && n->get<int64_t>() < 1) {
      errors_.push_back(InvalidInteger(field, n->get<int64_t>(),
                                       "must be greater than or equal to 1"));
    }
  }

  // At most one topology key (`owner`: the object or template at `path`).
  void Topology(const json& owner, const std::string& path) {
    const json* constraints = PresentMember(owner, "schedulingConstraints");
    const json* topology = constraints == nullptr
                               ? nullptr
                               : PresentMember(*constraints, "topology");
    if (topology != nullptr && topology->is_array() && topology->size() > 1) {
      errors_.push_back(
          TooMany(absl::StrCat(path, ".schedulingConstraints.topology"),
                  topology->size(), 1));
    }
  }

  // A Workload's templates, nested under composite templates (v1alpha3).
  void Templates(const json& owner, const std::string& path) {
    if (const json* groups = PresentMember(owner, "podGroupTemplates");
        groups != nullptr && groups->is_array()) {
      for (size_t i = 0; i < groups->size(); ++i) {
        const std::string at =
            absl::StrCat(path, ".podGroupTemplates[", i, "]");
        Gang(PresentMember((*groups)[i], "schedulingPolicy"),
             absl::StrCat(at, ".schedulingPolicy"), "minCount");
        Topology((*groups)[i], at);
      }
    }
    if (const json* composites =
            PresentMember(owner, "compositePodGroupTemplates");
        composites != nullptr && composites->is_array()) {
      for (size_t i = 0; i < composites->size(); ++i) {
        const std::string at =
            absl::StrCat(path, ".compositePodGroupTemplates[", i, "]");
        Gang(PresentMember((*composites)[i], "schedulingPolicy"),
             absl::StrCat(at, ".schedulingPolicy"), "minGroupCount");
        Topology((*composites)[i], at);
        Templates((*composites)[i], at);
      }
    }
  }

  void PodGroup(const json& spec) {
    // A PodGroup in a tree belongs to a Workload (dependentRequired).
    if (PresentMember(spec, "parentCompositePodGroupName") != nullptr &&
        PresentMember(spec, "workloadRef") == nullptr) {
      errors_.push_back(RequiredField(
          "spec.workloadRef",
          "must be specified when `parentCompositePodGroupName` is set"));
    }
    Gang(PresentMember(spec, "schedulingPolicy"), "spec.schedulingPolicy",
         "minCount");
    Topology(spec, "spec");
  }

  void CompositePodGroup(const json& spec) {
    if (PresentMember(spec, "workloadRef") == nullptr)
      errors_.push_back(RequiredField("spec.workloadRef"));
    Gang(PresentMember(spec, "schedulingPolicy"), "spec.schedulingPolicy",
         "minGroupCount");
    Topology(spec, "spec");
  }

  const std::vector<FieldError>& errors() const { return errors_; }

 private:
  std::vector<FieldError> errors_;
};

}  // namespace

std::optional<ApiError> CheckSchedulingGroups(const ResourceType& type,
                                              const json& object) {
  // v1alpha1 (1.35) embedded its groups in the Workload, with rules of
  // their own.
  if (type.group != kGroup || type.version == "v1alpha1") return std::nullopt;
  static const json kNoSpec = json::object();
  const json* spec_field = PresentMember(object, "spec");
  const json& spec = spec_field == nullptr ? kNoSpec : *spec_field;
  Checker check;
  if (type.kind == "Workload") {
    check.Templates(spec, "spec");
  } else if (type.kind == "PodGroup") {
    check.PodGroup(spec);
  } else if (type.kind == "CompositePodGroup") {
    check.CompositePodGroup(spec);
  } else {
    return std::nullopt;
  }
  if (check.errors().empty()) return std::nullopt;
  return InvalidObject(type, object, check.errors());
}

}  // namespace shoal::emulator
