#include "scheduler/cel/types.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shoal::cel {
namespace {

TypePtr Make(TypeKind kind, std::string name, std::vector<TypePtr> params) {
  auto t = std::make_shared<Type>();
  t->kind = kind;
  t->name = std::move(name);
  t->params = std::move(params);
  return t;
}

bool Exact(const Type& a, const Type& b) {
  if (a.kind != b.kind || a.name != b.name ||
      a.params.size() != b.params.size()) {
    return false;
  }
  for (size_t i = 0; i < a.params.size(); ++i) {
    if (!Exact(*a.params[i], *b.params[i])) return false;
  }
  return true;
}

bool IsDyn(const Type& t) {
  return t.kind == TypeKind::kDyn || t.kind == TypeKind::kAny;
}

// cel-go accepts null where a message, an opaque value, a timestamp or a
// duration is expected (their zero values are nullable).
bool AcceptsNull(const Type& t) {
  switch (t.kind) {
    case TypeKind::kNull:
    case TypeKind::kAny:
    case TypeKind::kObject:
    case TypeKind::kOpaque:
    case TypeKind::kTimestamp:
    case TypeKind::kDuration:
      return true;
    default:
      return false;
  }
}

bool EqualOrLessSpecific(const Type& a, const Type& b) {
  if (IsDyn(a) || a.kind == TypeKind::kParam) return true;
  if (IsDyn(b) || b.kind == TypeKind::kParam) return false;
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case TypeKind::kOpaque:
      if (a.name != b.name || a.params.size() != b.params.size()) return false;
      [[fallthrough]];
    case TypeKind::kList:
    case TypeKind::kMap:
      for (size_t i = 0; i < a.params.size(); ++i) {
        if (!EqualOrLessSpecific(*a.params[i], *b.params[i])) return false;
      }
      return true;
    case TypeKind::kType:
      return true;
    default:
      return Exact(a, b);
  }
}

class TypeParser {
 public:
  explicit TypeParser(absl::string_view s) : s_(s) {}

  absl::StatusOr<TypePtr> Run() {
    absl::StatusOr<TypePtr> t = Parse();
    if (t.ok() && pos_ != s_.size()) return Bad();
    return t;
  }

 private:
  absl::Status Bad() const {
    return absl::InvalidArgumentError(absl::StrCat("bad type \"", s_, "\""));
  }
  void Space() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }
  absl::StatusOr<TypePtr> Parse() {
    Space();
    size_t start = pos_;
    while (pos_ < s_.size() && (absl::ascii_isalnum(s_[pos_]) ||
                                s_[pos_] == '_' || s_[pos_] == '.')) {
      ++pos_;
    }
    std::string name(s_.substr(start, pos_ - start));
    if (name.empty()) return Bad();
    std::vector<TypePtr> params;
    if (pos_ < s_.size() && s_[pos_] == '(') {
      ++pos_;
      while (true) {
        absl::StatusOr<TypePtr> p = Parse();
        if (!p.ok()) return p;
        params.push_back(*std::move(p));
        Space();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == ')') {
          ++pos_;
          break;
        }
        return Bad();
      }
    }
    static const auto* simple = new absl::flat_hash_map<std::string, TypeKind>{
        {"dyn", TypeKind::kDyn},
        {"google.protobuf.Any", TypeKind::kAny},
        {"null_type", TypeKind::kNull},
        {"bool", TypeKind::kBool},
        {"int", TypeKind::kInt},
        {"uint", TypeKind::kUint},
        {"double", TypeKind::kDouble},
        {"string", TypeKind::kString},
        {"bytes", TypeKind::kBytes},
        {"google.protobuf.Timestamp", TypeKind::kTimestamp},
        {"google.protobuf.Duration", TypeKind::kDuration}};
    if (auto it = simple->find(name); it != simple->end()) {
      if (!params.empty()) return Bad();
      return Type::Of(it->second);
    }
    if (name == "list" && params.size() == 1) return Type::List(params[0]);
    if (name == "map" && params.size() == 2) {
      return Type::Map(params[0], params[1]);
    }
    if (name == "type" && params.size() == 1) return Type::TypeOf(params[0]);
    if (name.size() == 1 && absl::ascii_isupper(name[0])) {
      return Type::Param(name);
    }
    if (!params.empty()) return Type::Opaque(name, std::move(params));
    return Type::Object(name);
  }

  absl::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

TypePtr Type::Of(TypeKind kind) { return Make(kind, "", {}); }
TypePtr Type::List(TypePtr elem) {
  return Make(TypeKind::kList, "", {std::move(elem)});
}
TypePtr Type::Map(TypePtr key, TypePtr value) {
  return Make(TypeKind::kMap, "", {std::move(key), std::move(value)});
}
TypePtr Type::TypeOf(TypePtr t) {
  return Make(TypeKind::kType, "", {std::move(t)});
}
TypePtr Type::Opaque(std::string name, std::vector<TypePtr> params) {
  return Make(TypeKind::kOpaque, std::move(name), std::move(params));
}
TypePtr Type::Object(std::string name) {
  return Make(TypeKind::kObject, std::move(name), {});
}
TypePtr Type::Param(std::string name) {
  return Make(TypeKind::kParam, std::move(name), {});
}

bool SameType(const Type& a, const Type& b) { return Exact(a, b); }

bool IsDynOrError(const Type& t) {
  return IsDyn(t) || t.kind == TypeKind::kError;
}

std::string FormatType(const Type& t) {
  auto params = [&] {
    std::vector<std::string> out;
    for (const TypePtr& p : t.params) out.push_back(FormatType(*p));
    return absl::StrJoin(out, ", ");
  };
  switch (t.kind) {
    case TypeKind::kDyn:
      return "dyn";
    case TypeKind::kAny:
      return "google.protobuf.Any";
    case TypeKind::kError:
      return "*error*";
    case TypeKind::kNull:
      return "null_type";
    case TypeKind::kBool:
      return "bool";
    case TypeKind::kInt:
      return "int";
    case TypeKind::kUint:
      return "uint";
    case TypeKind::kDouble:
      return "double";
    case TypeKind::kString:
      return "string";
    case TypeKind::kBytes:
      return "bytes";
    case TypeKind::kTimestamp:
      return "google.protobuf.Timestamp";
    case TypeKind::kDuration:
      return "google.protobuf.Duration";
    case TypeKind::kList:
      return absl::StrCat("list(", params(), ")");
    case TypeKind::kMap:
      return absl::StrCat("map(", params(), ")");
    case TypeKind::kType:
      return t.params.empty() ? "type" : absl::StrCat("type(", params(), ")");
    case TypeKind::kOpaque:
      return absl::StrCat(t.name, "(", params(), ")");
    case TypeKind::kObject:
    case TypeKind::kParam:
      return t.name;
  }
  return "";
}

absl::StatusOr<TypePtr> ParseType(absl::string_view text) {
  return TypeParser(text).Run();
}

TypePtr MostGeneral(const TypePtr& a, const TypePtr& b) {
  return EqualOrLessSpecific(*a, *b) ? a : b;
}

const TypePtr* Substitutions::Find(const Map& m, const Type& t) {
  if (t.kind != TypeKind::kParam) return nullptr;
  auto it = m.find(t.name);
  return it == m.end() ? nullptr : &it->second;
}

// Whether binding `param` to `t` would make a cycle.
bool Substitutions::OccursIn(const Map& m, const Type& param,
                             const TypePtr& t) {
  if (Exact(param, *t)) return true;
  if (t->kind == TypeKind::kParam) {
    const TypePtr* sub = Find(m, *t);
    return sub != nullptr && OccursIn(m, param, *sub);
  }
  for (const TypePtr& p : t->params) {
    if (OccursIn(m, param, p)) return true;
  }
  return false;
}

// Whether `t1` may stand for the type parameter `t2`, binding or widening
// t2's substitution; *has_sub: t2 was already bound.
bool Substitutions::ValidSubstitution(Map& m, const TypePtr& t1,
                                      const TypePtr& t2, bool* has_sub) {
  *has_sub = false;
  if (Exact(*t1, *t2)) {
    *has_sub = true;
    return true;
  }
  if (const TypePtr* sub = Find(m, *t2)) {
    *has_sub = true;
    TypePtr bound = *sub;
    if (Exact(*t1, *bound)) return true;
    if (Internal(m, t1, bound)) {
      TypePtr widened = MostGeneral(t1, bound);
      if (!OccursIn(m, *t2, widened)) m[t2->name] = widened;
      return true;
    }
    return false;
  }
  if (!OccursIn(m, *t2, t1)) {
    m[t2->name] = t1;
    return true;
  }
  return false;
}

bool Substitutions::Internal(Map& m, const TypePtr& t1, const TypePtr& t2) {
  if (t2->kind == TypeKind::kParam) {
    bool has_sub;
    if (ValidSubstitution(m, t1, t2, &has_sub)) return true;
    if (has_sub) return false;
  }
  if (t1->kind == TypeKind::kParam) {
    bool has_sub;
    return ValidSubstitution(m, t2, t1, &has_sub);
  }
  if (IsDynOrError(*t1) || IsDynOrError(*t2)) return true;
  if (t1->kind == TypeKind::kNull) return AcceptsNull(*t2);
  if (t2->kind == TypeKind::kNull) return AcceptsNull(*t1);
  switch (t1->kind) {
    case TypeKind::kType:
      return t2->kind == TypeKind::kType;
    case TypeKind::kOpaque:
    case TypeKind::kList:
    case TypeKind::kMap:
      return t1->kind == t2->kind && t1->name == t2->name &&
             InternalList(m, t1->params, t2->params);
    default:
      return t1->kind == t2->kind && t1->name == t2->name;
  }
}

bool Substitutions::InternalList(Map& m, const std::vector<TypePtr>& l1,
                                 const std::vector<TypePtr>& l2) {
  if (l1.size() != l2.size()) return false;
  for (size_t i = 0; i < l1.size(); ++i) {
    if (!Internal(m, l1[i], l2[i])) return false;
  }
  return true;
}

bool Substitutions::Assignable(const TypePtr& from, const TypePtr& to) {
  Map copy = map_;
  if (!Internal(copy, from, to)) return false;
  map_ = std::move(copy);
  return true;
}

bool Substitutions::AssignableList(const std::vector<TypePtr>& from,
                                   const std::vector<TypePtr>& to) {
  Map copy = map_;
  if (!InternalList(copy, from, to)) return false;
  map_ = std::move(copy);
  return true;
}

TypePtr Substitutions::Apply(const Map& m, const TypePtr& t,
                             bool params_to_dyn) {
  if (const TypePtr* sub = Find(m, *t)) return Apply(m, *sub, params_to_dyn);
  if (t->kind == TypeKind::kParam) {
    return params_to_dyn ? Type::Of(TypeKind::kDyn) : t;
  }
  if (t->params.empty()) return t;
  std::vector<TypePtr> params;
  for (const TypePtr& p : t->params) {
    params.push_back(Apply(m, p, params_to_dyn));
  }
  return Make(t->kind, t->name, std::move(params));
}

TypePtr Substitutions::Apply(const TypePtr& t, bool params_to_dyn) const {
  return Apply(map_, t, params_to_dyn);
}

TypePtr Substitutions::Fresh() {
  return Type::Param(absl::StrCat("_var", next_++));
}

}  // namespace shoal::cel
