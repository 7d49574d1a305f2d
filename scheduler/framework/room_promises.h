// Room promised to a job across cycles. An action that evicts so that a
// particular job fits (consolidate) decides in one cycle, but the room it
// frees is taken in a later one: the evicted pods must terminate first,
// and a moved pod comes back as a new pending pod that its controller
// makes. Until then the room on that node is the job's: every other job's
// pods see the node's room less what is promised, so a pod created in the
// meantime (or the moved pod's own replacement, back where it was) cannot
// take it. A promise lapses when its job has no pending pod left, when
// the job is gone, or at its deadline, whichever comes first.
//
// Kept in the Policy, like the plugins' memory: a new configuration
// starts with none. kube-scheduler's nominated node is the same idea
// for one pod.
#ifndef SHOAL_SCHEDULER_FRAMEWORK_ROOM_PROMISES_H_
#define SHOAL_SCHEDULER_FRAMEWORK_ROOM_PROMISES_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/api/cluster_info.h"

namespace shoal::framework {

struct RoomPromise {
  std::string job;   // ns/name (JobInfo::Key): it outlives pod uids
  std::string node;  // node name: indexes change between snapshots
  api::Resource room;
  absl::Time until;
};

// A promise as one session sees it.
struct HeldRoom {
  api::JobIndex job;
  api::Resource room;
};

class RoomPromises {
 public:
  void Add(RoomPromise promise) { promises_.push_back(std::move(promise)); }
  // Drops the promises lapsed in `cluster` (deadline passed, job gone or
  // with nothing pending, node gone) and returns the rest by node index
  // (empty when none is held anywhere, so that checks cost nothing).
  std::vector<std::vector<HeldRoom>> Hold(const api::ClusterInfo& cluster);
  const std::vector<RoomPromise>& all() const { return promises_; }

 private:
  std::vector<RoomPromise> promises_;
};

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_ROOM_PROMISES_H_
