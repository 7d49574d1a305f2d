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

// How many pods of `shape` the room `held` stands for, by the resource it
// holds most of (rounded up): what others' growth takes from a domain.
int64_t PodsWorth(const api::Resource& held, const api::Resource& shape) {
  int64_t worth = 0;
  for (size_t i = 0; i < held.size(); ++i) {
    auto id = static_cast<api::ResourceId>(i);
    const int64_t each = shape.Get(id);
    if (each <= 0 || id == api::kPods || held.Get(id) <= 0) continue;
    worth = std::max(worth, (held.Get(id) + each - 1) / each);
  }
  return worth;
}

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
                  const std::string& field, std::string* why) {
  if (c.mode == NetworkConstraint::Mode::kSoft) return ClusterTier(net);
  if (c.highest_tier_name.empty()) return c.highest_tier;
  int32_t tier = net == nullptr ? 0 : net->TierNamed(c.highest_tier_name);
  if (tier == 0) {
    *why = absl::StrCat(
        "no network domain has the tier name \"", c.highest_tier_name, "\" (",
        field, " highestTierName; ",
        net == nullptr || net->empty()
            ? std::string("nothing describes the network")
            : absl::StrCat("the cluster has ", DescribeTiers(*net)),
        ")");
  }
  return tier;
}

// Stands for every sub-group (and none) in PlacedNodes.
constexpr int32_t kAnyGroup = -2;

// The nodes the job's placed pods (of sub-group `group` only, unless
// kAnyGroup) are on (sorted, unique).
std::vector<api::NodeIndex> PlacedNodes(const Session& s,
                                        const api::JobInfo& job,
                                        int32_t group = kAnyGroup) {
  std::vector<api::NodeIndex> out;
  for (api::TaskIndex t : job.tasks) {
    const api::TaskInfo& task = s.cluster().tasks[t];
    if (task.node == api::kNone) continue;
    if (group != kAnyGroup && task.sub_group != group) continue;
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

std::string NetworkField(const api::JobInfo& job) {
  return job.network.topology_key ? "spec.schedulingConstraints.topology"
                                  : "spec.networkTopology";
}

std::string DescribeConstraint(const NetworkConstraint& c) {
  if (c.topology_key) return absl::StrCat("key ", c.highest_tier_name);
  std::string out = absl::StrCat(
      "mode ", c.mode == NetworkConstraint::Mode::kHard ? "hard" : "soft");
  if (!c.highest_tier_name.empty()) {
    absl::StrAppend(&out, ", highestTierName ", c.highest_tier_name);
  } else if (c.highest_tier > 0) {
    absl::StrAppend(&out, ", highestTierAllowed ", c.highest_tier);
  }
  return out;
}

namespace {

// One search: for a whole job, or for one of its sub-groups inside the
// domain the job got.
struct Request {
  const NetworkConstraint& c;
  const std::vector<api::TaskIndex>& tasks;  // from `first` on: to place
  size_t first;
  int64_t need;  // pods the gang (or sub-group) still needs
  // Pods it would like room for: a domain with room for all of them
  // comes before narrower or fuller ones that hold only `need`.
  int64_t want;
  std::vector<api::NodeIndex> placed;  // nodes its placed pods are on
  int32_t within = api::kNone;         // a domain, or kNone: the whole cluster
  // "spec.networkTopology", and "" or " for sub-group worker/1": how
  // messages name the constraint and what it is for.
  std::string field;
  std::string whose;
  // Room by domain that jobs already in it will grow into, or null.
  const std::vector<api::Resource>* earmarked = nullptr;
};

DomainPlan PlanFor(Session& s, const Request& q) {
  DomainPlan plan;
  const NetworkConstraint& c = q.c;
  if (c.mode == NetworkConstraint::Mode::kNone || q.first >= q.tasks.size())
    return plan;
  plan.hard = c.mode == NetworkConstraint::Mode::kHard;
  const api::NetworkTopology* net = s.network();
  std::string why;
  const int32_t limit = TierLimit(net, c, q.field, &why);
  if (!why.empty()) {
    plan.constrained = true;
    plan.refusal = why;
    return plan;
  }
  // Inside the job's domain, the sub-group's widest choice is that domain
  // (listed among the domains below); "anywhere" is the whole cluster.
  plan.anywhere = q.within == api::kNone && limit >= ClusterTier(net);
  if (net == nullptr || net->empty()) {
    // Nothing describes the network: the cluster is the one domain.
    if (!plan.anywhere) {
      plan.constrained = true;
      plan.refusal = absl::StrCat(
          "no network domain up to tier ", limit, " exists (", q.field, " ",
          DescribeConstraint(c), q.whose,
          "): no HyperNode objects, and the policy names no tierLabels for "
          "network-topology-aware");
    }
    return plan;
  }
  plan.constrained = true;

  // What is still needed, as a count of pods of the smallest shape.
  const api::ClusterInfo& cluster = s.cluster();
  const std::vector<api::TaskIndex>& tasks = q.tasks;
  api::Resource shape = cluster.tasks[tasks[q.first]].request();
  for (size_t i = q.first + 1; i < tasks.size(); ++i) {
    const api::Resource& r = cluster.tasks[tasks[i]].request();
    for (size_t id = 0; id < std::max(shape.size(), r.size()); ++id) {
      auto rid = static_cast<api::ResourceId>(id);
      shape.Set(rid, std::min(shape.Get(rid), r.Get(rid)));
    }
  }
  const int64_t need = q.need;
  // Nodes some pending pod may use at all.
  std::vector<const api::PlacementConstraints*> placements;
  for (size_t i = q.first; i < tasks.size(); ++i) {
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
  if (q.within != api::kNone) {
    const std::vector<api::NodeIndex>& inside = net->domain(q.within).nodes;
    std::vector<api::NodeIndex> kept;
    std::set_intersection(usable.begin(), usable.end(), inside.begin(),
                          inside.end(), std::back_inserter(kept));
    usable = std::move(kept);
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
  std::vector<int32_t> allowed;  // tier <= limit, holding what is placed
  plan.limit = limit;
  plan.need = need;
  for (size_t d = 0; d < net->domains().size(); ++d) {
    const api::TopologyDomain& domain = net->domain(d);
    if (domain.tier > limit) break;  // domains are in tier order
    if (q.within != api::kNone && static_cast<int32_t>(d) != q.within &&
        (domain.tier >= net->domain(q.within).tier ||
         !net->Holds(q.within, domain.nodes))) {
      continue;
    }
    const bool holds = q.placed.empty() || net->Holds(d, q.placed);
    plan.rooms.push_back({static_cast<int32_t>(d), room[d], holds});
    if (!holds) continue;
    allowed.push_back(static_cast<int32_t>(d));
    if (room[d] >= need) plan.domains.push_back(static_cast<int32_t>(d));
  }
  // What is left once the jobs in a domain have grown: a domain with
  // room for all the pods wanted comes first, then the fullest.
  std::vector<int64_t> spare = room;
  if (q.earmarked != nullptr && !q.earmarked->empty()) {
    for (int32_t d : plan.domains)
      spare[d] -= PodsWorth((*q.earmarked)[d], shape);
  }
  std::stable_sort(plan.domains.begin(), plan.domains.end(),
                   [&](int32_t a, int32_t b) {
                     const bool all_a = spare[a] >= q.want;
                     const bool all_b = spare[b] >= q.want;
                     if (all_a != all_b) return all_a;
                     if (net->domain(a).tier != net->domain(b).tier)
                       return net->domain(a).tier < net->domain(b).tier;
                     return spare[a] < spare[b];
                   });
  if (!plan.domains.empty() || plan.anywhere) return plan;

  // Why not, with the domains that came closest.
  std::stable_sort(allowed.begin(), allowed.end(),
                   [&](int32_t a, int32_t b) { return room[a] > room[b]; });
  api::Resource shown = shape;
  shown.Set(api::kPods, 0);  // every pod asks for one
  std::string pods = absl::StrCat(need, need == 1 ? " pod" : " pods", " of ",
                                  shown.ToString());
  if (!q.placed.empty()) {
    absl::StrAppend(&pods, " beside the node", q.placed.size() == 1 ? "" : "s",
                    " its pods already run on");
  }
  if (q.within != api::kNone) {
    absl::StrAppend(&pods, " inside ", net->domain(q.within).name,
                    " (the job's domain)");
  }
  const std::string rule =
      absl::StrCat(" (", q.field, " ", DescribeConstraint(c), q.whose, "): ");
  if (allowed.empty()) {
    plan.refusal = absl::StrCat(
        "no network domain up to tier ", limit, " holds ", pods, rule,
        q.placed.empty() ? "the cluster has none that low"
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

}  // namespace

GrowthEarmarks::GrowthEarmarks(const Session& s) {
  for (const api::JobInfo& job : s.cluster().jobs) {
    if (job.ReadyCount() > 0 && job.PendingCount() > 0) Add(s, job);
  }
}

void GrowthEarmarks::Add(const Session& s, const api::JobInfo& job) {
  if (job.network.mode != NetworkConstraint::Mode::kHard) return;
  const int32_t d = GrowthDomainOf(s, job);
  if (d == api::kNone || d == kNoDomain) return;
  api::Resource pending;
  for (api::TaskIndex t : job.tasks) {
    const api::TaskInfo& task = s.cluster().tasks[t];
    if (task.status == api::TaskStatus::kPending && !task.best_effort())
      pending += task.request();
  }
  if (pending.IsZero()) return;
  const api::NetworkTopology& net = *s.network();
  if (by_domain_.empty()) by_domain_.resize(net.domains().size());
  const api::TopologyDomain& domain = net.domain(d);
  for (int32_t around : net.DomainsOf(domain.nodes.front())) {
    if (net.domain(around).tier >= domain.tier) by_domain_[around] += pending;
  }
}

DomainPlan PlanDomains(Session& s, const api::JobInfo& job,
                       const std::vector<api::TaskIndex>& tasks, size_t first,
                       const GrowthEarmarks* earmarks) {
  int64_t need = static_cast<int64_t>(tasks.size() - first);
  if (!job.RoleMinimumsApply()) {
    need = std::min<int64_t>(
        need, std::max<int32_t>(1, job.min_member - job.ReadyCount()));
  }
  // A domain with room for every pending pod comes first: an elastic
  // job (or a tree's leaves beyond its minimum) can then grow where it
  // starts, instead of filling the fullest domain that holds its minimum.
  const int64_t want = static_cast<int64_t>(tasks.size() - first);
  return PlanFor(
      s, Request{job.network, tasks, first, need, std::max(need, want),
                 PlacedNodes(s, job), api::kNone, NetworkField(job), "",
                 earmarks == nullptr ? nullptr : &earmarks->by_domain()});
}

DomainPlan PlanSubGroupDomains(Session& s, const api::JobInfo& job,
                               int32_t group,
                               const std::vector<api::TaskIndex>& tasks,
                               int32_t within) {
  const api::SubGroup& g = job.sub_groups[group];
  const int32_t ready = api::SubGroupReady(s.cluster(), job, group, true);
  const int64_t need = std::min<int64_t>(static_cast<int64_t>(tasks.size()),
                                         std::max(1, g.size - ready));
  std::string field =
      g.leaf != api::kNone
          ? absl::StrCat("podgroup ", job.ns, "/", g.key,
                         " spec.schedulingConstraints.topology")
          : absl::StrCat("spec.subGroupPolicy[", g.policy, "].networkTopology");
  return PlanFor(
      s, Request{api::SubGroupNetwork(job, group), tasks, 0, need,
                 static_cast<int64_t>(tasks.size()), PlacedNodes(s, job, group),
                 within, std::move(field),
                 absl::StrCat(", sub-group ", api::SubGroupName(job, group))});
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

int32_t GrowthDomainOf(const Session& s, const api::JobInfo& job) {
  if (job.network.mode != NetworkConstraint::Mode::kHard) return api::kNone;
  const api::NetworkTopology* net = s.network();
  std::string why;
  const int32_t limit = TierLimit(net, job.network, NetworkField(job), &why);
  if (!why.empty()) return kNoDomain;
  if (limit >= ClusterTier(net)) return api::kNone;
  // Pods counted ready but on no node Shoal knows: the domain is chosen
  // as for a gang that starts.
  const std::vector<api::NodeIndex> placed = PlacedNodes(s, job);
  if (placed.empty()) return api::kNone;
  const int32_t d = net->WidestHolding(placed, limit);
  return d == api::kNone ? kNoDomain : d;
}

const std::vector<api::NodeIndex>* GrowthDomain(const Session& s,
                                                const api::JobInfo& job) {
  const int32_t d = GrowthDomainOf(s, job);
  if (d == api::kNone) return nullptr;
  return d == kNoDomain ? &kNowhere : &s.network()->domain(d).nodes;
}

}  // namespace shoal::actions
