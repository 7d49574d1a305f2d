#include "plugins/capacity/capacity.h"

#include "gtest/gtest.h"
#include "scheduler/framework/config.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/statement.h"
#include "scheduler/framework/testing.h"

namespace shoal::plugins::capacity {
namespace {

using framework::testing::AddGang;
using framework::testing::Node;
using framework::testing::Res;

// A limit naming only cpu: every other resource unlimited, as the queue
// decoder reads spec.capability and spec.deserved.
api::Resource CpuLimit(const std::string& cpu) {
  api::Resource r = Res({{"cpu", cpu}});
  for (int id = 1; id < api::ResourceNameCount(); ++id) {
    r.Set(static_cast<api::ResourceId>(id), api::kUnlimited);
  }
  return r;
}

class CapacityTest : public ::testing::Test {
 protected:
  CapacityTest() {
    registry_.Add("capacity", New);
    policy_ = framework::testing::MustPolicy(
        "actions: allocate\ntiers:\n- plugins:\n  - name: capacity\n",
        registry_, actions_);
  }
  // A 16-cpu node; the queues given; one job per entry of `jobs` (queue,
  // pending 1-cpu pods).
  api::ClusterInfo Cluster(std::vector<api::QueueInfo> queues,
                           std::vector<std::pair<std::string, int>> jobs) {
    api::ClusterBuilder b;
    b.AddNode(Node("n", {{"cpu", "16"}, {"pods", "1000"}}));
    for (auto& q : queues) b.AddQueue(q);
    std::vector<api::JobIndex> index;
    for (const auto& [queue, pods] : jobs) {
      index.push_back(AddGang(b, "j" + std::to_string(index.size()), 1, pods,
                              {{"cpu", "1"}}));
    }
    api::ClusterInfo c = std::move(b).Build();
    for (size_t i = 0; i < jobs.size(); ++i) {
      c.jobs[index[i]].queue = jobs[i].first;
      c.jobs[index[i]].queue_index = c.FindQueue(jobs[i].first);
    }
    return c;
  }
  static api::QueueInfo Queue(const std::string& name,
                              const std::string& parent = "") {
    api::QueueInfo q;
    q.name = name;
    q.parent = parent;
    return q;
  }
  // How many of job j's pending 1-cpu tasks Allocatable lets through, one
  // by one.
  static int Admitted(framework::Session& s, api::JobIndex j) {
    framework::Statement stmt(s);
    const api::QueueInfo& queue = s.cluster().queues[s.job(j).queue_index];
    int n = 0;
    for (api::TaskIndex t : s.job(j).tasks) {
      if (s.task(t).status != api::TaskStatus::kPending) continue;
      if (!s.Call<framework::Allocatable>(queue, s.task(t))) break;
      stmt.Allocate(t, 0);
      ++n;
    }
    stmt.Commit();
    return n;
  }
  framework::PluginRegistry registry_;
  framework::ActionRegistry actions_ = framework::testing::IdleActions();
  framework::Policy policy_;
};

TEST_F(CapacityTest, DeservedFirstThenBorrowsUpToCapability) {
  api::QueueInfo a = Queue("a");
  a.deserved = CpuLimit("4");
  a.capability = CpuLimit("10");
  framework::Session s(Cluster({a}, {{"a", 16}}), policy_);
  EXPECT_EQ(Admitted(s, 0), 4);
  s.set_borrowing(true);
  EXPECT_EQ(Admitted(s, 0), 6);  // up to the capability of 10
}

// The case: a parent capped at 8 cpu bounds its children, which
// name no capability of their own, on a 16-cpu cluster.
TEST_F(CapacityTest, AParentsCapabilityBoundsItsChildrenTogether) {
  api::QueueInfo eng = Queue("eng");
  eng.capability = CpuLimit("8");
  framework::Session s(Cluster({eng, Queue("ml", "eng"), Queue("web", "eng")},
                               {{"ml", 6}, {"web", 6}}),
                       policy_);
  s.set_borrowing(true);
  EXPECT_EQ(Admitted(s, 0), 6);
  EXPECT_EQ(Admitted(s, 1), 2);  // 8 in all under eng

  // Admission counts both children against eng: ml's gang of 6 admitted,
  // web's gang of 6 does not fit beside it.
  api::ClusterInfo c = Cluster({eng, Queue("ml", "eng"), Queue("web", "eng")},
                               {{"ml", 6}, {"web", 6}});
  for (api::JobInfo& job : c.jobs) job.min_member = 6;
  c.jobs[0].phase = api::PodGroupPhase::kInqueue;
  c.jobs[1].phase = api::PodGroupPhase::kPending;
  framework::Session admit(std::move(c), policy_);
  std::string why;
  EXPECT_FALSE(admit.Call<framework::JobEnqueueable>(admit.job(1), &why));
  EXPECT_EQ(why,
            "queue eng, above queue web, is full (cpu would reach 12 of 8, "
            "counting running pods and admitted gangs)");
}

// A deserved share that names only memory still leaves cpu bounded by the
// capability in the first pass (the properties' seed 77).
TEST_F(CapacityTest, DeservedNamingOtherResourcesStillHoldsTheCapability) {
  api::QueueInfo a = Queue("a");
  a.capability = CpuLimit("6");
  api::Resource memory = CpuLimit("1");
  memory.Set(api::kCpu, api::kUnlimited);
  memory.Set(api::kMemory, int64_t{100} << 30);
  a.deserved = memory;
  framework::Session s(Cluster({a}, {{"a", 16}}), policy_);
  EXPECT_EQ(Admitted(s, 0), 6);
  s.set_borrowing(true);
  EXPECT_EQ(Admitted(s, 0), 0);
}

TEST_F(CapacityTest, GuaranteesOfSiblingsAreKeptOutOfReach) {
  api::QueueInfo a = Queue("a"), b = Queue("b");
  b.guarantee = Res({{"cpu", "6"}});
  framework::Session s(Cluster({a, b}, {{"a", 16}}), policy_);
  s.set_borrowing(true);
  EXPECT_EQ(Admitted(s, 0), 10);  // 16 less b's guarantee
}

TEST_F(CapacityTest, ReclaimTakesOnlyWhatIsAboveDeservedAndKeepsGuarantees) {
  api::QueueInfo a = Queue("a"), b = Queue("b");
  a.deserved = CpuLimit("4");
  a.guarantee = Res({{"cpu", "3"}});
  b.deserved = CpuLimit("12");
  framework::Session s(Cluster({a, b}, {{"a", 8}, {"b", 4}}), policy_);
  framework::Statement stmt(s);
  for (int i = 0; i < 8; ++i) stmt.Allocate(s.job(0).tasks[i], 0);
  stmt.Commit();
  const api::QueueInfo& qa = s.cluster().queues[s.cluster().FindQueue("a")];
  const api::QueueInfo& qb = s.cluster().queues[s.cluster().FindQueue("b")];
  EXPECT_TRUE(s.Call<framework::Overused>(qa));
  EXPECT_FALSE(s.Call<framework::Overused>(qb));
  EXPECT_TRUE(s.QueueBefore(qb, qa));
  // a holds 8 and deserves 4: 4 of its tasks may go, no more.
  EXPECT_EQ(
      s.Call<framework::Reclaimable>(s.task(s.job(1).tasks[0]), s.job(0).tasks)
          .size(),
      4u);
}

TEST_F(CapacityTest, ABestEffortQueueGoesLastAndLendsEverything) {
  api::QueueInfo a = Queue("a"), b = Queue("b");
  b.deserved = CpuLimit("8");
  framework::Session s(Cluster({a, b}, {{"a", 2}, {"b", 2}}), policy_);
  const api::QueueInfo& qa = s.cluster().queues[s.cluster().FindQueue("a")];
  const api::QueueInfo& qb = s.cluster().queues[s.cluster().FindQueue("b")];
  EXPECT_TRUE(s.QueueBefore(qb, qa));
  EXPECT_EQ(Admitted(s, 0), 0);  // deserves nothing: only by borrowing
  s.set_borrowing(true);
  EXPECT_EQ(Admitted(s, 0), 2);
  EXPECT_TRUE(s.Call<framework::Overused>(qa));
}

TEST(CapacityConfig, RefusesWhatItDoesNotImplementByName) {
  framework::PluginRegistry registry;
  registry.Add("capacity", New);
  registry.Add("drf", New);  // only the config check matters here
  auto build = [&](const std::string& yaml) {
    auto config = framework::ParseSchedulerConfig(yaml, "policy.yaml");
    if (!config.ok()) return config.status();
    return framework::BuildPolicy(*config, registry,
                                  framework::testing::IdleActions())
        .status();
  };
  absl::Status level = build(
      "actions: allocate\ntiers:\n- plugins:\n  - name: capacity\n"
      "    arguments: {ancestorReclaimLevel: 1}\n");
  EXPECT_NE(level.message().find("ancestorReclaimLevel 1 is not implemented"),
            std::string::npos)
      << level;
  absl::Status drf = build(
      "actions: allocate\ntiers:\n- plugins:\n  - name: drf\n"
      "    enableHierarchy: true\n");
  EXPECT_NE(drf.message().find("drf's hierarchical fair share"),
            std::string::npos)
      << drf;
  EXPECT_TRUE(build("actions: allocate\ntiers:\n- plugins:\n  - name: "
                    "capacity\n    enableHierarchy: true\n")
                  .ok());
}

TEST(CapacityConfig, TakesVolcanosDeviceQuotaSwitch) {
  framework::PluginRegistry registry;
  registry.Add("capacity", New);
  auto build = [&](const std::string& arguments) {
    auto config = framework::ParseSchedulerConfig(
        "actions: allocate\ntiers:\n- plugins:\n  - name: capacity\n"
        "    arguments: " +
            arguments + "\n",
        "policy.yaml");
    if (!config.ok()) return config.status();
    return framework::BuildPolicy(*config, registry,
                                  framework::testing::IdleActions())
        .status();
  };
  // On is what Shoal does: claimed devices count against queues that
  // state a quota in them (Volcano's TestCapacityPluginDRA turns it on).
  EXPECT_TRUE(build("{capacity.DynamicResourceAllocationEnable: true}").ok());
  EXPECT_TRUE(
      build("{capacity: {DynamicResourceAllocationEnable: true}}").ok());
  // Off is Volcano's default, which configurations write out: taken,
  // with a warning that the queues' device quotas hold anyway.
  auto config = framework::ParseSchedulerConfig(
      "actions: allocate\ntiers:\n- plugins:\n  - name: capacity\n"
      "    arguments: {capacity.DynamicResourceAllocationEnable: false}\n",
      "policy.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  auto off = framework::BuildPolicy(*config, registry,
                                    framework::testing::IdleActions());
  ASSERT_TRUE(off.ok()) << off.status();
  ASSERT_EQ(off->warnings.size(), 1u);
  EXPECT_NE(off->warnings[0].find("capacity.DynamicResourceAllocationEnable "
                                  "false: Shoal counts claimed devices"),
            std::string::npos)
      << off->warnings[0];
  absl::Status consumable =
      build("{capacity.DRAConsumableCapacityEnable: true}");
  EXPECT_NE(consumable.message().find(
                "capacity.DRAConsumableCapacityEnable is not implemented"),
            std::string::npos)
      << consumable;
  absl::Status typo =
      build("{capacity.DynamicResourceAllocationEnable: maybe}");
  EXPECT_FALSE(typo.ok());
  EXPECT_TRUE(build("{capacity.DRAConsumableCapacityEnable: false}").ok());
}

}  // namespace
}  // namespace shoal::plugins::capacity
