#include "scheduler/cel/declarations.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace shoal::cel {
namespace {

// One overload a line, "name: (args) -> result" for a global function or
// "name: receiver.(args) -> result" for a method; capital letters are
// type parameters. Sources: cel-go's standard declarations and its
// ext/strings.go (version 2, which has no reverse()), ext/lists.go
// (version 3), ext/sets.go, optional types; Kubernetes'
// apiserver/pkg/cel/library (quantity, semver, regex, lists, urls, ip,
// cidr, format, authz) as kube-apiserver 1.36 declares them for DRA.
constexpr const char* kDeclarations[] = {
    // Operators. Relations compare numbers across types
    // (cel.CrossTypeNumericComparisons, on in Kubernetes).
    "_?_:_: (bool, A, A) -> A",
    "_&&_: (bool, bool) -> bool",
    "_||_: (bool, bool) -> bool",
    "!_: (bool) -> bool",
    "-_: (int) -> int",
    "-_: (double) -> double",
    "_==_: (A, A) -> bool",
    "_!=_: (A, A) -> bool",
    "@in: (A, list(A)) -> bool",
    "@in: (A, map(A, B)) -> bool",
    "_[_]: (list(A), int) -> A",
    "_[_]: (map(K, V), K) -> V",
    "_[_]: (optional_type(list(A)), int) -> optional_type(A)",
    "_[_]: (optional_type(map(K, V)), K) -> optional_type(V)",
    "_[?_]: (list(A), int) -> optional_type(A)",
    "_[?_]: (map(K, V), K) -> optional_type(V)",
    "_[?_]: (optional_type(list(A)), int) -> optional_type(A)",
    "_[?_]: (optional_type(map(K, V)), K) -> optional_type(V)",
    "_+_: (int, int) -> int",
    "_+_: (uint, uint) -> uint",
    "_+_: (double, double) -> double",
    "_+_: (string, string) -> string",
    "_+_: (bytes, bytes) -> bytes",
    "_+_: (list(A), list(A)) -> list(A)",
    "_+_: (google.protobuf.Timestamp, google.protobuf.Duration) -> "
    "google.protobuf.Timestamp",
    "_+_: (google.protobuf.Duration, google.protobuf.Timestamp) -> "
    "google.protobuf.Timestamp",
    "_+_: (google.protobuf.Duration, google.protobuf.Duration) -> "
    "google.protobuf.Duration",
    "_-_: (int, int) -> int",
    "_-_: (uint, uint) -> uint",
    "_-_: (double, double) -> double",
    "_-_: (google.protobuf.Timestamp, google.protobuf.Timestamp) -> "
    "google.protobuf.Duration",
    "_-_: (google.protobuf.Timestamp, google.protobuf.Duration) -> "
    "google.protobuf.Timestamp",
    "_-_: (google.protobuf.Duration, google.protobuf.Duration) -> "
    "google.protobuf.Duration",
    "_*_: (int, int) -> int",
    "_*_: (uint, uint) -> uint",
    "_*_: (double, double) -> double",
    "_/_: (int, int) -> int",
    "_/_: (uint, uint) -> uint",
    "_/_: (double, double) -> double",
    "_%_: (int, int) -> int",
    "_%_: (uint, uint) -> uint",
    // Standard functions.
    "size: (string) -> int",
    "size: (bytes) -> int",
    "size: (list(A)) -> int",
    "size: (map(K, V)) -> int",
    "size: string.() -> int",
    "size: bytes.() -> int",
    "size: list(A).() -> int",
    "size: map(K, V).() -> int",
    "contains: string.(string) -> bool",
    "startsWith: string.(string) -> bool",
    "endsWith: string.(string) -> bool",
    "matches: (string, string) -> bool",
    "matches: string.(string) -> bool",
    "int: (int) -> int",
    "int: (uint) -> int",
    "int: (double) -> int",
    "int: (string) -> int",
    "int: (google.protobuf.Timestamp) -> int",
    "int: (google.protobuf.Duration) -> int",
    "uint: (uint) -> uint",
    "uint: (int) -> uint",
    "uint: (double) -> uint",
    "uint: (string) -> uint",
    "double: (double) -> double",
    "double: (int) -> double",
    "double: (uint) -> double",
    "double: (string) -> double",
    "string: (string) -> string",
    "string: (int) -> string",
    "string: (uint) -> string",
    "string: (double) -> string",
    "string: (bool) -> string",
    "string: (bytes) -> string",
    "string: (google.protobuf.Timestamp) -> string",
    "string: (google.protobuf.Duration) -> string",
    "string: (net.IP) -> string",
    "string: (net.IPPrefix) -> string",
    "bytes: (bytes) -> bytes",
    "bytes: (string) -> bytes",
    "bool: (bool) -> bool",
    "bool: (string) -> bool",
    "dyn: (A) -> dyn",
    "type: (A) -> type(A)",
    "timestamp: (string) -> google.protobuf.Timestamp",
    "timestamp: (google.protobuf.Timestamp) -> google.protobuf.Timestamp",
    "timestamp: (int) -> google.protobuf.Timestamp",
    "duration: (string) -> google.protobuf.Duration",
    "duration: (google.protobuf.Duration) -> google.protobuf.Duration",
    "getFullYear: google.protobuf.Timestamp.() -> int",
    "getFullYear: google.protobuf.Timestamp.(string) -> int",
    "getMonth: google.protobuf.Timestamp.() -> int",
    "getMonth: google.protobuf.Timestamp.(string) -> int",
    "getDayOfYear: google.protobuf.Timestamp.() -> int",
    "getDayOfYear: google.protobuf.Timestamp.(string) -> int",
    "getDayOfMonth: google.protobuf.Timestamp.() -> int",
    "getDayOfMonth: google.protobuf.Timestamp.(string) -> int",
    "getDate: google.protobuf.Timestamp.() -> int",
    "getDate: google.protobuf.Timestamp.(string) -> int",
    "getDayOfWeek: google.protobuf.Timestamp.() -> int",
    "getDayOfWeek: google.protobuf.Timestamp.(string) -> int",
    "getHours: google.protobuf.Timestamp.() -> int",
    "getHours: google.protobuf.Timestamp.(string) -> int",
    "getHours: google.protobuf.Duration.() -> int",
    "getMinutes: google.protobuf.Timestamp.() -> int",
    "getMinutes: google.protobuf.Timestamp.(string) -> int",
    "getMinutes: google.protobuf.Duration.() -> int",
    "getSeconds: google.protobuf.Timestamp.() -> int",
    "getSeconds: google.protobuf.Timestamp.(string) -> int",
    "getSeconds: google.protobuf.Duration.() -> int",
    "getMilliseconds: google.protobuf.Timestamp.() -> int",
    "getMilliseconds: google.protobuf.Timestamp.(string) -> int",
    "getMilliseconds: google.protobuf.Duration.() -> int",
    // cel-go strings extension, version 2.
    "charAt: string.(int) -> string",
    "indexOf: string.(string) -> int",
    "indexOf: string.(string, int) -> int",
    "lastIndexOf: string.(string) -> int",
    "lastIndexOf: string.(string, int) -> int",
    "lowerAscii: string.() -> string",
    "upperAscii: string.() -> string",
    "replace: string.(string, string) -> string",
    "replace: string.(string, string, int) -> string",
    "split: string.(string) -> list(string)",
    "split: string.(string, int) -> list(string)",
    "substring: string.(int) -> string",
    "substring: string.(int, int) -> string",
    "trim: string.() -> string",
    "join: list(string).() -> string",
    "join: list(string).(string) -> string",
    "format: string.(list(dyn)) -> string",
    "strings.quote: (string) -> string",
    // cel-go lists extension, version 3.
    "slice: list(A).(int, int) -> list(A)",
    "flatten: list(list(A)).() -> list(A)",
    "flatten: list(A).(int) -> list(dyn)",
    "distinct: list(A).() -> list(A)",
    "reverse: list(A).() -> list(A)",
    "sort: list(A).() -> list(A)",
    "lists.range: (int) -> list(int)",
    "first: list(A).() -> optional_type(A)",
    "last: list(A).() -> optional_type(A)",
    // cel-go sets extension.
    "sets.contains: (list(A), list(A)) -> bool",
    "sets.equivalent: (list(A), list(A)) -> bool",
    "sets.intersects: (list(A), list(A)) -> bool",
    // cel-go optional types.
    "optional.of: (A) -> optional_type(A)",
    "optional.ofNonZeroValue: (A) -> optional_type(A)",
    "optional.none: () -> optional_type(A)",
    "hasValue: optional_type(A).() -> bool",
    "value: optional_type(A).() -> A",
    "or: optional_type(A).(optional_type(A)) -> optional_type(A)",
    "orValue: optional_type(A).(A) -> A",
    // Kubernetes quantity library (no mul(): Kubernetes has none).
    "quantity: (string) -> kubernetes.Quantity",
    "isQuantity: (string) -> bool",
    "sign: kubernetes.Quantity.() -> int",
    "isInteger: kubernetes.Quantity.() -> bool",
    "asInteger: kubernetes.Quantity.() -> int",
    "asApproximateFloat: kubernetes.Quantity.() -> double",
    "add: kubernetes.Quantity.(kubernetes.Quantity) -> kubernetes.Quantity",
    "add: kubernetes.Quantity.(int) -> kubernetes.Quantity",
    "sub: kubernetes.Quantity.(kubernetes.Quantity) -> kubernetes.Quantity",
    "sub: kubernetes.Quantity.(int) -> kubernetes.Quantity",
    "isGreaterThan: kubernetes.Quantity.(kubernetes.Quantity) -> bool",
    "isLessThan: kubernetes.Quantity.(kubernetes.Quantity) -> bool",
    "compareTo: kubernetes.Quantity.(kubernetes.Quantity) -> int",
    // Kubernetes semver library, version 1 (normalize flag).
    "semver: (string) -> kubernetes.Semver",
    "semver: (string, bool) -> kubernetes.Semver",
    "isSemver: (string) -> bool",
    "isSemver: (string, bool) -> bool",
    "major: kubernetes.Semver.() -> int",
    "minor: kubernetes.Semver.() -> int",
    "patch: kubernetes.Semver.() -> int",
    "isGreaterThan: kubernetes.Semver.(kubernetes.Semver) -> bool",
    "isLessThan: kubernetes.Semver.(kubernetes.Semver) -> bool",
    "compareTo: kubernetes.Semver.(kubernetes.Semver) -> int",
    // DRA's own, declared only with the DRAListTypeAttributes gate (the
    // checker leaves it out otherwise): a value, or a list-typed
    // attribute's values, include the argument.
    "includes: dyn.(dyn) -> bool",
    // Kubernetes regex and lists libraries.
    "find: string.(string) -> string",
    "findAll: string.(string) -> list(string)",
    "findAll: string.(string, int) -> list(string)",
    "isSorted: list(A).() -> bool",
    "sum: list(A).() -> A",
    "min: list(A).() -> A",
    "max: list(A).() -> A",
    "indexOf: list(A).(A) -> int",
    "lastIndexOf: list(A).(A) -> int",
    // Kubernetes URL, IP and CIDR libraries.
    "url: (string) -> kubernetes.URL",
    "isURL: (string) -> bool",
    "getScheme: kubernetes.URL.() -> string",
    "getHost: kubernetes.URL.() -> string",
    "getHostname: kubernetes.URL.() -> string",
    "getPort: kubernetes.URL.() -> string",
    "getEscapedPath: kubernetes.URL.() -> string",
    "getQuery: kubernetes.URL.() -> map(string, list(string))",
    "ip: (string) -> net.IP",
    "ip: net.IPPrefix.() -> net.IP",
    "isIP: (string) -> bool",
    "ip.isCanonical: (string) -> bool",
    "family: net.IP.() -> int",
    "isUnspecified: net.IP.() -> bool",
    "isLoopback: net.IP.() -> bool",
    "isLinkLocalMulticast: net.IP.() -> bool",
    "isLinkLocalUnicast: net.IP.() -> bool",
    "isGlobalUnicast: net.IP.() -> bool",
    "cidr: (string) -> net.IPPrefix",
    "isCIDR: (string) -> bool",
    "containsIP: net.IPPrefix.(string) -> bool",
    "containsIP: net.IPPrefix.(net.IP) -> bool",
    "containsCIDR: net.IPPrefix.(string) -> bool",
    "containsCIDR: net.IPPrefix.(net.IPPrefix) -> bool",
    "masked: net.IPPrefix.() -> net.IPPrefix",
    "prefixLength: net.IPPrefix.() -> int",
    // Kubernetes format library.
    "format.named: (string) -> optional_type(kubernetes.NamedFormat)",
    "format.dns1123Label: () -> kubernetes.NamedFormat",
    "format.dns1123Subdomain: () -> kubernetes.NamedFormat",
    "format.dns1035Label: () -> kubernetes.NamedFormat",
    "format.qualifiedName: () -> kubernetes.NamedFormat",
    "format.dns1123LabelPrefix: () -> kubernetes.NamedFormat",
    "format.dns1123SubdomainPrefix: () -> kubernetes.NamedFormat",
    "format.dns1035LabelPrefix: () -> kubernetes.NamedFormat",
    "format.labelValue: () -> kubernetes.NamedFormat",
    "format.uri: () -> kubernetes.NamedFormat",
    "format.uuid: () -> kubernetes.NamedFormat",
    "format.byte: () -> kubernetes.NamedFormat",
    "format.date: () -> kubernetes.NamedFormat",
    "format.datetime: () -> kubernetes.NamedFormat",
    "validate: kubernetes.NamedFormat.(string) -> "
    "optional_type(list(string))",
    // Kubernetes authorizer library: DRA declares no authorizer variable,
    // but these methods still match a dyn receiver.
    "path: kubernetes.authorization.Authorizer.(string) -> "
    "kubernetes.authorization.PathCheck",
    "group: kubernetes.authorization.Authorizer.(string) -> "
    "kubernetes.authorization.GroupCheck",
    "serviceAccount: kubernetes.authorization.Authorizer.(string, string) -> "
    "kubernetes.authorization.ResourceCheck",
    "resource: kubernetes.authorization.GroupCheck.(string) -> "
    "kubernetes.authorization.ResourceCheck",
    "subresource: kubernetes.authorization.ResourceCheck.(string) -> "
    "kubernetes.authorization.ResourceCheck",
    "namespace: kubernetes.authorization.ResourceCheck.(string) -> "
    "kubernetes.authorization.ResourceCheck",
    "name: kubernetes.authorization.ResourceCheck.(string) -> "
    "kubernetes.authorization.ResourceCheck",
    "fieldSelector: kubernetes.authorization.ResourceCheck.(string) -> "
    "kubernetes.authorization.ResourceCheck",
    "labelSelector: kubernetes.authorization.ResourceCheck.(string) -> "
    "kubernetes.authorization.ResourceCheck",
    "check: kubernetes.authorization.PathCheck.(string) -> "
    "kubernetes.authorization.Decision",
    "check: kubernetes.authorization.ResourceCheck.(string) -> "
    "kubernetes.authorization.Decision",
    "errored: kubernetes.authorization.Decision.() -> bool",
    "error: kubernetes.authorization.Decision.() -> string",
    "allowed: kubernetes.authorization.Decision.() -> bool",
    "reason: kubernetes.authorization.Decision.() -> string",
};

void CollectParams(const Type& t, std::vector<std::string>* out) {
  if (t.kind == TypeKind::kParam &&
      std::find(out->begin(), out->end(), t.name) == out->end()) {
    out->push_back(t.name);
  }
  for (const TypePtr& p : t.params) CollectParams(*p, out);
}

TypePtr MustParse(absl::string_view text, absl::string_view line) {
  absl::StatusOr<TypePtr> t = ParseType(absl::StripAsciiWhitespace(text));
  if (!t.ok()) {
    // A typo in the table above: fail every test at once.
    std::cerr << "declarations.cc: " << t.status() << " in \"" << line
              << "\"\n";
    std::abort();
  }
  return *t;
}

// Splits "a, list(b, c), d" at its top-level commas.
std::vector<absl::string_view> TopLevel(absl::string_view s) {
  std::vector<absl::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')') --depth;
    if (s[i] == ',' && depth == 0) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  if (!absl::StripAsciiWhitespace(s.substr(start)).empty()) {
    out.push_back(s.substr(start));
  }
  return out;
}

std::pair<std::string, Overload> ParseLine(absl::string_view line) {
  size_t colon = line.find(": ");
  std::string name(line.substr(0, colon));
  absl::string_view sig = line.substr(colon + 2);
  size_t arrow = sig.rfind(" -> ");
  absl::string_view call = sig.substr(0, arrow);
  Overload o;
  o.result = MustParse(sig.substr(arrow + 4), line);
  size_t open = call.front() == '(' ? 0 : call.find(".(") + 1;
  if (open > 0) {
    o.member = true;
    o.args.push_back(MustParse(call.substr(0, open - 1), line));
  }
  absl::string_view args = call.substr(open + 1, call.size() - open - 2);
  for (absl::string_view a : TopLevel(args)) {
    o.args.push_back(MustParse(a, line));
  }
  for (const TypePtr& a : o.args) CollectParams(*a, &o.params);
  CollectParams(*o.result, &o.params);
  return {std::move(name), std::move(o)};
}

}  // namespace

const absl::flat_hash_map<std::string, std::vector<Overload>>& DraFunctions() {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<std::string, std::vector<Overload>>;
    for (const char* line : kDeclarations) {
      auto [name, overload] = ParseLine(line);
      (*t)[name].push_back(std::move(overload));
    }
    // Ordering: the same kinds, and numbers across kinds.
    const std::vector<std::pair<const char*, const char*>> ordered = {
        {"bool", "bool"},
        {"int", "int"},
        {"int", "uint"},
        {"int", "double"},
        {"uint", "uint"},
        {"uint", "int"},
        {"uint", "double"},
        {"double", "double"},
        {"double", "int"},
        {"double", "uint"},
        {"string", "string"},
        {"bytes", "bytes"},
        {"google.protobuf.Timestamp", "google.protobuf.Timestamp"},
        {"google.protobuf.Duration", "google.protobuf.Duration"}};
    for (const char* op : {"_<_", "_<=_", "_>_", "_>=_"}) {
      for (const auto& [a, b] : ordered) {
        std::string line = absl::StrCat(op, ": (", a, ", ", b, ") -> bool");
        (*t)[op].push_back(ParseLine(line).second);
      }
    }
    return t;
  }();
  return *table;
}

}  // namespace shoal::cel
