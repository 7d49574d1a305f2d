#include "scheduler/cel/functions.h"

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace shoal::cel {
namespace {

struct Builtin {
  const char* name;
  bool member;
  int argc;  // arguments besides the receiver
  Fn fn;
};

// Everything Shoal evaluates. Quantity and semver share compareTo,
// isGreaterThan and isLessThan; the evaluator dispatches on the receiver.
constexpr Builtin kBuiltins[] = {
    {"size", false, 1, Fn::kSize},
    {"size", true, 0, Fn::kSize},
    {"contains", true, 1, Fn::kContains},
    {"startsWith", true, 1, Fn::kStartsWith},
    {"endsWith", true, 1, Fn::kEndsWith},
    {"matches", true, 1, Fn::kMatches},
    {"matches", false, 2, Fn::kMatches},
    {"lowerAscii", true, 0, Fn::kLowerAscii},
    {"upperAscii", true, 0, Fn::kUpperAscii},
    {"int", false, 1, Fn::kToInt},
    {"uint", false, 1, Fn::kToUint},
    {"double", false, 1, Fn::kToDouble},
    {"string", false, 1, Fn::kToString},
    {"bool", false, 1, Fn::kToBool},
    {"bytes", false, 1, Fn::kToBytes},
    {"type", false, 1, Fn::kType},
    {"dyn", false, 1, Fn::kDyn},
    {"quantity", false, 1, Fn::kQuantity},
    {"isQuantity", false, 1, Fn::kIsQuantity},
    {"sign", true, 0, Fn::kSign},
    {"asInteger", true, 0, Fn::kAsInteger},
    {"isInteger", true, 0, Fn::kIsInteger},
    {"asApproximateFloat", true, 0, Fn::kAsApproximateFloat},
    {"add", true, 1, Fn::kAddQ},
    {"sub", true, 1, Fn::kSubQ},
    {"mul", true, 1, Fn::kMulQ},
    {"compareTo", true, 1, Fn::kCompareTo},
    {"isGreaterThan", true, 1, Fn::kIsGreaterThan},
    {"isLessThan", true, 1, Fn::kIsLessThan},
    {"semver", false, 1, Fn::kSemver},
    {"semver", false, 2, Fn::kSemver},
    {"isSemver", false, 1, Fn::kIsSemver},
    {"isSemver", false, 2, Fn::kIsSemver},
    {"major", true, 0, Fn::kMajor},
    {"minor", true, 0, Fn::kMinor},
    {"patch", true, 0, Fn::kPatch},
    {"includes", true, 1, Fn::kIncludes},
};

// Functions of CEL's standard library, its extensions or Kubernetes'
// libraries that Shoal knows of and deliberately does not evaluate.
const absl::flat_hash_set<std::string>& KnownRefused() {
  static const auto* names = new absl::flat_hash_set<std::string>{
      // Timestamps and durations.
      "timestamp",
      "duration",
      "getFullYear",
      "getMonth",
      "getDayOfYear",
      "getDayOfMonth",
      "getDate",
      "getDayOfWeek",
      "getHours",
      "getMinutes",
      "getSeconds",
      "getMilliseconds",
      // String extensions beyond the ASCII case helpers.
      "charAt",
      "indexOf",
      "lastIndexOf",
      "replace",
      "split",
      "substring",
      "trim",
      "join",
      "format",
      "quote",
      "reverse",
      // Kubernetes list, regex, URL, IP/CIDR and format libraries.
      "isSorted",
      "sum",
      "min",
      "max",
      "find",
      "findAll",
      "url",
      "isURL",
      "getScheme",
      "getHost",
      "getHostname",
      "getPort",
      "getEscapedPath",
      "getQuery",
      "ip",
      "isIP",
      "cidr",
      "isCIDR",
      "containsIP",
      "containsCIDR",
      "prefixLength",
      "family",
      "isUnspecified",
      "isLoopback",
      "isLinkLocalMulticast",
      "isLinkLocalUnicast",
      "isGlobalUnicast",
      "masked",
      "validate",
      "named",
      // Kubernetes quantity division (inf.Dec rounding rules).
      "div",
      "divInt",
      // Two-variable comprehensions and other newer macros.
      "transformList",
      "transformMap",
      "transformMapEntry",
      "existsOne",
      "sortBy",
      "distinct",
      "flatten",
      "slice",
      "first",
      "last",
      // Math and bit extensions.
      "greatest",
      "least",
      "ceil",
      "floor",
      "round",
      "trunc",
      "abs",
      "isNaN",
      "isInf",
      "isFinite",
      "bitAnd",
      "bitOr",
      "bitXor",
      "bitNot",
      "bitShiftLeft",
      "bitShiftRight",
      "sqrt",
      // Optionals.
      "hasValue",
      "value",
      "or",
      "orValue",
      "optMap",
      "optFlatMap",
      "ofNonZeroValue",
      "of",
      "none",
      "unwrap",
      // Protobuf enums and extensions.
      "getExtension",
  };
  return *names;
}

}  // namespace

absl::Status Unsupported(absl::string_view what, int column) {
  return absl::InvalidArgumentError(absl::StrCat(
      "unsupported: ", what,
      " (not in the CEL subset Shoal evaluates) at column ", column));
}

absl::StatusOr<Fn> ResolveFunction(absl::string_view name, bool member,
                                   int argc, int column) {
  bool name_known = false;
  for (const Builtin& b : kBuiltins) {
    if (name != b.name) continue;
    name_known = true;
    if (b.member == member && b.argc == argc) return b.fn;
  }
  std::string call = absl::StrCat(name, "()");
  if (name_known) {
    // A builtin name with an arity or call style CEL does not define for
    // it: CEL's checker rejects it as "no matching overload".
    return absl::InvalidArgumentError(absl::StrCat(
        "no matching overload for ", member ? "method " : "function ", call,
        " with ", argc, argc == 1 ? " argument" : " arguments", " at column ",
        column));
  }
  if (KnownRefused().contains(name)) return Unsupported(call, column);
  return absl::InvalidArgumentError(
      absl::StrCat("unsupported function ", call, " at column ", column));
}

bool IsTypeName(absl::string_view name) {
  return name == "int" || name == "uint" || name == "double" ||
         name == "bool" || name == "string" || name == "bytes" ||
         name == "list" || name == "map" || name == "null_type" ||
         name == "type";
}

}  // namespace shoal::cel
