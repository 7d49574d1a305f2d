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

bool NamespaceScope::Contains(const std::string& ns,
                              const Labels* ns_labels) const {
  if (std::binary_search(names.begin(), names.end(), ns)) return true;
  if (!selector.has_value()) return false;
  if (selector->requirements.empty()) return true;
  // A namespace Shoal has not seen has no labels (as kube-scheduler reads it).
  static const Labels kNoLabels;
  return selector->Matches(ns_labels != nullptr ? *ns_labels : kNoLabels);
}

}  // namespace shoal::api
