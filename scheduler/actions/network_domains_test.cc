// Which network domains a gang may try (network_domains.h), on clusters
// built in code; the placements themselves are checked end to end in
// scheduler/replay_test (e2e/snapshots/network-topology-*.yaml).
#include "scheduler/actions/network_domains.h"

#include <map>
#include <memory>
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/framework/cycle.h"
#include "scheduler/framework/testing.h"

namespace shoal::actions {
namespace {

using framework::testing::Node;
using framework::testing::Pod;

api::HyperNodeSpec Rack(const std::string& name, int32_t tier,
                        std::vector<std::string> members, bool hyper) {
  api::HyperNodeSpec h;
  h.name = name;
  h.tier = tier;
  for (auto& m : members) {
    api::HyperNodeMember member;
    member.type = hyper ? api::HyperNodeMember::Type::kHyperNode
                        : api::HyperNodeMember::Type::kNode;
    member.value = m;
    h.members.push_back(member);
  }
  return h;
}

// Racks r0 = n0, n1 and r1 = n2, n3 (4 cpu each) under spine s.
class NetworkDomainsTest : public ::testing::Test {
 protected:
  NetworkDomainsTest()
      : policy_(framework::testing::MustPolicy(
            framework::testing::kPlacingPolicy, plugins::BuiltinPlugins(),
            BuiltinActions())) {
    for (const char* n : {"n0", "n1", "n2", "n3"}) {
      b_.AddNode(Node(n, {{"cpu", "4"}, {"memory", "16Gi"}}));
    }
  }
  api::ClusterInfo Build() {
    api::ClusterInfo c = std::move(b_).Build();
    c.network = std::make_shared<const api::NetworkTopology>(
        api::NetworkTopology::FromHyperNodes(
            {Rack("r0", 1, {"n0", "n1"}, false),
             Rack("r1", 1, {"n2", "n3"}, false),
             Rack("s", 2, {"r0", "r1"}, true)},
            c.nodes));
    return c;
  }
  std::unique_ptr<framework::Session> Open() {
    return std::make_unique<framework::Session>(Build(), policy_);
  }
  // A job `name` of `pods` pods of `cpu` cpu, the first `running` of them
  // on `node`, under `mode` up to tier 1.
  api::JobIndex Job(api::NetworkConstraint::Mode mode, int min, int pods,
                    int running = 0, const std::string& node = "",
                    const std::string& name = "j",
                    const std::string& cpu = "2") {
    api::JobInfo job;
    job.name = name;
    job.min_member = min;
    job.network.mode = mode;
    job.network.highest_tier = 1;
    api::JobIndex j = b_.AddJob(job);
    for (int i = 0; i < pods; ++i) {
      auto p = Pod(name + "-" + std::to_string(i), {{"cpu", cpu}});
      if (i < running) {
        p->node_name = node;
        p->status = api::TaskStatus::kRunning;
      }
      b_.AddTask(p, j);
    }
    return j;
  }
  std::vector<api::TaskIndex> Pending(framework::Session& s, api::JobIndex j) {
    std::vector<api::TaskIndex> out;
    for (api::TaskIndex t : s.job(j).tasks) {
      if (s.task(t).status == api::TaskStatus::kPending) out.push_back(t);
    }
    return out;
  }
  api::ClusterBuilder b_;
  framework::Policy policy_;
};

TEST_F(NetworkDomainsTest, FullestRackFirstThenWider) {
  b_.AddForeignPod("n2", framework::testing::Res({{"cpu", "2"}}));
  api::JobIndex j = Job(api::NetworkConstraint::Mode::kSoft, 2, 2);
  auto s = Open();
  DomainPlan plan = PlanDomains(*s, s->job(j), Pending(*s, j), 0);
  ASSERT_TRUE(plan.constrained);
  EXPECT_TRUE(plan.anywhere);  // soft
  // r1 has room for 3 such pods, r0 for 4: r1 is left with less.
  std::vector<std::string> names;
  for (int32_t d : plan.domains) names.push_back(s->network()->domain(d).name);
  EXPECT_EQ(names, (std::vector<std::string>{"r1", "r0", "s"}));
  EXPECT_EQ(plan.need, 2);
}

TEST_F(NetworkDomainsTest, AGangWithPodsRunningStaysWhereTheyAre) {
  // Two pods run on n0; another scheduler's pod fills n1. The last pod
  // would fit r1, but r1 does not hold the pods that run.
  b_.AddForeignPod("n1", framework::testing::Res({{"cpu", "4"}}));
  api::JobIndex j = Job(api::NetworkConstraint::Mode::kHard, 3, 3, 2, "n0");
  auto s = Open();
  DomainPlan plan = PlanDomains(*s, s->job(j), Pending(*s, j), 0);
  EXPECT_TRUE(plan.domains.empty());
  EXPECT_FALSE(plan.anywhere);
  EXPECT_EQ(plan.refusal,
            "no network domain up to tier 1 holds 1 pod of cpu: 2 beside the "
            "node its pods already run on (spec.networkTopology mode hard, "
            "highestTierAllowed 1): r0 has room for 0");
  ASSERT_EQ(plan.rooms.size(), 2u);
  EXPECT_FALSE(plan.rooms[1].holds_placed);  // r1
  EXPECT_EQ(plan.rooms[1].pods, 4);
  // Growth stays inside r0 (the widest domain of tier 1 holding them).
  EXPECT_EQ(GrowthDomain(*s, s->job(j)),
            &s->network()->domain(s->network()->Find("r0")).nodes);
}

TEST_F(NetworkDomainsTest,
       ASubGroupLooksInsideTheJobsDomainWhereAllItsPodsFit) {
  // Sub-group "w/a" (3 pods of 2 cpu, subGroupSize 2, hard tier 1) inside
  // spine s: r0 has room for 2 (another scheduler's pod on n1), r1 for 4.
  // Both hold its minimum; r1 also holds its third pod, so it comes first.
  b_.AddForeignPod("n1", framework::testing::Res({{"cpu", "4"}}));
  api::JobInfo job;
  job.name = "j";
  job.min_member = 2;
  api::SubGroupPolicy w;
  w.name = "w";
  w.size = 2;
  w.match_label_keys = {"replica"};
  w.network.mode = api::NetworkConstraint::Mode::kHard;
  w.network.highest_tier = 1;
  job.sub_group_policies = {w};
  api::JobIndex j = b_.AddJob(job);
  for (int i = 0; i < 3; ++i) {
    auto p = Pod("j-" + std::to_string(i), {{"cpu", "2"}});
    p->labels =
        api::Labels({std::make_pair(std::string("replica"), std::string("a"))});
    b_.AddTask(p, j);
  }
  auto s = Open();
  const api::NetworkTopology& net = *s->network();
  ASSERT_EQ(s->job(j).sub_groups.size(), 1u);
  DomainPlan plan =
      PlanSubGroupDomains(*s, s->job(j), 0, Pending(*s, j), net.Find("s"));
  std::vector<std::string> names;
  for (int32_t d : plan.domains) names.push_back(net.domain(d).name);
  EXPECT_EQ(names, (std::vector<std::string>{"r1", "r0"}));
  EXPECT_EQ(plan.need, 2);
  EXPECT_FALSE(plan.anywhere);
  // Were its minimum 3, r0 alone could not hold it: refused, by name.
  s->job(j).sub_groups[0].size = 3;
  plan = PlanSubGroupDomains(*s, s->job(j), 0, Pending(*s, j), net.Find("r0"));
  EXPECT_EQ(plan.refusal,
            "no network domain up to tier 1 holds 3 pods of cpu: 2 inside r0 "
            "(the job's domain) (spec.subGroupPolicy[0].networkTopology mode "
            "hard, highestTierAllowed 1, sub-group w/a): r0 has room for 2");
}

TEST_F(NetworkDomainsTest, RoomAJobInARackWillGrowIntoIsLeftToIt) {
  // "j" runs one pod in r0 and waits for one more there. "k" (3 pods)
  // fits whole in r0's free room (3 pods) and in r1's (4): r0, the
  // fuller, would come first, but j's growth leaves it room for 2.
  Job(api::NetworkConstraint::Mode::kHard, 1, 2, 1, "n0");
  api::JobIndex k = Job(api::NetworkConstraint::Mode::kHard, 1, 3, 0, "", "k");
  auto s = Open();
  const api::NetworkTopology& net = *s->network();
  EXPECT_EQ(
      net.domain(PlanDomains(*s, s->job(k), Pending(*s, k), 0).domains.front())
          .name,
      "r0");
  GrowthEarmarks earmarks(*s);
  DomainPlan plan = PlanDomains(*s, s->job(k), Pending(*s, k), 0, &earmarks);
  ASSERT_EQ(plan.domains.size(), 2u);  // racks only: tier 1 at most
  EXPECT_EQ(net.domain(plan.domains[0]).name, "r1");
  EXPECT_EQ(net.domain(plan.domains[1]).name, "r0");
}

TEST_F(NetworkDomainsTest, ElasticJobsUnderAHardRackSpreadSoAllCanGrow) {
  // Four jobs of a minimum of 1 and 4 pods of 1 cpu, each bound to one
  // rack (8 pods of room each). Minimums come first: packed into the
  // fullest rack that holds all four of a job's pods, all four would
  // start in r0 and grow to 2 pods each, r1 empty. Leaving each started
  // job room to grow, two start in each rack and every pod runs.
  for (const char* name : {"a", "b", "c", "d"}) {
    Job(api::NetworkConstraint::Mode::kHard, 1, 4, 0, "", name, "1");
  }
  framework::CycleOutcome out = framework::RunCycle(Build(), policy_);
  std::map<std::string, std::set<std::string>> racks;
  for (const auto& bind : out.binds) {
    const std::string& node = out.cluster.nodes[bind.node].name();
    racks[out.cluster.jobs[out.cluster.tasks[bind.task].job].name].insert(
        node == "n0" || node == "n1" ? "r0" : "r1");
  }
  EXPECT_EQ(out.binds.size(), 16u);
  EXPECT_EQ(racks,
            (std::map<std::string, std::set<std::string>>{
                {"a", {"r0"}}, {"b", {"r0"}}, {"c", {"r1"}}, {"d", {"r1"}}}));
}

TEST_F(NetworkDomainsTest, ALimitNamingAnUnknownTierIsRefusedByName) {
  api::JobInfo job;
  job.name = "named";
  job.network.mode = api::NetworkConstraint::Mode::kHard;
  job.network.highest_tier_name = "pod";
  api::JobIndex j = b_.AddJob(job);
  b_.AddTask(Pod("named-0", {{"cpu", "1"}}), j);
  auto s = Open();
  DomainPlan plan = PlanDomains(*s, s->job(j), Pending(*s, j), 0);
  EXPECT_EQ(plan.refusal,
            "no network domain has the tier name \"pod\" "
            "(spec.networkTopology highestTierName; the cluster has tiers 1, "
            "2)");
}

}  // namespace
}  // namespace shoal::actions
