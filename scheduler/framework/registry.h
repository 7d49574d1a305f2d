// Name -> factory tables for plugins and actions. Filled explicitly by the
// built-in lists (plugins/builtin.cc, scheduler/actions/builtin.cc): no
// static-initialisation tricks.
#ifndef SHOAL_SCHEDULER_FRAMEWORK_REGISTRY_H_
#define SHOAL_SCHEDULER_FRAMEWORK_REGISTRY_H_

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/framework/action.h"
#include "scheduler/framework/arguments.h"
#include "scheduler/framework/plugin.h"

namespace shoal::framework {

template <typename T>
class Registry {
 public:
  // A factory validates its arguments and refuses bad ones.
  using Factory =
      std::function<absl::StatusOr<std::unique_ptr<T>>(const Arguments&)>;

  void Add(std::string name, Factory factory) {
    factories_[std::move(name)] = std::move(factory);
  }
  const Factory* Find(const std::string& name) const {
    auto it = factories_.find(name);
    return it == factories_.end() ? nullptr : &it->second;
  }
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& [name, f] : factories_) names.push_back(name);
    return names;
  }

 private:
  std::map<std::string, Factory> factories_;
};

using PluginRegistry = Registry<Plugin>;
using ActionRegistry = Registry<Action>;

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_REGISTRY_H_
