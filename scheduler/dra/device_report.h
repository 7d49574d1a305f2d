// What the cluster's devices are doing, read off one snapshot's DRA world
// for people (shoalctl devices) and Prometheus (cycle_metrics.cc): per
// pool of the newest generation, each device allocated whole (a partition
// among them), shared by claims with what they consume of its capacity,
// tainted (by its slice or a DeviceTaintRule), kept by spent counters, or
// waiting for its binding conditions, and what the allocated partitions
// spend of each counter set. It counts as the ledger does (dra/ledger.h):
// every claim's status.allocation holds its devices, a result with a
// shareID is a share of what its consumedCapacity says, one without holds
// the device whole, admin access holds nothing, and a device spends its
// counters once however many share it. Read-only; nothing here decides.
#ifndef SHOAL_SCHEDULER_DRA_DEVICE_REPORT_H_
#define SHOAL_SCHEDULER_DRA_DEVICE_REPORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "scheduler/api/devices.h"

namespace shoal::dra {

// An amount used of a total, in milli-units (as dra/capacity.h counts).
struct AmountUse {
  std::string name;
  int64_t used = 0;
  int64_t total = 0;
};

struct TaintView {
  api::DeviceTaint taint;
  std::string rule;  // the DeviceTaintRule's name; "" for the slice's own
  // "gpu.example.com/unhealthy=true:NoSchedule"
  std::string Text() const;
};

struct DeviceView {
  std::string name;
  // Spends counters of its pool while allocated (a partition).
  bool partition = false;
  std::vector<std::string> counter_sets;  // the sets it spends from
  // allowMultipleAllocations.
  bool shareable = false;
  // Claims (namespace/name) holding it whole, and one entry per share.
  std::vector<std::string> holders;
  std::vector<std::string> sharers;
  // Claims given it with admin access (they hold nothing).
  std::vector<std::string> admin_access;
  // A shareable device: what its shares consume of each capacity.
  std::vector<AmountUse> capacity;
  std::vector<TaintView> taints;
  // Free, but a counter it spends has too little left (others'
  // partitions spent it).
  bool counters_spent = false;
  // Allocated with binding conditions: those not yet reported
  // ("dra.example.com/attached"), and the failure condition it reports.
  std::vector<std::string> binding_waits;
  std::string binding_failure;

  bool Held() const { return !holders.empty() || !sharers.empty(); }
  // A taint that keeps away requests not tolerating it (NoSchedule,
  // NoExecute), not only informs (None).
  bool Tainted() const;
  // "shared", "allocated", "counters spent", "tainted" or "free".
  std::string State() const;
};

struct CounterSetView {
  std::string name;
  std::vector<AmountUse> counters;
};

// The devices of one pool's newest generation that one node holds (its
// slices' spec.nodeName, or the devices' with perDeviceNodeSelection), or
// that are network-attached (`node` "").
struct PoolView {
  std::string node;
  std::string driver;
  std::string pool;
  int64_t generation = 0;
  // "node n1", "all nodes", "nodes its selector picks", "per device".
  std::string reach;
  // Fewer slices than spec.pool.resourceSliceCount: not allocated from.
  bool incomplete = false;
  std::vector<DeviceView> devices;
  std::vector<CounterSetView> counter_sets;
};

struct DeviceReport {
  // By node ("" last), driver, pool.
  std::vector<PoolView> pools;
  // Allocated devices no slice of the newest generations publishes:
  // "default/old-gpu: gpu.example.com/n9/gpu-0".
  std::vector<std::string> unknown;
};

// `written`: allocations made since the snapshot (this cycle's claim
// writes), by claim key, counted in place of the claim's status.
DeviceReport DescribeDevices(
    const api::DeviceWorld& world,
    const absl::flat_hash_map<std::string, const api::DeviceAllocation*>&
        written = {});

// The devices summed by driver, for metrics: what DescribeDevices
// reports, counted without building its per-device views (it runs every
// cycle).
struct DriverTotals {
  int devices = 0;
  int allocated = 0;  // held whole, partitions included
  int partitions_allocated = 0;
  int shared = 0;  // held by one share or more
  int shares = 0;
  int binding_waiting = 0;
  std::map<std::string, int> tainted;  // by effect; a device once each
  // Shareable devices' capacities (consumed, of their total) and the
  // counters of counter sets (spent, of their total), by name.
  std::map<std::string, AmountUse> shared_capacity;
  std::map<std::string, AmountUse> counters;
};
std::map<std::string, DriverTotals> TotalsByDriver(
    const api::DeviceWorld& world,
    const absl::flat_hash_map<std::string, const api::DeviceAllocation*>&
        written = {});

// "60Gi/80Gi".
std::string UseText(const AmountUse& use);

}  // namespace shoal::dra

#endif  // SHOAL_SCHEDULER_DRA_DEVICE_REPORT_H_
