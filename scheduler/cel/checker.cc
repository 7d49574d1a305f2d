#include "scheduler/cel/checker.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/cel/ast.h"
#include "scheduler/cel/declarations.h"
#include "scheduler/cel/parser.h"
#include "scheduler/cel/types.h"

namespace shoal::cel {
namespace {

constexpr absl::string_view kDevice = "kubernetes.DRADevice";

TypePtr T(TypeKind kind) { return Type::Of(kind); }

bool IsDyn(const Type& t) {
  return t.kind == TypeKind::kDyn || t.kind == TypeKind::kAny;
}

// The fields of `device`. An attribute value is google.protobuf.Any in
// 1.36, dyn with the DRAListTypeAttributes gate (kube-apiserver's
// dynamic-resource-allocation/cel compile.go: "use DynType instead of
// AnyType so that iterate functions can work").
TypePtr DeviceField(absl::string_view name, const DraCelFeatures& features) {
  if (name == "driver") return T(TypeKind::kString);
  if (name == "allowMultipleAllocations") return T(TypeKind::kBool);
  if (name == "attributes") {
    const TypeKind value =
        features.list_type_attributes ? TypeKind::kDyn : TypeKind::kAny;
    return Type::Map(T(TypeKind::kString),
                     Type::Map(T(TypeKind::kString), T(value)));
  }
  if (name == "capacity") {
    return Type::Map(
        T(TypeKind::kString),
        Type::Map(T(TypeKind::kString), Type::Object("kubernetes.Quantity")));
  }
  return nullptr;
}

// cel-go's names for the operators the parser keeps as written.
std::string OperatorName(const Expr& call) {
  const std::string& n = call.fn_name;
  if (n == "!" || (n == "-" && call.args.size() == 1)) return n + "_";
  if (n == "in") return "@in";
  if (n == "==" || n == "!=" || n == "<" || n == "<=" || n == ">" ||
      n == ">=" || n == "+" || n == "-" || n == "*" || n == "/" || n == "%") {
    return absl::StrCat("_", n, "_");
  }
  return n;
}

const char* MacroName(ExprKind kind) {
  switch (kind) {
    case ExprKind::kAll:
      return "all";
    case ExprKind::kExists:
      return "exists";
    case ExprKind::kExistsOne:
      return "exists_one";
    case ExprKind::kMapMacro:
      return "map";
    case ExprKind::kFilter:
      return "filter";
    default:
      return nullptr;
  }
}

// Functions declared only with a feature gate: includes() with
// DRAListTypeAttributes.
bool Gated(absl::string_view name, const DraCelFeatures& features) {
  return name == "includes" && !features.list_type_attributes;
}

class Checker {
 public:
  Checker(absl::string_view source, const DraCelFeatures& features)
      : src_(source), features_(features) {}

  TypePtr Check(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kConst:
        return Constant(e.value);
      case ExprKind::kIdent:
        return Ident(e);
      case ExprKind::kSelect:
        return Select(e, *e.args[0], e.name, e.test_only, false);
      case ExprKind::kIndex:
        return Resolve("_[_]", Loc(e), Types(e.args, 0), false);
      case ExprKind::kCall:
        return Call(e);
      case ExprKind::kList:
        return List(e);
      case ExprKind::kMap:
        return MapLiteral(e);
      case ExprKind::kAnd:
      case ExprKind::kOr:
        return Resolve(e.kind == ExprKind::kAnd ? "_&&_" : "_||_", Loc(e),
                       Types(e.args, 0), false);
      case ExprKind::kCond:
        return Resolve("_?_:_", Loc(e), Types(e.args, 0), false);
      default:
        return Comprehension(e);
    }
  }

  // Sorted by position, each in cel-go's display form.
  std::string Errors() const {
    std::vector<std::pair<size_t, std::string>> sorted = errors_;
    std::stable_sort(
        sorted.begin(), sorted.end(),
        [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (const auto& [offset, message] : sorted) {
      out.push_back(Display(src_, offset, message));
    }
    return absl::StrJoin(out, "\n");
  }

  bool failed() const { return !errors_.empty(); }
  bool unsupported() const { return unsupported_; }
  const Substitutions& substitutions() const { return subs_; }

  // "ERROR: <input>:1:54: <message>\n | <line>\n | .....^": line and
  // column count code points, as cel-go's source locations do.
  static std::string Display(absl::string_view src, size_t offset,
                             absl::string_view message) {
    offset = std::min(offset, src.size());
    size_t line_start = 0;
    if (offset > 0) {
      size_t nl = src.rfind('\n', offset - 1);
      if (nl != absl::string_view::npos) line_start = nl + 1;
    }
    int line = 1 + static_cast<int>(
                       std::count(src.begin(), src.begin() + line_start, '\n'));
    int column = 0;
    for (size_t i = line_start; i < offset; ++i) {
      column += (static_cast<unsigned char>(src[i]) & 0xC0) != 0x80;
    }
    size_t line_end = src.find('\n', line_start);
    absl::string_view text = src.substr(
        line_start,
        line_end == absl::string_view::npos ? line_end : line_end - line_start);
    std::string snippet(text);
    std::replace(snippet.begin(), snippet.end(), '\t', ' ');
    return absl::StrCat("ERROR: <input>:", line, ":", column + 1, ": ", message,
                        "\n | ", snippet, "\n | ", std::string(column, '.'),
                        "^");
  }

 private:
  void Error(size_t offset, std::string message) {
    errors_.emplace_back(offset, std::move(message));
  }
  TypePtr Fail(size_t offset, std::string message) {
    Error(offset, std::move(message));
    return T(TypeKind::kError);
  }
  TypePtr Undeclared(size_t offset, absl::string_view name) {
    return Fail(offset, absl::StrCat("undeclared reference to '", name,
                                     "' (in container '')"));
  }

  // cel-go places an expression where its parser saw the operator: the
  // '(' of a call or macro, the '.' of a selection. Shoal's parser notes
  // the name instead, so step to the punctuation. 0-based byte offset.
  size_t Loc(const Expr& e) const {
    size_t at = e.column > 0 ? static_cast<size_t>(e.column - 1) : 0;
    const char* macro = MacroName(e.kind);
    bool call = e.kind == ExprKind::kCall && !e.fn_name.empty() &&
                absl::ascii_isalpha(e.fn_name[0]) && e.fn_name != "in";
    if (call || macro != nullptr) {
      size_t p = src_.find('(', at);
      return p == absl::string_view::npos ? at : p;
    }
    if (e.kind == ExprKind::kSelect && at > 0) {
      size_t p = at;
      while (p > 0 && src_[p - 1] != '.') --p;
      return p > 0 ? p - 1 : at;
    }
    return at;
  }

  std::vector<TypePtr> Types(const std::vector<std::unique_ptr<Expr>>& args,
                             size_t from) {
    std::vector<TypePtr> out;
    for (size_t i = from; i < args.size(); ++i) out.push_back(Check(*args[i]));
    return out;
  }

  TypePtr Constant(const Value& v) {
    switch (v.kind()) {
      case Kind::kNull:
        return T(TypeKind::kNull);
      case Kind::kBool:
        return T(TypeKind::kBool);
      case Kind::kInt:
        return T(TypeKind::kInt);
      case Kind::kUint:
        return T(TypeKind::kUint);
      case Kind::kDouble:
        return T(TypeKind::kDouble);
      case Kind::kString:
        return T(TypeKind::kString);
      case Kind::kBytes:
        return T(TypeKind::kBytes);
      case Kind::kType: {
        const std::string& n = v.as_string();
        if (n == "list") return Type::TypeOf(Type::List(T(TypeKind::kDyn)));
        if (n == "map") {
          return Type::TypeOf(Type::Map(T(TypeKind::kDyn), T(TypeKind::kDyn)));
        }
        if (n == "type") return Type::TypeOf(T(TypeKind::kType));
        absl::StatusOr<TypePtr> t = ParseType(n);
        return Type::TypeOf(t.ok() ? *t : T(TypeKind::kDyn));
      }
      default:
        return T(TypeKind::kDyn);
    }
  }

  const TypePtr* InScope(absl::string_view name) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it) {
      if (it->first == name) return &it->second;
    }
    return nullptr;
  }

  TypePtr Ident(const Expr& e) {
    if (const TypePtr* t = InScope(e.name)) return *t;
    if (e.name == "device") return Type::Object(std::string(kDevice));
    if (e.name == "dyn") return Type::TypeOf(T(TypeKind::kDyn));
    return Undeclared(Loc(e), e.name);
  }

  TypePtr Select(const Expr& e, const Expr& operand, const std::string& field,
                 bool test_only, bool optional) {
    TypePtr t = subs_.Apply(Check(operand), false);
    bool opt = t->kind == TypeKind::kOpaque && t->name == "optional_type";
    if (opt) t = t->params[0];
    TypePtr result = T(TypeKind::kDyn);
    switch (t->kind) {
      case TypeKind::kMap:
        result = t->params[1];
        break;
      case TypeKind::kObject:
        if (t->name == kDevice) {
          result = DeviceField(field, features_);
          if (result == nullptr) {
            result =
                Fail(Loc(e), absl::StrCat("undefined field '", field, "'"));
          }
          break;
        }
        [[fallthrough]];
      default:
        if (t->kind == TypeKind::kParam) {
          subs_.Assignable(T(TypeKind::kDyn), t);
        } else if (!IsDynOrError(*t)) {
          Error(Loc(e), absl::StrCat("type '", FormatType(*t),
                                     "' does not support field selection"));
        }
        result = T(TypeKind::kDyn);
    }
    if (test_only) return T(TypeKind::kBool);
    if (opt || optional) result = Type::Optional(result);
    return result;
  }

  // cel-go's overload resolution: every overload of the call's style and
  // arity whose parameters the arguments are assignable to matches; the
  // first match gives the type, unless another gives a different one,
  // which makes it dyn.
  TypePtr Resolve(const std::string& name, size_t loc,
                  std::vector<TypePtr> args, bool member) {
    const auto& table = DraFunctions();
    auto it = table.find(name);
    if (it == table.end() || Gated(name, features_)) {
      return Undeclared(loc, name);
    }
    TypePtr result;
    for (const Overload& o : it->second) {
      if (o.member != member || o.args.size() != args.size()) continue;
      std::vector<TypePtr> formal = o.args;
      TypePtr out = o.result;
      if (!o.params.empty()) {
        // Fresh variables for this resolution, shared across its types.
        std::vector<std::pair<std::string, TypePtr>> vars;
        for (const std::string& p : o.params) vars.emplace_back(p, Fresh());
        for (TypePtr& f : formal) f = Rename(f, vars);
        out = Rename(out, vars);
      }
      if (!subs_.AssignableList(args, formal)) continue;
      TypePtr r = subs_.Apply(out, false);
      if (result == nullptr) {
        result = r;
      } else if (!IsDyn(*result) && !SameType(*r, *result)) {
        result = T(TypeKind::kDyn);
      }
    }
    if (result != nullptr) return result;
    std::vector<std::string> shown;
    for (const TypePtr& a : args) {
      shown.push_back(FormatType(*subs_.Apply(a, true)));
    }
    std::string sig;
    if (member) {
      sig = shown[0] + ".";
      shown.erase(shown.begin());
    }
    absl::StrAppend(&sig, "(", absl::StrJoin(shown, ", "), ")");
    return Fail(loc, absl::StrCat("found no matching overload for '", name,
                                  "' applied to '", sig, "'"));
  }

  TypePtr Fresh() { return subs_.Fresh(); }

  static TypePtr Rename(
      const TypePtr& t,
      const std::vector<std::pair<std::string, TypePtr>>& vars) {
    if (t->kind == TypeKind::kParam) {
      for (const auto& [name, v] : vars) {
        if (name == t->name) return v;
      }
      return t;
    }
    if (t->params.empty()) return t;
    auto copy = std::make_shared<Type>(*t);
    for (TypePtr& p : copy->params) p = Rename(p, vars);
    return copy;
  }

  // The dotted name a.b.c of an identifier chain, or "".
  static std::string Qualified(const Expr& e) {
    if (e.kind == ExprKind::kIdent) return e.name;
    if (e.kind == ExprKind::kSelect && !e.test_only) return e.qualified;
    return "";
  }

  TypePtr Call(const Expr& e) {
    const std::string name = OperatorName(e);
    if (name == "_?._") {
      return Select(e, *e.args[0], e.args[1]->value.as_string(), false, true);
    }
    if (!e.member) return Resolve(name, Loc(e), Types(e.args, 0), false);
    const Expr& target = *e.args[0];
    std::string ns = Qualified(target);
    if (ns == "cel" && name == "bind" && e.args.size() == 4 &&
        e.args[1]->kind == ExprKind::kIdent) {
      TypePtr init = Check(*e.args[2]);
      return WithVar(e.args[1]->name, init, *e.args[3]);
    }
    if (!ns.empty() && !InScope(ns.substr(0, ns.find('.'))) &&
        DraFunctions().contains(absl::StrCat(ns, ".", name))) {
      return Resolve(absl::StrCat(ns, ".", name), Loc(e), Types(e.args, 1),
                     false);
    }
    if (name == "transformList" || name == "transformMap" ||
        name == "transformMapEntry" || name == "existsOne") {
      // Two-variable comprehensions: not typed here (see checker.h).
      unsupported_ = true;
      return T(TypeKind::kDyn);
    }
    if ((name == "sortBy" || name == "optMap" || name == "optFlatMap") &&
        e.args.size() == 3 && e.args[1]->kind == ExprKind::kIdent) {
      return BindingMacro(name, e);
    }
    std::vector<TypePtr> args = Types(e.args, 1);
    args.insert(args.begin(), Check(target));
    if (!DraFunctions().contains(name) || Gated(name, features_)) {
      return Undeclared(Loc(e), name);
    }
    return Resolve(name, Loc(e), std::move(args), true);
  }

  TypePtr WithVar(const std::string& var, TypePtr type, const Expr& body) {
    scope_.emplace_back(var, std::move(type));
    TypePtr t = Check(body);
    scope_.pop_back();
    return t;
  }

  // list.sortBy(v, key), opt.optMap(v, expr), opt.optFlatMap(v, expr):
  // macros binding v to an element or the optional's value.
  TypePtr BindingMacro(const std::string& name, const Expr& e) {
    TypePtr target = subs_.Apply(Check(*e.args[0]), false);
    TypePtr elem = T(TypeKind::kDyn);
    if (!target->params.empty()) elem = target->params[0];
    TypePtr body = WithVar(e.args[1]->name, elem, *e.args[2]);
    if (name == "sortBy") return target;
    if (name == "optMap") return Type::Optional(body);
    return body;
  }

  // Elements must agree (Kubernetes turns on homogeneous aggregate
  // literals): cel-go joins them pairwise and reports the first that
  // does not fit.
  TypePtr Join(const Expr& at, const TypePtr& previous, const TypePtr& t) {
    if (previous == nullptr) return t;
    if (subs_.Assignable(previous, t)) return MostGeneral(previous, t);
    return Fail(Loc(at), absl::StrCat("expected type '",
                                      FormatType(*subs_.Apply(previous, true)),
                                      "' but found '",
                                      FormatType(*subs_.Apply(t, true)), "'"));
  }

  TypePtr List(const Expr& e) {
    TypePtr elem;
    for (const auto& a : e.args) elem = Join(*a, elem, Check(*a));
    return Type::List(elem != nullptr ? elem : Fresh());
  }

  TypePtr MapLiteral(const Expr& e) {
    TypePtr key, value;
    for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
      key = Join(*e.args[i], key, Check(*e.args[i]));
      value = Join(*e.args[i + 1], value, Check(*e.args[i + 1]));
    }
    return Type::Map(key != nullptr ? key : Fresh(),
                     value != nullptr ? value : Fresh());
  }

  // all, exists, exists_one, map, filter, checked as cel-go checks their
  // expansion: the loop step is a call of &&, ||, or ?: on the predicate.
  TypePtr Comprehension(const Expr& e) {
    const Expr& range = *e.args[0];
    TypePtr r = subs_.Apply(Check(range), false);
    TypePtr var;
    switch (r->kind) {
      case TypeKind::kList:
      case TypeKind::kMap:
        var = r->params[0];
        break;
      case TypeKind::kDyn:
      case TypeKind::kError:
      case TypeKind::kParam:
        subs_.Assignable(T(TypeKind::kDyn), r);
        var = T(TypeKind::kDyn);
        break;
      default:
        var = Fail(Loc(range),
                   absl::StrCat("expression of type '", FormatType(*r),
                                "' cannot be range of a comprehension (must "
                                "be list, map, or dynamic)"));
    }
    scope_.emplace_back(e.name, var);
    std::vector<TypePtr> body = Types(e.args, 1);
    scope_.pop_back();
    const size_t loc = Loc(e);
    const TypePtr b = T(TypeKind::kBool);
    const TypePtr i = T(TypeKind::kInt);
    switch (e.kind) {
      case ExprKind::kAll:
        Resolve("_&&_", loc, {b, body[0]}, false);
        return b;
      case ExprKind::kExists:
        Resolve("_||_", loc, {b, body[0]}, false);
        return b;
      case ExprKind::kExistsOne:
        Resolve("_?_:_", loc, {body[0], i, i}, false);
        return b;
      case ExprKind::kFilter: {
        TypePtr list = Type::List(var);
        Resolve("_?_:_", loc, {body[0], list, list}, false);
        return list;
      }
      default: {
        TypePtr list = Type::List(body.back());
        if (body.size() == 2)
          Resolve("_?_:_", loc, {body[0], list, list}, false);
        return list;
      }
    }
  }

  absl::string_view src_;
  DraCelFeatures features_;
  Substitutions subs_;
  std::vector<std::pair<std::string, TypePtr>> scope_;
  std::vector<std::pair<size_t, std::string>> errors_;
  bool unsupported_ = false;
};

// Shoal's parser's "syntax error at column N: what", in cel-go's frame.
absl::Status SyntaxError(absl::string_view source, absl::string_view message) {
  constexpr absl::string_view kPrefix = "syntax error at column ";
  size_t colon = message.find(": ");
  int column = 0;
  if (!absl::StartsWith(message, kPrefix) || colon == absl::string_view::npos ||
      !absl::SimpleAtoi(message.substr(kPrefix.size(), colon - kPrefix.size()),
                        &column)) {
    return absl::InvalidArgumentError(
        absl::StrCat("compilation failed: ", message));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "compilation failed: ",
      Checker::Display(
          source, column > 0 ? column - 1 : 0,
          absl::StrCat("Syntax error: ", message.substr(colon + 2)))));
}

}  // namespace

absl::Status CheckDraSelector(absl::string_view source,
                              const DraCelFeatures& features) {
  ParseOptions options;
  options.for_checker = true;
  absl::StatusOr<std::unique_ptr<Expr>> root = Parse(source, options);
  if (!root.ok()) {
    const std::string& m = std::string(root.status().message());
    if (absl::StrContains(m, "not in the CEL subset")) {
      return absl::UnimplementedError(m);
    }
    return SyntaxError(source, m);
  }
  Checker checker(source, features);
  TypePtr type = checker.Check(**root);
  if (checker.unsupported()) {
    return absl::UnimplementedError(
        "two-variable comprehensions are not type-checked");
  }
  if (checker.failed()) {
    return absl::InvalidArgumentError(
        absl::StrCat("compilation failed: ", checker.Errors()));
  }
  type = checker.substitutions().Apply(type, true);
  // bool, or the attribute values' unknown type: google.protobuf.Any,
  // and dyn only with the DRAListTypeAttributes gate (where an attribute
  // is dyn).
  if (type->kind == TypeKind::kBool || type->kind == TypeKind::kAny ||
      (type->kind == TypeKind::kDyn && features.list_type_attributes)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "must evaluate to bool or the unknown type, not ", FormatType(*type)));
}

}  // namespace shoal::cel
