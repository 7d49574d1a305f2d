#include "plugins/priority/priority.h"

#include "gtest/gtest.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/testing.h"

namespace shoal::plugins::priority {
namespace {

TEST(PriorityTest, OrdersAndPreemptsByPriority) {
  framework::PluginRegistry registry;
  registry.Add("priority", New);
  framework::Policy policy = framework::testing::MustPolicy(
      "actions: allocate\ntiers:\n- plugins:\n  - name: priority\n", registry,
      framework::testing::IdleActions());
  api::ClusterBuilder b;
  api::JobIndex low =
      framework::testing::AddGang(b, "low", 1, 2, {{"cpu", "1"}});
  api::JobIndex high =
      framework::testing::AddGang(b, "high", 1, 1, {{"cpu", "1"}});
  api::ClusterInfo c = std::move(b).Build();
  c.jobs[low].priority = 10;
  c.jobs[high].priority = 1000;
  auto urgent = std::make_shared<api::PodInfo>(*c.tasks[1].pod);
  urgent->priority = 5;
  c.tasks[1].pod = urgent;
  framework::Session s(std::move(c), policy);
  EXPECT_TRUE(s.JobBefore(s.job(high), s.job(low)));
  EXPECT_TRUE(s.TaskBefore(s.task(1), s.task(0)));
  // high (1000) may take from low (10); low may not take from high.
  EXPECT_EQ(s.Call<framework::Preemptable>(s.task(2),
                                           std::vector<api::TaskIndex>{0, 1}),
            (std::vector<api::TaskIndex>{0, 1}));
  EXPECT_TRUE(
      s.Call<framework::Preemptable>(s.task(0), std::vector<api::TaskIndex>{2})
          .empty());
  // Inside one job: only a lower-priority task.
  EXPECT_EQ(
      s.Call<framework::Preemptable>(s.task(1), std::vector<api::TaskIndex>{0}),
      (std::vector<api::TaskIndex>{0}));
  EXPECT_TRUE(
      s.Call<framework::Preemptable>(s.task(0), std::vector<api::TaskIndex>{1})
          .empty());
}

}  // namespace
}  // namespace shoal::plugins::priority
