#include "scheduler/framework/statement.h"

#include "absl/strings/str_join.h"
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
  std::unique_ptr<PluginSession> OnSessionOpen(Session& s) override {
    int* balance = balance_;
    s.AddEventHandler({[balance](const api::TaskInfo&) { ++*balance; },
                       [balance](const api::TaskInfo&) { --*balance; }});
    return nullptr;
  }

 private:
  int* balance_;
};

class StatementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.Add(
        "counter",
        [this](const Arguments&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
          return std::make_unique<Counter>(&balance_);
        });
    policy_ = testing::MustPolicy(
        "actions: allocate\ntiers:\n- plugins:\n  - name: counter\n", registry_,
        actions_);
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
    EXPECT_EQ(s.node(0).idle(),
              idle0 - Res({{"cpu", "2"}, {"memory", "2Gi"}, {"pods", "2"}}));
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

// The session's state name comes back with an undone statement, so that
// what was worked out for that state (ExplainUnplaced) serves again; a
// state reached anew never takes an old name.
TEST_F(StatementTest, UndoingReturnsTheStateName) {
  Session& s = *session_;
  const uint64_t start = s.state();
  uint64_t one_placed = 0;
  {
    Statement stmt(s);
    stmt.Allocate(0, 0);
    one_placed = s.state();
    EXPECT_NE(one_placed, start);
    const size_t mark = stmt.Mark();
    stmt.Allocate(1, 0);
    stmt.Pipeline(2, 1);
    stmt.DiscardSince(mark);
    EXPECT_EQ(s.state(), one_placed);
    stmt.Discard();
  }
  EXPECT_EQ(s.state(), start);
  Statement again(s);
  again.Allocate(0, 1);
  EXPECT_NE(s.state(), start);
  EXPECT_NE(s.state(), one_placed);
}

TEST_F(StatementTest, InterleavedMovesKeepAFreshStateName) {
  Session& s = *session_;
  Statement first(s);
  first.Allocate(0, 0);
  {
    Statement second(s);
    second.Allocate(1, 1);
    const uint64_t both = s.state();
    first.Discard();  // task 1 is still placed: not the state of before
    EXPECT_NE(s.state(), both);
    Statement third(s);
    EXPECT_EQ(s.task(1).node, 1);
  }
}

// The remembered sentence is of the state it was said in: after a move,
// and after undoing it, the sentence says what holds then.
TEST_F(StatementTest, ExplanationFollowsTheState) {
  api::ClusterBuilder b;
  b.AddNode(Node("n0", {{"cpu", "2"}, {"memory", "8Gi"}}));
  b.AddNode(Node("n1", {{"cpu", "2"}, {"memory", "8Gi"}}));
  AddGang(b, "job", 5, 5, {{"cpu", "2"}, {"memory", "1Gi"}});
  Session s(std::move(b).Build(), policy_);
  const std::string all_free = "2/2 nodes are available.";
  EXPECT_EQ(s.ExplainUnplaced(s.task(4)), all_free);
  {
    Statement stmt(s);
    stmt.Allocate(0, 0);
    EXPECT_EQ(s.ExplainUnplaced(s.task(4)),
              "1/2 nodes are available: 1 Insufficient cpu.");
    stmt.Allocate(1, 1);
    EXPECT_EQ(s.ExplainUnplaced(s.task(3)),
              "0/2 nodes are available: 2 Insufficient cpu.");
  }
  EXPECT_EQ(s.ExplainUnplaced(s.task(4)), all_free);
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

// NodeVolumeLimits (CSI): the distinct volumes of the pods on a node, a
// gang's own members placed earlier in the statement included, stay within
// the node's CSINode count; a shared volume counts once; a discard undoes.
TEST(VolumeLimitsTest, GangMembersCountAndDiscardUndoes) {
  using Limits = std::vector<api::VolumeLimit>;
  api::ClusterBuilder b;
  b.AddNode(Node("n0", {{"cpu", "4"}}));
  b.AddNode(Node("n1", {{"cpu", "4"}}));
  b.AddNode(Node("n2", {{"cpu", "4"}}));  // no CSINode: no limit
  b.SetVolumeLimits("n0", std::make_shared<const Limits>(Limits{{"ebs", 1}}));
  b.SetVolumeLimits("n1", std::make_shared<const Limits>(Limits{{"ebs", 2}}));
  // Another scheduler's pod on n1 attaches "x".
  auto other = testing::Pod("other", {{"cpu", "1"}});
  other->node_name = "n1";
  other->status = api::TaskStatus::kRunning;
  other->csi_volumes = {{"ebs", "x"}};
  b.AddForeignPod(other);
  api::JobInfo job;
  job.ns = "default";
  job.name = "job";
  job.uid = "uid-job";
  job.min_member = 3;
  api::JobIndex j = b.AddJob(job);
  for (const char* volume : {"a", "b", "x"}) {
    auto pod = testing::Pod(std::string("job-") + volume, {{"cpu", "1"}});
    pod->csi_volumes = {{"ebs", volume}};
    b.AddTask(pod, j);
  }
  // Another driver's volume: n0 has no limit for it.
  auto nfs = testing::Pod("nfs", {{"cpu", "1"}});
  nfs->csi_volumes = {{"nfs", "share"}};
  b.AddTask(nfs, b.AddJob(api::JobInfo{}));

  ActionRegistry actions = testing::IdleActions();
  Policy policy = testing::MustPolicy("actions: allocate\ntiers: []\n",
                                      PluginRegistry(), actions);
  Session s(std::move(b).Build(), policy);
  auto explain = [&s](api::TaskIndex t, api::NodeIndex n) {
    Reasons why;
    bool fits = s.FitsExplained(s.task(t), s.node(n), s.node(n).idle(), &why);
    return fits ? std::string("fits") : absl::StrJoin(why, "; ");
  };
  EXPECT_EQ(s.node(1).AttachedVolumeCount(), 1);
  EXPECT_EQ(explain(0, 0), "fits");
  EXPECT_EQ(explain(0, 1), "fits");
  {
    Statement stmt(s);
    stmt.Allocate(0, 0);  // "a" on n0: n0 is full
    EXPECT_FALSE(s.Fits(s.task(1), s.node(0), s.node(0).idle()));
    EXPECT_EQ(explain(1, 0), "node(s) exceed max volume count");
    EXPECT_EQ(explain(3, 0), "fits");  // no limit for nfs
    stmt.Allocate(1, 1);               // "b" on n1, beside "x": n1 is full
    EXPECT_EQ(explain(0, 1),
              "node(s) exceed max volume count");  // "a" would be a third
    EXPECT_EQ(explain(2, 1), "fits");  // "x" is attached there already
    EXPECT_EQ(explain(2, 0), "node(s) exceed max volume count");
    EXPECT_EQ(explain(2, 2), "fits");
    EXPECT_EQ(
        s.ExplainUnplaced(s.task(2)).find("2 node(s) exceed max volume count"),
        std::string::npos);  // n1 takes it
    stmt.Allocate(2, 1);
    EXPECT_EQ(s.node(1).AttachedVolumeCount(), 2);  // "x" counted once
    stmt.Discard();
  }
  EXPECT_EQ(s.node(0).AttachedVolumeCount(), 0);
  EXPECT_EQ(s.node(1).AttachedVolumeCount(), 1);
  EXPECT_EQ(explain(1, 0), "fits");
}

TEST(VolumeLimitsTest, NodeInfoCountsSharedVolumesOnce) {
  using Limits = std::vector<api::VolumeLimit>;
  api::NodeInfo n(Node("n0", {{"cpu", "4"}}));
  const std::vector<api::CsiVolume> x = {{"ebs", "x"}}, y = {{"ebs", "y"}};
  EXPECT_TRUE(n.VolumesFit(x));  // no limits at all
  n.SetVolumeLimits(std::make_shared<const Limits>(Limits{{"ebs", 1}}));
  api::Resource none;
  n.Add(none, api::TaskStatus::kRunning, {}, x);
  n.Add(none, api::TaskStatus::kRunning, {}, x);
  n.Add(none, api::TaskStatus::kPending, {}, y);  // holds nothing
  EXPECT_EQ(n.AttachedVolumeCount(), 1);
  EXPECT_TRUE(n.VolumesFit(x));
  EXPECT_FALSE(n.VolumesFit(y));
  n.Remove(none, api::TaskStatus::kRunning, {}, x);
  EXPECT_FALSE(n.VolumesFit(y));  // the other pod still uses "x"
  n.Remove(none, api::TaskStatus::kRunning, {}, x);
  EXPECT_EQ(n.AttachedVolumeCount(), 0);
  EXPECT_TRUE(n.VolumesFit(y));
  EXPECT_FALSE(n.VolumesFit({{"ebs", "y"}, {"ebs", "z"}}));
}

// A move evicts the task where it is and holds room for its replacement
// elsewhere; committed, it is an eviction that names where; undone, both
// sides are as they were.
TEST_F(StatementTest, MoveHoldsRoomForTheReplacementAndUndoesWhole) {
  Session& s = *session_;
  {
    Statement place(s);
    place.Allocate(0, 0);
    place.Commit();
  }
  const api::Resource future0 = s.node(0).FutureIdle();
  const api::Resource future1 = s.node(1).FutureIdle();
  const uint64_t state = s.state();
  {
    Statement stmt(s);
    stmt.Move(0, 1, "consolidate", "default/big");
    EXPECT_EQ(s.task(0).status, api::TaskStatus::kReleasing);
    EXPECT_EQ(s.task(0).node, 0);
    EXPECT_EQ(s.node(0).releasing().Get(api::kCpu), 1000);
    EXPECT_EQ(s.node(1).pipelined().Get(api::kCpu), 1000);
    EXPECT_EQ(s.node(1).FutureIdle(), future1 - s.task(0).request());
    stmt.Discard();
  }
  EXPECT_EQ(s.node(0).FutureIdle(), future0);
  EXPECT_EQ(s.node(1).FutureIdle(), future1);
  EXPECT_TRUE(s.node(1).pipelined().IsZero());
  EXPECT_EQ(s.task(0).status, api::TaskStatus::kBinding);
  EXPECT_EQ(s.state(), state);
  Statement stmt(s);
  stmt.Move(0, 1, "consolidate", "default/big");
  stmt.Commit();
  ASSERT_EQ(s.evictions().size(), 1u);
  EXPECT_EQ(s.evictions()[0].reason, "consolidate");
  EXPECT_EQ(s.evictions()[0].moved_to, 1);
}

// Room promised to a job in one cycle is off limits to other jobs' pods
// in the next, and free again once the job has nothing pending.
TEST(RoomPromisesTest, HeldForItsJobOnlyUntilItHasNothingPending) {
  PluginRegistry plugins;
  ActionRegistry actions = testing::IdleActions();
  Policy policy =
      testing::MustPolicy("actions: allocate\ntiers: []\n", plugins, actions);
  auto build = [](bool promised_job_pending) {
    api::ClusterBuilder b;
    b.AddNode(Node("n0", {{"cpu", "4"}, {"memory", "8Gi"}}));
    AddGang(b, "other", 1, 1, {{"cpu", "2"}, {"memory", "1Gi"}});
    if (promised_job_pending) {
      AddGang(b, "big", 1, 1, {{"cpu", "3"}, {"memory", "1Gi"}});
    }
    api::ClusterInfo c = std::move(b).Build();
    c.now = absl::FromUnixSeconds(1000);
    return c;
  };
  policy.promises.Add({"default/big", "n0",
                       Res({{"cpu", "3"}, {"memory", "1Gi"}}),
                       absl::FromUnixSeconds(1100)});
  {
    Session s(build(true), policy);
    const api::NodeInfo& n0 = s.node(0);
    EXPECT_FALSE(s.Fits(s.task(0), n0, n0.idle()));  // other: 2 > 4 - 3
    EXPECT_TRUE(s.Fits(s.task(1), n0, n0.idle()));   // big: its own room
    EXPECT_NE(s.ExplainUnplaced(s.task(0)).find("held for another gang"),
              std::string::npos);
  }
  EXPECT_EQ(policy.promises.all().size(), 1u);
  {
    Session s(build(false), policy);  // big placed: the promise lapses
    EXPECT_TRUE(s.Fits(s.task(0), s.node(0), s.node(0).idle()));
  }
  EXPECT_TRUE(policy.promises.all().empty());
  // Past its deadline a promise lapses though its job still waits.
  policy.promises.Add({"default/big", "n0",
                       Res({{"cpu", "3"}, {"memory", "1Gi"}}),
                       absl::FromUnixSeconds(999)});
  Session s(build(true), policy);
  EXPECT_TRUE(s.Fits(s.task(0), s.node(0), s.node(0).idle()));
  EXPECT_TRUE(policy.promises.all().empty());
}

}  // namespace
}  // namespace shoal::framework
