#include "scheduler/api/quantity.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace shoal::api {
namespace {

using int128 = __int128;

// Above this a product no longer fits an int64 after scaling; comfortably
// below int128's limit so intermediate products cannot overflow.
constexpr int128 kInt64Max = INT64_MAX;
constexpr int kMaxSignificantDigits = 30;

absl::Status Malformed(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrFormat("quantity \"%s\" is malformed: %s (expected forms like "
                      "\"500m\", \"2\", \"1.5Gi\", \"2G\", \"1e3\")",
                      text, why));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Decimal exponent and binary exponent a suffix stands for.
struct Suffix {
  int exp10 = 0;
  int exp2 = 0;
};

bool ParseSuffix(absl::string_view s, Suffix* out, bool* is_exponent) {
  *is_exponent = false;
  if (s.empty()) return true;
  if (s.size() == 2 && s[1] == 'i') {
    switch (s[0]) {
      case 'K':
        out->exp2 = 10;
        return true;
      case 'M':
        out->exp2 = 20;
        return true;
      case 'G':
        out->exp2 = 30;
        return true;
      case 'T':
        out->exp2 = 40;
        return true;
      case 'P':
        out->exp2 = 50;
        return true;
      case 'E':
        out->exp2 = 60;
        return true;
      default:
        return false;
    }
  }
  if (s.size() == 1) {
    switch (s[0]) {
      case 'm':
        out->exp10 = -3;
        return true;
      case 'k':
        out->exp10 = 3;
        return true;
      case 'M':
        out->exp10 = 6;
        return true;
      case 'G':
        out->exp10 = 9;
        return true;
      case 'T':
        out->exp10 = 12;
        return true;
      case 'P':
        out->exp10 = 15;
        return true;
      case 'E':
        out->exp10 = 18;
        return true;
      default:
        break;
    }
  }
  // Decimal exponent: e|E followed by a signed integer.
  if ((s[0] == 'e' || s[0] == 'E') && s.size() > 1) {
    size_t i = 1;
    bool negative = false;
    if (s[i] == '+' || s[i] == '-') {
      negative = s[i] == '-';
      ++i;
    }
    if (i == s.size()) return false;
    int exp = 0;
    for (; i < s.size(); ++i) {
      if (!IsDigit(s[i])) return false;
      exp = exp * 10 + (s[i] - '0');
      if (exp > 1000) return false;
    }
    out->exp10 = negative ? -exp : exp;
    *is_exponent = true;
    return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<int64_t> ParseQuantity(absl::string_view text,
                                      QuantityScale scale) {
  if (text.empty()) return Malformed(text, "it is empty");
  size_t i = 0;
  bool negative = false;
  if (text[i] == '+' || text[i] == '-') {
    negative = text[i] == '-';
    ++i;
  }
  // Mantissa: digits, optional '.', digits; at least one digit in all.
  int128 mantissa = 0;
  int significant = 0;
  int fraction_digits = 0;
  int digits = 0;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.') {
      if (seen_point) return Malformed(text, "it has two decimal points");
      seen_point = true;
      continue;
    }
    if (!IsDigit(c)) break;
    ++digits;
    if (seen_point) ++fraction_digits;
    if (mantissa == 0 && c == '0') continue;  // leading zeros carry nothing
    if (++significant > kMaxSignificantDigits) {
      return Malformed(text, "it has more than 30 significant digits");
    }
    mantissa = mantissa * 10 + (c - '0');
  }
  if (digits == 0) return Malformed(text, "it has no digits");
  Suffix suffix;
  bool is_exponent = false;
  if (!ParseSuffix(text.substr(i), &suffix, &is_exponent)) {
    return Malformed(text, absl::StrCat("unknown suffix \"", text.substr(i),
                                        "\" (valid: m k M G T P E Ki Mi Gi "
                                        "Ti Pi Ei or an exponent like e3)"));
  }
  // value = mantissa * 10^(exp10 - fraction_digits + scale) * 2^exp2
  int exp10 =
      suffix.exp10 - fraction_digits + (scale == QuantityScale::kMilli ? 3 : 0);
  int128 value = mantissa;
  auto too_large = [&] {
    return absl::OutOfRangeError(absl::StrFormat(
        "quantity \"%s\" is too large (more than %d %s)", text, INT64_MAX,
        scale == QuantityScale::kMilli ? "milli-units" : "units"));
  };
  for (int k = 0; k < suffix.exp2 && value != 0; ++k) {
    value *= 2;
    if (value > kInt64Max) return too_large();
  }
  for (; exp10 > 0 && value != 0; --exp10) {
    value *= 10;
    if (value > kInt64Max) return too_large();
  }
  if (exp10 < 0) {
    // Divide, rounding up as Quantity.Value() does ("100m" bytes is 1 byte).
    int128 divisor = 1;
    bool underflow = false;
    for (; exp10 < 0; ++exp10) {
      if (divisor > kInt64Max * 1000) {
        underflow = true;
        break;
      }
      divisor *= 10;
    }
    if (underflow) {
      value = value == 0 ? 0 : 1;
    } else {
      value = (value + divisor - 1) / divisor;
    }
  }
  if (value > kInt64Max) return too_large();
  int64_t result = static_cast<int64_t>(value);
  return negative ? -result : result;
}

std::string FormatQuantity(int64_t amount, QuantityScale scale) {
  if (scale == QuantityScale::kMilli) {
    if (amount % 1000 == 0) return absl::StrCat(amount / 1000);
    return absl::StrCat(amount, "m");
  }
  static constexpr const char* kBinary[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  if (amount == 0) return "0";
  int unit = -1;
  int64_t v = amount;
  while (unit < 5 && v % 1024 == 0) {
    v /= 1024;
    ++unit;
  }
  if (unit >= 0) return absl::StrCat(v, kBinary[unit]);
  // Not a whole number of any unit: show it rounded, as people read sizes.
  if (amount < 1024) return absl::StrCat(amount);
  double scaled = static_cast<double>(amount);
  int u = -1;
  while (u < 5 && scaled >= 1024) {
    scaled /= 1024;
    ++u;
  }
  return absl::StrFormat("%.1f%s", scaled, kBinary[u]);
}

}  // namespace shoal::api
