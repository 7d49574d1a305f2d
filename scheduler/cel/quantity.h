// Kubernetes resource quantities as exact decimals, for the CEL quantity
// library. DRA selectors compare capacities with compareTo, so "1Gi" must
// equal "1073741824" and "500m" must equal "0.5" exactly; a double or an
// int64 in milli-units cannot promise that for every input, an exact
// decimal (digits x 10^exponent) can.
#ifndef SHOAL_SCHEDULER_CEL_QUANTITY_H_
#define SHOAL_SCHEDULER_CEL_QUANTITY_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace shoal::cel {

class Quantity {
 public:
  // Parses as apimachinery's resource.ParseQuantity does: an optional sign,
  // digits with at most one '.', then a suffix (Ki..Ei, n u m k M G T P E)
  // or a decimal exponent (e3, E-2). Non-zero values are rounded up (away
  // from zero) to nano precision, and binary-suffixed values are capped at
  // 2^63-1, as Kubernetes does.
  static absl::StatusOr<Quantity> Parse(absl::string_view text);
  static Quantity FromInt(int64_t v);

  // -1, 0 or 1.
  int Sign() const { return zero() ? 0 : (negative_ ? -1 : 1); }
  int Compare(const Quantity& other) const;
  Quantity Add(const Quantity& other) const;
  Quantity Negate() const;
  Quantity MulInt(int64_t m) const;
  // The value as int64 when it is an integer in range (Quantity.AsInt64).
  bool AsInt64(int64_t* out) const;
  double AsApproximateFloat() const;
  // Canonical decimal text ("1073741824", "0.5", "-3"): for messages.
  std::string ToString() const;

 private:
  bool zero() const { return digits_.empty(); }
  void Normalize();

  bool negative_ = false;
  std::string digits_;    // magnitude digits, no leading/trailing zeros
  int64_t exponent_ = 0;  // value = digits_ * 10^exponent_
};

}  // namespace shoal::cel

#endif  // SHOAL_SCHEDULER_CEL_QUANTITY_H_
