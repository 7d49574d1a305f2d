#include "scheduler/metrics/scheduler_metrics.h"

#include <utility>

namespace shoal::metrics {
namespace {

// Volcano's buckets for its scheduler latencies: 5 ms .. 81.92 s.
std::vector<double> VolcanoLatencyBuckets() {
  return ExponentialBuckets(5, 2, 15);
}

// client-go's rest_client_request_duration_seconds buckets.
std::vector<double> ApiBuckets() {
  return {0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60};
}

}  // namespace

ShoalMetrics::ShoalMetrics(Registry& r)
    : e2e_scheduling_latency(r.AddHistogram(
          "shoal_e2e_scheduling_latency_milliseconds",
          "E2e scheduling latency in milliseconds (one scheduling cycle: "
          "snapshot, actions, plugins and waiting for its binds)",
          VolcanoLatencyBuckets())),
      action_latency(
          r.AddHistogramFamily("shoal_action_scheduling_latency_milliseconds",
                               "Action scheduling latency in milliseconds",
                               {"action"}, VolcanoLatencyBuckets())),
      plugin_latency(r.AddHistogramFamily(
          "shoal_plugin_scheduling_latency_milliseconds",
          "Plugin scheduling latency in milliseconds", {"plugin", "OnSession"},
          VolcanoLatencyBuckets())),
      task_scheduling_latency(r.AddHistogram(
          "shoal_task_scheduling_latency_milliseconds",
          "Task scheduling latency in milliseconds (pod created to bound)",
          VolcanoLatencyBuckets())),
      cycles(r.AddCounter("shoal_scheduling_cycles_total",
                          "Scheduling cycles run")),
      schedule_attempts(r.AddCounterFamily(
          "shoal_schedule_attempts_total",
          "Number of attempts to schedule pods, by result: 'scheduled', "
          "'unschedulable' (no room or not allowed), 'error' (an internal "
          "problem)",
          {"result"})),
      preemption_victims(r.AddGauge("shoal_pod_preemption_victims",
                                    "Number of selected preemption victims")),
      preemption_attempts(
          r.AddCounter("shoal_total_preemption_attempts",
                       "Total preemption attempts in the cluster till now")),
      unschedule_job_count(r.AddGauge("shoal_unschedule_job_count",
                                      "Number of jobs could not be scheduled")),
      unschedule_task_count(r.AddGaugeFamily(
          "shoal_unschedule_task_count",
          "Number of tasks could not be scheduled, by job", {"job_id"})),
      network_waiting_jobs(r.AddGauge(
          "shoal_network_topology_waiting_jobs",
          "Gangs with a hard network constraint left waiting by the last "
          "cycle because no domain within their limit could take them")),
      network_running_jobs(r.AddGaugeFamily(
          "shoal_network_topology_running_jobs",
          "Gangs running at least their minimum, by their network constraint "
          "(hard, soft, none) and the tier of the narrowest domain holding "
          "all their pods ('cluster' when no domain does)",
          {"constraint", "tier"})),
      queue_allocated_milli_cpu(r.AddGaugeFamily(
          "shoal_queue_allocated_milli_cpu",
          "Allocated CPU count for one queue, in millicores", {"queue_name"})),
      queue_allocated_memory_bytes(r.AddGaugeFamily(
          "shoal_queue_allocated_memory_bytes",
          "Allocated memory for one queue, in bytes", {"queue_name"})),
      queue_allocated_scalar_resources(r.AddGaugeFamily(
          "shoal_queue_allocated_scalar_resources",
          "Allocated scalar resources (e.g. nvidia.com/gpu) for one queue",
          {"queue_name", "resource"})),
      queue_request_milli_cpu(r.AddGaugeFamily(
          "shoal_queue_request_milli_cpu",
          "Requested CPU count for one queue, in millicores", {"queue_name"})),
      queue_request_memory_bytes(r.AddGaugeFamily(
          "shoal_queue_request_memory_bytes",
          "Requested memory for one queue, in bytes", {"queue_name"})),
      queue_request_scalar_resources(
          r.AddGaugeFamily("shoal_queue_request_scalar_resources",
                           "Requested scalar resources for one queue",
                           {"queue_name", "resource"})),
      queue_deserved_milli_cpu(r.AddGaugeFamily(
          "shoal_queue_deserved_milli_cpu",
          "Deserved CPU count for one queue, in millicores", {"queue_name"})),
      queue_deserved_memory_bytes(r.AddGaugeFamily(
          "shoal_queue_deserved_memory_bytes",
          "Deserved memory for one queue, in bytes", {"queue_name"})),
      queue_deserved_scalar_resources(
          r.AddGaugeFamily("shoal_queue_deserved_scalar_resources",
                           "Deserved scalar resources for one queue",
                           {"queue_name", "resource"})),
      queue_borrowed_milli_cpu(r.AddGaugeFamily(
          "shoal_queue_borrowed_milli_cpu",
          "CPU one queue holds beyond its deserved share (borrowed from "
          "queues that could not use it), in millicores",
          {"queue_name"})),
      queue_borrowed_memory_bytes(r.AddGaugeFamily(
          "shoal_queue_borrowed_memory_bytes",
          "Memory one queue holds beyond its deserved share, in bytes",
          {"queue_name"})),
      queue_borrowed_scalar_resources(r.AddGaugeFamily(
          "shoal_queue_borrowed_scalar_resources",
          "Scalar resources one queue holds beyond its deserved share",
          {"queue_name", "resource"})),
      queue_lent_milli_cpu(r.AddGaugeFamily(
          "shoal_queue_lent_milli_cpu",
          "CPU one queue deserves and does not hold (room others may "
          "borrow), in millicores",
          {"queue_name"})),
      queue_lent_memory_bytes(r.AddGaugeFamily(
          "shoal_queue_lent_memory_bytes",
          "Memory one queue deserves and does not hold, in bytes",
          {"queue_name"})),
      queue_lent_scalar_resources(r.AddGaugeFamily(
          "shoal_queue_lent_scalar_resources",
          "Scalar resources one queue deserves and does not hold",
          {"queue_name", "resource"})),
      queue_capacity_milli_cpu(r.AddGaugeFamily(
          "shoal_queue_capacity_milli_cpu",
          "Capacity (spec.capability) CPU count for one queue, in millicores",
          {"queue_name"})),
      queue_capacity_memory_bytes(r.AddGaugeFamily(
          "shoal_queue_capacity_memory_bytes",
          "Capacity (spec.capability) memory for one queue, in bytes",
          {"queue_name"})),
      queue_capacity_scalar_resources(r.AddGaugeFamily(
          "shoal_queue_capacity_scalar_resources",
          "Capacity (spec.capability) scalar resources for one queue",
          {"queue_name", "resource"})),
      queue_share(r.AddGaugeFamily("shoal_queue_share", "Share for one queue",
                                   {"queue_name"})),
      queue_weight(r.AddGaugeFamily("shoal_queue_weight",
                                    "Weight for one queue", {"queue_name"})),
      queue_overused(r.AddGaugeFamily("shoal_queue_overused",
                                      "If one queue is overused (1) or not (0)",
                                      {"queue_name"})),
      queue_pod_group_pending_count(r.AddGaugeFamily(
          "shoal_queue_pod_group_pending_count",
          "The number of Pending PodGroups in this queue", {"queue_name"})),
      queue_pod_group_inqueue_count(r.AddGaugeFamily(
          "shoal_queue_pod_group_inqueue_count",
          "The number of Inqueue PodGroups in this queue", {"queue_name"})),
      queue_pod_group_running_count(r.AddGaugeFamily(
          "shoal_queue_pod_group_running_count",
          "The number of Running PodGroups in this queue", {"queue_name"})),
      queue_pod_group_unknown_count(r.AddGaugeFamily(
          "shoal_queue_pod_group_unknown_count",
          "The number of Unknown PodGroups in this queue", {"queue_name"})),
      queue_pending_gangs(r.AddGaugeFamily(
          "shoal_queue_pending_gangs",
          "Gangs in this queue waiting for their minMember to be placed",
          {"queue_name"})),
      queue_running_gangs(r.AddGaugeFamily(
          "shoal_queue_running_gangs",
          "Gangs in this queue running with at least their minMember",
          {"queue_name"})),
      device_count(r.AddGaugeFamily(
          "shoal_device_count",
          "Devices the newest generation of each ResourceSlice pool "
          "publishes, by driver",
          {"driver"})),
      device_allocated_count(r.AddGaugeFamily(
          "shoal_device_allocated_count",
          "Devices a claim holds whole (partitions included), by driver",
          {"driver"})),
      device_partition_allocated_count(r.AddGaugeFamily(
          "shoal_device_partition_allocated_count",
          "Partitions (devices spending shared counters) a claim holds, by "
          "driver",
          {"driver"})),
      device_shared_count(r.AddGaugeFamily(
          "shoal_device_shared_count",
          "Devices shared by claims (consumable capacity), by driver",
          {"driver"})),
      device_share_count(r.AddGaugeFamily(
          "shoal_device_share_count",
          "Shares claims hold of shared devices, by driver", {"driver"})),
      device_tainted_count(r.AddGaugeFamily(
          "shoal_device_tainted_count",
          "Devices with a taint (from their slice or a DeviceTaintRule), by "
          "driver and effect: NoSchedule, NoExecute, None",
          {"driver", "effect"})),
      device_binding_waiting_count(r.AddGaugeFamily(
          "shoal_device_binding_waiting_count",
          "Allocated devices that have not yet reported their binding "
          "conditions, by driver",
          {"driver"})),
      device_shared_capacity_consumed(r.AddGaugeFamily(
          "shoal_device_shared_capacity_consumed",
          "What the shares of shared devices consume of a capacity (bytes "
          "for memory), by driver and capacity",
          {"driver", "capacity"})),
      device_shared_capacity(r.AddGaugeFamily(
          "shoal_device_shared_capacity",
          "The capacity of the devices that allow multiple allocations, by "
          "driver and capacity",
          {"driver", "capacity"})),
      device_counter_consumed(r.AddGaugeFamily(
          "shoal_device_counter_consumed",
          "What allocated partitions spend of their pools' shared counters, "
          "by driver and counter",
          {"driver", "counter"})),
      device_counter_capacity(r.AddGaugeFamily(
          "shoal_device_counter_capacity",
          "The pools' shared counters (counter sets summed), by driver and "
          "counter",
          {"driver", "counter"})),
      job_share(r.AddGaugeFamily("shoal_job_share",
                                 "Share (dominant resource) for one job",
                                 {"job_ns", "job_id"})),
      elastic_target(r.AddGaugeFamily(
          "shoal_job_elastic_target",
          "Pods an elastic job would run now (its PodGroup's elasticTarget)",
          {"job_ns", "job_name"})),
      job_resizes(r.AddGaugeFamily(
          "shoal_job_resizes",
          "Changes of a running job's pod count since the scheduler started "
          "(each costs it a restart when its resize cost is above 0)",
          {"job_ns", "job_name"})),
      binds(r.AddCounterFamily("shoal_binds_total",
                               "Pod bindings sent to the API server, by "
                               "result: 'success' or 'failure'",
                               {"result"})),
      bind_latency(
          r.AddHistogram("shoal_bind_latency_milliseconds",
                         "Latency of one pod binding request in milliseconds",
                         ExponentialBuckets(1, 2, 15))),
      evictions(r.AddCounterFamily(
          "shoal_evictions_total",
          "Pods evicted, by reason: preempt, reclaim, elastic, consolidate "
          "(moved to make room), gang-incomplete",
          {"reason"})),
      assumed_pods(r.AddGauge(
          "shoal_assumed_pods",
          "Pods bound by Shoal that the watch has not yet shown bound")),
      api_request_duration(r.AddHistogramFamily(
          "shoal_api_request_duration_seconds",
          "Kubernetes API request latency in seconds, by verb (HTTP method, "
          "WATCH for a watch stream) and code (HTTP status, 'error' when no "
          "answer came)",
          {"verb", "code"}, ApiBuckets())),
      informer_relists(r.AddCounterFamily(
          "shoal_informer_relists_total",
          "Full LISTs of a kind: the first, and each after a watch lost its "
          "resourceVersion (410 Gone) or a list failed",
          {"kind"})),
      informer_watch_restarts(r.AddCounterFamily(
          "shoal_informer_watch_restarts_total",
          "Watch connections of a kind that ended in an error and were "
          "reopened",
          {"kind"})),
      informer_list_expired(r.AddCounterFamily(
          "shoal_informer_list_expired_total",
          "Paged LISTs of a kind restarted from the first page because the "
          "API server had compacted their continue token (410 Expired)",
          {"kind"})),
      crd_pruned_fields(r.AddGaugeFamily(
          "shoal_crd_pruned_fields",
          "Fields Shoal honours that an installed CustomResourceDefinition's "
          "schema drops before Shoal reads them (0: it keeps them all)",
          {"crd"})),
      events_dropped(r.AddCounterFamily(
          "shoal_events_dropped_total",
          "Event occurrences never delivered to the API server, by reason: "
          "queue_full, api_error, shutdown",
          {"reason"})),
      events_aggregated(r.AddCounterFamily(
          "shoal_events_aggregated_total",
          "Event occurrences folded into another Event instead of written "
          "as one of their own, by kind: repeat (count of the same Event), "
          "similar_messages (client-go's combined event), across_objects",
          {"kind"})) {}

namespace {

using Values = std::vector<std::pair<LabelValues, double>>;

struct ResourceValues {
  Values milli_cpu, memory, scalars;
  void Add(const std::string& queue, const QueueResources& r) {
    milli_cpu.push_back({{queue}, r.milli_cpu});
    memory.push_back({{queue}, r.memory_bytes});
    for (const auto& [name, v] : r.scalars)
      scalars.push_back({{queue, name}, v});
  }
  void Publish(Family<Gauge>& cpu, Family<Gauge>& mem, Family<Gauge>& sc) {
    cpu.Replace(milli_cpu);
    mem.Replace(memory);
    sc.Replace(scalars);
  }
};

}  // namespace

void ShoalMetrics::PublishQueues(const std::vector<QueueSample>& queues) {
  ResourceValues allocated, request, deserved, borrowed, lent, capability;
  Values share, weight, overused, pending, inqueue, running, unknown,
      pending_gangs, running_gangs;
  for (const QueueSample& q : queues) {
    allocated.Add(q.name, q.allocated);
    request.Add(q.name, q.request);
    deserved.Add(q.name, q.deserved);
    borrowed.Add(q.name, q.borrowed);
    lent.Add(q.name, q.lent);
    capability.Add(q.name, q.capability);
    share.push_back({{q.name}, q.share});
    weight.push_back({{q.name}, q.weight});
    overused.push_back({{q.name}, q.overused ? 1.0 : 0.0});
    pending.push_back({{q.name}, double(q.pending)});
    inqueue.push_back({{q.name}, double(q.inqueue)});
    running.push_back({{q.name}, double(q.running)});
    unknown.push_back({{q.name}, double(q.unknown)});
    pending_gangs.push_back({{q.name}, double(q.pending_gangs)});
    running_gangs.push_back({{q.name}, double(q.running_gangs)});
  }
  allocated.Publish(queue_allocated_milli_cpu, queue_allocated_memory_bytes,
                    queue_allocated_scalar_resources);
  request.Publish(queue_request_milli_cpu, queue_request_memory_bytes,
                  queue_request_scalar_resources);
  deserved.Publish(queue_deserved_milli_cpu, queue_deserved_memory_bytes,
                   queue_deserved_scalar_resources);
  borrowed.Publish(queue_borrowed_milli_cpu, queue_borrowed_memory_bytes,
                   queue_borrowed_scalar_resources);
  lent.Publish(queue_lent_milli_cpu, queue_lent_memory_bytes,
               queue_lent_scalar_resources);
  capability.Publish(queue_capacity_milli_cpu, queue_capacity_memory_bytes,
                     queue_capacity_scalar_resources);
  queue_share.Replace(share);
  queue_weight.Replace(weight);
  queue_overused.Replace(overused);
  queue_pod_group_pending_count.Replace(pending);
  queue_pod_group_inqueue_count.Replace(inqueue);
  queue_pod_group_running_count.Replace(running);
  queue_pod_group_unknown_count.Replace(unknown);
  queue_pending_gangs.Replace(pending_gangs);
  queue_running_gangs.Replace(running_gangs);
}

void ShoalMetrics::PublishDevices(const std::vector<DeviceSample>& drivers) {
  Values count, allocated, partitions, shared, shares, waiting, tainted,
      consumed, capacity, counter_used, counter_total;
  for (const DeviceSample& d : drivers) {
    count.push_back({{d.driver}, double(d.devices)});
    allocated.push_back({{d.driver}, double(d.allocated)});
    partitions.push_back({{d.driver}, double(d.partitions_allocated)});
    shared.push_back({{d.driver}, double(d.shared)});
    shares.push_back({{d.driver}, double(d.shares)});
    waiting.push_back({{d.driver}, double(d.binding_waiting)});
    for (const auto& [effect, n] : d.tainted)
      tainted.push_back({{d.driver, effect}, double(n)});
    for (const auto& [name, use] : d.shared_capacity) {
      consumed.push_back({{d.driver, name}, use.first});
      capacity.push_back({{d.driver, name}, use.second});
    }
    for (const auto& [name, use] : d.counters) {
      counter_used.push_back({{d.driver, name}, use.first});
      counter_total.push_back({{d.driver, name}, use.second});
    }
  }
  device_count.Replace(count);
  device_allocated_count.Replace(allocated);
  device_partition_allocated_count.Replace(partitions);
  device_shared_count.Replace(shared);
  device_share_count.Replace(shares);
  device_binding_waiting_count.Replace(waiting);
  device_tainted_count.Replace(tainted);
  device_shared_capacity_consumed.Replace(consumed);
  device_shared_capacity.Replace(capacity);
  device_counter_consumed.Replace(counter_used);
  device_counter_capacity.Replace(counter_total);
}

ShoalMetrics& Shoal() {
  static ShoalMetrics* metrics = new ShoalMetrics(DefaultRegistry());
  return *metrics;
}

}  // namespace shoal::metrics
