// The admin service's Explain: why a pending pod or a gang waits, with
// what would let it run (the lower-priority pods whose eviction makes
// room on a node, the nodes a gang lacks, the network domains it may
// use). service.cc answers the other calls.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/actions/network_domains.h"
#include "scheduler/admin/device_views.h"
#include "scheduler/admin/elastic_line.h"
#include "scheduler/admin/explain.h"
#include "scheduler/admin/gang_room.h"
#include "scheduler/admin/group_standing.h"
#include "scheduler/admin/own_policy.h"
#include "scheduler/admin/service.h"
#include "scheduler/api/quantity.h"
#include "scheduler/dra/capacity.h"
#include "scheduler/dra/device_report.h"
#include "scheduler/framework/policy.h"
#include "scheduler/framework/session.h"

namespace shoal::admin {
namespace {

// "2 more cpu, 1 more nvidia.com/gpu" for each positive amount.
std::string MoreOf(const api::Resource& shortage) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < shortage.size(); ++i) {
    auto id = static_cast<api::ResourceId>(i);
    if (shortage.Get(id) <= 0) continue;
    parts.push_back(
        absl::StrCat(api::FormatQuantity(shortage.Get(id), api::ScaleOf(id)),
                     " more ", api::ResourceName(id)));
  }
  return absl::StrJoin(parts, ", ");
}

// What `request` lacks in `available`, per resource it asks for.
api::Resource Shortage(const api::Resource& request,
                       const api::Resource& available) {
  api::Resource out;
  request.ForEachShortage(available, [&](api::ResourceId id) {
    out.Set(id, request.Get(id) - available.Get(id));
  });
  return out;
}

bool ResourceReason(const std::string& reason) {
  return absl::StartsWith(reason, "Insufficient ") || reason == "Too many pods";
}

const api::JobInfo* FindJob(const api::ClusterInfo& c, const std::string& key) {
  for (const auto& j : c.jobs) {
    if (j.Key() == key) return &j;
  }
  return nullptr;
}

// Which lower-priority pods on the node, evicted, would make room for `t`
// (and free the devices its claims need, their claims giving them back):
// running or bound pods of Shoal's that are preemptable, below the pod's
// priority, whose gang stays at or above its minimum, and that the
// policy's Preemptable plugins offer; lowest priority, then newest, first.
v1::NodeFix FixOnNode(framework::Session& s, const api::TaskInfo& t,
                      const api::NodeInfo& node) {
  const api::ClusterInfo& c = s.cluster();
  v1::NodeFix fix;
  fix.set_node(node.name());
  std::vector<api::TaskIndex> candidates;
  for (api::TaskIndex v : node.tasks()) {
    const api::TaskInfo& victim = c.tasks[v];
    if (victim.status != api::TaskStatus::kRunning &&
        victim.status != api::TaskStatus::kBound) {
      continue;
    }
    if (victim.pod->priority >= t.pod->priority || !victim.pod->preemptable ||
        victim.pod->critical || victim.job == t.job) {
      continue;
    }
    candidates.push_back(v);
  }
  if (!candidates.empty()) {
    framework::Victims offered = s.Call<framework::Preemptable>(t, candidates);
    if (offered.has_value()) candidates = *offered;
  }
  std::sort(candidates.begin(), candidates.end(),
            [&](api::TaskIndex a, api::TaskIndex b) {
              const api::PodInfo& pa = *c.tasks[a].pod;
              const api::PodInfo& pb = *c.tasks[b].pod;
              if (pa.priority != pb.priority) return pa.priority < pb.priority;
              if (pa.created != pb.created) return pa.created > pb.created;
              return pa.Key() < pb.Key();
            });
  // Room and devices alike: a victim's claims give their devices back
  // while it is supposed gone (Session::SupposeGone), undone below.
  api::Resource available = node.idle();
  std::map<api::JobIndex, int32_t> taken;
  std::vector<std::string> victims;
  std::vector<api::TaskIndex> gone;
  const bool claims = !t.pod->resource_claims.empty();
  auto fits = [&]() {
    return claims ? s.FitsOnceReleased(t, node, available)
                  : t.request().FitsIn(available);
  };
  int32_t usable = 0;
  for (api::TaskIndex v : candidates) {
    if (fits()) break;
    const api::TaskInfo& victim = c.tasks[v];
    const api::JobInfo& job = c.jobs[victim.job];
    // A running gang is never cut below its minimum.
    if (job.ReadyCount() - taken[victim.job] - 1 < job.min_member &&
        job.min_member > 1) {
      continue;
    }
    ++taken[victim.job];
    ++usable;
    available += victim.request();
    victims.push_back(victim.pod->Key());
    if (claims) {
      s.SupposeGone(v);
      gone.push_back(v);
    }
  }
  const bool fits_now = fits();
  const bool room = t.request().FitsIn(available);
  for (auto it = gone.rbegin(); it != gone.rend(); ++it) s.UnsupposeGone(*it);
  if (!victims.empty() && fits_now) {
    for (const auto& v : victims) fix.add_victims(v);
    fix.set_text(
        absl::StrCat("evicting ", absl::StrJoin(victims, ", "),
                     " (lower priority) would make room",
                     claims ? " and free the devices its claims need" : "",
                     " on ", node.name()));
    return fix;
  }
  const std::string evicted =
      usable > 0 ? absl::StrCat(" even with its ", usable,
                                " lower-priority pod(s) evicted")
                 : "";
  if (room) {  // the devices are short, not the room
    fix.set_text(absl::StrCat("needs devices its claims cannot get on ",
                              node.name(), evicted));
    return fix;
  }
  api::Resource shortage = Shortage(t.request(), available);
  fix.set_shortfall(shortage.ToString());
  fix.set_text(
      absl::StrCat("needs ", MoreOf(shortage), " on ", node.name(), evicted));
  return fix;
}

// How many of the gang's still-needed pods the free room takes at once
// (filters and requests only), and how many more nodes like the best
// candidate would let it run.
std::string GangFix(framework::Session& s, const api::JobInfo& job,
                    const FreeRoomPlan& plan) {
  const api::ClusterInfo& c = s.cluster();
  const int32_t needed = plan.needed;
  if (needed <= 0) {
    return absl::StrCat("the gang has its minimum (", job.min_member,
                        ") placed; its other pending pods are elastic");
  }
  if (static_cast<int32_t>(plan.pending.size()) < needed) {
    return absl::StrCat("the gang needs ", needed, " more pod(s) but only ",
                        plan.pending.size(),
                        " are pending: its controller has not created them");
  }
  const int32_t placed = plan.placed;
  const std::vector<api::TaskIndex>& left = plan.left;
  std::string head = absl::StrCat(placed, " of ", needed,
                                  " pods the gang still needs fit in the "
                                  "free room now");
  if (left.empty()) {
    return absl::StrCat(head,
                        "; room is not what it waits for (see the blockers)");
  }
  // The node a pod of the rest could use when empty, with the most room.
  const api::TaskInfo& first = c.tasks[left.front()];
  const api::NodeInfo* like = nullptr;
  for (const auto& n : c.nodes) {
    if (!s.Call<framework::Predicate>(first.placement(), n, nullptr)) continue;
    if (!first.request().FitsIn(n.allocatable())) continue;
    if (like == nullptr ||
        n.allocatable().DominantShare(like->allocatable()) > 1) {
      like = &n;
    }
  }
  if (like == nullptr) {
    return absl::StrCat(head, "; pod ", first.pod->Key(), " (",
                        first.request().ToString(),
                        ") fits no node it may go to even when empty, so "
                        "no amount of eviction lets the gang run");
  }
  std::vector<api::Resource> extra;
  for (api::TaskIndex ti : left) {
    const api::TaskInfo& t = c.tasks[ti];
    bool ok = false;
    for (auto& room : extra) {
      if (t.request().FitsIn(room)) {
        room -= t.request();
        ok = true;
        break;
      }
    }
    if (ok) continue;
    if (!t.request().FitsIn(like->allocatable())) {
      return absl::StrCat(head, "; pod ", t.pod->Key(),
                          " does not fit a node like ", like->name(),
                          " even when empty");
    }
    extra.push_back(like->allocatable() - t.request());
  }
  return absl::StrCat(
      head, "; ", extra.size() == 1 ? "one more node" : "",
      extra.size() == 1 ? "" : absl::StrCat(extra.size(), " more nodes"),
      " like ", like->name(), " (", like->allocatable().ToString(),
      ") would let the gang run");
}

void FillVerdicts(const nlohmann::json& e, v1::PodExplanation* out) {
  out->set_available(e.value("available", ""));
  out->set_pod_reason(e.value("podReason", ""));
  for (const auto& n : e["nodes"]) {
    v1::NodeVerdict* v = out->add_nodes();
    v->set_node(n["node"].get<std::string>());
    v->set_feasible(n["feasible"].get<bool>());
    for (const auto& r : n["reasons"]) v->add_reasons(r.get<std::string>());
    if (n.contains("scores")) {
      for (const auto& [plugin, score] : n["scores"].items()) {
        (*v->mutable_scores())[plugin] = score.get<int64_t>();
      }
    }
  }
}

}  // namespace

// Each domain within a network-bound gang's limit and its room for the
// gang's pending pods, as the allocate action's search counts it.
void FillNetwork(framework::Session& s, const api::JobInfo& job,
                 v1::ExplainResponse* out) {
  if (job.network.mode == api::NetworkConstraint::Mode::kNone) return;
  out->set_network(actions::DescribeConstraint(job.network));
  const api::NetworkTopology* net = s.network();
  out->set_network_source(net == nullptr || net->empty()
                              ? "nothing (no HyperNodes, no tierLabels)"
                              : net->source());
  std::vector<api::TaskIndex> pending;
  for (api::TaskIndex t : job.tasks) {
    if (s.cluster().tasks[t].status == api::TaskStatus::kPending)
      pending.push_back(t);
  }
  const actions::DomainPlan plan = actions::PlanDomains(s, job, pending, 0);
  if (!plan.refusal.empty()) out->add_blockers(plan.refusal);
  for (const actions::DomainPlan::Room& r : plan.rooms) {
    v1::DomainRoom* d = out->add_domains();
    d->set_name(net->domain(r.domain).name);
    d->set_tier(net->domain(r.domain).tier);
    d->set_room(r.pods);
    d->set_need(plan.need);
    d->set_holds_placed(r.holds_placed);
  }
}

absl::StatusOr<v1::ExplainResponse> Explain(const AdminBackend& backend,
                                            const v1::ExplainRequest& request) {
  const bool is_pod = request.target_case() == v1::ExplainRequest::kPod;
  if (!is_pod && request.target_case() != v1::ExplainRequest::kPodgroup) {
    return absl::InvalidArgumentError(
        "explain: set pod or podgroup (namespace/name)");
  }
  const std::string kind = is_pod ? "pod" : "podgroup";
  const std::string key = is_pod ? request.pod() : request.podgroup();
  if (std::count(key.begin(), key.end(), '/') != 1 || key.front() == '/' ||
      key.back() == '/') {
    return absl::InvalidArgumentError(absl::StrCat(
        "explain: ", kind, " must be NAMESPACE/NAME, got \"", key, "\""));
  }
  api::ClusterInfo snap = backend.Snapshot();
  std::optional<api::ClusterInfo> last = backend.LastCycle();

  api::JobIndex job_index = api::kNone;
  std::vector<api::TaskIndex> chosen;
  if (is_pod) {
    for (api::TaskIndex t = 0;
         t < static_cast<api::TaskIndex>(snap.tasks.size()); ++t) {
      if (snap.tasks[t].pod->Key() != key) continue;
      if (snap.tasks[t].status != api::TaskStatus::kPending) {
        const api::TaskInfo& task = snap.tasks[t];
        return absl::NotFoundError(absl::StrCat(
            "pod \"", key, "\" is not pending in Shoal (it is ",
            api::TaskStatusName(task.status),
            task.node != api::kNone
                ? absl::StrCat(" on ", snap.nodes[task.node].name())
                : "",
            ")"));
      }
      job_index = snap.tasks[t].job;
      chosen.push_back(t);
    }
    if (job_index == api::kNone) {
      return absl::NotFoundError(
          absl::StrCat("pod \"", key,
                       "\" is not pending in Shoal (not in the cache, or its "
                       "schedulerName is not Shoal's)"));
    }
  } else {
    for (api::JobIndex j = 0; j < static_cast<api::JobIndex>(snap.jobs.size());
         ++j) {
      if (snap.jobs[j].source != api::GroupSource::kSinglePod &&
          snap.jobs[j].Key() == key) {
        job_index = j;
      }
    }
    // A composite or leaf PodGroup of a tree: the tree's job.
    if (job_index == api::kNone) job_index = TreeHolding(snap, key);
    if (job_index == api::kNone) {
      // A Workload named without its podGroup: its one gang, or which.
      std::vector<api::JobIndex> gangs;
      for (api::JobIndex j = 0;
           j < static_cast<api::JobIndex>(snap.jobs.size()); ++j) {
        if (snap.jobs[j].source == api::GroupSource::kWorkload &&
            absl::StartsWith(snap.jobs[j].Key(), key + "/")) {
          gangs.push_back(j);
        }
      }
      if (gangs.size() == 1) job_index = gangs[0];
      if (gangs.size() > 1) {
        std::vector<std::string> names;
        for (api::JobIndex j : gangs) names.push_back(snap.jobs[j].Key());
        return absl::NotFoundError(
            absl::StrCat("workload \"", key, "\" has ", gangs.size(),
                         " gangs (", absl::StrJoin(names, ", "),
                         "): name one, as NAMESPACE/NAME/PODGROUP[/KEY]"));
      }
    }
    if (job_index == api::kNone) {
      return absl::NotFoundError(absl::StrCat(
          "podgroup \"", key,
          "\" is not known to Shoal (no such PodGroup, and no pod of Shoal's "
          "names it)"));
    }
    std::vector<api::TaskIndex> tasks = snap.jobs[job_index].tasks;
    std::sort(tasks.begin(), tasks.end(),
              [&](api::TaskIndex a, api::TaskIndex b) {
                const auto& pa = *snap.tasks[a].pod;
                const auto& pb = *snap.tasks[b].pod;
                if (pa.created != pb.created) return pa.created < pb.created;
                return pa.Key() < pb.Key();
              });
    std::vector<std::string> roles;
    for (api::TaskIndex t : tasks) {
      if (snap.tasks[t].status != api::TaskStatus::kPending) continue;
      const std::string& role = snap.tasks[t].pod->role;
      if (std::find(roles.begin(), roles.end(), role) != roles.end()) continue;
      roles.push_back(role);
      chosen.push_back(t);
    }
  }

  auto policy = OwnPolicy(backend.config());
  if (!policy.ok()) return policy.status();

  v1::ExplainResponse out;
  out.set_kind(kind);
  out.set_name(key);
  const api::JobInfo& job = snap.jobs[job_index];
  out.set_podgroup(job.source == api::GroupSource::kSinglePod ? "" : job.Key());
  out.set_podgroup_kind(job.source == api::GroupSource::kCompositeTree
                            ? "CompositePodGroup"
                            : "PodGroup");
  out.set_queue(job.queue);
  out.set_min_member(job.min_member);
  out.set_ready(job.ReadyCount());
  out.set_pending(job.PendingCount());
  out.set_phase(api::PodGroupPhaseName(job.phase));
  out.set_throughput(ThroughputLine(job));
  for (v1::GroupStanding& row : GroupStandings(snap, job)) {
    *out.add_groups() = std::move(row);
  }
  if (last.has_value()) {
    out.set_have_last_cycle(true);
    if (const api::JobInfo* lj = FindJob(*last, job.Key()); lj != nullptr) {
      out.set_phase(api::PodGroupPhaseName(lj->phase));
      out.set_message(lj->message);
      out.set_fit_error(lj->fit_error);
      out.set_elastic(ElasticLine(*lj));
      // A curve the elastic plugin learned (from the job's progress
      // reports) lives in the cycle, not in the snapshot.
      if (!lj->throughput_source.empty())
        out.set_throughput(ThroughputLine(*lj));
    }
  }

  // Per node, as --explain says it (each call its own session).
  std::optional<dra::DeviceReport> report;
  for (api::TaskIndex t : chosen) {
    const api::TaskInfo& task = snap.tasks[t];
    auto e = ExplainPod(snap, *policy, task.pod->Key());
    if (!e.ok()) return e.status();
    v1::PodExplanation* p = out.add_pods();
    p->set_pod(task.pod->Key());
    p->set_role(task.pod->role);
    p->set_priority(task.pod->priority);
    p->set_status(api::TaskStatusName(task.status));
    FillVerdicts(*e, p);
    if (task.pod->resource_claims.empty() || snap.devices == nullptr) continue;
    AddDeviceLines(snap, *task.pod, report, p);
  }

  // Admission and the fixes, in a session of our own.
  framework::Session s(snap, *policy);
  const api::JobInfo& sj = s.cluster().jobs[job_index];
  std::string why;
  if (!s.JobAdmissible(sj, &why)) {
    out.add_blockers(why);
  } else {
    why.clear();
    if (!s.PodsPlaceable(sj, &why)) out.add_blockers(why);
    why.clear();
    if (!s.Call<framework::JobValid>(sj, &why)) out.add_blockers(why);
    if (s.policy().config.HasAction("enqueue") &&
        sj.phase == api::PodGroupPhase::kPending) {
      why.clear();
      if (!s.Call<framework::JobEnqueueable>(sj, &why)) {
        out.add_blockers(why.empty() ? "the policy's enqueue plugins do not "
                                       "admit the podgroup now"
                                     : why);
      }
    }
  }
  for (v1::PodExplanation& p : *out.mutable_pods()) {
    const api::TaskInfo* task = nullptr;
    for (api::TaskIndex t : chosen) {
      if (s.cluster().tasks[t].pod->Key() == p.pod())
        task = &s.cluster().tasks[t];
    }
    for (const v1::NodeVerdict& v : p.nodes()) {
      if (v.feasible() || v.reasons().empty()) continue;
      // Room, or devices (the allocator's "claim C, request R: ..."),
      // are what eviction can free.
      bool only_room = std::all_of(
          v.reasons().begin(), v.reasons().end(), [](const std::string& r) {
            return ResourceReason(r) || absl::StartsWith(r, "claim ");
          });
      if (!only_room) continue;
      api::NodeIndex n = s.cluster().FindNode(v.node());
      if (n == api::kNone) continue;
      *p.add_fixes() = FixOnNode(s, *task, s.cluster().nodes[n]);
    }
  }
  if (!is_pod || job.min_member > 1) {
    const FreeRoomPlan plan = PlanFreeRoom(s, sj);
    out.set_gang_fix(GangFix(s, sj, plan));
    for (std::string& line : GangRoomLines(s, sj, plan)) {
      out.add_gang_room(std::move(line));
    }
  }
  FillNetwork(s, sj, &out);
  return out;
}

}  // namespace shoal::admin
