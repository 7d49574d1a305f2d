// Fuzzes the kubeconfig parser (kube::ParseKubeconfig, what LoadKubeconfig
// runs on the file's text), once with the file's current context and once
// with a named one. Files a kubeconfig names (certificate-authority, ...)
// are read relative to a directory that does not exist; absolute paths are
// read as given (the file is trusted to name its own certificates), so
// inputs naming the kernel's endless files (/dev/zero, ...) are skipped
// rather than read for ever.
#include <cstddef>
#include <cstdint>
#include <string>

#include "scheduler/kube/client/connection_config.h"
#include "tools/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* endless : {"/dev", "/proc", "/sys"}) {
    if (text.find(endless) != std::string::npos) return 0;
  }
  const std::string path = "/nonexistent/shoal-fuzz/kubeconfig";
  for (const char* context : {"", "kind-shoal"}) {
    auto c = shoal::kube::ParseKubeconfig(text, path, context);
    shoal::fuzz::CheckRefusal(c.status(), "ParseKubeconfig");
  }
  return 0;
}
