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

// What kube-apiserver's feature gates change in DRA's CEL environment.
// The defaults are a 1.36 server's.
struct DraCelFeatures {
  // DRAListTypeAttributes (alpha in 1.36, off by default): an attribute
  // value is dyn instead of google.protobuf.Any, so a list-typed one can
  // be the range of all/exists/map/filter; the member function
  // includes(dyn) -> bool is declared; and a selector may evaluate to
  // dyn. Off, the server refuses all three in a new or changed selector
  // (one it has stored already is not checked again).
  bool list_type_attributes = false;
};

// OK: the API server accepts the selector's types. InvalidArgument: the
// detail kube-apiserver's validation reports after the expression
// ("compilation failed: ERROR: <input>:L:C: ..." with cel-go's source
// snippet and caret, or "must evaluate to bool or the unknown type, not
// int"). Syntax errors carry Shoal's parser's wording in cel-go's frame.
// Unimplemented: a construct this checker cannot type (two-variable
// comprehensions, optional list or map entries, message literals); the
// caller should let it through, as the API server may accept it.
absl::Status CheckDraSelector(absl::string_view source,
                              const DraCelFeatures& features = {});

}  // namespace shoal::cel

#endif  // SHOAL_SCHEDULER_CEL_CHECKER_H_
