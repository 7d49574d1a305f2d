// A node and what is placed on it. The static part (labels, taints,
// allocatable) is shared between snapshots; the accounting is per snapshot.
#ifndef SHOAL_SCHEDULER_API_NODE_INFO_H_
#define SHOAL_SCHEDULER_API_NODE_INFO_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/api/placement.h"
#include "scheduler/api/resource.h"
#include "scheduler/api/task_info.h"
#include "scheduler/api/volume.h"

namespace shoal::api {

struct NodeSpec {
  std::string name;
  Labels labels;
  std::vector<Taint> taints;
  bool unschedulable = false;  // spec.unschedulable (cordoned)
  bool ready = true;           // Ready condition is True
  Resource allocatable;
  // Extended resources the node does not publish itself but serves
  // through DRA devices of the class they name (KEP-5004): their
  // allocatable is the devices of that class the node reaches, set at
  // session open (dra/extended_resources.h).
  std::vector<ResourceId> served_by_devices;
};

class NodeInfo {
 public:
  // `index`: the node's position in ClusterInfo::nodes (ClusterBuilder
  // sets it); kNone for a node outside any cluster.
  explicit NodeInfo(std::shared_ptr<const NodeSpec> spec,
                    NodeIndex index = kNone);

  // Position in ClusterInfo::nodes, so that code handed a node need not
  // recover it from the vector's address.
  NodeIndex index() const { return index_; }
  const NodeSpec& spec() const { return *spec_; }
  const std::string& name() const { return spec_->name; }
  const Resource& allocatable() const { return spec_->allocatable; }

  // Resources held by pods on the node (any scheduler), including those
  // being released.
  const Resource& used() const { return used_; }
  // allocatable - used, kept current on every change.
  const Resource& idle() const { return idle_; }
  // Held by pods being evicted: free once they are gone.
  const Resource& releasing() const { return releasing_; }
  // Promised to pipelined tasks waiting for those evictions.
  const Resource& pipelined() const { return pipelined_; }
  // idle + releasing - pipelined: what a pipelined task may count on.
  Resource FutureIdle() const { return idle_ + releasing_ - pipelined_; }

  // Accounts a task in `status` on this node, with the host ports it binds
  // and the CSI volumes it attaches. Statuses that hold nothing (pending,
  // succeeded, failed) only bump the generation.
  void Add(const Resource& request, TaskStatus status,
           const std::vector<HostPort>& ports = {},
           const std::vector<CsiVolume>& volumes = {});
  void Remove(const Resource& request, TaskStatus status,
              const std::vector<HostPort>& ports = {},
              const std::vector<CsiVolume>& volumes = {});
  // The node serves extended resource `id`, which it does not publish,
  // through `devices` DRA devices (NodeSpec::served_by_devices): its
  // allocatable and idle gain them.
  void ServeThroughDevices(ResourceId id, int64_t devices);
  // None of `wanted` conflicts with a host port bound (or promised to a
  // pipelined pod) on this node.
  bool HostPortsFree(const std::vector<HostPort>& wanted) const;

  // The node's attach limit per CSI driver (its CSINode's
  // spec.drivers[].allocatable.count); null, or a driver left out, means
  // no limit.
  void SetVolumeLimits(std::shared_ptr<const std::vector<VolumeLimit>> limits) {
    volume_limits_ = std::move(limits);
  }
  const std::vector<VolumeLimit>* volume_limits() const {
    return volume_limits_.get();
  }
  // kube-scheduler's NodeVolumeLimits (CSI): for every driver with a
  // limit, the distinct volumes attached by the pods on the node plus
  // those of `wanted` (one pod's, unique) not attached yet stay within it.
  // A volume shared by several pods counts once.
  bool VolumesFit(const std::vector<CsiVolume>& wanted) const {
    return wanted.empty() || volume_limits_ == nullptr ||
           VolumesFitSlow(wanted);
  }
  // Distinct CSI volumes attached (or promised to pipelined pods) here.
  int AttachedVolumeCount() const { return static_cast<int>(attached_.size()); }

  // Bumped on every change, so caches keyed on a node can tell they are
  // stale without comparing resources.
  uint64_t generation() const { return generation_; }

  // Tasks of Shoal's jobs on the node (by index into ClusterInfo.tasks).
  std::vector<TaskIndex>& tasks() { return tasks_; }
  const std::vector<TaskIndex>& tasks() const { return tasks_; }

 private:
  std::shared_ptr<const NodeSpec> spec_;
  NodeIndex index_ = kNone;
  Resource used_;
  Resource idle_;
  Resource releasing_;
  Resource pipelined_;
  uint64_t generation_ = 0;
  std::vector<TaskIndex> tasks_;
  std::vector<HostPort> host_ports_;  // one entry per binding pod and port
  bool VolumesFitSlow(const std::vector<CsiVolume>& wanted) const;
  bool Attached(const CsiVolume& v) const;
  std::shared_ptr<const std::vector<VolumeLimit>> volume_limits_;
  struct AttachedVolume {
    CsiVolume volume;
    int pods = 0;  // pods on the node that use it
  };
  std::vector<AttachedVolume> attached_;
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_NODE_INFO_H_
