#include "scheduler/api/placement.h"

#include <algorithm>

#include "absl/hash/hash.h"
#include "absl/strings/numbers.h"

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
    return value != nullptr &&
           std::find(r.values.begin(), r.values.end(), *value) !=
               r.values.end();
  };
  switch (r.op) {
    case SelectorOperator::kIn: return contains();
    case SelectorOperator::kNotIn: return !contains();
    case SelectorOperator::kExists: return value != nullptr;
    case SelectorOperator::kDoesNotExist: return value == nullptr;
    case SelectorOperator::kGt: return CompareInt(value, r.values, true);
    case SelectorOperator::kLt: return CompareInt(value, r.values, false);
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

namespace {

template <typename H>
H HashRequirement(H h, const NodeSelectorRequirement& r) {
  return H::combine(std::move(h), r.key, static_cast<int>(r.op), r.values);
}

template <typename H>
H HashTerm(H h, const NodeSelectorTerm& t) {
  for (const auto& r : t.match_expressions) h = HashRequirement(std::move(h), r);
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
    return h;
  }
};

}  // namespace

void PlacementConstraints::ComputeFingerprint() {
  fingerprint = absl::HashOf(HashableConstraints{*this});
}

}  // namespace shoal::api
