#include "scheduler/dra/device_report.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/api/quantity.h"
#include "scheduler/dra/capacity.h"

namespace shoal::dra {
namespace {

int64_t Milli(const std::string& quantity) {
  auto v = api::ParseQuantity(quantity, api::QuantityScale::kMilli);
  return v.ok() ? *v : 0;  // the decoder refused what does not parse
}

// Where a device is reachable from: the node that holds it ("" when it is
// network-attached) and how to say it.
std::pair<std::string, std::string> ReachOf(const api::ResourceSlice& s,
                                            const api::Device& d) {
  const bool per_device = s.per_device_node_selection;
  const std::string& node = per_device ? d.node_name : s.node_name;
  if (!node.empty()) return {node, absl::StrCat("node ", node)};
  if (per_device ? d.all_nodes : s.all_nodes) return {"", "all nodes"};
  return {"", "nodes its selector picks"};
}

// One counter of a pool's counter set.
struct Slot {
  int64_t total = 0;
  int64_t spent = 0;
};

// A counter set of a pool: its counters' slots, in the order written,
// and the view it is shown in (-1 until known).
struct Set {
  std::string name;
  std::vector<std::pair<std::string, int32_t>> counters;
  int64_t view = -1;
};

struct Place {
  size_t view = 0;
  size_t device = 0;
  const api::Device* spec = nullptr;
  // What it spends while held: (slot, amount); slot -1 for a counter its
  // pool does not declare.
  std::vector<std::pair<int32_t, int64_t>> spends;
  // What its shares consume, per capacity (milli-units).
  std::vector<int64_t> consumed;
};

}  // namespace

std::string TaintView::Text() const {
  return absl::StrCat(taint.key, taint.value.empty() ? "" : "=", taint.value,
                      ":", taint.effect);
}

bool DeviceView::Tainted() const {
  for (const TaintView& t : taints) {
    if (t.taint.effect == "NoSchedule" || t.taint.effect == "NoExecute")
      return true;
  }
  return false;
}

std::string DeviceView::State() const {
  if (!sharers.empty()) return "shared";
  if (!holders.empty()) return "allocated";
  if (counters_spent) return "counters spent";
  if (Tainted()) return "tainted";
  return "free";
}

std::string UseText(const AmountUse& use) {
  return absl::StrCat(QuantityText(use.used), "/", QuantityText(use.total));
}

DeviceReport DescribeDevices(
    const api::DeviceWorld& world,
    const absl::flat_hash_map<std::string, const api::DeviceAllocation*>&
        written) {
  const std::vector<api::ResourceSlice>& slices = *world.slices;
  // Each pool's newest generation, how many of its slices it should have
  // and has, and its counter sets.
  struct Pool {
    int64_t generation = 0;
    int64_t wanted = 0;
    int64_t seen = 0;
    absl::flat_hash_map<std::string, size_t> sets;  // into `sets`
  };
  absl::flat_hash_map<std::string, Pool> pools;  // by "driver/pool"
  std::vector<Pool*> pool_of(slices.size());
  for (size_t i = 0; i < slices.size(); ++i) {
    const api::ResourceSlice& s = slices[i];
    auto [it, fresh] = pools.try_emplace(absl::StrCat(s.driver, "/", s.pool));
    if (fresh || s.generation > it->second.generation)
      it->second = Pool{s.generation};
  }
  for (size_t i = 0; i < slices.size(); ++i) {
    const api::ResourceSlice& s = slices[i];
    Pool& p = pools[absl::StrCat(s.driver, "/", s.pool)];
    if (s.generation != p.generation) continue;  // an older generation
    pool_of[i] = &p;
    ++p.seen;
    p.wanted = s.slice_count;
  }
  std::vector<Set> sets;
  std::vector<Slot> slots;
  for (size_t i = 0; i < slices.size(); ++i) {
    if (pool_of[i] == nullptr) continue;
    for (const api::CounterSet& cs : slices[i].shared_counters) {
      auto [it, fresh] = pool_of[i]->sets.try_emplace(cs.name, sets.size());
      if (!fresh) continue;  // declared twice: the pool is invalid
      Set set;
      set.name = cs.name;
      for (const api::CounterAmount& c : cs.counters) {
        set.counters.emplace_back(c.name, static_cast<int32_t>(slots.size()));
        slots.push_back({Milli(c.value), 0});
      }
      sets.push_back(std::move(set));
    }
  }

  // The views, by (node, driver, pool); network-attached ("") last.
  DeviceReport out;
  std::map<std::tuple<bool, std::string, std::string, std::string>, size_t>
      view_of;
  auto view = [&](const std::string& node, const api::ResourceSlice& s,
                  const Pool& pool, const std::string& reach) -> size_t {
    auto [it, fresh] = view_of.try_emplace(
        {node.empty(), node, s.driver, s.pool}, out.pools.size());
    if (fresh) {
      PoolView p;
      p.node = node;
      p.driver = s.driver;
      p.pool = s.pool;
      p.generation = s.generation;
      p.reach = reach;
      p.incomplete = pool.seen < pool.wanted;
      out.pools.push_back(std::move(p));
    } else if (out.pools[it->second].reach != reach) {
      out.pools[it->second].reach = "per device";
    }
    return it->second;
  };

  // Every device of the newest generations, by "driver/pool/device".
  absl::flat_hash_map<std::string, Place> places;
  for (size_t i = 0; i < slices.size(); ++i) {
    if (pool_of[i] == nullptr) continue;
    const api::ResourceSlice& s = slices[i];
    const Pool& pool = *pool_of[i];
    // One view for the slice's devices, unless each device says where
    // it is reachable from.
    size_t slice_view = 0;
    if (!s.per_device_node_selection && !s.devices.empty()) {
      const auto [node, reach] = ReachOf(s, s.devices[0]);
      slice_view = view(node, s, pool, reach);
    }
    for (const api::Device& d : s.devices) {
      auto [at, fresh] =
          places.try_emplace(absl::StrCat(s.driver, "/", s.pool, "/", d.name));
      if (!fresh) continue;  // named twice: the pool is invalid
      size_t v = slice_view;
      if (s.per_device_node_selection) {
        const auto [node, reach] = ReachOf(s, d);
        v = view(node, s, pool, reach);
      }
      DeviceView dv;
      dv.name = d.name;
      dv.shareable = d.allow_multiple_allocations;
      dv.partition = !d.consumes_counters.empty();
      for (const api::DeviceTaint& t : d.taints) dv.taints.push_back({t, ""});
      for (const api::DeviceTaintRule& rule : world.taint_rules) {
        if (rule.Picks(s.driver, s.pool, d.name))
          dv.taints.push_back({rule.taint, rule.name});
      }
      Place& p = at->second;
      p.view = v;
      p.device = out.pools[v].devices.size();
      p.spec = &d;
      for (const api::CounterConsumption& use : d.consumes_counters) {
        dv.counter_sets.push_back(use.counter_set);
        auto set = pool.sets.find(use.counter_set);
        if (set != pool.sets.end() && sets[set->second].view < 0)
          sets[set->second].view = static_cast<int64_t>(v);
        for (const api::CounterAmount& c : use.counters) {
          int32_t slot = -1;
          if (set != pool.sets.end()) {
            for (const auto& [name, at_slot] : sets[set->second].counters) {
              if (name == c.name) slot = at_slot;
            }
          }
          p.spends.emplace_back(slot, Milli(c.value));
        }
      }
      p.consumed.assign(d.capacity.size(), 0);
      out.pools[v].devices.push_back(std::move(dv));
    }
  }
  // A counter set no device spends is shown with its slice's devices.
  for (size_t i = 0; i < slices.size(); ++i) {
    if (pool_of[i] == nullptr) continue;
    const api::ResourceSlice& s = slices[i];
    for (const api::CounterSet& cs : s.shared_counters) {
      Set& set = sets[pool_of[i]->sets.at(cs.name)];
      if (set.view >= 0) continue;
      set.view = static_cast<int64_t>(
          view(s.node_name, s, *pool_of[i],
               s.node_name.empty()
                   ? (s.all_nodes ? "all nodes" : "nodes its selector picks")
                   : absl::StrCat("node ", s.node_name)));
    }
  }

  // What the claims hold (each device's claims sorted below).
  std::vector<std::pair<const std::string*, const api::ResourceClaim*>> held;
  held.reserve(world.claims.size() + written.size());
  for (const auto& [key, c] : world.claims) held.emplace_back(&key, &c);
  for (const auto& [key, a] : written) {
    if (world.claims.find(key) == world.claims.end())
      held.emplace_back(&key, nullptr);
  }
  std::string device;
  for (const auto& [key_ptr, claim] : held) {
    const std::string& key = *key_ptr;
    auto w = written.empty() ? written.end() : written.find(key);
    const api::DeviceAllocation* allocation =
        w != written.end() ? w->second
        : claim != nullptr && claim->allocation.has_value()
            ? &*claim->allocation
            : nullptr;
    if (allocation == nullptr) continue;
    for (const api::DeviceResult& r : allocation->results) {
      device.clear();
      absl::StrAppend(&device, r.driver, "/", r.pool, "/", r.device);
      auto it = places.find(device);
      if (it == places.end()) {
        out.unknown.push_back(absl::StrCat(key, ": ", device));
        continue;
      }
      Place& p = it->second;
      DeviceView& dv = out.pools[p.view].devices[p.device];
      if (r.admin_access) {
        dv.admin_access.push_back(key);
      } else if (!r.share_id.empty()) {
        dv.sharers.push_back(key);
        const std::vector<int64_t> amounts = AmountsOf(r, *p.spec);
        for (size_t i = 0; i < amounts.size() && i < p.consumed.size(); ++i)
          p.consumed[i] += amounts[i];
      } else {
        dv.holders.push_back(key);
      }
      if (r.binding_conditions.empty()) continue;
      // The conditions the device reports in the claim's status (a claim
      // written this cycle has none yet).
      const api::DeviceStatus* status =
          claim != nullptr && w == written.end() ? claim->StatusOf(r) : nullptr;
      for (const std::string& f : r.binding_failure_conditions) {
        if (status != nullptr && status->Reports(f) &&
            (dv.binding_failure.empty() || f < dv.binding_failure)) {
          dv.binding_failure = f;
        }
      }
      for (const std::string& b : r.binding_conditions) {
        if ((status == nullptr || !status->Reports(b)) &&
            std::find(dv.binding_waits.begin(), dv.binding_waits.end(), b) ==
                dv.binding_waits.end()) {
          dv.binding_waits.push_back(b);
        }
      }
    }
  }

  // Shares' capacity, and the counters held devices spend (once each,
  // however many share them).
  for (auto& [key, p] : places) {
    DeviceView& dv = out.pools[p.view].devices[p.device];
    std::sort(dv.holders.begin(), dv.holders.end());
    std::sort(dv.sharers.begin(), dv.sharers.end());
    std::sort(dv.admin_access.begin(), dv.admin_access.end());
    std::sort(dv.binding_waits.begin(), dv.binding_waits.end());
    if (dv.shareable) {
      for (size_t i = 0; i < p.spec->capacity.size(); ++i) {
        const api::DeviceCapacity& c = p.spec->capacity[i];
        dv.capacity.push_back({c.written.empty() ? c.name : c.written,
                               p.consumed[i], Milli(c.value)});
      }
    }
    if (!dv.Held()) continue;
    for (const auto& [slot, amount] : p.spends) {
      if (slot >= 0) slots[slot].spent += amount;
    }
  }
  // A free partition whose counters others' partitions spent.
  for (auto& [key, p] : places) {
    DeviceView& dv = out.pools[p.view].devices[p.device];
    if (dv.Held()) continue;
    for (const auto& [slot, amount] : p.spends) {
      if (slot < 0) continue;
      const Slot& c = slots[slot];
      if (c.spent > 0 && c.spent + amount > c.total) dv.counters_spent = true;
    }
  }
  for (const Set& set : sets) {
    if (set.view < 0) continue;
    CounterSetView cs;
    cs.name = set.name;
    for (const auto& [name, slot] : set.counters)
      cs.counters.push_back({name, slots[slot].spent, slots[slot].total});
    out.pools[set.view].counter_sets.push_back(std::move(cs));
  }

  std::sort(out.unknown.begin(), out.unknown.end());
  // In order: node, then network-attached; by driver and pool; each
  // pool's devices and counter sets by name.
  std::vector<PoolView> sorted;
  for (const auto& [k, v] : view_of) sorted.push_back(std::move(out.pools[v]));
  for (PoolView& p : sorted) {
    std::sort(p.devices.begin(), p.devices.end(),
              [](const DeviceView& a, const DeviceView& b) {
                return a.name < b.name;
              });
    std::sort(p.counter_sets.begin(), p.counter_sets.end(),
              [](const CounterSetView& a, const CounterSetView& b) {
                return a.name < b.name;
              });
  }
  out.pools = std::move(sorted);
  return out;
}

std::map<std::string, DriverTotals> TotalsByDriver(
    const api::DeviceWorld& world,
    const absl::flat_hash_map<std::string, const api::DeviceAllocation*>&
        written) {
  // Counted as DescribeDevices counts, without building its views: this
  // runs every cycle, over every device of the cluster.
  const std::vector<api::ResourceSlice>& slices = *world.slices;
  absl::flat_hash_map<std::string, int64_t> newest;  // by "driver/pool"
  std::string key;
  for (const api::ResourceSlice& s : slices) {
    key.clear();
    absl::StrAppend(&key, s.driver, "/", s.pool);
    auto [it, fresh] = newest.try_emplace(key, s.generation);
    if (!fresh) it->second = std::max(it->second, s.generation);
  }
  // What the claims hold, by pool and device name.
  struct Hold {
    int whole = 0;
    std::vector<const api::DeviceResult*> shares;
    bool waiting = false;
  };
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, Hold>>
      holds;
  auto take = [&](const api::DeviceAllocation& a,
                  const api::ResourceClaim* claim) {
    for (const api::DeviceResult& r : a.results) {
      if (r.admin_access) continue;
      key.clear();
      absl::StrAppend(&key, r.driver, "/", r.pool);
      Hold& h = holds[key][r.device];
      if (r.share_id.empty()) {
        ++h.whole;
      } else {
        h.shares.push_back(&r);
      }
      for (const std::string& b : r.binding_conditions) {
        const api::DeviceStatus* status =
            claim != nullptr ? claim->StatusOf(r) : nullptr;
        if (status == nullptr || !status->Reports(b)) h.waiting = true;
      }
    }
  };
  for (const auto& [k, c] : world.claims) {
    auto w = written.empty() ? written.end() : written.find(k);
    if (w != written.end()) {
      take(*w->second, nullptr);
    } else if (c.allocation.has_value()) {
      take(*c.allocation, &c);
    }
  }
  for (const auto& [k, a] : written) {
    if (world.claims.find(k) == world.claims.end()) take(*a, nullptr);
  }

  std::map<std::string, DriverTotals> out;
  std::vector<std::string> effects;
  for (const api::ResourceSlice& s : slices) {
    key.clear();
    absl::StrAppend(&key, s.driver, "/", s.pool);
    if (s.generation != newest[key]) continue;
    auto pool = holds.find(key);
    DriverTotals& t = out[s.driver];
    for (const api::CounterSet& cs : s.shared_counters) {
      for (const api::CounterAmount& c : cs.counters) {
        AmountUse& sum = t.counters[c.name];
        sum.name = c.name;
        sum.total += Milli(c.value);
      }
    }
    for (const api::Device& d : s.devices) {
      ++t.devices;
      const Hold* h = nullptr;
      if (pool != holds.end()) {
        auto it = pool->second.find(d.name);
        if (it != pool->second.end()) h = &it->second;
      }
      effects.clear();
      for (const api::DeviceTaint& taint : d.taints)
        effects.push_back(taint.effect);
      for (const api::DeviceTaintRule& rule : world.taint_rules) {
        if (rule.Picks(s.driver, s.pool, d.name))
          effects.push_back(rule.taint.effect);
      }
      std::sort(effects.begin(), effects.end());
      effects.erase(std::unique(effects.begin(), effects.end()), effects.end());
      for (const std::string& e : effects) ++t.tainted[e];
      if (d.allow_multiple_allocations) {
        std::vector<int64_t> used(d.capacity.size(), 0);
        if (h != nullptr) {
          for (const api::DeviceResult* r : h->shares) {
            const std::vector<int64_t> amounts = AmountsOf(*r, d);
            for (size_t i = 0; i < amounts.size() && i < used.size(); ++i)
              used[i] += amounts[i];
          }
        }
        for (size_t i = 0; i < d.capacity.size(); ++i) {
          const api::DeviceCapacity& c = d.capacity[i];
          const std::string& name = c.written.empty() ? c.name : c.written;
          AmountUse& sum = t.shared_capacity[name];
          sum.name = name;
          sum.used += used[i];
          sum.total += Milli(c.value);
        }
      }
      if (h == nullptr) continue;
      if (h->whole > 0) {
        ++t.allocated;
        if (!d.consumes_counters.empty()) ++t.partitions_allocated;
      }
      if (!h->shares.empty()) ++t.shared;
      t.shares += static_cast<int>(h->shares.size());
      if (h->waiting) ++t.binding_waiting;
      if (h->whole == 0 && h->shares.empty()) continue;
      for (const api::CounterConsumption& use : d.consumes_counters) {
        for (const api::CounterAmount& c : use.counters) {
          AmountUse& sum = t.counters[c.name];
          sum.name = c.name;
          sum.used += Milli(c.value);
        }
      }
    }
  }
  return out;
}

}  // namespace shoal::dra
