#include "scheduler/actions/victims.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/time/time.h"
#include "scheduler/api/queue_tree.h"

namespace shoal::actions {

namespace {

// Kinds of victim, most expendable first (SortByExpendability).
constexpr int32_t kSurplus = 0;    // a pod of a job of several
constexpr int32_t kLone = 1;       // a job of one
constexpr int32_t kKubeGroup = 2;  // a pod of a scheduling.k8s.io PodGroup

int32_t KindRank(const api::JobInfo& j) {
  if (j.source == api::GroupSource::kKubePodGroup) return kKubeGroup;
  return j.tasks.size() == 1 ? kLone : kSurplus;
}

// The pods one eviction of a PodGroup's pod takes (KEP-5710's unit).
int32_t UnitSize(const api::JobInfo& j) {
  return j.disrupted_whole ? j.ReadyCount() : 1;
}

// When a job's first pod still holding room was created (InfiniteFuture
// when none holds any): when a group disrupted whole started.
absl::Time EarliestReady(const api::ClusterInfo& c, const api::JobInfo& j) {
  absl::Time earliest = absl::InfiniteFuture();
  for (api::TaskIndex m : j.tasks) {
    const api::TaskInfo& member = c.tasks[m];
    if (api::IsReadyStatus(member.status))
      earliest = std::min(earliest, member.pod->created);
  }
  return earliest;
}

// When a KEP-5710 unit started: its group's start (`group_start`, for
// groups disrupted whole), or the pod's own creation.
absl::Time UnitStart(const std::map<api::JobIndex, absl::Time>& group_start,
                     const api::TaskInfo& t) {
  auto it = group_start.find(t.job);
  return it == group_start.end() || it->second == absl::InfiniteFuture()
             ? t.pod->created
             : it->second;
}

}  // namespace

void SortByExpendability(const framework::Session& s,
                         std::vector<api::TaskIndex>& tasks) {
  const api::ClusterInfo& c = s.cluster();
  // Dominant share of each victim's job, and when a group disrupted whole
  // started, computed once per job.
  std::map<api::JobIndex, double> share;
  std::map<api::JobIndex, absl::Time> group_start;
  for (api::TaskIndex t : tasks) {
    api::JobIndex j = c.tasks[t].job;
    if (share.count(j) == 0) {
      share[j] = c.Held(c.jobs[j]).DominantShare(c.total_allocatable);
      if (c.jobs[j].disrupted_whole)
        group_start[j] = EarliestReady(c, c.jobs[j]);
    }
  }
  std::stable_sort(tasks.begin(), tasks.end(),
                   [&](api::TaskIndex a, api::TaskIndex b) {
                     const api::TaskInfo& x = c.tasks[a];
                     const api::TaskInfo& y = c.tasks[b];
                     const api::JobInfo& jx = c.jobs[x.job];
                     const api::JobInfo& jy = c.jobs[y.job];
                     // Reclaim takes from lower-priority queues first, as
                     // Volcano does.
                     const int32_t qx = jx.queue_index == api::kNone
                                            ? 0
                                            : c.queues[jx.queue_index].priority;
                     const int32_t qy = jy.queue_index == api::kNone
                                            ? 0
                                            : c.queues[jy.queue_index].priority;
                     if (qx != qy) return qx < qy;
                     if (jx.priority != jy.priority)
                       return jx.priority < jy.priority;
                     if (x.pod->priority != y.pod->priority)
                       return x.pod->priority < y.pod->priority;
                     // An elastic job's surplus before a pod whose eviction
                     // ends its job, and both before a pod of a
                     // scheduling.k8s.io PodGroup (KEP-5710: at equal priority
                     // a PodGroup is more important than a lone pod).
                     const int32_t kx = KindRank(jx), ky = KindRank(jy);
                     if (kx != ky) return kx < ky;
                     if (kx == kKubeGroup) {
                       // KEP-5710 between two PodGroups: the smaller unit first
                       // (a group disrupted whole is one unit of all its
                       // running pods, otherwise each pod is a unit of one),
                       // then the one started last.
                       const int32_t ux = UnitSize(jx), uy = UnitSize(jy);
                       if (ux != uy) return ux < uy;
                       const absl::Time sx = UnitStart(group_start, x);
                       const absl::Time sy = UnitStart(group_start, y);
                       if (sx != sy) return sx > sy;
                     }
                     // A resize that costs a restart (JobInfo::resizing): a job
                     // whose resize is free first, then in the elastic plugin's
                     // shrink order, each job's pods together.
                     const int32_t rx = jx.resizing.shrink_rank;
                     const int32_t ry = jy.resizing.shrink_rank;
                     if (rx != ry) return rx == 0 || (ry != 0 && rx < ry);
                     if (share[x.job] != share[y.job])
                       return share[x.job] > share[y.job];
                     // Full ties keep the snapshot's order (kube-scheduler
                     // takes the larger UID; taking the later pods first
                     // here doubles BM_DraCyclePreempt's victim search).
                     return x.pod->created > y.pod->created;
                   });
}

namespace {

// How many more of the job's tasks of `role` may be evicted without
// leaving a running gang below its minMember, the role below its
// minTaskMember or fewer sub-groups whole than its minSubGroups. A job of one
// pod may go whole, its role's minimum with it (a one-pod Volcano Job carries
// minTaskMember {worker: 1}, and would otherwise never lend back a thing). A
// PodGroup disrupted whole (disruptionMode: PodGroup) lends no single pod:
// only FindWholeGang ends it. This is the scheduler's promise, not a policy:
// the tiers' answer cannot override it.
class GangFloor {
 public:
  explicit GangFloor(const framework::Session& s) : s_(s) {}

  // Takes one of the job's tasks of `role` (in `sub_group`, or kNone) if
  // the floors allow.
  bool Take(api::JobIndex j, const std::string& role, int32_t sub_group) {
    const api::JobInfo& job = s_.cluster().jobs[j];
    auto [job_it, fresh] = job_spare_.try_emplace(j, 0);
    if (fresh) {
      job_it->second = job.tasks.size() == 1 ? job.ReadyCount()
                       : job.disrupted_whole
                           ? 0
                           : std::max(0, job.ReadyCount() - job.min_member);
    }
    auto min_it = job.min_task_member.find(role);
    int32_t* role_spare = nullptr;
    if (job.tasks.size() > 1 && job.RoleMinimumsApply() &&
        min_it != job.min_task_member.end()) {
      auto [it, fresh_role] = role_spare_.try_emplace({j, role}, 0);
      if (fresh_role) {
        int32_t ready = 0;
        for (api::TaskIndex t : job.tasks) {
          const api::TaskInfo& task = s_.cluster().tasks[t];
          if (task.pod->role == role && api::IsReadyStatus(task.status))
            ++ready;
        }
        it->second = std::max(0, ready - min_it->second);
      }
      role_spare = &it->second;
    }
    if (job_it->second == 0 || (role_spare != nullptr && *role_spare == 0))
      return false;
    if (!TakeFromSubGroup(j, sub_group)) return false;
    --job_it->second;
    if (role_spare != nullptr) --*role_spare;
    return true;
  }

 private:
  // A job with sub-groups keeps minSubGroups of each policy whole (and of
  // each composite of a tree, level by level): a pod beyond its
  // sub-group's size may go; one that would break a whole sub-group only
  // while the job stays satisfied without it.
  bool TakeFromSubGroup(api::JobIndex j, int32_t g) {
    const api::JobInfo& job = s_.cluster().jobs[j];
    if (g == api::kNone || job.tasks.size() == 1) return true;
    auto [it, fresh] = group_ready_.try_emplace(j);
    if (fresh) it->second = api::SubGroupsReady(s_.cluster(), job);
    std::vector<int32_t>& ready = it->second;
    // Above its size it stays whole; below, it was broken already.
    if (ready[g] != job.sub_groups[g].size) {
      --ready[g];
      return true;
    }
    --ready[g];
    if (api::SubGroupsSatisfied(job, ready)) return true;
    ++ready[g];
    return false;
  }

  const framework::Session& s_;
  std::map<api::JobIndex, int32_t> job_spare_;
  std::map<std::pair<api::JobIndex, std::string>, int32_t> role_spare_;
  std::map<api::JobIndex, std::vector<int32_t>> group_ready_;
};

// How much more may be taken from each queue without leaving it (or any
// queue above it) below its spec.guarantee: a queue's guarantee is never
// reclaimed, whatever the tiers answer. Queues the taker itself sits in
// are left out: room freed there is refilled by the taker.
class GuaranteeFloor {
 public:
  GuaranteeFloor(const framework::Session& s, const api::TaskInfo& taker)
      : s_(s), taker_queue_(s.cluster().jobs[taker.job].queue_index) {}

  // Whether `victim` may go too; Take counts it once it does.
  bool Allows(const api::TaskInfo& victim) const {
    const api::ClusterInfo& c = s_.cluster();
    const int32_t q = c.jobs[victim.job].queue_index;
    const api::Resource& request = victim.counted();
    for (int32_t at = q; at != api::kNone; at = c.queues[at].parent_index) {
      const api::Resource& guarantee = c.queues[at].guarantee;
      if (guarantee.IsZero() || api::InSubtree(c, taker_queue_, at)) continue;
      auto it = taken_.find(at);
      api::Resource left = s_.QueueHeld(at) - request;
      if (it != taken_.end()) left -= it->second;
      for (size_t id = 0; id < guarantee.size(); ++id) {
        auto rid = static_cast<api::ResourceId>(id);
        if (guarantee.Get(rid) > 0 && request.Get(rid) > 0 &&
            left.Get(rid) < guarantee.Get(rid)) {
          return false;
        }
      }
    }
    return true;
  }
  void Take(const api::TaskInfo& victim) {
    const api::ClusterInfo& c = s_.cluster();
    for (int32_t at = c.jobs[victim.job].queue_index; at != api::kNone;
         at = c.queues[at].parent_index) {
      taken_[at] += victim.counted();
    }
  }

 private:
  const framework::Session& s_;
  const int32_t taker_queue_;
  std::map<int32_t, api::Resource> taken_;
};

// Placed but not yet bound: by this cycle (allocate, backfill), or bind
// still in flight. Not a victim, as Volcano evicts only Bound or Running
// pods: evicting it would undo a placement just made (the pod bound and
// evicted in one cycle).
bool NotYetBound(const api::TaskInfo& t) {
  return t.status == api::TaskStatus::kAllocated ||
         t.status == api::TaskStatus::kBinding;
}

// `nodes`, or (in `reordered`) the same with those where the job to
// shrink first runs pods ahead of the rest (EvictableRoom::ShrinkFirst),
// so that the evictions a search makes come from that job while it has
// pods to spare: it restarts once, not once per pod taken.
const std::vector<api::NodeIndex>& ShrinkFirstOrder(
    const framework::Session& s, const std::vector<api::NodeIndex>& nodes,
    EvictableRoom* bounds, std::vector<api::NodeIndex>& reordered) {
  const api::JobIndex j =
      bounds != nullptr ? bounds->ShrinkFirst() : api::kNone;
  if (j == api::kNone) return nodes;
  const api::ClusterInfo& c = s.cluster();
  std::vector<char> holds(c.nodes.size(), 0);
  for (api::TaskIndex t : c.jobs[j].tasks) {
    const api::TaskInfo& task = c.tasks[t];
    if (api::IsReadyStatus(task.status) && task.node != api::kNone)
      holds[task.node] = 1;
  }
  reordered.clear();
  reordered.reserve(nodes.size());
  for (api::NodeIndex n : nodes) {
    if (holds[n]) reordered.push_back(n);
  }
  for (api::NodeIndex n : nodes) {
    if (!holds[n]) reordered.push_back(n);
  }
  return reordered;
}

// See FindRoom: a costly resize is not made for a higher priority.
bool EndedWholeRatherThanShrunk(const framework::Session& s,
                                const api::TaskInfo& taker,
                                const api::TaskInfo& victim,
                                const EvictableRoom* bounds) {
  const api::JobInfo& job = s.cluster().jobs[victim.job];
  return bounds != nullptr && bounds->ends_whole_gangs() &&
         job.resizing.shrink_rank > 0 &&
         job.priority < s.cluster().jobs[taker.job].priority;
}

// The job's gang floor lets none of its pods go at all (GangFloor
// starts every search from this): a gang at its minimum, or one disrupted
// only whole. Its pods are no candidates, which spares the search the
// device what-if on nodes such jobs fill.
bool LendsNoPod(const api::JobInfo& job) {
  return job.tasks.size() > 1 &&
         (job.disrupted_whole || job.ReadyCount() <= job.min_member);
}

// Victims supposed gone for the device part of a fit check
// (Session::SupposeGone), undone when dropped or when the whole goes out
// of scope: nothing of a search's what-if outlives it. Only a taker with
// claims needs it, and only victims with claims change anything.
class SupposedGone {
 public:
  SupposedGone(framework::Session& s, const api::TaskInfo& taker)
      : s_(s), active_(!taker.pod->resource_claims.empty()) {}
  ~SupposedGone() {
    for (auto it = gone_.rbegin(); it != gone_.rend(); ++it)
      s_.UnsupposeGone(*it);
  }
  SupposedGone(const SupposedGone&) = delete;
  SupposedGone& operator=(const SupposedGone&) = delete;

  void Add(api::TaskIndex t) {
    if (!active_ || s_.task(t).pod->resource_claims.empty()) return;
    s_.SupposeGone(t);
    gone_.push_back(t);
  }
  void Drop(api::TaskIndex t) {
    auto it = std::find(gone_.begin(), gone_.end(), t);
    if (it == gone_.end()) return;
    s_.UnsupposeGone(t);
    gone_.erase(it);
  }

 private:
  framework::Session& s_;
  const bool active_;
  std::vector<api::TaskIndex> gone_;
};

}  // namespace

EvictableRoom::EvictableRoom(const framework::Session& s,
                             std::function<bool(int32_t queue)> lends)
    : s_(s), lends_(std::move(lends)), bounds_(s.cluster().nodes.size()) {}

void EvictableRoom::Grew(int32_t queue, bool lent) {
  if (!lent && lends_(queue)) ++epoch_;
}

bool EvictableRoom::MayFit(const api::TaskInfo& task, api::NodeIndex n) {
  const api::NodeInfo& node = s_.cluster().nodes[n];
  Bound& b = bounds_[n];
  if (!b.known || b.node_generation != node.generation() ||
      b.discards != s_.discards() || b.epoch != epoch_) {
    b.room = node.FutureIdle();
    for (api::TaskIndex t : node.tasks()) {
      const api::TaskInfo& other = s_.cluster().tasks[t];
      if (!api::HoldsShare(other.status) ||
          other.status == api::TaskStatus::kPipelined || NotYetBound(other) ||
          !other.pod->preemptable) {
        continue;
      }
      const api::JobInfo& job = s_.cluster().jobs[other.job];
      if (LendsNoPod(job) || !lends_(job.queue_index)) {
        continue;
      }
      b.room += other.request();
    }
    b.known = true;
    b.epoch = epoch_;
    b.node_generation = node.generation();
    b.discards = s_.discards();
  }
  return task.request().FitsIn(b.room);
}

api::JobIndex EvictableRoom::ShrinkFirst() {
  const api::ClusterInfo& c = s_.cluster();
  if (!shrink_order_known_) {
    shrink_order_known_ = true;
    for (const api::JobInfo& job : c.jobs) {
      if (job.elastic() && job.resizing.shrink_rank > 0 &&
          job.ReadyCount() > job.min_member) {
        shrink_order_.push_back(job.index);
      }
    }
    std::sort(shrink_order_.begin(), shrink_order_.end(),
              [&c](api::JobIndex a, api::JobIndex b) {
                return c.jobs[a].resizing.shrink_rank <
                       c.jobs[b].resizing.shrink_rank;
              });
  }
  while (next_to_shrink_ < shrink_order_.size()) {
    const api::JobInfo& job = c.jobs[shrink_order_[next_to_shrink_]];
    if (job.ReadyCount() > job.min_member) return job.index;
    ++next_to_shrink_;
  }
  return api::kNone;
}

bool MayBeVictimOf(const api::TaskInfo& victim, bool taker_best_effort) {
  if (!victim.pod->preemptable) return false;
  // A pod that asks for nothing takes room only from pods that ask for
  // nothing either.
  return !taker_best_effort || victim.best_effort();
}

std::optional<Room> FindRoom(
    framework::Session& s, const api::TaskInfo& task,
    const std::function<bool(const api::TaskInfo&)>& eligible,
    const std::function<
        std::vector<api::TaskIndex>(const std::vector<api::TaskIndex>&)>& ask,
    const std::vector<api::NodeIndex>* fits_without_eviction,
    const FreedEnough& freed_enough, EvictableRoom* bounds,
    const std::vector<api::NodeIndex>* within) {
  const std::vector<api::NodeIndex>& nodes = s.Feasible(task.placement()).nodes;
  auto outside = [within](api::NodeIndex n) {
    return within != nullptr &&
           !std::binary_search(within->begin(), within->end(), n);
  };
  if (!freed_enough || freed_enough(api::Resource())) {
    for (api::NodeIndex n :
         fits_without_eviction != nullptr ? *fits_without_eviction : nodes) {
      if (outside(n)) continue;
      if (s.FitsOnceReleased(task, s.node(n), s.node(n).FutureIdle()))
        return Room{n, {}};
    }
  }
  const bool taker_best_effort = task.best_effort();
  std::vector<api::NodeIndex> reordered;
  for (api::NodeIndex n : ShrinkFirstOrder(s, nodes, bounds, reordered)) {
    if (outside(n)) continue;
    if (bounds != nullptr && !bounds->MayFit(task, n)) continue;
    const api::NodeInfo& node = s.node(n);
    // Cheap bound first: even evicting every eligible task may not do.
    std::vector<api::TaskIndex> candidates;
    api::Resource room = node.FutureIdle();
    api::Resource most = room;
    for (api::TaskIndex t : node.tasks()) {
      const api::TaskInfo& other = s.task(t);
      // A job never evicts its own pods to place its own, unless for a
      // pod of higher priority.
      bool own =
          other.job == task.job && other.pod->priority >= task.pod->priority;
      if (!api::HoldsShare(other.status) ||
          other.status == api::TaskStatus::kPipelined || NotYetBound(other) ||
          own || !MayBeVictimOf(other, taker_best_effort) ||
          LendsNoPod(s.job(other.job)) || !eligible(other) ||
          EndedWholeRatherThanShrunk(s, task, other, bounds)) {
        continue;
      }
      candidates.push_back(t);
      most += other.request();
    }
    if (candidates.empty() || (freed_enough && !freed_enough(most - room))) {
      continue;
    }
    {
      SupposedGone all(s, task);
      for (api::TaskIndex t : candidates) all.Add(t);
      if (!s.FitsOnceReleased(task, node, most)) continue;
    }
    SortByExpendability(s, candidates);
    std::vector<api::TaskIndex> allowed = ask(candidates);
    SortByExpendability(s, allowed);
    Room plan{n, {}};
    GangFloor floor(s);
    GuaranteeFloor guaranteed(s, task);
    api::Resource freed;  // only kept when `freed_enough` asks about it
    SupposedGone gone(s, task);
    auto enough = [&] {
      return s.FitsOnceReleased(task, node, room) &&
             (!freed_enough || freed_enough(freed));
    };
    for (api::TaskIndex v : allowed) {
      if (enough()) break;
      if (!guaranteed.Allows(s.task(v)) ||
          !floor.Take(s.task(v).job, s.task(v).pod->role,
                      s.task(v).sub_group)) {
        continue;
      }
      guaranteed.Take(s.task(v));
      room += s.task(v).request();
      if (freed_enough) freed += s.task(v).request();
      gone.Add(v);
      plan.victims.push_back(v);
    }
    if (!enough()) {
      if (bounds != nullptr) bounds->Forget(n);
      continue;
    }
    if (!task.pod->resource_claims.empty()) {
      // Devices do not add up like cpu: a victim's claims free nothing
      // while a staying pod shares them, nor anything of a class the
      // task does not ask for. Each victim, least expendable first,
      // stays if the task fits without it (as kube-scheduler reprieves).
      for (size_t i = plan.victims.size(); i-- > 0;) {
        const api::TaskIndex v = plan.victims[i];
        gone.Drop(v);
        room -= s.task(v).request();
        if (freed_enough) freed -= s.task(v).request();
        if (enough()) {
          plan.victims.erase(plan.victims.begin() + i);
          continue;
        }
        gone.Add(v);
        room += s.task(v).request();
        if (freed_enough) freed += s.task(v).request();
      }
    }
    return plan;
  }
  return std::nullopt;
}

std::optional<Room> FindWholeGang(
    framework::Session& s, const api::TaskInfo& task,
    const std::function<bool(const api::TaskInfo&)>& eligible,
    const std::function<
        std::vector<api::TaskIndex>(const std::vector<api::TaskIndex>&)>& ask,
    const FreedEnough& freed_enough, bool equal_priority) {
  std::set<api::JobIndex> refused;  // the tiers did not allow all of it
  const int32_t taker_priority = s.job(task.job).priority;
  const bool taker_best_effort = task.best_effort();
  for (api::NodeIndex n : s.Feasible(task.placement()).nodes) {
    const api::NodeInfo& node = s.node(n);
    std::map<api::JobIndex, api::Resource> on_node;
    for (api::TaskIndex t : node.tasks()) {
      const api::TaskInfo& other = s.task(t);
      // Only a higher priority ends a whole job (or, when asked, an equal
      // one the tiers put after the taker).
      const int32_t other_priority = s.job(other.job).priority;
      if (other.job == task.job ||
          (equal_priority ? other_priority > taker_priority
                          : other_priority >= taker_priority) ||
          !api::HoldsShare(other.status) ||
          other.status == api::TaskStatus::kPipelined || !eligible(other)) {
        continue;
      }
      on_node[other.job] += other.request();
    }
    std::vector<api::JobIndex> jobs;
    for (const auto& [j, held] : on_node) {
      if (refused.count(j) > 0) continue;
      // The devices its pods' claims give back too, once all are gone.
      SupposedGone gone(s, task);
      for (api::TaskIndex t : s.job(j).tasks) {
        const api::TaskInfo& member = s.task(t);
        if (task.pod->resource_claims.empty()) break;
        if (api::HoldsShare(member.status) &&
            member.status != api::TaskStatus::kPipelined)
          gone.Add(t);
      }
      if (s.FitsOnceReleased(task, node, node.FutureIdle() + held))
        jobs.push_back(j);
    }
    // KEP-5710: of two the same size, the one started last (its earliest
    // pod the latest) goes first. Worked out only for jobs that tie on
    // the rest: thousands of candidates on a full cluster mostly do not.
    std::map<api::JobIndex, absl::Time> started;
    auto start_of = [&](api::JobIndex j) {
      auto [it, fresh] = started.try_emplace(j);
      if (fresh) it->second = EarliestReady(s.cluster(), s.job(j));
      return it->second;
    };
    std::stable_sort(jobs.begin(), jobs.end(),
                     [&s, &start_of](api::JobIndex a, api::JobIndex b) {
                       if (s.job(a).priority != s.job(b).priority)
                         return s.job(a).priority < s.job(b).priority;
                       if (s.job(a).tasks.size() != s.job(b).tasks.size())
                         return s.job(a).tasks.size() < s.job(b).tasks.size();
                       return start_of(a) > start_of(b);
                     });
    for (api::JobIndex j : jobs) {
      std::vector<api::TaskIndex> all;
      api::Resource freed;
      bool placed_now = false;  // ending it would undo this cycle's work
      for (api::TaskIndex t : s.job(j).tasks) {
        const api::TaskInfo& member = s.task(t);
        placed_now = placed_now || NotYetBound(member);
        if (api::HoldsShare(member.status) &&
            member.status != api::TaskStatus::kPipelined) {
          all.push_back(t);
          freed += member.request();
        }
      }
      if (placed_now || (freed_enough && !freed_enough(freed))) continue;
      bool every_one =
          std::all_of(all.begin(), all.end(),
                      [&](api::TaskIndex t) {
                        return MayBeVictimOf(s.task(t), taker_best_effort) &&
                               eligible(s.task(t));
                      }) &&
          ask(all).size() == all.size();
      if (every_one) return Room{n, std::move(all)};
      refused.insert(j);
    }
  }
  return std::nullopt;
}

}  // namespace shoal::actions
