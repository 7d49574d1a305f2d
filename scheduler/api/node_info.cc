#include "scheduler/api/node_info.h"

namespace shoal::api {

NodeInfo::NodeInfo(std::shared_ptr<const NodeSpec> spec)
    : spec_(std::move(spec)), idle_(spec_->allocatable) {}

void NodeInfo::Add(const Resource& request, TaskStatus status) {
  ++generation_;
  if (!OccupiesNode(status) && status != TaskStatus::kPipelined) return;
  if (status == TaskStatus::kPipelined) {
    pipelined_ += request;
    return;
  }
  used_ += request;
  idle_ -= request;
  if (status == TaskStatus::kReleasing) releasing_ += request;
}

void NodeInfo::Remove(const Resource& request, TaskStatus status) {
  ++generation_;
  if (!OccupiesNode(status) && status != TaskStatus::kPipelined) return;
  if (status == TaskStatus::kPipelined) {
    pipelined_ -= request;
    return;
  }
  used_ -= request;
  idle_ += request;
  if (status == TaskStatus::kReleasing) releasing_ -= request;
}

}  // namespace shoal::api
