#include "scheduler/admin/group_standing.h"

#include <algorithm>
#include <cstdint>
#include <functional>

#include "absl/strings/str_cat.h"
#include "scheduler/api/sub_groups.h"

namespace shoal::admin {

std::vector<v1::GroupStanding> GroupStandings(const api::ClusterInfo& c,
                                              const api::JobInfo& job) {
  std::vector<v1::GroupStanding> rows;
  if (job.sub_group_policies.empty()) return rows;
  const std::vector<int32_t> ready = api::SubGroupsReady(c, job);
  const std::vector<int32_t> whole = api::WholeByPolicy(job, ready);
  std::vector<int32_t> pods(job.sub_groups.size(), 0);
  std::vector<int32_t> pending(job.sub_groups.size(), 0);
  for (api::TaskIndex t : job.tasks) {
    const api::TaskInfo& task = c.tasks[t];
    if (task.sub_group == api::kNone) continue;
    ++pods[task.sub_group];
    if (task.status == api::TaskStatus::kPending) ++pending[task.sub_group];
  }
  const auto policy_count = static_cast<int32_t>(job.sub_group_policies.size());
  const auto group_count = static_cast<int32_t>(job.sub_groups.size());

  std::function<void(int32_t, int32_t)> add = [&](int32_t p, int32_t depth) {
    const api::SubGroupPolicy& policy = job.sub_group_policies[p];
    std::vector<int32_t> children;
    for (int32_t q = p + 1; q < policy_count; ++q) {
      if (job.sub_group_policies[q].parent == p) children.push_back(q);
    }
    // A tree's leaves are listed as the composite names them, with pods
    // or not; Volcano's sub-groups exist only as their pods form them.
    std::vector<v1::GroupStanding> groups;
    auto group_row = [&](int32_t g, const std::string& name, int32_t size) {
      v1::GroupStanding row;
      row.set_name(name);
      row.set_kind(policy.composite ? "PodGroup" : "subGroup");
      row.set_depth(depth + 1);
      row.set_needs(size);
      if (g != api::kNone) {
        row.set_of(pods[g]);
        row.set_whole(ready[g]);
        row.set_pending(pending[g]);
      }
      groups.push_back(std::move(row));
    };
    if (policy.composite) {
      for (int32_t l = 0; l < static_cast<int32_t>(policy.leaves.size()); ++l) {
        int32_t found = api::kNone;
        for (int32_t g = 0; g < group_count; ++g) {
          if (job.sub_groups[g].policy == p && job.sub_groups[g].leaf == l)
            found = g;
        }
        group_row(found, policy.leaves[l].name, policy.leaves[l].min_count);
      }
    } else {
      for (int32_t g = 0; g < group_count; ++g) {
        if (job.sub_groups[g].policy == p)
          group_row(g, api::SubGroupName(job, g), job.sub_groups[g].size);
      }
    }
    v1::GroupStanding& row = rows.emplace_back();
    row.set_name(policy.name);
    row.set_kind(policy.composite ? "CompositePodGroup" : "subGroupPolicy");
    row.set_depth(depth);
    // A composite under another counts as one of its parent's groups once
    // its own minGroupCount is whole, and at least one group even where
    // that says 0 (WholeByPolicy).
    row.set_needs(policy.parent == api::kNone ? policy.min_groups
                                              : std::max(1, policy.min_groups));
    row.set_of(static_cast<int32_t>(groups.size() + children.size()));
    row.set_whole(whole[p]);
    for (v1::GroupStanding& g : groups) rows.push_back(std::move(g));
    for (int32_t q : children) add(q, depth + 1);
  };
  for (int32_t p = 0; p < policy_count; ++p) {
    if (job.sub_group_policies[p].parent == api::kNone) add(p, 0);
  }
  return rows;
}

api::JobIndex TreeHolding(const api::ClusterInfo& c, const std::string& key) {
  for (api::JobIndex j = 0; j < static_cast<api::JobIndex>(c.jobs.size());
       ++j) {
    const api::JobInfo& job = c.jobs[j];
    if (job.source != api::GroupSource::kCompositeTree) continue;
    for (const api::SubGroupPolicy& policy : job.sub_group_policies) {
      if (absl::StrCat(job.ns, "/", policy.name) == key) return j;
      for (const api::LeafPodGroup& leaf : policy.leaves) {
        if (absl::StrCat(job.ns, "/", leaf.name) == key) return j;
      }
    }
  }
  return api::kNone;
}

bool CountsPods(const v1::GroupStanding& row) {
  return row.kind() == "PodGroup" || row.kind() == "subGroup";
}

std::string GroupVerdict(const v1::GroupStanding& row) {
  const int32_t short_of = row.needs() - row.whole();
  if (short_of <= 0) return "whole";
  return absl::StrCat("short of ", short_of, " ",
                      CountsPods(row) ? "pod" : "group",
                      short_of == 1 ? "" : "s");
}

}  // namespace shoal::admin
