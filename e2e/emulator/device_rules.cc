#include "e2e/emulator/device_rules.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e/emulator/field_errors.h"
#include "scheduler/cel/checker.h"

namespace shoal::emulator {
namespace {

using nlohmann::json;

// resource.CELSelectorExpressionMaxLength: longer ones are not compiled.
constexpr size_t kMaxExpressionLength = 10 * 1024;

class Walker {
 public:
  Walker(const json* before, std::vector<FieldError>* errors)
      : before_(before), errors_(errors) {}

  // selectors[j].cel.expression under `at` (a JSON pointer, for finding
  // the same expression in the object before) and `field` (for messages).
  void Selectors(const json& parent, const std::string& pointer,
                 const std::string& field) {
    const json* selectors = PresentMember(parent, "selectors");
    if (selectors == nullptr || !selectors->is_array()) return;
    for (size_t j = 0; j < selectors->size(); ++j) {
      const json* cel = PresentMember((*selectors)[j], "cel");
      const json* expression =
          cel == nullptr ? nullptr : PresentMember(*cel, "expression");
      if (expression == nullptr || !expression->is_string()) continue;
      std::string at =
          absl::StrCat(pointer, "/selectors/", j, "/cel/expression");
      Check(expression->get<std::string>(), at,
            absl::StrCat(field, ".selectors[", j, "].cel.expression"));
    }
  }

  // spec.devices.requests of a claim (or of a template's spec.spec).
  void Requests(const json& spec, const std::string& pointer,
                const std::string& field) {
    const json* devices = PresentMember(spec, "devices");
    const json* requests =
        devices == nullptr ? nullptr : PresentMember(*devices, "requests");
    if (requests == nullptr || !requests->is_array()) return;
    for (size_t i = 0; i < requests->size(); ++i) {
      const json& r = (*requests)[i];
      std::string p = absl::StrCat(pointer, "/devices/requests/", i);
      std::string f = absl::StrCat(field, ".devices.requests[", i, "]");
      Selectors(r, p, f);  // v1beta1: on the request itself
      if (const json* exactly = PresentMember(r, "exactly")) {
        Selectors(*exactly, p + "/exactly", f + ".exactly");
      }
      const json* alternatives = PresentMember(r, "firstAvailable");
      if (alternatives == nullptr || !alternatives->is_array()) continue;
      for (size_t k = 0; k < alternatives->size(); ++k) {
        Selectors((*alternatives)[k], absl::StrCat(p, "/firstAvailable/", k),
                  absl::StrCat(f, ".firstAvailable[", k, "]"));
      }
    }
  }

 private:
  void Check(const std::string& expression, const std::string& pointer,
             const std::string& field) {
    if (before_ != nullptr && Unchanged(expression, pointer)) return;
    if (expression.size() > kMaxExpressionLength) {
      errors_->push_back({field, "FieldValueTooLong",
                          absl::StrCat("Too long: may not be more than ",
                                       kMaxExpressionLength, " bytes")});
      return;
    }
    // A 1.36 server's default gates: DRAListTypeAttributes (alpha) off, so
    // a new selector may not call includes() nor iterate an attribute, as
    // the real server refuses them; one it stored already (Unchanged
    // above) is not checked again.
    absl::Status s = cel::CheckDraSelector(expression, cel::DraCelFeatures{});
    // Unimplemented: a construct the checker leaves to the server.
    if (s.code() != absl::StatusCode::kInvalidArgument) return;
    errors_->push_back({field, "FieldValueInvalid",
                        absl::StrCat("Invalid value: ", GoQuote(expression),
                                     ": ", s.message())});
  }

  bool Unchanged(const std::string& expression,
                 const std::string& pointer) const {
    try {  // json_pointer throws on a path through a value of another shape
      const json::json_pointer p(pointer);
      return before_->contains(p) && before_->at(p) == expression;
    } catch (const json::exception&) {
      return false;
    }
  }

  const json* before_;
  std::vector<FieldError>* errors_;
};

}  // namespace

std::optional<ApiError> CheckDeviceSelectors(const ResourceType& type,
                                             const json& object,
                                             const json* before) {
  if (type.group != "resource.k8s.io" || !object.contains("spec")) {
    return std::nullopt;
  }
  std::vector<FieldError> errors;
  Walker walk(before, &errors);
  const json& spec = object["spec"];
  if (type.kind == "DeviceClass") {
    walk.Selectors(spec, "/spec", "spec");
  } else if (type.kind == "ResourceClaim") {
    walk.Requests(spec, "/spec", "spec");
  } else if (type.kind == "ResourceClaimTemplate") {
    if (spec.is_object() && spec.contains("spec")) {
      walk.Requests(spec["spec"], "/spec/spec", "spec.spec");
    }
  }
  if (errors.empty()) return std::nullopt;
  return InvalidObject(type, object, errors);
}

}  // namespace shoal::emulator
