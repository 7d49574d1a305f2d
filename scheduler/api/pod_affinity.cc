#include "scheduler/api/pod_affinity.h"

#include <algorithm>

namespace shoal::api {

bool LabelSelector::Matches(const Labels& labels) const {
  if (nothing) return false;
  for (const auto& r : requirements) {
    if (!MatchesRequirement(r, labels.Find(r.key))) return false;
  }
  return true;
}

bool NamespaceScope::Contains(const std::string& ns, const Labels* ns_labels) const {
  if (std::binary_search(names.begin(), names.end(), ns)) return true;
  if (!selector.has_value()) return false;
  if (selector->requirements.empty()) return true;
  return ns_labels != nullptr && selector->Matches(*ns_labels);
}

}  // namespace shoal::api
