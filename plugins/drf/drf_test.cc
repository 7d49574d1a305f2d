#include "plugins/drf/drf.h"

#include "gtest/gtest.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/statement.h"
#include "scheduler/framework/testing.h"

namespace shoal::plugins::drf {
namespace {

using framework::testing::AddGang;
using framework::testing::Node;

TEST(DrfTest, SmallerDominantShareGoesFirstAndMayPreempt) {
  framework::PluginRegistry registry;
  registry.Add("drf", New);
  framework::Policy policy = framework::testing::MustPolicy(
      "actions: allocate\ntiers:\n- plugins:\n  - name: drf\n", registry,
      framework::testing::IdleActions());
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "10"}, {"memory", "100Gi"}}));
  AddGang(b, "cpu", 1, 5, {{"cpu", "2"}, {"memory", "1Gi"}});   // 20% cpu each
  AddGang(b, "mem", 1, 5, {{"cpu", "1"}, {"memory", "10Gi"}});  // 10% mem each
  framework::Session s(std::move(b).Build(), policy);
  framework::Statement stmt(s);
  stmt.Allocate(s.job(0).tasks[0], 0);  // cpu job: share 0.2
  stmt.Allocate(s.job(1).tasks[0], 0);  // mem job: share 0.1
  stmt.Commit();
  EXPECT_TRUE(s.JobBefore(s.job(1), s.job(0)));
  stmt.Allocate(s.job(1).tasks[1], 0);  // mem job: 0.2, equal
  stmt.Commit();
  EXPECT_EQ(s.Call<framework::JobOrder>(s.job(0), s.job(1)), 0);
  // mem (0.2 -> 0.3 with one more) may not take from cpu (0.2 -> 0.0).
  std::vector<api::TaskIndex> cpu_victim = {s.job(0).tasks[0]};
  EXPECT_TRUE(
      s.Call<framework::Preemptable>(s.task(s.job(1).tasks[2]), cpu_victim)
          .empty());
  // Let mem grow to 0.5; now cpu (0.2 -> 0.4) may take from mem (0.5 -> 0.4).
  for (int i = 2; i < 5; ++i) stmt.Allocate(s.job(1).tasks[i], 0);
  stmt.Commit();
  std::vector<api::TaskIndex> mem_victim = {s.job(1).tasks[0]};
  EXPECT_EQ(
      s.Call<framework::Preemptable>(s.task(s.job(0).tasks[1]), mem_victim),
      mem_victim);
}

}  // namespace
}  // namespace shoal::plugins::drf
