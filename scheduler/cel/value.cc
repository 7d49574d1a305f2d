#include "scheduler/cel/value.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shoal::cel {
namespace {

bool IsNumber(Kind k) {
  return k == Kind::kInt || k == Kind::kUint || k == Kind::kDouble;
}

// int against uint compares exactly (x86's long double holds every int64
// and uint64); an integer against a double compares as a double, the
// lossy way cel-go does and CEL's conformance data expects
// (9223372036854775807 < 9223372036854775808.0 is false).
long double AsLongDouble(const Value& v, bool as_double) {
  switch (v.kind()) {
    case Kind::kInt:
      return as_double ? static_cast<double>(v.as_int())
                       : static_cast<long double>(v.as_int());
    case Kind::kUint:
      return as_double ? static_cast<double>(v.as_uint())
                       : static_cast<long double>(v.as_uint());
    default:
      return static_cast<long double>(v.as_double());
  }
}

// Normalizes a bool/int/uint/integral double to the map's numeric index.
bool ToNumericKey(const Value& v, NumericKey* key) {
  switch (v.kind()) {
    case Kind::kBool:
      *key = {0, v.as_bool() ? 1u : 0u};
      return true;
    case Kind::kInt:
      if (v.as_int() < 0) {
        *key = {2, 0 - static_cast<uint64_t>(v.as_int())};
      } else {
        *key = {1, static_cast<uint64_t>(v.as_int())};
      }
      return true;
    case Kind::kUint:
      *key = {1, v.as_uint()};
      return true;
    case Kind::kDouble: {
      double d = v.as_double();
      if (!std::isfinite(d) || std::trunc(d) != d) return false;
      if (d >= 0) {
        if (d >= 18446744073709551616.0) return false;
        *key = {1, static_cast<uint64_t>(d)};
      } else {
        if (d < -9223372036854775808.0) return false;
        *key = {2, 0 - static_cast<uint64_t>(static_cast<int64_t>(d))};
      }
      return true;
    }
    default:
      return false;
  }
}

template <typename T>
std::shared_ptr<const void> Share(T value) {
  return std::make_shared<const T>(std::move(value));
}

}  // namespace

absl::string_view KindName(Kind kind) {
  switch (kind) {
    case Kind::kNull:
      return "null_type";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kUint:
      return "uint";
    case Kind::kDouble:
      return "double";
    case Kind::kString:
      return "string";
    case Kind::kBytes:
      return "bytes";
    case Kind::kList:
      return "list";
    case Kind::kMap:
      return "map";
    case Kind::kType:
      return "type";
    case Kind::kQuantity:
      return "kubernetes.Quantity";
    case Kind::kSemver:
      return "kubernetes.Semver";
  }
  return "unknown";
}

Value Value::Bool(bool b) {
  Value v;
  v.kind_ = Kind::kBool;
  v.scalar_.b = b;
  return v;
}
Value Value::Int(int64_t i) {
  Value v;
  v.kind_ = Kind::kInt;
  v.scalar_.i = i;
  return v;
}
Value Value::Uint(uint64_t u) {
  Value v;
  v.kind_ = Kind::kUint;
  v.scalar_.u = u;
  return v;
}
Value Value::Double(double d) {
  Value v;
  v.kind_ = Kind::kDouble;
  v.scalar_.d = d;
  return v;
}
Value Value::String(std::string s) {
  Value v;
  v.kind_ = Kind::kString;
  v.payload_ = Share(std::move(s));
  return v;
}
Value Value::Bytes(std::string b) {
  Value v;
  v.kind_ = Kind::kBytes;
  v.payload_ = Share(std::move(b));
  return v;
}
Value Value::Type(std::string name) {
  Value v;
  v.kind_ = Kind::kType;
  v.payload_ = Share(std::move(name));
  return v;
}
Value Value::List(std::vector<Value> elements) {
  Value v;
  v.kind_ = Kind::kList;
  v.payload_ = Share(std::move(elements));
  return v;
}
Value Value::Quantity(cel::Quantity q) {
  Value v;
  v.kind_ = Kind::kQuantity;
  v.payload_ = Share(std::move(q));
  return v;
}
Value Value::Semver(cel::Semver s) {
  Value v;
  v.kind_ = Kind::kSemver;
  v.payload_ = Share(std::move(s));
  return v;
}

absl::StatusOr<Value> Value::QuantityFromString(absl::string_view s) {
  absl::StatusOr<cel::Quantity> q = cel::Quantity::Parse(s);
  if (!q.ok()) return q.status();
  return Quantity(*std::move(q));
}

absl::StatusOr<Value> Value::SemverFromString(absl::string_view s) {
  absl::StatusOr<cel::Semver> v = cel::Semver::Parse(s);
  if (!v.ok()) return v.status();
  return Semver(*std::move(v));
}

absl::StatusOr<Value> Value::MapOf(
    std::vector<std::pair<Value, Value>> entries) {
  auto data = std::make_shared<MapData>();
  data->entries.reserve(entries.size());
  for (auto& [k, val] : entries) {
    bool fresh;
    size_t index = data->entries.size();
    if (k.kind() == Kind::kString) {
      fresh = data->by_string.try_emplace(k.as_string(), index).second;
    } else {
      NumericKey nk;
      if (k.kind() == Kind::kDouble || !ToNumericKey(k, &nk)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "unsupported key type: ", k.TypeName(), " cannot be a map key"));
      }
      fresh = data->by_number.try_emplace(nk, index).second;
    }
    if (!fresh) {
      return absl::InvalidArgumentError(
          absl::StrCat("Failed with repeated key: ", k.DebugString()));
    }
    data->entries.emplace_back(std::move(k), std::move(val));
  }
  Value v;
  v.kind_ = Kind::kMap;
  v.payload_ = std::move(data);
  return v;
}

Value Value::Map(std::vector<std::pair<std::string, Value>> entries) {
  auto data = std::make_shared<MapData>();
  data->entries.reserve(entries.size());
  for (auto& [k, val] : entries) {
    // Later duplicates are dropped: a C++ caller's map has unique keys.
    if (data->by_string.try_emplace(k, data->entries.size()).second) {
      data->entries.emplace_back(String(std::move(k)), std::move(val));
    }
  }
  Value v;
  v.kind_ = Kind::kMap;
  v.payload_ = std::move(data);
  return v;
}

Value Value::MapWithEmptyDefault(
    std::vector<std::pair<std::string, Value>> entries) {
  Value v = Map(std::move(entries));
  std::const_pointer_cast<MapData>(
      std::static_pointer_cast<const MapData>(v.payload_))
      ->empty_map_default = true;
  return v;
}

const std::string& Value::as_string() const {
  return *static_cast<const std::string*>(payload_.get());
}
const std::vector<Value>& Value::as_list() const {
  return *static_cast<const std::vector<Value>*>(payload_.get());
}
const MapData& Value::as_map() const {
  return *static_cast<const MapData*>(payload_.get());
}
const cel::Quantity& Value::as_quantity() const {
  return *static_cast<const cel::Quantity*>(payload_.get());
}
const cel::Semver& Value::as_semver() const {
  return *static_cast<const cel::Semver*>(payload_.get());
}

const Value* MapData::FindString(absl::string_view key) const {
  auto it = by_string.find(key);
  return it == by_string.end() ? nullptr : &entries[it->second].second;
}

const Value* MapData::Find(const Value& key) const {
  if (key.kind() == Kind::kString) return FindString(key.as_string());
  NumericKey nk;
  if (!ToNumericKey(key, &nk)) return nullptr;
  // A double key only finds numbers, never bools.
  if (key.kind() != Kind::kBool && nk.cls == 0) return nullptr;
  auto it = by_number.find(nk);
  if (it == by_number.end()) return nullptr;
  const Value& stored = entries[it->second].first;
  // bool keys match only bool lookups, numbers only numbers.
  if ((stored.kind() == Kind::kBool) != (key.kind() == Kind::kBool)) {
    return nullptr;
  }
  return &entries[it->second].second;
}

bool Value::Equals(const Value& o) const {
  if (IsNumber(kind_) && IsNumber(o.kind_)) {
    if (kind_ == o.kind_ && kind_ != Kind::kDouble) {
      return scalar_.u == o.scalar_.u;
    }
    bool d = kind_ == Kind::kDouble || o.kind_ == Kind::kDouble;
    return AsLongDouble(*this, d) == AsLongDouble(o, d);  // NaN is unequal
  }
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case Kind::kNull:
      return true;
    case Kind::kBool:
      return scalar_.b == o.scalar_.b;
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kType:
      return as_string() == o.as_string();
    case Kind::kList: {
      const auto& a = as_list();
      const auto& b = o.as_list();
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!a[i].Equals(b[i])) return false;
      }
      return true;
    }
    case Kind::kMap: {
      const MapData& a = as_map();
      const MapData& b = o.as_map();
      if (a.entries.size() != b.entries.size()) return false;
      for (const auto& [k, v] : a.entries) {
        const Value* other = b.Find(k);
        if (other == nullptr || !v.Equals(*other)) return false;
      }
      return true;
    }
    case Kind::kQuantity:
      return as_quantity().Compare(o.as_quantity()) == 0;
    case Kind::kSemver:
      return as_semver().Compare(o.as_semver()) == 0;
    default:
      return false;
  }
}

absl::StatusOr<int> Value::Compare(const Value& o, bool* unordered) const {
  *unordered = false;
  if (IsNumber(kind_) && IsNumber(o.kind_)) {
    bool d = kind_ == Kind::kDouble || o.kind_ == Kind::kDouble;
    long double a = AsLongDouble(*this, d), b = AsLongDouble(o, d);
    if (std::isnan(a) || std::isnan(b)) {
      *unordered = true;
      return 0;
    }
    return a < b ? -1 : (a > b ? 1 : 0);
  }
  if (kind_ == o.kind_) {
    switch (kind_) {
      case Kind::kBool:
        return static_cast<int>(scalar_.b) - static_cast<int>(o.scalar_.b);
      case Kind::kString:
      case Kind::kBytes: {
        // Byte order of UTF-8 is code point order.
        int c = as_string().compare(o.as_string());
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
      }
      default:
        break;
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("no such overload: no ordering between ", TypeName(),
                   " and ", o.TypeName()));
}

std::string Value::DebugString() const {
  switch (kind_) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return scalar_.b ? "true" : "false";
    case Kind::kInt:
      return absl::StrCat(scalar_.i);
    case Kind::kUint:
      return absl::StrCat(scalar_.u, "u");
    case Kind::kDouble:
      return absl::StrCat(scalar_.d);
    case Kind::kString:
      return absl::StrCat("\"", absl::CHexEscape(as_string()), "\"");
    case Kind::kBytes:
      return absl::StrCat("b\"", absl::CHexEscape(as_string()), "\"");
    case Kind::kType:
      return as_string();
    case Kind::kList: {
      std::vector<std::string> parts;
      for (const Value& e : as_list()) parts.push_back(e.DebugString());
      return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
    }
    case Kind::kMap: {
      std::vector<std::string> parts;
      for (const auto& [k, v] : as_map().entries) {
        parts.push_back(absl::StrCat(k.DebugString(), ": ", v.DebugString()));
      }
      return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
    }
    case Kind::kQuantity:
      return absl::StrCat("quantity(\"", as_quantity().ToString(), "\")");
    case Kind::kSemver:
      return absl::StrCat("semver(\"", as_semver().ToString(), "\")");
  }
  return "?";
}

}  // namespace shoal::cel
