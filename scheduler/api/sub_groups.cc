#include "scheduler/api/sub_groups.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/api/cluster_info.h"

namespace shoal::api {
namespace {

// Whether name `a` comes before `b` with runs of digits compared as
// numbers ("worker-2" before "worker-10"), so that sub-groups cut by size
// follow the replicas' indices.
bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei])))
        ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej])))
        ++ej;
      // Without leading zeros, the longer run is the larger number.
      size_t zi = i, zj = j;
      while (zi + 1 < ei && a[zi] == '0') ++zi;
      while (zj + 1 < ej && b[zj] == '0') ++zj;
      if (ei - zi != ej - zj) return ei - zi < ej - zj;
      const int cmp = a.compare(zi, ei - zi, b, zj, ej - zj);
      if (cmp != 0) return cmp < 0;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

// The policy's key for the pod: its matchLabelKeys' values joined, or
// nullopt when the pod is not under this policy.
std::optional<std::string> KeyUnder(const SubGroupPolicy& p,
                                    const Labels& labels) {
  if (p.selector.has_value() && !p.selector->Matches(labels))
    return std::nullopt;
  std::vector<std::string> values;
  for (const std::string& key : p.match_label_keys) {
    const std::string* v = labels.Find(key);
    if (v == nullptr || v->empty()) return std::nullopt;
    values.push_back(*v);
  }
  return absl::StrJoin(values, "-");
}

}  // namespace

void PartitionSubGroups(ClusterInfo& c, JobIndex j) {
  JobInfo& job = c.jobs[j];
  job.sub_groups.clear();
  for (TaskIndex t : job.tasks) c.tasks[t].sub_group = kNone;
  if (job.sub_group_policies.empty()) return;
  // A composite tree's leaves, by the PodGroup name pods give.
  std::map<std::string, std::pair<int32_t, int32_t>> leaf_of;
  for (size_t p = 0; p < job.sub_group_policies.size(); ++p) {
    const SubGroupPolicy& policy = job.sub_group_policies[p];
    for (size_t l = 0; l < policy.leaves.size(); ++l) {
      leaf_of.emplace(
          policy.leaves[l].name,
          std::make_pair(static_cast<int32_t>(p), static_cast<int32_t>(l)));
    }
  }
  // (policy, key) -> tasks; for a policy without keys, its tasks in order
  // of their names, cut into sub-groups afterwards.
  std::map<std::pair<int32_t, std::string>, std::vector<TaskIndex>> keyed;
  std::vector<std::vector<TaskIndex>> unkeyed(job.sub_group_policies.size());
  for (TaskIndex t : job.tasks) {
    const PodInfo& pod = *c.tasks[t].pod;
    if (!leaf_of.empty()) {
      auto it = leaf_of.find(pod.group);
      if (it != leaf_of.end())
        keyed[{it->second.first, pod.group}].push_back(t);
      continue;
    }
    for (size_t p = 0; p < job.sub_group_policies.size(); ++p) {
      const SubGroupPolicy& policy = job.sub_group_policies[p];
      std::optional<std::string> key = KeyUnder(policy, pod.labels);
      if (!key.has_value()) continue;
      if (policy.match_label_keys.empty()) {
        unkeyed[p].push_back(t);
      } else {
        keyed[{static_cast<int32_t>(p), *key}].push_back(t);
      }
      break;
    }
  }
  for (size_t p = 0; p < unkeyed.size(); ++p) {
    std::vector<TaskIndex>& tasks = unkeyed[p];
    std::stable_sort(
        tasks.begin(), tasks.end(), [&c](TaskIndex a, TaskIndex b) {
          return NaturalLess(c.tasks[a].pod->name, c.tasks[b].pod->name);
        });
    const size_t size = std::max(1, job.sub_group_policies[p].size);
    for (size_t i = 0; i < tasks.size(); ++i) {
      // Zero-padded so that the map keeps the sub-groups in order.
      std::string key = absl::StrCat(i / size);
      key.insert(0, 10 - std::min<size_t>(10, key.size()), '0');
      keyed[{static_cast<int32_t>(p), key}].push_back(tasks[i]);
    }
  }
  for (auto& [id, tasks] : keyed) {
    const auto g = static_cast<int32_t>(job.sub_groups.size());
    const SubGroupPolicy& policy = job.sub_group_policies[id.first];
    SubGroup group{id.first, id.second, std::max(1, policy.size), kNone};
    if (auto leaf = leaf_of.find(id.second); leaf != leaf_of.end()) {
      group.leaf = leaf->second.second;
      group.size = std::max(1, policy.leaves[group.leaf].min_count);
    } else if (policy.match_label_keys.empty()) {
      group.key.erase(
          0, std::min(group.key.find_first_not_of('0'), group.key.size() - 1));
    }
    job.sub_groups.push_back(std::move(group));
    for (TaskIndex t : tasks) c.tasks[t].sub_group = g;
  }
}

const NetworkConstraint& SubGroupNetwork(const JobInfo& job, int32_t g) {
  const SubGroup& group = job.sub_groups[g];
  const SubGroupPolicy& policy = job.sub_group_policies[group.policy];
  return group.leaf == kNone ? policy.network
                             : policy.leaves[group.leaf].network;
}

std::string SubGroupName(const JobInfo& job, int32_t group) {
  const SubGroup& g = job.sub_groups[group];
  return absl::StrCat(job.sub_group_policies[g.policy].name, "/", g.key);
}

namespace {

bool Counts(const TaskInfo& task, bool with_pipelined) {
  return IsReadyStatus(task.status) ||
         (with_pipelined && task.status == TaskStatus::kPipelined);
}

}  // namespace

int32_t SubGroupReady(const ClusterInfo& c, const JobInfo& job, int32_t group,
                      bool with_pipelined) {
  int32_t n = 0;
  for (TaskIndex t : job.tasks) {
    const TaskInfo& task = c.tasks[t];
    if (task.sub_group == group && Counts(task, with_pipelined)) ++n;
  }
  return n;
}

std::vector<int32_t> SubGroupsReady(const ClusterInfo& c, const JobInfo& job,
                                    bool with_pipelined) {
  std::vector<int32_t> ready(job.sub_groups.size(), 0);
  for (TaskIndex t : job.tasks) {
    const TaskInfo& task = c.tasks[t];
    if (task.sub_group != kNone && Counts(task, with_pipelined))
      ++ready[task.sub_group];
  }
  return ready;
}

std::vector<int32_t> WholeByPolicy(const JobInfo& job,
                                   const std::vector<int32_t>& ready) {
  std::vector<int32_t> whole(job.sub_group_policies.size(), 0);
  for (size_t g = 0; g < job.sub_groups.size(); ++g) {
    if (ready[g] >= job.sub_groups[g].size) ++whole[job.sub_groups[g].policy];
  }
  // Children after their parents: the last policies are settled first.
  for (size_t p = job.sub_group_policies.size(); p-- > 0;) {
    const SubGroupPolicy& policy = job.sub_group_policies[p];
    if (policy.parent != kNone && whole[p] >= std::max(1, policy.min_groups))
      ++whole[policy.parent];
  }
  return whole;
}

bool SubGroupsSatisfied(const JobInfo& job, const std::vector<int32_t>& ready) {
  const std::vector<int32_t> whole = WholeByPolicy(job, ready);
  for (size_t p = 0; p < job.sub_group_policies.size(); ++p) {
    const SubGroupPolicy& policy = job.sub_group_policies[p];
    if (policy.parent == kNone && whole[p] < policy.min_groups) return false;
  }
  return true;
}

namespace {

// "sub-group policy worker" or "compositepodgroup ml/root": what the
// messages call policy `p`.
std::string PolicyNoun(const JobInfo& job, size_t p) {
  const SubGroupPolicy& policy = job.sub_group_policies[p];
  return policy.composite
             ? absl::StrCat("compositepodgroup ", job.ns, "/", policy.name)
             : absl::StrCat("sub-group policy ", policy.name);
}

// The field naming policy `p`'s minimum, as its object spells it.
std::string MinimumField(const JobInfo& job, size_t p) {
  return job.sub_group_policies[p].composite
             ? "spec.schedulingPolicy.gang.minGroupCount"
             : absl::StrCat("spec.subGroupPolicy[", p, "].minSubGroups");
}

}  // namespace

std::string SubGroupsShort(const ClusterInfo& c, const JobInfo& job,
                           bool with_pipelined) {
  if (job.sub_groups.empty()) return SubGroupsTooFew(job);
  const std::vector<int32_t> whole =
      WholeByPolicy(job, SubGroupsReady(c, job, with_pipelined));
  for (size_t p = 0; p < job.sub_group_policies.size(); ++p) {
    const SubGroupPolicy& policy = job.sub_group_policies[p];
    if (policy.parent != kNone || whole[p] >= policy.min_groups) continue;
    if (policy.composite) {
      return absl::StrCat(whole[p], " of ", PolicyNoun(job, p),
                          "'s groups are placed whole, ", MinimumField(job, p),
                          " is ", policy.min_groups);
    }
    return absl::StrCat(whole[p], " of ", PolicyNoun(job, p),
                        "'s sub-groups are placed whole, minSubGroups is ",
                        policy.min_groups);
  }
  return "";
}

std::string SubGroupsTooFew(const JobInfo& job) {
  // Each policy's groups that have the pods to be whole: its sub-groups
  // and the composites under it that have enough such groups themselves
  // (children are listed after their parents, so settled first). Only
  // the job's own policies must have enough: a composite short of pods
  // keeps itself out, not the tree.
  std::vector<int32_t> groups(job.sub_group_policies.size(), 0);
  for (const SubGroup& g : job.sub_groups) ++groups[g.policy];
  for (size_t p = job.sub_group_policies.size(); p-- > 0;) {
    const SubGroupPolicy& policy = job.sub_group_policies[p];
    if (policy.parent != kNone && groups[p] >= std::max(1, policy.min_groups))
      ++groups[policy.parent];
  }
  for (size_t p = 0; p < job.sub_group_policies.size(); ++p) {
    const SubGroupPolicy& policy = job.sub_group_policies[p];
    if (policy.parent != kNone || groups[p] >= policy.min_groups) continue;
    if (policy.composite) {
      return absl::StrCat("not enough groups for the gang: ",
                          PolicyNoun(job, p), " has ", groups[p], " group",
                          groups[p] == 1 ? "" : "s", " with the pods to run, ",
                          MinimumField(job, p), " is ", policy.min_groups);
    }
    return absl::StrCat("not enough sub-groups for the gang: its pods form ",
                        groups[p], " sub-group", groups[p] == 1 ? "" : "s",
                        " of policy ", policy.name, ", ", MinimumField(job, p),
                        " is ", policy.min_groups);
  }
  return "";
}

}  // namespace shoal::api
