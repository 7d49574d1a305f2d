// shoal-sim: runs Shoal's scheduler over a simulated cluster and clock.
//
//   shoal-sim --scenario=FILE [--policy=FILE] [--rigid | --compare]
//             [--label=NAME] [--out=DIR] [--ignore-network-constraints]
//             [--resize-cost=DURATION] [--no-gpu-sharing]
//             [--trace=WORKLOAD.csv [--trace-apps=DIR]]
//
// Writes DIR/<elastic|rigid|NAME>/summary.json, timeseries.csv and
// jobs.csv, then the plots DIR/*.png (every run found in DIR side by
// side), and prints the summaries.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/cli/flags.h"
#include "scheduler/framework/config.h"
#include "tools/simulator/scenario.h"
#include "tools/simulator/simulator.h"
#include "tools/simulator/trace.h"

ABSL_FLAG(std::string, scenario, "",
          "Scenario file (YAML; see README \"Simulator\").");
ABSL_FLAG(std::string, policy, "",
          "Scheduler configuration; default: the scenario's policy.");
ABSL_FLAG(bool, rigid, false,
          "Treat every job's minimum as all its pods (a scheduler without "
          "elasticity).");
ABSL_FLAG(bool, compare, false,
          "Run elastic and rigid, and plot them side by side.");
ABSL_FLAG(std::string, label, "",
          "Name of the run's directory under --out instead of elastic or "
          "rigid, to compare policies: run once per policy into one --out.");
ABSL_FLAG(bool, ignore_network_constraints, false,
          "PodGroups carry no networkTopology, whatever the scenario says: "
          "the same jobs as a scheduler blind to the network sees them (the "
          "network and its slowdown stay).");
ABSL_FLAG(std::string, resize_cost, "",
          "Every job's resize cost (\"30s\", \"2m\"), whatever the scenario "
          "says: what one change of a running job's pod count costs it, "
          "told to the scheduler on its PodGroup.");
ABSL_FLAG(bool, no_gpu_sharing, false,
          "Publish the scenario's GPUs neither shared nor partitioned (each "
          "pod's claim gets whole GPUs): the same pods without GPU sharing. "
          "The run's directory is no-gpu-sharing unless --label names it.");
ABSL_FLAG(std::string, trace, "",
          "A workload of Pollux's benchmark (name,time,application,"
          "num_replicas,batch_size): its jobs join the scenario's, each "
          "progressing by the measured job model (README \"Simulator\", "
          "Trace mode). With --rigid each job runs at its num_replicas.");
ABSL_FLAG(std::string, trace_elastic_most, "tuned",
          "With --trace, the most pods an elastic job runs: tuned (its "
          "num_replicas, the size its user tuned it for) or batch (as wide "
          "as its batch splits: batch_size / its smallest local batch, up "
          "to 64).");
ABSL_FLAG(std::string, trace_curves, "declared",
          "With --trace, what the scheduler is told of each job's scaling: "
          "declared (its curve from the model as a shoal.dev/throughput "
          "annotation), learned (nothing declared; the job reports its "
          "progress each period as shoal.dev/progress, and the elastic "
          "plugin learns its curve) or both.");
ABSL_FLAG(std::string, trace_apps,
          "tools/simulator/traces/pollux-osdi21/traces",
          "The applications' measurements for --trace: one directory each.");
ABSL_FLAG(bool, plot, true,
          "Draw the plots of every run in --out (--noplot: only write the "
          "summaries and CSVs, e.g. when a driver draws them once at the "
          "end).");
ABSL_FLAG(std::string, out, "out/sim",
          "Directory for summaries, time series and plots.");

namespace fs = std::filesystem;

namespace {

int Refuse(const std::string& message) {
  std::cerr << "shoal-sim: " << message << "\n";
  return shoal::cli::kBadInput;
}

// A path as given, else under the workspace `bazel run` was started in.
std::string Locate(const std::string& path) {
  if (path.empty() || fs::exists(path) || fs::path(path).is_absolute())
    return path;
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    fs::path p = fs::path(ws) / path;
    if (fs::exists(p)) return p.string();
  }
  return path;
}

// A bar on a terminal, nothing otherwise.
class ProgressBar {
 public:
  explicit ProgressBar(std::string label)
      : label_(std::move(label)), tty_(isatty(2)) {}
  void Update(double fraction) {
    int percent = static_cast<int>(fraction * 100);
    if (!tty_ || percent == last_) return;
    last_ = percent;
    int filled = percent * 30 / 100;
    std::cerr << "\r" << label_ << " [" << std::string(filled, '=')
              << std::string(30 - filled, ' ') << "] " << percent << "%"
              << std::flush;
  }
  ~ProgressBar() {
    if (tty_)
      std::cerr << "\r" << std::string(label_.size() + 40, ' ') << "\r"
                << std::flush;
  }

 private:
  std::string label_;
  bool tty_;
  int last_ = -1;
};

// The summaries side by side, for people; summary.json has them exactly.
void PrintSummaries(
    const std::vector<std::pair<std::string, nlohmann::ordered_json>>& runs,
    const std::string& dir) {
  auto cell = [](const nlohmann::ordered_json& j,
                 const std::string& what) -> std::string {
    const auto& u = j["utilization"];
    if (what == "cpu mean")
      return u.contains("cpu")
                 ? absl::StrFormat("%.3f", u["cpu"]["mean"].get<double>())
                 : "-";
    if (what == "cpu p05")
      return u.contains("cpu")
                 ? absl::StrFormat("%.3f", u["cpu"]["p05"].get<double>())
                 : "-";
    if (what == "pending")
      return absl::StrFormat("%d / %.2f", j["pendingJobs"]["max"].get<int>(),
                             j["pendingJobs"]["mean"].get<double>());
    if (what == "jobs")
      return absl::StrFormat("%d / %d", j["jobs"]["submitted"].get<int>(),
                             j["jobs"]["completed"].get<int>());
    if (what == "jct") {
      if (j["jobs"]["completed"].get<int>() == 0) return "-";
      return absl::StrFormat("%.0f", j["jobs"]["jctMeanSeconds"].get<double>());
    }
    if (what == "wait")
      return absl::StrFormat("%.0f / %.0f",
                             j["jobs"]["waitMeanSeconds"].get<double>(),
                             j["jobs"]["waitMaxSeconds"].get<double>());
    if (what == "jain")
      return absl::StrFormat("%.4f", j["fairness"]["jain"].get<double>());
    if (what == "svc")
      return absl::StrFormat("%.0f",
                             j["services"]["pendingPodSeconds"].get<double>());
    if (what == "resizes")
      return absl::StrFormat("%d / %d", j["resizes"]["count"].get<int>(),
                             j["resizes"]["perJobMax"].get<int>());
    if (what == "restart")
      return absl::StrFormat("%.0f",
                             j["resizes"]["restartSecondsLost"].get<double>());
    return absl::StrCat(j["evictions"].get<int64_t>());
  };
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"cpu utilization, mean", "cpu mean"},
      {"cpu utilization, p05", "cpu p05"},
      {"pending jobs, max / mean", "pending"},
      {"jobs submitted / completed", "jobs"},
      {"job completion time, mean s", "jct"},
      {"wait for minimum, mean / max s", "wait"},
      {"Jain fairness (elastic jobs)", "jain"},
      {"service pods pending, pod-s", "svc"},
      {"evictions", "evictions"},
      {"resizes, total / most of one job", "resizes"},
      {"restarting, job-seconds", "restart"}};
  std::string header = absl::StrFormat("%-34s", "");
  for (const auto& [mode, j] : runs)
    absl::StrAppend(&header, absl::StrFormat("%-16s", mode));
  std::cout << header << "\n";
  for (const auto& [label, key] : rows) {
    std::string line = absl::StrFormat("%-34s", label);
    for (const auto& [mode, j] : runs)
      absl::StrAppend(&line, absl::StrFormat("%-16s", cell(j, key)));
    std::cout << line << "\n";
  }
  // Extended resources (GPUs), and per queue when there is more than one.
  auto row = [&runs](const std::string& label, auto cell_of) {
    std::string line = absl::StrFormat("%-34s", label);
    for (const auto& [mode, j] : runs)
      absl::StrAppend(&line, absl::StrFormat("%-16s", cell_of(j)));
    std::cout << line << "\n";
  };
  for (const auto& item : runs.front().second["utilization"].items()) {
    const std::string name = item.key();
    if (name == "cpu" || name == "memory") continue;
    row(name + " utilization, mean", [&name](const nlohmann::ordered_json& j) {
      return absl::StrFormat("%.3f",
                             j["utilization"][name]["mean"].get<double>());
    });
  }
  if (runs.front().second["jobs"].contains("makespanSeconds")) {
    // As the mean: "-" while no job has completed.
    row("job completion time, p95 s", [](const nlohmann::ordered_json& j) {
      if (j["jobs"]["completed"].get<int64_t>() == 0) return std::string("-");
      return absl::StrFormat("%.0f", j["jobs"]["jctP95Seconds"].get<double>());
    });
    row("makespan (last job done) s", [](const nlohmann::ordered_json& j) {
      return absl::StrCat(j["jobs"]["makespanSeconds"].get<int64_t>());
    });
  }
  if (runs.front().second.contains("network")) {
    row("slowdown factor, mean", [](const nlohmann::ordered_json& j) {
      return absl::StrFormat("%.3f",
                             j["network"]["slowdownMean"].get<double>());
    });
    row("jobs in a rack / spine / wider", [](const nlohmann::ordered_json& j) {
      const auto& s = j["network"]["jobsBySpan"];
      return absl::StrFormat("%d / %d / %d", s["rack"].get<int>(),
                             s["spine"].get<int>(), s["cluster"].get<int>());
    });
    row("racks whole at arrival, mean", [](const nlohmann::ordered_json& j) {
      return absl::StrFormat(
          "%.2f / %d", j["network"]["racksWholeAtArrivalMean"].get<double>(),
          j["network"]["racks"].get<int>());
    });
    for (const auto& item :
         runs.front().second["network"]["utilizationToMakespan"].items()) {
      const std::string name = item.key();
      if (name == "cpu" || name == "memory") continue;
      row(name + " held / effective", [&name](const nlohmann::ordered_json& j) {
        const auto& u = j["network"]["utilizationToMakespan"][name];
        return absl::StrFormat("%.3f / %.3f", u["held"].get<double>(),
                               u["effective"].get<double>());
      });
    }
  }
  if (runs.front().second.contains("gpus")) {
    auto fraction = [&row](const std::string& label, const std::string& key) {
      row(label, [&key](const nlohmann::ordered_json& j) {
        const auto& g = j["gpus"][key];
        return absl::StrFormat("%.3f / %.3f", g["mean"].get<double>(),
                               g["p05"].get<double>());
      });
    };
    fraction("GPU memory allocated, mean / p05", "memoryAllocated");
    fraction("GPU memory asked, mean / p05", "memoryAsked");
    fraction("GPUs busy, mean / p05", "busy");
    row("claims on one GPU, most", [](const nlohmann::ordered_json& j) {
      return absl::StrCat(j["gpus"]["mostClaimsOnAGpu"].get<int>());
    });
  }
  // Evictions by reason, when any run evicted.
  std::vector<std::string> reasons;
  for (const auto& [mode, j] : runs) {
    if (!j.contains("evictionsByReason")) continue;
    for (const auto& item : j["evictionsByReason"].items()) {
      if (std::find(reasons.begin(), reasons.end(), item.key()) ==
          reasons.end())
        reasons.push_back(item.key());
    }
  }
  for (const std::string& reason : reasons) {
    row("evictions: " + reason, [&reason](const nlohmann::ordered_json& j) {
      if (!j.contains("evictionsByReason") ||
          !j["evictionsByReason"].contains(reason))
        return std::string("0");
      return absl::StrCat(j["evictionsByReason"][reason].get<int64_t>());
    });
  }
  // Per Job workload, when there are several.
  const auto& workloads = runs.front().second["workloads"];
  for (const auto& item : workloads.items()) {
    if (workloads.size() < 2) break;
    const std::string name = item.key();
    row(name + ": done, wait mean/p95 s",
        [&name](const nlohmann::ordered_json& j) {
          if (!j["workloads"].contains(name)) return std::string("-");
          const auto& w = j["workloads"][name];
          return absl::StrFormat("%d / %.0f / %.0f", w["completed"].get<int>(),
                                 w["waitMeanSeconds"].get<double>(),
                                 w["waitP95Seconds"].get<double>());
        });
    row(name + ": wait median/p90 s", [&name](const nlohmann::ordered_json& j) {
      if (!j["workloads"].contains(name)) return std::string("-");
      const auto& w = j["workloads"][name];
      return absl::StrFormat("%.0f / %.0f",
                             w["waitMedianSeconds"].get<double>(),
                             w["waitP90Seconds"].get<double>());
    });
  }
  const auto& queues = runs.front().second["queues"];
  for (const auto& item : queues.items()) {
    if (queues.size() < 2) break;  // one queue: the rows above say it all
    const std::string name = item.key();
    row(name + " jct mean / p95 s", [&name](const nlohmann::ordered_json& j) {
      const auto& jobs = j["queues"][name]["jobs"];
      return absl::StrFormat("%.0f / %.0f",
                             jobs["jctMeanSeconds"].get<double>(),
                             jobs["jctP95Seconds"].get<double>());
    });
    row(name + " regain mean / max s",
        [&name](const nlohmann::ordered_json& j) {
          const auto& regain = j["queues"][name]["regain"];
          int unmet = regain["unmet"].get<int>();
          return absl::StrFormat(
              "%.0f / %.0f%s", regain["meanSeconds"].get<double>(),
              regain["maxSeconds"].get<double>(),
              unmet > 0 ? absl::StrCat(" (", unmet, " unmet)") : "");
        });
  }
  for (const auto& [mode, j] : runs) {
    std::cout << "summary: " << (fs::path(dir) / mode / "summary.json").string()
              << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Shoal's scheduling loop on a simulated cluster and clock.\n"
      "  shoal-sim --scenario=FILE [--policy=FILE [--label=NAME]] "
      "[--rigid | --compare] [--out=DIR]\n"
      "  shoal-sim --scenario=tools/simulator/scenarios/pollux.yaml "
      "--trace=WORKLOAD.csv [--rigid] [--out=DIR]\n"
      "Writes DIR/<run>/summary.json, time series and plots (docs/"
      "simulator.md).");
  std::vector<std::string> rest =
      shoal::cli::ParseFlags(argc, argv, "shoal-sim");
  if (rest.size() > 1) return Refuse("unexpected argument \"" + rest[1] + "\"");
  if (absl::GetFlag(FLAGS_scenario).empty())
    return Refuse("--scenario=FILE is required");
  if (absl::GetFlag(FLAGS_rigid) && absl::GetFlag(FLAGS_compare)) {
    return Refuse(
        "--rigid and --compare exclude each other (--compare runs both)");
  }
  auto scenario =
      shoal::sim::LoadScenario(Locate(absl::GetFlag(FLAGS_scenario)));
  if (!scenario.ok()) return Refuse(std::string(scenario.status().message()));
  std::string policy_path = absl::GetFlag(FLAGS_policy);
  if (policy_path.empty()) policy_path = scenario->policy;
  if (policy_path.empty())
    return Refuse("no policy: set `policy:` in the scenario or pass --policy");
  auto config = shoal::framework::LoadSchedulerConfig(Locate(policy_path));
  if (!config.ok()) return Refuse(std::string(config.status().message()));

  std::optional<absl::Duration> resize_cost;
  if (const std::string flag = absl::GetFlag(FLAGS_resize_cost);
      !flag.empty()) {
    absl::Duration d;
    if (!absl::ParseDuration(flag, &d) || d < absl::ZeroDuration() ||
        d != absl::Seconds(absl::ToInt64Seconds(d))) {
      return Refuse("--resize-cost=\"" + flag +
                    "\": must be whole seconds >= 0, like 30s or 2m");
    }
    resize_cost = d;
  }
  const std::string label = absl::GetFlag(FLAGS_label);
  if (!label.empty() && absl::GetFlag(FLAGS_compare))
    return Refuse("--label names one run; --compare makes two");
  if (label.find('/') != std::string::npos || label == "." || label == "..")
    return Refuse("--label=\"" + label + "\": must be a plain directory name");
  std::unique_ptr<shoal::sim::Trace> trace;
  if (const std::string path = absl::GetFlag(FLAGS_trace); !path.empty()) {
    auto loaded = shoal::sim::LoadTrace(
        Locate(path), Locate(absl::GetFlag(FLAGS_trace_apps)));
    if (!loaded.ok()) return Refuse(std::string(loaded.status().message()));
    trace = std::move(*loaded);
  }
  auto elastic_most =
      shoal::sim::ParseElasticMost(absl::GetFlag(FLAGS_trace_elastic_most));
  if (!elastic_most.ok())
    return Refuse(std::string(elastic_most.status().message()));
  auto trace_curves =
      shoal::sim::ParseTraceCurves(absl::GetFlag(FLAGS_trace_curves));
  if (!trace_curves.ok())
    return Refuse(std::string(trace_curves.status().message()));
  std::vector<std::string> modes;
  if (absl::GetFlag(FLAGS_compare)) {
    modes = {"elastic", "rigid"};
  } else {
    modes = {absl::GetFlag(FLAGS_rigid) ? "rigid" : "elastic"};
  }
  fs::path out = absl::GetFlag(FLAGS_out);
  if (!fs::path(out).is_absolute()) {
    if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY"))
      out = fs::path(ws) / out;
  }
  std::error_code ec;
  std::vector<std::pair<std::string, nlohmann::ordered_json>> summaries;
  for (const auto& mode : modes) {
    // A fresh policy per run: plugins keep state across cycles.
    auto policy =
        shoal::framework::BuildPolicy(*config, shoal::plugins::BuiltinPlugins(),
                                      shoal::actions::BuiltinActions());
    if (!policy.ok()) return Refuse(std::string(policy.status().message()));
    shoal::sim::Options options;
    options.rigid = mode == "rigid";
    options.ignore_network_constraints =
        absl::GetFlag(FLAGS_ignore_network_constraints);
    options.resize_cost = resize_cost;
    options.no_gpu_sharing = absl::GetFlag(FLAGS_no_gpu_sharing);
    std::string name = label.empty() ? mode : label;
    if (label.empty() && options.no_gpu_sharing && modes.size() == 1)
      name = "no-gpu-sharing";
    ProgressBar bar(
        absl::StrCat("simulating ", scenario->file, " (", name, ")"));
    options.progress = [&bar](double f) { bar.Update(f); };
    shoal::sim::Scenario run = *scenario;
    if (trace)
      shoal::sim::AddTraceJobs(*trace, options.rigid, &run, *elastic_most,
                               *trace_curves);
    shoal::sim::Result result = shoal::sim::Simulate(run, *policy, options);
    fs::path dir = out / name;
    fs::create_directories(dir, ec);
    if (ec)
      return Refuse(
          absl::StrCat(dir.string(), ": cannot create: ", ec.message()));
    std::ofstream(dir / "summary.json") << result.summary.dump(2) << "\n";
    std::ofstream(dir / "timeseries.csv")
        << shoal::sim::SeriesCsv(result.series);
    std::ofstream(dir / "jobs.csv") << shoal::sim::JobsCsv(result.jobs);
    if (trace) {
      std::ofstream(dir / "trace-jobs.csv")
          << shoal::sim::TraceJobsCsv(result.trace_jobs);
    }
    summaries.emplace_back(name, result.summary);
  }
  PrintSummaries(summaries, out.string());
  if (!absl::GetFlag(FLAGS_plot)) return 0;
  // Plots of every mode in the directory, side by side.
  std::string script = "tools/simulator/plot.py";
  for (const std::string& candidate :
       {std::string(argv[0]) + ".runfiles/shoal/tools/simulator/plot.py",
        Locate(script)}) {
    if (fs::exists(candidate)) script = candidate;
  }
  std::string python =
      fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::string command =
      absl::StrFormat("%s '%s' '%s'", python, script, out.string());
  std::cout.flush();
  if (std::system(command.c_str()) != 0) {
    std::cerr << "shoal-sim: warning: plots not drawn (needs python3 with "
                 "matplotlib: "
                 "apt-get install python3-matplotlib); summaries are in "
              << out.string() << "\n";
  }
  return 0;
}
