#include "scheduler/actions/victims.h"

#include <algorithm>
#include <map>

namespace shoal::actions {

void SortByExpendability(const framework::Session& s, std::vector<api::TaskIndex>& tasks) {
  const api::ClusterInfo& c = s.cluster();
  std::stable_sort(tasks.begin(), tasks.end(), [&c](api::TaskIndex a, api::TaskIndex b) {
    const api::TaskInfo& x = c.tasks[a];
    const api::TaskInfo& y = c.tasks[b];
    int32_t jx = c.jobs[x.job].priority, jy = c.jobs[y.job].priority;
    if (jx != jy) return jx < jy;
    if (x.pod->priority != y.pod->priority) return x.pod->priority < y.pod->priority;
    return x.pod->created > y.pod->created;
  });
}

namespace {

// How many more of the job's tasks may be evicted without leaving a
// running gang below its minimum. A job of one pod may go whole. This is
// the scheduler's promise, not a policy: the tiers' answer cannot
// override it.
int32_t Spare(const api::JobInfo& job) {
  if (job.tasks.size() == 1) return job.ReadyCount();
  return std::max(0, job.ReadyCount() - job.min_member);
}

}  // namespace

std::optional<Room> FindRoom(
    framework::Session& s, const api::TaskInfo& task,
    const std::function<bool(const api::TaskInfo&)>& eligible,
    const std::function<std::vector<api::TaskIndex>(const std::vector<api::TaskIndex>&)>& ask,
    const std::vector<api::NodeIndex>* fits_without_eviction) {
  const std::vector<api::NodeIndex>& nodes = s.Feasible(task.placement()).nodes;
  for (api::NodeIndex n : fits_without_eviction != nullptr ? *fits_without_eviction : nodes) {
    if (s.Fits(task, s.node(n), s.node(n).FutureIdle())) return Room{n, {}};
  }
  for (api::NodeIndex n : nodes) {
    const api::NodeInfo& node = s.node(n);
    // Cheap bound first: even evicting every eligible task may not do.
    std::vector<api::TaskIndex> candidates;
    api::Resource room = node.FutureIdle();
    api::Resource most = room;
    for (api::TaskIndex t : node.tasks()) {
      const api::TaskInfo& other = s.task(t);
      if (!api::HoldsShare(other.status) || other.status == api::TaskStatus::kPipelined ||
          !eligible(other)) {
        continue;
      }
      candidates.push_back(t);
      most += other.request();
    }
    if (candidates.empty() || !s.Fits(task, node, most)) continue;
    SortByExpendability(s, candidates);
    std::vector<api::TaskIndex> allowed = ask(candidates);
    SortByExpendability(s, allowed);
    Room plan{n, {}};
    std::map<api::JobIndex, int32_t> spare;
    for (api::TaskIndex v : allowed) {
      if (s.Fits(task, node, room)) break;
      api::JobIndex j = s.task(v).job;
      auto [it, fresh] = spare.try_emplace(j, 0);
      if (fresh) it->second = Spare(s.job(j));
      if (it->second == 0) continue;
      --it->second;
      room += s.task(v).request();
      plan.victims.push_back(v);
    }
    if (s.Fits(task, node, room)) return plan;
  }
  return std::nullopt;
}

}  // namespace shoal::actions
