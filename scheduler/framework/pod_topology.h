// Where pods are, counted per topology domain, for the rules that place a
// pod relative to others: inter-pod affinity and anti-affinity (its own
// and, by symmetry, other pods' anti-affinity against it) and topology
// spread constraints, with kube-scheduler's semantics and words.
//
// Counts are kept current by the session's placement events, so the pods
// a statement places (a gang's own members) count for the next ones and a
// discarded statement leaves no trace. Every counter the session can need
// is made when it opens, from the rules of every pod it holds; checking a
// node is then a few map lookups, not a pass over the pods.
//
// A rule whose topology key is kubernetes.io/hostname (with one node per
// value) looks at one node only: placing a pod changes it only on that
// node, which bumps the node's generation, so callers can cache per-node
// answers. Rules over any other key ("domain" rules: zones, racks) change
// for every node of a domain at once; callers that cache group nodes by
// their values of DomainKeys() and ask about those rules per group.
#ifndef SHOAL_SCHEDULER_FRAMEWORK_POD_TOPOLOGY_H_
#define SHOAL_SCHEDULER_FRAMEWORK_POD_TOPOLOGY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "scheduler/api/cluster_info.h"

namespace shoal::framework {

// kube-scheduler's reasons.
inline constexpr char kPodAffinityMismatch[] =
    "node(s) didn't match pod affinity rules";
inline constexpr char kPodAntiAffinityMismatch[] =
    "node(s) didn't match pod anti-affinity rules";
inline constexpr char kExistingAntiAffinityMismatch[] =
    "node(s) didn't satisfy existing pods anti-affinity rules";
inline constexpr char kSpreadMismatch[] =
    "node(s) didn't match pod topology spread constraints";
inline constexpr char kSpreadMissingLabel[] =
    "node(s) didn't match pod topology spread constraints (missing required "
    "label)";

// Which rules a check or score looks at.
enum class TopologyScope {
  kAll,
  kNode,    // rules over a single node (hostname)
  kDomain,  // rules over any other topology key
};

class PodTopology {
 public:
  // Counts the pods placed in `cluster` and sets each task's
  // topology_class. With no inter-pod rule anywhere it stays inactive and
  // every check passes at no cost.
  explicit PodTopology(api::ClusterInfo& cluster);
  PodTopology(const PodTopology&) = delete;
  PodTopology& operator=(const PodTopology&) = delete;

  bool active() const { return active_; }

  // A pod starts (+1) or stops (-1) holding a place on node `n`.
  // `terminating`: it is being deleted (spread does not count it).
  void Place(const api::PodInfo& pod, api::NodeIndex n, int delta,
             bool terminating);

  // Null when the task may go to the node as far as the rules in `scope`
  // go; otherwise kube-scheduler's reason (checked in its order: pod
  // spread, pod affinity, pod anti-affinity, existing pods' anti-affinity).
  const char* Refusal(const api::TaskInfo& t, const api::NodeInfo& n,
                      TopologyScope scope = TopologyScope::kAll) const;

  // The topology keys, other than single-node ones, of every rule that
  // bears on the task (its own and others' anti-affinity against it).
  const std::vector<std::string>& DomainKeys(const api::TaskInfo& t) const;
  // Changes whenever a single-node answer for the task may have changed on
  // a node other than the one a pod was placed on (the minimum of a spread
  // over hostnames, an affinity term's first match): per-node caches are
  // stale then.
  uint64_t NodeRulesStamp(const api::TaskInfo& t) const {
    return t.topology_class == 0 ? 0
                                 : ClassStamp(classes_[t.topology_class - 1]);
  }

  // kube-scheduler's InterPodAffinity score before normalization: the
  // weights of the task's preferred terms times the matching pods in the
  // node's domains, plus other pods' terms about the task (their required
  // affinity with `hard_affinity_weight`).
  double AffinityScore(const api::TaskInfo& t, const api::NodeInfo& n,
                       TopologyScope scope,
                       double hard_affinity_weight = 1) const;
  // How far above the least-loaded domain the node's domains are, in units
  // of maxSkew (each at most 1), summed over the task's ScheduleAnyway
  // constraints: 0 is best.
  double SpreadExcess(const api::TaskInfo& t, const api::NodeInfo& n,
                      TopologyScope scope) const;
  // kube-scheduler's PodTopologySpread scores before normalization for the
  // nodes `feasible` (what passed the filters), as its PreScore and Score
  // compute them; nodes it ignores get -1.
  std::vector<double> KubeSpreadScores(
      const api::TaskInfo& t,
      const std::vector<api::NodeIndex>& feasible) const;

 private:
  // Pods matching every one of `terms` (their selectors and namespaces),
  // counted per (topology key, value) of the node they are on, for each
  // key of `keys`.
  struct MatchCounter {
    std::vector<const api::PodAffinityTerm*> terms;
    std::vector<std::string> keys;
    absl::flat_hash_map<std::string, int32_t> per_pair;  // "key\0value"
    int64_t total = 0;
  };
  // Placed pods that own a term (of their own rules), per value of its key.
  struct OwnedTerm {
    const api::PodAffinityTerm* term;
    absl::flat_hash_map<std::string, int32_t> owners;  // value -> count
  };
  // One spread constraint of one class: matching pods per domain, over the
  // nodes its inclusion policies admit that carry every key of its group.
  struct SpreadCounter {
    const api::TopologySpreadConstraint* c;
    std::string ns;
    std::vector<char> eligible;  // per node
    absl::flat_hash_map<std::string, int32_t> per_domain;
    std::map<int32_t, int32_t> domains_with_count;
    bool self_match = false;
    int32_t MinMatch() const;
  };
  struct SymmetricTerm {
    int owned;  // index into owned_
    enum Kind {
      kRequiredAnti,
      kRequiredAffinity,
      kPreferredAffinity,
      kPreferredAnti
    } kind;
  };
  // Tasks alike to the rules share one.
  struct Class {
    const api::PodInfo* exemplar;
    int affinity = -1;      // MatchCounter over all required affinity terms
    std::vector<int> anti;  // per required anti-affinity term
    std::vector<int> preferred;       // per preferred affinity term
    std::vector<int> preferred_anti;  // per preferred anti-affinity term
    std::vector<int> spread;          // per constraint: index into spread_
    std::vector<SymmetricTerm> symmetric;
    std::vector<std::string> domain_keys;
  };
  struct OwnerIds {
    std::vector<int> required_anti, required_affinity, preferred_affinity,
        preferred_anti;
  };
  // What makes two pods alike to the rules.
  struct ClassKey {
    std::string ns;
    const api::InterPodRules* rules;
    const api::PlacementConstraints* placement;
    std::vector<int> symmetric;  // owned * 4 + kind
    std::vector<bool> self;      // the pod matches its own selectors
    bool operator==(const ClassKey& o) const {
      return ns == o.ns && rules == o.rules && placement == o.placement &&
             symmetric == o.symmetric && self == o.self;
    }
    template <typename H>
    friend H AbslHashValue(H h, const ClassKey& k) {
      return H::combine(std::move(h), k.ns, k.rules, k.placement, k.symmetric,
                        k.self);
    }
  };

  using Labels = api::Labels;

  bool IsNodeKey(const std::string& key) const { return key == node_key_; }
  uint64_t ClassStamp(const Class& c) const;
  bool InScope(const std::string& key, TopologyScope scope) const;
  const Labels* NamespaceLabels(const std::string& ns) const;
  bool TermMatches(const api::PodAffinityTerm& term,
                   const api::PodInfo& pod) const;
  int NewMatchCounter(std::vector<const api::PodAffinityTerm*> terms);
  int NewSpread(const api::PodInfo& pod, const api::TopologySpreadConstraint& c,
                const std::vector<const api::TopologySpreadConstraint*>& group);
  const OwnerIds& OwnedIds(const api::InterPodRules& rules);
  int ClassOf(const api::PodInfo& pod);
  // One instance for equal rules (equal placements): pods decoded one by
  // one each hold their own copy.
  const api::InterPodRules* Canonical(const api::InterPodRules* rules);
  const api::PlacementConstraints* Canonical(
      const api::PlacementConstraints* placement);
  void Index(int counter, const api::LabelSelector& selector, bool spread);
  void Count(const api::PodInfo& pod, api::NodeIndex n, int delta,
             bool terminating);
  int32_t PairCount(const MatchCounter& m, const std::string& key,
                    const api::Labels& node) const;

  api::ClusterInfo& cluster_;
  bool active_ = false;
  // "kubernetes.io/hostname" when every node's value is its own; else "".
  std::string node_key_;
  std::vector<MatchCounter> matchers_;
  std::vector<OwnedTerm> owned_;
  std::vector<SpreadCounter> spread_;
  std::vector<Class> classes_;  // index = topology_class - 1
  absl::flat_hash_map<const api::InterPodRules*, OwnerIds> owner_ids_;
  std::vector<std::vector<SymmetricTerm::Kind>> owned_kinds_;  // per owned term
  absl::flat_hash_map<std::string, std::vector<int>> owned_by_label_;
  std::vector<int> unanchored_owned_;
  absl::flat_hash_map<ClassKey, int> class_by_key_;
  absl::flat_hash_map<uint64_t, std::vector<const api::InterPodRules*>>
      canonical_rules_;
  absl::flat_hash_map<uint64_t, std::vector<const api::PlacementConstraints*>>
      canonical_placements_;
  const api::PodInfo* last_pod_ = nullptr;
  int last_class_ = 0;
  // Counters by one label their selector requires ("key\0value"), and
  // those whose selector requires none: a placed pod is matched only
  // against counters that could match it.
  absl::flat_hash_map<std::string, std::vector<int>> matchers_by_label_,
      spread_by_label_;
  std::vector<int> unanchored_matchers_, unanchored_spread_;
  static const std::vector<std::string> kNoKeys;
};

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_POD_TOPOLOGY_H_
