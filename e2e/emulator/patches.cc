#include "e2e/emulator/patches.h"

#include <map>

namespace shoal::emulator {
namespace {

using nlohmann::json;

// The merge key of the lists Shoal and its tests patch.
const char* MergeKey(const std::string& field) {
  static const std::map<std::string, const char*> kKeys = {
      {"conditions", "type"},     {"containers", "name"},
      {"volumes", "name"},        {"env", "name"},
      {"ports", "containerPort"}, {"resourceClaimStatuses", "name"}};
  auto it = kKeys.find(field);
  return it == kKeys.end() ? nullptr : it->second;
}

void StrategicMerge(json& target, const json& patch) {
  if (!patch.is_object()) {
    target = patch;
    return;
  }
  if (!target.is_object()) target = json::object();
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null()) {
      target.erase(key);
      continue;
    }
    const char* merge_key = MergeKey(key);
    if (merge_key != nullptr && value.is_array() && target.contains(key) &&
        target[key].is_array()) {
      json& list = target[key];
      for (const json& item : value) {
        bool merged = false;
        for (json& existing : list) {
          if (item.is_object() && existing.is_object() &&
              item.contains(merge_key) &&
              existing.value(merge_key, json()) == item[merge_key]) {
            StrategicMerge(existing, item);
            merged = true;
          }
        }
        if (!merged) list.push_back(item);
      }
    } else if (value.is_object()) {
      StrategicMerge(target[key], value);
    } else {
      target[key] = value;
    }
  }
}

}  // namespace

std::optional<ApiError> ApplyPatch(const std::string& content_type,
                                   const std::string& body,
                                   bool custom_resource, json& object) {
  json patch = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (patch.is_discarded()) return BadRequest("the patch is not valid JSON");
  std::string type = content_type.substr(0, content_type.find(';'));
  if (type == "application/merge-patch+json") {
    if (!patch.is_object())
      return BadRequest("a merge patch must be a JSON object");
    object.merge_patch(patch);
    return std::nullopt;
  }
  if (type == "application/json-patch+json") {
    if (!patch.is_array())
      return BadRequest("a JSON patch must be a JSON array");
    try {
      object = object.patch(patch);
    } catch (const json::exception& e) {
      return ApiError{422, "Invalid",
                      std::string("the JSON patch failed: ") + e.what()};
    }
    return std::nullopt;
  }
  if (type == "application/strategic-merge-patch+json" && !custom_resource) {
    if (!patch.is_object())
      return BadRequest("a strategic merge patch must be a JSON object");
    StrategicMerge(object, patch);
    return std::nullopt;
  }
  return ApiError{
      415, "UnsupportedMediaType",
      "the body of the request was in an unknown format - accepted media types "
      "include: application/json-patch+json, application/merge-patch+json" +
          std::string(custom_resource
                          ? ""
                          : ", application/strategic-merge-patch+json")};
}

}  // namespace shoal::emulator
