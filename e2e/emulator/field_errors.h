// A write the API server refuses for its fields: apimachinery's field
// errors gathered into one 422 Invalid Status, worded as the server
// words it, so that a client (and a test) sees what a real cluster says.
#ifndef SHOAL_E2E_EMULATOR_FIELD_ERRORS_H_
#define SHOAL_E2E_EMULATOR_FIELD_ERRORS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "e2e/emulator/api_error.h"
#include "e2e/emulator/resource_table.h"
#include "nlohmann/json.hpp"

namespace shoal::emulator {

struct FieldError {
  std::string field;   // "spec.workloadRef"
  std::string reason;  // FieldValueRequired, FieldValueInvalid, ...
  std::string body;    // "Required value", "Invalid value: 0: detail"
};

// field.Required: "Required value" and an optional detail.
FieldError RequiredField(const std::string& field,
                         const std::string& detail = "");
// field.Invalid of an integer value: "Invalid value: 0: detail".
FieldError InvalidInteger(const std::string& field, int64_t value,
                          const std::string& detail);
// field.TooMany: "Too many: 2: must have at most 1 items".
FieldError TooMany(const std::string& field, size_t actual, size_t most);

// The member `key` of `j`, or null when `j` is not an object, has no such
// member or has it null: the server reads an explicit null as absent.
const nlohmann::json* PresentMember(const nlohmann::json& j, const char* key);

// Go's %q, which field.Invalid uses to show a string value.
std::string GoQuote(const std::string& s);

// apimachinery's NewInvalid for `object` of `type`: one error inline,
// several in brackets. `errors` must not be empty.
ApiError InvalidObject(const ResourceType& type, const nlohmann::json& object,
                       const std::vector<FieldError>& errors);

}  // namespace shoal::emulator

#endif  // SHOAL_E2E_EMULATOR_FIELD_ERRORS_H_
