// What the admin service says about devices: `shoalctl devices` (every
// pool, its devices' states, shares, partitions, taints and counters,
// from dra/device_report.h) and, in `explain`, a line per claim of the
// pod and what the devices of each node that refuses it for devices hold.
#ifndef SHOAL_SCHEDULER_ADMIN_DEVICE_VIEWS_H_
#define SHOAL_SCHEDULER_ADMIN_DEVICE_VIEWS_H_

#include <optional>

#include "absl/status/statusor.h"
#include "proto/admin.pb.h"
#include "scheduler/admin/backend.h"
#include "scheduler/api/cluster_info.h"
#include "scheduler/dra/device_report.h"

namespace shoal::admin {

// The devices of the backend's snapshot (dra/device_report.h), those a
// node reaches when the request names one; NotFound for a node not in
// the cache.
absl::StatusOr<v1::DevicesResponse> Devices(const AdminBackend& backend,
                                            const v1::DevicesRequest& request);

// Adds to `p` (the explanation of `pod`, its node verdicts filled) its
// claims' lines and, for each node whose reasons are the devices', what
// the devices there hold. `report` is described once and kept.
void AddDeviceLines(const api::ClusterInfo& snap, const api::PodInfo& pod,
                    std::optional<dra::DeviceReport>& report,
                    v1::PodExplanation* p);

}  // namespace shoal::admin

#endif  // SHOAL_SCHEDULER_ADMIN_DEVICE_VIEWS_H_
