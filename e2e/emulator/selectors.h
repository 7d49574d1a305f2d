// Label and field selectors from list and watch query strings.
#ifndef SHOAL_E2E_EMULATOR_SELECTORS_H_
#define SHOAL_E2E_EMULATOR_SELECTORS_H_

#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace shoal::emulator {

class Selector {
 public:
  // `labelSelector`: k=v, k==v, k!=v, k, !k, k in (a,b), k notin (a,b).
  // Returns nullopt (and fills `error`) on a malformed selector.
  static std::optional<Selector> ParseLabels(const std::string& text,
                                             std::string* error);
  // `fieldSelector`: dotted.path=v, ==, != over the object's fields.
  static std::optional<Selector> ParseFields(const std::string& text,
                                             std::string* error);

  bool Matches(const nlohmann::json& object) const;
  // Selects everything.
  bool Empty() const { return requirements_.empty(); }

 private:
  enum class Op { kEquals, kNotEquals, kExists, kNotExists, kIn, kNotIn };
  struct Requirement {
    std::vector<std::string> path;  // into the object, or {label key}
    Op op;
    std::vector<std::string> values;
  };
  bool labels_ = true;
  std::vector<Requirement> requirements_;
};

}  // namespace shoal::emulator

#endif  // SHOAL_E2E_EMULATOR_SELECTORS_H_
