#include "scheduler/cache/composite_jobs.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace shoal::cache {
namespace {

// Where a group's chain of parents leads: its root's key, or why it leads
// nowhere.
struct Chain {
  std::string root;
  std::string broken;
  int levels = 0;  // composites on the way, the root included
};

// Follows spec.parentCompositePodGroupName from `parent` (named by `child`,
// "podgroup ns/x" or "compositepodgroup ns/x") up to a root.
Chain Follow(const Composites& composites, const std::string& ns,
             std::string parent, const std::string& child) {
  Chain out;
  std::set<std::string> seen;
  std::string named_by = child;
  for (;;) {
    const std::string key = absl::StrCat(ns, "/", parent);
    auto it = composites.find(key);
    if (it == composites.end()) {
      out.broken = absl::StrCat(
          "compositepodgroup ", key, " does not exist (", named_by,
          " names it in spec.parentCompositePodGroupName); the tree's pods "
          "wait until it is created");
      return out;
    }
    if (!seen.insert(key).second) {
      out.broken = absl::StrCat(
          "compositepodgroup ", key,
          " is its own ancestor (spec.parentCompositePodGroupName): the tree "
          "has a cycle, and its pods wait until it is mended");
      return out;
    }
    ++out.levels;
    if (it->second.parent.empty()) {
      out.root = key;
      return out;
    }
    named_by = absl::StrCat("compositepodgroup ", key);
    parent = it->second.parent;
  }
}

std::string TooDeep(const std::string& root, int levels) {
  return absl::StrCat("the tree under compositepodgroup ", root, " is ", levels,
                      " levels deep, more than the ", kMaxTreeDepth,
                      " the API allows; its pods wait");
}

// The fewest pods that let policy `p` count as whole: its min_groups
// cheapest children, leaves and composites.
int32_t MinPods(const api::JobInfo& job, size_t p) {
  const api::SubGroupPolicy& policy = job.sub_group_policies[p];
  std::vector<int32_t> costs;
  for (const api::LeafPodGroup& leaf : policy.leaves)
    costs.push_back(std::max(1, leaf.min_count));
  for (size_t c = p + 1; c < job.sub_group_policies.size(); ++c) {
    if (job.sub_group_policies[c].parent == static_cast<int32_t>(p))
      costs.push_back(MinPods(job, c));
  }
  std::sort(costs.begin(), costs.end());
  int32_t sum = 0;
  const size_t take = std::min(
      costs.size(), static_cast<size_t>(std::max(1, policy.min_groups)));
  for (size_t i = 0; i < take; ++i) sum += costs[i];
  return std::max(1, sum);
}

// "spec.preemptionPolicy" as kube reads an unset one.
std::string EffectivePreemption(const std::string& p) {
  return p.empty() ? "PreemptLowerPriority" : p;
}

}  // namespace

CompositeTrees BuildCompositeTrees(
    const Composites& composites,
    const std::map<std::string, api::JobInfo>& groups,
    const std::function<int32_t(const std::string&)>& priority_of) {
  CompositeTrees out;
  // Each composite's root, and its depth (the root is level 1).
  std::map<std::string, Chain> chain_of;
  std::map<std::string, std::vector<std::string>> composites_of_root;
  for (const auto& [key, c] : composites) {
    Chain chain;
    if (c.parent.empty()) {
      chain.root = key;
      chain.levels = 1;
    } else {
      chain = Follow(composites, c.ns, c.parent,
                     absl::StrCat("compositepodgroup ", key));
      ++chain.levels;
    }
    if (chain.broken.empty()) composites_of_root[chain.root].push_back(key);
    chain_of.emplace(key, std::move(chain));
  }
  std::map<std::string, std::vector<std::string>> leaves_of_root;
  for (const auto& [key, g] : groups) {
    if (g.parent_group.empty()) continue;
    const std::string parent = absl::StrCat(g.ns, "/", g.parent_group);
    auto chain = chain_of.find(parent);
    if (chain == chain_of.end()) {
      out.broken_leaf[key] = absl::StrCat(
          "compositepodgroup ", parent, " does not exist (podgroup ", key,
          " names it in spec.parentCompositePodGroupName); its pods wait "
          "until it is created");
      continue;
    }
    if (!chain->second.broken.empty()) {
      out.broken_leaf[key] = chain->second.broken;
      continue;
    }
    if (chain->second.levels + 1 > kMaxTreeDepth) {
      out.broken_leaf[key] =
          TooDeep(chain->second.root, chain->second.levels + 1);
      continue;
    }
    leaves_of_root[chain->second.root].push_back(key);
  }
  for (auto& [root_entry, leaves] : leaves_of_root) {
    // A plain name: lambdas below may not capture a structured binding
    // (C++17, as clang enforces it).
    const std::string& root_key = root_entry;
    const api::CompositePodGroupSpec& root = composites.at(root_key);
    // Parents before children: by level, then by name.
    std::vector<std::string>& members = composites_of_root[root_key];
    std::stable_sort(members.begin(), members.end(),
                     [&chain_of](const std::string& a, const std::string& b) {
                       return chain_of.at(a).levels < chain_of.at(b).levels;
                     });
    api::JobInfo job;
    job.ns = root.ns;
    job.name = root.name;
    job.uid = root.uid;
    job.source = api::GroupSource::kCompositeTree;
    job.created = root.created;
    job.queue = root.queue;
    job.owner = {root.api_version, "CompositePodGroup", root.name, root.uid};
    job.priority_class = root.priority_class;
    job.priority = root.priority.has_value() ? *root.priority
                                             : priority_of(root.priority_class);
    job.priority_stated = true;  // the root's decides (kube's rule)
    job.preemption_policy = root.preemption_policy;
    job.disrupted_whole = root.disrupted_whole;
    job.network = root.network;
    std::map<std::string, int32_t> policy_of;
    for (const std::string& key : members) {
      const api::CompositePodGroupSpec& c = composites.at(key);
      // A composite holds groups below it: on the last level it would
      // make the tree deeper than the API allows, and kube-scheduler
      // refuses the whole tree.
      if (chain_of.at(key).levels >= kMaxTreeDepth && job.refusal.empty()) {
        job.refusal = absl::StrCat(
            "compositepodgroup ", key, " is on level ", chain_of.at(key).levels,
            " of the tree under compositepodgroup ", root_key,
            "; a composite may be at most on level ", kMaxTreeDepth - 1,
            " (the API allows ", kMaxTreeDepth,
            " levels, PodGroups included): the tree's pods wait");
      }
      api::SubGroupPolicy policy;
      policy.name = c.name;
      policy.composite = true;
      policy.min_groups = c.gang ? c.min_group_count : 1;
      policy.parent = c.parent.empty()
                          ? api::kNone
                          : policy_of.at(absl::StrCat(c.ns, "/", c.parent));
      // The root's constraint is the job's; a composite below it keeps
      // its own subtree in one domain (sub_group_placement.cc).
      if (!c.parent.empty()) policy.network = c.network;
      policy_of[key] = static_cast<int32_t>(job.sub_group_policies.size());
      job.sub_group_policies.push_back(std::move(policy));
    }
    for (const std::string& key : leaves) {
      const api::JobInfo& g = groups.at(key);
      api::LeafPodGroup leaf{g.name, g.uid, g.min_member, g.network,
                             g.group_claims};
      job.sub_group_policies[policy_of.at(
                                 absl::StrCat(g.ns, "/", g.parent_group))]
          .leaves.push_back(std::move(leaf));
      out.root_of_leaf[key] = root_key;
    }
    job.min_member = MinPods(job, 0);
    // The API's rules across the tree: one priority, one preemption policy.
    auto check = [&](const std::string& what, int32_t priority,
                     const std::string& preemption) {
      if (!job.refusal.empty()) return;
      if (priority != job.priority) {
        job.refusal = absl::StrCat(
            "every group of a CompositePodGroup tree must have its root's "
            "priority: ",
            what, " has ", priority, ", compositepodgroup ", root_key, " has ",
            job.priority);
      } else if (EffectivePreemption(preemption) !=
                 EffectivePreemption(job.preemption_policy)) {
        job.refusal = absl::StrCat(
            "every group of a CompositePodGroup tree must have its root's "
            "spec.preemptionPolicy: ",
            what, " has ", EffectivePreemption(preemption),
            ", compositepodgroup ", root_key, " has ",
            EffectivePreemption(job.preemption_policy));
      }
    };
    for (const std::string& key : members) {
      const api::CompositePodGroupSpec& c = composites.at(key);
      check(
          absl::StrCat("compositepodgroup ", key),
          c.priority.has_value() ? *c.priority : priority_of(c.priority_class),
          c.preemption_policy);
    }
    for (const std::string& key : leaves) {
      const api::JobInfo& g = groups.at(key);
      check(absl::StrCat("podgroup ", key),
            g.priority_stated ? g.priority : priority_of(g.priority_class),
            g.preemption_policy);
    }
    out.jobs.emplace(root_key, std::move(job));
  }
  return out;
}

void CheckTreePods(const api::ClusterInfo& cluster, api::JobInfo& job,
                   const std::set<std::string>& theirs,
                   const std::map<std::string, std::string>& root_of_leaf) {
  if (!job.refusal.empty()) return;
  const std::string root = job.Key();
  for (const auto& [leaf, its_root] : root_of_leaf) {
    if (its_root == root && theirs.count(leaf) > 0) {
      job.refusal = absl::StrCat(
          "every pod of a CompositePodGroup tree must name the same "
          "scheduler (spec.schedulerName): pods of podgroup ",
          leaf, " name another");
      return;
    }
  }
  for (api::TaskIndex t : job.tasks) {
    const api::PodInfo& pod = *cluster.tasks[t].pod;
    if (pod.priority != job.priority) {
      job.refusal = absl::StrCat(
          "every pod of a CompositePodGroup tree must have its root's "
          "priority: pod ",
          pod.Key(), " has ", pod.priority, ", compositepodgroup ", root,
          " has ", job.priority);
      return;
    }
  }
}

}  // namespace shoal::cache
