#include "scheduler/metrics/scheduler_metrics.h"

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "gtest/gtest.h"

namespace shoal::metrics {
namespace {

// The lines of `text` that start with `prefix`.
std::string Lines(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) out += line + "\n";
  }
  return out;
}

TEST(SchedulerMetricsTest, PublishQueuesReplacesTheWholeSet) {
  Registry r;
  ShoalMetrics m(r);
  QueueSample a;
  a.name = "a";
  a.allocated = {2000, 4096, {{"nvidia.com/gpu", 2}}};
  a.share = 0.5;
  a.weight = 2;
  a.pending_gangs = 3;
  QueueSample b;
  b.name = "b";
  b.overused = true;
  m.PublishQueues({a, b});
  std::string text = r.Render();
  EXPECT_EQ(Lines(text, "shoal_queue_allocated_"),
            "shoal_queue_allocated_memory_bytes{queue_name=\"a\"} 4096\n"
            "shoal_queue_allocated_memory_bytes{queue_name=\"b\"} 0\n"
            "shoal_queue_allocated_milli_cpu{queue_name=\"a\"} 2000\n"
            "shoal_queue_allocated_milli_cpu{queue_name=\"b\"} 0\n"
            "shoal_queue_allocated_scalar_resources{queue_name=\"a\","
            "resource=\"nvidia.com/gpu\"} 2\n");
  EXPECT_EQ(Lines(text, "shoal_queue_overused{"),
            "shoal_queue_overused{queue_name=\"a\"} 0\n"
            "shoal_queue_overused{queue_name=\"b\"} 1\n");
  EXPECT_EQ(Lines(text, "shoal_queue_pending_gangs{"),
            "shoal_queue_pending_gangs{queue_name=\"a\"} 3\n"
            "shoal_queue_pending_gangs{queue_name=\"b\"} 0\n");
  // Queue a is deleted and b loses nothing it had: a is gone everywhere.
  m.PublishQueues({b});
  text = r.Render();
  EXPECT_EQ(text.find("queue_name=\"a\""), std::string::npos) << text;
  EXPECT_EQ(Lines(text, "shoal_queue_share{"),
            "shoal_queue_share{queue_name=\"b\"} 0\n");
}

TEST(SchedulerMetricsTest, PublishDevicesReplacesTheWholeSet) {
  Registry r;
  ShoalMetrics m(r);
  DeviceSample gpu;
  gpu.driver = "gpu.example.com";
  gpu.devices = 8;
  gpu.allocated = 3;
  gpu.partitions_allocated = 1;
  gpu.shared = 1;
  gpu.shares = 2;
  gpu.binding_waiting = 1;
  gpu.tainted = {{"NoSchedule", 1}, {"NoExecute", 1}};
  gpu.shared_capacity = {{"memory", {64424509440, 85899345920}}};
  gpu.counters = {{"memory", {42949672960, 85899345920}}};
  DeviceSample nic;
  nic.driver = "nic.example.com";
  nic.devices = 2;
  m.PublishDevices({gpu, nic});
  std::string text = r.Render();
  EXPECT_EQ(Lines(text, "shoal_device_shared_capacity"),
            "shoal_device_shared_capacity{driver=\"gpu.example.com\","
            "capacity=\"memory\"} 85899345920\n"
            "shoal_device_shared_capacity_consumed{driver=\"gpu.example.com\","
            "capacity=\"memory\"} 64424509440\n");
  EXPECT_EQ(Lines(text, "shoal_device_tainted_count{"),
            "shoal_device_tainted_count{driver=\"gpu.example.com\","
            "effect=\"NoExecute\"} 1\n"
            "shoal_device_tainted_count{driver=\"gpu.example.com\","
            "effect=\"NoSchedule\"} 1\n");
  EXPECT_EQ(Lines(text, "shoal_device_count{"),
            "shoal_device_count{driver=\"gpu.example.com\"} 8\n"
            "shoal_device_count{driver=\"nic.example.com\"} 2\n");
  // The GPU driver's slices are gone: none of its series is left.
  m.PublishDevices({nic});
  text = r.Render();
  EXPECT_EQ(text.find("gpu.example.com"), std::string::npos) << text;
  EXPECT_EQ(Lines(text, "shoal_device_allocated_count{"),
            "shoal_device_allocated_count{driver=\"nic.example.com\"} 0\n");
}

TEST(SchedulerMetricsTest, UnlabelledMetricsExportFromTheStart) {
  Registry r;
  ShoalMetrics m(r);
  m.cycles.Inc();
  m.binds.With({kSuccess}).Inc(2);
  m.evictions.With({kGangIncomplete}).Inc();
  { ScopedTimer t(m.ActionLatency("allocate")); }
  std::string text = r.Render();
  EXPECT_NE(text.find("\nshoal_scheduling_cycles_total 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("\nshoal_assumed_pods 0\n"), std::string::npos);
  EXPECT_NE(text.find("\nshoal_binds_total{result=\"success\"} 2\n"),
            std::string::npos);
  EXPECT_NE(
      text.find("\nshoal_evictions_total{reason=\"gang-incomplete\"} 1\n"),
      std::string::npos);
  EXPECT_NE(text.find("\nshoal_action_scheduling_latency_milliseconds_count{"
                      "action=\"allocate\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("shoal_e2e_scheduling_latency_milliseconds_bucket{le="
                      "\"81920\"} 0\n"),
            std::string::npos);
}

TEST(SchedulerMetricsTest, ShoalUsesTheDefaultRegistry) {
  Shoal().cycles.Inc();
  EXPECT_NE(DefaultRegistry().Render().find("shoal_scheduling_cycles_total"),
            std::string::npos);
}

// METRICS.md's table lists exactly the registered families, with their
// types.
TEST(SchedulerMetricsTest, MetricsMdDocumentsEveryMetric) {
  std::ifstream in("scheduler/metrics/METRICS.md");
  ASSERT_TRUE(in) << "METRICS.md not in runfiles";
  std::regex row(R"(^\| `(shoal_[a-z0-9_]+)` \| (counter|gauge|histogram) \|)");
  std::set<std::string> documented;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) {
      documented.insert(m[1].str() + " " + m[2].str());
    }
  }
  Registry r;
  ShoalMetrics m(r);
  std::set<std::string> registered;
  for (const auto& [name, type] : r.Families()) {
    registered.insert(name + " " + TypeName(type));
  }
  for (const std::string& f : registered) {
    EXPECT_TRUE(documented.count(f)) << "METRICS.md lacks " << f;
  }
  for (const std::string& f : documented) {
    EXPECT_TRUE(registered.count(f)) << "METRICS.md lists unknown " << f;
  }
}

}  // namespace
}  // namespace shoal::metrics
