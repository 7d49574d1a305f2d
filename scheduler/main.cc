// shoal-scheduler: the batch scheduler. With --snapshot it replays a
// cluster dump and prints what it would do, touching no API server.
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "plugins/builtin.h"
#include "policies/default_policy.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/cache/cache.h"
#include "scheduler/cli/flags.h"
#include "scheduler/framework/config.h"
#include "scheduler/framework/policy.h"
#include "scheduler/kube/snapshot_file.h"
#include "scheduler/replay.h"

ABSL_FLAG(std::string, snapshot, "",
          "Replay this cluster dump (multi-document YAML or JSON of Nodes, "
          "Pods, PodGroups, Queues, PriorityClasses) instead of connecting "
          "to a cluster.");
ABSL_FLAG(std::string, scheduler_conf, "",
          "Scheduler configuration (Volcano format). Default: the built-in "
          "policies/default.yaml.");
ABSL_FLAG(std::string, scheduler_name, "shoal",
          "Schedule only pods whose spec.schedulerName is this.");
ABSL_FLAG(int, cycles, 1, "With --snapshot: how many cycles to replay.");
ABSL_FLAG(std::string, output, "text", "With --snapshot: text or json.");
ABSL_FLAG(absl::Duration, schedule_period, absl::Seconds(1),
          "Time between scheduling cycles. With --snapshot, the replay's clock "
          "starts at the dump's newest creationTimestamp and advances this much "
          "per cycle.");

namespace {

int Refuse(const std::string& message) {
  std::cerr << "shoal-scheduler: " << message << "\n";
  return shoal::cli::kBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Gang-aware batch scheduler for Kubernetes.\n"
      "  shoal-scheduler --snapshot=cluster.yaml [--scheduler-conf=FILE] "
      "[--cycles=N] [--output=text|json]");
  std::vector<std::string> rest =
      shoal::cli::ParseFlags(argc, argv, "shoal-scheduler");
  if (rest.size() > 1) {
    return Refuse(absl::StrCat("unexpected argument \"", rest[1],
                               "\"; flags take the form --name=value"));
  }
  const std::string output = absl::GetFlag(FLAGS_output);
  if (output != "text" && output != "json") {
    return Refuse(absl::StrCat("--output must be text or json, got \"", output, "\""));
  }
  if (absl::GetFlag(FLAGS_cycles) < 1) {
    return Refuse(absl::StrCat("--cycles must be at least 1, got ",
                               absl::GetFlag(FLAGS_cycles)));
  }

  // The configuration is checked before anything else is touched.
  const std::string conf_path = absl::GetFlag(FLAGS_scheduler_conf);
  auto config = conf_path.empty()
                    ? shoal::framework::ParseSchedulerConfig(
                          shoal::policies::kDefaultPolicy, "policies/default.yaml")
                    : shoal::framework::LoadSchedulerConfig(conf_path);
  if (!config.ok()) return Refuse(std::string(config.status().message()));
  auto policy = shoal::framework::BuildPolicy(
      *config, shoal::plugins::BuiltinPlugins(), shoal::actions::BuiltinActions());
  if (!policy.ok()) return Refuse(std::string(policy.status().message()));
  for (const auto& w : policy->warnings) std::cerr << "warning: " << w << "\n";

  const std::string snapshot = absl::GetFlag(FLAGS_snapshot);
  if (snapshot.empty()) {
    return Refuse(
        "no cluster to schedule: pass --snapshot=FILE to replay a cluster dump "
        "(connecting to a live API server is not built yet)");
  }
  if (absl::GetFlag(FLAGS_schedule_period) <= absl::ZeroDuration()) {
    return Refuse("--schedule-period must be positive, got " +
                  absl::FormatDuration(absl::GetFlag(FLAGS_schedule_period)));
  }
  absl::Time clock;
  shoal::cache::Cache cache(absl::GetFlag(FLAGS_scheduler_name), [&clock] { return clock; });
  std::vector<std::string> warnings;
  if (auto s = shoal::kube::LoadSnapshotFile(snapshot, cache, &warnings); !s.ok()) {
    return Refuse(std::string(s.message()));
  }
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";

  shoal::v1::ReplayReport report =
      shoal::Replay(cache, *policy, absl::GetFlag(FLAGS_cycles),
                    absl::GetFlag(FLAGS_schedule_period), &clock);
  std::cout << (output == "json" ? shoal::ReportJson(report) + "\n"
                                 : shoal::ReportText(report));
  return 0;
}
