#include "scheduler/framework/config.h"

#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "scheduler/framework/callbacks.h"
#include "yaml-cpp/yaml.h"

namespace shoal::framework {

std::string SourceLocation::Describe() const {
  return line > 0 ? absl::StrCat(file, ":", line) : file;
}

bool PluginConfig::Enabled(const std::string& switch_key) const {
  if (switch_key.empty()) return true;
  auto it = switches.find(switch_key);
  return it == switches.end() || it->second;
}

bool SchedulerConfig::HasAction(absl::string_view name) const {
  for (const auto& a : actions) {
    if (a.name == name) return true;
  }
  return false;
}

namespace {

constexpr char kHierarchySwitch[] = "enableHierarchy";

class Parser {
 public:
  explicit Parser(absl::string_view file) : file_(file) {}

  SourceLocation At(const YAML::Node& node) const {
    // yaml-cpp marks are 0-based; a node without a mark reports -1.
    int line = node.Mark().line;
    return {file_, line >= 0 ? line + 1 : 0};
  }

  absl::Status Error(const YAML::Node& node, absl::string_view path,
                     absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(At(node).Describe(), ": ", path, ": ", what));
  }

  // A map key as text; yaml-cpp throws when asked for a list or a map
  // (`? [a, b]: c`) as a string, so those are refused here, naming where.
  absl::StatusOr<std::string> Key(const YAML::Node& key,
                                  absl::string_view path) const {
    if (!key.IsScalar()) {
      return Error(key, path, "keys must be plain words, not lists or maps");
    }
    return key.Scalar();
  }

  // Scalars and nested maps become dotted keys; lists of scalars are
  // joined with ", ".
  absl::Status Flatten(const YAML::Node& node, const std::string& prefix,
                       absl::string_view path,
                       std::map<std::string, std::string>* out) const {
    if (node.IsScalar()) {
      (*out)[prefix] = node.Scalar();
      return absl::OkStatus();
    }
    if (node.IsNull()) {
      (*out)[prefix] = "";
      return absl::OkStatus();
    }
    if (node.IsSequence()) {
      std::vector<std::string> items;
      for (const auto& item : node) {
        if (!item.IsScalar()) {
          return Error(item, absl::StrCat(path, ".", prefix),
                       "lists inside arguments may hold only plain values");
        }
        items.push_back(item.Scalar());
      }
      (*out)[prefix] = absl::StrJoin(items, ", ");
      return absl::OkStatus();
    }
    for (const auto& kv : node) {
      auto k = Key(kv.first, prefix.empty() ? std::string(path)
                                            : absl::StrCat(path, ".", prefix));
      if (!k.ok()) return k.status();
      const std::string& key = *k;
      std::string full = prefix.empty() ? key : absl::StrCat(prefix, ".", key);
      if (auto s = Flatten(kv.second, full, path, out); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::map<std::string, std::string>> ParseArguments(
      const YAML::Node& node, const std::string& path) const {
    std::map<std::string, std::string> out;
    if (!node || node.IsNull()) return out;
    if (!node.IsMap()) {
      return Error(node, path, "must be a map of argument names to values");
    }
    if (auto s = Flatten(node, "", path, &out); !s.ok()) return s;
    return out;
  }

  // Volcano's enableHierarchy: the queue tree (Queue spec.parent) is
  // read whatever the switch says, by proportion and capacity alike
  // (scheduler/api/queue_tree.h), so there it changes nothing and says so;
  // drf's namespace hierarchy (the volcano.sh/hierarchy annotations) is
  // not implemented, and turning it on is refused rather than ignored.
  absl::Status CheckHierarchy(const PluginConfig& plugin, const YAML::Node& key,
                              const std::string& path) const {
    const bool on = plugin.switches.at(kHierarchySwitch);
    if (plugin.name == "drf" && on) {
      return Error(key, path + "." + kHierarchySwitch,
                   "drf's hierarchical fair share (namespaces annotated "
                   "volcano.sh/hierarchy and volcano.sh/hierarchy-weights) "
                   "is not implemented; describe the hierarchy with Queue "
                   "spec.parent, which proportion and capacity read");
    }
    if (plugin.name != "proportion" && plugin.name != "capacity" && on) {
      warnings_.push_back(
          absl::StrCat(At(key).Describe(), ": ", path, ".", kHierarchySwitch,
                       ": plugin ", plugin.name, " has no hierarchy; ignored"));
    } else if ((plugin.name == "proportion" || plugin.name == "capacity") &&
               !on) {
      warnings_.push_back(absl::StrCat(
          At(key).Describe(), ": ", path, ".", kHierarchySwitch, ": ",
          plugin.name,
          " reads the queue tree (spec.parent) even with this off"));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<PluginConfig> ParsePlugin(const YAML::Node& node,
                                           const std::string& path) const {
    if (!node.IsMap()) {
      return Error(node, path, "must be a map with at least a name");
    }
    PluginConfig plugin;
    plugin.path = path;
    plugin.location = At(node);
    std::optional<YAML::Node> hierarchy;  // the enableHierarchy key
    const auto& switches = KnownSwitches();
    for (const auto& kv : node) {
      auto k = Key(kv.first, path);
      if (!k.ok()) return k.status();
      const std::string& key = *k;
      const YAML::Node& value = kv.second;
      if (key == "name") {
        if (!value.IsScalar() || value.Scalar().empty()) {
          return Error(value, path + ".name", "must be a plugin name");
        }
        plugin.name = value.Scalar();
      } else if (key == "arguments") {
        auto args = ParseArguments(value, path + ".arguments");
        if (!args.ok()) return args.status();
        plugin.arguments = std::move(*args);
      } else if (std::find(switches.begin(), switches.end(), key) !=
                 switches.end()) {
        bool on;
        if (!value.IsScalar() || !YAML::convert<bool>::decode(value, on)) {
          return Error(
              value, path + "." + key,
              absl::StrCat("must be true or false, got \"",
                           value.IsScalar() ? value.Scalar() : "?", "\""));
        }
        const std::string canonical = CanonicalSwitch(key);
        plugin.switches[canonical] = on;
        if (canonical == kHierarchySwitch) {
          hierarchy = kv.first;
        } else if (!SwitchHasCallback(canonical)) {
          warnings_.push_back(absl::StrCat(
              At(kv.first).Describe(), ": ", path, ".", key,
              ": Shoal has no callback this switch turns on or off; ignored"));
        }
      } else {
        return Error(kv.first, path,
                     absl::StrCat("unknown field \"", key,
                                  "\" (valid: name, arguments, ",
                                  absl::StrJoin(switches, ", "), ")"));
      }
    }
    if (plugin.name.empty()) return Error(node, path, "has no name");
    if (hierarchy) {
      if (auto s = CheckHierarchy(plugin, *hierarchy, path); !s.ok()) {
        return s;
      }
    }
    return plugin;
  }

  // kube-scheduler's percentageOfNodesToScore: a whole number from 0
  // (its adaptive default) to 100 (every node), as kube-scheduler
  // validates it.
  absl::StatusOr<int> ParsePercentage(const YAML::Node& value,
                                      absl::string_view path) const {
    int percentage = 0;
    if (!value.IsScalar() || !absl::SimpleAtoi(value.Scalar(), &percentage) ||
        percentage < 0 || percentage > 100) {
      return Error(
          value, path,
          absl::StrCat("must be a whole number from 0 to 100 (0: "
                       "kube-scheduler's adaptive default, 100: every node), "
                       "got \"",
                       value.IsScalar() ? value.Scalar() : "?", "\""));
    }
    return percentage;
  }

  absl::StatusOr<SchedulerConfig> Parse(absl::string_view text) const {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      return absl::InvalidArgumentError(
          absl::StrCat(file_, ":", e.mark.line + 1, ":", e.mark.column + 1,
                       ": malformed YAML: ", e.msg));
    }
    if (!root.IsMap()) {
      return absl::InvalidArgumentError(
          absl::StrCat(file_,
                       ": a scheduler configuration must be a map with "
                       "\"actions\" and \"tiers\""));
    }
    SchedulerConfig config;
    YAML::Node configurations;
    bool has_actions = false;
    for (const auto& kv : root) {
      auto k = Key(kv.first, "(top)");
      if (!k.ok()) return k.status();
      const std::string& key = *k;
      const YAML::Node& value = kv.second;
      if (key == "actions") {
        if (!value.IsScalar()) {
          return Error(value, "actions",
                       "must be a comma-separated string such as "
                       "\"enqueue, allocate, backfill\"");
        }
        has_actions = true;
        for (absl::string_view name :
             absl::StrSplit(value.Scalar(), ',', absl::SkipWhitespace())) {
          ActionConfig action;
          action.name = std::string(absl::StripAsciiWhitespace(name));
          action.location = At(value);
          config.actions.push_back(std::move(action));
        }
      } else if (key == "tiers") {
        if (!value.IsSequence()) {
          return Error(value, "tiers", "must be a list of {plugins: [...]}");
        }
        for (size_t t = 0; t < value.size(); ++t) {
          const YAML::Node& tier = value[t];
          std::string tpath = absl::StrCat("tiers[", t, "]");
          if (!tier.IsMap() || !tier["plugins"] ||
              !tier["plugins"].IsSequence()) {
            return Error(tier, tpath, "must be a map with a list \"plugins\"");
          }
          for (const auto& tkv : tier) {
            auto k = Key(tkv.first, tpath);
            if (!k.ok()) return k.status();
            if (*k != "plugins") {
              return Error(
                  tkv.first, tpath,
                  absl::StrCat("unknown field \"", *k, "\" (valid: plugins)"));
            }
          }
          TierConfig tier_config;
          const YAML::Node& plugins = tier["plugins"];
          for (size_t p = 0; p < plugins.size(); ++p) {
            auto plugin = ParsePlugin(plugins[p],
                                      absl::StrCat(tpath, ".plugins[", p, "]"));
            if (!plugin.ok()) return plugin.status();
            tier_config.plugins.push_back(std::move(*plugin));
          }
          config.tiers.push_back(std::move(tier_config));
        }
      } else if (key == "configurations") {
        configurations = value;
      } else if (key == "percentageOfNodesToScore") {
        auto percentage = ParsePercentage(value, key);
        if (!percentage.ok()) return percentage.status();
        config.percentage_of_nodes_to_score = *percentage;
      } else if (key == "metrics") {
        // Volcano's metrics section configures its own exporters; Shoal
        // serves its metrics regardless, so the section is accepted as is.
      } else {
        return Error(kv.first, "",
                     absl::StrCat("unknown field \"", key,
                                  "\" (valid: actions, tiers, configurations, "
                                  "metrics, percentageOfNodesToScore)"));
      }
    }
    if (!has_actions || config.actions.empty()) {
      return Error(root, "actions", "is missing; list at least one action");
    }
    if (configurations && !configurations.IsNull()) {
      if (!configurations.IsSequence()) {
        return Error(configurations, "configurations",
                     "must be a list of {name, arguments}");
      }
      for (size_t i = 0; i < configurations.size(); ++i) {
        const YAML::Node& c = configurations[i];
        std::string path = absl::StrCat("configurations[", i, "]");
        if (!c.IsMap() || !c["name"] || !c["name"].IsScalar()) {
          return Error(c, path, "must be a map with an action name");
        }
        auto args = ParseArguments(c["arguments"], path + ".arguments");
        if (!args.ok()) return args.status();
        bool found = false;
        for (auto& action : config.actions) {
          if (action.name == c["name"].Scalar()) {
            action.arguments = *args;
            found = true;
          }
        }
        if (!found) {
          return Error(c["name"], path + ".name",
                       absl::StrCat("configures action \"", c["name"].Scalar(),
                                    "\", which \"actions\" does not list"));
        }
      }
    }
    config.warnings = std::move(warnings_);
    return config;
  }

 private:
  std::string file_;
  // Switches accepted but not obeyed; handed on with the config.
  mutable std::vector<std::string> warnings_;
};

}  // namespace

absl::StatusOr<SchedulerConfig> ParseSchedulerConfig(absl::string_view yaml,
                                                     absl::string_view file) {
  return Parser(file).Parse(yaml);
}

absl::StatusOr<SchedulerConfig> LoadSchedulerConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot read the scheduler configuration"));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseSchedulerConfig(buffer.str(), path);
}

}  // namespace shoal::framework
