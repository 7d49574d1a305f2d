// Kubernetes' CEL extension functions that DRA selectors use: the
// quantity library (apiserver/pkg/cel/library/quantity.go) and the semver
// library (semverlib.go), same names, overloads and error cases.
#ifndef SHOAL_SCHEDULER_CEL_K8S_LIBRARY_H_
#define SHOAL_SCHEDULER_CEL_K8S_LIBRARY_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/cel/ast.h"
#include "scheduler/cel/value.h"

namespace shoal::cel {

absl::StatusOr<Value> KubernetesBuiltin(Fn fn, absl::string_view name,
                                        const std::vector<Value>& args);

}  // namespace shoal::cel

#endif  // SHOAL_SCHEDULER_CEL_K8S_LIBRARY_H_
