// Walks the tree the parser built. Errors are values in CEL (`&&`, `||`
// and the all/exists macros absorb them), so every step returns a
// StatusOr and the logical operators decide what to keep.
#ifndef SHOAL_SCHEDULER_CEL_EVALUATOR_H_
#define SHOAL_SCHEDULER_CEL_EVALUATOR_H_

#include "absl/status/statusor.h"
#include "scheduler/cel/ast.h"
#include "scheduler/cel/program.h"

namespace shoal::cel {

absl::StatusOr<Value> EvaluateExpr(const Expr& root, const Activation& vars);

}  // namespace shoal::cel

#endif  // SHOAL_SCHEDULER_CEL_EVALUATOR_H_
