// The cluster's network as a tree of domains (racks under spines under
// blocks...), built once per change of the nodes or of the description,
// so that every action reads the same tree and no plugin rebuilds it.
//
// The network is described either by Volcano's HyperNode objects
// (topology.volcano.sh/v1alpha1: a tier, an optional tier name, members
// that are nodes or lower-tier HyperNodes, selected by exact name, by a
// regular expression (RE2, the syntax of Go's regexp that Volcano uses)
// or, for nodes, by labels), or, on clusters whose nodes already carry
// rack/block/zone labels, by naming those label keys as tiers (tier 1 the
// narrowest), as Kueue's and KAI-Scheduler's Topology levels do.
//
// Tier 1 is the closest network (an NVLink domain, a rack); higher tiers
// are wider. A job that may span at most tier t must fit inside one
// domain of tier <= t.
//
// A description that cannot be honoured as written is never guessed at:
// the faulty part is left out and a warning names the object (a member
// that does not exist, a node claimed by two domains of one tier, a
// member whose tier is not below its parent's, a tier with no domain
// between two that have some).
#ifndef SHOAL_SCHEDULER_API_NETWORK_TOPOLOGY_H_
#define SHOAL_SCHEDULER_API_NETWORK_TOPOLOGY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/api/node_info.h"
#include "scheduler/api/pod_affinity.h"
#include "scheduler/api/task_info.h"

namespace shoal::api {

// One member of a HyperNode: a node or a HyperNode, chosen by exact name,
// by a pattern, or (nodes only) by labels.
struct HyperNodeMember {
  enum class Type { kNode, kHyperNode };
  enum class Match { kExact, kRegex, kLabels };
  Type type = Type::kNode;
  Match match = Match::kExact;
  std::string value;     // the name (kExact) or the pattern (kRegex)
  LabelSelector labels;  // kLabels
  bool operator==(const HyperNodeMember& o) const {
    return type == o.type && match == o.match && value == o.value &&
           labels == o.labels;
  }
};

// A HyperNode object as decoded.
struct HyperNodeSpec {
  std::string name;
  int32_t tier = 1;
  std::string tier_name;  // spec.tierName, optional
  std::vector<HyperNodeMember> members;
  bool operator==(const HyperNodeSpec& o) const {
    return name == o.name && tier == o.tier && tier_name == o.tier_name &&
           members == o.members;
  }
};

// Where a job's pods may run in the network (PodGroup
// spec.networkTopology, or the annotations of KAI-Scheduler read as the
// same thing).
struct NetworkConstraint {
  enum class Mode { kNone, kHard, kSoft };
  Mode mode = Mode::kNone;
  // The widest tier the job may span: highestTierAllowed, or the tier
  // that highest_tier_name names (settled when the session opens). 0 when
  // neither is stated.
  int32_t highest_tier = 0;
  std::string highest_tier_name;
  // Kubernetes' own form (KEP-5732, schedulingConstraints.topology[].key):
  // hard, and highest_tier_name is a node label key, every pod inside one
  // domain of that label (a tier of its own when nothing else names it).
  bool topology_key = false;
  bool operator==(const NetworkConstraint& o) const {
    return mode == o.mode && highest_tier == o.highest_tier &&
           highest_tier_name == o.highest_tier_name &&
           topology_key == o.topology_key;
  }
};

struct TopologyDomain {
  std::string name;
  int32_t tier = 1;
  std::string tier_name;
  int32_t parent = kNone;  // the domain of the next tier holding this one
  std::vector<int32_t> children;
  std::vector<NodeIndex> nodes;  // every node inside, sorted
};

class NetworkTopology {
 public:
  NetworkTopology() = default;

  // `nodes` are the cluster's, by index.
  static NetworkTopology FromHyperNodes(
      const std::vector<HyperNodeSpec>& hypernodes,
      const std::vector<NodeInfo>& nodes);
  // Tier i+1 groups the nodes that share the values of keys[i] and of every
  // wider key after it; a node lacking one of those labels is in no domain
  // of that tier.
  static NetworkTopology FromLabelTiers(const std::vector<std::string>& keys,
                                        const std::vector<NodeInfo>& nodes);

  bool empty() const { return domains_.empty(); }
  // In order of tier, then name.
  const std::vector<TopologyDomain>& domains() const { return domains_; }
  const TopologyDomain& domain(int32_t d) const { return domains_[d]; }
  // The domains holding node `n`, narrowest first (at most one per tier).
  const std::vector<int32_t>& DomainsOf(NodeIndex n) const;
  bool Contains(int32_t d, NodeIndex n) const;
  // The tier a tier name stands for, or 0 when no domain bears it.
  int32_t TierNamed(const std::string& tier_name) const;
  // The tiers that have domains, ascending.
  const std::vector<int32_t>& tiers() const { return tiers_; }
  // "HyperNodes" or "node labels rack, spine": what `explain` says the
  // tree was built from.
  const std::string& source() const { return source_; }
  // Whether domain `d` holds every node of `nodes` (sorted).
  bool Holds(int32_t d, const std::vector<NodeIndex>& nodes) const;
  // The narrowest domain holding every node of `nodes` (sorted, not
  // empty), or kNone when none does.
  int32_t NarrowestHolding(const std::vector<NodeIndex>& nodes) const;
  // The widest domain of tier <= max_tier holding every node of `nodes`
  // (sorted, not empty), or kNone.
  int32_t WidestHolding(const std::vector<NodeIndex>& nodes,
                        int32_t max_tier) const;
  // The domain named `name`, or kNone.
  int32_t Find(const std::string& name) const;
  // What was left out of the description, and why, one sentence each.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  // Sorts the domains, links parents and children and indexes nodes.
  void Finish(size_t node_count);

  std::vector<TopologyDomain> domains_;
  std::vector<std::vector<int32_t>> domains_of_node_;
  std::vector<int32_t> tiers_;
  std::string source_;
  std::vector<std::string> warnings_;
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_NETWORK_TOPOLOGY_H_
