#include "scheduler/framework/policy.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace shoal::framework {
namespace {

absl::Status AtLocation(const SourceLocation& where, const absl::Status& s) {
  return absl::Status(s.code(),
                      absl::StrCat(where.Describe(), ": ", s.message()));
}

void CollectUnread(const Arguments& args, const SourceLocation& where,
                   std::vector<std::string>* warnings) {
  for (const auto& w : args.warnings()) {
    warnings->push_back(
        absl::StrCat(where.Describe(), ": ", args.owner(), ": ", w));
  }
  for (const auto& key : args.Unread()) {
    warnings->push_back(absl::StrCat(where.Describe(), ": ", args.owner(),
                                     ": argument \"", key,
                                     "\" is not used by Shoal; ignored"));
  }
}

}  // namespace

std::vector<std::string> NetworkTierLabels(const Policy& policy) {
  std::vector<std::string> keys;
  for (const PluginInstance& p : policy.plugins) {
    if (p.config.name != "network-topology-aware") continue;
    auto it = p.config.arguments.find("tierLabels");
    if (it == p.config.arguments.end()) continue;
    for (absl::string_view key : absl::StrSplit(it->second, ',')) {
      key = absl::StripAsciiWhitespace(key);
      if (!key.empty()) keys.emplace_back(key);
    }
    break;
  }
  return keys;
}

absl::StatusOr<Policy> BuildPolicy(const SchedulerConfig& config,
                                   const PluginRegistry& plugins,
                                   const ActionRegistry& actions) {
  Policy policy;
  policy.config = config;
  policy.warnings = config.warnings;
  for (const auto& a : config.actions) {
    const auto* factory = actions.Find(a.name);
    if (factory == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          a.location.Describe(), ": actions: unknown action \"", a.name,
          "\" (valid: ", absl::StrJoin(actions.Names(), ", "), ")"));
    }
    Arguments args(absl::StrCat("action ", a.name), a.arguments);
    auto action = (*factory)(args);
    if (!action.ok()) return AtLocation(a.location, action.status());
    CollectUnread(args, a.location, &policy.warnings);
    policy.actions.push_back({a.name, std::move(*action)});
  }
  for (size_t t = 0; t < config.tiers.size(); ++t) {
    for (const auto& p : config.tiers[t].plugins) {
      const auto* factory = plugins.Find(p.name);
      if (factory == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            p.location.Describe(), ": ", p.path, ".name: unknown plugin \"",
            p.name, "\" (valid: ", absl::StrJoin(plugins.Names(), ", "), ")"));
      }
      Arguments args(absl::StrCat("plugin ", p.name), p.arguments);
      auto plugin = (*factory)(args);
      if (!plugin.ok()) return AtLocation(p.location, plugin.status());
      CollectUnread(args, p.location, &policy.warnings);
      policy.plugins.push_back({p, static_cast<int>(t), std::move(*plugin)});
    }
  }
  return policy;
}

}  // namespace shoal::framework
