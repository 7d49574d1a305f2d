#include "scheduler/api/node_info.h"

#include <algorithm>

namespace shoal::api {

NodeInfo::NodeInfo(std::shared_ptr<const NodeSpec> spec, NodeIndex index)
    : spec_(std::move(spec)), index_(index), idle_(spec_->allocatable) {}

void NodeInfo::ServeThroughDevices(ResourceId id, int64_t devices) {
  auto spec = std::make_shared<NodeSpec>(*spec_);
  spec->allocatable.Set(id, spec->allocatable.Get(id) + devices);
  spec->served_by_devices.push_back(id);
  spec_ = std::move(spec);
  idle_.Set(id, idle_.Get(id) + devices);
  ++generation_;
}

void NodeInfo::Add(const Resource& request, TaskStatus status,
                   const std::vector<HostPort>& ports,
                   const std::vector<CsiVolume>& volumes) {
  ++generation_;
  if (!OccupiesNode(status) && status != TaskStatus::kPipelined) return;
  host_ports_.insert(host_ports_.end(), ports.begin(), ports.end());
  for (const CsiVolume& v : volumes) {
    auto it =
        std::find_if(attached_.begin(), attached_.end(),
                     [&v](const AttachedVolume& a) { return a.volume == v; });
    if (it != attached_.end()) {
      ++it->pods;
    } else {
      attached_.push_back({v, 1});
    }
  }
  if (status == TaskStatus::kPipelined) {
    pipelined_ += request;
    return;
  }
  used_ += request;
  idle_ -= request;
  if (status == TaskStatus::kReleasing) releasing_ += request;
}

void NodeInfo::Remove(const Resource& request, TaskStatus status,
                      const std::vector<HostPort>& ports,
                      const std::vector<CsiVolume>& volumes) {
  ++generation_;
  if (!OccupiesNode(status) && status != TaskStatus::kPipelined) return;
  for (const HostPort& p : ports) {
    auto it = std::find(host_ports_.begin(), host_ports_.end(), p);
    if (it != host_ports_.end()) host_ports_.erase(it);
  }
  for (const CsiVolume& v : volumes) {
    auto it =
        std::find_if(attached_.begin(), attached_.end(),
                     [&v](const AttachedVolume& a) { return a.volume == v; });
    if (it != attached_.end() && --it->pods == 0) attached_.erase(it);
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

bool NodeInfo::Attached(const CsiVolume& v) const {
  for (const AttachedVolume& a : attached_) {
    if (a.volume == v) return true;
  }
  return false;
}

bool NodeInfo::VolumesFitSlow(const std::vector<CsiVolume>& wanted) const {
  for (const VolumeLimit& limit : *volume_limits_) {
    int64_t fresh = 0;
    for (const CsiVolume& w : wanted) {
      if (w.driver == limit.driver && !Attached(w)) ++fresh;
    }
    if (fresh == 0) continue;
    int64_t held = 0;
    for (const AttachedVolume& a : attached_)
      held += a.volume.driver == limit.driver;
    if (held + fresh > limit.count) return false;
  }
  return true;
}

}  // namespace shoal::api
