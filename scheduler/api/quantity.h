// Kubernetes resource quantities ("500m", "1.5Gi", "2G", "1e3", "+1Ki").
//
// Parsed exactly as apimachinery's resource.Quantity does: the value is kept
// as an exact decimal/binary product and only rounded (up, like
// Quantity.Value() and MilliValue()) when scaled to an integer.
#ifndef SHOAL_SCHEDULER_API_QUANTITY_H_
#define SHOAL_SCHEDULER_API_QUANTITY_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace shoal::api {

// The integer unit a quantity is scaled to.
enum class QuantityScale {
  kUnit,   // bytes, device counts: Quantity.Value()
  kMilli,  // cpu: Quantity.MilliValue()
};

// Parses `text` and returns it in `scale` units, rounded up. Negative values
// are returned as such; callers that need non-negative amounts check.
// Errors name the text and what is wrong with it.
absl::StatusOr<int64_t> ParseQuantity(absl::string_view text,
                                      QuantityScale scale);

// Formats an amount for people: cpu as "500m" or "2", other resources
// with the largest exact binary suffix ("1536Mi", "2Gi"), or rounded to a
// tenth when there is none ("1.1Ti").
std::string FormatQuantity(int64_t amount, QuantityScale scale);

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_QUANTITY_H_
