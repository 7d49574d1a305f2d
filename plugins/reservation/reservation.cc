#include "plugins/reservation/reservation.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "scheduler/framework/session.h"

namespace shoal::plugins::reservation {
namespace {

using framework::Session;

// What reservation remembers from one cycle to the next: whom nodes are
// held for, and which. The plugin owns it; a session copies it when it
// opens and writes it back when it closes, so a session that never closes
// (an explanation) leaves it as it was.
struct Memory {
  std::mutex mu;       // sessions on one policy may open side by side
  std::string target;  // the gang's ns/name; empty when none
  std::vector<std::string> nodes;
};

// The nodes held this session, and for which job.
class ReservationSession : public framework::PluginSession {
 public:
  ReservationSession(Memory& memory, absl::Duration wait_limit)
      : memory_(memory), wait_limit_(wait_limit) {
    std::lock_guard<std::mutex> lock(memory_.mu);
    target_ = memory_.target;
    nodes_ = memory_.nodes;
  }

  // Keeps the held gang (or elects a new one), then registers the
  // callbacks, which point into this object.
  void Register(Session& s) {
    api::JobIndex target = Find(s, target_);
    if (target == api::kNone || Started(s.job(target))) {
      target_.clear();
      nodes_.clear();
      target = Elect(s);
    }
    reserved_.assign(s.cluster().nodes.size(), false);
    for (const std::string& name : nodes_) {
      api::NodeIndex n = s.cluster().FindNode(name);
      if (n != api::kNone) reserved_[n] = true;
    }
    if (target == api::kNone) return;
    // Nobody is admitted ahead of the gang while it waits for admission:
    // otherwise younger jobs take every bit of room admission frees. But
    // when a rule other than room refuses the gang (its queue at its
    // deserved share behind Volcano's fence, or at its capability), only
    // its own queue's jobs compete for what it waits for: other queues'
    // work goes ahead, or the whole cluster would wait idle behind the
    // gang until its queue's own work ends.
    s.Register<framework::JobEnqueueable>(
        [this, &s, target](const api::JobInfo& job, std::string* why) {
          const api::JobInfo& held_for = s.cluster().jobs[target];
          if (&job == &held_for ||
              held_for.phase != api::PodGroupPhase::kPending ||
              (job.queue_index != held_for.queue_index &&
               !HeldGangAdmissible(s, held_for)))
            return 0;
          *why = absl::StrCat("admission is held for podgroup ", held_for.Key(),
                              ", which has waited longer than ",
                              absl::FormatDuration(wait_limit_));
          return -1;
        });
    // Its nodes are held alike.
    s.Register<framework::Fit>(
        [this, &s, target](const api::TaskInfo& t, const api::NodeInfo& n,
                           const api::Resource&, framework::Reasons* why) {
          if (!reserved_[n.index()] || t.job == target) return true;
          const api::JobInfo& held_for = s.cluster().jobs[target];
          if (held_for.phase == api::PodGroupPhase::kPending &&
              s.cluster().jobs[t.job].queue_index != held_for.queue_index &&
              !HeldGangAdmissible(s, held_for)) {
            return true;
          }
          if (why != nullptr)
            why->push_back("node(s) were reserved for a gang waiting too long");
          return false;
        });
  }

  void OnSessionClose(Session&) override {
    std::lock_guard<std::mutex> lock(memory_.mu);
    memory_.target = std::move(target_);
    memory_.nodes = std::move(nodes_);
  }

 private:
  // Whether the held gang would be admitted now but for room: every
  // vote other than the ones about room (overcommit's: the cluster's
  // promise, which the hold is there to win back; this plugin's own)
  // admits it. Asked once per enqueue pass (the borrowing pass may answer
  // otherwise); within a pass admissions only take room, so a refusal
  // stands.
  bool HeldGangAdmissible(const Session& s, const api::JobInfo& held_for) {
    int8_t& known = admissible_[s.borrowing() ? 1 : 0];
    if (known < 0) {
      std::string ignored;
      known = s.JobAdmissible(held_for, &ignored) &&
                      s.Table<framework::JobEnqueueable>().VoteWithout(
                          {"overcommit", "reservation"}, held_for, &ignored)
                  ? 1
                  : 0;
    }
    return known == 1;
  }

  static api::JobIndex Find(const Session& s, const std::string& key) {
    if (key.empty()) return api::kNone;
    for (api::JobIndex j = 0;
         j < static_cast<api::JobIndex>(s.cluster().jobs.size()); ++j) {
      if (s.cluster().jobs[j].Key() == key) return j;
    }
    return api::kNone;
  }

  static bool Started(const api::JobInfo& job) {
    return job.ReadyCount() >= job.min_member || job.PendingCount() == 0;
  }

  // The gang that has waited longest past the limit, with its nodes.
  api::JobIndex Elect(Session& s) {
    const api::ClusterInfo& c = s.cluster();
    api::JobIndex oldest = api::kNone;
    for (api::JobIndex j = 0; j < static_cast<api::JobIndex>(c.jobs.size());
         ++j) {
      const api::JobInfo& job = c.jobs[j];
      // Waiting for admission is waiting too: held nodes drain, and the
      // idle room they leave is what admission control needs to see.
      // A lone pod takes the next hole anyway; holding nodes is for gangs.
      if (job.min_member < 2 || Started(job) || job.group_missing ||
          c.now - job.created < wait_limit_ || job.queue_index == api::kNone) {
        continue;
      }
      if (oldest == api::kNone || job.created < c.jobs[oldest].created)
        oldest = j;
    }
    if (oldest == api::kNone) return api::kNone;
    const api::JobInfo& job = c.jobs[oldest];
    // Size the reservation by the job's largest pending task.
    const api::TaskInfo* biggest = nullptr;
    for (api::TaskIndex t : job.tasks) {
      const api::TaskInfo& task = c.tasks[t];
      if (task.status != api::TaskStatus::kPending) continue;
      if (biggest == nullptr ||
          biggest->request().DominantShare(c.total_allocatable) <
              task.request().DominantShare(c.total_allocatable)) {
        biggest = &task;
      }
    }
    if (biggest == nullptr) return api::kNone;
    std::vector<api::NodeIndex> nodes = s.Feasible(biggest->placement()).nodes;
    // Emptiest first: those free up soonest.
    std::stable_sort(
        nodes.begin(), nodes.end(), [&c](api::NodeIndex a, api::NodeIndex b) {
          return c.nodes[a].used().DominantShare(c.nodes[a].allocatable()) <
                 c.nodes[b].used().DominantShare(c.nodes[b].allocatable());
        });
    int32_t needed = job.min_member - job.ReadyCount();
    for (api::NodeIndex n : nodes) {
      if (needed <= 0) break;
      // How many of the task the node holds once it is empty.
      api::Resource room = c.nodes[n].allocatable();
      int32_t slots = 0;
      while (slots < needed && biggest->request().FitsIn(room)) {
        room -= biggest->request();
        ++slots;
      }
      if (slots == 0) continue;
      nodes_.push_back(c.nodes[n].name());
      needed -= slots;
    }
    target_ = job.Key();
    return oldest;
  }

  Memory& memory_;  // the plugin's, read at open and written at close
  const absl::Duration wait_limit_;
  // Whom the nodes are held for, from the memory or elected now.
  std::string target_;
  std::vector<std::string> nodes_;
  std::vector<bool> reserved_;  // by node index
  // HeldGangAdmissible per enqueue pass (first, borrowing): -1 not asked.
  int8_t admissible_[2] = {-1, -1};
};

class Reservation : public framework::Plugin {
 public:
  explicit Reservation(absl::Duration wait_limit) : wait_limit_(wait_limit) {}

  std::unique_ptr<framework::PluginSession> OnSessionOpen(Session& s) override {
    auto state = std::make_unique<ReservationSession>(memory_, wait_limit_);
    state->Register(s);
    return state;
  }

 private:
  const absl::Duration wait_limit_;
  Memory memory_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args) {
  std::string text = args.GetString("waitLimit", "5m");
  absl::Duration limit;
  if (!absl::ParseDuration(text, &limit) || limit < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(args.owner(),
                     ": arguments.waitLimit: expected a duration such as "
                     "\"90s\" or \"5m\", got \"",
                     text, "\""));
  }
  return std::make_unique<Reservation>(limit);
}

}  // namespace shoal::plugins::reservation
