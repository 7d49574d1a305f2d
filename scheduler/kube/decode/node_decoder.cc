// Nodes: labels, taints, unschedulable, allocatable, readiness. A node's
// allocatable is kept whole: whatever the kubelet reports, the node has.
#include <memory>

#include "absl/strings/str_cat.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/reader.h"

namespace shoal::kube {

absl::StatusOr<std::shared_ptr<api::NodeSpec>> DecodeNode(const json& obj) {
  if (auto s = RequireName(obj, "node"); !s.ok()) return s;
  Reader r(absl::StrCat("node ", NameOf(obj)));
  auto node = std::make_shared<api::NodeSpec>();
  node->name = NameOf(obj);
  SHOAL_ASSIGN_OR_RETURN(
      labels,
      r.StringMap(Reader::Get(Metadata(obj), "labels"), "metadata.labels"));
  node->labels = api::Labels(std::move(labels));
  static const json kEmpty = json::object();
  const json* spec = Reader::Get(obj, "spec");
  const json& s = spec != nullptr ? *spec : kEmpty;
  SHOAL_ASSIGN_OR_RETURN(
      unschedulable, r.Bool(s, "unschedulable", "spec.unschedulable", false));
  node->unschedulable = unschedulable;
  if (const json* taints = Reader::Get(s, "taints")) {
    if (!taints->is_array()) return r.Error("spec.taints", "must be a list");
    for (size_t i = 0; i < taints->size(); ++i) {
      std::string p = absl::StrCat("spec.taints[", i, "]");
      SHOAL_ASSIGN_OR_RETURN(key, r.String((*taints)[i], "key", p + ".key"));
      SHOAL_ASSIGN_OR_RETURN(value,
                             r.String((*taints)[i], "value", p + ".value"));
      SHOAL_ASSIGN_OR_RETURN(effect_name,
                             r.String((*taints)[i], "effect", p + ".effect"));
      if (key.empty()) return r.Error(p + ".key", "is required");
      SHOAL_ASSIGN_OR_RETURN(effect, Effect(r, effect_name, p + ".effect"));
      node->taints.push_back({key, value, effect});
    }
  }
  SHOAL_ASSIGN_OR_RETURN(status, r.Section(obj, "status"));
  const json& st = *status;
  const char* field =
      Reader::Get(st, "allocatable") != nullptr ? "allocatable" : "capacity";
  SHOAL_ASSIGN_OR_RETURN(
      allocatable,
      r.Resources(Reader::Get(st, field), absl::StrCat("status.", field)));
  node->allocatable = std::move(allocatable);
  // No Ready condition at all (a hand-written node) counts as ready.
  if (const json* conditions = Reader::Get(st, "conditions")) {
    if (!conditions->is_array())
      return r.Error("status.conditions", "must be a list");
    for (size_t i = 0; i < conditions->size(); ++i) {
      const std::string path = absl::StrCat("status.conditions[", i, "]");
      SHOAL_ASSIGN_OR_RETURN(
          type, r.String((*conditions)[i], "type", path + ".type"));
      SHOAL_ASSIGN_OR_RETURN(
          value, r.String((*conditions)[i], "status", path + ".status"));
      if (type == "Ready") node->ready = value == "True";
    }
  }
  return node;
}

}  // namespace shoal::kube
