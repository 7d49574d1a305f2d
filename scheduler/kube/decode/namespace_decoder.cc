// Namespaces: their labels, which namespaceSelectors of pod affinity read.
#include "absl/strings/str_cat.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/reader.h"

namespace shoal::kube {

absl::StatusOr<DecodedNamespace> DecodeNamespace(const json& obj) {
  if (auto s = RequireName(obj, "namespace"); !s.ok()) return s;
  Reader r(absl::StrCat("namespace ", NameOf(obj)));
  SHOAL_ASSIGN_OR_RETURN(
      labels,
      r.StringMap(Reader::Get(Metadata(obj), "labels"), "metadata.labels"));
  return DecodedNamespace{NameOf(obj), api::Labels(std::move(labels))};
}

}  // namespace shoal::kube
