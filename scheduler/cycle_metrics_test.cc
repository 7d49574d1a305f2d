// What a cycle tells Prometheus about devices: the per-driver gauges read
// off the cycle's cluster (scheduler/admin/testdata/devices.yaml), with
// the claims the cycle wrote counted.
#include "scheduler/cycle_metrics.h"

#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/cache/cache.h"
#include "scheduler/kube/snapshot/snapshot_file.h"
#include "scheduler/metrics/scheduler_metrics.h"

namespace shoal {
namespace {

// The lines of the default registry's text that start with `prefix`.
std::string Lines(const std::string& prefix) {
  std::istringstream in(metrics::DefaultRegistry().Render());
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) out += line + "\n";
  }
  return out;
}

AppliedCycle Devices() {
  absl::Time clock;
  cache::Cache cache("shoal", [&clock] { return clock; });
  std::vector<std::string> warnings;
  absl::Status loaded = kube::LoadSnapshotFile(
      "scheduler/admin/testdata/devices.yaml", cache, &warnings);
  EXPECT_TRUE(loaded.ok()) << loaded;
  AppliedCycle cycle;
  cycle.cluster = cache.Snapshot();
  return cycle;
}

TEST(CycleMetrics, DevicesByDriver) {
  RecordCycleMetrics(Devices(), 0, absl::Now());
  EXPECT_EQ(Lines("shoal_device_"),
            "shoal_device_allocated_count{driver=\"gpu.example.com\"} 3\n"
            "shoal_device_binding_waiting_count{driver=\"gpu.example.com\"} "
            "1\n"
            "shoal_device_count{driver=\"gpu.example.com\"} 8\n"
            "shoal_device_counter_capacity{driver=\"gpu.example.com\","
            "counter=\"memory\"} 85899345920\n"
            "shoal_device_counter_consumed{driver=\"gpu.example.com\","
            "counter=\"memory\"} 42949672960\n"
            "shoal_device_partition_allocated_count{driver=\"gpu.example."
            "com\"} 1\n"
            "shoal_device_share_count{driver=\"gpu.example.com\"} 2\n"
            "shoal_device_shared_capacity{driver=\"gpu.example.com\","
            "capacity=\"memory\"} 85899345920\n"
            "shoal_device_shared_capacity_consumed{driver=\"gpu.example.com\","
            "capacity=\"memory\"} 64424509440\n"
            "shoal_device_shared_count{driver=\"gpu.example.com\"} 1\n"
            "shoal_device_tainted_count{driver=\"gpu.example.com\","
            "effect=\"NoExecute\"} 1\n"
            "shoal_device_tainted_count{driver=\"gpu.example.com\","
            "effect=\"NoSchedule\"} 1\n");
}

TEST(CycleMetrics, TheCyclesClaimWritesCountAndFailedBindsDoNot) {
  AppliedCycle cycle = Devices();
  // share-c's 20Gi share of gpu-0, written before its bind; whole-2's
  // bind failed, so gpu-4-half-1 is not counted.
  auto bind = [](const std::string& claim, api::DeviceResult result,
                 absl::Status outcome) {
    AppliedCycle::Bind b;
    b.outcome = outcome;
    api::ClaimWrite w;
    w.ns = "ml";
    w.name = claim;
    w.newly_allocated = true;
    w.allocation.results = {result};
    b.claims = {w};
    return b;
  };
  api::DeviceResult share;
  share.request = "gpu";
  share.driver = "gpu.example.com";
  share.pool = "n1";
  share.device = "gpu-0";
  share.share_id = "cccccccc-0000-4000-8000-000000000000";
  share.consumed_capacity = {{"memory", "20Gi"}};
  api::DeviceResult half = share;
  half.device = "gpu-4-half-1";
  half.share_id.clear();
  half.consumed_capacity.clear();
  cycle.binds = {bind("share-c-gpu", share, absl::OkStatus()),
                 bind("whole-2-gpu", half, absl::UnavailableError("no"))};
  // whole-gpu's claim deallocated this cycle: gpu-3 is free again.
  cycle.deallocations = {{"ml/whole-gpu", "test", absl::OkStatus()}};
  cycle.binds[0].task = cycle.binds[1].task = 0;
  RecordCycleMetrics(cycle, 0, absl::Now());
  EXPECT_EQ(Lines("shoal_device_share_count{"),
            "shoal_device_share_count{driver=\"gpu.example.com\"} 3\n");
  EXPECT_EQ(Lines("shoal_device_shared_capacity_consumed{"),
            "shoal_device_shared_capacity_consumed{driver=\"gpu.example.com\","
            "capacity=\"memory\"} 85899345920\n");
  EXPECT_EQ(Lines("shoal_device_allocated_count{"),
            "shoal_device_allocated_count{driver=\"gpu.example.com\"} 2\n");
}

}  // namespace
}  // namespace shoal
