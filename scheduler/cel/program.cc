#include "scheduler/cel/program.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "scheduler/cel/ast.h"
#include "scheduler/cel/evaluator.h"
#include "scheduler/cel/functions.h"
#include "scheduler/cel/parser.h"

namespace shoal::cel {
namespace {

// Checks that identifiers are declared variables, comprehension
// variables in scope, or (for a.b.c) have a declared dotted prefix.
absl::Status CheckNames(const Expr& e, const CompileOptions& options,
                        std::vector<const std::string*>* scope) {
  const auto declared = [&](const std::string& name) {
    for (const std::string* s : *scope) {
      if (*s == name) return true;
    }
    return std::find(options.variables->begin(), options.variables->end(),
                     name) != options.variables->end();
  };
  if (e.kind == ExprKind::kSelect && !e.qualified.empty() &&
      declared(e.qualified)) {
    return absl::OkStatus();
  }
  if (e.kind == ExprKind::kIdent && !declared(e.name)) {
    if (!options.container.empty()) {
      return Unsupported(
          absl::StrCat("name '", e.name, "' resolved in container '",
                       options.container, "' (protobuf types and enums)"),
          e.column);
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "undeclared reference to '", e.name, "' at column ", e.column));
  }
  const bool macro = e.kind == ExprKind::kAll || e.kind == ExprKind::kExists ||
                     e.kind == ExprKind::kExistsOne ||
                     e.kind == ExprKind::kMapMacro ||
                     e.kind == ExprKind::kFilter;
  for (size_t i = 0; i < e.args.size(); ++i) {
    // A comprehension variable is in scope in every argument but the range.
    if (macro && i == 1) scope->push_back(&e.name);
    absl::Status s = CheckNames(*e.args[i], options, scope);
    if (!s.ok()) return s;
  }
  if (macro && e.args.size() > 1) scope->pop_back();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Program> Program::Compile(absl::string_view source) {
  return Compile(source, CompileOptions());
}

absl::StatusOr<Program> Program::Compile(absl::string_view source,
                                         const CompileOptions& options) {
  absl::StatusOr<std::unique_ptr<Expr>> root = Parse(source);
  if (!root.ok()) return root.status();
  if (!options.container.empty()) {
    // Container-relative names exist for protobuf packages, which Shoal
    // does not have; Kubernetes declares no container.
    return Unsupported(
        absl::StrCat("name resolution in container '", options.container, "'"),
        1);
  }
  if (options.variables.has_value()) {
    std::vector<const std::string*> scope;
    absl::Status s = CheckNames(**root, options, &scope);
    if (!s.ok()) return s;
  }
  Program p;
  p.source_ = std::string(source);
  p.root_ = std::shared_ptr<const Expr>(std::move(*root));
  return p;
}

absl::StatusOr<Value> Program::Evaluate(const Activation& vars) const {
  return EvaluateExpr(*root_, vars);
}

}  // namespace shoal::cel
