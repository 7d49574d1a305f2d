#include "scheduler/api/placement.h"

#include <algorithm>

#include "absl/hash/hash.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace shoal::api {

Labels::Labels(std::vector<std::pair<std::string, std::string>> pairs)
    : pairs_(std::move(pairs)) {
  std::sort(pairs_.begin(), pairs_.end());
  pairs_.erase(std::unique(pairs_.begin(), pairs_.end(),
                           [](const auto& a, const auto& b) {
                             return a.first == b.first;
                           }),
               pairs_.end());
}

const std::string* Labels::Find(absl::string_view key) const {
  auto it = std::lower_bound(
      pairs_.begin(), pairs_.end(), key,
      [](const auto& p, absl::string_view k) { return p.first < k; });
  if (it == pairs_.end() || it->first != key) return nullptr;
  return &it->second;
}

bool Tolerates(const Toleration& t, const Taint& taint) {
  if (t.effect.has_value() && *t.effect != taint.effect) return false;
  if (t.key.empty()) return t.op == Toleration::Operator::kExists;
  if (t.key != taint.key) return false;
  return t.op == Toleration::Operator::kExists || t.value == taint.value;
}

bool ToleratesAll(const std::vector<Toleration>& tolerations,
                  const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& t) { return Tolerates(t, taint); });
}

namespace {

// Gt/Lt compare the label and the single value as integers; anything that
// is not an integer does not match (as in the API server's validation).
bool CompareInt(const std::string* label, const std::vector<std::string>& v,
                bool greater) {
  int64_t have, want;
  if (label == nullptr || v.size() != 1 || !absl::SimpleAtoi(*label, &have) ||
      !absl::SimpleAtoi(v[0], &want)) {
    return false;
  }
  return greater ? have > want : have < want;
}

}  // namespace

bool MatchesRequirement(const NodeSelectorRequirement& r,
                        const std::string* value) {
  auto contains = [&] {
    return value != nullptr && std::find(r.values.begin(), r.values.end(),
                                         *value) != r.values.end();
  };
  switch (r.op) {
    case SelectorOperator::kIn:
      return contains();
    case SelectorOperator::kNotIn:
      return !contains();
    case SelectorOperator::kExists:
      return value != nullptr;
    case SelectorOperator::kDoesNotExist:
      return value == nullptr;
    case SelectorOperator::kGt:
      return CompareInt(value, r.values, true);
    case SelectorOperator::kLt:
      return CompareInt(value, r.values, false);
  }
  return false;
}

bool MatchesTerm(const NodeSelectorTerm& term, const Labels& labels,
                 absl::string_view node_name) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const auto& r : term.match_expressions) {
    if (!MatchesRequirement(r, labels.Find(r.key))) return false;
  }
  std::string name(node_name);
  for (const auto& r : term.match_fields) {
    const std::string* value = r.key == "metadata.name" ? &name : nullptr;
    if (!MatchesRequirement(r, value)) return false;
  }
  return true;
}

int64_t MatchedPreferenceWeight(const PlacementConstraints& c,
                                const Labels& labels,
                                absl::string_view node_name) {
  int64_t sum = 0;
  for (const auto& p : c.preferred_terms) {
    if (MatchesTerm(p.term, labels, node_name)) sum += p.weight;
  }
  return sum;
}

int64_t UntoleratedPreferNoSchedule(const std::vector<Toleration>& tolerations,
                                    const std::vector<Taint>& taints) {
  int64_t count = 0;
  for (const auto& taint : taints) {
    if (taint.effect == TaintEffect::kPreferNoSchedule &&
        !ToleratesAll(tolerations, taint)) {
      ++count;
    }
  }
  return count;
}

bool MatchesNodeSelectorAndAffinity(const PlacementConstraints& c,
                                    const Labels& labels,
                                    absl::string_view node_name) {
  for (const auto& [key, value] : c.node_selector.pairs()) {
    const std::string* have = labels.Find(key);
    if (have == nullptr || *have != value) return false;
  }
  if (!c.required_terms.has_value()) return true;
  return std::any_of(c.required_terms->begin(), c.required_terms->end(),
                     [&](const NodeSelectorTerm& t) {
                       return MatchesTerm(t, labels, node_name);
                     });
}

bool MatchesAllOf(const std::vector<std::vector<NodeSelectorTerm>>& entries,
                  const Labels& labels, absl::string_view node_name) {
  for (const auto& terms : entries) {
    if (!std::any_of(terms.begin(), terms.end(),
                     [&](const NodeSelectorTerm& t) {
                       return MatchesTerm(t, labels, node_name);
                     })) {
      return false;
    }
  }
  return true;
}

std::vector<std::vector<NodeSelectorTerm>> VolumeZoneTerms(
    const Labels& pv_labels) {
  // kube-scheduler's VolumeZone topologyLabels, and the GA label each beta
  // one stands for.
  static const std::pair<const char*, const char*> kKeys[] = {
      {"failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"},
      {"failure-domain.beta.kubernetes.io/region",
       "topology.kubernetes.io/region"},
      {"topology.kubernetes.io/zone", nullptr},
      {"topology.kubernetes.io/region", nullptr}};
  NodeSelectorTerm unconstrained;  // the node has no zone or region label
  for (const auto& [key, ga] : kKeys) {
    unconstrained.match_expressions.push_back(
        {key, SelectorOperator::kDoesNotExist, {}});
  }
  std::vector<std::vector<NodeSelectorTerm>> out;
  for (const auto& [key, ga] : kKeys) {
    const std::string* value = pv_labels.Find(key);
    if (value == nullptr) continue;
    std::vector<std::string> zones;
    for (absl::string_view z : absl::StrSplit(*value, "__")) {
      zones.emplace_back(z);
    }
    std::vector<NodeSelectorTerm> terms;
    NodeSelectorTerm same;
    same.match_expressions.push_back({key, SelectorOperator::kIn, zones});
    terms.push_back(std::move(same));
    if (ga != nullptr) {
      NodeSelectorTerm translated;
      translated.match_expressions.push_back(
          {key, SelectorOperator::kDoesNotExist, {}});
      translated.match_expressions.push_back(
          {ga, SelectorOperator::kIn, zones});
      terms.push_back(std::move(translated));
    }
    terms.push_back(unconstrained);
    out.push_back(std::move(terms));
  }
  return out;
}

namespace {

template <typename H>
H HashRequirement(H h, const NodeSelectorRequirement& r) {
  return H::combine(std::move(h), r.key, static_cast<int>(r.op), r.values);
}

template <typename H>
H HashTerm(H h, const NodeSelectorTerm& t) {
  for (const auto& r : t.match_expressions)
    h = HashRequirement(std::move(h), r);
  h = H::combine(std::move(h), t.match_expressions.size());
  for (const auto& r : t.match_fields) h = HashRequirement(std::move(h), r);
  return H::combine(std::move(h), t.match_fields.size());
}

struct HashableConstraints {
  const PlacementConstraints& c;
  template <typename H>
  friend H AbslHashValue(H h, const HashableConstraints& x) {
    h = H::combine(std::move(h), x.c.node_selector.pairs());
    h = H::combine(std::move(h), x.c.required_terms.has_value());
    if (x.c.required_terms) {
      for (const auto& t : *x.c.required_terms) h = HashTerm(std::move(h), t);
    }
    for (const auto& p : x.c.preferred_terms) {
      h = HashTerm(H::combine(std::move(h), p.weight), p.term);
    }
    for (const auto& t : x.c.tolerations) {
      h = H::combine(std::move(h), t.key, static_cast<int>(t.op), t.value,
                     t.effect.has_value(),
                     t.effect ? static_cast<int>(*t.effect) : -1);
    }
    for (const auto* list : {&x.c.volume_node_affinity, &x.c.volume_zones}) {
      for (const auto& terms : *list) {
        for (const auto& t : terms) h = HashTerm(std::move(h), t);
        h = H::combine(std::move(h), terms.size());
      }
      h = H::combine(std::move(h), list->size());
    }
    return h;
  }
};

}  // namespace

void PlacementConstraints::ComputeFingerprint() {
  fingerprint = absl::HashOf(HashableConstraints{*this});
}

}  // namespace shoal::api
