// Semantic versions for the Kubernetes CEL semver library: DRA drivers
// publish versions (driverVersion, cudaDriverVersion, ...) as semver
// attributes and selectors compare them with compareTo/isGreaterThan.
#ifndef SHOAL_SCHEDULER_CEL_SEMVER_H_
#define SHOAL_SCHEDULER_CEL_SEMVER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace shoal::cel {

class Semver {
 public:
  // Strict semver.org 2.0.0 syntax (what blang/semver's Parse accepts):
  // MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD], no leading zeros.
  static absl::StatusOr<Semver> Parse(absl::string_view text);
  // Kubernetes' normalizing form semver(s, true): drops a leading "v",
  // strips leading zeros and fills a missing minor/patch with 0.
  static absl::StatusOr<Semver> ParseNormalized(absl::string_view text);

  // Precedence per semver.org section 11; build metadata is ignored.
  int Compare(const Semver& other) const;
  uint64_t major() const { return major_; }
  uint64_t minor() const { return minor_; }
  uint64_t patch() const { return patch_; }
  std::string ToString() const;

 private:
  uint64_t major_ = 0, minor_ = 0, patch_ = 0;
  std::vector<std::string> pre_;
  std::vector<std::string> build_;
};

}  // namespace shoal::cel

#endif  // SHOAL_SCHEDULER_CEL_SEMVER_H_
