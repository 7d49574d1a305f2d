// Consumable capacity (KEP-5075): what one allocation of a request takes
// of each capacity of a device. A request names amounts
// (capacity.requests); the device's requestPolicy rounds them up to a
// valid value or step, fills in a default for capacities not named, or
// refuses them; a capacity without a policy is taken as asked, or whole
// when not asked for. A device that allows multiple allocations is
// shared by claims while the sum of what they consume fits; any other
// device serves a request only if what it asks fits the device at all.
#ifndef SHOAL_SCHEDULER_DRA_CAPACITY_H_
#define SHOAL_SCHEDULER_DRA_CAPACITY_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/api/devices.h"

namespace shoal::dra {

// Fills `out` with what one allocation of `choice` consumes of each
// capacity of `device` (milli-units, in device.capacity's order), and
// says whether the device can serve it at all: false when the request
// names a capacity the device lacks, or an amount its policy refuses or
// that exceeds the whole capacity.
// `totals` are the device's capacities in milli-units; `has_policy`
// whether any has a requestPolicy (without one, and without asks, an
// allocation consumes each capacity whole and nothing is refused).
bool Consumption(const api::DeviceChoice& choice, const api::Device& device,
                 const std::string& driver, const std::vector<int64_t>& totals,
                 bool has_policy, std::vector<int64_t>* out);

// status.allocation.devices.results[].consumedCapacity: each capacity by
// the name the slice wrote, with what the allocation consumes.
std::vector<std::pair<std::string, std::string>> ConsumedCapacity(
    const api::Device& device, const std::vector<int64_t>& amounts);

// The amounts a result of the snapshot consumes (its consumedCapacity,
// matched to the device's capacities by name); 0 for a capacity it does
// not name.
std::vector<int64_t> AmountsOf(const api::DeviceResult& result,
                               const api::Device& device);

// A milli-unit amount as a quantity: "10Gi", "512Mi", "3", "1500m".
std::string QuantityText(int64_t milli);

}  // namespace shoal::dra

#endif  // SHOAL_SCHEDULER_DRA_CAPACITY_H_
