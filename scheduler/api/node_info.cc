#include "scheduler/api/node_info.h"

#include <algorithm>

namespace shoal::api {

NodeInfo::NodeInfo(std::shared_ptr<const NodeSpec> spec)
    : spec_(std::move(spec)), idle_(spec_->allocatable) {}

void NodeInfo::Add(const Resource& request, TaskStatus status,
                   const std::vector<HostPort>& ports) {
  ++generation_;
  if (!OccupiesNode(status) && status != TaskStatus::kPipelined) return;
  host_ports_.insert(host_ports_.end(), ports.begin(), ports.end());
  if (status == TaskStatus::kPipelined) {
    pipelined_ += request;
    return;
  }
  used_ += request;
  idle_ -= request;
  if (status == TaskStatus::kReleasing) releasing_ += request;
}

void NodeInfo::Remove(const Resource& request, TaskStatus status,
                      const std::vector<HostPort>& ports) {
  ++generation_;
  if (!OccupiesNode(status) && status != TaskStatus::kPipelined) return;
  for (const HostPort& p : ports) {
    auto it = std::find(host_ports_.begin(), host_ports_.end(), p);
    if (it != host_ports_.end()) host_ports_.erase(it);
  }
  if (status == TaskStatus::kPipelined) {
    pipelined_ -= request;
    return;
  }
  used_ -= request;
  idle_ += request;
  if (status == TaskStatus::kReleasing) releasing_ -= request;
}

bool NodeInfo::HostPortsFree(const std::vector<HostPort>& wanted) const {
  for (const HostPort& w : wanted) {
    for (const HostPort& held : host_ports_) {
      if (w.ConflictsWith(held)) return false;
    }
  }
  return true;
}

}  // namespace shoal::api
