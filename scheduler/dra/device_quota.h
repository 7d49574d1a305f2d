// What devices count for in queues and fair shares. A queue's quota
// names a DeviceClass's devices as Volcano's capacity plugin does,
// "deviceclass/<class>" (spec.capability, deserved, guarantee), and a
// class with spec.extendedResourceName counts its devices under that name
// too, so a queue's `nvidia.com/gpu: 8` holds whether its pods count GPUs
// as extended resources or claim them.
//
// Devices count only under the names some queue states a quota in
// (`quota_names`): a cluster without device quotas schedules claims as
// before, and a queue's implicit limit (the cluster's total) never turns
// away a claim on an estimate (a firstAvailable claim may get its second
// alternative; only the allocator knows).
//
// Each pod that claims devices counts, besides its request, the devices
// of its claims (TaskInfo::counted): an allocated claim the devices in its
// status; one not allocated yet what it asks for (ExactCount its count,
// firstAvailable its first alternative, All the most devices of the class
// one node reaches). A claim several pods share counts once, on the pod
// that holds a share if one does, else the first by name. The cluster's
// total (what shares are shares of) gains each claimed class's devices.
#ifndef SHOAL_SCHEDULER_DRA_DEVICE_QUOTA_H_
#define SHOAL_SCHEDULER_DRA_DEVICE_QUOTA_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "scheduler/api/node_info.h"
#include "scheduler/api/queue_info.h"
#include "scheduler/api/resource.h"
#include "scheduler/api/task_info.h"
#include "scheduler/dra/inventory.h"

namespace shoal::dra {

// "deviceclass/<class>": the resource a class's devices count as.
std::string DeviceClassResource(absl::string_view device_class);

// The resources some queue states a limit or guarantee in.
std::vector<bool> QuotaNames(const std::vector<api::QueueInfo>& queues);

// Sets `with_devices` on every task of `tasks` whose claims count devices
// under `quota_names` and adds to `total` the devices of every class some
// claim names; `ids` gets the resources devices were counted as. Claims
// serving extended resources count nothing here (the pod's request
// counts them), and the total gains nothing under a resource `served`
// names (nodes publish those devices as that resource already).
void CountDevices(Inventory& inventory, const std::vector<api::NodeInfo>& nodes,
                  const std::vector<bool>& quota_names,
                  std::vector<api::TaskInfo>& tasks, api::Resource& total,
                  std::vector<api::ResourceId>& ids,
                  const std::vector<api::ResourceId>& served = {});

}  // namespace shoal::dra

#endif  // SHOAL_SCHEDULER_DRA_DEVICE_QUOTA_H_
