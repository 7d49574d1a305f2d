#include "plugins/proportion/proportion.h"

#include "gtest/gtest.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/statement.h"
#include "scheduler/framework/testing.h"

namespace shoal::plugins::proportion {
namespace {

using framework::testing::AddGang;
using framework::testing::Node;
using framework::testing::Res;

class ProportionTest : public ::testing::Test {
 protected:
  ProportionTest() {
    registry_.Add("proportion", New);
    policy_ = framework::testing::MustPolicy(
        "actions: allocate\ntiers:\n- plugins:\n  - name: proportion\n",
        registry_, actions_);
  }
  // 10 cpu; queues a (weight 1) and b (weight 3); `a_demand`/`b_demand`
  // pending 1-cpu pods each.
  api::ClusterInfo Cluster(int a_demand, int b_demand,
                           std::optional<api::Resource> a_cap = {},
                           api::Resource a_guarantee = {}) {
    api::ClusterBuilder b;
    b.AddNode(Node("n", {{"cpu", "10"}, {"pods", "1000"}}));
    api::QueueInfo qa, qb;
    qa.name = "a";
    qa.capability = a_cap;
    qa.guarantee = a_guarantee;
    qb.name = "b";
    qb.weight = 3;
    b.AddQueue(qa);
    b.AddQueue(qb);
    api::JobIndex ja = AddGang(b, "ja", 1, a_demand, {{"cpu", "1"}});
    api::JobIndex jb = AddGang(b, "jb", 1, b_demand, {{"cpu", "1"}});
    api::ClusterInfo c = std::move(b).Build();
    c.jobs[ja].queue = "a";
    c.jobs[ja].queue_index = c.FindQueue("a");
    c.jobs[jb].queue = "b";
    c.jobs[jb].queue_index = c.FindQueue("b");
    return c;
  }
  // How many 1-cpu tasks of queue `q` Allocatable admits one by one.
  int Admitted(framework::Session& s, const std::string& q, api::JobIndex j) {
    framework::Statement stmt(s);
    const api::QueueInfo& queue = s.cluster().queues[s.cluster().FindQueue(q)];
    int n = 0;
    for (api::TaskIndex t : s.job(j).tasks) {
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

TEST_F(ProportionTest, WeightedShareUnderContention) {
  framework::Session s(Cluster(20, 20), policy_);
  EXPECT_EQ(Admitted(s, "a", 0), 2);  // 10 * 1/4, rounded down
  EXPECT_EQ(Admitted(s, "b", 1), 7);  // 10 * 3/4
}

TEST_F(ProportionTest, UnusedShareFlowsToWhoeverWantsIt) {
  framework::Session s(Cluster(20, 3), policy_);
  EXPECT_EQ(Admitted(s, "b", 1), 3);  // b wants only 3
  EXPECT_EQ(Admitted(s, "a", 0), 7);  // a gets the rest
}

TEST_F(ProportionTest, CapabilityAndGuarantee) {
  api::Resource cap = Res({{"cpu", "1"}});
  for (int id = 1; id < api::ResourceNameCount(); ++id)
    cap.Set(id, api::kUnlimited);
  framework::Session capped(Cluster(20, 0, cap), policy_);
  EXPECT_EQ(Admitted(capped, "a", 0), 1);
  framework::Session guaranteed(
      Cluster(20, 20, std::nullopt, Res({{"cpu", "6"}})), policy_);
  EXPECT_EQ(Admitted(guaranteed, "a", 0), 6);
}

TEST_F(ProportionTest, ExplicitDeservedIsTakenFirst) {
  api::ClusterInfo c = Cluster(20, 20);
  c.queues[c.FindQueue("a")].deserved = Res({{"cpu", "6"}, {"pods", "1000"}});
  framework::Session s(std::move(c), policy_);
  EXPECT_EQ(Admitted(s, "a", 0), 6);  // weight alone would give 2
  EXPECT_EQ(Admitted(s, "b", 1), 4);  // the rest
}

TEST_F(ProportionTest, OrderOverusedAndReclaimable) {
  framework::Session s(Cluster(20, 20), policy_);
  const api::QueueInfo& a = s.cluster().queues[s.cluster().FindQueue("a")];
  const api::QueueInfo& b = s.cluster().queues[s.cluster().FindQueue("b")];
  // Put 5 of a's tasks on the node: a (deserved 2.5) is far over.
  framework::Statement stmt(s);
  for (int i = 0; i < 5; ++i) stmt.Allocate(s.job(0).tasks[i], 0);
  stmt.Commit();
  EXPECT_TRUE(s.Call<framework::Overused>(a));
  EXPECT_FALSE(s.Call<framework::Overused>(b));
  EXPECT_TRUE(s.QueueBefore(b, a));  // the emptier queue goes first
  // Victims only down to a's deserved share (2.5 cpu): 2 of the 5.
  std::vector<api::TaskIndex> all(s.job(0).tasks.begin(),
                                  s.job(0).tasks.begin() + 5);
  EXPECT_EQ(
      s.Call<framework::Reclaimable>(s.task(s.job(1).tasks[0]), all).size(),
      3u);
}

TEST_F(ProportionTest, AdmissionVotes) {
  api::Resource cap = Res({{"cpu", "3"}});
  for (int id = 1; id < api::ResourceNameCount(); ++id)
    cap.Set(id, api::kUnlimited);
  framework::Session s(Cluster(5, 20, cap), policy_);
  std::string why;
  // a's 5-pod gang (minMember 1: one pod) is within its share: permitted.
  EXPECT_TRUE(s.Call<framework::JobEnqueueable>(s.job(0), &why));
  s.job(0).min_member = 5;
  s.job(0).phase = api::PodGroupPhase::kPending;
  framework::Session s2(Cluster(5, 20, cap), policy_);
  s2.job(0).min_member = 5;
  EXPECT_FALSE(s2.Call<framework::JobEnqueueable>(s2.job(0), &why));
  EXPECT_EQ(why,
            "queue a is full (cpu would reach 5 of 3, counting running pods "
            "and admitted gangs)");
}

// Deserved is a claim, not a fence: in the actions' borrowing pass a queue
// goes past its deserved share up to its capability; `borrowing: false`
// keeps Volcano's fence.
TEST_F(ProportionTest, BorrowsPastDeservedUpToCapabilityUnlessTurnedOff) {
  api::Resource cap = Res({{"cpu", "7"}});
  for (int id = 1; id < api::ResourceNameCount(); ++id)
    cap.Set(id, api::kUnlimited);
  // a (weight 1) and b (weight 3) both want 10 cpus: a deserves 2.5.
  auto admitted = [&](framework::Policy& policy, bool borrowing) {
    framework::Session s(Cluster(10, 10, cap), policy);
    s.set_borrowing(borrowing);
    return Admitted(s, "a", 0);
  };
  EXPECT_EQ(admitted(policy_, false), 2);
  EXPECT_EQ(admitted(policy_, true), 7);  // its capability
  framework::Policy fenced = framework::testing::MustPolicy(
      "actions: allocate\ntiers:\n- plugins:\n  - name: proportion\n"
      "    arguments: {borrowing: false}\n",
      registry_, actions_);
  EXPECT_EQ(admitted(fenced, false), 2);
  EXPECT_EQ(admitted(fenced, true), 2);
}

// In a queue tree deserved shares are filled level by level: eng and ops
// split the cluster by weight, eng's children split eng's share by
// theirs, and a parent's capability bounds its children together.
TEST_F(ProportionTest, TreeSharesLevelByLevel) {
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "16"}, {"pods", "1000"}}));
  auto queue = [](const std::string& name, const std::string& parent,
                  int32_t weight) {
    api::QueueInfo q;
    q.name = name;
    q.parent = parent;
    q.weight = weight;
    return q;
  };
  b.AddQueue(queue("eng", "", 1));
  b.AddQueue(queue("ops", "", 1));
  b.AddQueue(queue("ml", "eng", 3));
  b.AddQueue(queue("web", "eng", 1));
  std::vector<std::pair<std::string, api::JobIndex>> jobs;
  for (const char* q : {"ops", "ml", "web"}) {
    jobs.emplace_back(q,
                      AddGang(b, std::string("j-") + q, 1, 16, {{"cpu", "1"}}));
  }
  api::ClusterInfo c = std::move(b).Build();
  for (const auto& [q, j] : jobs) {
    c.jobs[j].queue = q;
    c.jobs[j].queue_index = c.FindQueue(q);
  }
  framework::Session s(std::move(c), policy_);
  EXPECT_EQ(Admitted(s, "ops", jobs[0].second), 8);  // half the cluster
  EXPECT_EQ(Admitted(s, "ml", jobs[1].second), 6);   // 3/4 of eng's 8
  EXPECT_EQ(Admitted(s, "web", jobs[2].second), 2);  // 1/4 of eng's 8
  // Leaves are ordered by their branches' shares where the paths part.
  const api::ClusterInfo& cl = s.cluster();
  auto q = [&](const char* name) -> const api::QueueInfo& {
    return cl.queues[cl.FindQueue(name)];
  };
  framework::Statement undo(s);
  for (int i = 0; i < 4; ++i) {
    undo.Evict(s.job(jobs[1].second).tasks[i], "test", "");
  }
  // ml now holds 2: eng at 4 of 8 goes before ops at 8 of 8.
  EXPECT_TRUE(s.QueueBefore(q("web"), q("ops")));
  EXPECT_TRUE(s.QueueBefore(q("ml"), q("ops")));
  undo.Discard();
}

}  // namespace
}  // namespace shoal::plugins::proportion
