// The implementations of the builtin functions and operators: arithmetic
// with CEL's overflow errors, comparisons, conversions, string functions
// and the Kubernetes quantity and semver libraries. Arguments arrive
// evaluated; errors name the function and the argument kinds.
#ifndef SHOAL_SCHEDULER_CEL_BUILTINS_H_
#define SHOAL_SCHEDULER_CEL_BUILTINS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/cel/ast.h"
#include "scheduler/cel/value.h"

namespace shoal::cel {

// Calls `call.fn` on `args` (receiver first for methods).
absl::StatusOr<Value> CallBuiltin(const Expr& call,
                                  const std::vector<Value>& args);

// "no such overload: <name> applied to (<kinds>)".
absl::Status NoOverload(absl::string_view name, const std::vector<Value>& args);

}  // namespace shoal::cel

#endif  // SHOAL_SCHEDULER_CEL_BUILTINS_H_
