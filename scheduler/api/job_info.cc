#include "scheduler/api/job_info.h"

namespace shoal::api {

const char* PodGroupPhaseName(PodGroupPhase p) {
  switch (p) {
    case PodGroupPhase::kPending:
      return "Pending";
    case PodGroupPhase::kInqueue:
      return "Inqueue";
    case PodGroupPhase::kRunning:
      return "Running";
    case PodGroupPhase::kUnknown:
      return "Unknown";
    case PodGroupPhase::kCompleted:
      return "Completed";
  }
  return "Unknown";
}

int32_t JobInfo::ReadyCount() const {
  int32_t n = 0;
  for (int s = 0; s < kTaskStatusCount; ++s) {
    if (IsReadyStatus(static_cast<TaskStatus>(s))) n += count_by_status[s];
  }
  return n;
}

int32_t JobInfo::ValidCount() const {
  return static_cast<int32_t>(tasks.size()) - Count(TaskStatus::kFailed) -
         Count(TaskStatus::kReleasing);
}

bool JobInfo::RoleMinimumsApply() const {
  if (min_task_member.empty()) return false;
  int64_t total = 0;
  for (const auto& [role, min] : min_task_member) total += min;
  return min_member >= total;
}

int32_t JobInfo::ScheduledCount() const {
  return Count(TaskStatus::kBinding) + Count(TaskStatus::kBound) +
         Count(TaskStatus::kRunning);
}

bool JobInfo::PartlyBound() const {
  return source != GroupSource::kSinglePod && ScheduledCount() > 0 &&
         ReadyCount() < min_member && Count(TaskStatus::kPipelined) == 0;
}

}  // namespace shoal::api
