// What DRA objects share beyond selectors and config: quantities, string
// lists, device taints and the tolerations of requests and results.
#include "absl/strings/str_cat.h"
#include "scheduler/api/quantity.h"
#include "scheduler/kube/decode/device_fields.h"

namespace shoal::kube {

// A quantity at `path`: its text, checked to parse and not be negative.
absl::StatusOr<std::string> QuantityText(const Reader& r, const json& v,
                                         const std::string& path) {
  std::string text;
  if (v.is_string()) text = v.get<std::string>();
  if (v.is_number_integer()) text = std::to_string(v.get<int64_t>());
  if (text.empty()) {
    return r.Error(path, absl::StrCat("must be a quantity, got ", v.dump()));
  }
  auto parsed = api::ParseQuantity(text, api::QuantityScale::kMilli);
  if (!parsed.ok()) return r.Error(path, parsed.status().message());
  if (*parsed < 0) {
    return r.Error(path, absl::StrCat("must not be negative, got ", text));
  }
  return text;
}

absl::StatusOr<api::DeviceTaint> Taint(const Reader& r, const json& e,
                                       const std::string& at) {
  if (!e.is_object()) return r.Error(at, "must be an object");
  api::DeviceTaint t;
  SHOAL_ASSIGN_OR_RETURN(key, r.String(e, "key", at + ".key"));
  if (key.empty()) return r.Error(at + ".key", "is required");
  t.key = key;
  SHOAL_ASSIGN_OR_RETURN(value, r.String(e, "value", at + ".value"));
  t.value = value;
  SHOAL_ASSIGN_OR_RETURN(effect, r.String(e, "effect", at + ".effect"));
  // Effects a later release may add are kept: only NoSchedule and
  // NoExecute keep a claim away, as kube-scheduler's allocator does.
  t.effect = effect;
  SHOAL_ASSIGN_OR_RETURN(added, r.String(e, "timeAdded", at + ".timeAdded"));
  t.time_added = added;
  return t;
}

absl::StatusOr<std::vector<api::DeviceTaint>> Taints(const Reader& r,
                                                     const json* list,
                                                     const std::string& path) {
  std::vector<api::DeviceTaint> out;
  if (list == nullptr) return out;
  if (!list->is_array()) return r.Error(path, "must be a list");
  for (size_t i = 0; i < list->size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(
        t, Taint(r, (*list)[i], absl::StrCat(path, "[", i, "]")));
    out.push_back(std::move(t));
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> StringList(const Reader& r,
                                                    const json* list,
                                                    const std::string& path) {
  std::vector<std::string> out;
  if (list == nullptr) return out;
  if (!list->is_array()) return r.Error(path, "must be a list");
  for (size_t i = 0; i < list->size(); ++i) {
    if (!(*list)[i].is_string())
      return r.Error(absl::StrCat(path, "[", i, "]"), "must be a string");
    out.push_back((*list)[i].get<std::string>());
  }
  return out;
}

absl::StatusOr<std::vector<api::DeviceToleration>> Tolerations(
    const Reader& r, const json* list, const std::string& path) {
  std::vector<api::DeviceToleration> out;
  if (list == nullptr) return out;
  if (!list->is_array()) return r.Error(path, "must be a list");
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string at = absl::StrCat(path, "[", i, "]");
    const json& e = (*list)[i];
    if (!e.is_object()) return r.Error(at, "must be an object");
    api::DeviceToleration t;
    SHOAL_ASSIGN_OR_RETURN(key, r.String(e, "key", at + ".key"));
    t.key = key;
    SHOAL_ASSIGN_OR_RETURN(op,
                           r.String(e, "operator", at + ".operator", "Equal"));
    if (op != "Equal" && op != "Exists") {
      return r.Error(at + ".operator",
                     absl::StrCat("must be Equal or Exists, got \"", op, "\""));
    }
    t.op = op;
    SHOAL_ASSIGN_OR_RETURN(value, r.String(e, "value", at + ".value"));
    t.value = value;
    SHOAL_ASSIGN_OR_RETURN(effect, r.String(e, "effect", at + ".effect"));
    t.effect = effect;
    if (Reader::Get(e, "tolerationSeconds") != nullptr) {
      SHOAL_ASSIGN_OR_RETURN(
          seconds, r.Int(e, "tolerationSeconds", at + ".tolerationSeconds", 0));
      t.toleration_seconds = seconds;
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace shoal::kube
