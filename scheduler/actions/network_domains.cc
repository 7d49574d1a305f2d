#include "scheduler/actions/network_domains.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shoal::actions {
namespace {

using api::NetworkConstraint;
using framework::Session;

const std::vector<api::NodeIndex> kNowhere;

// How many pods of `shape` the free room `idle` holds.
int64_t PodsFit(const api::Resource& idle, const api::Resource& shape) {
  int64_t fit = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < shape.size(); ++i) {
    auto id = static_cast<api::ResourceId>(i);
    const int64_t want = shape.Get(id);
    if (want <= 0) continue;
    fit = std::min(fit, std::max<int64_t>(0, idle.Get(id)) / want);
  }
  // A pod that asks for nothing (not even a pod slot) fits any number of
  // times; a large count keeps the sums over a domain's nodes in range.
  constexpr int64_t kAny = 1 << 20;
  return fit == std::numeric_limits<int64_t>::max() ? kAny : fit;
}

// "tiers 1 (rack), 2 (spine)": what a tier name could have been.
std::string DescribeTiers(const api::NetworkTopology& net) {
  std::vector<std::string> parts;
  for (int32_t tier : net.tiers()) {
    std::string name;
    for (const api::TopologyDomain& d : net.domains()) {
      if (d.tier == tier && !d.tier_name.empty()) {
        name = d.tier_name;
        break;
      }
    }
    parts.push_back(name.empty() ? absl::StrCat(tier)
                                 : absl::StrCat(tier, " (", name, ")"));
  }
  return absl::StrCat("tiers ", absl::StrJoin(parts, ", "));
}

// The tier of the whole cluster, the domain above every other (as
// Volcano's virtual top HyperNode): one above the highest, or 1 when
// nothing describes the network.
int32_t ClusterTier(const api::NetworkTopology* net) {
  return net == nullptr || net->empty() ? 1 : net->tiers().back() + 1;
}

// The widest tier the job may span, or 0 with `why` set when its limit
// names a tier that does not exist.
int32_t TierLimit(const api::NetworkTopology* net, const NetworkConstraint& c,
                  std::string* why) {
  if (c.mode == NetworkConstraint::Mode::kSoft) return ClusterTier(net);
  if (c.highest_tier_name.empty()) return c.highest_tier;
  int32_t tier = net == nullptr ? 0 : net->TierNamed(c.highest_tier_name);
  if (tier == 0) {
    *why = absl::StrCat(
        "no network domain has the tier name \"", c.highest_tier_name,
        "\" (spec.networkTopology highestTierName; ",
        net == nullptr || net->empty()
            ? std::string("nothing describes the network")
            : absl::StrCat("the cluster has ", DescribeTiers(*net)),
        ")");
  }
  return tier;
}

// The nodes the job's placed pods are on (sorted, unique).
std::vector<api::NodeIndex> PlacedNodes(const Session& s,
                                        const api::JobInfo& job) {
  std::vector<api::NodeIndex> out;
  for (api::TaskIndex t : job.tasks) {
    const api::TaskInfo& task = s.cluster().tasks[t];
    if (task.node == api::kNone) continue;
    if (api::IsReadyStatus(task.status) ||
        task.status == api::TaskStatus::kPipelined) {
      out.push_back(task.node);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::string DescribeConstraint(const NetworkConstraint& c) {
  std::string out = absl::StrCat(
      "mode ", c.mode == NetworkConstraint::Mode::kHard ? "hard" : "soft");
  if (!c.highest_tier_name.empty()) {
    absl::StrAppend(&out, ", highestTierName ", c.highest_tier_name);
  } else if (c.highest_tier > 0) {
    absl::StrAppend(&out, ", highestTierAllowed ", c.highest_tier);
  }
  return out;
}

DomainPlan PlanDomains(Session& s, const api::JobInfo& job,
                       const std::vector<api::TaskIndex>& tasks, size_t first) {
  DomainPlan plan;
  const NetworkConstraint& c = job.network;
  if (c.mode == NetworkConstraint::Mode::kNone || first >= tasks.size())
    return plan;
  plan.hard = c.mode == NetworkConstraint::Mode::kHard;
  const api::NetworkTopology* net = s.network();
  std::string why;
  const int32_t limit = TierLimit(net, c, &why);
  if (!why.empty()) {
    plan.constrained = true;
    plan.refusal = why;
    return plan;
  }
  plan.anywhere = limit >= ClusterTier(net);
  if (net == nullptr || net->empty()) {
    // Nothing describes the network: the cluster is the one domain.
    if (!plan.anywhere) {
      plan.constrained = true;
      plan.refusal = absl::StrCat(
          "no network domain up to tier ", limit,
          " exists (spec.networkTopology ", DescribeConstraint(c),
          "): no HyperNode objects, and the policy names no tierLabels for "
          "network-topology-aware");
    }
    return plan;
  }
  plan.constrained = true;

  // What the gang still needs, as a count of pods of its smallest shape.
  const api::ClusterInfo& cluster = s.cluster();
  api::Resource shape = cluster.tasks[tasks[first]].request();
  for (size_t i = first + 1; i < tasks.size(); ++i) {
    const api::Resource& r = cluster.tasks[tasks[i]].request();
    for (size_t id = 0; id < std::max(shape.size(), r.size()); ++id) {
      auto rid = static_cast<api::ResourceId>(id);
      shape.Set(rid, std::min(shape.Get(rid), r.Get(rid)));
    }
  }
  int64_t need = static_cast<int64_t>(tasks.size() - first);
  if (!job.RoleMinimumsApply()) {
    need = std::min<int64_t>(
        need, std::max<int32_t>(1, job.min_member - job.ReadyCount()));
  }
  // Nodes some pending pod may use at all.
  std::vector<const api::PlacementConstraints*> placements;
  for (size_t i = first; i < tasks.size(); ++i) {
    const api::PlacementConstraints* p = &cluster.tasks[tasks[i]].placement();
    if (std::find(placements.begin(), placements.end(), p) == placements.end())
      placements.push_back(p);
  }
  std::vector<api::NodeIndex> usable = s.Feasible(*placements[0]).nodes;
  for (size_t i = 1; i < placements.size(); ++i) {
    const auto& more = s.Feasible(*placements[i]).nodes;
    std::vector<api::NodeIndex> merged;
    std::set_union(usable.begin(), usable.end(), more.begin(), more.end(),
                   std::back_inserter(merged));
    usable = std::move(merged);
  }
  std::vector<int64_t> room(net->domains().size(), 0);
  for (api::NodeIndex n : usable) {
    const int64_t fit = PodsFit(s.node(n).idle(), shape);
    if (fit == 0) continue;
    for (int32_t d : net->DomainsOf(n)) {
      if (net->domain(d).tier > limit) break;
      room[d] += fit;
    }
  }
  const std::vector<api::NodeIndex> placed = PlacedNodes(s, job);
  std::vector<int32_t> allowed;  // tier <= limit, holding what is placed
  plan.limit = limit;
  plan.need = need;
  for (size_t d = 0; d < net->domains().size(); ++d) {
    if (net->domain(d).tier > limit) break;  // domains are in tier order
    const bool holds = placed.empty() || net->Holds(d, placed);
    plan.rooms.push_back({static_cast<int32_t>(d), room[d], holds});
    if (!holds) continue;
    allowed.push_back(static_cast<int32_t>(d));
    if (room[d] >= need) plan.domains.push_back(static_cast<int32_t>(d));
  }
  std::stable_sort(plan.domains.begin(), plan.domains.end(),
                   [&](int32_t a, int32_t b) {
                     if (net->domain(a).tier != net->domain(b).tier)
                       return net->domain(a).tier < net->domain(b).tier;
                     return room[a] < room[b];
                   });
  if (!plan.domains.empty() || plan.anywhere) return plan;

  // Why not, with the domains that came closest.
  std::stable_sort(allowed.begin(), allowed.end(),
                   [&](int32_t a, int32_t b) { return room[a] > room[b]; });
  api::Resource shown = shape;
  shown.Set(api::kPods, 0);  // every pod asks for one
  std::string pods = absl::StrCat(need, need == 1 ? " pod" : " pods", " of ",
                                  shown.ToString());
  if (!placed.empty()) {
    absl::StrAppend(&pods, " beside the node", placed.size() == 1 ? "" : "s",
                    " its pods already run on");
  }
  const std::string rule =
      absl::StrCat(" (spec.networkTopology ", DescribeConstraint(c), "): ");
  if (allowed.empty()) {
    plan.refusal = absl::StrCat("no network domain up to tier ", limit,
                                " holds ", pods, rule,
                                placed.empty() ? "the cluster has none that low"
                                               : "its pods already span wider");
    return plan;
  }
  std::vector<std::string> closest;
  for (size_t i = 0; i < allowed.size() && i < 3; ++i) {
    closest.push_back(absl::StrCat(net->domain(allowed[i]).name,
                                   " has room for ", room[allowed[i]]));
  }
  if (allowed.size() > 3)
    closest.push_back(absl::StrCat(allowed.size() - 3, " more hold less"));
  plan.refusal = absl::StrCat("no network domain up to tier ", limit, " holds ",
                              pods, rule, absl::StrJoin(closest, ", "));
  return plan;
}

std::string NetworkRefusal(Session& s, const api::JobInfo& job) {
  if (job.network.mode != NetworkConstraint::Mode::kHard) return "";
  // Evictions may yet make room in one domain.
  const framework::SchedulerConfig& config = s.policy().config;
  if (config.HasAction("preempt") || config.HasAction("reclaim")) return "";
  std::vector<api::TaskIndex> pending;
  for (api::TaskIndex t : job.tasks) {
    const api::TaskInfo& task = s.cluster().tasks[t];
    if (task.status == api::TaskStatus::kPending && !task.best_effort())
      pending.push_back(t);
  }
  if (pending.empty()) return "";
  return PlanDomains(s, job, pending, 0).refusal;
}

const std::vector<api::NodeIndex>* GrowthDomain(const Session& s,
                                                const api::JobInfo& job) {
  if (job.network.mode != NetworkConstraint::Mode::kHard) return nullptr;
  const api::NetworkTopology* net = s.network();
  std::string why;
  const int32_t limit = TierLimit(net, job.network, &why);
  if (why.empty() && limit >= ClusterTier(net)) return nullptr;
  if (!why.empty()) return &kNowhere;
  // Pods counted ready but on no node Shoal knows: the domain is chosen
  // as for a gang that starts.
  const std::vector<api::NodeIndex> placed = PlacedNodes(s, job);
  if (placed.empty()) return nullptr;
  int32_t d = net->WidestHolding(placed, limit);
  return d == api::kNone ? &kNowhere : &net->domain(d).nodes;
}

}  // namespace shoal::actions
