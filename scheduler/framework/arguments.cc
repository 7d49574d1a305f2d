#include "scheduler/framework/arguments.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace shoal::framework {

Arguments::Arguments(std::string owner, std::map<std::string, std::string> v)
    : owner_(std::move(owner)), values_(std::move(v)) {}

const std::string* Arguments::Find(const std::string& key) const {
  read_.insert(key);
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

absl::StatusOr<double> Arguments::GetDouble(const std::string& key,
                                            double default_value) const {
  const std::string* v = Find(key);
  if (v == nullptr) return default_value;
  double out;
  if (!absl::SimpleAtod(*v, &out)) {
    return absl::InvalidArgumentError(absl::StrCat(
        owner_, ": arguments.", key, ": expected a number, got \"", *v, "\""));
  }
  return out;
}

absl::StatusOr<int64_t> Arguments::GetInt(const std::string& key,
                                          int64_t default_value) const {
  const std::string* v = Find(key);
  if (v == nullptr) return default_value;
  int64_t out;
  if (!absl::SimpleAtoi(*v, &out)) {
    return absl::InvalidArgumentError(
        absl::StrCat(owner_, ": arguments.", key,
                     ": expected a whole number, got \"", *v, "\""));
  }
  return out;
}

absl::StatusOr<bool> Arguments::GetBool(const std::string& key,
                                        bool default_value) const {
  const std::string* v = Find(key);
  if (v == nullptr) return default_value;
  std::string lower = absl::AsciiStrToLower(*v);
  if (lower == "true") return true;
  if (lower == "false") return false;
  return absl::InvalidArgumentError(
      absl::StrCat(owner_, ": arguments.", key,
                   ": expected true or false, got \"", *v, "\""));
}

std::string Arguments::GetString(const std::string& key,
                                 const std::string& default_value) const {
  const std::string* v = Find(key);
  return v == nullptr ? default_value : *v;
}

std::vector<std::string> Arguments::KeysUnder(const std::string& prefix) const {
  std::vector<std::string> keys;
  for (const auto& [key, value] : values_) {
    if (absl::StartsWith(key, prefix) && key.size() > prefix.size()) {
      read_.insert(key);
      keys.push_back(key.substr(prefix.size()));
    }
  }
  return keys;
}

std::vector<std::string> Arguments::Unread() const {
  std::vector<std::string> keys;
  for (const auto& [key, value] : values_) {
    if (read_.count(key) == 0) keys.push_back(key);
  }
  return keys;
}

}  // namespace shoal::framework
