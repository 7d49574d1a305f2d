// Volcano's HyperNodes (topology.volcano.sh/v1alpha1): one domain of the
// network each, its tier and its members. The tree they make is checked
// when it is built (scheduler/api/network_topology.h), where a member can
// be looked up; here each object is checked on its own.
#include "absl/strings/str_cat.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/pod_placement.h"
#include "scheduler/kube/decode/reader.h"

namespace shoal::kube {
namespace {

// Volcano's HyperNodeSpec (topology.volcano.sh/v1alpha1).
const SchedulingFields kHyperNodeFields = {
    "hypernode",
    {
        {"tier", FieldUse::kHonoured},
        {"tierName", FieldUse::kHonoured},
        {"members", FieldUse::kHonoured},
    }};

}  // namespace

bool IsHyperNode(const json& obj) {
  return StringMember(obj, "kind") == "HyperNode" &&
         StringMember(obj, "apiVersion") == "topology.volcano.sh/v1alpha1";
}

absl::StatusOr<api::HyperNodeSpec> DecodeHyperNode(const json& obj,
                                                   DecodeWarnings* warnings) {
  if (auto s = RequireName(obj, "hypernode"); !s.ok()) return s;
  Reader r(NamedObject("hypernode", NameOf(obj)));
  SHOAL_ASSIGN_OR_RETURN(spec_ptr, r.Section(obj, "spec"));
  const json& spec = *spec_ptr;
  // A field this list does not name (a newer API) is a warning, said once.
  r.CheckFields(spec, "spec", kHyperNodeFields, nullptr);
  api::HyperNodeSpec h;
  h.name = NameOf(obj);
  SHOAL_ASSIGN_OR_RETURN(tier, r.Int(spec, "tier", "spec.tier", 0));
  if (tier < 1) {
    return r.Error("spec.tier",
                   absl::StrCat("must be a whole number >= 1 (tier 1 is the "
                                "closest network), got ",
                                tier));
  }
  h.tier = static_cast<int32_t>(tier);
  SHOAL_ASSIGN_OR_RETURN(tier_name,
                         r.String(spec, "tierName", "spec.tierName"));
  h.tier_name = tier_name;
  if (const json* members = Reader::Get(spec, "members")) {
    if (!members->is_array()) return r.Error("spec.members", "must be a list");
    for (size_t i = 0; i < members->size(); ++i) {
      const json& m = (*members)[i];
      const std::string at = absl::StrCat("spec.members[", i, "]");
      api::HyperNodeMember member;
      SHOAL_ASSIGN_OR_RETURN(type, r.String(m, "type", at + ".type"));
      if (type == "Node") {
        member.type = api::HyperNodeMember::Type::kNode;
      } else if (type == "HyperNode") {
        member.type = api::HyperNodeMember::Type::kHyperNode;
      } else {
        return r.Error(
            at + ".type",
            absl::StrCat("must be Node or HyperNode, got \"", type, "\""));
      }
      SHOAL_ASSIGN_OR_RETURN(sel_ptr, r.Section(m, "selector"));
      const json& sel = *sel_ptr;
      const json* exact = Reader::Get(sel, "exactMatch");
      const json* regex = Reader::Get(sel, "regexMatch");
      const json* labels = Reader::Get(sel, "labelMatch");
      const int chosen =
          (exact != nullptr) + (regex != nullptr) + (labels != nullptr);
      if (chosen != 1) {
        return r.Error(at + ".selector",
                       "must have exactly one of exactMatch, regexMatch or "
                       "labelMatch");
      }
      if (exact != nullptr) {
        member.match = api::HyperNodeMember::Match::kExact;
        SHOAL_ASSIGN_OR_RETURN(
            name, r.String(*exact, "name", at + ".selector.exactMatch.name"));
        if (name.empty())
          return r.Error(at + ".selector.exactMatch.name", "must not be empty");
        member.value = name;
      } else if (regex != nullptr) {
        member.match = api::HyperNodeMember::Match::kRegex;
        SHOAL_ASSIGN_OR_RETURN(
            pattern,
            r.String(*regex, "pattern", at + ".selector.regexMatch.pattern"));
        member.value = pattern;
      } else {
        member.match = api::HyperNodeMember::Match::kLabels;
        SHOAL_ASSIGN_OR_RETURN(
            sel_labels,
            LabelSelectorAt(r, labels, at + ".selector.labelMatch"));
        member.labels = std::move(sel_labels);
      }
      h.members.push_back(std::move(member));
    }
  }
  r.TakeWarnings(warnings);
  return h;
}

}  // namespace shoal::kube
