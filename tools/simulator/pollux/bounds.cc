// What any scheduler that keeps each job's batch size could reach on
// Pollux's benchmark: a fluid replay of the 8 workloads by the job model
// alone, without Kubernetes, pods or nodes. GPUs are one pool of 64 (16
// nodes x 4) and every allocation is ideally packed (4 per node), so the
// figures are lower bounds of what a real placement gives, for each
// discipline:
//
//   rigid-las       Tiresias: each job at its num_replicas, in LAS order
//                   (2 queues at 16 GPU-hours, FIFO in each), preempting
//                   later jobs whole.
//   elastic-las     every running job 1 GPU first (in LAS order), then the
//                   rest in LAS order, each job up to its num_replicas.
//   elastic-srpt    as elastic-las, ordered by the GPU-time each job
//                   still needs (clairvoyant: no scheduler knows it).
//   srpt            clairvoyant, no minimums: jobs in order of the
//                   GPU-time they still need, each up to its num_replicas,
//                   the others wait.
//
// The same period (60 s), restart cost (30 s per change of allocation,
// the model's) and completion rule as shoal-sim's trace mode.
//
// Usage: bazel run -c opt //tools/simulator/pollux:pollux-bounds --
//          [traces_dir] [workloads, e.g. 1,2,3]   (about 20 s)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "tools/simulator/pollux/application.h"
#include "tools/simulator/pollux/job_model.h"
#include "tools/simulator/pollux/workload.h"

namespace shoal::sim::pollux {
namespace {

constexpr int kGpus = 64;
constexpr double kPeriod = 60;
constexpr double kQueueThreshold = 57600;  // Tiresias: 16 GPU-hours

struct Job {
  WorkloadJob row;
  std::unique_ptr<JobModel> model;
  int gpus = 0;
  bool demoted = false;
  double demoted_at = 0;
};

enum class Discipline { kRigidLas, kElasticLas, kElasticSrpt, kSrpt };

// GPU-seconds the job still needs at its num_replicas, ideally packed
// (what a clairvoyant order knows).
double RemainingGpuSeconds(const Job& job) {
  JobModel copy = *job.model;
  copy.Reallocate(PackedPlacement(job.row.num_replicas));
  double seconds = 0;
  while (!copy.done() && seconds < 1e7) {
    copy.Step(kPeriod);
    seconds += kPeriod;
  }
  return seconds * job.row.num_replicas;
}

// Runs one workload to its end; returns the average JCT in hours and
// restarts per job.
std::pair<double, double> Replay(std::vector<Job>& jobs, Discipline d) {
  double now = 0;
  size_t done = 0;
  while (done < jobs.size() && now < 400 * 3600.0) {
    for (Job& j : jobs) j.model->Step(kPeriod);
    now += kPeriod;
    std::vector<Job*> active;
    for (Job& j : jobs) {
      if (j.model->done() || j.row.time > now) continue;
      if (!j.demoted && j.model->attained_service() >= kQueueThreshold) {
        j.demoted = true;
        j.demoted_at = now;
      }
      active.push_back(&j);
    }
    std::map<const Job*, double> remaining;
    if (d == Discipline::kElasticSrpt || d == Discipline::kSrpt) {
      for (const Job* j : active) remaining[j] = RemainingGpuSeconds(*j);
      std::stable_sort(active.begin(), active.end(),
                       [&](const Job* a, const Job* b) {
                         return remaining[a] < remaining[b];
                       });
    } else {
      std::stable_sort(active.begin(), active.end(),
                       [](const Job* a, const Job* b) {
                         if (a->demoted != b->demoted) return b->demoted;
                         if (a->demoted) return a->demoted_at < b->demoted_at;
                         return a->row.time < b->row.time;
                       });
    }
    std::map<const Job*, int> want;
    int left = kGpus;
    if (d == Discipline::kRigidLas) {
      for (const Job* j : active) {
        if (j->row.num_replicas > left) continue;
        want[j] = j->row.num_replicas;
        left -= j->row.num_replicas;
      }
    } else {
      if (d != Discipline::kSrpt) {
        for (const Job* j : active) {
          if (left == 0) break;
          want[j] = 1;
          --left;
        }
      }
      for (const Job* j : active) {
        int& n = want[j];
        const int more = std::min(j->row.num_replicas - n, left);
        n += more;
        left -= more;
      }
    }
    for (Job* j : active) {
      const int n = want.count(j) != 0 ? want[j] : 0;
      if (n == j->gpus) continue;
      j->gpus = n;
      j->model->Reallocate(n > 0 ? PackedPlacement(n) : std::vector<int>{});
    }
    done = 0;
    for (const Job& j : jobs) done += j.model->done() ? 1 : 0;
  }
  double jct = 0, restarts = 0;
  for (const Job& j : jobs) {
    jct += j.model->done() ? *j.model->completion_time() - j.row.time : 1e9;
    restarts += std::max(j.model->num_restarts(), 0);
  }
  return {jct / jobs.size() / 3600, restarts / jobs.size()};
}

int Main(int argc, char** argv) {
  // Under `bazel run` the data is found from the workspace.
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  const std::string dir =
      argc > 1 ? argv[1]
               : std::string(workspace != nullptr ? workspace : ".") +
                     "/tools/simulator/traces/pollux-osdi21";
  std::vector<int> workloads = {1, 2, 3, 4, 5, 6, 7, 8};
  if (argc > 2) {
    workloads.clear();
    for (absl::string_view w : absl::StrSplit(argv[2], ',')) {
      int n = 0;
      if (!absl::SimpleAtoi(w, &n)) {
        std::fprintf(stderr, "pollux-bounds: workload \"%s\" is no number\n",
                     std::string(w).c_str());
        return 2;
      }
      workloads.push_back(n);
    }
  }
  std::map<std::string, std::unique_ptr<Application>> apps;
  const std::vector<std::pair<std::string, Discipline>> disciplines = {
      {"rigid-las", Discipline::kRigidLas},
      {"elastic-las", Discipline::kElasticLas},
      {"elastic-srpt (clairvoyant)", Discipline::kElasticSrpt},
      {"srpt (clairvoyant)", Discipline::kSrpt}};
  std::printf(
      "Ideal packing, fixed batch sizes; mean over workloads of the average "
      "JCT:\n\n| discipline | avg JCT (h) | restarts/job |\n|---|---|---|\n");
  for (const auto& [name, d] : disciplines) {
    double jct = 0, restarts = 0;
    for (int w : workloads) {
      auto rows = ReadWorkload(dir + "/workloads/workload-" +
                               std::to_string(w) + ".csv");
      if (!rows.ok()) {
        std::fprintf(stderr, "pollux-bounds: %s\n",
                     std::string(rows.status().message()).c_str());
        return 1;
      }
      std::vector<Job> jobs;
      for (const WorkloadJob& row : *rows) {
        auto& app = apps[row.application];
        if (app == nullptr) {
          auto loaded =
              Application::LoadNamed(dir + "/traces", row.application);
          if (!loaded.ok()) {
            std::fprintf(stderr, "pollux-bounds: %s\n",
                         std::string(loaded.status().message()).c_str());
            return 1;
          }
          app = std::make_unique<Application>(std::move(*loaded));
        }
        Job job;
        job.row = row;
        job.model = std::make_unique<JobModel>(app.get(), row.batch_size);
        jobs.push_back(std::move(job));
      }
      auto [j, r] = Replay(jobs, d);
      jct += j;
      restarts += r;
    }
    std::printf("| %s | %.3f | %.2f |\n", name.c_str(), jct / workloads.size(),
                restarts / workloads.size());
  }
  return 0;
}

}  // namespace
}  // namespace shoal::sim::pollux

int main(int argc, char** argv) { return shoal::sim::pollux::Main(argc, argv); }
