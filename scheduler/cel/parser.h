// Parses CEL source into the evaluator's tree, expanding macros and
// resolving every function to a builtin. Anything outside Shoal's subset
// is refused here, by name, so a selector never fails later for a reason
// that was knowable when it was written.
#ifndef SHOAL_SCHEDULER_CEL_PARSER_H_
#define SHOAL_SCHEDULER_CEL_PARSER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/cel/ast.h"

namespace shoal::cel {

// Deepest nesting accepted; guards the recursive parser and evaluator.
inline constexpr int kMaxNesting = 250;
// Kubernetes caps a DRA selector at 10 KiB; Shoal accepts ten times that.
inline constexpr size_t kMaxSourceLength = 100 * 1024;

struct ParseOptions {
  // For the type checker (checker.h): calls of functions Shoal does not
  // evaluate, extension namespaces (sets.contains, cel.bind) and optional
  // selection (a.?b, a[?b]) parse instead of being refused. Such a tree
  // is for checking only: the evaluator cannot run it.
  bool for_checker = false;
};

absl::StatusOr<std::unique_ptr<Expr>> Parse(
    absl::string_view source, const ParseOptions& options = ParseOptions());

}  // namespace shoal::cel

#endif  // SHOAL_SCHEDULER_CEL_PARSER_H_
