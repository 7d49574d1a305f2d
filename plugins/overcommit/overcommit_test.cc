#include "plugins/overcommit/overcommit.h"

#include "gtest/gtest.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/testing.h"

namespace shoal::plugins::overcommit {
namespace {

using framework::testing::AddGang;
using framework::testing::Node;

class OvercommitTest : public ::testing::Test {
 protected:
  OvercommitTest() { registry_.Add("overcommit", New); }
  absl::StatusOr<framework::Policy> Build(const std::string& args) {
    auto c = framework::ParseSchedulerConfig(
        "actions: enqueue\ntiers:\n- plugins:\n  - name: overcommit\n" + args,
        "o.yaml");
    return framework::BuildPolicy(*c, registry_,
                                  framework::testing::IdleActions());
  }
  framework::PluginRegistry registry_;
};

TEST_F(OvercommitTest, AdmitsUpToIdleTimesFactor) {
  auto policy = Build("    arguments: {overcommit-factor: 1.5}\n");
  ASSERT_TRUE(policy.ok()) << policy.status();
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "10"}}));
  b.AddForeignPod("n", framework::testing::Res({{"cpu", "4"}}));
  AddGang(b, "first", 6, 6, {{"cpu", "1"}});   // 15 - 4 = 11 room: fits
  AddGang(b, "second", 6, 6, {{"cpu", "1"}});  // 5 left: does not
  framework::Session s(std::move(b).Build(), *policy);
  std::string why;
  EXPECT_TRUE(s.Call<framework::JobEnqueueable>(s.job(0), &why));
  // A yes alone promises nothing: another plugin may still refuse it.
  EXPECT_TRUE(s.Call<framework::JobEnqueueable>(s.job(1), &why));
  s.Admitted(s.job(0));  // the enqueue action, once every plugin said yes
  EXPECT_FALSE(s.Call<framework::JobEnqueueable>(s.job(1), &why));
  EXPECT_EQ(
      why,
      "the gang's minimum does not fit what the cluster can still promise (cpu "
      "needs 6, "
      "5 left; idle x overcommit-factor 1.5, less gangs already admitted)");
}

// Volcano falls back to its default for a factor below 1; Shoal does the
// same and says so once (issue 12, defect 3).
TEST_F(OvercommitTest, FactorBelowOneFallsBackToTheDefaultWithAWarning) {
  auto policy = Build("    arguments: {overcommit-factor: 0.5}\n");
  ASSERT_TRUE(policy.ok()) << policy.status();
  ASSERT_EQ(policy->warnings.size(), 1u);
  EXPECT_EQ(policy->warnings[0],
            "o.yaml:4: plugin overcommit: arguments.overcommit-factor: must be "
            ">= 1, got 0.5; "
            "using the default 1.2 instead");
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "10"}}));
  AddGang(b, "fits-1.2", 12, 12, {{"cpu", "1"}});  // 12 <= 10 x 1.2
  framework::Session s(std::move(b).Build(), *policy);
  std::string why;
  EXPECT_TRUE(s.Call<framework::JobEnqueueable>(s.job(0), &why)) << why;
}

}  // namespace
}  // namespace shoal::plugins::overcommit
