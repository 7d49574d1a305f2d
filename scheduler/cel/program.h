// Shoal's CEL: the subset of the Common Expression Language that
// Kubernetes Dynamic Resource Allocation uses in DeviceClass and
// ResourceClaim selectors, plus Kubernetes' quantity and semver libraries.
//
//   absl::StatusOr<Program> p = Program::Compile(
//       "device.driver == 'gpu.example.com' && "
//       "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi'))
//       >= 0");
//   absl::StatusOr<Value> r = p->Evaluate({{"device", MakeDevice(...)}});
//
// Compile refuses, by name and column, everything outside the subset
// (timestamps, durations, protobuf messages, optionals, extension
// functions Shoal does not implement); Evaluate reports CEL's runtime
// errors (no such key, no such overload, division by zero, overflow).
#ifndef SHOAL_SCHEDULER_CEL_PROGRAM_H_
#define SHOAL_SCHEDULER_CEL_PROGRAM_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/cel/value.h"

namespace shoal::cel {

struct Expr;

// Variables by name, e.g. "device".
using Activation = absl::flat_hash_map<std::string, Value>;

struct CompileOptions {
  // When set, every identifier must name one of these variables (or a
  // comprehension variable): others are refused at Compile, as
  // Kubernetes' type checker does ("undeclared reference to 'x'"). DRA
  // selectors declare only "device". When unset, an unknown identifier
  // is an error at Evaluate instead.
  std::optional<std::vector<std::string>> variables;
  // A CEL container: the protobuf package names resolve in. Shoal has no
  // protobuf types or enums, so with a container an undeclared name is
  // refused as unsupported (it would name a message type or enum).
  std::string container;
};

class Program {
 public:
  // Parses and checks `source`. Refusals read
  // "unsupported: timestamp() (not in the CEL subset Shoal evaluates) at
  // column 12" or "unsupported function foo() at column 1"; syntax errors
  // "syntax error at column 7: expected ')'".
  static absl::StatusOr<Program> Compile(absl::string_view source);
  static absl::StatusOr<Program> Compile(absl::string_view source,
                                         const CompileOptions& options);

  // Evaluates against `vars`. Thread-safe: a Program is immutable.
  absl::StatusOr<Value> Evaluate(const Activation& vars) const;

  const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::shared_ptr<const Expr> root_;
};

}  // namespace shoal::cel

#endif  // SHOAL_SCHEDULER_CEL_PROGRAM_H_
