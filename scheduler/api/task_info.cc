#include "scheduler/api/task_info.h"

namespace shoal::api {

const char* TaskStatusName(TaskStatus s) {
  switch (s) {
    case TaskStatus::kPending:
      return "Pending";
    case TaskStatus::kAllocated:
      return "Allocated";
    case TaskStatus::kPipelined:
      return "Pipelined";
    case TaskStatus::kBinding:
      return "Binding";
    case TaskStatus::kBound:
      return "Bound";
    case TaskStatus::kRunning:
      return "Running";
    case TaskStatus::kReleasing:
      return "Releasing";
    case TaskStatus::kSucceeded:
      return "Succeeded";
    case TaskStatus::kFailed:
      return "Failed";
  }
  return "Unknown";
}

bool OccupiesNode(TaskStatus s) {
  switch (s) {
    case TaskStatus::kAllocated:
    case TaskStatus::kBinding:
    case TaskStatus::kBound:
    case TaskStatus::kRunning:
    case TaskStatus::kReleasing:
      return true;
    default:
      return false;
  }
}

bool HoldsShare(TaskStatus s) {
  return OccupiesNode(s) ? s != TaskStatus::kReleasing
                         : s == TaskStatus::kPipelined;
}

bool IsReadyStatus(TaskStatus s) {
  switch (s) {
    case TaskStatus::kAllocated:
    case TaskStatus::kBinding:
    case TaskStatus::kBound:
    case TaskStatus::kRunning:
    case TaskStatus::kSucceeded:
      return true;
    default:
      return false;
  }
}

bool HostPort::ConflictsWith(const HostPort& o) const {
  auto every = [](const std::string& ip) {
    return ip.empty() || ip == "0.0.0.0";
  };
  return port == o.port && protocol == o.protocol &&
         (ip == o.ip || every(ip) || every(o.ip));
}

bool TaskInfo::PlacedAlike(const TaskInfo& other) const {
  return topology_class == other.topology_class &&
         claims_class == other.claims_class && request() == other.request() &&
         pod->host_ports == other.pod->host_ports &&
         pod->csi_volumes == other.pod->csi_volumes &&
         (pod->placement == other.pod->placement ||
          placement() == other.placement());
}

bool TaskInfo::best_effort() const {
  // Devices a queue counts are something asked for: such a pod goes
  // through allocate, which asks the queue, not backfill.
  const Resource& r = counted();
  for (size_t id = 0; id < r.size(); ++id) {
    if (id != kPods && r.Get(static_cast<ResourceId>(id)) != 0) return false;
  }
  return true;
}

}  // namespace shoal::api
