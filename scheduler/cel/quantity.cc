#include "scheduler/cel/quantity.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace shoal::cel {
namespace {

// Kubernetes keeps nano precision: finer non-zero values round up.
constexpr int64_t kNanoExponent = -9;
// An exponent beyond this would make additions build megabyte-long digit
// strings; Kubernetes has no such bound, so Shoal refuses instead of
// guessing (no real capacity is 10^10000).
constexpr int64_t kMaxExponent = 10000;
constexpr char kMaxInt64[] = "9223372036854775807";

// Magnitude arithmetic on decimal digit strings, most significant first.
int CompareDigits(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::string AddDigits(const std::string& a, const std::string& b) {
  std::string out;
  int carry = 0;
  for (size_t i = 0; i < std::max(a.size(), b.size()) || carry; ++i) {
    int d = carry;
    if (i < a.size()) d += a[a.size() - 1 - i] - '0';
    if (i < b.size()) d += b[b.size() - 1 - i] - '0';
    out.push_back(static_cast<char>('0' + d % 10));
    carry = d / 10;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// a - b, requires a >= b.
std::string SubDigits(const std::string& a, const std::string& b) {
  std::string out;
  int borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    int d = a[a.size() - 1 - i] - '0' - borrow;
    if (i < b.size()) d -= b[b.size() - 1 - i] - '0';
    borrow = d < 0;
    if (d < 0) d += 10;
    out.push_back(static_cast<char>('0' + d));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::string MulDigits(const std::string& a, uint64_t m) {
  std::string out;
  unsigned __int128 carry = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    unsigned __int128 d =
        static_cast<unsigned __int128>(a[a.size() - 1 - i] - '0') * m + carry;
    out.push_back(static_cast<char>('0' + static_cast<int>(d % 10)));
    carry = d / 10;
  }
  while (carry) {
    out.push_back(static_cast<char>('0' + static_cast<int>(carry % 10)));
    carry /= 10;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

absl::Status BadFormat(absl::string_view text) {
  return absl::InvalidArgumentError(
      absl::StrCat("quantity \"", text,
                   "\": quantities must match the regular expression "
                   "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"));
}

}  // namespace

void Quantity::Normalize() {
  size_t lead = digits_.find_first_not_of('0');
  if (lead == std::string::npos) {
    digits_.clear();
    exponent_ = 0;
    negative_ = false;
    return;
  }
  digits_.erase(0, lead);
  size_t last = digits_.find_last_not_of('0');
  exponent_ += static_cast<int64_t>(digits_.size() - 1 - last);
  digits_.resize(last + 1);
}

absl::StatusOr<Quantity> Quantity::Parse(absl::string_view text) {
  size_t pos = 0;
  Quantity q;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    q.negative_ = text[pos] == '-';
    ++pos;
  }
  std::string whole, frac;
  bool dot = false;
  for (; pos < text.size(); ++pos) {
    char c = text[pos];
    if (absl::ascii_isdigit(c)) {
      (dot ? frac : whole).push_back(c);
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (whole.empty() && frac.empty()) return BadFormat(text);
  absl::string_view suffix = text.substr(pos);
  int64_t exp10 = 0;
  int binary_shifts = 0;  // number of x1024 factors
  static const struct {
    const char* name;
    int exp10;
    int binary;
  } kSuffixes[] = {{"", 0, 0},   {"n", -9, 0}, {"u", -6, 0}, {"m", -3, 0},
                   {"k", 3, 0},  {"M", 6, 0},  {"G", 9, 0},  {"T", 12, 0},
                   {"P", 15, 0}, {"E", 18, 0}, {"Ki", 0, 1}, {"Mi", 0, 2},
                   {"Gi", 0, 3}, {"Ti", 0, 4}, {"Pi", 0, 5}, {"Ei", 0, 6}};
  bool known = false;
  for (const auto& s : kSuffixes) {
    if (suffix == s.name) {
      exp10 = s.exp10;
      binary_shifts = s.binary;
      known = true;
      break;
    }
  }
  if (!known) {
    // A decimal exponent: e/E then an optional sign and at least one digit.
    if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) {
      return BadFormat(text);
    }
    absl::string_view num = suffix.substr(1);
    absl::string_view body = num;
    if (body[0] == '+' || body[0] == '-') body.remove_prefix(1);
    if (body.empty()) return BadFormat(text);
    for (char c : body) {
      if (!absl::ascii_isdigit(c)) return BadFormat(text);
    }
    if (body.size() > 6) {
      return absl::InvalidArgumentError(
          absl::StrCat("quantity \"", text, "\": exponent out of range"));
    }
    if (!absl::SimpleAtoi(num, &exp10)) return BadFormat(text);
  }
  if (exp10 > kMaxExponent || exp10 < -kMaxExponent) {
    return absl::InvalidArgumentError(
        absl::StrCat("quantity \"", text, "\": exponent out of range"));
  }
  q.digits_ = whole + frac;
  q.exponent_ = exp10 - static_cast<int64_t>(frac.size());
  for (int i = 0; i < binary_shifts; ++i)
    q.digits_ = MulDigits(q.digits_, 1024);
  q.Normalize();
  if (q.zero()) return q;
  if (q.exponent_ < kNanoExponent) {
    // Round the magnitude up to a whole number of nanos.
    int64_t drop = kNanoExponent - q.exponent_;
    if (drop >= static_cast<int64_t>(q.digits_.size())) {
      q.digits_ = "1";
    } else {
      q.digits_.resize(q.digits_.size() - drop);
      q.digits_ = AddDigits(q.digits_, "1");
    }
    q.exponent_ = kNanoExponent;
    q.Normalize();
  }
  if (binary_shifts > 0) {
    Quantity max;
    max.digits_ = kMaxInt64;
    if (q.negative_ ? q.Negate().Compare(max) > 0 : q.Compare(max) > 0) {
      bool neg = q.negative_;
      q = max;
      q.negative_ = neg;
    }
  }
  return q;
}

Quantity Quantity::FromInt(int64_t v) {
  Quantity q;
  q.negative_ = v < 0;
  uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : v;
  q.digits_ = absl::StrCat(mag);
  q.Normalize();
  return q;
}

int Quantity::Compare(const Quantity& other) const {
  if (Sign() != other.Sign()) return Sign() < other.Sign() ? -1 : 1;
  if (zero()) return 0;
  int mag;
  int64_t top_a = static_cast<int64_t>(digits_.size()) + exponent_;
  int64_t top_b = static_cast<int64_t>(other.digits_.size()) + other.exponent_;
  if (top_a != top_b) {
    mag = top_a < top_b ? -1 : 1;
  } else {
    // Same leading position: digit strings compare lexicographically,
    // a longer string with an equal prefix is larger (no trailing zeros).
    int c = digits_.compare(other.digits_);
    mag = c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return negative_ ? -mag : mag;
}

Quantity Quantity::Negate() const {
  Quantity q = *this;
  if (!q.zero()) q.negative_ = !q.negative_;
  return q;
}

Quantity Quantity::Add(const Quantity& other) const {
  if (zero()) return other;
  if (other.zero()) return *this;
  int64_t e = std::min(exponent_, other.exponent_);
  std::string a = digits_ + std::string(exponent_ - e, '0');
  std::string b = other.digits_ + std::string(other.exponent_ - e, '0');
  Quantity q;
  q.exponent_ = e;
  if (negative_ == other.negative_) {
    q.digits_ = AddDigits(a, b);
    q.negative_ = negative_;
  } else if (CompareDigits(a, b) >= 0) {
    q.digits_ = SubDigits(a, b);
    q.negative_ = negative_;
  } else {
    q.digits_ = SubDigits(b, a);
    q.negative_ = other.negative_;
  }
  q.Normalize();
  return q;
}

Quantity Quantity::MulInt(int64_t m) const {
  if (zero() || m == 0) return Quantity();
  Quantity q = *this;
  uint64_t mag = m < 0 ? 0 - static_cast<uint64_t>(m) : m;
  q.digits_ = MulDigits(digits_, mag);
  q.negative_ = negative_ != (m < 0);
  q.Normalize();
  return q;
}

bool Quantity::AsInt64(int64_t* out) const {
  if (zero()) {
    *out = 0;
    return true;
  }
  if (exponent_ < 0 || static_cast<int64_t>(digits_.size()) + exponent_ > 19) {
    return false;
  }
  std::string whole = digits_ + std::string(exponent_, '0');
  if (CompareDigits(whole, kMaxInt64) > 0) {
    // Only -2^63 is one more than the largest positive value.
    if (negative_ && whole == "9223372036854775808") {
      *out = std::numeric_limits<int64_t>::min();
      return true;
    }
    return false;
  }
  int64_t v = 0;
  if (!absl::SimpleAtoi(whole, &v)) return false;
  *out = negative_ ? -v : v;
  return true;
}

double Quantity::AsApproximateFloat() const {
  if (zero()) return 0;
  std::string sci = absl::StrCat(negative_ ? "-" : "", digits_, "e", exponent_);
  return std::strtod(sci.c_str(), nullptr);
}

std::string Quantity::ToString() const {
  if (zero()) return "0";
  std::string s = negative_ ? "-" : "";
  if (exponent_ >= 0) return s + digits_ + std::string(exponent_, '0');
  int64_t frac = -exponent_;
  if (frac >= static_cast<int64_t>(digits_.size())) {
    return s + "0." + std::string(frac - digits_.size(), '0') + digits_;
  }
  return s + digits_.substr(0, digits_.size() - frac) + "." +
         digits_.substr(digits_.size() - frac);
}

}  // namespace shoal::cel
