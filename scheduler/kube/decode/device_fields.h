// Parts the DRA decoders share: CEL selector lists and opaque
// configuration (defined in device_class_decoder.cc); quantities, lists,
// taints and tolerations (device_values.cc).
#ifndef SHOAL_SCHEDULER_KUBE_DECODE_DEVICE_FIELDS_H_
#define SHOAL_SCHEDULER_KUBE_DECODE_DEVICE_FIELDS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "scheduler/api/devices.h"
#include "scheduler/kube/decode/reader.h"
#include "scheduler/kube/decode/scheduling_fields.h"

namespace shoal::kube {

// The CEL expressions of a `selectors` list at `path`.
absl::StatusOr<std::vector<std::string>> DeviceSelectors(
    const Reader& r, const nlohmann::json* list, const std::string& path);
// A `config` list: each entry as JSON text, checked to be opaque.
absl::StatusOr<std::vector<std::string>> DeviceConfig(
    const Reader& r, const nlohmann::json* list, const std::string& path);

// A quantity at `path`: its text, checked to parse and not be negative.
absl::StatusOr<std::string> QuantityText(const Reader& r,
                                         const nlohmann::json& v,
                                         const std::string& path);
// A list of strings at `path` (none when absent).
absl::StatusOr<std::vector<std::string>> StringList(const Reader& r,
                                                    const nlohmann::json* list,
                                                    const std::string& path);
// devices[].taints, and requests' (and results') tolerations.
absl::StatusOr<api::DeviceTaint> Taint(const Reader& r,
                                       const nlohmann::json& taint,
                                       const std::string& path);
absl::StatusOr<std::vector<api::DeviceTaint>> Taints(const Reader& r,
                                                     const nlohmann::json* list,
                                                     const std::string& path);
absl::StatusOr<std::vector<api::DeviceToleration>> Tolerations(
    const Reader& r, const nlohmann::json* list, const std::string& path);

// The first field of `section` that `fields` marks not implemented and
// that asks for something (a false flag or an empty list asks for
// nothing), as "<path>.<name>"; "" when there is none.
std::string FirstUnsupported(const nlohmann::json& section,
                             const std::string& path,
                             const SchedulingFields& fields);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_DECODE_DEVICE_FIELDS_H_
