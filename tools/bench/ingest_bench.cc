// Reading a cluster dump the size kubectl prints (realistic_objects.h):
// 5,000 nodes and 50,000 pods, and four times that to show the growth is
// linear. The dump is written once per size into $TMPDIR (or /tmp) and
// reused; the clock covers LoadSnapshotFile into an empty cache.
//
//   bazel run //tools/bench:ingest_bench -- --benchmark_repetitions=5
#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "glog/logging.h"
#include "scheduler/cache/cache.h"
#include "scheduler/kube/snapshot/snapshot_file.h"
#include "tools/bench/peak_rss.h"
#include "tools/bench/realistic_objects.h"
#include "tools/bench/synthetic_cluster.h"

namespace shoal::bench {
namespace {

// The dump of `nodes` nodes and ten pods per node, written if missing
// (or written by another version of the dress).
std::string Dump(int nodes) {
  const char* dir = std::getenv("TMPDIR");
  std::string path = absl::StrCat(dir ? dir : "/tmp", "/shoal-ingest-", nodes,
                                  "-nodes-dress", kDressVersion, ".json");
  if (std::filesystem::exists(path)) return path;
  SyntheticClusterSpec spec;
  spec.nodes = nodes;
  spec.gangs = nodes / 5;
  spec.pods_per_gang = 50;
  cache::Cache cache("shoal");
  BuildSyntheticCluster(spec, cache);
  std::string partial = path + ".partial";
  auto written = WriteRealisticSnapshot(cache, partial);
  if (!written.ok()) LOG(FATAL) << written.status().message();
  std::filesystem::rename(partial, path);
  return path;
}

void BM_LoadSnapshotFile(benchmark::State& state) {
  const std::string path = Dump(static_cast<int>(state.range(0)));
  const double bytes = static_cast<double>(std::filesystem::file_size(path));
  size_t pods = 0;
  for (auto _ : state) {
    cache::Cache cache("shoal");
    std::vector<std::string> warnings;
    absl::Status s = kube::LoadSnapshotFile(path, cache, &warnings);
    if (!s.ok()) LOG(FATAL) << s.message();
    state.PauseTiming();
    pods = cache.Export().pods.size();
    state.ResumeTiming();
  }
  state.counters["pods"] = static_cast<double>(pods);
  state.counters["MB"] = bytes / 1e6;
  state.counters["MB/s"] = benchmark::Counter(
      bytes / 1e6, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_rss_MiB"] = PeakRssMib();
}
BENCHMARK(BM_LoadSnapshotFile)
    ->Arg(5000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace shoal::bench
