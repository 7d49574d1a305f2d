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

// The job's sub-group counts now (JobCursor::GroupCounts).
const JobCursor::GroupCounts& CountsNow(const Session& s,
                                        const api::JobInfo& job,
                                        JobCursor& cursor) {
  JobCursor::GroupCounts& counts = cursor.group_counts;
  if (counts.at != job.status_changes) {
    counts.ready = api::SubGroupsReady(s.cluster(), job,
                                       /*with_pipelined=*/true);
    counts.whole = api::WholeByPolicy(job, counts.ready);
    counts.at = job.status_changes;
  }
  return counts;
}

// The sub-group to place next: first those the job's minSubGroups still
// need (not whole, of a policy short of whole sub-groups), then the rest,
// each in order of its first pending pod; kNoGroup when none is left.
int32_t NextGroup(const Session& s, const api::JobInfo& job, JobCursor& cursor,
                  const std::set<int32_t>& failed) {
  const api::ClusterInfo& c = s.cluster();
  const JobCursor::GroupCounts& counts = CountsNow(s, job, cursor);
  const std::vector<int32_t>& ready = counts.ready;
  const std::vector<int32_t>& whole = counts.whole;
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
bool PlaceGroupWithin(Session& s, api::JobIndex j, JobCursor& cursor, int32_t d,
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
    need = std::max(1, size - CountsNow(s, job, cursor).ready[g]);
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

// Whether policy `p` of the job is `ancestor` or lies under it.
bool Under(const api::JobInfo& job, int32_t p, int32_t ancestor) {
  for (; p != api::kNone; p = job.sub_group_policies[p].parent) {
    if (p == ancestor) return true;
  }
  return false;
}

// How many of composite `p`'s pending pods (each asking what its first
// asks) fit in domain `dom` as it stands, counted up to their number.
int64_t PodsThatFit(const Session& s, const api::JobInfo& job, int32_t p,
                    int32_t dom) {
  const api::ClusterInfo& c = s.cluster();
  const api::Resource* request = nullptr;
  int64_t pending = 0;
  for (api::TaskIndex t : job.tasks) {
    const api::TaskInfo& task = c.tasks[t];
    if (task.status != api::TaskStatus::kPending ||
        task.sub_group == api::kNone ||
        !Under(job, job.sub_groups[task.sub_group].policy, p))
      continue;
    if (request == nullptr) request = &task.pod->request;
    ++pending;
  }
  if (request == nullptr) return 0;
  int64_t fit = 0;
  for (api::NodeIndex n : s.network()->domain(dom).nodes) {
    api::Resource idle = c.nodes[n].FutureIdle();
    while (fit < pending && request->FitsIn(idle)) {
      idle -= *request;
      ++fit;
    }
    if (fit == pending) break;
  }
  return fit;
}

// The domains sub-group `g` may go in, within `d`, as the composites above
// it (a CompositePodGroup tree's, api/sub_groups.h) confine it: each
// composite with a topology key keeps everything under it inside one
// domain of that key's tier, the one its placed pods are in, or, while it
// has none, any of that tier inside its parent's (roomiest first: the
// first that takes it is kept). Empty when the key names no
// tier; {d} when nothing above the sub-group is confined.
std::vector<int32_t> CompositeDomains(const Session& s, const api::JobInfo& job,
                                      int32_t g, int32_t d) {
  std::vector<int32_t> within = {d};
  if (g == kUngrouped || job.sub_groups[g].leaf == api::kNone) return within;
  std::vector<int32_t> chain;  // the composites above g, root first
  for (int32_t p = job.sub_groups[g].policy; p != api::kNone;
       p = job.sub_group_policies[p].parent) {
    chain.insert(chain.begin(), p);
  }
  const api::NetworkTopology* net = s.network();
  const api::ClusterInfo& c = s.cluster();
  for (int32_t p : chain) {
    const api::NetworkConstraint& key = job.sub_group_policies[p].network;
    if (key.mode == api::NetworkConstraint::Mode::kNone) continue;
    const int32_t tier =
        net == nullptr ? 0 : net->TierNamed(key.highest_tier_name);
    if (tier == 0) return {};
    // Where the composite's placed pods are already.
    int32_t pinned = api::kNone;
    for (api::TaskIndex t : job.tasks) {
      const api::TaskInfo& task = c.tasks[t];
      if (task.node == api::kNone || task.sub_group == api::kNone) continue;
      if (!api::IsReadyStatus(task.status) &&
          task.status != api::TaskStatus::kPipelined)
        continue;
      if (!Under(job, job.sub_groups[task.sub_group].policy, p)) continue;
      for (int32_t dom : net->DomainsOf(task.node)) {
        if (net->domain(dom).tier == tier) pinned = dom;
      }
      break;
    }
    std::vector<int32_t> next;
    if (pinned != api::kNone) {
      next.push_back(pinned);
    } else {
      for (int32_t parent : within) {
        for (size_t dom = 0; dom < net->domains().size(); ++dom) {
          const api::TopologyDomain& domain = net->domain(dom);
          if (domain.tier != tier) continue;
          bool inside = parent == api::kNone;
          for (int32_t up = domain.parent; !inside && up != api::kNone;
               up = net->domain(up).parent) {
            inside = up == parent;
          }
          if (inside || static_cast<int32_t>(dom) == parent)
            next.push_back(static_cast<int32_t>(dom));
        }
      }
      // Roomiest first: the composite's pods are placed one sub-group at
      // a time without going back, so its first one goes where the most
      // of its pods fit.
      std::vector<int64_t> room(net->domains().size(), 0);
      for (int32_t dom : next) room[dom] = PodsThatFit(s, job, p, dom);
      std::stable_sort(next.begin(), next.end(), [&room](int32_t a, int32_t b) {
        return room[a] > room[b];
      });
    }
    within = std::move(next);
  }
  return within;
}

// Places sub-group `g` whole within `d` and inside the domains the
// composites above it confine it to; returns whether it did.
bool PlaceGroup(Session& s, api::JobIndex j, JobCursor& cursor, int32_t d,
                int32_t g, Statement& stmt) {
  const std::vector<int32_t> within = CompositeDomains(s, s.job(j), g, d);
  if (within.empty()) {
    api::JobInfo& job = s.job(j);
    job.fit_error = absl::StrCat(
        "no network domain has the tier name of a topology key above "
        "sub-group ",
        api::SubGroupName(job, g));
    return false;
  }
  for (int32_t inside : within) {
    if (PlaceGroupWithin(s, j, cursor, inside, g, stmt)) return true;
    if (cursor.held_by_queue) return false;
  }
  return false;
}

// Whether composite policy `p` has its own minimum whole in `whole`.
bool Satisfied(const api::JobInfo& job, const std::vector<int32_t>& whole,
               int32_t p) {
  return whole[p] >= std::max(1, job.sub_group_policies[p].min_groups);
}

bool Satisfied(const Session& s, const api::JobInfo& job, JobCursor& cursor,
               int32_t p) {
  return Satisfied(job, CountsNow(s, job, cursor).whole, p);
}

// The topmost composite between sub-group `g` and the root (the root
// excluded: the job's own minimum is the job's affair) that does not yet
// have its minimum whole, or kNone.
int32_t UnsatisfiedUnit(const Session& s, const api::JobInfo& job,
                        JobCursor& cursor, int32_t g) {
  if (g == kUngrouped || job.sub_groups[g].leaf == api::kNone)
    return api::kNone;
  const std::vector<int32_t>& whole = CountsNow(s, job, cursor).whole;
  int32_t unit = api::kNone;
  for (int32_t p = job.sub_groups[g].policy;
       p != api::kNone && job.sub_group_policies[p].parent != api::kNone;
       p = job.sub_group_policies[p].parent) {
    if (!Satisfied(job, whole, p)) unit = p;
  }
  return unit;
}

// Places the children of composite `p` (its leaves, then the composites
// under it, each of those whole or not at all) until `p` has its minimum
// whole; otherwise takes back what it placed and marks every sub-group
// under `p` failed. A composite short of its minimum binds nothing, as in
// kube-scheduler, even when the tree as a whole could run without it.
bool PlaceComposite(Session& s, api::JobIndex j, JobCursor& cursor, int32_t d,
                    int32_t p, Statement& stmt, std::set<int32_t>& failed) {
  const size_t mark = stmt.Mark();
  const api::JobInfo& job = s.job(j);
  for (size_t g = 0; g < job.sub_groups.size() && !Satisfied(s, job, cursor, p);
       ++g) {
    const auto group = static_cast<int32_t>(g);
    if (job.sub_groups[g].policy != p || failed.count(group) > 0) continue;
    if (CountsNow(s, job, cursor).ready[g] >= job.sub_groups[g].size) continue;
    if (!PlaceGroup(s, j, cursor, d, group, stmt)) failed.insert(group);
    if (cursor.held_by_queue) break;
  }
  for (size_t c = static_cast<size_t>(p) + 1;
       c < job.sub_group_policies.size() && !Satisfied(s, job, cursor, p) &&
       !cursor.held_by_queue;
       ++c) {
    if (job.sub_group_policies[c].parent != p || Satisfied(s, job, cursor, c))
      continue;
    PlaceComposite(s, j, cursor, d, static_cast<int32_t>(c), stmt, failed);
  }
  if (Satisfied(s, job, cursor, p)) return true;
  stmt.DiscardSince(mark);
  for (size_t g = 0; g < job.sub_groups.size(); ++g) {
    if (Under(job, job.sub_groups[g].policy, p))
      failed.insert(static_cast<int32_t>(g));
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
    // A sub-group under a composite short of its minimum goes with enough
    // of its siblings to make that composite whole, or not at all.
    const int32_t unit = UnsatisfiedUnit(s, job, cursor, g);
    const bool placed =
        unit == api::kNone
            ? PlaceGroup(s, j, cursor, d, g, stmt)
            : PlaceComposite(s, j, cursor, d, unit, stmt, failed);
    if (!placed) {
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
    const DomainPlan plan =
        PlanDomains(s, job, cursor.tasks, 0, cursor.earmarks);
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
