#include "scheduler/cli/flags.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace shoal::cli {

std::vector<std::string> ParseFlags(int argc, char** argv,
                                    const std::string& program) {
  std::vector<std::string> args(argv, argv + argc);
  std::vector<std::string> own;  // this program's flags, for the message
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (absl::StrContains(flag->Filename(), "scheduler/") ||
        absl::StrContains(flag->Filename(), "tools/")) {
      own.push_back("--" + absl::StrReplaceAll(name, {{"_", "-"}}));
    }
  }
  std::sort(own.begin(), own.end());
  for (size_t i = 1; i < args.size(); ++i) {
    std::string& a = args[i];
    if (a == "--") break;
    if (!absl::StartsWith(a, "--")) continue;
    size_t eq = a.find('=');
    std::string name =
        a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    std::string underscored = absl::StrReplaceAll(name, {{"-", "_"}});
    bool is_help =
        absl::StartsWith(underscored, "help") || underscored == "version";
    if (!is_help && absl::FindCommandLineFlag(underscored) == nullptr &&
        !(absl::StartsWith(underscored, "no") &&
          absl::FindCommandLineFlag(underscored.substr(2)) != nullptr)) {
      std::cerr << program << ": unknown flag --" << name
                << " (valid: " << absl::StrJoin(own, ", ") << ")\n";
      std::exit(kBadInput);
    }
    a = "--" + underscored + (eq == std::string::npos ? "" : a.substr(eq));
  }
  std::vector<char*> c_args;
  for (auto& a : args) c_args.push_back(a.data());
  std::vector<char*> rest =
      absl::ParseCommandLine(static_cast<int>(c_args.size()), c_args.data());
  return std::vector<std::string>(rest.begin(), rest.end());
}

}  // namespace shoal::cli
