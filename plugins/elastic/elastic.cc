#include "plugins/elastic/elastic.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "scheduler/framework/session.h"

namespace shoal::plugins::elastic {
namespace {

using framework::Session;

int32_t Placed(const api::JobInfo& job) {
  return job.ReadyCount() + job.Count(api::TaskStatus::kPipelined);
}

// What elastic remembers from one cycle to the next: when each running
// pod was placed, so that pods placed this cycle or the last are not
// taken back at once (no flapping). The plugin owns it; a session copies
// what it needs when it opens and writes it back when it closes, so a
// session that never closes (an explanation) leaves it as it was.
struct Memory {
  std::mutex mu;       // sessions on one policy may open side by side
  uint64_t cycle = 0;  // sessions closed so far
  absl::flat_hash_map<std::string, uint64_t> placed_at;  // pod uid -> cycle
};

// Each elastic job's target size, worked out when the session opens.
class ElasticSession : public framework::PluginSession {
 public:
  explicit ElasticSession(Memory& memory) : memory_(memory) {}

  // Reads the memory and the snapshot, then registers the callbacks,
  // which point into this object.
  void Register(Session& s) {
    const api::ClusterInfo& c = s.cluster();
    {
      // When each running pod was placed; pods first seen running are old.
      std::lock_guard<std::mutex> lock(memory_.mu);
      cycle_ = memory_.cycle + 1;
      for (const api::TaskInfo& t : c.tasks) {
        if (!api::HoldsShare(t.status)) continue;
        auto it = memory_.placed_at.find(t.pod->uid);
        placed_at_[t.pod->uid] = it == memory_.placed_at.end() ? 0 : it->second;
      }
    }
    ComputeTargets(s);

    // Between two running elastic jobs, the smaller share grows first.
    s.Register<framework::JobOrder>(
        [this, &s](const api::JobInfo& a, const api::JobInfo& b) {
          if (!a.elastic() || !b.elastic() || Placed(a) < a.min_member ||
              Placed(b) < b.min_member) {
            return 0;
          }
          double sa = Share(s, a), sb = Share(s, b);
          return sa < sb ? -1 : (sa > sb ? 1 : 0);
        });
    s.Register<framework::Allocatable>(
        [this, &s](const api::QueueInfo&, const api::TaskInfo& t) {
          const api::JobInfo& job = s.cluster().jobs[t.job];
          if (!job.elastic() || Placed(job) < job.min_member) return true;
          return Placed(job) < target_[t.job];
        });
    s.Register<framework::JobStarving>([this, &s](const api::JobInfo& job) {
      if (!job.elastic() || Placed(job) < job.min_member)
        return false;  // gang's call
      return job.PendingCount() > 0 && Placed(job) < target_[job.index];
    });
    // A job short of its minimum (a gang, a lone pod) may take any elastic
    // job's pods: elastic pods only ever borrow room no minimum wants.
    // Growth takes only from jobs above their target, and not pods placed
    // this cycle or the last. Other victims are the other plugins' call.
    s.Register<framework::Preemptable>(
        [this, &s](const api::TaskInfo& taker,
                   const std::vector<api::TaskIndex>& candidates) {
          const api::JobInfo& tj = s.cluster().jobs[taker.job];
          bool growing = tj.elastic() && Placed(tj) >= tj.min_member;
          std::vector<api::TaskIndex> victims;
          std::vector<int32_t> over(target_.size(), -1);
          for (api::TaskIndex c : candidates) {
            const api::TaskInfo& v = s.cluster().tasks[c];
            const api::JobInfo& vj = s.cluster().jobs[v.job];
            if (v.job == taker.job || !vj.elastic()) continue;
            if (growing) {
              if (Young(v)) continue;
              if (over[v.job] < 0)
                over[v.job] = std::max(0, Placed(vj) - target_[v.job]);
              if (over[v.job] == 0) continue;
              --over[v.job];
            }
            victims.push_back(c);
          }
          return framework::Victims(std::move(victims));
        });
    s.AddEventHandler({[this](const api::TaskInfo& t) {
                         placed_at_.try_emplace(t.pod->uid, cycle_);
                       },
                       nullptr});
  }

  // Publishes the targets, and remembers this cycle's placements for the
  // next.
  void OnSessionClose(Session& s) override {
    for (api::JobIndex j = 0;
         j < static_cast<api::JobIndex>(s.cluster().jobs.size()); ++j) {
      s.job(j).elastic_target = target_[j];
    }
    std::lock_guard<std::mutex> lock(memory_.mu);
    memory_.cycle = cycle_;
    memory_.placed_at = std::move(placed_at_);
  }

 private:
  double Share(const Session& s, const api::JobInfo& job) const {
    return s.cluster().Held(job).DominantShare(s.cluster().total_allocatable);
  }

  bool Young(const api::TaskInfo& t) const {
    auto it = placed_at_.find(t.pod->uid);
    return it != placed_at_.end() && it->second + 1 >= cycle_;
  }

  // Room for elastic pods: the cluster, less everything running that is not
  // an elastic job's surplus, less what admitted work still waits for
  // (other jobs' pending pods, elastic jobs' unmet minimums). It is handed
  // out one pod at a time to the elastic job with the smallest dominant
  // share.
  void ComputeTargets(Session& s) {
    const api::ClusterInfo& c = s.cluster();
    target_.assign(c.jobs.size(), 0);
    api::Resource room = c.total_allocatable;
    for (const api::NodeInfo& n : c.nodes) {
      if (n.spec().ready)
        room -= n.used() + n.pipelined();  // pipelined is promised
    }
    struct Grower {
      api::JobIndex job;
      api::Resource held;  // its minimum, then its minimum plus extra pods
      api::Resource pod;   // what one more pod asks for
      int32_t extra = 0;
      int32_t max_extra = 0;
    };
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
      // enqueue runs after the targets are set.
      bool admitted = s.JobAdmitted(job) || job.renewing_admission;
      if (!admitted || !s.JobSchedulable(job, &why)) continue;
      if (!job.elastic()) {
        room -= pending;  // it will take this room
        continue;
      }
      // Its surplus is up for redistribution; its unmet minimum is owed.
      api::Resource minimum = c.GangMinimum(job);
      room += held;
      room -= minimum;
      target_[j] = job.min_member;
      if (next_pod == nullptr) continue;  // nothing placed or pending
      growers.push_back({j, minimum, next_pod->request(), 0,
                         std::max(0, job.ValidCount() - job.min_member)});
    }
    auto smaller_share = [&c, &growers](size_t a, size_t b) {
      return growers[a].held.DominantShare(c.total_allocatable) >
             growers[b].held.DominantShare(c.total_allocatable);
    };
    std::priority_queue<size_t, std::vector<size_t>, decltype(smaller_share)>
        next(smaller_share);
    for (size_t g = 0; g < growers.size(); ++g) next.push(g);
    while (!next.empty()) {
      Grower& g = growers[next.top()];
      size_t index = next.top();
      next.pop();
      if (g.extra >= g.max_extra || !g.pod.LessEqualWhere(room, g.pod))
        continue;
      room -= g.pod;
      g.held += g.pod;
      ++g.extra;
      target_[g.job] = c.jobs[g.job].min_member + g.extra;
      next.push(index);
    }
  }

  Memory& memory_;      // the plugin's, read at open and written at close
  uint64_t cycle_ = 0;  // this session's number
  absl::flat_hash_map<std::string, uint64_t> placed_at_;  // pod uid -> cycle
  std::vector<int32_t> target_;  // by job; 0 when not elastic
};

class Elastic : public framework::Plugin {
 public:
  std::unique_ptr<framework::PluginSession> OnSessionOpen(Session& s) override {
    auto state = std::make_unique<ElasticSession>(memory_);
    state->Register(s);
    return state;
  }

 private:
  Memory memory_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments&) {
  return std::make_unique<Elastic>();
}

}  // namespace shoal::plugins::elastic
