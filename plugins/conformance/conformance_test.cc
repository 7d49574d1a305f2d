#include "plugins/conformance/conformance.h"

#include "gtest/gtest.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/testing.h"

namespace shoal::plugins::conformance {
namespace {

TEST(ConformanceTest, NeverOffersSystemPodsAsVictims) {
  framework::PluginRegistry registry;
  registry.Add("conformance", New);
  framework::Policy policy = framework::testing::MustPolicy(
      "actions: allocate\ntiers:\n- plugins:\n  - name: conformance\n",
      registry, framework::testing::IdleActions());
  api::ClusterBuilder b;
  api::JobInfo job;
  api::JobIndex j = b.AddJob(job);
  auto plain = framework::testing::Pod("plain", {{"cpu", "1"}});
  auto system = framework::testing::Pod("dns", {{"cpu", "1"}});
  system->ns = "kube-system";
  auto critical = framework::testing::Pod("agent", {{"cpu", "1"}});
  critical->critical = true;
  b.AddTask(plain, j);
  b.AddTask(system, j);
  b.AddTask(critical, j);
  framework::Session s(std::move(b).Build(), policy);
  std::vector<api::TaskIndex> all = {0, 1, 2};
  EXPECT_EQ(s.Call<framework::Preemptable>(s.task(0), all),
            std::vector<api::TaskIndex>{0});
  EXPECT_EQ(s.Call<framework::Reclaimable>(s.task(0), all),
            std::vector<api::TaskIndex>{0});
}

}  // namespace
}  // namespace shoal::plugins::conformance
