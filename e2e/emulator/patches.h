// The three patch formats the API server accepts: JSON patch (RFC 6902),
// JSON merge patch (RFC 7386), and strategic merge patch, which merges
// keyed lists (conditions by type, containers by name) instead of
// replacing them. Custom resources take no strategic merge patch.
#ifndef SHOAL_E2E_EMULATOR_PATCHES_H_
#define SHOAL_E2E_EMULATOR_PATCHES_H_

#include <optional>
#include <string>

#include "e2e/emulator/api_error.h"
#include "nlohmann/json.hpp"

namespace shoal::emulator {

std::optional<ApiError> ApplyPatch(const std::string& content_type,
                                   const std::string& body,
                                   bool custom_resource,
                                   nlohmann::json& object);

}  // namespace shoal::emulator

#endif  // SHOAL_E2E_EMULATOR_PATCHES_H_
