// Where a pod may go: node selector, node affinity and tolerations, and the
// node-side facts they are matched against (labels, taints). Pure value
// types with the matching rules of the Kubernetes API.
#ifndef SHOAL_SCHEDULER_API_PLACEMENT_H_
#define SHOAL_SCHEDULER_API_PLACEMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace shoal::api {

// Sorted by key; at most one value per key.
class Labels {
 public:
  Labels() = default;
  explicit Labels(std::vector<std::pair<std::string, std::string>> pairs);
  // nullptr when the key is absent.
  const std::string* Find(absl::string_view key) const;
  const std::vector<std::pair<std::string, std::string>>& pairs() const {
    return pairs_;
  }
  bool operator==(const Labels& o) const { return pairs_ == o.pairs_; }

 private:
  std::vector<std::pair<std::string, std::string>> pairs_;
};

enum class TaintEffect { kNoSchedule, kPreferNoSchedule, kNoExecute };

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNoSchedule;
  bool operator==(const Taint& o) const {
    return key == o.key && value == o.value && effect == o.effect;
  }
};

struct Toleration {
  enum class Operator { kEqual, kExists };
  std::string key;  // empty with kExists: tolerates every key
  Operator op = Operator::kEqual;
  std::string value;
  std::optional<TaintEffect> effect;  // empty: every effect
  bool operator==(const Toleration& o) const {
    return key == o.key && op == o.op && value == o.value && effect == o.effect;
  }
};

bool Tolerates(const Toleration& toleration, const Taint& taint);
bool ToleratesAll(const std::vector<Toleration>& tolerations,
                  const Taint& taint);

enum class SelectorOperator { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };

struct NodeSelectorRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::kIn;
  std::vector<std::string> values;
  bool operator==(const NodeSelectorRequirement& o) const {
    return key == o.key && op == o.op && values == o.values;
  }
};

// Whether a label's value (nullptr: the label is absent) meets `r`.
bool MatchesRequirement(const NodeSelectorRequirement& r,
                        const std::string* value);

// Requirements ANDed together. matchFields only knows metadata.name.
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
  bool operator==(const NodeSelectorTerm& o) const {
    return match_expressions == o.match_expressions &&
           match_fields == o.match_fields;
  }
};

// An empty term matches no node, as in the Kubernetes API.
bool MatchesTerm(const NodeSelectorTerm& term, const Labels& labels,
                 absl::string_view node_name);

struct PreferredTerm {
  int32_t weight = 0;
  NodeSelectorTerm term;
  bool operator==(const PreferredTerm& o) const {
    return weight == o.weight && term == o.term;
  }
};

// Everything about a pod that decides which nodes it may use, apart from
// resources. Pods of one job usually share one instance, so per-node
// results can be cached per instance (see `fingerprint`).
struct PlacementConstraints {
  Labels node_selector;
  // Terms ORed; nullopt when the pod has no required node affinity.
  std::optional<std::vector<NodeSelectorTerm>> required_terms;
  std::vector<PreferredTerm> preferred_terms;
  std::vector<Toleration> tolerations;
  // The persistent volumes of the pod's bound claims (set by the cache at
  // snapshot time, on a copy of the pod's constraints): each entry holds
  // one volume's spec.nodeAffinity.required terms, ORed; every entry must
  // hold (kube-scheduler's VolumeBinding: "node(s) had volume node
  // affinity conflict").
  std::vector<std::vector<NodeSelectorTerm>> volume_node_affinity;
  // The same for the volumes' zone and region labels (VolumeZone: "node(s)
  // had no available volume zone"), as terms built by VolumeZoneTerms.
  std::vector<std::vector<NodeSelectorTerm>> volume_zones;

  // Hash of all of the above; equal constraints have equal fingerprints.
  uint64_t fingerprint = 0;
  void ComputeFingerprint();

  bool operator==(const PlacementConstraints& o) const {
    return node_selector == o.node_selector &&
           required_terms == o.required_terms &&
           preferred_terms == o.preferred_terms &&
           tolerations == o.tolerations &&
           volume_node_affinity == o.volume_node_affinity &&
           volume_zones == o.volume_zones;
  }
};

// kube-scheduler's NodeAffinity score before normalising: the weights of
// the preferred terms the node matches.
int64_t MatchedPreferenceWeight(const PlacementConstraints& c,
                                const Labels& labels,
                                absl::string_view node_name);
// kube-scheduler's TaintToleration score before normalising: the node's
// PreferNoSchedule taints the pod does not tolerate.
int64_t UntoleratedPreferNoSchedule(const std::vector<Toleration>& tolerations,
                                    const std::vector<Taint>& taints);

// nodeSelector and required node affinity both hold.
bool MatchesNodeSelectorAndAffinity(const PlacementConstraints& c,
                                    const Labels& labels,
                                    absl::string_view node_name);

// Every entry has a term the node matches (each entry's terms ORed, the
// entries ANDed); true when there are none.
bool MatchesAllOf(const std::vector<std::vector<NodeSelectorTerm>>& entries,
                  const Labels& labels, absl::string_view node_name);

// What kube-scheduler's VolumeZone asks of a node for one persistent
// volume, from the volume's labels, as ORed terms; empty when the volume
// has no zone or region label. A node may take the volume when it has
// none of the zone and region labels, or when, for each such label the
// volume has (a value may list several zones, "a__b"), the node's label
// is one of them; a volume's beta label
// (failure-domain.beta.kubernetes.io/zone) is also matched against the
// node's GA one (topology.kubernetes.io/zone) when the node lacks the
// beta one.
std::vector<std::vector<NodeSelectorTerm>> VolumeZoneTerms(
    const Labels& pv_labels);

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_PLACEMENT_H_
