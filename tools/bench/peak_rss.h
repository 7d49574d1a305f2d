// The process's peak resident memory (VmHWM), reported by the benchmarks.
#ifndef SHOAL_TOOLS_BENCH_PEAK_RSS_H_
#define SHOAL_TOOLS_BENCH_PEAK_RSS_H_

#include <fstream>
#include <string>

namespace shoal::bench {

// In MiB; 0 where /proc is not there to ask.
inline double PeakRssMib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

}  // namespace shoal::bench

#endif  // SHOAL_TOOLS_BENCH_PEAK_RSS_H_
