#include "plugins/gang/gang.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "scheduler/framework/session.h"

namespace shoal::plugins::gang {
namespace {

using framework::Session;

// Counts, per role, the job's tasks that satisfy `pred`.
template <typename Pred>
std::map<std::string, int32_t> CountByRole(const Session& s,
                                           const api::JobInfo& job, Pred pred) {
  std::map<std::string, int32_t> counts;
  for (api::TaskIndex t : job.tasks) {
    const api::TaskInfo& task = s.cluster().tasks[t];
    if (pred(task.status)) ++counts[task.pod->role];
  }
  return counts;
}

// Where the job's minimum is written, in its own API's words.
const char* MinimumField(const api::JobInfo& job) {
  switch (job.source) {
    case api::GroupSource::kWorkload:
      return "the Workload's podGroups[].policy.gang.minCount";
    case api::GroupSource::kKubePodGroup:
      return "spec.schedulingPolicy.gang.minCount";
    case api::GroupSource::kCompositeTree:
      return "the tree's minimum (its minGroupCount cheapest children, by "
             "their minCount)";
    default:
      return "spec.minMember";
  }
}

bool Valid(api::TaskStatus s) {
  return s != api::TaskStatus::kFailed && s != api::TaskStatus::kReleasing;
}

// Ready (placed or done) tasks, plus `extra` pipelined ones, cover the
// job's minimum, every role's minimum and, with sub-groups, each policy's
// minSubGroups in sub-groups placed whole.
bool Ready(const Session& s, const api::JobInfo& job, int32_t extra) {
  if (job.ReadyCount() + extra < job.min_member) return false;
  if (!job.sub_group_policies.empty()) {
    const bool whole =
        job.sub_groups.empty()
            ? api::SubGroupsTooFew(job).empty()
            : api::SubGroupsSatisfied(
                  job, api::SubGroupsReady(s.cluster(), job, extra > 0));
    if (!whole) return false;
  }
  if (!job.RoleMinimumsApply()) return true;
  auto ready = CountByRole(s, job, [&](api::TaskStatus st) {
    return api::IsReadyStatus(st) ||
           (extra > 0 && st == api::TaskStatus::kPipelined);
  });
  for (const auto& [role, min] : job.min_task_member) {
    if (ready[role] < min) return false;
  }
  return true;
}

// Ready(s, job, 0) as of the job's status_changes.
struct ReadyMemo {
  uint64_t at = ~uint64_t{0};
  bool ready = false;
};

bool RememberedReady(const Session& s, const api::JobInfo& job,
                     std::vector<ReadyMemo>& memo) {
  if (job.index == api::kNone ||
      static_cast<size_t>(job.index) >= memo.size()) {
    return Ready(s, job, 0);
  }
  ReadyMemo& m = memo[job.index];
  if (m.at != job.status_changes) {
    m.ready = Ready(s, job, 0);
    m.at = job.status_changes;
  }
  return m.ready;
}

// Writes each waiting gang's message when the session closes; remembers
// each job's readiness for the job order.
class GangSession : public framework::PluginSession {
 public:
  std::vector<ReadyMemo> ready;  // by job index

  void OnSessionClose(Session& s) override {
    for (auto& job : s.cluster().jobs) {
      if (Ready(s, job, 0)) {
        job.message.clear();
        continue;
      }
      const int32_t pipelined = job.Count(api::TaskStatus::kPipelined);
      if (job.fit_error.empty() || job.PendingCount() + pipelined == 0)
        continue;
      if (job.source == api::GroupSource::kSinglePod) {
        job.message = job.fit_error;
      } else {
        job.message =
            absl::StrCat(job.PendingCount() + pipelined, "/", job.tasks.size(),
                         " tasks in gang unschedulable: ", job.fit_error);
      }
      // Said, not hidden: a pod waiting on evictions is still waiting.
      if (pipelined > 0) {
        absl::StrAppend(&job.message, " (", pipelined,
                        " pod(s) wait for room that evictions are freeing)");
      }
    }
  }
};

class Gang : public framework::Plugin {
 public:
  std::unique_ptr<framework::PluginSession> OnSessionOpen(Session& s) override {
    s.Register<framework::JobValid>([&s](const api::JobInfo& job,
                                         std::string* why) {
      if (job.ValidCount() < job.min_member) {
        *why =
            absl::StrCat("not enough pods for the gang: ", job.ValidCount(),
                         " exist, ", MinimumField(job), " is ", job.min_member);
        return false;
      }
      if (std::string few = api::SubGroupsTooFew(job); !few.empty()) {
        *why = std::move(few);
        return false;
      }
      if (!job.RoleMinimumsApply()) return true;
      auto valid = CountByRole(s, job, Valid);
      for (const auto& [role, min] : job.min_task_member) {
        if (valid[role] < min) {
          *why =
              absl::StrCat("not enough pods of task \"", role,
                           "\" for the gang: ", valid[role],
                           " exist, spec.minTaskMember[", role, "] is ", min);
          return false;
        }
      }
      return true;
    });
    s.Register<framework::JobReady>(
        [&s](const api::JobInfo& job) { return Ready(s, job, 0); });
    s.Register<framework::JobStarving>([&s](const api::JobInfo& job) {
      return !Ready(s, job, job.Count(api::TaskStatus::kPipelined));
    });
    s.Register<framework::JobPipelined>([&s](const api::JobInfo& job) {
      return Ready(s, job, job.Count(api::TaskStatus::kPipelined)) ? 1 : -1;
    });
    // Jobs that are not yet running get the first chance at the cluster,
    // so that a gang is completed before anyone grows. The job queue asks
    // this of the same jobs many times between their moves; a job's
    // readiness is kept until one of its tasks changes status (a tree of
    // 128 pods is otherwise counted again at every comparison).
    auto session = std::make_unique<GangSession>();
    session->ready.assign(s.cluster().jobs.size(), {});
    s.Register<framework::JobOrder>(
        [&s, memo = &session->ready](const api::JobInfo& a,
                                     const api::JobInfo& b) {
          bool ra = RememberedReady(s, a, *memo);
          bool rb = RememberedReady(s, b, *memo);
          return ra == rb ? 0 : (ra ? 1 : -1);
        });
    return session;
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments&) {
  return std::make_unique<Gang>();
}

}  // namespace shoal::plugins::gang
