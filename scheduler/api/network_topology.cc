#include "scheduler/api/network_topology.h"

#include <algorithm>
#include <map>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "re2/re2.h"

namespace shoal::api {
namespace {

void SortUnique(std::vector<NodeIndex>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// One HyperNode while the tree is being built.
struct Draft {
  const HyperNodeSpec* spec = nullptr;
  std::vector<NodeIndex> direct;  // nodes named as members
  std::vector<int32_t> children;  // drafts named as members
  std::vector<int32_t> parents;
  std::vector<NodeIndex> nodes;  // every node inside
};

const char* TypeName(HyperNodeMember::Type t) {
  return t == HyperNodeMember::Type::kNode ? "node" : "hypernode";
}

}  // namespace

NetworkTopology NetworkTopology::FromHyperNodes(
    const std::vector<HyperNodeSpec>& hypernodes,
    const std::vector<NodeInfo>& nodes) {
  NetworkTopology t;
  auto warn = [&t](std::string message) {
    t.warnings_.push_back(std::move(message));
  };
  std::vector<Draft> drafts(hypernodes.size());
  absl::flat_hash_map<std::string, int32_t> draft_by_name;
  for (size_t i = 0; i < hypernodes.size(); ++i) {
    drafts[i].spec = &hypernodes[i];
    draft_by_name.emplace(hypernodes[i].name, static_cast<int32_t>(i));
  }
  absl::flat_hash_map<std::string, NodeIndex> node_by_name;
  for (const NodeInfo& n : nodes) node_by_name.emplace(n.name(), n.index());

  // Members, as written.
  for (size_t i = 0; i < drafts.size(); ++i) {
    Draft& d = drafts[i];
    const std::string who = absl::StrCat("hypernode ", d.spec->name);
    for (size_t m = 0; m < d.spec->members.size(); ++m) {
      const HyperNodeMember& member = d.spec->members[m];
      const std::string field = absl::StrCat("spec.members[", m, "]");
      std::vector<int32_t> found;  // node or draft indices
      switch (member.match) {
        case HyperNodeMember::Match::kExact: {
          if (member.type == HyperNodeMember::Type::kNode) {
            auto it = node_by_name.find(member.value);
            if (it != node_by_name.end()) found.push_back(it->second);
          } else {
            auto it = draft_by_name.find(member.value);
            if (it != draft_by_name.end()) found.push_back(it->second);
          }
          if (found.empty()) {
            warn(absl::StrCat(who, ": ", field, ": ", TypeName(member.type),
                              " ", member.value,
                              " does not exist; it is left out"));
          }
          break;
        }
        case HyperNodeMember::Match::kRegex: {
          RE2 re(member.value, RE2::Quiet);
          if (!re.ok()) {
            warn(absl::StrCat(who, ": ", field, ".selector.regexMatch.pattern ",
                              "\"", member.value,
                              "\" is not a valid regular expression (",
                              re.error(), "); the member is left out"));
            break;
          }
          if (member.type == HyperNodeMember::Type::kNode) {
            for (const NodeInfo& n : nodes) {
              if (RE2::PartialMatch(n.name(), re)) found.push_back(n.index());
            }
          } else {
            for (size_t j = 0; j < drafts.size(); ++j) {
              if (j != i && RE2::PartialMatch(hypernodes[j].name, re))
                found.push_back(static_cast<int32_t>(j));
            }
          }
          break;
        }
        case HyperNodeMember::Match::kLabels:
          if (member.type != HyperNodeMember::Type::kNode) {
            warn(absl::StrCat(who, ": ", field,
                              ".selector.labelMatch selects nodes only, and "
                              "the member's type is HyperNode; it is left "
                              "out"));
            break;
          }
          for (const NodeInfo& n : nodes) {
            if (member.labels.Matches(n.spec().labels))
              found.push_back(n.index());
          }
          break;
      }
      if (member.type == HyperNodeMember::Type::kNode) {
        d.direct.insert(d.direct.end(), found.begin(), found.end());
        continue;
      }
      for (int32_t j : found) {
        const HyperNodeSpec& child = hypernodes[j];
        if (static_cast<size_t>(j) == i || child.tier >= d.spec->tier) {
          warn(absl::StrCat(who, " (tier ", d.spec->tier, "): ", field,
                            " is hypernode ", child.name, " of tier ",
                            child.tier,
                            "; a member must be of a lower tier, so it is "
                            "left out"));
          continue;
        }
        d.children.push_back(j);
        drafts[j].parents.push_back(static_cast<int32_t>(i));
      }
    }
    SortUnique(d.direct);
    std::sort(d.children.begin(), d.children.end());
    d.children.erase(std::unique(d.children.begin(), d.children.end()),
                     d.children.end());
  }
  // A HyperNode in two others would put its nodes in two domains of one
  // tier: it is left out of both rather than given to either.
  for (size_t j = 0; j < drafts.size(); ++j) {
    std::vector<int32_t>& parents = drafts[j].parents;
    std::sort(parents.begin(), parents.end());
    parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
    if (parents.size() < 2) continue;
    std::vector<std::string> names;
    for (int32_t p : parents) {
      names.push_back(hypernodes[p].name);
      auto& ch = drafts[p].children;
      ch.erase(std::remove(ch.begin(), ch.end(), static_cast<int32_t>(j)),
               ch.end());
    }
    warn(absl::StrCat("hypernode ", hypernodes[j].name,
                      " is a member of hypernodes ", absl::StrJoin(names, ", "),
                      "; a hypernode has one parent, so it is left out of "
                      "each"));
    parents.clear();
  }
  // Nodes, tier by tier from the narrowest, each tier checked for nodes
  // claimed twice before the next tier takes them up.
  std::map<int32_t, std::vector<int32_t>> by_tier;
  for (size_t i = 0; i < drafts.size(); ++i)
    by_tier[hypernodes[i].tier].push_back(static_cast<int32_t>(i));
  for (auto& [tier, members] : by_tier) {
    std::sort(members.begin(), members.end(), [&](int32_t a, int32_t b) {
      return hypernodes[a].name < hypernodes[b].name;
    });
    absl::flat_hash_map<NodeIndex, std::vector<int32_t>> claims;
    for (int32_t i : members) {
      Draft& d = drafts[i];
      d.nodes = d.direct;
      for (int32_t c : d.children) {
        d.nodes.insert(d.nodes.end(), drafts[c].nodes.begin(),
                       drafts[c].nodes.end());
      }
      SortUnique(d.nodes);
      for (NodeIndex n : d.nodes) claims[n].push_back(i);
    }
    std::vector<std::pair<NodeIndex, std::vector<int32_t>>> twice;
    for (auto& [n, by] : claims) {
      if (by.size() > 1) twice.emplace_back(n, by);
    }
    std::sort(twice.begin(), twice.end());
    for (const auto& [n, by] : twice) {
      std::vector<std::string> names;
      for (int32_t i : by) {
        names.push_back(hypernodes[i].name);
        auto& v = drafts[i].nodes;
        v.erase(std::remove(v.begin(), v.end(), n), v.end());
      }
      warn(absl::StrCat("node ", nodes[n].name(), " is in hypernodes ",
                        absl::StrJoin(names, ", "), ", all of tier ", tier,
                        "; a node belongs to one domain per tier, so it is "
                        "left out of each"));
    }
  }
  // Tier names must mean one tier each.
  std::map<int32_t, std::string> name_of_tier;
  std::map<std::string, int32_t> tier_of_name;
  for (const HyperNodeSpec& h : hypernodes) {
    if (h.tier_name.empty()) continue;
    auto [t, new_tier] = name_of_tier.emplace(h.tier, h.tier_name);
    auto [n, new_name] = tier_of_name.emplace(h.tier_name, h.tier);
    if ((!new_tier && t->second != h.tier_name) ||
        (!new_name && n->second != h.tier)) {
      warn(absl::StrCat(
          "hypernode ", h.name, ": spec.tierName \"", h.tier_name,
          "\" at tier ", h.tier, " disagrees with other hypernodes (tier ",
          h.tier, " is \"", t->second, "\", \"", h.tier_name, "\" is tier ",
          n->second, "); jobs naming it use tier ", n->second));
    }
  }
  int32_t last = 0;
  for (const auto& [tier, members] : by_tier) {
    if (last > 0 && tier > last + 1) {
      warn(absl::StrCat("no hypernode has tier ", last + 1, " (tiers go from ",
                        last, " to ", tier, "); a job limited to tier ",
                        last + 1, " can use tier ", last, " domains only"));
    }
    last = tier;
  }

  t.source_ = "HyperNodes";
  t.domains_.reserve(drafts.size());
  for (size_t i = 0; i < drafts.size(); ++i) {
    TopologyDomain d;
    d.name = hypernodes[i].name;
    d.tier = hypernodes[i].tier;
    d.tier_name = hypernodes[i].tier_name;
    if (d.tier_name.empty()) {
      auto it = name_of_tier.find(d.tier);
      if (it != name_of_tier.end()) d.tier_name = it->second;
    }
    d.parent = drafts[i].parents.empty() ? kNone : drafts[i].parents[0];
    d.nodes = std::move(drafts[i].nodes);
    t.domains_.push_back(std::move(d));
  }
  t.Finish(nodes.size());
  return t;
}

NetworkTopology NetworkTopology::FromLabelTiers(
    const std::vector<std::string>& keys, const std::vector<NodeInfo>& nodes) {
  NetworkTopology t;
  t.source_ = absl::StrCat("node labels ", absl::StrJoin(keys, ", "));
  // Widest tier first, so that a domain's parent exists when it is made.
  absl::flat_hash_map<std::string, int32_t> by_path;
  std::vector<std::string> values;
  for (size_t i = keys.size(); i-- > 0;) {
    const int32_t tier = static_cast<int32_t>(i) + 1;
    for (const NodeInfo& n : nodes) {
      values.clear();
      for (size_t k = keys.size(); k-- > i;) {
        const std::string* v = n.spec().labels.Find(keys[k]);
        if (v == nullptr) break;
        values.push_back(*v);
      }
      if (values.size() != keys.size() - i) continue;
      std::string path = absl::StrJoin(values, "/");
      auto [it, added] =
          by_path.emplace(path, static_cast<int32_t>(t.domains_.size()));
      if (added) {
        TopologyDomain d;
        d.name = path;
        d.tier = tier;
        d.tier_name = keys[i];
        if (values.size() > 1) {
          values.pop_back();
          d.parent = by_path.at(absl::StrJoin(values, "/"));
        }
        t.domains_.push_back(std::move(d));
      }
      t.domains_[it->second].nodes.push_back(n.index());
    }
  }
  t.Finish(nodes.size());
  return t;
}

void NetworkTopology::Finish(size_t node_count) {
  std::vector<int32_t> order(domains_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  std::sort(order.begin(), order.end(), [this](int32_t a, int32_t b) {
    if (domains_[a].tier != domains_[b].tier)
      return domains_[a].tier < domains_[b].tier;
    return domains_[a].name < domains_[b].name;
  });
  std::vector<int32_t> position(domains_.size());
  for (size_t i = 0; i < order.size(); ++i)
    position[order[i]] = static_cast<int32_t>(i);
  std::vector<TopologyDomain> sorted;
  sorted.reserve(domains_.size());
  for (int32_t i : order) sorted.push_back(std::move(domains_[i]));
  domains_ = std::move(sorted);
  domains_of_node_.assign(node_count, {});
  tiers_.clear();
  for (size_t d = 0; d < domains_.size(); ++d) {
    TopologyDomain& dom = domains_[d];
    if (dom.parent != kNone) dom.parent = position[dom.parent];
    SortUnique(dom.nodes);
    for (NodeIndex n : dom.nodes)
      domains_of_node_[n].push_back(static_cast<int32_t>(d));
    if (tiers_.empty() || tiers_.back() != dom.tier) tiers_.push_back(dom.tier);
  }
  for (size_t d = 0; d < domains_.size(); ++d) {
    if (domains_[d].parent != kNone)
      domains_[domains_[d].parent].children.push_back(static_cast<int32_t>(d));
  }
}

const std::vector<int32_t>& NetworkTopology::DomainsOf(NodeIndex n) const {
  static const std::vector<int32_t> kNoDomains;
  if (n < 0 || static_cast<size_t>(n) >= domains_of_node_.size())
    return kNoDomains;
  return domains_of_node_[n];
}

bool NetworkTopology::Contains(int32_t d, NodeIndex n) const {
  const std::vector<NodeIndex>& v = domains_[d].nodes;
  return std::binary_search(v.begin(), v.end(), n);
}

int32_t NetworkTopology::TierNamed(const std::string& tier_name) const {
  for (const TopologyDomain& d : domains_) {
    if (d.tier_name == tier_name) return d.tier;
  }
  return 0;
}

bool NetworkTopology::Holds(int32_t d,
                            const std::vector<NodeIndex>& nodes) const {
  const std::vector<NodeIndex>& in = domains_[d].nodes;
  return std::includes(in.begin(), in.end(), nodes.begin(), nodes.end());
}

int32_t NetworkTopology::NarrowestHolding(
    const std::vector<NodeIndex>& nodes) const {
  if (nodes.empty()) return kNone;
  for (int32_t d : DomainsOf(nodes.front())) {
    if (Holds(d, nodes)) return d;
  }
  return kNone;
}

int32_t NetworkTopology::WidestHolding(const std::vector<NodeIndex>& nodes,
                                       int32_t max_tier) const {
  int32_t widest = kNone;
  if (nodes.empty()) return widest;
  // A node's domains come narrowest first.
  for (int32_t d : DomainsOf(nodes.front())) {
    if (domains_[d].tier > max_tier) break;
    if (Holds(d, nodes)) widest = d;
  }
  return widest;
}

int32_t NetworkTopology::Find(const std::string& name) const {
  for (size_t d = 0; d < domains_.size(); ++d) {
    if (domains_[d].name == name) return static_cast<int32_t>(d);
  }
  return kNone;
}

}  // namespace shoal::api
