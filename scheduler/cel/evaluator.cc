#include "scheduler/cel/evaluator.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "scheduler/cel/builtins.h"

namespace shoal::cel {
namespace {

absl::Status Err(absl::string_view msg) {
  return absl::InvalidArgumentError(msg);
}

class Evaluator {
 public:
  explicit Evaluator(const Activation& vars) : vars_(vars) {
    // Dotted variable names (CEL's qualified identifiers) are rare; only
    // look for them when the activation has one.
    for (const auto& [name, value] : vars) {
      if (name.find('.') != std::string::npos) dotted_vars_ = true;
    }
  }

  absl::StatusOr<Value> Eval(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kConst:
        return e.value;
      case ExprKind::kIdent:
        return Ident(e);
      case ExprKind::kSelect:
        return Select(e);
      case ExprKind::kIndex:
        return Index(e);
      case ExprKind::kCall: {
        std::vector<Value> args;
        args.reserve(e.args.size());
        for (const auto& a : e.args) {
          absl::StatusOr<Value> v = Eval(*a);
          if (!v.ok()) return v;
          args.push_back(*std::move(v));
        }
        return CallBuiltin(e, args);
      }
      case ExprKind::kList: {
        std::vector<Value> out;
        out.reserve(e.args.size());
        for (const auto& a : e.args) {
          absl::StatusOr<Value> v = Eval(*a);
          if (!v.ok()) return v;
          out.push_back(*std::move(v));
        }
        return Value::List(std::move(out));
      }
      case ExprKind::kMap: {
        std::vector<std::pair<Value, Value>> entries;
        for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
          absl::StatusOr<Value> k = Eval(*e.args[i]);
          if (!k.ok()) return k;
          absl::StatusOr<Value> v = Eval(*e.args[i + 1]);
          if (!v.ok()) return v;
          entries.emplace_back(*std::move(k), *std::move(v));
        }
        return Value::MapOf(std::move(entries));
      }
      case ExprKind::kAnd:
      case ExprKind::kOr:
        return Logic(e);
      case ExprKind::kCond: {
        absl::StatusOr<Value> c = Eval(*e.args[0]);
        if (!c.ok()) return c;
        if (c->kind() != Kind::kBool) {
          return NoOverload("_?_:_", {*c});
        }
        return Eval(*e.args[c->as_bool() ? 1 : 2]);
      }
      default:
        return Comprehension(e);
    }
  }

 private:
  const Value* Local(absl::string_view name) const {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
      if (*it->first == name) return it->second;
    }
    return nullptr;
  }

  absl::StatusOr<Value> Ident(const Expr& e) {
    if (const Value* v = Local(e.name)) return *v;
    auto it = vars_.find(e.name);
    if (it != vars_.end()) return it->second;
    return Err(absl::StrCat("undeclared reference to '", e.name, "'"));
  }

  // The field of a map (CEL has no other field-bearing values here).
  absl::StatusOr<Value> Select(const Expr& e) {
    if (dotted_vars_ && !e.qualified.empty() && !e.test_only) {
      std::string root = e.qualified.substr(0, e.qualified.find('.'));
      if (Local(root) == nullptr) {
        auto it = vars_.find(e.qualified);
        if (it != vars_.end()) return it->second;
      }
    }
    absl::StatusOr<Value> operand = Eval(*e.args[0]);
    if (!operand.ok()) return operand;
    if (operand->kind() != Kind::kMap) {
      return Err(absl::StrCat("no such overload: field selection '.", e.name,
                              "' on ", operand->TypeName()));
    }
    const MapData& map = operand->as_map();
    const Value* found = map.FindString(e.name);
    if (e.test_only) return Value::Bool(found != nullptr);
    if (found != nullptr) return *found;
    if (map.empty_map_default) return Value::Map({});
    return Err(absl::StrCat("no such key: ", e.name));
  }

  absl::StatusOr<Value> Index(const Expr& e) {
    absl::StatusOr<Value> operand = Eval(*e.args[0]);
    if (!operand.ok()) return operand;
    absl::StatusOr<Value> index = Eval(*e.args[1]);
    if (!index.ok()) return index;
    if (operand->kind() == Kind::kList) {
      const std::vector<Value>& list = operand->as_list();
      int64_t i;
      const Value& x = *index;
      if (x.kind() == Kind::kInt) {
        i = x.as_int();
      } else if (x.kind() == Kind::kUint && x.as_uint() <= INT64_MAX) {
        i = static_cast<int64_t>(x.as_uint());
      } else if (x.kind() == Kind::kDouble && x.as_double() >= -1e18 &&
                 x.as_double() <= 1e18 &&
                 static_cast<double>(static_cast<int64_t>(x.as_double())) ==
                     x.as_double()) {
        i = static_cast<int64_t>(x.as_double());
      } else if (x.kind() == Kind::kDouble || x.kind() == Kind::kUint) {
        return Err(absl::StrCat("invalid list index: ", x.DebugString()));
      } else {
        return NoOverload("_[_]", {*operand, x});
      }
      if (i < 0 || i >= static_cast<int64_t>(list.size())) {
        return Err(absl::StrCat("index out of bounds: ", i, " (list size ",
                                list.size(), ")"));
      }
      return list[i];
    }
    if (operand->kind() == Kind::kMap) {
      Kind k = index->kind();
      if (k != Kind::kString && k != Kind::kInt && k != Kind::kUint &&
          k != Kind::kBool && k != Kind::kDouble) {
        return Err(absl::StrCat("unsupported key type: ", index->TypeName()));
      }
      const MapData& map = operand->as_map();
      if (const Value* v = map.Find(*index)) return *v;
      if (map.empty_map_default) return Value::Map({});
      return Err(absl::StrCat("no such key: ", index->DebugString()));
    }
    return NoOverload("_[_]", {*operand, *index});
  }

  // && and || evaluate both sides when needed and let a decisive bool
  // absorb an error on the other side, in either order (CEL's
  // commutative logic).
  absl::StatusOr<Value> Logic(const Expr& e) {
    const bool decisive = e.kind == ExprKind::kOr;  // true decides ||
    absl::StatusOr<Value> left = Eval(*e.args[0]);
    if (left.ok() && left->kind() == Kind::kBool &&
        left->as_bool() == decisive) {
      return *left;
    }
    absl::StatusOr<Value> right = Eval(*e.args[1]);
    if (right.ok() && right->kind() == Kind::kBool) {
      if (right->as_bool() == decisive) return *right;
      if (left.ok() && left->kind() == Kind::kBool) return *right;
    }
    absl::string_view op = decisive ? "_||_" : "_&&_";
    if (!left.ok()) return left;
    if (left->kind() != Kind::kBool) return NoOverload(op, {*left});
    if (!right.ok()) return right;
    return NoOverload(op, {*right});
  }

  absl::StatusOr<Value> Comprehension(const Expr& e) {
    absl::StatusOr<Value> range = Eval(*e.args[0]);
    if (!range.ok()) return range;
    std::vector<Value> keys;
    const std::vector<Value>* items;
    if (range->kind() == Kind::kList) {
      items = &range->as_list();
    } else if (range->kind() == Kind::kMap) {
      // Maps iterate over their keys.
      keys.reserve(range->as_map().entries.size());
      for (const auto& entry : range->as_map().entries) {
        keys.push_back(entry.first);
      }
      items = &keys;
    } else {
      return Err(absl::StrCat("no such overload: cannot iterate over ",
                              range->TypeName(), " in a comprehension"));
    }
    std::vector<Value> out;
    int64_t count = 0;
    absl::Status deferred;  // first absorbed error of all()/exists()
    for (const Value& item : *items) {
      locals_.emplace_back(&e.name, &item);
      absl::StatusOr<Value> p = Eval(*e.args[1]);
      absl::StatusOr<Value> t;
      if (e.kind == ExprKind::kMapMacro && e.args.size() == 3 && p.ok() &&
          p->kind() == Kind::kBool && p->as_bool()) {
        t = Eval(*e.args[2]);
      }
      locals_.pop_back();
      if (e.kind == ExprKind::kMapMacro && e.args.size() == 2) {
        if (!p.ok()) return p;
        out.push_back(*std::move(p));
        continue;
      }
      bool is_bool = p.ok() && p->kind() == Kind::kBool;
      if (e.kind == ExprKind::kAll || e.kind == ExprKind::kExists) {
        bool stop = e.kind == ExprKind::kExists;  // value that decides
        if (is_bool && p->as_bool() == stop) return Value::Bool(stop);
        if (!is_bool && deferred.ok()) {
          deferred =
              p.ok() ? NoOverload(e.kind == ExprKind::kAll ? "all" : "exists",
                                  {*p})
                     : p.status();
        }
        continue;
      }
      if (!p.ok()) return p;
      if (!is_bool) return NoOverload("comprehension predicate", {*p});
      if (!p->as_bool()) continue;
      switch (e.kind) {
        case ExprKind::kExistsOne:
          ++count;
          break;
        case ExprKind::kFilter:
          out.push_back(item);
          break;
        default:  // map(x, filter, transform)
          if (!t.ok()) return t;
          out.push_back(*std::move(t));
          break;
      }
    }
    switch (e.kind) {
      case ExprKind::kAll:
      case ExprKind::kExists:
        if (!deferred.ok()) return deferred;
        return Value::Bool(e.kind == ExprKind::kAll);
      case ExprKind::kExistsOne:
        return Value::Bool(count == 1);
      default:
        return Value::List(std::move(out));
    }
  }

  const Activation& vars_;
  bool dotted_vars_ = false;
  std::vector<std::pair<const std::string*, const Value*>> locals_;
};

}  // namespace

absl::StatusOr<Value> EvaluateExpr(const Expr& root, const Activation& vars) {
  return Evaluator(vars).Eval(root);
}

}  // namespace shoal::cel
