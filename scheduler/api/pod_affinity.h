// Rules that place a pod relative to other pods rather than to a node:
// inter-pod affinity and anti-affinity, and topology spread constraints.
// Pure value types with the Kubernetes API's matching rules; counting pods
// per topology domain is the framework's job (framework/pod_topology.h).
#ifndef SHOAL_SCHEDULER_API_POD_AFFINITY_H_
#define SHOAL_SCHEDULER_API_POD_AFFINITY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/api/placement.h"

namespace shoal::api {

// The node label that names a single node: a domain of exactly one node.
inline constexpr char kHostnameLabel[] = "kubernetes.io/hostname";

// A metav1.LabelSelector: matchLabels become In requirements, all ANDed.
// An empty selector matches every set of labels; a missing one (nullopt
// where it is optional) matches none.
struct LabelSelector {
  std::vector<NodeSelectorRequirement> requirements;
  bool nothing = false;  // a null selector where one is expected
  bool Matches(const Labels& labels) const;
  bool operator==(const LabelSelector& o) const {
    return requirements == o.requirements && nothing == o.nothing;
  }
};

// Which namespaces a term looks at: the listed ones, those whose labels
// match `selector`, or, with neither, the pod's own (settled at decode
// time into `names`).
struct NamespaceScope {
  std::vector<std::string> names;         // sorted
  std::optional<LabelSelector> selector;  // {} selects every namespace
  bool Contains(const std::string& ns, const Labels* ns_labels) const;
  bool operator==(const NamespaceScope& o) const {
    return names == o.names && selector == o.selector;
  }
};

// One podAffinityTerm, with matchLabelKeys/mismatchLabelKeys already
// folded into the selector (as the API server's feature does: `key In
// (own value)` and `key NotIn (own value)`).
struct PodAffinityTerm {
  LabelSelector selector;
  NamespaceScope namespaces;
  std::string topology_key;
  int32_t weight = 0;  // preferred terms only (1-100)
  bool operator==(const PodAffinityTerm& o) const {
    return selector == o.selector && namespaces == o.namespaces &&
           topology_key == o.topology_key && weight == o.weight;
  }
  // Whether the pod (namespace, labels) is one this term is about.
  bool Matches(const std::string& ns, const Labels& labels,
               const Labels* ns_labels) const {
    return namespaces.Contains(ns, ns_labels) && selector.Matches(labels);
  }
};

struct TopologySpreadConstraint {
  int32_t max_skew = 1;
  std::string topology_key;
  bool do_not_schedule = true;  // whenUnsatisfiable
  LabelSelector selector;       // matchLabelKeys folded in
  int32_t min_domains = 1;
  // nodeAffinityPolicy: Honor (default) counts only nodes the pod's node
  // selector and affinity allow; nodeTaintsPolicy: Ignore (default).
  bool honor_node_affinity = true;
  bool honor_taints = false;
  bool operator==(const TopologySpreadConstraint& o) const {
    return max_skew == o.max_skew && topology_key == o.topology_key &&
           do_not_schedule == o.do_not_schedule && selector == o.selector &&
           min_domains == o.min_domains &&
           honor_node_affinity == o.honor_node_affinity &&
           honor_taints == o.honor_taints;
  }
};

// Everything about a pod that refers to other pods. Pods of one job
// usually share one instance.
struct InterPodRules {
  std::vector<PodAffinityTerm> required_affinity;
  std::vector<PodAffinityTerm> required_anti_affinity;
  std::vector<PodAffinityTerm> preferred_affinity;
  std::vector<PodAffinityTerm> preferred_anti_affinity;
  std::vector<TopologySpreadConstraint> spread;

  bool empty() const {
    return required_affinity.empty() && required_anti_affinity.empty() &&
           preferred_affinity.empty() && preferred_anti_affinity.empty() &&
           spread.empty();
  }
  bool operator==(const InterPodRules& o) const {
    return required_affinity == o.required_affinity &&
           required_anti_affinity == o.required_anti_affinity &&
           preferred_affinity == o.preferred_affinity &&
           preferred_anti_affinity == o.preferred_anti_affinity &&
           spread == o.spread;
  }
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_POD_AFFINITY_H_
