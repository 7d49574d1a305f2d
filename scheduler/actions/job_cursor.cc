#include "scheduler/actions/job_cursor.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"

namespace shoal::actions {
namespace {

using framework::Session;
using framework::Statement;

constexpr char kDeservedShareReached[] =
    " has reached its deserved share of the cluster";
constexpr char kCapabilityReached[] =
    " is full (its capability, or the cluster less other queues' "
    "guarantees, is reached)";

// "queue ml", or, when a queue above it is the one at its limit, "queue
// eng, above queue ml,": the highest queue on the path that refuses the
// task (asked only once the task is refused).
std::string HoldingQueue(const Session& s, const api::QueueInfo& queue,
                         const api::TaskInfo& task) {
  const api::ClusterInfo& c = s.cluster();
  std::vector<int32_t> path;
  for (int32_t at = queue.index; at != api::kNone;
       at = c.queues[at].parent_index) {
    path.push_back(at);
  }
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    if (*it == queue.index) break;
    if (!s.Call<framework::Allocatable>(c.queues[*it], task)) {
      return absl::StrCat("queue ", c.queues[*it].name, ", above queue ",
                          queue.name, ",");
    }
  }
  return absl::StrCat("queue ", queue.name);
}

}  // namespace

std::vector<api::TaskIndex> TasksToPlace(Session& s, const api::JobInfo& job) {
  std::vector<api::TaskIndex> tasks;
  for (api::TaskIndex t : job.tasks) {
    const api::TaskInfo& task = s.task(t);
    if (task.status == api::TaskStatus::kPending && !task.best_effort()) {
      tasks.push_back(t);
    }
  }
  std::stable_sort(tasks.begin(), tasks.end(),
                   [&s](api::TaskIndex a, api::TaskIndex b) {
                     return s.TaskBefore(s.task(a), s.task(b));
                   });
  return tasks;
}

PlaceStep PlaceTask(Session& s, api::JobInfo& job, JobCursor& cursor,
                    api::TaskIndex t, Statement& stmt, bool& explained) {
  const api::TaskInfo& task = s.task(t);
  const api::QueueInfo& queue = s.cluster().queues[job.queue_index];
  if (!s.Call<framework::Allocatable>(queue, task)) {
    cursor.held_by_queue = true;
    // While borrowing, only the queue's capability still stops it.
    job.fit_error = absl::StrCat(
        HoldingQueue(s, queue, task),
        s.borrowing() ? kCapabilityReached : kDeservedShareReached);
    return PlaceStep::kHeld;
  }
  const bool pinned = t == cursor.pinned_task;
  if (pinned) cursor.picker.RestrictToNodes(&cursor.pinned_node);
  api::NodeIndex n =
      cursor.fit == JobCursor::Fit::kTightest ? cursor.picker.TightestFit(task)
      : cursor.fit == JobCursor::Fit::kFirst  ? cursor.picker.FirstFit(task)
                                              : cursor.picker.Best(task);
  if (pinned) cursor.picker.RestrictToNodes(cursor.confined);
  if (n != api::kNone) {
    stmt.Allocate(t, n);
  } else if (s.any_releasing() &&
             (n = cursor.picker.BestAfterEvictions(task)) != api::kNone) {
    stmt.Pipeline(t, n);
  } else {
    if (!explained) job.fit_error = s.ExplainUnplaced(task);
    explained = true;
    return PlaceStep::kNoNode;
  }
  return PlaceStep::kPlaced;
}

}  // namespace shoal::actions
