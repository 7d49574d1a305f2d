#include "scheduler/replay.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/util/json_util.h"
#include "scheduler/cache/binder.h"
#include "scheduler/framework/cycle.h"

namespace shoal {
namespace {

// The replay's "API server": a bind always succeeds and the pod is on
// its node from the next cycle on; an evicted pod is gone.
class InMemoryCluster : public cache::Binder, public cache::Evictor {
 public:
  explicit InMemoryCluster(cache::Cache& cache) : cache_(cache) {}
  absl::Status Bind(const api::PodInfo& pod, const std::string& node) override {
    cache_.AssumeBound(pod.Key(), node);
    return absl::OkStatus();
  }
  absl::Status Evict(const api::PodInfo& pod, const std::string&,
                     const std::string&) override {
    cache_.DeletePod(pod.Key());
    return absl::OkStatus();
  }

 private:
  cache::Cache& cache_;
};

}  // namespace

v1::ReplayReport Replay(cache::Cache& cache, framework::Policy& policy,
                        int cycles, absl::Duration period, absl::Time* clock) {
  InMemoryCluster cluster(cache);
  v1::ReplayReport report;
  *clock = cache.LatestCreation();
  for (int c = 0; c < cycles; ++c, *clock += period) {
    framework::CycleOutcome out = framework::RunCycle(cache.Snapshot(), policy);
    v1::CycleReport* cycle = report.add_cycles();
    for (const auto& b : out.binds) {
      const api::PodInfo& pod = *out.cluster.tasks[b.task].pod;
      const std::string& node = out.cluster.nodes[b.node].name();
      (void)cluster.Bind(pod, node);
      v1::Bind* bind = cycle->add_binds();
      bind->set_pod(pod.Key());
      bind->set_node(node);
    }
    for (const auto& e : out.evictions) {
      const api::PodInfo& pod = *out.cluster.tasks[e.task].pod;
      (void)cluster.Evict(pod, e.reason, e.preemptor);
      v1::Eviction* ev = cycle->add_evictions();
      ev->set_pod(pod.Key());
      ev->set_reason(e.reason);
    }
    for (const auto& job : out.cluster.jobs) {
      cache.SetPodGroupPhase(job.Key(), job.phase);  // the status write
      // A lone pod is listed only while it waits (pending or pipelined).
      if (job.source == api::GroupSource::kSinglePod &&
          job.PendingCount() == 0 &&
          job.Count(api::TaskStatus::kPipelined) == 0) {
        continue;
      }
      v1::PodGroupStatus* pg = cycle->add_pod_groups();
      pg->set_name(job.Key());
      pg->set_phase(api::PodGroupPhaseName(job.phase));
      pg->set_scheduled(job.ScheduledCount());
      pg->set_min_member(job.min_member);
      pg->set_message(job.message);
    }
  }
  return report;
}

std::string ReportJson(const v1::ReplayReport& report) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  std::string out;
  (void)google::protobuf::util::MessageToJsonString(report, &out, options);
  return out;
}

namespace {

// Left-aligned columns, three spaces apart, like kubectl get.
std::string Table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i)
      width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size())
        line += std::string(width[i] - row[i].size() + 3, ' ');
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string ReportText(const v1::ReplayReport& report) {
  std::string out;
  for (int c = 0; c < report.cycles_size(); ++c) {
    const v1::CycleReport& cycle = report.cycles(c);
    absl::StrAppend(&out, "Cycle ", c + 1, ": ", cycle.binds_size(), " bound, ",
                    cycle.evictions_size(), " evicted\n\n");
    if (cycle.binds_size() > 0) {
      std::vector<std::vector<std::string>> rows = {{"POD", "NODE"}};
      for (const auto& b : cycle.binds()) rows.push_back({b.pod(), b.node()});
      out += Table(rows) + "\n";
    }
    if (cycle.evictions_size() > 0) {
      std::vector<std::vector<std::string>> rows = {{"EVICTED POD", "REASON"}};
      for (const auto& e : cycle.evictions())
        rows.push_back({e.pod(), e.reason()});
      out += Table(rows) + "\n";
    }
    if (cycle.pod_groups_size() > 0) {
      std::vector<std::vector<std::string>> rows = {
          {"PODGROUP", "PHASE", "SCHEDULED", "MINMEMBER", "MESSAGE"}};
      for (const auto& pg : cycle.pod_groups()) {
        rows.push_back({pg.name(), pg.phase(), absl::StrCat(pg.scheduled()),
                        absl::StrCat(pg.min_member()),
                        pg.message().empty() ? "-" : pg.message()});
      }
      out += Table(rows) + "\n";
    }
  }
  return out;
}

}  // namespace shoal
