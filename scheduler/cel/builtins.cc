#include "scheduler/cel/builtins.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/cel/k8s_library.h"

namespace shoal::cel {
namespace {

absl::Status Err(absl::string_view msg) {
  return absl::InvalidArgumentError(msg);
}

bool ValidUtf8(absl::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = s[i];
    int n;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    for (int k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return false;
      unsigned char cc = s[i + k];
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static const uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

int64_t CodePoints(absl::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Go's strconv.FormatFloat(d, 'g', -1, 64), which cel-go's string(double)
// is: the shortest digits that round-trip, in %e form ("1e+06") when the
// decimal exponent is below -4 or at least 6.
std::string FormatDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  char buf[64];
  int prec = 1;
  for (; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  // buf is [-]D.DDDe[+-]XX: split digits and exponent.
  std::string s(buf);
  bool neg = s[0] == '-';
  if (neg) s.erase(0, 1);
  size_t e = s.find('e');
  int exp = std::atoi(s.c_str() + e + 1);
  std::string digits = s.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = neg ? "-" : "";
  int nd = static_cast<int>(digits.size());
  if (exp < -4 || exp >= 6) {
    out += digits.substr(0, 1);
    if (nd > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    return out + eb;
  }
  if (exp < 0) return out + "0." + std::string(-exp - 1, '0') + digits;
  if (exp + 1 >= nd) return out + digits + std::string(exp + 1 - nd, '0');
  return out + digits.substr(0, exp + 1) + "." + digits.substr(exp + 1);
}

bool ParseDecimalInt(absl::string_view s, bool allow_sign, bool* neg,
                     absl::string_view* digits) {
  *neg = false;
  if (allow_sign && !s.empty() && (s[0] == '+' || s[0] == '-')) {
    *neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(c)) return false;
  }
  *digits = s;
  return true;
}

absl::StatusOr<Value> ToInt(const Value& v) {
  switch (v.kind()) {
    case Kind::kInt:
      return v;
    case Kind::kUint:
      if (v.as_uint() > static_cast<uint64_t>(INT64_MAX)) {
        return Err("int() range error: uint value too large for int");
      }
      return Value::Int(static_cast<int64_t>(v.as_uint()));
    case Kind::kDouble: {
      double d = v.as_double();
      // -2^63 itself is refused too, as CEL's conformance data requires.
      if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0)) {
        return Err("int() range error: double out of int range");
      }
      return Value::Int(static_cast<int64_t>(d));
    }
    case Kind::kString: {
      bool neg;
      absl::string_view digits;
      int64_t out;
      if (!ParseDecimalInt(v.as_string(), true, &neg, &digits) ||
          !absl::SimpleAtoi(v.as_string(), &out)) {
        return Err(absl::StrCat("int() type conversion error: cannot parse ",
                                v.DebugString()));
      }
      return Value::Int(out);
    }
    default:
      return NoOverload("int", {v});
  }
}

absl::StatusOr<Value> ToUint(const Value& v) {
  switch (v.kind()) {
    case Kind::kUint:
      return v;
    case Kind::kInt:
      if (v.as_int() < 0) return Err("uint() range error: negative int");
      return Value::Uint(static_cast<uint64_t>(v.as_int()));
    case Kind::kDouble: {
      double d = v.as_double();
      if (!(d > -1.0 && d < 18446744073709551616.0)) {
        return Err("uint() range error: double out of uint range");
      }
      return Value::Uint(static_cast<uint64_t>(d));
    }
    case Kind::kString: {
      bool neg;
      absl::string_view digits;
      uint64_t out;
      if (!ParseDecimalInt(v.as_string(), false, &neg, &digits) ||
          !absl::SimpleAtoi(digits, &out)) {
        return Err(absl::StrCat("uint() type conversion error: cannot parse ",
                                v.DebugString()));
      }
      return Value::Uint(out);
    }
    default:
      return NoOverload("uint", {v});
  }
}

absl::StatusOr<Value> ToDouble(const Value& v) {
  switch (v.kind()) {
    case Kind::kDouble:
      return v;
    case Kind::kInt:
      return Value::Double(static_cast<double>(v.as_int()));
    case Kind::kUint:
      return Value::Double(static_cast<double>(v.as_uint()));
    case Kind::kString: {
      const std::string& s = v.as_string();
      char* end = nullptr;
      double d = s.empty() || absl::ascii_isspace(s[0])
                     ? 0
                     : std::strtod(s.c_str(), &end);
      if (end == nullptr || *end != '\0' || end == s.c_str()) {
        return Err(absl::StrCat("double() type conversion error: cannot parse ",
                                v.DebugString()));
      }
      return Value::Double(d);
    }
    default:
      return NoOverload("double", {v});
  }
}

absl::StatusOr<Value> ToString(const Value& v) {
  switch (v.kind()) {
    case Kind::kString:
      return v;
    case Kind::kInt:
      return Value::String(absl::StrCat(v.as_int()));
    case Kind::kUint:
      return Value::String(absl::StrCat(v.as_uint()));
    case Kind::kDouble:
      return Value::String(FormatDouble(v.as_double()));
    case Kind::kBool:
      return Value::String(v.as_bool() ? "true" : "false");
    case Kind::kBytes:
      if (!ValidUtf8(v.as_string())) {
        return Err("string() conversion error: invalid UTF-8 in bytes");
      }
      return Value::String(v.as_string());
    default:
      return NoOverload("string", {v});
  }
}

absl::StatusOr<Value> ToBool(const Value& v) {
  if (v.kind() == Kind::kBool) return v;
  if (v.kind() != Kind::kString) return NoOverload("bool", {v});
  // Go's strconv.ParseBool spellings.
  const std::string& s = v.as_string();
  if (s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" ||
      s == "True") {
    return Value::Bool(true);
  }
  if (s == "0" || s == "f" || s == "F" || s == "false" || s == "FALSE" ||
      s == "False") {
    return Value::Bool(false);
  }
  return Err(absl::StrCat("bool() type conversion error: cannot parse ",
                          v.DebugString()));
}

absl::StatusOr<Value> Arithmetic(Fn fn, const Value& a, const Value& b,
                                 absl::string_view op) {
  if (a.kind() != b.kind()) return NoOverload(op, {a, b});
  switch (a.kind()) {
    case Kind::kInt: {
      int64_t x = a.as_int(), y = b.as_int(), r = 0;
      bool overflow = false;
      switch (fn) {
        case Fn::kAdd:
          overflow = __builtin_add_overflow(x, y, &r);
          break;
        case Fn::kSub:
          overflow = __builtin_sub_overflow(x, y, &r);
          break;
        case Fn::kMul:
          overflow = __builtin_mul_overflow(x, y, &r);
          break;
        case Fn::kDiv:
        case Fn::kMod:
          if (y == 0) {
            return Err(fn == Fn::kDiv ? "division by zero" : "modulus by zero");
          }
          if (x == INT64_MIN && y == -1) {
            overflow = true;
          } else {
            r = fn == Fn::kDiv ? x / y : x % y;
          }
          break;
        default:
          break;
      }
      if (overflow) return Err(absl::StrCat("integer overflow in ", op));
      return Value::Int(r);
    }
    case Kind::kUint: {
      uint64_t x = a.as_uint(), y = b.as_uint(), r = 0;
      bool overflow = false;
      switch (fn) {
        case Fn::kAdd:
          overflow = __builtin_add_overflow(x, y, &r);
          break;
        case Fn::kSub:
          overflow = __builtin_sub_overflow(x, y, &r);
          break;
        case Fn::kMul:
          overflow = __builtin_mul_overflow(x, y, &r);
          break;
        case Fn::kDiv:
        case Fn::kMod:
          if (y == 0) {
            return Err(fn == Fn::kDiv ? "division by zero" : "modulus by zero");
          }
          r = fn == Fn::kDiv ? x / y : x % y;
          break;
        default:
          break;
      }
      if (overflow)
        return Err(absl::StrCat("unsigned integer overflow in ", op));
      return Value::Uint(r);
    }
    case Kind::kDouble: {
      double x = a.as_double(), y = b.as_double();
      switch (fn) {
        case Fn::kAdd:
          return Value::Double(x + y);
        case Fn::kSub:
          return Value::Double(x - y);
        case Fn::kMul:
          return Value::Double(x * y);
        case Fn::kDiv:
          return Value::Double(x / y);
        default:
          return NoOverload(op, {a, b});
      }
    }
    case Kind::kString:
    case Kind::kBytes:
      if (fn != Fn::kAdd) return NoOverload(op, {a, b});
      return a.kind() == Kind::kString
                 ? Value::String(a.as_string() + b.as_string())
                 : Value::Bytes(a.as_string() + b.as_string());
    case Kind::kList: {
      if (fn != Fn::kAdd) return NoOverload(op, {a, b});
      std::vector<Value> out = a.as_list();
      out.insert(out.end(), b.as_list().begin(), b.as_list().end());
      return Value::List(std::move(out));
    }
    default:
      return NoOverload(op, {a, b});
  }
}

absl::StatusOr<Value> Relation(Fn fn, const Value& a, const Value& b,
                               absl::string_view op) {
  bool unordered;
  absl::StatusOr<int> c = a.Compare(b, &unordered);
  if (!c.ok()) return NoOverload(op, {a, b});
  if (unordered) return Value::Bool(false);
  switch (fn) {
    case Fn::kLt:
      return Value::Bool(*c < 0);
    case Fn::kLe:
      return Value::Bool(*c <= 0);
    case Fn::kGt:
      return Value::Bool(*c > 0);
    default:
      return Value::Bool(*c >= 0);
  }
}

absl::StatusOr<Value> In(const Value& elem, const Value& container) {
  if (container.kind() == Kind::kList) {
    for (const Value& v : container.as_list()) {
      if (v.Equals(elem)) return Value::Bool(true);
    }
    return Value::Bool(false);
  }
  if (container.kind() == Kind::kMap) {
    return Value::Bool(container.as_map().Find(elem) != nullptr);
  }
  return NoOverload("in", {elem, container});
}

// Kubernetes DRA's <target>.includes(<arg>) (DRAListTypeAttributes):
// whether a list has an element equal to `arg`, or any other value is
// equal to it. Lists longer than a device's attribute values may be
// (ResourceSliceMaxAttributeValuesPerDevice) are an error, bounding the
// cost as Kubernetes does.
constexpr size_t kMaxAttributeValues = 48;

absl::StatusOr<Value> Includes(const Value& target, const Value& arg) {
  if (target.kind() != Kind::kList) return Value::Bool(target.Equals(arg));
  const std::vector<Value>& list = target.as_list();
  for (size_t i = 0; i < list.size(); ++i) {
    if (i >= kMaxAttributeValues) {
      return Err(absl::StrCat(
          "'includes' function cannot be applied to lists longer than ",
          kMaxAttributeValues, " values"));
    }
    if (list[i].Equals(arg)) return Value::Bool(true);
  }
  return Value::Bool(false);
}

absl::StatusOr<Value> Size(const Value& v) {
  switch (v.kind()) {
    case Kind::kString:
      return Value::Int(CodePoints(v.as_string()));
    case Kind::kBytes:
      return Value::Int(static_cast<int64_t>(v.as_string().size()));
    case Kind::kList:
      return Value::Int(static_cast<int64_t>(v.as_list().size()));
    case Kind::kMap:
      return Value::Int(static_cast<int64_t>(v.as_map().entries.size()));
    default:
      return NoOverload("size", {v});
  }
}

absl::StatusOr<Value> Matches(const Expr& call, const Value& s,
                              const Value& pattern) {
  if (s.kind() != Kind::kString || pattern.kind() != Kind::kString) {
    return NoOverload("matches", {s, pattern});
  }
  if (call.regex != nullptr) {
    return Value::Bool(re2::RE2::PartialMatch(s.as_string(), *call.regex));
  }
  re2::RE2 re(pattern.as_string(), re2::RE2::Quiet);
  if (!re.ok()) {
    return Err(absl::StrCat("matches(): invalid regular expression ",
                            pattern.DebugString(), ": ", re.error()));
  }
  return Value::Bool(re2::RE2::PartialMatch(s.as_string(), re));
}

}  // namespace

absl::Status NoOverload(absl::string_view name,
                        const std::vector<Value>& args) {
  std::vector<std::string> kinds;
  for (const Value& a : args) kinds.emplace_back(a.TypeName());
  return absl::InvalidArgumentError(
      absl::StrCat("no such overload: ", name, " applied to (",
                   absl::StrJoin(kinds, ", "), ")"));
}

absl::StatusOr<Value> CallBuiltin(const Expr& call,
                                  const std::vector<Value>& args) {
  const absl::string_view name = call.fn_name;
  auto str_args = [&]() {
    return args.size() == 2 && args[0].kind() == Kind::kString &&
           args[1].kind() == Kind::kString;
  };
  switch (call.fn) {
    case Fn::kAdd:
    case Fn::kSub:
    case Fn::kMul:
    case Fn::kDiv:
    case Fn::kMod:
      return Arithmetic(call.fn, args[0], args[1], name);
    case Fn::kEq:
      return Value::Bool(args[0].Equals(args[1]));
    case Fn::kNe:
      return Value::Bool(!args[0].Equals(args[1]));
    case Fn::kLt:
    case Fn::kLe:
    case Fn::kGt:
    case Fn::kGe:
      return Relation(call.fn, args[0], args[1], name);
    case Fn::kIn:
      return In(args[0], args[1]);
    case Fn::kNot:
      if (args[0].kind() != Kind::kBool) return NoOverload("!", args);
      return Value::Bool(!args[0].as_bool());
    case Fn::kNeg:
      if (args[0].kind() == Kind::kInt) {
        if (args[0].as_int() == INT64_MIN) return Err("integer overflow in -");
        return Value::Int(-args[0].as_int());
      }
      if (args[0].kind() == Kind::kDouble) {
        return Value::Double(-args[0].as_double());
      }
      return NoOverload("-", args);
    case Fn::kSize:
      return Size(args[0]);
    case Fn::kContains:
      if (!str_args()) return NoOverload(name, args);
      return Value::Bool(
          absl::StrContains(args[0].as_string(), args[1].as_string()));
    case Fn::kStartsWith:
      if (!str_args()) return NoOverload(name, args);
      return Value::Bool(
          absl::StartsWith(args[0].as_string(), args[1].as_string()));
    case Fn::kEndsWith:
      if (!str_args()) return NoOverload(name, args);
      return Value::Bool(
          absl::EndsWith(args[0].as_string(), args[1].as_string()));
    case Fn::kMatches:
      return Matches(call, args[0], args[1]);
    case Fn::kLowerAscii:
    case Fn::kUpperAscii:
      if (args[0].kind() != Kind::kString) return NoOverload(name, args);
      return Value::String(call.fn == Fn::kLowerAscii
                               ? absl::AsciiStrToLower(args[0].as_string())
                               : absl::AsciiStrToUpper(args[0].as_string()));
    case Fn::kToInt:
      return ToInt(args[0]);
    case Fn::kToUint:
      return ToUint(args[0]);
    case Fn::kToDouble:
      return ToDouble(args[0]);
    case Fn::kToString:
      return ToString(args[0]);
    case Fn::kToBool:
      return ToBool(args[0]);
    case Fn::kToBytes:
      if (args[0].kind() == Kind::kBytes) return args[0];
      if (args[0].kind() == Kind::kString)
        return Value::Bytes(args[0].as_string());
      return NoOverload(name, args);
    case Fn::kType:
      return Value::Type(std::string(args[0].TypeName()));
    case Fn::kDyn:
      return args[0];
    case Fn::kIncludes:
      return Includes(args[0], args[1]);
    default:
      return KubernetesBuiltin(call.fn, name, args);
  }
}

}  // namespace shoal::cel
