#include "scheduler/api/sub_groups.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/api/cluster_builder.h"
#include "scheduler/api/cluster_info.h"

namespace shoal::api {
namespace {

std::shared_ptr<const PodInfo> Pod(
    const std::string& name,
    std::vector<std::pair<std::string, std::string>> labels,
    TaskStatus status = TaskStatus::kPending) {
  auto pod = std::make_shared<PodInfo>();
  pod->ns = "team";
  pod->name = name;
  pod->group = "llm";
  pod->labels = Labels(std::move(labels));
  pod->status = status;
  return pod;
}

// The sub-group names of the job's tasks, in task order ("-" for none).
std::vector<std::string> Groups(const ClusterInfo& c) {
  std::vector<std::string> out;
  for (TaskIndex t : c.jobs[0].tasks) {
    const int32_t g = c.tasks[t].sub_group;
    out.push_back(g == kNone ? "-" : SubGroupName(c.jobs[0], g));
  }
  return out;
}

TEST(SubGroupsTest, PodsGoToTheFirstPolicyTheyMatchByTheirKeysValues) {
  JobInfo job;
  job.ns = "team";
  job.name = "llm";
  SubGroupPolicy workers;
  workers.name = "workers";
  workers.size = 2;
  workers.selector =
      LabelSelector{{{"role", SelectorOperator::kIn, {"worker"}}}};
  workers.match_label_keys = {"replica"};
  SubGroupPolicy rest;
  rest.name = "rest";
  rest.match_label_keys = {"role"};
  job.sub_group_policies = {workers, rest};
  ClusterBuilder b;
  JobIndex j = b.AddJob(job);
  b.AddTask(Pod("w-0", {{"role", "worker"}, {"replica", "1"}}), j);
  b.AddTask(Pod("w-1", {{"role", "worker"}, {"replica", "0"}}), j);
  b.AddTask(Pod("w-2", {{"role", "worker"}, {"replica", "1"}}), j);
  // A worker without the key falls through to the next policy; a pod
  // with an empty value or no label of any policy is in none.
  b.AddTask(Pod("w-3", {{"role", "worker"}}), j);
  b.AddTask(Pod("ps-0", {{"role", "ps"}}), j);
  b.AddTask(Pod("x", {{"role", ""}}), j);
  ClusterInfo c = std::move(b).Build();
  EXPECT_EQ(Groups(c),
            (std::vector<std::string>{"workers/1", "workers/0", "workers/1",
                                      "rest/worker", "rest/ps", "-"}));
  // In policy order, then key order.
  ASSERT_EQ(c.jobs[0].sub_groups.size(), 4u);
  EXPECT_EQ(SubGroupName(c.jobs[0], 0), "workers/0");
  EXPECT_EQ(SubGroupName(c.jobs[0], 3), "rest/worker");
}

TEST(SubGroupsTest, APolicyWithoutKeysCutsItsPodsBySizeInNameOrder) {
  JobInfo job;
  SubGroupPolicy p;
  p.name = "w";
  p.size = 2;
  job.sub_group_policies = {p};
  ClusterBuilder b;
  JobIndex j = b.AddJob(job);
  for (const char* name : {"w-10", "w-2", "w-0", "w-1", "w-3"})
    b.AddTask(Pod(name, {}), j);
  ClusterInfo c = std::move(b).Build();
  // w-0 w-1 | w-2 w-3 | w-10: numbers compared as numbers.
  EXPECT_EQ(Groups(c),
            (std::vector<std::string>{"w/2", "w/1", "w/0", "w/0", "w/1"}));
}

TEST(SubGroupsTest, MinSubGroupsCountsWholeSubGroupsOnly) {
  JobInfo job;
  SubGroupPolicy p;
  p.name = "replica";
  p.size = 2;
  p.min_groups = 2;
  p.match_label_keys = {"r"};
  job.sub_group_policies = {p};
  ClusterBuilder b;
  JobIndex j = b.AddJob(job);
  b.AddTask(Pod("a-0", {{"r", "a"}}, TaskStatus::kRunning), j);
  b.AddTask(Pod("a-1", {{"r", "a"}}, TaskStatus::kRunning), j);
  b.AddTask(Pod("b-0", {{"r", "b"}}, TaskStatus::kRunning), j);
  b.AddTask(Pod("b-1", {{"r", "b"}}, TaskStatus::kPipelined), j);
  ClusterInfo c = std::move(b).Build();
  const JobInfo& built = c.jobs[0];
  EXPECT_EQ(SubGroupReady(c, built, 0), 2);
  EXPECT_EQ(SubGroupReady(c, built, 1), 1);
  EXPECT_EQ(SubGroupReady(c, built, 1, /*with_pipelined=*/true), 2);
  EXPECT_EQ(SubGroupsShort(c, built),
            "1 of sub-group policy replica's sub-groups are placed whole, "
            "minSubGroups is 2");
  EXPECT_EQ(SubGroupsShort(c, built, /*with_pipelined=*/true), "");
  EXPECT_EQ(SubGroupsTooFew(built), "");
  JobInfo three = built;
  three.sub_group_policies[0].min_groups = 3;
  EXPECT_EQ(SubGroupsTooFew(three),
            "not enough sub-groups for the gang: its pods form 2 sub-groups "
            "of policy replica, spec.subGroupPolicy[0].minSubGroups is 3");
}

}  // namespace
}  // namespace shoal::api
