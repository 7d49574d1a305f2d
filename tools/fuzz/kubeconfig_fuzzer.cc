// Fuzzes the kubeconfig parser (kube::ParseKubeconfig, what LoadKubeconfig
// runs on the file's text), once with the file's current context and once
// with a named one. Files a kubeconfig names (certificate-authority, ...)
// are read relative to a directory that does not exist, so nothing on the
// machine is read.
#include <cstddef>
#include <cstdint>
#include <string>

#include "scheduler/kube/connection_config.h"
#include "tools/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string path = "/nonexistent/shoal-fuzz/kubeconfig";
  for (const char* context : {"", "kind-shoal"}) {
    auto c = shoal::kube::ParseKubeconfig(text, path, context);
    shoal::fuzz::CheckRefusal(c.status(), "ParseKubeconfig");
  }
  return 0;
}
