// The scenario parser's YAML reader (scenario.cc): every refusal names
// file, line and field path. Internal to the simulator's parsing.
#ifndef SHOAL_TOOLS_SIMULATOR_YAML_READER_H_
#define SHOAL_TOOLS_SIMULATOR_YAML_READER_H_

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "scheduler/api/resource.h"
#include "yaml-cpp/yaml.h"

namespace shoal::sim {

// Reads one YAML document; every error names file, line and field path.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  absl::Status Error(const YAML::Node& at, const std::string& path,
                     const std::string& why) const {
    int line = at.Mark().line >= 0 ? at.Mark().line + 1 : 0;
    return absl::InvalidArgumentError(absl::StrCat(
        file_, line > 0 ? absl::StrCat(":", line) : "", ": ", path, ": ", why));
  }

  // Refuses keys other than `known` in a map.
  absl::Status OnlyKeys(const YAML::Node& map, const std::string& path,
                        const std::vector<std::string>& known) const {
    if (!map.IsMap()) return Error(map, path, "must be a map");
    for (const auto& kv : map) {
      std::string key = kv.first.as<std::string>();
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        return Error(kv.first, path.empty() ? key : path + "." + key,
                     absl::StrCat("unknown field (valid: ",
                                  absl::StrJoin(known, ", "), ")"));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> String(const YAML::Node& map,
                                     const std::string& key,
                                     const std::string& path, bool required,
                                     std::string fallback = "") const {
    YAML::Node v = map[key];
    if (!v) {
      if (required) return Error(map, path + key, "is required");
      return fallback;
    }
    if (!v.IsScalar()) return Error(v, path + key, "must be a string");
    return v.Scalar();
  }

  absl::StatusOr<int> Int(const YAML::Node& map, const std::string& key,
                          const std::string& path, bool required, int fallback,
                          int min) const {
    YAML::Node v = map[key];
    if (!v) {
      if (required) return Error(map, path + key, "is required");
      return fallback;
    }
    int out;
    if (!v.IsScalar() || !YAML::convert<int>::decode(v, out)) {
      return Error(v, path + key,
                   absl::StrCat("must be a whole number, got \"",
                                v.IsScalar() ? v.Scalar() : "?", "\""));
    }
    if (out < min) {
      return Error(v, path + key,
                   absl::StrCat("must be >= ", min, ", got ", out));
    }
    return out;
  }

  // A number > `above` (a factor such as 1.3).
  absl::StatusOr<double> Double(const YAML::Node& map, const std::string& key,
                                const std::string& path, double fallback,
                                double above) const {
    YAML::Node v = map[key];
    if (!v) return fallback;
    double out;
    if (!v.IsScalar() || !YAML::convert<double>::decode(v, out) ||
        !std::isfinite(out) || out <= above) {
      return Error(v, path + key,
                   absl::StrCat("must be a number above ", above, ", got \"",
                                v.IsScalar() ? v.Scalar() : "?", "\""));
    }
    return out;
  }

  absl::StatusOr<bool> Bool(const YAML::Node& map, const std::string& key,
                            const std::string& path, bool fallback) const {
    YAML::Node v = map[key];
    if (!v) return fallback;
    bool out;
    if (!v.IsScalar() || !YAML::convert<bool>::decode(v, out)) {
      return Error(v, path + key,
                   absl::StrCat("must be true or false, got \"",
                                v.IsScalar() ? v.Scalar() : "?", "\""));
    }
    return out;
  }

  absl::StatusOr<absl::Duration> Duration(const YAML::Node& map,
                                          const std::string& key,
                                          const std::string& path,
                                          bool required,
                                          absl::Duration fallback) const {
    YAML::Node v = map[key];
    if (!v) {
      if (required) return Error(map, path + key, "is required");
      return fallback;
    }
    absl::Duration d;
    if (!v.IsScalar() || !absl::ParseDuration(v.Scalar(), &d) ||
        d < absl::ZeroDuration()) {
      return Error(
          v, path + key,
          absl::StrCat("must be a duration such as \"90s\" or \"2h\", got \"",
                       v.IsScalar() ? v.Scalar() : "?", "\""));
    }
    return d;
  }

  absl::StatusOr<api::Resource> Resources(const YAML::Node& map,
                                          const std::string& key,
                                          const std::string& path) const {
    YAML::Node v = map[key];
    if (!v) return Error(map, path + key, "is required");
    if (!v.IsMap())
      return Error(v, path + key,
                   "must be a map of resource names to quantities");
    std::vector<std::pair<std::string, std::string>> list;
    for (const auto& kv : v) {
      if (!kv.second.IsScalar()) {
        return Error(kv.second, path + key + "." + kv.first.as<std::string>(),
                     "must be a quantity");
      }
      list.emplace_back(kv.first.as<std::string>(), kv.second.Scalar());
    }
    auto r = api::Resource::FromList(list, path + key);
    if (!r.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          file_, ":", v.Mark().line + 1, ": ", r.status().message()));
    }
    return r;
  }

 private:
  std::string file_;
};

#define SIM_ASSIGN(lhs, expr)                   \
  auto lhs##_or = (expr);                       \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = std::move(*lhs##_or)

}  // namespace shoal::sim

#endif  // SHOAL_TOOLS_SIMULATOR_YAML_READER_H_
