#include "tools/simulator/pollux/workload.h"

#include <string>

#include "gtest/gtest.h"

namespace shoal::sim::pollux {
namespace {

constexpr char kHeader[] = "name,time,application,num_replicas,batch_size\n";

std::string Error(const std::string& rows) {
  auto jobs = ParseWorkload(std::string(kHeader) + rows, "w.csv");
  return jobs.ok() ? "ok" : std::string(jobs.status().message());
}

TEST(WorkloadTest, ReadsAllEightPublishedWorkloads) {
  for (int i = 1; i <= 8; ++i) {
    std::string path =
        "tools/simulator/traces/pollux-osdi21/workloads/"
        "workload-" +
        std::to_string(i) + ".csv";
    auto jobs = ReadWorkload(path);
    ASSERT_TRUE(jobs.ok()) << jobs.status();
    EXPECT_EQ(jobs->size(), 160u) << path;
  }
  // workload-1.csv line 2: cifar10-0,107,cifar10,6,2048
  auto jobs = ReadWorkload(
      "tools/simulator/traces/pollux-osdi21/workloads/workload-1.csv");
  ASSERT_TRUE(jobs.ok());
  const WorkloadJob& j = jobs->front();
  EXPECT_EQ(j.name, "cifar10-0");
  EXPECT_EQ(j.time, 107);
  EXPECT_EQ(j.application, "cifar10");
  EXPECT_EQ(j.num_replicas, 6);
  EXPECT_EQ(j.batch_size, 2048);
  EXPECT_EQ(j.line, 2);
}

TEST(WorkloadTest, RefusesMalformedRowsByLineAndField) {
  EXPECT_EQ(Error("a,1,ncf,1,32768\n"), "ok");
  EXPECT_EQ(Error("a,1,ncf,1,32768\nb,soon,ncf,1,32768\n"),
            "w.csv:3: field 'time': not an integer: \"soon\"");
  EXPECT_EQ(Error("a,-5,ncf,1,32768\n"), "w.csv:2: field 'time': negative");
  EXPECT_EQ(Error("a,1,mnist,1,32\n"),
            "w.csv:2: field 'application': unknown application \"mnist\", "
            "want one of bert, cifar10, deepspeech2, imagenet, ncf, yolov3");
  EXPECT_EQ(Error("a,1,ncf,0,32768\n"),
            "w.csv:2: field 'num_replicas': want a positive integer, got 0");
  EXPECT_EQ(Error("a,1,ncf,2,1\n"),
            "w.csv:2: field 'batch_size': batch_size 1 is smaller than "
            "num_replicas 2");
  EXPECT_EQ(Error("a,1,ncf,1\n"),
            "w.csv:2: 4 fields, want 5 "
            "(name,time,application,num_replicas,batch_size)");
  EXPECT_EQ(Error("a,1,ncf,1,32768\na,2,ncf,1,32768\n"),
            "w.csv:3: field 'name': \"a\" repeated");
  auto bad = ParseWorkload("name,time,app\n", "w.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("w.csv:1: header is"),
            std::string::npos);
}

}  // namespace
}  // namespace shoal::sim::pollux
