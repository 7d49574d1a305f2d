#include "scheduler/cel/k8s_library.h"

#include "absl/status/status.h"
#include "scheduler/cel/builtins.h"

namespace shoal::cel {
namespace {

bool Is(const std::vector<Value>& args, size_t i, Kind k) {
  return args.size() > i && args[i].kind() == k;
}

// compareTo/isGreaterThan/isLessThan exist for two quantities and for two
// semvers; nothing else (no quantity-vs-int comparison in Kubernetes).
absl::StatusOr<int> CompareExtension(absl::string_view name,
                                     const std::vector<Value>& args) {
  if (Is(args, 0, Kind::kQuantity) && Is(args, 1, Kind::kQuantity)) {
    return args[0].as_quantity().Compare(args[1].as_quantity());
  }
  if (Is(args, 0, Kind::kSemver) && Is(args, 1, Kind::kSemver)) {
    return args[0].as_semver().Compare(args[1].as_semver());
  }
  return NoOverload(name, args);
}

}  // namespace

absl::StatusOr<Value> KubernetesBuiltin(Fn fn, absl::string_view name,
                                        const std::vector<Value>& args) {
  switch (fn) {
    case Fn::kQuantity:
      if (!Is(args, 0, Kind::kString)) return NoOverload(name, args);
      return Value::QuantityFromString(args[0].as_string());
    case Fn::kIsQuantity:
      if (!Is(args, 0, Kind::kString)) return NoOverload(name, args);
      return Value::Bool(Quantity::Parse(args[0].as_string()).ok());
    case Fn::kSemver:
    case Fn::kIsSemver: {
      if (!Is(args, 0, Kind::kString) ||
          (args.size() == 2 && !Is(args, 1, Kind::kBool))) {
        return NoOverload(name, args);
      }
      bool normalize = args.size() == 2 && args[1].as_bool();
      absl::StatusOr<Semver> v =
          normalize ? Semver::ParseNormalized(args[0].as_string())
                    : Semver::Parse(args[0].as_string());
      if (fn == Fn::kIsSemver) return Value::Bool(v.ok());
      if (!v.ok()) return v.status();
      return Value::Semver(*std::move(v));
    }
    case Fn::kCompareTo:
    case Fn::kIsGreaterThan:
    case Fn::kIsLessThan: {
      absl::StatusOr<int> c = CompareExtension(name, args);
      if (!c.ok()) return c.status();
      if (fn == Fn::kCompareTo) return Value::Int(*c);
      return Value::Bool(fn == Fn::kIsGreaterThan ? *c > 0 : *c < 0);
    }
    case Fn::kMajor:
    case Fn::kMinor:
    case Fn::kPatch: {
      if (!Is(args, 0, Kind::kSemver)) return NoOverload(name, args);
      const Semver& v = args[0].as_semver();
      uint64_t n = fn == Fn::kMajor
                       ? v.major()
                       : (fn == Fn::kMinor ? v.minor() : v.patch());
      // Kubernetes converts with int64(...), wrapping above 2^63-1.
      return Value::Int(static_cast<int64_t>(n));
    }
    default:
      break;
  }
  if (!Is(args, 0, Kind::kQuantity)) return NoOverload(name, args);
  const Quantity& q = args[0].as_quantity();
  switch (fn) {
    case Fn::kSign:
      return Value::Int(q.Sign());
    case Fn::kIsInteger: {
      int64_t v;
      return Value::Bool(q.AsInt64(&v));
    }
    case Fn::kAsInteger: {
      int64_t v;
      if (!q.AsInt64(&v)) {
        return absl::InvalidArgumentError(
            "asInteger(): cannot convert value to integer");
      }
      return Value::Int(v);
    }
    case Fn::kAsApproximateFloat:
      return Value::Double(q.AsApproximateFloat());
    case Fn::kAddQ:
    case Fn::kSubQ: {
      Quantity other;
      if (Is(args, 1, Kind::kQuantity)) {
        other = args[1].as_quantity();
      } else if (Is(args, 1, Kind::kInt)) {
        other = Quantity::FromInt(args[1].as_int());
      } else {
        return NoOverload(name, args);
      }
      return Value::Quantity(q.Add(fn == Fn::kAddQ ? other : other.Negate()));
    }
    case Fn::kMulQ:
      if (!Is(args, 1, Kind::kInt)) return NoOverload(name, args);
      return Value::Quantity(q.MulInt(args[1].as_int()));
    default:
      return NoOverload(name, args);
  }
}

}  // namespace shoal::cel
