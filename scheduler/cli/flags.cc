#include "scheduler/cli/flags.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

namespace shoal::cli {
namespace {

// This program's own flags (not Abseil's or glog's), by dashed name.
std::vector<std::pair<std::string, absl::CommandLineFlag*>> OwnFlags() {
  std::vector<std::pair<std::string, absl::CommandLineFlag*>> own;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (absl::StrContains(flag->Filename(), "scheduler/") ||
        absl::StrContains(flag->Filename(), "tools/")) {
      own.emplace_back("--" + absl::StrReplaceAll(name, {{"_", "-"}}), flag);
    }
  }
  std::sort(own.begin(), own.end());
  return own;
}

// Words of `text` on lines of at most `width` after `indent`.
std::string Wrap(const std::string& text, size_t indent, size_t width) {
  std::string out, line;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line.append(word.data(), word.size());
  }
  if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
  return out;
}

// --help: the usage message, then every flag of the program with what it
// means and its default, in the dashed spelling users type.
void PrintHelp(const std::string& program) {
  std::string usage(absl::ProgramUsageMessage());
  if (absl::StartsWith(usage, "Warning:")) {
    usage = program + ": usage: " + program + " [flags]";
  } else {
    usage = program + ": " + usage;
  }
  std::cout << usage << "\n\nFlags:\n";
  for (const auto& [name, flag] : OwnFlags()) {
    std::cout << "  " << name << "\n" << Wrap(flag->Help(), 6, 72);
    const std::string value = flag->DefaultValue();
    std::cout << "      (default: " << (value.empty() ? "\"\"" : value)
              << ")\n";
  }
  std::cout << "\n  --version  print the version and exit\n";
}

}  // namespace

std::vector<std::string> ParseFlags(int argc, char** argv,
                                    const std::string& program) {
  std::vector<std::string> args(argv, argv + argc);
  std::vector<std::string> own;  // this program's flags, for the message
  for (const auto& [name, flag] : OwnFlags()) own.push_back(name);
  for (size_t i = 1; i < args.size(); ++i) {
    std::string& a = args[i];
    if (a == "--") break;
    if (a == "--help" || a == "-h" || a == "--helpshort") {
      PrintHelp(program);
      std::exit(0);
    }
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
