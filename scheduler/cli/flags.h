// Command-line conventions shared by Shoal's binaries: Kubernetes-style
// dashed flag names (--scheduler-conf) accepted alongside absl's
// underscores, and an unknown flag refused with exit code 2 and the list
// of valid flags instead of absl's exit 1.
#ifndef SHOAL_SCHEDULER_CLI_FLAGS_H_
#define SHOAL_SCHEDULER_CLI_FLAGS_H_

#include <string>
#include <vector>

namespace shoal::cli {

inline constexpr int kBadInput = 2;

// Parses the flags; on a bad flag prints why (as `program: ...`) and exits
// with kBadInput. Returns the positional arguments (argv[0] first).
std::vector<std::string> ParseFlags(int argc, char** argv,
                                    const std::string& program);

}  // namespace shoal::cli

#endif  // SHOAL_SCHEDULER_CLI_FLAGS_H_
