// Every metric Shoal exports, declared in one place on the process-wide
// registry (METRICS.md lists them). Where Volcano's scheduler has the same
// metric, the name, labels, unit and buckets are Volcano's with the prefix
// `shoal_` instead of `volcano_`, so a Volcano dashboard ports by renaming
// the prefix.
//
// Units: scheduler-side latencies are milliseconds histograms
// (`*_milliseconds`, as Volcano's); Kubernetes API request latency is in
// seconds (`*_seconds`, as client-go's rest_client metrics).
//
//   metrics::Shoal().binds.With({metrics::kSuccess}).Inc();
//   { metrics::ScopedTimer t(metrics::Shoal().e2e_scheduling_latency); ... }
//   { metrics::ScopedTimer t(metrics::Shoal().ActionLatency("allocate")); }
#ifndef SHOAL_SCHEDULER_METRICS_SCHEDULER_METRICS_H_
#define SHOAL_SCHEDULER_METRICS_SCHEDULER_METRICS_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/metrics/metrics.h"

namespace shoal::metrics {

// Label values used by Shoal's code.
inline constexpr char kSuccess[] = "success";  // binds
inline constexpr char kFailure[] = "failure";  // binds
// schedule_attempts_total{result}, as kube-scheduler and Volcano say.
inline constexpr char kScheduled[] = "scheduled";
inline constexpr char kUnschedulable[] = "unschedulable";
inline constexpr char kError[] = "error";
// plugin_scheduling_latency_milliseconds{OnSession}
inline constexpr char kOnSessionOpen[] = "OnSessionOpen";
inline constexpr char kOnSessionClose[] = "OnSessionClose";
// evictions_total{reason}
inline constexpr char kPreempt[] = "preempt";
inline constexpr char kReclaim[] = "reclaim";
inline constexpr char kElastic[] = "elastic";
inline constexpr char kGangIncomplete[] = "gang-incomplete";
// api_request_duration_seconds{code} for a transport failure (no answer).
inline constexpr char kTransportError[] = "error";

// Resource amounts of one queue, in Volcano's units: cpu in millicores,
// memory in bytes, every other resource (e.g. nvidia.com/gpu) by name.
struct QueueResources {
  double milli_cpu = 0;
  double memory_bytes = 0;
  std::map<std::string, double> scalars;
};

// Everything exported per queue, for one cycle.
struct QueueSample {
  std::string name;
  QueueResources allocated, request, deserved, capability;
  // What it holds beyond its deserved share, resource by resource: room
  // borrowed from queues that could not use it (reclaim takes it back).
  QueueResources borrowed;
  // What it deserves and does not hold, in the resources its deserved
  // share names: room others may borrow now.
  QueueResources lent;
  double share = 0;
  double weight = 0;
  bool overused = false;
  // PodGroups by phase.
  int pending = 0, inqueue = 0, running = 0, unknown = 0;
  // Gangs waiting for their minMember to be placed, and gangs running
  // with at least their minMember.
  int pending_gangs = 0, running_gangs = 0;
};

// Everything exported per device driver (DRA), for one cycle. Amounts
// of capacities and counters are in their own units (bytes for memory),
// as (consumed, total).
struct DeviceSample {
  std::string driver;
  int devices = 0;
  int allocated = 0;  // held whole by a claim, partitions included
  int partitions_allocated = 0;
  int shared = 0;  // held by one share or more
  int shares = 0;
  int binding_waiting = 0;
  std::map<std::string, int> tainted;  // devices by taint effect
  std::map<std::string, std::pair<double, double>> shared_capacity;
  std::map<std::string, std::pair<double, double>> counters;
};

class ShoalMetrics {
 public:
  explicit ShoalMetrics(Registry& registry);
  ShoalMetrics(const ShoalMetrics&) = delete;
  ShoalMetrics& operator=(const ShoalMetrics&) = delete;

  // --- The scheduling cycle ---
  Histogram& e2e_scheduling_latency;     // ms, one per cycle
  Family<Histogram>& action_latency;     // ms {action}
  Family<Histogram>& plugin_latency;     // ms {plugin, OnSession}
  Histogram& task_scheduling_latency;    // ms, pod created -> bound
  Counter& cycles;                       // cycles run
  Family<Counter>& schedule_attempts;    // {result}
  Gauge& preemption_victims;             // victims chosen, last cycle
  Counter& preemption_attempts;          // preemptions tried
  Gauge& unschedule_job_count;           // jobs left unschedulable
  Family<Gauge>& unschedule_task_count;  // {job_id}
  // --- Network topology ---
  Gauge& network_waiting_jobs;          // hard gangs no domain could take
  Family<Gauge>& network_running_jobs;  // {constraint, tier}
  // --- Queues (set all at once with PublishQueues) ---
  Family<Gauge>& queue_allocated_milli_cpu;
  Family<Gauge>& queue_allocated_memory_bytes;
  Family<Gauge>& queue_allocated_scalar_resources;  // {queue_name, resource}
  Family<Gauge>& queue_request_milli_cpu;
  Family<Gauge>& queue_request_memory_bytes;
  Family<Gauge>& queue_request_scalar_resources;
  Family<Gauge>& queue_deserved_milli_cpu;
  Family<Gauge>& queue_deserved_memory_bytes;
  Family<Gauge>& queue_deserved_scalar_resources;
  Family<Gauge>& queue_borrowed_milli_cpu;
  Family<Gauge>& queue_borrowed_memory_bytes;
  Family<Gauge>& queue_borrowed_scalar_resources;
  Family<Gauge>& queue_lent_milli_cpu;
  Family<Gauge>& queue_lent_memory_bytes;
  Family<Gauge>& queue_lent_scalar_resources;
  Family<Gauge>& queue_capacity_milli_cpu;
  Family<Gauge>& queue_capacity_memory_bytes;
  Family<Gauge>& queue_capacity_scalar_resources;
  Family<Gauge>& queue_share;
  Family<Gauge>& queue_weight;
  Family<Gauge>& queue_overused;
  Family<Gauge>& queue_pod_group_pending_count;
  Family<Gauge>& queue_pod_group_inqueue_count;
  Family<Gauge>& queue_pod_group_running_count;
  Family<Gauge>& queue_pod_group_unknown_count;
  Family<Gauge>& queue_pending_gangs;
  Family<Gauge>& queue_running_gangs;
  // --- Devices (set all at once with PublishDevices) ---
  Family<Gauge>& device_count;                      // {driver}
  Family<Gauge>& device_allocated_count;            // {driver}
  Family<Gauge>& device_partition_allocated_count;  // {driver}
  Family<Gauge>& device_shared_count;               // {driver}
  Family<Gauge>& device_share_count;                // {driver}
  Family<Gauge>& device_tainted_count;              // {driver, effect}
  Family<Gauge>& device_binding_waiting_count;      // {driver}
  Family<Gauge>& device_shared_capacity_consumed;   // {driver, capacity}
  Family<Gauge>& device_shared_capacity;            // {driver, capacity}
  Family<Gauge>& device_counter_consumed;           // {driver, counter}
  Family<Gauge>& device_counter_capacity;           // {driver, counter}
  // --- Jobs ---
  Family<Gauge>& job_share;       // {job_ns, job_id}
  Family<Gauge>& elastic_target;  // {job_ns, job_name}
  Family<Gauge>& job_resizes;     // {job_ns, job_name}
  // --- Binds and evictions ---
  Family<Counter>& binds;      // {result}: success, failure
  Histogram& bind_latency;     // ms, one per bind request
  Family<Counter>& evictions;  // {reason}
  Gauge& assumed_pods;         // bound, not yet seen by the watch
  // --- Kubernetes client ---
  Family<Histogram>& api_request_duration;   // s {verb, code}
  Family<Counter>& informer_relists;         // {kind}
  Family<Counter>& informer_watch_restarts;  // {kind}
  Family<Counter>& informer_list_expired;    // {kind}
  // Fields Shoal honours that an installed CRD prunes (kube/crd_check.h).
  Family<Gauge>& crd_pruned_fields;  // {crd}
  // --- Events ---
  Family<Counter>& events_dropped;     // {reason}: queue_full, api_error,
                                       // shutdown
  Family<Counter>& events_aggregated;  // {kind}: repeat, similar_messages,
                                       // across_objects

  // Shorthands for the per-label histograms (each takes the family lock;
  // keep the reference for a fixed label).
  Histogram& ActionLatency(const std::string& action) {
    return action_latency.With({action});
  }
  Histogram& PluginLatency(const std::string& plugin,
                           const std::string& on_session) {
    return plugin_latency.With({plugin, on_session});
  }

  // Replaces every per-queue gauge with these queues' values: a queue not
  // listed (deleted) is no longer exported, nor is a scalar resource a
  // queue no longer has.
  void PublishQueues(const std::vector<QueueSample>& queues);
  // Likewise every per-driver device gauge: a driver no longer
  // publishing devices is no longer exported.
  void PublishDevices(const std::vector<DeviceSample>& drivers);
};

// Shoal's metrics on DefaultRegistry(), created at first use.
ShoalMetrics& Shoal();

}  // namespace shoal::metrics

#endif  // SHOAL_SCHEDULER_METRICS_SCHEDULER_METRICS_H_
