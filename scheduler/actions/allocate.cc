#include "scheduler/actions/allocate.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/actions/job_cursor.h"
#include "scheduler/actions/network_domains.h"
#include "scheduler/actions/node_picker.h"
#include "scheduler/actions/pending_jobs.h"
#include "scheduler/actions/sub_group_placement.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/statement.h"

namespace shoal::actions {
namespace {

using framework::Session;
using framework::Statement;

class Allocate : public framework::Action {
  enum class Attempt { kMore, kDone, kFailed };

 public:
  explicit Allocate(bool strict_order) : strict_order_(strict_order) {}

  void Execute(Session& s) override {
    // Jobs a queue's deserved share held back borrow what the first pass
    // left idle (Session::borrowing).
    if (!Pass(s)) return;
    s.set_borrowing(true);
    Pass(s);
    s.set_borrowing(false);
  }

 private:
  // Returns whether a queue's limit held back a job that still waits.
  bool Pass(Session& s) {
    PendingJobs jobs(s, [&s](api::JobInfo& job) {
      return job.PendingCount() > 0 && s.JobAdmitted(job) &&
             s.JobSchedulable(job, &job.message);
    });
    // No queue is passed over whole for being above its share: the tiers'
    // Allocatable answer decides task by task, so a queue above its share
    // of GPUs still places a job that asks for cpu only (a queue at its
    // share comes last in queue order anyway).
    // First every job's gang minimum, then growth: pods beyond a job's
    // minimum only get the room no minimum wanted.
    // Declared first: the cursors' pickers take heaps and storage from it
    // until they go.
    NodePicker::Shared shared;
    GrowthEarmarks earmarks(s);
    std::map<api::JobIndex, JobCursor> cursors;
    std::set<api::JobIndex> growing;
    bool held = false;
    auto held_back = [&s](api::JobIndex j, const JobCursor& cursor) {
      return cursor.held_by_queue && s.job(j).PendingCount() > 0;
    };
    for (api::JobIndex j = jobs.Next(); j != api::kNone; j = jobs.Next()) {
      // A job whose minimum is met waits for the growth phase: were it to
      // take a pod now, in job order (priority first), room that a gang
      // or lone pod behind it needs for its minimum would go to growth,
      // and preempt would evict that growth again for it, cycle after
      // cycle.
      if (s.Call<framework::JobReady>(s.job(j))) {
        growing.insert(j);
        continue;
      }
      JobCursor& cursor = CursorFor(s, j, shared, cursors);
      cursor.earmarks = &earmarks;
      if (PlaceSome(s, j, cursor)) {
        earmarks.Add(s, s.job(j));
        growing.insert(j);
        continue;
      }
      // strictOrder: a job that could not start blocks its queue, and the
      // jobs behind it say so.
      if (strict_order_ && !s.Call<framework::JobReady>(s.job(j))) {
        for (api::JobIndex behind : jobs.CloseQueueOf(j)) {
          s.job(behind).message =
              absl::StrCat("waiting behind podgroup ", s.job(j).Key(),
                           ", which cannot start yet (allocate strictOrder: "
                           "jobs of a queue start in order)");
        }
      }
      held |= held_back(j, cursor);
      cursors.erase(j);
    }
    if (!growing.empty()) {
      PendingJobs growers(
          s, [&](api::JobInfo& job) { return growing.count(job.index) > 0; });
      for (api::JobIndex j = growers.Next(); j != api::kNone;
           j = growers.Next()) {
        // Growing jobs take turns: their searches share heaps, which the
        // others' turns would leave stale (node_picker.h).
        JobCursor& cursor = CursorFor(s, j, shared, cursors);
        cursor.picker.ShareHeaps();
        if (PlaceSome(s, j, cursor)) growers.Push(j);
      }
    }
    for (const auto& [j, cursor] : cursors) held |= held_back(j, cursor);
    return held;
  }

  static JobCursor& CursorFor(Session& s, api::JobIndex j,
                              NodePicker::Shared& shared,
                              std::map<api::JobIndex, JobCursor>& cursors) {
    auto it = cursors.find(j);
    if (it == cursors.end()) {
      it = cursors.try_emplace(j, s, shared).first;
      JobCursor& cursor = it->second;
      cursor.tasks = TasksToPlace(s, s.job(j));
      if (s.job(j).ReadyCount() > 0) {
        cursor.confined = GrowthDomain(s, s.job(j));
        cursor.picker.RestrictToNodes(cursor.confined);
      }
    }
    return it->second;
  }

  // Places the job's tasks (PlaceIn); returns whether the job should get
  // another turn. A job whose PodGroup asks for a network domain is tried
  // in one domain after another (network_domains.h) and, under a hard
  // constraint, stays in the domain it got.
  static bool PlaceSome(Session& s, api::JobIndex j, JobCursor& cursor) {
    api::JobInfo& job = s.job(j);
    if (!job.sub_groups.empty()) return PlaceBySubGroups(s, j, cursor);
    if (job.network.mode == api::NetworkConstraint::Mode::kNone ||
        cursor.confined != nullptr) {
      return PlaceIn(s, j, cursor) == Attempt::kMore;
    }
    const DomainPlan plan =
        PlanDomains(s, job, cursor.tasks, cursor.next, cursor.earmarks);
    if (!plan.constrained) return PlaceIn(s, j, cursor) == Attempt::kMore;
    if (!plan.refusal.empty()) {
      job.fit_error = plan.refusal;
      job.waiting_on_network = true;
      return false;
    }
    const api::NetworkTopology& net = *s.network();
    const size_t first = cursor.next;
    std::vector<std::string> tried;
    for (int32_t d : plan.domains) {
      cursor.picker.RestrictToNodes(&net.domain(d).nodes);
      cursor.next = first;
      cursor.fit = JobCursor::Fit::kScores;
      const Attempt attempt = PlaceIn(s, j, cursor);
      if (attempt != Attempt::kFailed) {
        job.waiting_on_network = false;
        cursor.confined = GrowthDomain(s, job);
        cursor.picker.RestrictToNodes(cursor.confined);
        return attempt == Attempt::kMore;
      }
      tried.push_back(net.domain(d).name);
    }
    cursor.picker.RestrictToNodes(nullptr);
    cursor.next = first;
    cursor.fit = JobCursor::Fit::kScores;
    if (plan.anywhere) return PlaceIn(s, j, cursor) == Attempt::kMore;
    // A queue's limit said no: that is the reason, whatever the domain.
    if (cursor.held_by_queue) return false;
    job.waiting_on_network = true;
    // What stopped the last pod that found no node, in kube-scheduler's
    // words (room, a reservation, a placement rule).
    const std::string last = job.fit_error;
    job.fit_error = absl::StrCat(
        "no network domain could take the gang whole (", NetworkField(job), " ",
        DescribeConstraint(job.network), "): tried ",
        absl::StrJoin(tried, ", "),
        ", whose nodes' free room added up to enough for its pods",
        last.empty() ? std::string()
                     : absl::StrCat("; the pod that found no node: ", last));
    return false;
  }

  // Places the job's tasks until its gang is complete, and commits them
  // together; a job that is already running takes one more task per turn
  // (in the growth phase), so that jobs grow in the tiers' order (DRF and
  // elastic shares even out) rather than first come, first served. A gang
  // that is only complete counting pipelined tasks holds its room without
  // binding; one that cannot complete leaves no trace.
  //
  // A gang of unequal pods that cannot complete in the tiers' task order
  // and by the nodes' scores is tried again as a bin packer would: its
  // cheapest pods that make up the minimum, largest first, each on the
  // node it fits most tightly, and failing that on the first node it fits.
  // Placing small pods first, or on the emptiest node, can take the room
  // a large one needed although the whole gang fits.
  static Attempt PlaceIn(Session& s, api::JobIndex j, JobCursor& cursor) {
    const size_t first = cursor.next;
    Attempt attempt = TryPlace(s, j, cursor);
    if (attempt == Attempt::kFailed && !s.Call<framework::JobReady>(s.job(j)) &&
        first < cursor.tasks.size() &&
        WantsTogether(s.task(cursor.tasks[first]))) {
      // The first pod of a gang that must share a domain went where the
      // scores sent it; the gang may fit whole in another domain.
      for (const std::string& domain :
           cursor.picker.Domains(s.task(cursor.tasks[first]))) {
        cursor.picker.RestrictTo(domain);
        cursor.next = first;
        attempt = TryPlace(s, j, cursor);
        if (attempt != Attempt::kFailed) break;
      }
      cursor.picker.RestrictTo(std::nullopt);
      if (attempt == Attempt::kFailed) cursor.next = first;
    }
    if (attempt == Attempt::kFailed && cursor.fit == JobCursor::Fit::kScores &&
        !s.Call<framework::JobReady>(s.job(j)) && Unequal(s, cursor, first)) {
      PackingOrder(s, s.job(j), cursor, first);
      for (JobCursor::Fit fit :
           {JobCursor::Fit::kTightest, JobCursor::Fit::kFirst}) {
        cursor.fit = fit;
        cursor.next = first;
        attempt = TryPlace(s, j, cursor);
        if (attempt != Attempt::kFailed) break;
      }
      if (attempt == Attempt::kFailed && cursor.confined == nullptr)
        attempt = PlaceSharersNodeByNode(s, j, cursor, first);
      // Pods beyond the gang's minimum grow by the scores again.
      if (attempt != Attempt::kFailed) cursor.fit = JobCursor::Fit::kScores;
    }
    return attempt;
  }

  // Some pod of the gang shares a claim not allocated yet with pods after
  // it: wherever the first of them goes, the claim's devices go, and the
  // others must follow. The scores (and the packing order) may send it
  // to a node that holds the devices but not its sharers; it is tried on
  // each node whose room holds them all, one node at a time (at most
  // kMaxSharerNodes), the rest of the gang placed as before.
  static Attempt PlaceSharersNodeByNode(Session& s, api::JobIndex j,
                                        JobCursor& cursor, size_t first) {
    constexpr int kMaxSharerNodes = 64;
    const api::ClusterInfo& c = s.cluster();
    api::TaskIndex head = api::kNone;
    api::Resource together;
    for (size_t i = first; i < cursor.tasks.size() && head == api::kNone; ++i) {
      together = c.tasks[cursor.tasks[i]].request();
      for (size_t k = i + 1; k < cursor.tasks.size(); ++k) {
        if (!ShareAClaim(c, cursor.tasks[i], cursor.tasks[k])) continue;
        together += c.tasks[cursor.tasks[k]].request();
        head = cursor.tasks[i];
      }
    }
    if (head == api::kNone) return Attempt::kFailed;
    int tried = 0;
    Attempt attempt = Attempt::kFailed;
    for (const api::NodeInfo& n : c.nodes) {
      if (!together.FitsIn(n.idle())) continue;
      if (++tried > kMaxSharerNodes) break;
      cursor.pinned_task = head;
      cursor.pinned_node[0] = n.index();
      cursor.fit = JobCursor::Fit::kFirst;
      cursor.next = first;
      attempt = TryPlace(s, j, cursor);
      if (attempt != Attempt::kFailed) break;
    }
    cursor.pinned_task = api::kNone;
    if (attempt == Attempt::kFailed) cursor.next = first;
    return attempt;
  }

  // Has required pod affinity over a domain (zone, rack): its pods go
  // where the first one went.
  static bool WantsTogether(const api::TaskInfo& t) {
    if (t.pod->inter_pod == nullptr) return false;
    for (const auto& term : t.pod->inter_pod->required_affinity) {
      if (term.topology_key != api::kHostnameLabel) return true;
    }
    return false;
  }

  static Attempt TryPlace(Session& s, api::JobIndex j, JobCursor& cursor) {
    api::JobInfo& job = s.job(j);
    Statement stmt(s);
    bool explained = false;
    while (cursor.next < cursor.tasks.size()) {
      const PlaceStep step =
          PlaceTask(s, job, cursor, cursor.tasks[cursor.next], stmt, explained);
      if (step == PlaceStep::kHeld) break;
      if (step == PlaceStep::kNoNode) {
        ++cursor.next;
        // As Volcano's allocate: a pod that fits nowhere is passed over
        // while the pods after it can still complete the gang.
        if (MinimumReachable(s, job, cursor)) continue;
        break;
      }
      ++cursor.next;
      if (s.Call<framework::JobReady>(job)) {
        stmt.Commit();
        return cursor.next < cursor.tasks.size() ? Attempt::kMore
                                                 : Attempt::kDone;
      }
    }
    if (s.Call<framework::JobReady>(job)) {
      stmt.Commit();
      return Attempt::kDone;
    }
    if (s.Call<framework::JobPipelined>(job)) {
      stmt.Hold();
      return Attempt::kDone;
    }
    stmt.Discard();
    return Attempt::kFailed;
  }

  // Whether the cursor's tasks from `first` on differ in request (devices
  // a queue counts included), or some of them share a claim: an order
  // that places the sharers together may fit where the first did not.
  static bool Unequal(const Session& s, const JobCursor& cursor, size_t first) {
    if (first >= cursor.tasks.size()) return false;
    const api::ClusterInfo& c = s.cluster();
    const api::TaskInfo& head = c.tasks[cursor.tasks[first]];
    for (size_t i = first + 1; i < cursor.tasks.size(); ++i) {
      if (c.tasks[cursor.tasks[i]].counted() != head.counted()) return true;
    }
    for (size_t i = first; i < cursor.tasks.size(); ++i) {
      if (c.tasks[cursor.tasks[i]].pod->resource_claims.empty()) continue;
      for (size_t j = i + 1; j < cursor.tasks.size(); ++j) {
        if (ShareAClaim(c, cursor.tasks[i], cursor.tasks[j])) return true;
      }
    }
    return false;
  }

  static bool ShareAClaim(const api::ClusterInfo& c, api::TaskIndex a,
                          api::TaskIndex b) {
    const api::PodInfo& x = *c.tasks[a].pod;
    const api::PodInfo& y = *c.tasks[b].pod;
    if (x.ns != y.ns) return false;
    for (const api::PodClaim& p : x.resource_claims) {
      for (const api::PodClaim& q : y.resource_claims) {
        if (!p.claim.empty() && p.claim == q.claim) return true;
      }
    }
    return false;
  }

  // Reorders the cursor's tasks from `first` on for packing: the cheapest
  // that make up what the gang still needs (all of them when role
  // minimums apply), largest first, then the rest cheapest first.
  static void PackingOrder(const Session& s, const api::JobInfo& job,
                           JobCursor& cursor, size_t first) {
    const api::ClusterInfo& c = s.cluster();
    // Size: the dominant share of the cluster the pod asks for (devices
    // its claims count in queues included), then, among equals (eight
    // pods of one GPU each), the sum of its shares.
    auto size = [&c](api::TaskIndex t) {
      const api::Resource& r = c.tasks[t].counted();
      double sum = 0;
      for (size_t id = 0; id < r.size(); ++id) {
        auto rid = static_cast<api::ResourceId>(id);
        if (r.Get(rid) > 0 && c.total_allocatable.Get(rid) > 0) {
          sum += static_cast<double>(r.Get(rid)) / c.total_allocatable.Get(rid);
        }
      }
      return std::make_pair(r.DominantShare(c.total_allocatable), sum);
    };
    auto begin = cursor.tasks.begin() + first;
    std::stable_sort(
        begin, cursor.tasks.end(),
        [&](api::TaskIndex a, api::TaskIndex b) { return size(a) < size(b); });
    size_t need = cursor.tasks.size() - first;
    if (!job.RoleMinimumsApply()) {
      need = std::min<size_t>(need,
                              std::max(0, job.min_member - job.ReadyCount()));
    }
    std::stable_sort(
        begin, begin + need,
        [&](api::TaskIndex a, api::TaskIndex b) { return size(a) > size(b); });
    KeepSharersTogether(c, cursor, first);
  }

  // Moves the pods that share a claim with an earlier one right after it:
  // the first places the claim's devices, and the others, pinned to that
  // node, go there before other pods of the gang take its room.
  static void KeepSharersTogether(const api::ClusterInfo& c, JobCursor& cursor,
                                  size_t first) {
    std::vector<api::TaskIndex>& t = cursor.tasks;
    for (size_t i = first; i < t.size(); ++i) {
      if (c.tasks[t[i]].pod->resource_claims.empty()) continue;
      size_t next = i + 1;
      for (size_t j = i + 1; j < t.size(); ++j) {
        if (!ShareAClaim(c, t[i], t[j])) continue;
        std::rotate(t.begin() + next, t.begin() + j, t.begin() + j + 1);
        ++next;
      }
    }
  }

  // Whether the job's placed tasks plus those the cursor has not tried yet
  // can still cover minMember and every role minimum that applies.
  static bool MinimumReachable(const Session& s, const api::JobInfo& job,
                               const JobCursor& cursor) {
    const int32_t untried =
        static_cast<int32_t>(cursor.tasks.size() - cursor.next);
    if (job.ReadyCount() + untried < job.min_member) return false;
    if (!job.RoleMinimumsApply()) return true;
    const api::ClusterInfo& c = s.cluster();
    std::map<std::string, int32_t> reachable;
    for (api::TaskIndex t : job.tasks) {
      if (api::IsReadyStatus(c.tasks[t].status))
        ++reachable[c.tasks[t].pod->role];
    }
    for (size_t i = cursor.next; i < cursor.tasks.size(); ++i) {
      ++reachable[c.tasks[cursor.tasks[i]].pod->role];
    }
    for (const auto& [role, min] : job.min_task_member) {
      if (reachable[role] < min) return false;
    }
    return true;
  }

  bool strict_order_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Action>> NewAllocate(
    const framework::Arguments& args) {
  auto strict = args.GetBool("strictOrder", false);
  if (!strict.ok()) return strict.status();
  return std::make_unique<Allocate>(*strict);
}

}  // namespace shoal::actions
