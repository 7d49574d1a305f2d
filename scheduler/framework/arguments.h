// The `arguments:` of a plugin or action, flattened to dotted keys so that
// Volcano's flat style ("binpack.resources.nvidia.com/gpu: 2") and nested
// maps ("resources: {cpu: 1}") read the same. Typed getters refuse values
// of the wrong type, naming the owner and the key.
#ifndef SHOAL_SCHEDULER_FRAMEWORK_ARGUMENTS_H_
#define SHOAL_SCHEDULER_FRAMEWORK_ARGUMENTS_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace shoal::framework {

class Arguments {
 public:
  Arguments() = default;
  // `owner` reads like "plugin nodeorder" in messages.
  Arguments(std::string owner, std::map<std::string, std::string> values);

  absl::StatusOr<double> GetDouble(const std::string& key,
                                   double default_value) const;
  absl::StatusOr<int64_t> GetInt(const std::string& key,
                                 int64_t default_value) const;
  absl::StatusOr<bool> GetBool(const std::string& key,
                               bool default_value) const;
  std::string GetString(const std::string& key,
                        const std::string& default_value) const;
  // Keys that start with `prefix`, with the prefix removed.
  std::vector<std::string> KeysUnder(const std::string& prefix) const;

  // Keys nobody asked for: shown to the operator as ignored, so a typo in
  // an argument does not pass silently.
  std::vector<std::string> Unread() const;
  // A value the owner replaced (as Volcano does) rather than refused:
  // shown to the operator with the file and line.
  void Warn(std::string text) const { warnings_.push_back(std::move(text)); }
  const std::vector<std::string>& warnings() const { return warnings_; }
  const std::string& owner() const { return owner_; }
  bool empty() const { return values_.empty(); }

 private:
  const std::string* Find(const std::string& key) const;

  std::string owner_;
  std::map<std::string, std::string> values_;
  mutable std::set<std::string> read_;
  mutable std::vector<std::string> warnings_;
};

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_ARGUMENTS_H_
