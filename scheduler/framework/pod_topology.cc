#include "scheduler/framework/pod_topology.h"

#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"

namespace shoal::framework {
namespace {

std::string Pair(const std::string& key, const std::string& value) {
  return absl::StrCat(key, std::string(1, '\0'), value);
}

// The first label a selector requires outright (In with its values), so
// that only pods carrying it need matching; nullptr when there is none.
const api::NodeSelectorRequirement* Anchor(const api::LabelSelector& s) {
  for (const auto& r : s.requirements) {
    if (r.op == api::SelectorOperator::kIn) return &r;
  }
  return nullptr;
}

bool Tolerated(const api::PlacementConstraints& c, const api::NodeSpec& node) {
  for (const api::Taint& t : node.taints) {
    if (t.effect == api::TaintEffect::kPreferNoSchedule) continue;
    if (!api::ToleratesAll(c.tolerations, t)) return false;
  }
  return true;
}

bool HasKeys(const api::Labels& labels,
             const std::vector<const api::TopologySpreadConstraint*>& group) {
  for (const auto* c : group) {
    if (labels.Find(c->topology_key) == nullptr) return false;
  }
  return true;
}

}  // namespace

const std::vector<std::string> PodTopology::kNoKeys;

int32_t PodTopology::SpreadCounter::MinMatch() const {
  if (domains_with_count.empty()) return 0;
  if (static_cast<int32_t>(per_domain.size()) < c->min_domains) return 0;
  return domains_with_count.begin()->first;
}

PodTopology::PodTopology(api::ClusterInfo& cluster) : cluster_(cluster) {
  for (const auto& t : cluster.tasks) {
    if (t.pod->inter_pod != nullptr) active_ = true;
  }
  for (const auto& f : cluster.foreign_pods) {
    if (f.pod->inter_pod != nullptr) active_ = true;
  }
  if (!active_) return;

  // The hostname label names one node when no two nodes share a value.
  absl::flat_hash_set<std::string> hostnames;
  bool unique = true;
  for (const auto& n : cluster.nodes) {
    const std::string* v = n.spec().labels.Find(api::kHostnameLabel);
    if (v != nullptr && !hostnames.insert(*v).second) unique = false;
  }
  if (unique) node_key_ = api::kHostnameLabel;

  // Owned terms first: a class needs to know every term that may be about it.
  for (const auto& t : cluster.tasks) {
    if (t.pod->inter_pod != nullptr) OwnedIds(*t.pod->inter_pod);
  }
  for (const auto& f : cluster.foreign_pods) {
    if (f.pod->inter_pod != nullptr) OwnedIds(*f.pod->inter_pod);
  }
  // Classes for the tasks that may be placed.
  for (auto& t : cluster.tasks) {
    if (t.status == api::TaskStatus::kPending)
      t.topology_class = ClassOf(*t.pod);
  }
  // Then count what is already placed.
  for (const auto& t : cluster.tasks) {
    if (t.node != api::kNone && api::OccupiesNode(t.status)) {
      Count(*t.pod, t.node, 1, t.status == api::TaskStatus::kReleasing);
    }
  }
  for (const auto& f : cluster.foreign_pods) {
    Count(*f.pod, f.node, 1, f.pod->status == api::TaskStatus::kReleasing);
  }
}

const api::Labels* PodTopology::NamespaceLabels(const std::string& ns) const {
  auto it = cluster_.namespace_labels.find(ns);
  return it == cluster_.namespace_labels.end() ? nullptr : &it->second;
}

bool PodTopology::TermMatches(const api::PodAffinityTerm& term,
                              const api::PodInfo& pod) const {
  return term.Matches(pod.ns, pod.labels, NamespaceLabels(pod.ns));
}

bool PodTopology::InScope(const std::string& key, TopologyScope scope) const {
  switch (scope) {
    case TopologyScope::kAll:
      return true;
    case TopologyScope::kNode:
      return IsNodeKey(key);
    case TopologyScope::kDomain:
      return !IsNodeKey(key);
  }
  return true;
}

void PodTopology::Index(int counter, const api::LabelSelector& selector,
                        bool spread) {
  if (selector.nothing) return;  // matches no pod: never counts anything
  const api::NodeSelectorRequirement* anchor = Anchor(selector);
  auto& by_label = spread ? spread_by_label_ : matchers_by_label_;
  if (anchor == nullptr) {
    (spread ? unanchored_spread_ : unanchored_matchers_).push_back(counter);
    return;
  }
  std::vector<std::string> values = anchor->values;  // `In (a, a)` counts once
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  for (const auto& v : values)
    by_label[Pair(anchor->key, v)].push_back(counter);
}

int PodTopology::NewMatchCounter(
    std::vector<const api::PodAffinityTerm*> terms) {
  int id = static_cast<int>(matchers_.size());
  MatchCounter m;
  m.terms = std::move(terms);
  for (const auto* t : m.terms) m.keys.push_back(t->topology_key);
  matchers_.push_back(std::move(m));
  Index(id, matchers_[id].terms.front()->selector, false);
  return id;
}

const PodTopology::OwnerIds& PodTopology::OwnedIds(
    const api::InterPodRules& rules) {
  auto it = owner_ids_.find(&rules);
  if (it != owner_ids_.end()) return it->second;
  OwnerIds ids;
  auto add = [this](const std::vector<api::PodAffinityTerm>& terms,
                    std::vector<int>& out, SymmetricTerm::Kind kind) {
    for (const auto& term : terms) {
      // Equal terms of different pods share one entry.
      int found = -1;
      for (size_t i = 0; i < owned_.size(); ++i) {
        if (*owned_[i].term == term) {
          found = static_cast<int>(i);
          break;
        }
      }
      if (found < 0) {
        found = static_cast<int>(owned_.size());
        owned_.push_back({&term, {}});
        owned_kinds_.emplace_back();
        if (term.selector.nothing) {
          // About no pod: indexed nowhere.
        } else if (const api::NodeSelectorRequirement* anchor =
                       Anchor(term.selector)) {
          for (const auto& v : anchor->values) {
            auto& list = owned_by_label_[Pair(anchor->key, v)];
            if (list.empty() || list.back() != found) list.push_back(found);
          }
        } else {
          unanchored_owned_.push_back(found);
        }
      }
      auto& kinds = owned_kinds_[found];
      if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
        kinds.push_back(kind);
      out.push_back(found);
    }
  };
  add(rules.required_anti_affinity, ids.required_anti,
      SymmetricTerm::kRequiredAnti);
  add(rules.required_affinity, ids.required_affinity,
      SymmetricTerm::kRequiredAffinity);
  add(rules.preferred_affinity, ids.preferred_affinity,
      SymmetricTerm::kPreferredAffinity);
  add(rules.preferred_anti_affinity, ids.preferred_anti,
      SymmetricTerm::kPreferredAnti);
  return owner_ids_.emplace(&rules, std::move(ids)).first->second;
}

int PodTopology::NewSpread(
    const api::PodInfo& pod, const api::TopologySpreadConstraint& c,
    const std::vector<const api::TopologySpreadConstraint*>& group) {
  SpreadCounter s;
  s.c = &c;
  s.ns = pod.ns;
  s.self_match = c.selector.Matches(pod.labels);
  s.eligible.assign(cluster_.nodes.size(), 0);
  for (size_t n = 0; n < cluster_.nodes.size(); ++n) {
    const api::NodeSpec& node = cluster_.nodes[n].spec();
    if (!HasKeys(node.labels, group)) continue;
    if (c.honor_node_affinity && !api::MatchesNodeSelectorAndAffinity(
                                     *pod.placement, node.labels, node.name)) {
      continue;
    }
    if (c.honor_taints && !Tolerated(*pod.placement, node)) continue;
    s.eligible[n] = 1;
    s.per_domain.emplace(*node.labels.Find(c.topology_key), 0);
  }
  if (!s.per_domain.empty())
    s.domains_with_count[0] = static_cast<int32_t>(s.per_domain.size());
  int id = static_cast<int>(spread_.size());
  spread_.push_back(std::move(s));
  Index(id, c.selector, true);
  return id;
}

namespace {

// Equal rules hash equally (unequal ones may collide: callers compare).
uint64_t RulesHash(const api::InterPodRules& r) {
  uint64_t h =
      absl::HashOf(r.required_affinity.size(), r.required_anti_affinity.size(),
                   r.preferred_affinity.size(),
                   r.preferred_anti_affinity.size(), r.spread.size());
  auto terms = [&h](const std::vector<api::PodAffinityTerm>& list) {
    for (const auto& t : list) {
      h = absl::HashOf(h, t.topology_key, t.weight, t.namespaces.names,
                       t.selector.nothing, t.selector.requirements.size());
      for (const auto& req : t.selector.requirements)
        h = absl::HashOf(h, req.key, req.values);
    }
  };
  terms(r.required_affinity);
  terms(r.required_anti_affinity);
  terms(r.preferred_affinity);
  terms(r.preferred_anti_affinity);
  for (const auto& c : r.spread) {
    h = absl::HashOf(h, c.topology_key, c.max_skew,
                     c.selector.requirements.size());
    for (const auto& req : c.selector.requirements)
      h = absl::HashOf(h, req.key, req.values);
  }
  return h;
}

}  // namespace

const api::InterPodRules* PodTopology::Canonical(
    const api::InterPodRules* rules) {
  if (rules == nullptr) return nullptr;
  auto& bucket = canonical_rules_[RulesHash(*rules)];
  for (const auto* r : bucket) {
    if (r == rules || *r == *rules) return r;
  }
  bucket.push_back(rules);
  return rules;
}

const api::PlacementConstraints* PodTopology::Canonical(
    const api::PlacementConstraints* p) {
  auto& bucket = canonical_placements_[p->fingerprint];
  for (const auto* q : bucket) {
    if (q == p || *q == *p) return q;
  }
  bucket.push_back(p);
  return p;
}

int PodTopology::ClassOf(const api::PodInfo& pod) {
  // Pods of one job come one after another and are usually alike.
  if (last_pod_ != nullptr && last_pod_->ns == pod.ns &&
      last_pod_->inter_pod == pod.inter_pod &&
      last_pod_->placement == pod.placement &&
      last_pod_->labels == pod.labels) {
    return last_class_;
  }
  // Which owned terms are about this pod: its namespace and labels decide.
  // Only terms anchored on one of its labels, or on none, can be.
  std::vector<SymmetricTerm> symmetric;
  auto consider = [&](int o) {
    if (!TermMatches(*owned_[o].term, pod)) return;
    for (SymmetricTerm::Kind kind : owned_kinds_[o])
      symmetric.push_back({o, kind});
  };
  for (int o : unanchored_owned_) consider(o);
  for (const auto& [k, v] : pod.labels.pairs()) {
    auto it = owned_by_label_.find(Pair(k, v));
    if (it == owned_by_label_.end()) continue;
    for (int o : it->second) consider(o);
  }
  std::sort(symmetric.begin(), symmetric.end(),
            [](const SymmetricTerm& a, const SymmetricTerm& b) {
              return a.owned != b.owned ? a.owned < b.owned : a.kind < b.kind;
            });
  symmetric.erase(
      std::unique(symmetric.begin(), symmetric.end(),
                  [](const SymmetricTerm& a, const SymmetricTerm& b) {
                    return a.owned == b.owned && a.kind == b.kind;
                  }),
      symmetric.end());
  last_pod_ = &pod;
  if (pod.inter_pod == nullptr && symmetric.empty())
    return last_class_ = 0;  // nothing bears on it

  // An existing class with the same rules, namespace, placement (spread
  // counts only the nodes it admits), symmetric terms, and the same
  // answers to whether the pod matches its own selectors.
  std::vector<bool> self;
  if (const api::InterPodRules* r = pod.inter_pod.get()) {
    for (const auto& c : r->spread)
      self.push_back(c.selector.Matches(pod.labels));
    for (const auto& term : r->required_affinity)
      self.push_back(TermMatches(term, pod));
  }
  ClassKey key{pod.ns,
               Canonical(pod.inter_pod.get()),
               Canonical(pod.placement.get()),
               {},
               self};
  for (const auto& s : symmetric) key.symmetric.push_back(s.owned * 4 + s.kind);
  auto found = class_by_key_.find(key);
  if (found != class_by_key_.end()) return last_class_ = found->second;

  Class c;
  c.exemplar = &pod;
  c.symmetric = std::move(symmetric);
  absl::flat_hash_set<std::string> keys;
  auto note_key = [&](const std::string& key) {
    if (!IsNodeKey(key) && keys.insert(key).second)
      c.domain_keys.push_back(key);
  };
  if (const api::InterPodRules* r = pod.inter_pod.get()) {
    if (!r->required_affinity.empty()) {
      std::vector<const api::PodAffinityTerm*> terms;
      for (const auto& t : r->required_affinity) {
        terms.push_back(&t);
        note_key(t.topology_key);
      }
      c.affinity = NewMatchCounter(std::move(terms));
    }
    for (const auto& t : r->required_anti_affinity) {
      c.anti.push_back(NewMatchCounter({&t}));
      note_key(t.topology_key);
    }
    for (const auto& t : r->preferred_affinity) {
      c.preferred.push_back(NewMatchCounter({&t}));
      note_key(t.topology_key);
    }
    for (const auto& t : r->preferred_anti_affinity) {
      c.preferred_anti.push_back(NewMatchCounter({&t}));
      note_key(t.topology_key);
    }
    // kube-scheduler requires a node to carry the keys of every filtering
    // constraint (and, for scoring, of every scoring one) to count.
    std::vector<const api::TopologySpreadConstraint*> filtering, scoring;
    for (const auto& s : r->spread)
      (s.do_not_schedule ? filtering : scoring).push_back(&s);
    for (const auto& s : r->spread) {
      c.spread.push_back(
          NewSpread(pod, s, s.do_not_schedule ? filtering : scoring));
      note_key(s.topology_key);
    }
  }
  for (const auto& s : c.symmetric)
    note_key(owned_[s.owned].term->topology_key);
  std::sort(c.domain_keys.begin(), c.domain_keys.end());
  classes_.push_back(std::move(c));
  last_class_ = static_cast<int>(classes_.size());
  class_by_key_.emplace(std::move(key), last_class_);
  return last_class_;
}

void PodTopology::Place(const api::PodInfo& pod, api::NodeIndex n, int delta,
                        bool terminating) {
  if (!active_ || n == api::kNone) return;
  Count(pod, n, delta, terminating);
}

void PodTopology::Count(const api::PodInfo& pod, api::NodeIndex n, int delta,
                        bool terminating) {
  const api::Labels& node = cluster_.nodes[n].spec().labels;
  // Terms this pod owns: other pods' symmetric checks look at where it is.
  if (pod.inter_pod != nullptr) {
    auto it = owner_ids_.find(pod.inter_pod.get());
    if (it != owner_ids_.end()) {
      for (const auto* list :
           {&it->second.required_anti, &it->second.required_affinity,
            &it->second.preferred_affinity, &it->second.preferred_anti}) {
        for (int o : *list) {
          const std::string* v = node.Find(owned_[o].term->topology_key);
          if (v == nullptr) continue;
          int32_t& count = owned_[o].owners[*v];
          count += delta;
          if (count == 0) owned_[o].owners.erase(*v);
        }
      }
    }
  }
  // Counters whose selectors may match this pod.
  auto visit =
      [&](const absl::flat_hash_map<std::string, std::vector<int>>& by_label,
          const std::vector<int>& unanchored, auto&& fn) {
        for (int id : unanchored) fn(id);
        for (const auto& [k, v] : pod.labels.pairs()) {
          auto it = by_label.find(Pair(k, v));
          if (it == by_label.end()) continue;
          for (int id : it->second) fn(id);
        }
      };
  visit(matchers_by_label_, unanchored_matchers_, [&](int id) {
    MatchCounter& m = matchers_[id];
    for (const auto* t : m.terms) {
      if (!TermMatches(*t, pod)) return;
    }
    m.total += delta;
    for (const std::string& key : m.keys) {
      const std::string* v = node.Find(key);
      if (v == nullptr) continue;
      const std::string pair = Pair(key, *v);
      int32_t& count = m.per_pair[pair];
      count += delta;
      // Emptiness matters: an affinity term nobody matches lets the first
      // pod of a group go anywhere.
      if (count == 0) m.per_pair.erase(pair);
    }
  });
  if (terminating) return;  // spread does not count pods being deleted
  visit(spread_by_label_, unanchored_spread_, [&](int id) {
    SpreadCounter& s = spread_[id];
    if (!s.eligible[n] || pod.ns != s.ns || !s.c->selector.Matches(pod.labels))
      return;
    int32_t& count = s.per_domain[*node.Find(s.c->topology_key)];
    auto dec = s.domains_with_count.find(count);
    if (--dec->second == 0) s.domains_with_count.erase(dec);
    count += delta;
    ++s.domains_with_count[count];
  });
}

int32_t PodTopology::PairCount(const MatchCounter& m, const std::string& key,
                               const api::Labels& node) const {
  const std::string* v = node.Find(key);
  if (v == nullptr) return 0;
  auto it = m.per_pair.find(Pair(key, *v));
  return it == m.per_pair.end() ? 0 : it->second;
}

const char* PodTopology::Refusal(const api::TaskInfo& t, const api::NodeInfo& n,
                                 TopologyScope scope) const {
  if (t.topology_class == 0) return nullptr;
  const Class& c = classes_[t.topology_class - 1];
  const api::Labels& node = n.spec().labels;
  const api::PodInfo& pod = *t.pod;

  // kube-scheduler's PodTopologySpread filter runs before InterPodAffinity.
  for (int id : c.spread) {
    const SpreadCounter& s = spread_[id];
    if (!s.c->do_not_schedule || !InScope(s.c->topology_key, scope)) continue;
    const std::string* v = node.Find(s.c->topology_key);
    if (v == nullptr) return kSpreadMissingLabel;
    auto it = s.per_domain.find(*v);
    int32_t match = it == s.per_domain.end() ? 0 : it->second;
    if (match + (s.self_match ? 1 : 0) - s.MinMatch() > s.c->max_skew)
      return kSpreadMismatch;
  }
  // Required affinity: every term's domain holds a pod matching all terms,
  // or no such pod exists anywhere and the pod matches its own terms (the
  // first of a group that wants to be together goes anywhere).
  if (c.affinity >= 0) {
    const MatchCounter& m = matchers_[c.affinity];
    bool in_scope = false, exist = true;
    for (const auto* term : m.terms) {
      if (!InScope(term->topology_key, scope)) continue;
      in_scope = true;
      if (node.Find(term->topology_key) == nullptr) return kPodAffinityMismatch;
      if (PairCount(m, term->topology_key, node) <= 0) exist = false;
    }
    if (in_scope && !exist) {
      bool self = std::all_of(m.terms.begin(), m.terms.end(),
                              [&](const api::PodAffinityTerm* term) {
                                return TermMatches(*term, pod);
                              });
      if (!m.per_pair.empty() || !self) return kPodAffinityMismatch;
    }
  }
  for (int id : c.anti) {
    const MatchCounter& m = matchers_[id];
    const std::string& key = m.keys.front();
    if (InScope(key, scope) && PairCount(m, key, node) > 0)
      return kPodAntiAffinityMismatch;
  }
  for (const SymmetricTerm& s : c.symmetric) {
    if (s.kind != SymmetricTerm::kRequiredAnti) continue;
    const OwnedTerm& o = owned_[s.owned];
    if (!InScope(o.term->topology_key, scope)) continue;
    const std::string* v = node.Find(o.term->topology_key);
    if (v != nullptr && o.owners.contains(*v))
      return kExistingAntiAffinityMismatch;
  }
  return nullptr;
}

const std::vector<std::string>& PodTopology::DomainKeys(
    const api::TaskInfo& t) const {
  if (t.topology_class == 0) return kNoKeys;
  return classes_[t.topology_class - 1].domain_keys;
}

uint64_t PodTopology::ClassStamp(const Class& c) const {
  uint64_t stamp = 0;
  if (c.affinity >= 0) {
    // Any new match may open nodes: affinity only ever grows the choice.
    stamp = absl::HashOf(stamp, matchers_[c.affinity].total);
  }
  for (int id : c.spread) {
    const SpreadCounter& s = spread_[id];
    if (IsNodeKey(s.c->topology_key)) stamp = absl::HashOf(stamp, s.MinMatch());
  }
  return stamp;
}

double PodTopology::AffinityScore(const api::TaskInfo& t,
                                  const api::NodeInfo& n, TopologyScope scope,
                                  double hard_affinity_weight) const {
  if (t.topology_class == 0) return 0;
  const Class& c = classes_[t.topology_class - 1];
  const api::Labels& node = n.spec().labels;
  double score = 0;
  for (size_t i = 0; i < c.preferred.size(); ++i) {
    const MatchCounter& m = matchers_[c.preferred[i]];
    const auto* term = m.terms.front();
    if (InScope(term->topology_key, scope))
      score += term->weight * PairCount(m, term->topology_key, node);
  }
  for (size_t i = 0; i < c.preferred_anti.size(); ++i) {
    const MatchCounter& m = matchers_[c.preferred_anti[i]];
    const auto* term = m.terms.front();
    if (InScope(term->topology_key, scope))
      score -= term->weight * PairCount(m, term->topology_key, node);
  }
  for (const SymmetricTerm& s : c.symmetric) {
    const OwnedTerm& o = owned_[s.owned];
    if (!InScope(o.term->topology_key, scope)) continue;
    const std::string* v = node.Find(o.term->topology_key);
    if (v == nullptr) continue;
    auto it = o.owners.find(*v);
    if (it == o.owners.end()) continue;
    switch (s.kind) {
      case SymmetricTerm::kRequiredAnti:
        break;
      case SymmetricTerm::kRequiredAffinity:
        score += hard_affinity_weight * it->second;
        break;
      case SymmetricTerm::kPreferredAffinity:
        score += o.term->weight * it->second;
        break;
      case SymmetricTerm::kPreferredAnti:
        score -= o.term->weight * it->second;
        break;
    }
  }
  return score;
}

double PodTopology::SpreadExcess(const api::TaskInfo& t, const api::NodeInfo& n,
                                 TopologyScope scope) const {
  if (t.topology_class == 0) return 0;
  const Class& c = classes_[t.topology_class - 1];
  double excess = 0;
  for (int id : c.spread) {
    const SpreadCounter& s = spread_[id];
    if (s.c->do_not_schedule || !InScope(s.c->topology_key, scope)) continue;
    const std::string* v = n.spec().labels.Find(s.c->topology_key);
    if (v == nullptr) continue;
    auto it = s.per_domain.find(*v);
    int32_t match = it == s.per_domain.end() ? 0 : it->second;
    excess += std::min(
        1.0, static_cast<double>(match - s.MinMatch()) / s.c->max_skew);
  }
  return excess;
}

std::vector<double> PodTopology::KubeSpreadScores(
    const api::TaskInfo& t, const std::vector<api::NodeIndex>& feasible) const {
  std::vector<double> out(feasible.size(), 0);
  if (t.topology_class == 0) return out;
  const Class& c = classes_[t.topology_class - 1];
  std::vector<const SpreadCounter*> scoring;
  for (int id : c.spread) {
    if (!spread_[id].c->do_not_schedule) scoring.push_back(&spread_[id]);
  }
  if (scoring.empty()) return out;
  std::vector<const api::TopologySpreadConstraint*> group;
  for (const auto* s : scoring) group.push_back(s->c);
  // Nodes without every key are ignored; domains are those of the rest.
  std::vector<bool> ignored(feasible.size());
  std::vector<absl::flat_hash_set<std::string>> domains(scoring.size());
  size_t counted = 0;
  for (size_t i = 0; i < feasible.size(); ++i) {
    const api::Labels& labels = cluster_.nodes[feasible[i]].spec().labels;
    ignored[i] = !HasKeys(labels, group);
    if (ignored[i]) continue;
    ++counted;
    for (size_t k = 0; k < scoring.size(); ++k)
      domains[k].insert(*labels.Find(scoring[k]->c->topology_key));
  }
  for (size_t i = 0; i < feasible.size(); ++i) {
    if (ignored[i]) {
      out[i] = -1;
      continue;
    }
    const api::Labels& labels = cluster_.nodes[feasible[i]].spec().labels;
    double score = 0;
    for (size_t k = 0; k < scoring.size(); ++k) {
      const SpreadCounter& s = *scoring[k];
      double size = s.c->topology_key == api::kHostnameLabel
                        ? counted
                        : domains[k].size();
      double weight = std::log(size + 2);
      auto it = s.per_domain.find(*labels.Find(s.c->topology_key));
      int32_t match = it == s.per_domain.end() ? 0 : it->second;
      score += match * weight + (s.c->max_skew - 1);
    }
    out[i] = std::round(score);
  }
  return out;
}

}  // namespace shoal::framework
