// Field reading for the decoders of other files (volumes.cc), defined
// beside the kinds' own Reader (reader.cc), so that every decoder refuses
// in the same words: "<what>: <field path>: <why>", and none throws
// whatever a field holds.
#ifndef SHOAL_SCHEDULER_KUBE_DECODE_FIELDS_H_
#define SHOAL_SCHEDULER_KUBE_DECODE_FIELDS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "scheduler/api/placement.h"

namespace shoal::kube::fields {

// metadata.name, or "" ; metadata.namespace, or "default".
std::string Name(const nlohmann::json& obj);
std::string Namespace(const nlohmann::json& obj);
// "<kind> without a name: metadata.name is required" when it has none.
absl::Status RequireName(const nlohmann::json& obj, absl::string_view kind);
// obj["metadata"] when it is an object, else an empty object.
const nlohmann::json& Metadata(const nlohmann::json& obj);
// The member `key` of `obj` when `obj` is an object and it is present and
// not null, else nullptr.
const nlohmann::json* Get(const nlohmann::json& obj, const char* key);

absl::Status Error(const std::string& what, absl::string_view path,
                   absl::string_view why);
// A string member; `fallback` when absent or null.
absl::StatusOr<std::string> String(const std::string& what,
                                   const nlohmann::json& obj, const char* key,
                                   absl::string_view path,
                                   std::string fallback = "");
// A map of strings (labels, annotations); empty when `m` is null.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> StringMap(
    const std::string& what, const nlohmann::json* m, absl::string_view path);
// A list of node selector terms (`path` names the list).
absl::StatusOr<std::vector<api::NodeSelectorTerm>> NodeSelectorTerms(
    const std::string& what, const nlohmann::json& list,
    const std::string& path);

}  // namespace shoal::kube::fields

#endif  // SHOAL_SCHEDULER_KUBE_DECODE_FIELDS_H_
