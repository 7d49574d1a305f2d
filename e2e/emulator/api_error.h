// Errors as the Kubernetes API server sends them: an HTTP code and a
// `Status` object whose reason and message clients match on.
#ifndef SHOAL_E2E_EMULATOR_API_ERROR_H_
#define SHOAL_E2E_EMULATOR_API_ERROR_H_

#include <string>

#include "nlohmann/json.hpp"

namespace shoal::emulator {

struct ApiError {
  int code = 500;
  std::string reason;  // NotFound, AlreadyExists, Conflict, Invalid, ...
  std::string message;
  nlohmann::json details = nlohmann::json::object();

  nlohmann::json ToStatus() const {
    nlohmann::json status = {{"kind", "Status"},
                             {"apiVersion", "v1"},
                             {"metadata", nlohmann::json::object()},
                             {"status", "Failure"},
                             {"message", message},
                             {"reason", reason},
                             {"code", code}};
    if (!details.empty()) status["details"] = details;
    return status;
  }
};

inline ApiError NotFound(const std::string& resource, const std::string& name) {
  return {404,
          "NotFound",
          resource + " \"" + name + "\" not found",
          {{"name", name}, {"kind", resource}}};
}
inline ApiError AlreadyExists(const std::string& resource,
                              const std::string& name) {
  return {409,
          "AlreadyExists",
          resource + " \"" + name + "\" already exists",
          {{"name", name}, {"kind", resource}}};
}
inline ApiError Conflict(const std::string& resource, const std::string& name,
                         const std::string& why) {
  return {409,
          "Conflict",
          "Operation cannot be fulfilled on " + resource + " \"" + name +
              "\": " + why,
          {{"name", name}, {"kind", resource}}};
}
// 422 with one cause, worded like apimachinery's field errors.
inline ApiError Invalid(const std::string& kind, const std::string& name,
                        const std::string& field, const std::string& what) {
  return {422,
          "Invalid",
          kind + " \"" + name + "\" is invalid: " + field + ": " + what,
          {{"name", name},
           {"kind", kind},
           {"causes",
            {{{"reason", "FieldValueInvalid"},
              {"message", what},
              {"field", field}}}}}};
}
inline ApiError BadRequest(const std::string& message) {
  return {400, "BadRequest", message};
}
inline ApiError Forbidden(const std::string& resource, const std::string& name,
                          const std::string& why) {
  return {403,
          "Forbidden",
          resource + " \"" + name + "\" is forbidden: " + why,
          {{"name", name}, {"kind", resource}}};
}

}  // namespace shoal::emulator

#endif  // SHOAL_E2E_EMULATOR_API_ERROR_H_
