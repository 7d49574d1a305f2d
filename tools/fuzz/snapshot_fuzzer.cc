// Fuzzes the snapshot file reader (kube::LoadSnapshot): YAML or JSON, one
// document or many, `kind: List` or single objects, into a fresh cache.
// A refusal must name the file and line ("fuzz.yaml:3: ...").
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "scheduler/cache/cache.h"
#include "scheduler/kube/snapshot/snapshot_file.h"
#include "tools/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  shoal::cache::Cache cache("shoal");
  std::vector<std::string> warnings;
  absl::Status s =
      shoal::kube::LoadSnapshot(text, "fuzz.yaml", cache, &warnings);
  shoal::fuzz::CheckRefusal(s, "LoadSnapshot");
  if (!s.ok() && !absl::StartsWith(s.message(), "fuzz.yaml:")) {
    std::fprintf(stderr, "LoadSnapshot refused without naming the file: %s\n",
                 std::string(s.message()).c_str());
    std::abort();
  }
  return 0;
}
