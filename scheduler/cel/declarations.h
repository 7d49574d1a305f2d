// The functions kube-apiserver declares for DRA selectors, with their
// overload signatures: CEL's standard library, the cel-go extensions the
// Kubernetes base environment loads (strings v2, lists, sets, optional
// types, two-variable comprehensions, bindings) and Kubernetes' own
// libraries (quantity, semver, regex, lists, URL, IP, CIDR, format,
// authorizer). The type checker resolves calls against this table; it
// lists functions Shoal's evaluator lacks too, since the API server
// accepts them and Program::Compile refuses them separately, by name.
#ifndef SHOAL_SCHEDULER_CEL_DECLARATIONS_H_
#define SHOAL_SCHEDULER_CEL_DECLARATIONS_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "scheduler/cel/types.h"

namespace shoal::cel {

struct Overload {
  bool member = false;
  std::vector<TypePtr> args;  // the receiver first for a member overload
  TypePtr result;
  std::vector<std::string> params;  // type parameters (A, K, V, ...)
};

// By function name ("_==_", "size", "sets.contains", ...), overloads in
// declaration order, which decides a call's type when several match.
const absl::flat_hash_map<std::string, std::vector<Overload>>& DraFunctions();

}  // namespace shoal::cel

#endif  // SHOAL_SCHEDULER_CEL_DECLARATIONS_H_
