// Static CEL types for the type checker (checker.h), with the assignability
// and type-parameter substitution rules of cel-go's checker, so that a
// selector is accepted or refused exactly where kube-apiserver's checker
// accepts or refuses it.
#ifndef SHOAL_SCHEDULER_CEL_TYPES_H_
#define SHOAL_SCHEDULER_CEL_TYPES_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace shoal::cel {

enum class TypeKind {
  kDyn,
  // google.protobuf.Any: what a DRA attribute value is declared as. It is
  // assignable like dyn, yet not a comprehension range, and is printed
  // under its own name.
  kAny,
  kError,  // a subexpression already reported; assignable to anything
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kTimestamp,
  kDuration,
  kList,    // params: element
  kMap,     // params: key, value
  kType,    // params: the type it denotes, or none
  kOpaque,  // name and params, e.g. optional_type(string)
  kObject,  // a named type: kubernetes.Quantity, kubernetes.DRADevice, ...
  kParam,   // a type parameter or a type variable, by name
};

struct Type;
using TypePtr = std::shared_ptr<const Type>;

struct Type {
  TypeKind kind = TypeKind::kDyn;
  std::string name;  // kOpaque, kObject, kParam
  std::vector<TypePtr> params;

  static TypePtr Of(TypeKind kind);
  static TypePtr List(TypePtr elem);
  static TypePtr Map(TypePtr key, TypePtr value);
  static TypePtr TypeOf(TypePtr t);
  static TypePtr Opaque(std::string name, std::vector<TypePtr> params);
  static TypePtr Optional(TypePtr t) { return Opaque("optional_type", {t}); }
  static TypePtr Object(std::string name);
  static TypePtr Param(std::string name);
};

bool IsDynOrError(const Type& t);
// Structural equality: same kind, name and parameters.
bool SameType(const Type& a, const Type& b);

// As cel-go prints types in messages: "list(dyn)", "map(string, int)",
// "kubernetes.Quantity", "google.protobuf.Any", "null_type".
std::string FormatType(const Type& t);

// Parses the notation of declarations.cc: int, list(A), map(K, V),
// optional_type(A), kubernetes.Quantity; a single capital letter is a
// type parameter.
absl::StatusOr<TypePtr> ParseType(absl::string_view text);

// Type-variable bindings made while resolving overloads.
class Substitutions {
 public:
  // Whether a value of `from` may be passed where `to` is expected,
  // binding type variables on success only (as cel-go's isAssignable).
  bool Assignable(const TypePtr& from, const TypePtr& to);
  bool AssignableList(const std::vector<TypePtr>& from,
                      const std::vector<TypePtr>& to);
  // `t` with bound variables replaced; unbound ones become dyn when
  // `params_to_dyn`.
  TypePtr Apply(const TypePtr& t, bool params_to_dyn) const;
  // A type variable no other binding uses.
  TypePtr Fresh();

 private:
  using Map = absl::flat_hash_map<std::string, TypePtr>;
  static bool Internal(Map& m, const TypePtr& t1, const TypePtr& t2);
  static bool ValidSubstitution(Map& m, const TypePtr& t1, const TypePtr& t2,
                                bool* has_sub);
  static bool InternalList(Map& m, const std::vector<TypePtr>& l1,
                           const std::vector<TypePtr>& l2);
  static const TypePtr* Find(const Map& m, const Type& t);
  static bool OccursIn(const Map& m, const Type& param, const TypePtr& t);
  static TypePtr Apply(const Map& m, const TypePtr& t, bool params_to_dyn);
  Map map_;
  int next_ = 0;
};

// Of two assignable types, the less specific one (dyn over int, ...).
TypePtr MostGeneral(const TypePtr& a, const TypePtr& b);

}  // namespace shoal::cel

#endif  // SHOAL_SCHEDULER_CEL_TYPES_H_
