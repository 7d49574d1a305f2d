// CEL runtime values. A Value is a kind plus either an inline scalar or a
// shared pointer to an immutable payload, so copying one (which the
// evaluator does constantly) is a refcount bump, never a deep copy.
#ifndef SHOAL_SCHEDULER_CEL_VALUE_H_
#define SHOAL_SCHEDULER_CEL_VALUE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/cel/quantity.h"
#include "scheduler/cel/semver.h"

namespace shoal::cel {

enum class Kind {
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kList,
  kMap,
  kType,
  kQuantity,  // Kubernetes extension: resource.Quantity
  kSemver,    // Kubernetes extension: semver.Version
};

// The CEL type name of a kind: "int", "list", "kubernetes.Quantity", ...
absl::string_view KindName(Kind kind);

class Value;
struct ListData;
struct MapData;

class Value {
 public:
  Value() : kind_(Kind::kNull) { scalar_.i = 0; }

  static Value Null() { return Value(); }
  static Value Bool(bool b);
  static Value Int(int64_t i);
  static Value Uint(uint64_t u);
  static Value Double(double d);
  static Value String(std::string s);
  static Value Bytes(std::string b);
  static Value List(std::vector<Value> elements);
  // A map keyed by strings (what DRA's device variable is made of).
  static Value Map(std::vector<std::pair<std::string, Value>> entries);
  // Kubernetes' DRA attribute/capacity maps: looking up a key (domain)
  // that is absent yields an empty map instead of a "no such key" error.
  static Value MapWithEmptyDefault(
      std::vector<std::pair<std::string, Value>> entries);
  // A map with any CEL key kinds (bool, int, uint, string); refuses other
  // key kinds and repeated keys, as a map literal does.
  static absl::StatusOr<Value> MapOf(
      std::vector<std::pair<Value, Value>> entries);
  // `name` is the CEL type name: "int", "list", "null_type", ...
  static Value Type(std::string name);
  static Value Quantity(cel::Quantity q);
  static Value Semver(cel::Semver v);
  static absl::StatusOr<Value> QuantityFromString(absl::string_view s);
  static absl::StatusOr<Value> SemverFromString(absl::string_view s);

  Kind kind() const { return kind_; }
  bool as_bool() const { return scalar_.b; }
  int64_t as_int() const { return scalar_.i; }
  uint64_t as_uint() const { return scalar_.u; }
  double as_double() const { return scalar_.d; }
  // String, bytes and type name text.
  const std::string& as_string() const;
  const std::vector<Value>& as_list() const;
  const MapData& as_map() const;
  const cel::Quantity& as_quantity() const;
  const cel::Semver& as_semver() const;

  // CEL `==`: heterogeneous numeric equality (1 == 1u == 1.0), false
  // across other kinds, element-wise for lists and maps, NaN != NaN.
  bool Equals(const Value& other) const;
  // CEL ordering for <, <=, >, >=: -1/0/1, or an error for kinds that have
  // no order or mixes that have no overload. `*unordered` is set for NaN.
  absl::StatusOr<int> Compare(const Value& other, bool* unordered) const;
  // The CEL type name of this value.
  absl::string_view TypeName() const { return KindName(kind_); }
  // A readable rendering for messages and tests (not CEL's string()).
  std::string DebugString() const;

 private:
  Kind kind_;
  union {
    bool b;
    int64_t i;
    uint64_t u;
    double d;
  } scalar_;
  std::shared_ptr<const void> payload_;
};

// A map key as the map indexes it: strings by their text; bool, int and
// uint (and doubles with an integral value, for lookups) by a normalized
// number so that m[1], m[1u] and m[1.0] find the same entry.
struct NumericKey {
  uint8_t cls;  // 0 bool, 1 non-negative number, 2 negative number
  uint64_t bits;
  bool operator==(const NumericKey& o) const {
    return cls == o.cls && bits == o.bits;
  }
  template <typename H>
  friend H AbslHashValue(H h, const NumericKey& k) {
    return H::combine(std::move(h), k.cls, k.bits);
  }
};

struct MapData {
  std::vector<std::pair<Value, Value>> entries;  // insertion order
  absl::flat_hash_map<std::string, size_t> by_string;
  absl::flat_hash_map<NumericKey, size_t> by_number;
  bool empty_map_default = false;

  // The entry for `key`, or nullptr. Keys of kinds that cannot be map
  // keys are simply absent.
  const Value* Find(const Value& key) const;
  const Value* FindString(absl::string_view key) const;
};

}  // namespace shoal::cel

#endif  // SHOAL_SCHEDULER_CEL_VALUE_H_
