// The main of a fuzz target outside the fuzz build: runs the target once on
// every file named on the command line (directories are walked), so that
// `bazel test //...` replays the seeds and every committed crash reproducer
// as an ordinary regression test. Under `--config=fuzz` libFuzzer's own
// main is linked instead (see BUILD.bazel).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Optional, as in libFuzzer: a target that defines it is set up by it.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv)
    __attribute__((weak));

namespace {

namespace fs = std::filesystem;

void Collect(const fs::path& p, std::vector<fs::path>* files) {
  if (fs::is_directory(p)) {
    for (const auto& e : fs::recursive_directory_iterator(p)) {
      if (e.is_regular_file()) files->push_back(e.path());
    }
  } else {
    files->push_back(p);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    if (!fs::exists(argv[i])) {
      std::fprintf(stderr, "fuzz driver: no such input %s\n", argv[i]);
      return 2;
    }
    Collect(argv[i], &files);
  }
  // A driver that ran nothing would pass whatever the target does.
  if (files.empty()) {
    std::fprintf(stderr, "fuzz driver: no inputs given\n");
    return 2;
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string data = text.str();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(data.data()),
                           data.size());
  }
  std::printf("fuzz driver: %zu inputs, no failure\n", files.size());
  return 0;
}
