// The checked expression tree the parser builds and the evaluator walks.
// Functions are resolved to an enum at compile time, so evaluation never
// looks a name up in a table, and macros are their own node kinds.
#ifndef SHOAL_SCHEDULER_CEL_AST_H_
#define SHOAL_SCHEDULER_CEL_AST_H_

#include <memory>
#include <string>
#include <vector>

#include "re2/re2.h"
#include "scheduler/cel/value.h"

namespace shoal::cel {

enum class ExprKind {
  kConst,
  kIdent,
  kSelect,  // operand.field; test_only for has()
  kIndex,   // operand[index]
  kCall,    // builtin function, args (receiver first for methods)
  kList,
  kMap,  // args: key0, value0, key1, value1, ...
  kAnd,
  kOr,
  kCond,
  kAll,        // range.all(var, pred)
  kExists,     // range.exists(var, pred)
  kExistsOne,  // range.exists_one(var, pred)
  kMapMacro,   // range.map(var, [filter,] transform)
  kFilter,     // range.filter(var, pred)
};

// Every builtin the evaluator knows; the parser maps names onto these.
enum class Fn {
  kNone,
  // Operators.
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kIn,
  kNot,
  kNeg,
  // Standard functions.
  kSize,
  kContains,
  kStartsWith,
  kEndsWith,
  kMatches,
  kLowerAscii,
  kUpperAscii,
  kToInt,
  kToUint,
  kToDouble,
  kToString,
  kToBool,
  kToBytes,
  kType,
  kDyn,
  // Kubernetes quantity library.
  kQuantity,
  kIsQuantity,
  kSign,
  kAsInteger,
  kIsInteger,
  kAsApproximateFloat,
  kAddQ,  // add(): quantity + quantity|int
  kSubQ,  // sub()
  kMulQ,  // mul(int)
  // Shared quantity/semver comparisons.
  kCompareTo,
  kIsGreaterThan,
  kIsLessThan,
  // Kubernetes semver library.
  kSemver,
  kIsSemver,
  kMajor,
  kMinor,
  kPatch,
  // Kubernetes DRA: includes() on a (list-typed) attribute.
  kIncludes,
};

struct Expr {
  ExprKind kind = ExprKind::kConst;
  int column = 0;  // 1-based, for messages
  Value value;     // kConst
  // kIdent: the variable; kSelect: the field; macros: the iteration var.
  std::string name;
  // kSelect whose operand chain is identifiers only (a.b.c): the dotted
  // name, tried as a variable first, as CEL's name resolution does.
  std::string qualified;
  bool test_only = false;  // kSelect inside has()
  Fn fn = Fn::kNone;       // kCall
  std::string fn_name;     // kCall, for messages
  bool member = false;     // kCall written as a method: receiver.fn(...)
  std::vector<std::unique_ptr<Expr>> args;
  // kCall matches() with a constant pattern: compiled once.
  std::shared_ptr<const re2::RE2> regex;
};

}  // namespace shoal::cel

#endif  // SHOAL_SCHEDULER_CEL_AST_H_
