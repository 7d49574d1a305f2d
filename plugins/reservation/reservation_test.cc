#include "plugins/reservation/reservation.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/cache/cache.h"
#include "scheduler/framework/cycle.h"
#include "scheduler/framework/testing.h"
#include "scheduler/scheduler.h"
#include "scheduler/test_world.h"

namespace shoal::plugins::reservation {
namespace {

using framework::testing::Node;
using framework::testing::Pod;

constexpr char kBase[] = R"(
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
)";

// 10 nodes of 8 cpu, full of 1-cpu pods that finish over the next minute;
// 14 one-pod jobs arrive every 10 s (more than finish), each running 60 s
// once placed; a 40-pod gang has waited since the start. Returns the
// cycle in which the gang was bound, or -1 if it never was in `cycles`.
int CycleGangRuns(const std::string& policy_yaml, int cycles) {
  absl::Time now = absl::FromUnixSeconds(1700000000);
  cache::Cache cache("shoal", [&now] { return now; });
  std::map<std::string, absl::Time> finishes;
  for (int n = 0; n < 10; ++n)
    cache.UpsertNode(Node(absl::StrCat("n", n), {{"cpu", "8"}}));
  auto add = [&](const std::string& name, const std::string& group, int min,
                 absl::Time created, const std::string& node) {
    api::JobInfo job;
    job.ns = "default";
    job.name = group;
    job.min_member = min;
    job.created = created;
    job.phase = api::PodGroupPhase::kInqueue;
    cache.UpsertPodGroup(job);
    auto pod = Pod(name, {{"cpu", "1"}});
    pod->group = group;
    pod->created = created;
    if (!node.empty()) {
      pod->node_name = node;
      pod->status = api::TaskStatus::kRunning;
    }
    cache.UpsertPod(pod, true);
  };
  for (int i = 0; i < 80; ++i) {
    std::string name = absl::StrCat("old-", i);
    add(name, name, 1, now - absl::Minutes(10), absl::StrCat("n", i % 10));
    finishes["default/" + name] = now + absl::Seconds(10 * (1 + i % 6));
  }
  for (int i = 0; i < 40; ++i) add(absl::StrCat("big-", i), "big", 40, now, "");

  framework::Policy policy = framework::testing::MustPolicy(
      policy_yaml, BuiltinPlugins(), actions::BuiltinActions());
  testing::TestWorld world(cache);  // bound pods start at once
  SchedulerOptions quiet;
  quiet.log_cycles = false;
  Scheduler scheduler(cache, policy, world, world, quiet);
  int small = 0;
  for (int cycle = 0; cycle < cycles; ++cycle) {
    for (auto it = finishes.begin(); it != finishes.end();) {
      if (it->second <= now) {
        cache.DeletePod(it->first);
        it = finishes.erase(it);
      } else {
        ++it;
      }
    }
    for (int k = 0; k < 14; ++k, ++small) {
      std::string name = absl::StrCat("small-", small);
      add(name, name, 1, now, "");
    }
    bool gang_bound = false;
    for (const auto& b : scheduler.RunOnce()->binds) {
      if (cache.FindPod(b.pod)->group == "big") {
        gang_bound = true;
      } else {
        finishes[b.pod] = now + absl::Seconds(60);
      }
    }
    if (gang_bound) return cycle;
    now += absl::Seconds(10);
  }
  return -1;
}

TEST(ReservationTest, WithoutItTheGangStarves) {
  EXPECT_EQ(CycleGangRuns(kBase, 40), -1);
}

TEST(ReservationTest, WithItTheGangRunsOnceReservedNodesDrain) {
  std::string policy =
      std::string(kBase) +
      "  - name: reservation\n    arguments: {waitLimit: 60s}\n";
  int cycle = CycleGangRuns(policy, 40);
  ASSERT_NE(cycle, -1);
  // Reserved at 60 s (cycle 6); the pods already on those nodes run at
  // most 60 s more.
  EXPECT_LE(cycle, 13);
  EXPECT_GE(cycle, 6);
}

TEST(ReservationTest, BadWaitLimitIsRefused) {
  framework::Arguments args("plugin reservation", {{"waitLimit", "soon"}});
  EXPECT_EQ(New(args).status().message(),
            "plugin reservation: arguments.waitLimit: expected a duration such "
            "as \"90s\" or "
            "\"5m\", got \"soon\"");
}

}  // namespace
}  // namespace shoal::plugins::reservation
