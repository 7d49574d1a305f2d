// A CEL type checker for DRA device selectors: infers static types
// bottom-up as cel-go's checker does in kube-apiserver's DRA environment,
// so that what the API server refuses at create or update is refused
// here too, in its words:
//
//   absl::Status s = CheckDraSelector(
//       "device.attributes['gpu.example.com'].model.reverse() == 'x'");
//   // s.message(): "compilation failed: ERROR: <input>:1:54: found no
//   // matching overload for '_==_' applied to '(list(dyn), string)'\n"
//   // " | device.attributes[...]...\n | ....^"
//
// The environment: `device` (kubernetes.DRADevice: driver, attributes,
// capacity, allowMultipleAllocations) and the functions of
// declarations.h. Type-checking is separate from what Shoal evaluates:
// a selector may check and still be refused by Program::Compile.
#ifndef SHOAL_SCHEDULER_CEL_CHECKER_H_
#define SHOAL_SCHEDULER_CEL_CHECKER_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace shoal::cel {

// OK: the API server accepts the selector's types. InvalidArgument: the
// detail kube-apiserver's validation reports after the expression
// ("compilation failed: ERROR: <input>:L:C: ..." with cel-go's source
// snippet and caret, or "must evaluate to bool or the unknown type, not
// int"). Syntax errors carry Shoal's parser's wording in cel-go's frame.
// Unimplemented: a construct this checker cannot type (two-variable
// comprehensions, optional list or map entries, message literals); the
// caller should let it through, as the API server may accept it.
absl::Status CheckDraSelector(absl::string_view source);

}  // namespace shoal::cel

#endif  // SHOAL_SCHEDULER_CEL_CHECKER_H_
