#include "scheduler/admin/gang_room.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/actions/victims.h"
#include "scheduler/api/quantity.h"
#include "scheduler/api/resource_name.h"
#include "scheduler/framework/statement.h"

namespace shoal::admin {
namespace {

const api::ResourceClaim* ClaimOf(const api::ClusterInfo& c,
                                  const api::PodInfo& pod,
                                  const api::PodClaim& pc) {
  if (c.devices == nullptr || pc.claim.empty()) return nullptr;
  auto it = c.devices->claims.find(absl::StrCat(pod.ns, "/", pc.claim));
  return it == c.devices->claims.end() ? nullptr : &it->second;
}

// The class of the device a result of `claim` names ("gpu", or "gpu/big"
// for a firstAvailable alternative); "" when the claim does not say.
std::string ClassOf(const api::ResourceClaim& claim,
                    const std::string& result_request) {
  const size_t slash = result_request.find('/');
  const std::string request = result_request.substr(0, slash);
  const std::string sub =
      slash == std::string::npos ? "" : result_request.substr(slash + 1);
  for (const api::DeviceRequest& r : claim.requests) {
    if (r.name != request) continue;
    for (const api::DeviceChoice& choice : r.choices) {
      if (sub.empty() || choice.name == sub) return choice.device_class;
    }
  }
  return "";
}

// How many devices of each class the pod's claims not yet allocated ask
// for (every device of the class, for allocationMode All; for
// firstAvailable, the most any alternative asks of the class).
std::map<std::string, int64_t> Asked(const api::ClusterInfo& c,
                                     const api::PodInfo& pod) {
  constexpr int64_t kAll = 1 << 30;
  std::map<std::string, int64_t> out;
  std::set<const api::ResourceClaim*> seen;
  for (const api::PodClaim& pc : pod.resource_claims) {
    const api::ResourceClaim* claim = ClaimOf(c, pod, pc);
    if (claim == nullptr || claim->allocation.has_value() ||
        !seen.insert(claim).second) {
      continue;
    }
    for (const api::DeviceRequest& r : claim->requests) {
      std::map<std::string, int64_t> most;
      for (const api::DeviceChoice& choice : r.choices) {
        if (choice.admin_access) continue;
        const int64_t n =
            choice.mode == api::AllocationMode::kAll ? kAll : choice.count;
        most[choice.device_class] = std::max(most[choice.device_class], n);
      }
      for (const auto& [cls, n] : most) out[cls] = std::min(out[cls] + n, kAll);
    }
  }
  return out;
}

// The devices of each class the victim's claims hold and give back when
// it goes: claims reserved for no pod that stays (`leaving`, by uid).
std::map<std::string, int64_t> Held(const api::ClusterInfo& c,
                                    const api::PodInfo& pod,
                                    const std::set<std::string>& leaving,
                                    std::set<const api::ResourceClaim*>& seen) {
  std::map<std::string, int64_t> out;
  for (const api::PodClaim& pc : pod.resource_claims) {
    const api::ResourceClaim* claim = ClaimOf(c, pod, pc);
    if (claim == nullptr || !claim->allocation.has_value() ||
        !seen.insert(claim).second) {
      continue;
    }
    const bool shared =
        std::any_of(claim->reserved_for.begin(), claim->reserved_for.end(),
                    [&](const api::ClaimConsumer& u) {
                      return u.resource != "pods" || leaving.count(u.uid) == 0;
                    });
    if (shared) continue;
    for (const api::DeviceResult& r : claim->allocation->results) {
      if (r.admin_access) continue;
      ++out[ClassOf(*claim, r.request)];
    }
  }
  return out;
}

std::string Plural(int64_t n, const std::string& one) {
  return absl::StrCat(n, " ", one, n == 1 ? "" : "s");
}

// The devices line (gang_room.h), or "".
std::string DevicesLine(framework::Session& s, const api::JobInfo& job,
                        const FreeRoomPlan& plan) {
  const api::ClusterInfo& c = s.cluster();
  if (c.devices == nullptr) return "";
  bool claims = false;
  for (api::TaskIndex t : plan.left) {
    claims |= !c.tasks[t].pod->resource_claims.empty();
  }
  if (!claims) return "";
  // The pods the gang needs, as preempt would take them: each in the
  // room FindRoom finds, its victims evicted, in one statement undone
  // below.
  std::vector<api::TaskIndex> victims;
  std::vector<std::pair<api::TaskIndex, std::vector<api::TaskIndex>>> rooms;
  {
    framework::Statement stmt(s);
    for (int32_t i = 0; i < plan.needed; ++i) {
      const api::TaskIndex t = plan.pending[i];
      const api::TaskInfo& task = s.task(t);
      auto eligible = [&](const api::TaskInfo& other) {
        return c.jobs[other.job].queue_index == job.queue_index &&
               other.pod->priority < task.pod->priority;
      };
      auto ask = [&](const std::vector<api::TaskIndex>& candidates) {
        return s.Call<framework::Preemptable>(task, candidates);
      };
      std::optional<actions::Room> room =
          actions::FindRoom(s, task, eligible, ask);
      if (!room.has_value() ||
          (task.pod->preempt_never && !room->victims.empty())) {
        stmt.Discard();
        return "";  // preempt would not let the gang run
      }
      for (api::TaskIndex v : room->victims) {
        stmt.Evict(v, "preempt", task.pod->Key());
        victims.push_back(v);
      }
      rooms.emplace_back(t, room->victims);
      stmt.Pipeline(t, room->node);
    }
    stmt.Discard();
  }
  std::set<std::string> leaving;
  for (api::TaskIndex v : victims) leaving.insert(c.tasks[v].pod->uid);
  // Per pod of the gang, the devices its victims give back of the classes
  // its claims ask for, no more than it asks.
  std::map<std::string, int64_t> short_of;
  std::vector<std::string> holders;
  std::set<const api::ResourceClaim*> seen;
  for (const auto& [t, its_victims] : rooms) {
    std::map<std::string, int64_t> asked = Asked(c, *c.tasks[t].pod);
    std::map<std::string, int64_t> freed;
    for (api::TaskIndex v : its_victims) {
      bool holds = false;
      for (const auto& [cls, n] : Held(c, *c.tasks[v].pod, leaving, seen)) {
        if (asked.count(cls) == 0) continue;
        freed[cls] += n;
        holds = true;
      }
      if (holds) holders.push_back(c.tasks[v].pod->Key());
    }
    for (const auto& [cls, n] : freed) short_of[cls] += std::min(n, asked[cls]);
  }
  if (short_of.empty()) return "";
  std::vector<std::string> needs;
  for (const auto& [cls, n] : short_of) {
    needs.push_back(absl::StrCat(Plural(n, "device"), " of class ", cls));
  }
  std::string head =
      absl::StrCat("needs ", absl::StrJoin(needs, " and "), " held by ",
                   Plural(static_cast<int64_t>(holders.size()), "pod"),
                   " of lower priority");
  if (s.policy().config.HasAction("preempt")) {
    std::vector<std::string> taken;
    for (api::TaskIndex v : victims) taken.push_back(c.tasks[v].pod->Key());
    return absl::StrCat(head, ": preempt would take ",
                        absl::StrJoin(taken, ", "));
  }
  return absl::StrCat(head, " (", absl::StrJoin(holders, ", "),
                      "); a policy listing preempt would free them");
}

// The scattered-room line (gang_room.h), or "".
std::string ScatteredLine(framework::Session& s, const FreeRoomPlan& plan) {
  const api::ClusterInfo& c = s.cluster();
  std::vector<bool> may(c.nodes.size(), false);
  api::Resource total;
  for (api::TaskIndex ti : plan.left) {
    const api::TaskInfo& t = c.tasks[ti];
    total += t.request();
    bool could = false;
    for (size_t n = 0; n < c.nodes.size(); ++n) {
      if (!s.Call<framework::Predicate>(t.placement(), c.nodes[n], nullptr))
        continue;
      may[n] = true;
      could |= t.request().FitsIn(c.nodes[n].allocatable());
    }
    if (!could) return "";  // no node holds it even when empty
  }
  api::Resource free;
  api::Resource most;
  for (size_t n = 0; n < c.nodes.size(); ++n) {
    if (!may[n]) continue;
    api::Resource idle = plan.idle[n];
    idle.MaxWith(api::Resource());
    free += idle;
    most.MaxWith(idle);
  }
  if (!total.FitsIn(free)) return "";  // not there even in sum
  std::vector<std::string> parts;
  for (size_t i = 0; i < total.size(); ++i) {
    const auto id = static_cast<api::ResourceId>(i);
    bool over = false;
    for (api::TaskIndex ti : plan.left) {
      over |= c.tasks[ti].request().Get(id) > most.Get(id);
    }
    if (!over) continue;
    parts.push_back(absl::StrCat(
        api::FormatQuantity(free.Get(id), api::ScaleOf(id)), " ",
        api::ResourceName(id), " free in all but at most ",
        api::FormatQuantity(most.Get(id), api::ScaleOf(id)), " on one node"));
  }
  if (parts.empty()) return "";
  return absl::StrCat(
      absl::StrJoin(parts, ", "), ": the room is scattered; ",
      s.policy().config.HasAction("consolidate")
          ? "consolidate may move pods to make a node whole"
          : "a policy listing consolidate (after allocate) may move pods to "
            "make a node whole");
}

}  // namespace

FreeRoomPlan PlanFreeRoom(framework::Session& s, const api::JobInfo& job) {
  const api::ClusterInfo& c = s.cluster();
  FreeRoomPlan plan;
  plan.needed = job.min_member - job.ReadyCount() -
                job.Count(api::TaskStatus::kPipelined);
  for (api::TaskIndex t : job.tasks) {
    if (c.tasks[t].status == api::TaskStatus::kPending)
      plan.pending.push_back(t);
  }
  std::sort(plan.pending.begin(), plan.pending.end(),
            [&](api::TaskIndex a, api::TaskIndex b) {
              return s.TaskBefore(c.tasks[a], c.tasks[b]);
            });
  for (const auto& n : c.nodes) plan.idle.push_back(n.idle());
  if (plan.needed <= 0 ||
      static_cast<int32_t>(plan.pending.size()) < plan.needed) {
    return plan;
  }
  for (int32_t i = 0; i < plan.needed; ++i) {
    const api::TaskInfo& t = c.tasks[plan.pending[i]];
    bool ok = false;
    for (size_t n = 0; n < c.nodes.size() && !ok; ++n) {
      if (!s.Call<framework::Predicate>(t.placement(), c.nodes[n], nullptr))
        continue;
      if (!s.Fits(t, c.nodes[n], plan.idle[n])) continue;
      plan.idle[n] -= t.request();
      ok = true;
    }
    if (ok) {
      ++plan.placed;
    } else {
      plan.left.push_back(plan.pending[i]);
    }
  }
  return plan;
}

std::vector<std::string> GangRoomLines(framework::Session& s,
                                       const api::JobInfo& job,
                                       const FreeRoomPlan& plan) {
  std::vector<std::string> out;
  if (plan.left.empty()) return out;
  std::string devices = DevicesLine(s, job, plan);
  if (!devices.empty()) out.push_back(std::move(devices));
  std::string scattered = ScatteredLine(s, plan);
  if (!scattered.empty()) out.push_back(std::move(scattered));
  return out;
}

}  // namespace shoal::admin
