// The text of policies/default.yaml, compiled into the binaries.
#ifndef SHOAL_POLICIES_DEFAULT_POLICY_H_
#define SHOAL_POLICIES_DEFAULT_POLICY_H_

namespace shoal::policies {

extern const char kDefaultPolicy[];

}  // namespace shoal::policies

#endif  // SHOAL_POLICIES_DEFAULT_POLICY_H_
