// What every fuzz target asserts besides "no crash, hang or leak": a
// refusal is an absl::Status that says something, in the "<where>: <what>"
// form the decoders promise. A failed check aborts, which libFuzzer (and
// the plain driver, through the abort) reports as a crash with the input.
#ifndef SHOAL_TOOLS_FUZZ_FUZZ_CHECK_H_
#define SHOAL_TOOLS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"

namespace shoal::fuzz {

// A non-OK status must carry a message naming where the problem is:
// "<object or file>: <field>: <why>" has at least one ": ".
inline void CheckRefusal(const absl::Status& s, const char* decoder) {
  if (s.ok()) return;
  if (s.message().empty() || !absl::StrContains(s.message(), ": ")) {
    std::fprintf(stderr, "%s refused without saying where: [%s]\n", decoder,
                 std::string(s.message()).c_str());
    std::abort();
  }
}

}  // namespace shoal::fuzz

#endif  // SHOAL_TOOLS_FUZZ_FUZZ_CHECK_H_
