#include "scheduler/kube/decode/pod_resource_claims.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace shoal::kube {

absl::StatusOr<std::vector<api::PodClaim>> DecodePodResourceClaims(
    const Reader& r, const json& spec, const json& status) {
  std::vector<api::PodClaim> out;
  const json* list = Reader::Get(spec, "resourceClaims");
  if (list == nullptr) return out;
  if (!list->is_array()) {
    return r.Error("spec.resourceClaims",
                   absl::StrCat("must be a list, got ", list->dump()));
  }
  // What the resourceclaim controller wrote: pod claim name -> claim.
  const json* made = Reader::Get(status, "resourceClaimStatuses");
  for (size_t i = 0; i < list->size(); ++i) {
    const json& entry = (*list)[i];
    const std::string path = absl::StrCat("spec.resourceClaims[", i, "]");
    if (!entry.is_object()) {
      return r.Error(path,
                     absl::StrCat("must be an object, got ", entry.dump()));
    }
    api::PodClaim pc;
    SHOAL_ASSIGN_OR_RETURN(name, r.String(entry, "name", path + ".name"));
    SHOAL_ASSIGN_OR_RETURN(claim, r.String(entry, "resourceClaimName",
                                           path + ".resourceClaimName"));
    SHOAL_ASSIGN_OR_RETURN(templ,
                           r.String(entry, "resourceClaimTemplateName",
                                    path + ".resourceClaimTemplateName"));
    if (name.empty()) return r.Error(path + ".name", "must not be empty");
    if (claim.empty() == templ.empty()) {
      return r.Error(path,
                     "must name exactly one of resourceClaimName and "
                     "resourceClaimTemplateName");
    }
    pc.name = name;
    pc.claim = claim;
    pc.template_name = templ;
    if (!templ.empty() && made != nullptr && made->is_array()) {
      for (const json& m : *made) {
        const json* made_for = Reader::Get(m, "name");
        const json* made_claim = Reader::Get(m, "resourceClaimName");
        if (made_for != nullptr && *made_for == name && made_claim != nullptr &&
            made_claim->is_string()) {
          pc.claim = made_claim->get<std::string>();
        }
      }
    }
    out.push_back(std::move(pc));
  }
  return out;
}

}  // namespace shoal::kube
