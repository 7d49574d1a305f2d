// Prints every metric family Shoal registers, one per line: NAME TYPE.
// conf's dashboard test reads it; `bazel run` it to see the list.
#include <iostream>

#include "scheduler/metrics/scheduler_metrics.h"

int main() {
  using namespace shoal::metrics;
  Shoal();  // registers every family
  for (const auto& [name, type] : DefaultRegistry().Families()) {
    std::cout << name << " " << TypeName(type) << "\n";
  }
  return 0;
}
