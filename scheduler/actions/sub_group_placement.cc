#include "scheduler/actions/sub_group_placement.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/actions/network_domains.h"

namespace shoal::actions {
namespace {

using framework::Session;
using framework::Statement;

enum class Attempt { kMore, kDone, kFailed };

// Stands for a job's pods that belong to no sub-group: each is placed on
// its own, as a sub-group of one without a network constraint.
constexpr int32_t kUngrouped = api::kNone;
// No sub-group left to place.
constexpr int32_t kNoGroup = -2;

// The sub-group to place next: first those the job's minSubGroups still
// need (not whole, of a policy short of whole sub-groups), then the rest,
// each in order of its first pending pod; kNoGroup when none is left.
int32_t NextGroup(const Session& s, const api::JobInfo& job,
                  const JobCursor& cursor, const std::set<int32_t>& failed) {
  const api::ClusterInfo& c = s.cluster();
  const std::vector<int32_t> ready =
      api::SubGroupsReady(c, job, /*with_pipelined=*/true);
  const std::vector<int32_t> whole = api::WholeByPolicy(job, ready);
  int32_t first = kNoGroup;
  for (api::TaskIndex t : cursor.tasks) {
    const api::TaskInfo& task = c.tasks[t];
    if (task.status != api::TaskStatus::kPending) continue;
    const int32_t g = task.sub_group;
    if (failed.count(g) > 0) continue;
    if (g == kUngrouped) {
      if (first == kNoGroup) first = g;
      continue;
    }
    const int32_t p = job.sub_groups[g].policy;
    const api::SubGroupPolicy& policy = job.sub_group_policies[p];
    if (whole[p] < policy.min_groups && ready[g] < job.sub_groups[g].size)
      return g;
    if (first == kNoGroup) first = g;
  }
  return first;
}

// Places sub-group `g` whole (its pods up to subGroupSize; one more pod
// once it is whole) inside one domain of its policy's within `d`;
// returns whether it did (otherwise the statement is as it was).
bool PlaceGroup(Session& s, api::JobIndex j, JobCursor& cursor, int32_t d,
                int32_t g, Statement& stmt) {
  api::JobInfo& job = s.job(j);
  const api::ClusterInfo& c = s.cluster();
  std::vector<api::TaskIndex> tasks;
  for (api::TaskIndex t : cursor.tasks) {
    if (c.tasks[t].sub_group == g &&
        c.tasks[t].status == api::TaskStatus::kPending) {
      tasks.push_back(t);
    }
  }
  size_t need = 1;
  const api::NetworkTopology* net = s.network();
  const std::vector<api::NodeIndex>* inside =
      d == api::kNone ? nullptr : &net->domain(d).nodes;
  std::vector<const std::vector<api::NodeIndex>*> candidates = {inside};
  if (g != kUngrouped) {
    const int32_t size = job.sub_groups[g].size;
    need = std::max(1, size - api::SubGroupReady(c, job, g, true));
    if (tasks.size() < need) {
      job.fit_error = absl::StrCat(
          "sub-group ", api::SubGroupName(job, g), " has ", tasks.size(),
          " pod(s) left to place, fewer than the ", need,
          " that make it whole (",
          job.sub_groups[g].leaf == api::kNone ? "subGroupSize " : "minCount ",
          size, ")");
      return false;
    }
    const DomainPlan plan = PlanSubGroupDomains(s, job, g, tasks, d);
    if (!plan.refusal.empty()) {
      job.fit_error = plan.refusal;
      return false;
    }
    if (plan.constrained) {
      candidates.clear();
      for (int32_t sub : plan.domains)
        candidates.push_back(&net->domain(sub).nodes);
      if (plan.anywhere) candidates.push_back(nullptr);
    }
  }
  const size_t mark = stmt.Mark();
  for (const std::vector<api::NodeIndex>* nodes : candidates) {
    cursor.picker.RestrictToNodes(nodes);
    size_t placed = 0;
    bool explained = false;
    for (api::TaskIndex t : tasks) {
      if (placed == need) break;
      const PlaceStep step = PlaceTask(s, job, cursor, t, stmt, explained);
      if (step == PlaceStep::kHeld) break;
      if (step == PlaceStep::kPlaced) ++placed;
    }
    cursor.picker.RestrictToNodes(nullptr);
    if (placed == need) return true;
    stmt.DiscardSince(mark);
    if (cursor.held_by_queue) return false;
  }
  return false;
}

// Places sub-groups inside domain `d` (kNone: anywhere) until the job is
// ready, and commits; see PlaceBySubGroups.
Attempt PlaceGroupsIn(Session& s, api::JobIndex j, JobCursor& cursor,
                      int32_t d) {
  api::JobInfo& job = s.job(j);
  Statement stmt(s);
  std::set<int32_t> failed = cursor.failed_groups;
  const bool was_ready = s.Call<framework::JobReady>(job);
  for (int32_t g = NextGroup(s, job, cursor, failed); g != kNoGroup;
       g = NextGroup(s, job, cursor, failed)) {
    if (!PlaceGroup(s, j, cursor, d, g, stmt)) {
      failed.insert(g);
      if (cursor.held_by_queue) break;
      continue;
    }
    if (s.Call<framework::JobReady>(job)) {
      stmt.Commit();
      // A running job's sub-groups that found no room now wait for the
      // next cycle; a starting job's may fit once it has a domain.
      if (was_ready) cursor.failed_groups = failed;
      return NextGroup(s, job, cursor, failed) == kNoGroup ? Attempt::kDone
                                                           : Attempt::kMore;
    }
  }
  if (was_ready) cursor.failed_groups = failed;
  if (!was_ready && s.Call<framework::JobPipelined>(job)) {
    stmt.Hold();
    return Attempt::kDone;
  }
  stmt.Discard();
  return Attempt::kFailed;
}

}  // namespace

// A job with sub-groups (api/sub_groups.h): inside each domain the job
// may take (network_domains.h), its sub-groups are placed one after
// another, each whole (subGroupSize pods) inside a domain of its own
// policy's, until the job is ready (minMember, minSubGroups); then it is
// committed. A running job takes one more sub-group (or one more pod of
// a whole one) per turn, inside the domain it runs in.
bool PlaceBySubGroups(Session& s, api::JobIndex j, JobCursor& cursor) {
  api::JobInfo& job = s.job(j);
  std::vector<int32_t> within;  // the job's domains to try; kNone: all
  const int32_t running_in =
      job.ReadyCount() > 0 ? GrowthDomainOf(s, job) : api::kNone;
  if (running_in == kNoDomain) {
    job.fit_error = absl::StrCat(
        "its pods already run wider than ", NetworkField(job), " (",
        DescribeConstraint(job.network), ") allows: it does not grow");
    return false;
  }
  if (running_in != api::kNone || job.ReadyCount() > 0 ||
      job.network.mode == api::NetworkConstraint::Mode::kNone) {
    within.push_back(running_in);
  } else {
    const DomainPlan plan = PlanDomains(s, job, cursor.tasks, 0);
    if (!plan.refusal.empty()) {
      job.fit_error = plan.refusal;
      job.waiting_on_network = true;
      return false;
    }
    within = plan.domains;
    if (!plan.constrained || plan.anywhere) within.push_back(api::kNone);
  }
  std::vector<std::string> tried;
  for (int32_t d : within) {
    const Attempt attempt = PlaceGroupsIn(s, j, cursor, d);
    if (attempt != Attempt::kFailed) {
      job.waiting_on_network = false;
      return attempt == Attempt::kMore;
    }
    if (d != api::kNone) tried.push_back(s.network()->domain(d).name);
  }
  if (cursor.held_by_queue || tried.empty() || job.ReadyCount() > 0)
    return false;
  job.waiting_on_network = true;
  const std::string last = job.fit_error;
  job.fit_error = absl::StrCat(
      "no network domain could take the gang whole with its sub-groups "
      "(",
      NetworkField(job), " ", DescribeConstraint(job.network), "): tried ",
      absl::StrJoin(tried, ", "),
      last.empty() ? std::string() : absl::StrCat("; last: ", last));
  return false;
}

}  // namespace shoal::actions
