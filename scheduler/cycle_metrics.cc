#include "scheduler/cycle_metrics.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "scheduler/api/resource_name.h"
#include "scheduler/dra/device_report.h"
#include "scheduler/metrics/scheduler_metrics.h"

namespace shoal {
namespace {

// Volcano's units: cpu in millicores, memory in bytes, the rest by name.
metrics::QueueResources InVolcanoUnits(const api::Resource& r) {
  metrics::QueueResources out;
  for (size_t id = 0; id < r.size(); ++id) {
    const double amount = static_cast<double>(r.Get(id));
    if (id == api::kCpu) {
      out.milli_cpu = amount;
    } else if (id == api::kMemory) {
      out.memory_bytes = amount;
    } else if (id != api::kPods && amount != 0 && amount < api::kUnlimited) {
      out.scalars[std::string(api::ResourceName(id))] = amount;
    }
  }
  return out;
}

// A job that waits for its gang: pods left pending, minimum not met.
bool Unschedulable(const api::JobInfo& job) {
  return job.PendingCount() > 0 && job.ReadyCount() < job.min_member;
}

// `held`: each job's ClusterInfo::Held, worked out once.
void RecordQueues(const api::ClusterInfo& c,
                  const std::vector<api::Resource>& held) {
  std::vector<metrics::QueueSample> samples(c.queues.size());
  for (size_t q = 0; q < c.queues.size(); ++q) {
    const api::QueueInfo& queue = c.queues[q];
    metrics::QueueSample& s = samples[q];
    s.name = queue.name;
    s.weight = queue.weight;
    if (queue.capability) s.capability = InVolcanoUnits(*queue.capability);
    if (queue.standing_known) {
      s.deserved = InVolcanoUnits(queue.deserved_now);
      s.request = InVolcanoUnits(queue.request);
      s.share = queue.share;
      s.overused = queue.overused;
    }
  }
  std::vector<api::Resource> allocated(c.queues.size());
  for (const api::JobInfo& job : c.jobs) {
    if (job.queue_index == api::kNone) continue;
    metrics::QueueSample& s = samples[job.queue_index];
    allocated[job.queue_index] += held[job.index];
    switch (job.phase) {
      case api::PodGroupPhase::kPending:
        ++s.pending;
        break;
      case api::PodGroupPhase::kInqueue:
        ++s.inqueue;
        break;
      case api::PodGroupPhase::kRunning:
        ++s.running;
        break;
      case api::PodGroupPhase::kUnknown:
        ++s.unknown;
        break;
      default:
        break;
    }
    if (job.source == api::GroupSource::kSinglePod) continue;
    if (job.ReadyCount() >= job.min_member) {
      ++s.running_gangs;
    } else if (Unschedulable(job)) {
      ++s.pending_gangs;
    }
  }
  // A parent queue holds what its subtree holds (queue_tree.h).
  std::vector<api::Resource> subtree = allocated;
  for (size_t q = 0; q < c.queues.size(); ++q) {
    for (int32_t at = c.queues[q].parent_index; at != api::kNone;
         at = c.queues[at].parent_index) {
      subtree[at] += allocated[q];
    }
  }
  for (size_t q = 0; q < c.queues.size(); ++q) {
    samples[q].allocated = InVolcanoUnits(subtree[q]);
    if (!c.queues[q].standing_known) continue;
    const api::Resource& deserved = c.queues[q].deserved_now;
    api::Resource borrowed = subtree[q] - deserved;
    borrowed.MaxWith(api::Resource());
    samples[q].borrowed = InVolcanoUnits(borrowed);
    // Only what the deserved share names (a resource it leaves unbounded
    // is nobody's to lend).
    api::Resource lent;
    for (size_t id = 0; id < deserved.size(); ++id) {
      auto rid = static_cast<api::ResourceId>(id);
      if (deserved.Get(rid) >= api::kUnlimited) continue;
      lent.Set(rid,
               std::max<int64_t>(0, deserved.Get(rid) - subtree[q].Get(rid)));
    }
    samples[q].lent = InVolcanoUnits(lent);
  }
  metrics::Shoal().PublishQueues(samples);
}

// How gangs sit in the network: those a hard constraint keeps waiting, and
// the running ones by the narrowest domain holding all their pods.
void RecordNetwork(const api::ClusterInfo& c) {
  metrics::ShoalMetrics& m = metrics::Shoal();
  int waiting = 0;
  std::map<std::pair<std::string, std::string>, int> running;
  const api::NetworkTopology* net = c.network.get();
  for (const api::JobInfo& job : c.jobs) {
    if (job.waiting_on_network && Unschedulable(job)) ++waiting;
    if (net == nullptr || net->empty() ||
        job.source == api::GroupSource::kSinglePod ||
        job.ReadyCount() < std::max(job.min_member, 1)) {
      continue;
    }
    std::vector<api::NodeIndex> nodes;
    for (api::TaskIndex t : job.tasks) {
      const api::TaskInfo& task = c.tasks[t];
      if (api::IsReadyStatus(task.status) && task.node != api::kNone)
        nodes.push_back(task.node);
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    if (nodes.empty()) continue;
    const int32_t d = net->NarrowestHolding(nodes);
    const char* constraint =
        job.network.mode == api::NetworkConstraint::Mode::kHard   ? "hard"
        : job.network.mode == api::NetworkConstraint::Mode::kSoft ? "soft"
                                                                  : "none";
    ++running[{constraint, d == api::kNone
                               ? std::string("cluster")
                               : std::to_string(net->domain(d).tier)}];
  }
  m.network_waiting_jobs.Set(waiting);
  std::vector<std::pair<metrics::LabelValues, double>> samples;
  for (const auto& [labels, n] : running)
    samples.push_back({{labels.first, labels.second}, double(n)});
  m.network_running_jobs.Replace(samples);
}

// The devices as the cycle leaves them: the snapshot's claims, with the
// allocations this cycle wrote and without those it deallocated.
void RecordDevices(const AppliedCycle& cycle) {
  std::vector<metrics::DeviceSample> samples;
  const api::DeviceWorld* world = cycle.cluster.devices.get();
  if (world != nullptr && !world->slices->empty()) {
    static const api::DeviceAllocation kNone;
    absl::flat_hash_map<std::string, const api::DeviceAllocation*> written;
    for (const AppliedCycle::Deallocation& d : cycle.deallocations) {
      if (d.outcome.ok()) written[d.claim] = &kNone;
    }
    for (const AppliedCycle::Bind& b : cycle.binds) {
      if (!b.outcome.ok()) continue;
      for (const api::ClaimWrite& w : b.claims) {
        if (w.newly_allocated) written[w.Key()] = &w.allocation;
      }
    }
    // Base units (bytes) from the report's milli-units.
    auto amount = [](const dra::AmountUse& u) {
      return std::make_pair(static_cast<double>(u.used) / 1000,
                            static_cast<double>(u.total) / 1000);
    };
    for (const auto& [driver, t] : dra::TotalsByDriver(*world, written)) {
      metrics::DeviceSample s;
      s.driver = driver;
      s.devices = t.devices;
      s.allocated = t.allocated;
      s.partitions_allocated = t.partitions_allocated;
      s.shared = t.shared;
      s.shares = t.shares;
      s.binding_waiting = t.binding_waiting;
      s.tainted = t.tainted;
      for (const auto& [name, use] : t.shared_capacity)
        s.shared_capacity[name] = amount(use);
      for (const auto& [name, use] : t.counters) s.counters[name] = amount(use);
      samples.push_back(std::move(s));
    }
  }
  metrics::Shoal().PublishDevices(samples);
}

}  // namespace

void RecordCycleMetrics(const AppliedCycle& cycle, int assumed_pods,
                        absl::Time now) {
  metrics::ShoalMetrics& m = metrics::Shoal();
  const api::ClusterInfo& c = cycle.cluster;
  m.cycles.Inc();
  m.e2e_scheduling_latency.Observe(absl::ToDoubleMilliseconds(cycle.took));

  // Looked up once: tens of thousands of binds may come in one cycle.
  metrics::Counter& bound = m.binds.With({metrics::kSuccess});
  int failed = 0;
  std::vector<bool> placed_jobs(c.jobs.size(), false);
  for (const auto& b : cycle.binds) {
    if (b.reserve_only) continue;  // devices reserved, not bound
    m.bind_latency.Observe(absl::ToDoubleMilliseconds(b.took));
    if (!b.outcome.ok()) {
      ++failed;
      continue;
    }
    bound.Inc();
    const api::TaskInfo& task = c.tasks[b.task];
    placed_jobs[task.job] = true;
    m.task_scheduling_latency.Observe(
        absl::ToDoubleMilliseconds(now - task.pod->created));
  }
  if (failed > 0) m.binds.With({metrics::kFailure}).Inc(failed);
  std::set<std::string> preemptors;
  int victims = 0;
  for (const auto& e : cycle.evictions) {
    if (!e.outcome.ok()) continue;
    m.evictions.With({e.reason}).Inc();
    if (e.reason == metrics::kPreempt) {
      ++victims;
      preemptors.insert(e.preemptor);
    }
  }
  m.preemption_victims.Set(victims);
  m.preemption_attempts.Inc(static_cast<double>(preemptors.size()));

  // Attempts, as Volcano counts them: each job with work this cycle was
  // either placed (its minimum met, something bound now) or left waiting.
  int unschedulable = 0;
  std::vector<std::pair<metrics::LabelValues, double>> waiting_tasks;
  std::vector<std::pair<metrics::LabelValues, double>> targets;
  std::vector<std::pair<metrics::LabelValues, double>> resizes;
  std::vector<std::pair<metrics::LabelValues, double>> shares;
  std::vector<api::Resource> held(c.jobs.size());
  int scheduled = 0;
  for (api::JobIndex j = 0; j < static_cast<api::JobIndex>(c.jobs.size());
       ++j) {
    const api::JobInfo& job = c.jobs[j];
    held[j] = c.Held(job);
    if (Unschedulable(job)) {
      ++unschedulable;
      waiting_tasks.push_back({{job.Key()}, double(job.PendingCount())});
    } else if (placed_jobs[j]) {
      ++scheduled;
    }
    if (job.source != api::GroupSource::kSinglePod) {
      shares.push_back(
          {{job.ns, job.name}, held[j].DominantShare(c.total_allocatable)});
    }
    if (job.elastic() && job.elastic_target > 0)
      targets.push_back({{job.ns, job.name}, double(job.elastic_target)});
    if (job.resizing.count > 0)
      resizes.push_back({{job.ns, job.name}, double(job.resizing.count)});
  }
  if (scheduled > 0)
    m.schedule_attempts.With({metrics::kScheduled}).Inc(scheduled);
  if (unschedulable > 0)
    m.schedule_attempts.With({metrics::kUnschedulable}).Inc(unschedulable);
  m.unschedule_job_count.Set(unschedulable);
  m.unschedule_task_count.Replace(waiting_tasks);
  m.elastic_target.Replace(targets);
  m.job_resizes.Replace(resizes);
  m.job_share.Replace(shares);
  m.assumed_pods.Set(assumed_pods);
  RecordQueues(c, held);
  RecordNetwork(c);
  RecordDevices(cycle);
}

}  // namespace shoal
