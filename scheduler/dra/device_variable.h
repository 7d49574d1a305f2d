// The CEL variable `device` a selector sees, as Kubernetes builds it:
// `driver`, `attributes` and `capacity` maps keyed by domain (an unknown
// domain reads as an empty map), attribute names without their domain.
#ifndef SHOAL_SCHEDULER_DRA_DEVICE_VARIABLE_H_
#define SHOAL_SCHEDULER_DRA_DEVICE_VARIABLE_H_

#include "scheduler/api/devices.h"
#include "scheduler/cel/value.h"

namespace shoal::dra {

cel::Value DeviceVariable(const api::ResourceSlice& slice,
                          const api::Device& device);

}  // namespace shoal::dra

#endif  // SHOAL_SCHEDULER_DRA_DEVICE_VARIABLE_H_
