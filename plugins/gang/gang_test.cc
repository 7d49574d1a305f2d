#include "plugins/gang/gang.h"

#include "gtest/gtest.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/statement.h"
#include "scheduler/framework/testing.h"

namespace shoal::plugins::gang {
namespace {

using framework::testing::Node;
using framework::testing::Pod;

class GangTest : public ::testing::Test {
 protected:
  GangTest() {
    registry_.Add("gang", New);
    policy_ = framework::testing::MustPolicy(
        "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n", registry_,
        actions_);
  }
  // A job of 2 "ps" and 4 "worker" pods with minMember 4 and at least 1 ps
  // and 3 workers.
  api::ClusterInfo Job() {
    api::ClusterBuilder b;
    b.AddNode(Node("n", {{"cpu", "64"}}));
    api::JobInfo job;
    job.ns = "ml";
    job.name = "tf";
    job.min_member = 4;
    job.min_task_member = {{"ps", 1}, {"worker", 3}};
    api::JobIndex j = b.AddJob(job);
    for (int i = 0; i < 6; ++i) {
      auto pod = Pod("tf-" + std::to_string(i), {{"cpu", "1"}});
      pod->role = i < 2 ? "ps" : "worker";
      b.AddTask(pod, j);
    }
    return std::move(b).Build();
  }
  framework::PluginRegistry registry_;
  framework::ActionRegistry actions_ = framework::testing::IdleActions();
  framework::Policy policy_;
};

TEST_F(GangTest, ReadyNeedsMinMemberAndEveryRoleMinimum) {
  framework::Session s(Job(), policy_);
  framework::Statement stmt(s);
  for (api::TaskIndex t : {2, 3, 4, 5}) stmt.Allocate(t, 0);  // 4 workers
  EXPECT_FALSE(s.Call<framework::JobReady>(s.job(0)));        // no ps yet
  stmt.Allocate(0, 0);
  EXPECT_TRUE(s.Call<framework::JobReady>(s.job(0)));
  stmt.Discard();
  stmt.Allocate(0, 0);
  stmt.Allocate(2, 0);
  stmt.Allocate(3, 0);
  EXPECT_FALSE(s.Call<framework::JobReady>(s.job(0)));
  EXPECT_EQ(s.Call<framework::JobPipelined>(s.job(0)), false);
  stmt.Pipeline(4, 0);
  EXPECT_FALSE(s.Call<framework::JobReady>(s.job(0)));
  EXPECT_TRUE(s.Call<framework::JobPipelined>(s.job(0)));
}

TEST_F(GangTest, ValidityNamesTheShortfall) {
  api::ClusterInfo c = Job();
  c.jobs[0].min_member = 7;
  framework::Session s(std::move(c), policy_);
  std::string why;
  EXPECT_FALSE(s.Call<framework::JobValid>(s.job(0), &why));
  EXPECT_EQ(why, "not enough pods for the gang: 6 exist, spec.minMember is 7");
  s.job(0).min_member = 6;
  s.job(0).min_task_member["ps"] = 3;
  EXPECT_FALSE(s.Call<framework::JobValid>(s.job(0), &why));
  EXPECT_EQ(why,
            "not enough pods of task \"ps\" for the gang: 2 exist, "
            "spec.minTaskMember[ps] is 3");
  // Volcano's rule: role minimums adding up to more than minMember (3 + 3
  // > 4) are not checked; minMember alone decides.
  s.job(0).min_member = 4;
  EXPECT_TRUE(s.Call<framework::JobValid>(s.job(0), &why));
}

TEST_F(GangTest, UnreadyJobsGoFirst) {
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "64"}}));
  framework::testing::AddGang(b, "running", 1, 1, {{"cpu", "1"}});
  framework::testing::AddGang(b, "waiting", 1, 1, {{"cpu", "1"}});
  framework::Session s(std::move(b).Build(), policy_);
  framework::Statement stmt(s);
  stmt.Allocate(0, 0);
  stmt.Commit();
  EXPECT_TRUE(s.JobBefore(s.job(1), s.job(0)));
}

TEST_F(GangTest, CloseWritesTheGangMessage) {
  framework::Session s(Job(), policy_);
  s.job(0).fit_error = "0/1 nodes are available: 1 Insufficient cpu.";
  s.Close();
  EXPECT_EQ(s.job(0).message,
            "6/6 tasks in gang unschedulable: 0/1 nodes are available: 1 "
            "Insufficient cpu.");
}

}  // namespace
}  // namespace shoal::plugins::gang
