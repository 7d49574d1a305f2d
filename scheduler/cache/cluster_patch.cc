#include "scheduler/cache/cluster_patch.h"

#include <algorithm>
#include <utility>

namespace shoal::cache {

api::JobInfo SinglePodJob(const api::PodInfo& pod) {
  api::JobInfo single;
  single.ns = pod.ns;
  single.name = pod.name;
  single.uid = pod.uid;
  single.source = api::GroupSource::kSinglePod;
  single.created = pod.created;
  single.priority_class = pod.priority_class;
  single.priority = pod.priority;
  // It has no PodGroup to remember a phase: placed means running, and a
  // waiting one asks for admission again each cycle.
  single.phase = pod.node_name.empty() ? api::PodGroupPhase::kPending
                                       : api::PodGroupPhase::kRunning;
  return single;
}

int CompareKey(const api::PodInfo& pod, absl::string_view key) {
  // As std::string compares: the first differing char, else the shorter.
  for (absl::string_view part :
       {absl::string_view(pod.ns), absl::string_view("/"),
        absl::string_view(pod.name)}) {
    const size_t n = std::min(part.size(), key.size());
    if (int c = part.substr(0, n).compare(key.substr(0, n)); c != 0) return c;
    if (n < part.size()) return 1;  // the key ended first
    key.remove_prefix(n);
  }
  return key.empty() ? 0 : -1;
}

ClusterPatch::ClusterPatch(api::ClusterInfo& cluster)
    : cluster_(cluster),
      node_touched_(cluster.nodes.size(), false),
      job_touched_(cluster.jobs.size(), false) {}

void ClusterPatch::TouchNode(api::NodeIndex n) {
  if (n == api::kNone || node_touched_[n]) return;
  node_touched_[n] = true;
  nodes_.push_back(n);
}

void ClusterPatch::TouchJob(api::JobIndex j) {
  if (job_touched_[j]) return;
  job_touched_[j] = true;
  jobs_.push_back(j);
}

api::TaskIndex ClusterPatch::LowerBound(absl::string_view key) const {
  auto it = std::lower_bound(cluster_.tasks.begin(), cluster_.tasks.end(), key,
                             [](const api::TaskInfo& t, absl::string_view k) {
                               return CompareKey(*t.pod, k) < 0;
                             });
  return static_cast<api::TaskIndex>(it - cluster_.tasks.begin());
}

namespace {
// Keeps a list of task indices (ascending) in step with a renumbering
// that keeps order; dropped tasks (kNone) leave it.
void Renumber(std::vector<api::TaskIndex>& list,
              const std::vector<api::TaskIndex>& renumbered) {
  size_t kept = 0;
  for (api::TaskIndex t : list) {
    if (renumbered[t] != api::kNone) list[kept++] = renumbered[t];
  }
  list.resize(kept);
}

void InsertSorted(std::vector<api::TaskIndex>& list, api::TaskIndex t) {
  list.insert(std::lower_bound(list.begin(), list.end(), t), t);
}
}  // namespace

std::vector<api::JobIndex> ClusterPatch::ChangeSingleJobs(
    const std::vector<std::string>& deleted,
    const std::vector<std::shared_ptr<const api::PodInfo>>& added) {
  std::vector<api::JobIndex> placed;  // of each added job
  if (deleted.empty() && added.empty()) return placed;
  std::vector<api::JobInfo>& jobs = cluster_.jobs;
  const size_t before = jobs.size();
  // The jobs of one and of missing PodGroups come last, after every
  // PodGroup's, ordered by their first (lowest) pod's key.
  size_t tail = before;
  while (tail > 0 && (jobs[tail - 1].source == api::GroupSource::kSinglePod ||
                      jobs[tail - 1].group_missing)) {
    --tail;
  }
  std::vector<bool> gone(before, false);
  size_t first = before;  // the first job that moves
  for (const std::string& key : deleted) {
    const api::JobIndex j = cluster_.tasks[LowerBound(key)].job;
    gone[j] = true;
    first = std::min(first, static_cast<size_t>(j));
  }
  // Where each new job goes among the old ones.
  std::vector<size_t> at;
  at.reserve(added.size());
  for (const auto& pod : added) {
    const std::string key = pod->Key();
    auto it = std::lower_bound(
        jobs.begin() + tail, jobs.end(), key,
        [this](const api::JobInfo& job, const std::string& k) {
          return CompareKey(*cluster_.tasks[job.tasks.front()].pod, k) < 0;
        });
    at.push_back(static_cast<size_t>(it - jobs.begin()));
    first = std::min(first, at.back());
  }
  // Jobs before `first` stay where they are; the rest are laid out again.
  std::vector<api::JobIndex> renumbered(before, api::kNone);
  for (size_t i = 0; i < first; ++i)
    renumbered[i] = static_cast<api::JobIndex>(i);
  std::vector<api::JobInfo> rest;
  rest.reserve(before - first - deleted.size() + added.size());
  placed.reserve(added.size());
  size_t next = 0;
  for (size_t i = first; i <= before; ++i) {
    for (; next < added.size() && at[next] == i; ++next) {
      api::JobInfo job = SinglePodJob(*added[next]);
      job.index = static_cast<api::JobIndex>(first + rest.size());
      job.queue_index = cluster_.FindQueue(job.queue);
      placed.push_back(job.index);
      rest.push_back(std::move(job));
    }
    if (i == before || gone[i]) continue;
    renumbered[i] = static_cast<api::JobIndex>(first + rest.size());
    rest.push_back(std::move(jobs[i]));
    rest.back().index = renumbered[i];
  }
  jobs.resize(first);
  for (api::JobInfo& job : rest) jobs.push_back(std::move(job));
  for (api::TaskInfo& task : cluster_.tasks) {
    if (task.job != api::kNone) task.job = renumbered[task.job];
  }
  // Nothing was touched yet (this comes first): track the new jobs.
  job_touched_.assign(jobs.size(), false);
  job_renumbering_ = std::move(renumbered);
  return placed;
}

void ClusterPatch::ChangeTasks(
    const std::vector<std::string>& deleted,
    const std::vector<
        std::pair<std::shared_ptr<const api::PodInfo>, api::JobIndex>>& added) {
  if (deleted.empty() && added.empty()) return;
  std::vector<api::TaskInfo>& tasks = cluster_.tasks;
  const size_t before = tasks.size();
  std::vector<bool> gone(before, false);
  for (const std::string& key : deleted) {
    const api::TaskIndex t = LowerBound(key);
    gone[t] = true;
    const api::TaskInfo& task = tasks[t];
    TouchNode(task.node);
    if (task.job == api::kNone) continue;  // its job of one is gone
    --cluster_.jobs[task.job].count_by_status[static_cast<int>(task.status)];
    TouchJob(task.job);
  }
  // Where each new task goes among the old ones (in key order).
  std::vector<api::TaskIndex> at;
  at.reserve(added.size());
  for (const auto& [pod, job] : added) at.push_back(LowerBound(pod->Key()));
  std::vector<api::TaskIndex> renumbered(before, api::kNone);
  std::vector<api::TaskIndex> placed;  // of each added task
  placed.reserve(added.size());
  std::vector<api::TaskInfo> out;
  out.reserve(before - deleted.size() + added.size());
  size_t next = 0;
  for (size_t i = 0; i <= before; ++i) {
    for (; next < added.size() && at[next] == static_cast<api::TaskIndex>(i);
         ++next) {
      const auto& [pod, job] = added[next];
      api::TaskInfo task;
      task.pod = pod;
      task.status = pod->status;
      task.job = job;
      if (!pod->node_name.empty())
        task.node = cluster_.FindNode(pod->node_name);
      placed.push_back(static_cast<api::TaskIndex>(out.size()));
      out.push_back(std::move(task));
    }
    if (i == before || gone[i]) continue;
    renumbered[i] = static_cast<api::TaskIndex>(out.size());
    out.push_back(std::move(tasks[i]));
  }
  tasks = std::move(out);
  for (api::NodeInfo& node : cluster_.nodes) Renumber(node.tasks(), renumbered);
  for (api::JobInfo& job : cluster_.jobs) Renumber(job.tasks, renumbered);
  for (api::TaskIndex t : placed) {
    const api::TaskInfo& task = tasks[t];
    if (task.node != api::kNone) {
      InsertSorted(cluster_.nodes[task.node].tasks(), t);
      TouchNode(task.node);
    }
    api::JobInfo& job = cluster_.jobs[task.job];
    InsertSorted(job.tasks, t);
    ++job.count_by_status[static_cast<int>(task.status)];
    TouchJob(task.job);
  }
}

void ClusterPatch::ReplaceTask(absl::string_view key,
                               std::shared_ptr<const api::PodInfo> pod) {
  const api::TaskIndex t = LowerBound(key);
  api::TaskInfo& task = cluster_.tasks[t];
  const api::NodeIndex from = task.node;
  const api::NodeIndex to =
      pod->node_name.empty() ? api::kNone : cluster_.FindNode(pod->node_name);
  cluster_.jobs[task.job].Recount(task.status, pod->status);
  task.status = pod->status;
  task.pod = std::move(pod);
  task.node = to;
  // A node lists its tasks in index order, as the builder adds them.
  if (from != to && from != api::kNone) {
    std::vector<api::TaskIndex>& on = cluster_.nodes[from].tasks();
    on.erase(std::lower_bound(on.begin(), on.end(), t));
  }
  if (from != to && to != api::kNone)
    InsertSorted(cluster_.nodes[to].tasks(), t);
  TouchNode(from);
  TouchNode(to);
  TouchJob(task.job);
}

void ClusterPatch::ReplaceForeignPod(const api::PodInfo* old,
                                     std::shared_ptr<const api::PodInfo> pod) {
  // Where the builder would put it: on its node when it holds room there.
  auto held_on = [this](const api::PodInfo* p) {
    if (p == nullptr || p->node_name.empty() || !api::OccupiesNode(p->status))
      return api::kNone;
    return cluster_.FindNode(p->node_name);
  };
  const api::NodeIndex from = held_on(old);
  const api::NodeIndex to = held_on(pod.get());
  TouchNode(from);
  TouchNode(to);
  if (from == api::kNone && to == api::kNone) return;
  // foreign_pods is in key order, as the cache's pods.
  std::vector<api::ForeignPod>& list = cluster_.foreign_pods;
  const std::string key = (pod != nullptr ? pod.get() : old)->Key();
  auto it =
      std::lower_bound(list.begin(), list.end(), key,
                       [](const api::ForeignPod& f, const std::string& k) {
                         return CompareKey(*f.pod, k) < 0;
                       });
  const bool listed = it != list.end() && CompareKey(*it->pod, key) == 0;
  if (to == api::kNone) {
    if (listed) list.erase(it);
  } else if (listed) {
    *it = {std::move(pod), to};
  } else {
    list.insert(it, {std::move(pod), to});
  }
}

void ClusterPatch::NodeSpecChanged(api::NodeIndex n) {
  specs_changed_ = true;
  TouchNode(n);
}

void ClusterPatch::ReplaceGroupJob(api::JobIndex j, api::JobInfo job) {
  api::JobInfo& now = cluster_.jobs[j];
  job.index = j;
  job.tasks = std::move(now.tasks);
  job.count_by_status = now.count_by_status;
  job.queue_index = cluster_.FindQueue(job.queue);
  now = std::move(job);
  TouchJob(j);
}

void ClusterPatch::Finish(const NodeSpecs& specs,
                          const CsiLimits& csi_limits) && {
  // A touched node is accounted again from nothing, in the builder's
  // order (other schedulers' pods in key order, then its tasks in index
  // order), so its host ports, volumes and generation come out the same.
  for (api::NodeIndex n : nodes_) {
    api::NodeInfo& node = cluster_.nodes[n];
    std::vector<api::TaskIndex> tasks = std::move(node.tasks());
    const std::string name = node.name();
    auto limits = csi_limits.find(name);
    node = api::NodeInfo(specs.at(name), n);
    if (limits != csi_limits.end()) node.SetVolumeLimits(limits->second);
    node.tasks() = std::move(tasks);
  }
  if (!nodes_.empty()) {
    for (const api::ForeignPod& f : cluster_.foreign_pods) {
      if (!node_touched_[f.node]) continue;
      cluster_.nodes[f.node].Add(f.pod->request, api::TaskStatus::kRunning,
                                 f.pod->host_ports, f.pod->csi_volumes);
    }
    for (api::NodeIndex n : nodes_) {
      api::NodeInfo& node = cluster_.nodes[n];
      for (api::TaskIndex t : node.tasks()) {
        const api::TaskInfo& task = cluster_.tasks[t];
        node.Add(task.request(), task.status, task.pod->host_ports,
                 task.pod->csi_volumes);
      }
    }
  }
  if (specs_changed_) {
    api::Resource total;
    for (const api::NodeInfo& n : cluster_.nodes) {
      if (n.spec().ready) total += n.allocatable();
    }
    cluster_.total_allocatable = std::move(total);
  }
  for (api::JobIndex j : jobs_) {
    api::JobInfo& job = cluster_.jobs[j];
    if (job.source == api::GroupSource::kSinglePod) {
      api::JobInfo single =
          SinglePodJob(*cluster_.tasks[job.tasks.front()].pod);
      single.index = j;
      single.tasks = std::move(job.tasks);
      single.count_by_status = job.count_by_status;
      single.queue_index = job.queue_index;
      job = std::move(single);
    } else if (job.source == api::GroupSource::kWorkload) {
      job.phase = job.ScheduledCount() > 0 ? api::PodGroupPhase::kRunning
                                           : api::PodGroupPhase::kPending;
    }
    if (job.source != api::GroupSource::kSinglePod &&
        job.priority_class.empty() && !job.priority_stated) {
      // A PodGroup without a class of its own ranks as its highest pod.
      job.priority = 0;
      for (api::TaskIndex t : job.tasks) {
        job.priority = std::max(job.priority, cluster_.tasks[t].pod->priority);
      }
    }
    // Pods came, went or changed labels, or the policies changed.
    api::PartitionSubGroups(cluster_, j);
  }
}

}  // namespace shoal::cache
