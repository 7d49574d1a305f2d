// Prints, for each application of Pollux's benchmark at the global batch
// size its workloads use most, RelativeThroughput at 1, 2, 4, 8 and 16 GPUs
// (packed 4 per node) in epoch 0: what Shoal publishes as a job's scaling
// curve. Usage: pollux-scaling-table [traces_dir]
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "tools/simulator/pollux/application.h"
#include "tools/simulator/pollux/job_model.h"

int main(int argc, char** argv) {
  using shoal::sim::pollux::Application;
  using shoal::sim::pollux::JobModel;
  std::string dir =
      argc > 1 ? argv[1] : "tools/simulator/traces/pollux-osdi21/traces";
  const std::vector<std::pair<std::string, int>> typical = {
      {"bert", 384},      {"cifar10", 2048}, {"deepspeech2", 320},
      {"imagenet", 3200}, {"ncf", 32768},    {"yolov3", 64}};
  std::printf("%-12s %6s %6s %6s %6s %6s %6s\n", "application", "batch", "1",
              "2", "4", "8", "16");
  for (const auto& [name, batch] : typical) {
    auto app = Application::LoadNamed(dir, name);
    if (!app.ok()) {
      std::fprintf(stderr, "%s\n", app.status().ToString().c_str());
      return 1;
    }
    JobModel job(&*app, batch);
    std::printf("%-12s %6d", name.c_str(), batch);
    for (int n : {1, 2, 4, 8, 16}) {
      std::printf(" %6.2f", job.RelativeThroughput(n));
    }
    std::printf("\n");
  }
  return 0;
}
