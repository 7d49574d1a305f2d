// `shoalctl devices` as text, kubectl-like: per node (network-attached
// pools after the nodes), each pool's summary line, a table of its
// devices (allocated whole, shared and how much of each capacity the
// shares consume, partitions, tainted, kept by spent counters, waiting
// for binding conditions) and what its counter sets have spent:
//
//   Node n1
//     Pool gpu.example.com/n1 (generation 1): 3 devices: 1 shared ...
//     DEVICE   STATE                CLAIMS           DETAIL
//     gpu-0    shared by 2 claims   ml/a, ml/b       memory 60Gi/80Gi
//     gpu-1    tainted              -                unhealthy=true:NoSchedule
#ifndef SHOAL_SCHEDULER_ADMIN_DEVICES_TEXT_H_
#define SHOAL_SCHEDULER_ADMIN_DEVICES_TEXT_H_

#include <string>
#include <vector>

#include "proto/admin.pb.h"

namespace shoal::admin {

// `all`: list free devices too (otherwise only counted in the pool's
// line).
std::string DevicesText(const v1::DevicesResponse& devices, bool all);

// Columns padded to their widest cell, three spaces apart, as kubectl
// prints them; each line indented by `indent` (shoalctl's tables too).
std::string KubectlTable(const std::vector<std::vector<std::string>>& rows,
                         const std::string& indent = "");

}  // namespace shoal::admin

#endif  // SHOAL_SCHEDULER_ADMIN_DEVICES_TEXT_H_
