#include "plugins/elastic/elastic.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "plugins/elastic/memory.h"
#include "plugins/elastic/resize_rule.h"
#include "plugins/elastic/sharing.h"
#include "scheduler/framework/session.h"

namespace shoal::plugins::elastic {
namespace {

using framework::Session;

constexpr char kWaitsItsTurn[] =
    "oldest-first: its resize costs a restart, so it starts when all its pods "
    "fit in the room older jobs leave, or with its minimum once it has "
    "waited the fairness bound";

struct Settings {
  Sharing sharing = Sharing::kEven;
  int32_t resize_cost_seconds = 0;  // for jobs whose PodGroup does not say
  int32_t hold_seconds = -1;        // -1: each job's own resize cost
  int32_t fairness_bound_seconds = 600;
  int32_t expected_room_seconds = 300;
  double throughput_margin = 0.1;  // share: throughput's hysteresis
};

// Each elastic job's target size, worked out when the session opens.
class ElasticSession : public framework::PluginSession {
 public:
  ElasticSession(Memory& memory, const Settings& settings)
      : memory_(memory), settings_(settings) {}

  // Reads the memory and the snapshot, then registers the callbacks,
  // which point into this object.
  void Register(Session& s) {
    const api::ClusterInfo& c = s.cluster();
    {
      // When each running pod was placed; pods first seen running are old.
      std::lock_guard<std::mutex> lock(memory_.mu);
      cycle_ = memory_.cycle + 1;
      expected_room_seconds_ = memory_.ExpectedRoomAfter(c);
      for (const api::TaskInfo& t : c.tasks) {
        if (!api::HoldsShare(t.status)) continue;
        auto it = memory_.pods.find(t.pod->uid);
        pods_[t.pod->uid] = it == memory_.pods.end() ? PodMemory{} : it->second;
      }
      jobs_.resize(c.jobs.size());
      for (const api::JobInfo& job : c.jobs) {
        if (job.source == api::GroupSource::kSinglePod) continue;
        auto it = memory_.jobs.find(job.Key());
        if (it != memory_.jobs.end() && it->second.uid == job.uid) {
          jobs_[job.index] = it->second;
        } else {
          jobs_[job.index] = FirstSeen(job);
        }
      }
    }
    LearnScaling(s);
    for (const api::JobInfo& job : c.jobs) {
      api::JobInfo::Resizing& r = s.job(job.index).resizing;
      r.cost_seconds = CostOf(job);
      ShowResizes(jobs_[job.index], r);
    }
    RankShrinks(s);

    // Between two running elastic jobs, the smaller share grows first
    // (oldest-first: the older; throughput: the one whose next pod adds
    // more per unit of its dominant resource; job-order: the other
    // plugins' call, this one answers nothing).
    s.Register<framework::JobOrder>(
        [this, &s](const api::JobInfo& a, const api::JobInfo& b) {
          if (settings_.sharing == Sharing::kJobOrder || !a.elastic() ||
              !b.elastic() || Placed(a) < a.min_member ||
              Placed(b) < b.min_member) {
            return 0;
          }
          if (settings_.sharing == Sharing::kOldestFirst) {
            absl::Time sa = jobs_[a.index].started_at;
            absl::Time sb = jobs_[b.index].started_at;
            return sa < sb ? -1 : (sa > sb ? 1 : 0);
          }
          if (settings_.sharing == Sharing::kThroughput) {
            double ga = NextPodScore(s, a), gb = NextPodScore(s, b);
            if (ga != gb) return ga > gb ? -1 : 1;
          }
          double sa = Share(s, a), sb = Share(s, b);
          return sa < sb ? -1 : (sa > sb ? 1 : 0);
        });
    s.Register<framework::Allocatable>(
        [this, &s](const api::QueueInfo&, const api::TaskInfo& t) {
          const api::JobInfo& job = s.cluster().jobs[t.job];
          if (!job.elastic() || Placed(job) < job.min_member) return true;
          return Placed(job) < Targets(s)[t.job];
        });
    // Oldest-first: a job whose resize costs a restart starts in its turn,
    // whole (sharing.h); until then it waits, saying so.
    s.Register<framework::JobValid>(
        [this, &s](const api::JobInfo& job, std::string* why) {
          if (settings_.sharing != Sharing::kOldestFirst || !job.elastic() ||
              computing_) {
            return true;
          }
          Targets(s);
          if (waiting_turn_.count(job.index) == 0) return true;
          if (why != nullptr) *why = kWaitsItsTurn;
          return false;
        });
    s.Register<framework::JobStarving>([this, &s](const api::JobInfo& job) {
      if (!job.elastic() || Placed(job) < job.min_member)
        return false;  // gang's call
      return job.PendingCount() > 0 && Placed(job) < Targets(s)[job.index];
    });
    // A job short of its minimum (a gang, a lone pod) may take any elastic
    // job's pods: elastic pods only ever borrow room no minimum wants
    // (under job-order only pods beyond their job's target, see below).
    // Growth takes only from jobs above their target, and not pods placed
    // this cycle or the last. Other victims are the other plugins' call.
    s.Register<framework::Preemptable>(
        [this, &s](const api::TaskInfo& taker,
                   const std::vector<api::TaskIndex>& candidates) {
          const api::JobInfo& tj = s.cluster().jobs[taker.job];
          bool growing = tj.elastic() && Placed(tj) >= tj.min_member;
          // Job-order: the targets already hold every minimum, so a job
          // short of its minimum takes only pods beyond some job's target
          // too (not the first jobs' pods, which the order gave them).
          const bool only_surplus =
              growing || settings_.sharing == Sharing::kJobOrder;
          std::vector<api::TaskIndex> victims;
          const std::vector<int32_t>& target = Targets(s);
          std::vector<int32_t> over(target.size(), -1);
          for (api::TaskIndex c : candidates) {
            const api::TaskInfo& v = s.cluster().tasks[c];
            const api::JobInfo& vj = s.cluster().jobs[v.job];
            if (v.job == taker.job || !vj.elastic()) continue;
            if (only_surplus) {
              if (growing && Young(v)) continue;
              if (over[v.job] < 0)
                over[v.job] = std::max(0, Placed(vj) - target[v.job]);
              if (over[v.job] == 0) continue;
              --over[v.job];
            }
            victims.push_back(c);
          }
          return framework::Victims(std::move(victims));
        });
    s.AddEventHandler({[this, &s](const api::TaskInfo& t) {
                         const api::JobInfo& job = s.cluster().jobs[t.job];
                         PodMemory placed{cycle_, s.cluster().now,
                                          Placed(job) > job.min_member,
                                          JobId(job.uid)};
                         pods_.try_emplace(t.pod->uid, std::move(placed));
                       },
                       nullptr});
  }

  // Publishes the targets and the resizes, and remembers this cycle's
  // placements and sizes for the next.
  void OnSessionClose(Session& s) override {
    const std::vector<int32_t>& target = Targets(s);
    for (api::JobIndex j = 0;
         j < static_cast<api::JobIndex>(s.cluster().jobs.size()); ++j) {
      s.job(j).elastic_target = target[j];
    }
    std::lock_guard<std::mutex> lock(memory_.mu);
    memory_.cycle = cycle_;
    memory_.pods = std::move(pods_);
    memory_.set_expected_room_seconds(expected_room_seconds_);
    for (const api::JobInfo& job : s.cluster().jobs) {
      if (job.source != api::GroupSource::kSinglePod)
        memory_.jobs.try_emplace(job.Key(), jobs_[job.index]);
    }
    memory_.RecordSizes(s.cluster());
    // The scaling logs of jobs the cluster still has, as this cycle saw
    // them.
    for (auto it = memory_.scaling.begin(); it != memory_.scaling.end();) {
      if (present_.count(it->first) == 0) {
        memory_.scaling.erase(it++);
      } else {
        ++it;
      }
    }
    for (auto& [uid, log] : scaling_) memory_.scaling[uid] = std::move(log);
    for (const api::JobInfo& job : s.cluster().jobs) {
      if (job.source == api::GroupSource::kSinglePod) continue;
      auto it = memory_.jobs.find(job.Key());
      if (it != memory_.jobs.end())
        ShowResizes(it->second, s.job(job.index).resizing);
    }
  }

 private:
  // What the status, metrics and explain show of a job's resizes.
  static void ShowResizes(const JobMemory& m, api::JobInfo::Resizing& r) {
    r.count = m.resizes;
    r.last = m.resizes > 0 ? m.changed : absl::InfinitePast();
  }

  // A job this plugin has not seen close a cycle: running at the size the
  // session opens with, since some time unknown (no hold), so that what
  // this cycle changes counts as a resize.
  static JobMemory FirstSeen(const api::JobInfo& job) {
    JobMemory m;
    m.uid = job.uid;
    if (Runs(job)) {
      m.started = true;
      m.size = Placed(job);
      m.started_at = job.created;
    }
    return m;
  }

  int32_t CostOf(const api::JobInfo& job) const {
    return job.resize_cost_seconds >= 0 ? job.resize_cost_seconds
                                        : settings_.resize_cost_seconds;
  }

  double Share(const Session& s, const api::JobInfo& job) const {
    return s.cluster().Held(job).DominantShare(s.cluster().total_allocatable);
  }

  // Throughput: what the job's next pod adds per unit of the dominant
  // share one of its pods takes (sharing.h), at the size it has now.
  double NextPodScore(const Session& s, const api::JobInfo& job) const {
    if (job.tasks.empty()) return 0;
    Grower g;
    g.pod = s.cluster().tasks[job.tasks.front()].request();
    g.curve = &job.throughput;
    g.extra = Placed(job);
    return NextScore(g, s.cluster().total_allocatable, 0);
  }

  // Each elastic job that reports its progress (JobInfo::progress) shows
  // its scaling log (learned_curve.h) this cycle's report and the pods it
  // runs; once the log has measured a size, the job is allocated by the
  // learned curve (over its declared one), and explain says so. The logs
  // are copies until the session closes.
  void LearnScaling(Session& s) {
    const api::ClusterInfo& c = s.cluster();
    std::lock_guard<std::mutex> lock(memory_.mu);
    for (const api::JobInfo& job : c.jobs) {
      auto it = memory_.scaling.find(job.uid);
      if (it != memory_.scaling.end()) present_.insert(job.uid);
      if (job.progress < 0 || !job.elastic()) continue;
      ScalingLog log = it == memory_.scaling.end() ? ScalingLog() : it->second;
      int32_t running = 0;
      for (api::TaskIndex t : job.tasks) {
        const api::TaskStatus status = c.tasks[t].status;
        if (api::HoldsShare(status) && status != api::TaskStatus::kPipelined)
          ++running;
      }
      log.Observe(c.now, job.progress, running);
      Curve learned = log.Learned(job.throughput, job.ValidCount());
      if (!learned.empty()) {
        api::JobInfo& j = s.job(job.index);
        j.throughput = std::move(learned);
        j.throughput_source =
            absl::StrCat("learned from shoal.dev/progress at ",
                         log.MeasuredSizes(), " pods");
        VLOG(2) << "elastic: job " << job.Key() << " scales "
                << FormatCurve(j.throughput) << ", " << j.throughput_source;
      }
      scaling_[job.uid] = std::move(log);
    }
  }

  // The order in which evictions that must shrink running jobs take from
  // those whose resize costs something (JobInfo::resizing.shrink_rank):
  // the cheapest first; a job that changed within its hold last (it just
  // paid); then the one that changed (or started) least recently, which
  // is also the nearest its end: it runs narrow for the shortest time.
  void RankShrinks(Session& s) {
    const api::ClusterInfo& c = s.cluster();
    std::vector<api::JobIndex> ranked;
    for (const api::JobInfo& job : c.jobs) {
      if (job.elastic() && CostOf(job) > 0 && jobs_[job.index].started)
        ranked.push_back(job.index);
    }
    auto in_hold = [&](api::JobIndex j) {
      return c.now - jobs_[j].changed < absl::Seconds(HoldOf(c.jobs[j]));
    };
    std::sort(ranked.begin(), ranked.end(),
              [&](api::JobIndex a, api::JobIndex b) {
                const int32_t ca = CostOf(c.jobs[a]), cb = CostOf(c.jobs[b]);
                if (ca != cb) return ca < cb;
                if (in_hold(a) != in_hold(b)) return in_hold(b);
                if (jobs_[a].changed != jobs_[b].changed)
                  return jobs_[a].changed < jobs_[b].changed;
                return a < b;
              });
    for (size_t i = 0; i < ranked.size(); ++i)
      s.job(ranked[i]).resizing.shrink_rank = static_cast<int32_t>(i + 1);
  }

  // The targets, worked out when first asked: after enqueue has admitted
  // this cycle's jobs, so that a job starting now gets its share at once
  // (a start costs no restart) and not one cycle later as a resize.
  const std::vector<int32_t>& Targets(Session& s) {
    if (!targets_known_) {
      targets_known_ = true;
      computing_ = true;  // ComputeTargets asks JobValid of every job
      ComputeTargets(s);
      computing_ = false;
    }
    return target_;
  }

  bool Young(const api::TaskInfo& t) const {
    auto it = pods_.find(t.pod->uid);
    return it != pods_.end() && it->second.cycle + 1 >= cycle_;
  }

  // Room for elastic pods: the cluster, less everything running that is
  // not an elastic job's surplus, less what admitted work still waits for
  // (other jobs' pending pods, elastic jobs' unmet minimums). A running job
  // whose resize costs something keeps the pods it runs (moving pods
  // between running jobs does no more work, and costs both a restart):
  // only its growth beyond them comes out of the room. The room is shared
  // (sharing.h); a running job whose growth does not pay (resize_rule.h)
  // stays at its size, and the room goes round again without it.
  void ComputeTargets(Session& s) {
    const api::ClusterInfo& c = s.cluster();
    target_.assign(c.jobs.size(), 0);
    api::Resource room = c.total_allocatable;
    for (const api::NodeInfo& n : c.nodes) {
      if (n.spec().ready)
        room -= n.used() + n.pipelined();  // pipelined is promised
    }
    std::vector<Grower> growers;
    for (api::JobIndex j = 0; j < static_cast<api::JobIndex>(c.jobs.size());
         ++j) {
      const api::JobInfo& job = c.jobs[j];
      api::Resource held, pending;
      // What one more pod asks for: a pending one's request, else (all
      // placed) a placed one's, so that a job already at full size keeps a
      // target covering the pods it runs.
      const api::TaskInfo* next_pod = nullptr;
      for (api::TaskIndex t : job.tasks) {
        const api::TaskInfo& task = c.tasks[t];
        if (api::HoldsShare(task.status) &&
            task.status != api::TaskStatus::kPipelined) {
          held += task.request();
          if (next_pod == nullptr) next_pod = &task;
        }
        if (task.status == api::TaskStatus::kPending) {
          pending += task.request();
          if (next_pod == nullptr ||
              next_pod->status != api::TaskStatus::kPending) {
            next_pod = &task;
          }
        }
      }
      std::string why;
      // A gang whose admission is being renewed is counted as admitted:
      // the targets may be asked for before enqueue has run.
      bool admitted = s.JobAdmitted(job) || job.renewing_admission;
      if (!admitted || !s.JobSchedulable(job, &why)) continue;
      if (!job.elastic()) {
        room -= pending;  // it will take this room
        continue;
      }
      target_[j] = job.min_member;
      const int32_t placed = Placed(job);
      const int32_t max_extra = std::max(0, job.ValidCount() - job.min_member);
      Grower g{j, {}, {}, 0, max_extra};
      g.submitted = job.created;
      g.curve = &job.throughput;
      g.min_pods = job.min_member;
      // Waiting since: to start, its submission; running, since it was
      // left at its minimum with pods pending.
      g.starved_since =
          placed < job.min_member ? job.created : jobs_[j].at_minimum_since;
      g.starved = g.starved_since != absl::InfiniteFuture() &&
                  c.now - g.starved_since >=
                      absl::Seconds(settings_.fairness_bound_seconds);
      if (placed >= job.min_member && CostOf(job) > 0 &&
          settings_.sharing != Sharing::kJobOrder) {
        // Keeps what it runs: already out of the room.
        g.held = held;
        g.extra = std::min(placed - job.min_member, max_extra);
      } else if (placed < job.min_member &&
                 settings_.sharing == Sharing::kOldestFirst) {
        // Takes its minimum in its turn (sharing.h).
        room += held;
        g.starting = true;
        g.minimum = c.GangMinimum(job);
        g.whole = held + pending;
        g.resize_free = CostOf(job) == 0;
        g.held = g.minimum;
      } else {
        // Its surplus is up for redistribution; its unmet minimum is owed.
        // What it runs beyond its minimum it keeps on a par (throughput's
        // hysteresis).
        api::Resource minimum = c.GangMinimum(job);
        room += held;
        room -= minimum;
        g.held = minimum;
        g.kept = std::clamp(placed - job.min_member, 0, max_extra);
      }
      if (next_pod == nullptr) continue;  // nothing placed or pending
      g.pod = next_pod->request();
      growers.push_back(std::move(g));
    }
    if (settings_.sharing == Sharing::kJobOrder) RankByJobOrder(s, growers);
    const std::vector<Grower> start = growers;
    for (;;) {
      growers = start;
      for (size_t i = 0; i < growers.size(); ++i) {
        // Growth held back: it stays at the size it runs (its kept pods,
        // when its surplus was up for redistribution).
        if (frozen_.count(growers[i].job) != 0) {
          growers[i].max_extra = std::max(growers[i].extra, growers[i].kept);
        }
      }
      elastic::Share(settings_.sharing, c.total_allocatable, room, growers,
                     settings_.throughput_margin);
      bool froze = false;
      for (const Grower& g : growers) {
        const api::JobInfo& job = c.jobs[g.job];
        const int32_t size = Placed(job);
        const int32_t target = job.min_member + g.extra;
        if (size < job.min_member || target <= size ||
            frozen_.count(g.job) != 0) {
          continue;
        }
        std::string held = GrowthHeldBack(
            Growth{size, target, CostOf(job),
                   absl::ToDoubleSeconds(c.now - jobs_[g.job].changed),
                   HoldOf(job), expected_room_seconds_, &job.throughput});
        if (held.empty()) continue;
        s.job(g.job).resizing.held = std::move(held);
        frozen_.insert(g.job);
        froze = true;
      }
      if (!froze) break;
    }
    for (const Grower& g : growers) {
      target_[g.job] = g.starts ? c.jobs[g.job].min_member + g.extra : 0;
      if (!g.starts) {
        waiting_turn_.insert(g.job);
        s.job(g.job).resizing.held = kWaitsItsTurn;
      }
    }
  }

  // Job-order: each grower's place in the session's job order (the other
  // plugins' JobOrder; this plugin answers none in that mode).
  static void RankByJobOrder(const Session& s, std::vector<Grower>& growers) {
    const api::ClusterInfo& c = s.cluster();
    std::vector<size_t> order(growers.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return s.JobBefore(c.jobs[growers[a].job], c.jobs[growers[b].job]);
    });
    for (size_t i = 0; i < order.size(); ++i)
      growers[order[i]].rank = static_cast<int32_t>(i);
  }

  int32_t HoldOf(const api::JobInfo& job) const {
    return settings_.hold_seconds >= 0 ? settings_.hold_seconds : CostOf(job);
  }

  Memory& memory_;  // the plugin's, read at open and written at close
  const Settings& settings_;
  uint64_t cycle_ = 0;  // this session's number
  double expected_room_seconds_ = 0;
  absl::flat_hash_map<std::string, PodMemory> pods_;  // by pod uid
  std::vector<JobMemory> jobs_;                       // by job index
  // Scaling logs after this cycle's reports, by job uid; the uids of jobs
  // with a log that the cluster still has.
  absl::flat_hash_map<std::string, ScalingLog> scaling_;
  std::set<std::string> present_;
  std::set<api::JobIndex> frozen_;  // growth held back this cycle
  // Oldest-first: jobs not started whose turn has not come (sharing.h).
  std::set<api::JobIndex> waiting_turn_;
  bool targets_known_ = false;
  bool computing_ = false;
  std::vector<int32_t> target_;  // by job; 0 when not elastic
};

class Elastic : public framework::Plugin {
 public:
  explicit Elastic(Settings settings)
      : settings_(settings), memory_(settings.expected_room_seconds) {}

  std::unique_ptr<framework::PluginSession> OnSessionOpen(Session& s) override {
    auto state = std::make_unique<ElasticSession>(memory_, settings_);
    state->Register(s);
    return state;
  }

 private:
  const Settings settings_;
  Memory memory_;
};

absl::StatusOr<int32_t> Seconds(const framework::Arguments& args,
                                const std::string& key, int64_t fallback,
                                int64_t least) {
  auto v = args.GetInt(key, fallback);
  if (!v.ok()) return v.status();
  if (*v < least || *v > 7 * 24 * 3600) {
    return absl::InvalidArgumentError(
        absl::StrCat(args.owner(), ": arguments.", key,
                     ": must be a whole number of seconds from ", least,
                     " to 604800 (a week), got ", *v));
  }
  return static_cast<int32_t>(*v);
}

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args) {
  Settings settings;
  const std::string share = args.GetString("share", "even");
  if (share == "oldest-first") {
    settings.sharing = Sharing::kOldestFirst;
  } else if (share == "throughput") {
    settings.sharing = Sharing::kThroughput;
  } else if (share == "job-order") {
    settings.sharing = Sharing::kJobOrder;
  } else if (share != "even") {
    return absl::InvalidArgumentError(
        absl::StrCat(args.owner(),
                     ": arguments.share: must be even, oldest-first, "
                     "throughput or job-order, got \"",
                     share, "\""));
  }
  auto margin = args.GetDouble("throughputMargin", 0.1);
  if (!margin.ok()) return margin.status();
  if (!std::isfinite(*margin) || *margin < 0 || *margin > 1000) {
    return absl::InvalidArgumentError(absl::StrCat(
        args.owner(),
        ": arguments.throughputMargin: must be a number from 0 to 1000 (of "
        "one pod's throughput), got ",
        *margin));
  }
  settings.throughput_margin = *margin;
  auto cost = Seconds(args, "resizeCostSeconds", 0, 0);
  if (!cost.ok()) return cost.status();
  settings.resize_cost_seconds = *cost;
  if (args.GetString("holdSeconds", "").empty()) {
    settings.hold_seconds = -1;
  } else {
    auto hold = Seconds(args, "holdSeconds", 0, 0);
    if (!hold.ok()) return hold.status();
    settings.hold_seconds = *hold;
  }
  auto bound = Seconds(args, "fairnessBoundSeconds", 600, 1);
  if (!bound.ok()) return bound.status();
  settings.fairness_bound_seconds = *bound;
  auto room = Seconds(args, "expectedRoomSeconds", 300, 1);
  if (!room.ok()) return room.status();
  settings.expected_room_seconds = *room;
  return std::make_unique<Elastic>(settings);
}

}  // namespace shoal::plugins::elastic
