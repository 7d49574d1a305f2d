#ifndef SHOAL_SCHEDULER_CLI_VERSION_H_
#define SHOAL_SCHEDULER_CLI_VERSION_H_

namespace shoal::cli {

// Shoal's release: what `--version` prints and the container image's tag
// (tools/image reads it from this line; conf/scheduler.yaml names the tag).
inline constexpr char kVersion[] = "0.10.0";

}  // namespace shoal::cli

#endif  // SHOAL_SCHEDULER_CLI_VERSION_H_
