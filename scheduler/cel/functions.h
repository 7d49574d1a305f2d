// The function table: which names Shoal's CEL subset implements (as a
// global call or as a method), and which well-known CEL or Kubernetes
// functions it refuses by name.
#ifndef SHOAL_SCHEDULER_CEL_FUNCTIONS_H_
#define SHOAL_SCHEDULER_CEL_FUNCTIONS_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/cel/ast.h"

namespace shoal::cel {

// The message for a construct outside the subset:
// "unsupported: <what> (not in the CEL subset Shoal evaluates) at column N".
absl::Status Unsupported(absl::string_view what, int column);

// Resolves a call of `name` with `argc` arguments (receiver excluded) as a
// method (`member`) or a global function, or refuses it.
absl::StatusOr<Fn> ResolveFunction(absl::string_view name, bool member,
                                   int argc, int column);

// Whether `name` is a CEL type identifier Shoal has values for (int, list,
// null_type, ...).
bool IsTypeName(absl::string_view name);

}  // namespace shoal::cel

#endif  // SHOAL_SCHEDULER_CEL_FUNCTIONS_H_
