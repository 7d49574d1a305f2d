#include "scheduler/actions/consolidate.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "scheduler/actions/pending_jobs.h"
#include "scheduler/actions/victims.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/statement.h"

namespace shoal::actions {
namespace {

using framework::Session;
using framework::Statement;

struct Limits {
  int moves_per_cycle = 8;
  int moves_per_job = 4;
  absl::Duration window = absl::Minutes(10);
  absl::Duration hold = absl::Minutes(2);
};

// Running, and not on its way out.
bool Runs(const api::TaskInfo& t) {
  return api::OccupiesNode(t.status) && t.status != api::TaskStatus::kReleasing;
}

// Pods that leave together: one pod above its job's minimum, or every
// running pod of a job that has none to spare.
struct Unit {
  api::JobIndex job;
  std::vector<api::TaskIndex> tasks;
  api::Resource freed_here;  // what leaving frees on the node looked at
};

class Consolidate : public framework::Action {
 public:
  explicit Consolidate(Limits limits) : limits_(limits) {}

  void Execute(Session& s) override {
    Forget(s.cluster().now);
    int budget = limits_.moves_per_cycle;
    PendingJobs jobs(s, [&s](api::JobInfo& job) {
      std::string why;
      return job.PendingCount() > 0 && s.JobAdmitted(job) &&
             s.JobSchedulable(job, &why) && s.PodsPlaceable(job, &why) &&
             s.Starving(job);
    });
    for (api::JobIndex j = jobs.Next(); j != api::kNone && budget > 0;
         j = jobs.Next()) {
      budget -= MakeRoom(s, s.job(j), budget);
    }
  }

 private:
  // Moves at most `budget` pods so that the job's gang fits; returns how
  // many it moved (0: nothing changed).
  int MakeRoom(Session& s, api::JobInfo& job, int budget) {
    std::vector<api::TaskIndex> pending;
    for (api::TaskIndex t : job.tasks) {
      if (s.task(t).status == api::TaskStatus::kPending) pending.push_back(t);
    }
    std::stable_sort(pending.begin(), pending.end(),
                     [&s](api::TaskIndex a, api::TaskIndex b) {
                       return s.TaskBefore(s.task(a), s.task(b));
                     });
    if (!FitsFreeRoomInSum(s, job, pending)) return 0;
    Statement stmt(s);
    Plan plan;
    for (api::TaskIndex t : pending) {
      if (!s.Starving(job)) break;
      const api::TaskInfo& task = s.task(t);
      if (job.queue_index == api::kNone ||
          !s.Call<framework::Allocatable>(s.cluster().queues[job.queue_index],
                                          task)) {
        return 0;
      }
      std::optional<api::NodeIndex> node = FreeNode(s, task);
      if (!node.has_value()) node = MoveFor(s, stmt, task, budget, plan);
      if (!node.has_value()) return 0;  // the statement undoes the rest
      stmt.Pipeline(t, *node);
      plan.gang_room[*node] += task.request();
    }
    if (plan.moves == 0 || !s.Call<framework::JobPipelined>(job)) return 0;
    // What the gang's PodGroup then says is the gang plugin's word at
    // the session's close: its pods wait for room that evictions free.
    stmt.Commit();
    Remember(s, job, plan);
    return plan.moves;
  }

  // What one gang's plan moved and where its pods go.
  struct Plan {
    int moves = 0;
    std::map<api::JobIndex, int> moved_of_job;
    std::map<api::NodeIndex, api::Resource> gang_room;
    std::vector<std::pair<api::TaskIndex, api::NodeIndex>> moved;  // to
  };

  // Whether the room the gang still needs is free somewhere in sum: if it
  // is not, no re-packing helps (preempt's or reclaim's turn).
  static bool FitsFreeRoomInSum(const Session& s, const api::JobInfo& job,
                                const std::vector<api::TaskIndex>& pending) {
    int need = job.min_member - job.ScheduledCount() -
               job.Count(api::TaskStatus::kPipelined);
    need = std::max(1, std::min<int>(need, pending.size()));
    api::Resource asked;
    for (int i = 0; i < need; ++i)
      asked += s.cluster().tasks[pending[i]].request();
    api::Resource free;
    for (const api::NodeInfo& n : s.cluster().nodes) {
      api::Resource room = n.FutureIdle();
      room.MaxWith(api::Resource());
      free += room;
    }
    return asked.FitsIn(free);
  }

  // A node where the task fits without moving anything (room earlier
  // moves of this plan freed, or left by allocate for other reasons).
  static std::optional<api::NodeIndex> FreeNode(Session& s,
                                                const api::TaskInfo& task) {
    std::optional<api::NodeIndex> best;
    double best_score = 0;
    for (api::NodeIndex n : s.Feasible(task.placement()).nodes) {
      const api::NodeInfo& node = s.node(n);
      if (!s.FitsOnceReleased(task, node, node.FutureIdle())) continue;
      const double score = s.Score(task, node) + s.DomainScore(task, node);
      if (!best.has_value() || score > best_score) {
        best = n;
        best_score = score;
      }
    }
    return best;
  }

  // The node where the fewest moves make room for `task`, the moves made
  // in `stmt`; nullopt when no node within the budget can.
  std::optional<api::NodeIndex> MoveFor(Session& s, Statement& stmt,
                                        const api::TaskInfo& task, int budget,
                                        Plan& plan) {
    constexpr size_t kNodesTried = 16;
    struct Candidate {
      api::NodeIndex node;
      std::vector<Unit> units;
      int pods = 0;
    };
    std::vector<Candidate> candidates;
    for (api::NodeIndex n : s.Feasible(task.placement()).nodes) {
      Candidate c{n, UnitsToMove(s, task, n, budget - plan.moves, plan)};
      if (c.units.empty()) continue;
      for (const Unit& u : c.units) c.pods += static_cast<int>(u.tasks.size());
      candidates.push_back(std::move(c));
    }
    std::stable_sort(
        candidates.begin(), candidates.end(),
        [](const Candidate& a, const Candidate& b) { return a.pods < b.pods; });
    if (candidates.size() > kNodesTried) candidates.resize(kNodesTried);
    for (const Candidate& c : candidates) {
      const size_t mark = stmt.Mark();
      const Plan before = plan;
      bool placed_all = true;
      for (const Unit& u : c.units) {
        for (api::TaskIndex v : u.tasks) {
          std::optional<api::NodeIndex> to = ReplacementNode(s, v, c.node);
          if (!to.has_value()) {
            placed_all = false;
            break;
          }
          stmt.Move(v, *to, "consolidate", task.pod->Key());
          plan.moved.emplace_back(v, *to);
          ++plan.moves;
          ++plan.moved_of_job[u.job];
        }
        if (!placed_all) break;
      }
      const api::NodeInfo& node = s.node(c.node);
      if (placed_all && s.FitsOnceReleased(task, node, node.FutureIdle()))
        return c.node;
      stmt.DiscardSince(mark);
      plan = before;
    }
    return std::nullopt;
  }

  // The fewest pods on node `n` whose leaving makes `task` fit there
  // (empty: none will, within `budget` pods).
  std::vector<Unit> UnitsToMove(const Session& s, const api::TaskInfo& task,
                                api::NodeIndex n, int budget,
                                const Plan& plan) const {
    const api::NodeInfo& node = s.cluster().nodes[n];
    api::Resource short_of = task.request() - node.FutureIdle();
    if (const api::Resource* promised = s.PromisedToOthers(task, node))
      short_of += *promised;
    short_of.MaxWith(api::Resource());
    if (short_of.IsZero()) return {};  // not room it lacks: ports, rules...
    // A job's spare pods one by one first; then whole jobs where that
    // frees more of what is short.
    for (bool whole_jobs : {false, true}) {
      std::vector<Unit> chosen =
          Cover(s, short_of, Movable(s, task, n, plan, whole_jobs), budget);
      if (!chosen.empty()) return chosen;
    }
    return {};
  }

  // The fewest of `units` that free `short_of` between them, within
  // `budget` pods (empty: they do not).
  static std::vector<Unit> Cover(const Session& s,
                                 const api::Resource& short_of,
                                 std::vector<Unit> units, int budget) {
    // Most of what is short first, per pod moved.
    const api::Resource& total = s.cluster().total_allocatable;
    auto worth = [&](const Unit& u) {
      api::Resource useful = u.freed_here;
      useful.MinWith(short_of);
      return useful.DominantShare(total) / u.tasks.size();
    };
    std::stable_sort(
        units.begin(), units.end(),
        [&](const Unit& a, const Unit& b) { return worth(a) > worth(b); });
    std::vector<Unit> chosen;
    api::Resource freed;
    int pods = 0;
    for (Unit& u : units) {
      if (short_of.AllLessEqual(freed)) break;
      if (worth(u) <= 0) continue;
      pods += static_cast<int>(u.tasks.size());
      if (pods > budget) return {};
      freed += u.freed_here;
      chosen.push_back(std::move(u));
    }
    if (!short_of.AllLessEqual(freed)) return {};
    // Drop any that those chosen after it make unneeded.
    for (size_t i = chosen.size(); i-- > 0;) {
      api::Resource without = freed - chosen[i].freed_here;
      if (short_of.AllLessEqual(without)) {
        freed = without;
        chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    return chosen;
  }

  // Units on node `n` that may move for `task`: for each job, its pods
  // here it can spare, one by one, or (`whole_jobs`, for a job that
  // cannot spare them all) every running pod of it at once.
  std::vector<Unit> Movable(const Session& s, const api::TaskInfo& task,
                            api::NodeIndex n, const Plan& plan,
                            bool whole_jobs) const {
    const api::JobInfo& taker = s.cluster().jobs[task.job];
    std::map<api::JobIndex, std::vector<api::TaskIndex>> here;
    for (api::TaskIndex v : s.cluster().nodes[n].tasks()) {
      const api::TaskInfo& victim = s.cluster().tasks[v];
      if (victim.job != task.job && Runs(victim) &&
          MayMove(s, victim, taker, task)) {
        here[victim.job].push_back(v);
      }
    }
    std::vector<Unit> units;
    for (auto& [j, tasks] : here) {
      const api::JobInfo& job = s.cluster().jobs[j];
      auto moved = plan.moved_of_job.find(j);
      const int moved_now =
          moved == plan.moved_of_job.end() ? 0 : moved->second;
      const int allowed =
          limits_.moves_per_job - MovedRecently(job) - moved_now;
      if (allowed <= 0) continue;
      int running = 0;
      bool all_movable = true;
      std::vector<api::TaskIndex> whole;
      for (api::TaskIndex t : job.tasks) {
        const api::TaskInfo& member = s.cluster().tasks[t];
        if (!Runs(member)) continue;
        ++running;
        whole.push_back(t);
        all_movable = all_movable && MayMove(s, member, taker, task);
      }
      const int spare =
          job.disrupted_whole ? 0 : std::max(0, running - job.min_member);
      const bool whole_may_move =
          all_movable && static_cast<int>(whole.size()) <= allowed;
      if (whole_jobs && spare < static_cast<int>(tasks.size()) &&
          whole_may_move) {
        api::Resource freed;
        for (api::TaskIndex t : tasks) freed += s.cluster().tasks[t].request();
        units.push_back({j, std::move(whole), freed});
        continue;
      }
      for (int i = 0;
           i < static_cast<int>(tasks.size()) && i < spare && i < allowed;
           ++i) {
        units.push_back({j, {tasks[i]}, s.cluster().tasks[tasks[i]].request()});
      }
    }
    return units;
  }

  bool MayMove(const Session& s, const api::TaskInfo& victim,
               const api::JobInfo& taker, const api::TaskInfo& task) const {
    const api::JobInfo& job = s.cluster().jobs[victim.job];
    const api::PodInfo& pod = *victim.pod;
    return job.source != api::GroupSource::kSinglePod &&
           job.priority <= taker.priority && !pod.critical &&
           MayBeVictimOf(victim, task.best_effort()) &&
           pod.resource_claims.empty() && pod.volume_claims.empty() &&
           pod.extended_claim.empty() && victim.topology_class == 0 &&
           !moved_pods_.contains(pod.Key());
  }

  // Where the pod made in place of `v` can go: not `from` (the room being
  // made), the node it fits tightest, so moves do not scatter room again.
  static std::optional<api::NodeIndex> ReplacementNode(Session& s,
                                                       api::TaskIndex v,
                                                       api::NodeIndex from) {
    const api::TaskInfo& task = s.task(v);
    const api::Resource& total = s.cluster().total_allocatable;
    std::optional<api::NodeIndex> best;
    double least_left = 0;
    for (api::NodeIndex n : s.Feasible(task.placement()).nodes) {
      if (n == from) continue;
      const api::NodeInfo& node = s.node(n);
      if (!s.Fits(task, node, node.FutureIdle())) continue;
      api::Resource left = node.FutureIdle() - task.request();
      const double share = left.DominantShare(total);
      if (!best.has_value() || share < least_left) {
        best = n;
        least_left = share;
      }
    }
    return best;
  }

  int MovedRecently(const api::JobInfo& job) const {
    auto it = moves_of_job_.find(job.Key());
    return it == moves_of_job_.end() ? 0 : static_cast<int>(it->second.size());
  }

  // Holds the room across cycles and remembers what moved.
  void Remember(Session& s, const api::JobInfo& job, const Plan& plan) {
    const absl::Time now = s.cluster().now;
    const absl::Time until = now + limits_.hold;
    for (const auto& [n, room] : plan.gang_room)
      s.PromiseRoom(job, s.node(n), room, until);
    for (const auto& [v, to] : plan.moved) {
      const api::TaskInfo& task = s.task(v);
      const api::JobInfo& moved_job = s.job(task.job);
      s.PromiseRoom(moved_job, s.node(to), task.request(), until);
      moved_pods_[task.pod->Key()] = now;
      moves_of_job_[moved_job.Key()].push_back(now);
    }
  }

  // Forgets moves older than the window.
  void Forget(absl::Time now) {
    const absl::Time since = now - limits_.window;
    for (auto it = moved_pods_.begin(); it != moved_pods_.end();) {
      if (it->second < since) {
        moved_pods_.erase(it++);
      } else {
        ++it;
      }
    }
    for (auto it = moves_of_job_.begin(); it != moves_of_job_.end();) {
      auto& times = it->second;
      times.erase(std::remove_if(times.begin(), times.end(),
                                 [since](absl::Time t) { return t < since; }),
                  times.end());
      if (times.empty()) {
        moves_of_job_.erase(it++);
      } else {
        ++it;
      }
    }
  }

  const Limits limits_;
  // Across cycles: when each pod (ns/name) last moved, and each job's
  // moves within the window.
  absl::flat_hash_map<std::string, absl::Time> moved_pods_;
  absl::flat_hash_map<std::string, std::vector<absl::Time>> moves_of_job_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Action>> NewConsolidate(
    const framework::Arguments& args) {
  Limits limits;
  auto count = [&args](const char* key, int fallback,
                       int* out) -> absl::Status {
    auto v = args.GetInt(key, fallback);
    if (!v.ok()) return v.status();
    if (*v < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          args.owner(), ": ", key, " must be at least 1, got ", *v));
    }
    *out = static_cast<int>(*v);
    return absl::OkStatus();
  };
  if (auto st = count("maxMovesPerCycle", 8, &limits.moves_per_cycle); !st.ok())
    return st;
  if (auto st = count("maxMovesPerJob", 4, &limits.moves_per_job); !st.ok())
    return st;
  int window = 600, hold = 120;
  if (auto st = count("windowSeconds", 600, &window); !st.ok()) return st;
  if (auto st = count("holdSeconds", 120, &hold); !st.ok()) return st;
  limits.window = absl::Seconds(window);
  limits.hold = absl::Seconds(hold);
  return std::make_unique<Consolidate>(limits);
}

}  // namespace shoal::actions
