#include "scheduler/kube/write/pod_group_status.h"

#include "gtest/gtest.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

api::JobInfo Gang(int min, int running, const std::string& message = "") {
  api::JobInfo job;
  job.min_member = min;
  job.phase = running >= min ? api::PodGroupPhase::kRunning
                             : api::PodGroupPhase::kInqueue;
  job.message = message;
  job.count_by_status[static_cast<int>(api::TaskStatus::kRunning)] = running;
  job.count_by_status[static_cast<int>(api::TaskStatus::kPending)] =
      min - running;
  for (int i = 0; i < min; ++i) job.tasks.push_back(i);
  return job;
}

std::map<std::string, std::string> Conditions(const json& status) {
  std::map<std::string, std::string> out;
  for (const json& c : status["conditions"]) out[c["type"]] = c["status"];
  return out;
}

const absl::Time kT0 = absl::FromUnixSeconds(1700000000);

TEST(PodGroupStatusTest,
     WaitingKeepsItsTransitionTimeAndRunningFlipsTheConditions) {
  json waiting = DesiredPodGroupStatus(
      Gang(4, 0, "4/4 tasks in gang unschedulable: x"), nullptr, kT0);
  EXPECT_EQ(waiting["phase"], "Inqueue");
  EXPECT_EQ(Conditions(waiting),
            (std::map<std::string, std::string>{{"Unschedulable", "True"}}));
  // Later, same verdict: nothing to write, the transition time stays.
  json again =
      DesiredPodGroupStatus(Gang(4, 0, "4/4 tasks in gang unschedulable: x"),
                            waiting, kT0 + absl::Minutes(5));
  EXPECT_TRUE(AlreadySays(waiting, again));
  json running =
      DesiredPodGroupStatus(Gang(4, 4), waiting, kT0 + absl::Minutes(6));
  EXPECT_EQ(running["running"], 4);
  EXPECT_EQ(Conditions(running),
            (std::map<std::string, std::string>{{"Scheduled", "True"},
                                                {"Unschedulable", "False"}}));
  // It loses members and waits again: Scheduled no longer holds.
  json lost =
      DesiredPodGroupStatus(Gang(4, 2, "2/4 tasks in gang unschedulable: y"),
                            running, kT0 + absl::Minutes(7));
  EXPECT_EQ(Conditions(lost),
            (std::map<std::string, std::string>{{"Scheduled", "False"},
                                                {"Unschedulable", "True"}}));
}

TEST(PodGroupStatusTest, TheScheduledConditionCountsResizes) {
  api::JobInfo job = Gang(4, 4);
  auto message = [](const json& status) -> std::string {
    for (const json& c : status["conditions"]) {
      if (c["type"] == "Scheduled") return c["message"];
    }
    return "";
  };
  EXPECT_EQ(message(DesiredPodGroupStatus(job, nullptr, kT0)),
            "4/4 tasks scheduled, minMember 4");
  job.resizing.count = 3;
  job.resizing.cost_seconds = 30;
  json resized = DesiredPodGroupStatus(job, nullptr, kT0);
  EXPECT_EQ(message(resized),
            "4/4 tasks scheduled, minMember 4, 3 resizes (cost 30s each)");
  // Why growth waits is left out: it changes every cycle, the condition
  // only when the job is resized.
  job.resizing.held = "growth from 4 to 8 pods held: ...";
  EXPECT_TRUE(AlreadySays(resized, DesiredPodGroupStatus(job, resized, kT0)));
}

TEST(PodGroupStatusTest, SchedulerPluginsPhases) {
  api::JobInfo job = Gang(2, 0);
  job.source = api::GroupSource::kSchedulerPlugins;
  EXPECT_EQ(DesiredPodGroupStatus(job, nullptr, kT0)["phase"], "PreScheduling");
  job.phase = api::PodGroupPhase::kRunning;
  job.count_by_status[static_cast<int>(api::TaskStatus::kPending)] = 0;
  job.count_by_status[static_cast<int>(api::TaskStatus::kBound)] = 2;
  json status = DesiredPodGroupStatus(job, nullptr, kT0);
  EXPECT_EQ(status["phase"], "Scheduled");
  EXPECT_EQ(status["scheduled"], 2);
  EXPECT_FALSE(status.contains("conditions"));
}

}  // namespace
}  // namespace shoal::kube
