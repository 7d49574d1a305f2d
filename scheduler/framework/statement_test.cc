#include "scheduler/framework/statement.h"

#include "gtest/gtest.h"
#include "scheduler/framework/testing.h"

namespace shoal::framework {
namespace {

using testing::AddGang;
using testing::Node;
using testing::Res;

// Counts allocate/deallocate events, as a fairness plugin would.
class Counter : public Plugin {
 public:
  explicit Counter(int* balance) : balance_(balance) {}
  void OnSessionOpen(Session& s) override {
    s.AddEventHandler({[this](const api::TaskInfo&) { ++*balance_; },
                       [this](const api::TaskInfo&) { --*balance_; }});
  }

 private:
  int* balance_;
};

class StatementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.Add("counter", [this](const Arguments&)
                      -> absl::StatusOr<std::unique_ptr<Plugin>> {
      return std::make_unique<Counter>(&balance_);
    });
    policy_ = testing::MustPolicy(
        "actions: allocate\ntiers:\n- plugins:\n  - name: counter\n",
        registry_, actions_);
    api::ClusterBuilder b;
    b.AddNode(Node("n0", {{"cpu", "4"}, {"memory", "8Gi"}}));
    b.AddNode(Node("n1", {{"cpu", "4"}, {"memory", "8Gi"}}));
    AddGang(b, "job", 3, 3, {{"cpu", "1"}, {"memory", "1Gi"}});
    session_ = std::make_unique<Session>(std::move(b).Build(), policy_);
  }

  int balance_ = 0;
  PluginRegistry registry_;
  ActionRegistry actions_ = testing::IdleActions();
  Policy policy_;
  std::unique_ptr<Session> session_;
};

TEST_F(StatementTest, DiscardLeavesNoTrace) {
  Session& s = *session_;
  const api::Resource idle0 = s.node(0).idle();
  {
    Statement stmt(s);
    stmt.Allocate(0, 0);
    stmt.Allocate(1, 0);
    stmt.Pipeline(2, 1);
    EXPECT_EQ(s.node(0).idle(), idle0 - Res({{"cpu", "2"}, {"memory", "2Gi"}, {"pods", "2"}}));
    EXPECT_EQ(s.job(0).Count(api::TaskStatus::kAllocated), 2);
    EXPECT_EQ(s.node(1).pipelined().Get(api::kCpu), 1000);
    EXPECT_EQ(balance_, 3);
    stmt.Discard();
  }
  EXPECT_EQ(s.node(0).idle(), idle0);
  EXPECT_TRUE(s.node(0).used().IsZero());
  EXPECT_TRUE(s.node(1).pipelined().IsZero());
  EXPECT_TRUE(s.node(0).tasks().empty());
  EXPECT_EQ(s.job(0).PendingCount(), 3);
  EXPECT_EQ(s.task(0).node, api::kNone);
  EXPECT_EQ(balance_, 0);
  EXPECT_TRUE(s.binds().empty());
}

TEST_F(StatementTest, DestructorDiscardsAnUnfinishedStatement) {
  Session& s = *session_;
  { Statement(s).Allocate(0, 1); }
  EXPECT_EQ(s.job(0).PendingCount(), 3);
  EXPECT_TRUE(s.node(1).used().IsZero());
}

TEST_F(StatementTest, CommitTurnsAllocationsIntoBinds) {
  Session& s = *session_;
  Statement stmt(s);
  stmt.Allocate(0, 0);
  stmt.Allocate(1, 1);
  stmt.Commit();
  ASSERT_EQ(s.binds().size(), 2u);
  EXPECT_EQ(s.binds()[1].node, 1);
  EXPECT_EQ(s.task(0).status, api::TaskStatus::kBinding);
  EXPECT_EQ(s.job(0).ScheduledCount(), 2);
  EXPECT_EQ(balance_, 2);
}

TEST_F(StatementTest, EvictHoldsResourcesUntilGoneAndUndoes) {
  Session& s = *session_;
  {
    Statement place(s);
    place.Allocate(0, 0);
    place.Commit();
  }
  Statement stmt(s);
  stmt.Evict(0, "preempt", "default/urgent-0");
  EXPECT_EQ(s.node(0).releasing().Get(api::kCpu), 1000);
  EXPECT_EQ(s.node(0).used().Get(api::kCpu), 1000);
  EXPECT_EQ(s.node(0).FutureIdle().Get(api::kCpu), 4000);
  EXPECT_TRUE(s.any_releasing());
  EXPECT_EQ(balance_, 0);
  stmt.Discard();
  EXPECT_EQ(s.task(0).status, api::TaskStatus::kBinding);
  EXPECT_TRUE(s.node(0).releasing().IsZero());
  EXPECT_FALSE(s.any_releasing());
  EXPECT_EQ(balance_, 1);
  stmt.Evict(0, "preempt", "default/urgent-0");
  stmt.Commit();
  ASSERT_EQ(s.evictions().size(), 1u);
  EXPECT_EQ(s.evictions()[0].reason, "preempt");
  EXPECT_EQ(s.evictions()[0].preemptor, "default/urgent-0");
}

}  // namespace
}  // namespace shoal::framework
