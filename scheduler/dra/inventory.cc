#include "scheduler/dra/inventory.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "scheduler/api/quantity.h"
#include "scheduler/dra/device_variable.h"

namespace shoal::dra {
namespace {

struct PoolState {
  int64_t slice_count = 0;
  int64_t slices_seen = 0;
  bool invalid = false;
};

// Whether a node named by `node_name`, all nodes, or those `selector`
// picks include `n`.
bool Reaches(const std::string& node_name, bool all_nodes,
             const std::optional<std::vector<api::NodeSelectorTerm>>& selector,
             const api::NodeInfo& n) {
  if (!node_name.empty()) return node_name == n.name();
  if (all_nodes) return true;
  if (selector.has_value()) {
    for (const api::NodeSelectorTerm& t : *selector) {
      if (api::MatchesTerm(t, n.spec().labels, n.name())) return true;
    }
  }
  return false;
}

bool SliceReaches(const api::ResourceSlice& s, const api::NodeInfo& n) {
  if (s.per_device_node_selection) {
    for (const api::Device& d : s.devices) {
      if (Reaches(d.node_name, d.all_nodes, d.node_selector, n)) return true;
    }
    return false;
  }
  return Reaches(s.node_name, s.all_nodes, s.node_selector, n);
}

bool DeviceReaches(const api::ResourceSlice& s, const api::Device& d,
                   const api::NodeInfo& n) {
  return !s.per_device_node_selection ||
         Reaches(d.node_name, d.all_nodes, d.node_selector, n);
}

int64_t Milli(const std::string& quantity) {
  auto v = api::ParseQuantity(quantity, api::QuantityScale::kMilli);
  return v.ok() ? *v : 0;  // the decoder refused what does not parse
}

}  // namespace

Inventory::Inventory(std::shared_ptr<const api::DeviceWorld> world,
                     const std::vector<api::NodeInfo>& nodes)
    : world_(std::move(world)) {
  if (world_ == nullptr) world_ = std::make_shared<api::DeviceWorld>();
  // Each generation of a pool gets a number, looked up once per slice:
  // how many of its slices are there, whether two of them name the same
  // device, and its counter sets (which may sit in any of its slices;
  // since 1.35 in one of their own), each counter a slot.
  using Generation = std::tuple<std::string, std::string, int64_t>;
  std::map<Generation, int32_t> generation_ids;
  std::vector<PoolState> generations;
  std::vector<absl::flat_hash_set<absl::string_view>> names;
  // Per generation: counter set -> counter -> slot.
  std::vector<absl::flat_hash_map<std::string,
                                  absl::flat_hash_map<std::string, int32_t>>>
      counter_sets;
  absl::flat_hash_map<const api::ResourceSlice*, int32_t> generation_of;
  // Each pool (driver and name) gets a number too.
  std::map<std::pair<std::string, std::string>, int32_t> pool_ids;
  absl::flat_hash_map<const api::ResourceSlice*, int32_t> pool_of;
  for (const api::ResourceSlice& s : *world_->slices) {
    pool_of[&s] = pool_ids
                      .try_emplace({s.driver, s.pool},
                                   static_cast<int32_t>(pool_ids.size()))
                      .first->second;
    auto [it, fresh] =
        generation_ids.try_emplace({s.driver, s.pool, s.generation},
                                   static_cast<int32_t>(generations.size()));
    if (fresh) {
      generations.emplace_back();
      names.emplace_back();
      counter_sets.emplace_back();
    }
    const int32_t g = it->second;
    generation_of[&s] = g;
    PoolState& p = generations[g];
    p.slice_count = s.slice_count;
    ++p.slices_seen;
    for (const api::Device& d : s.devices) {
      if (!names[g].insert(d.name).second) p.invalid = true;
    }
    // A pool's generation is invalid, as kube-scheduler's allocator finds
    // it, when two of its slices declare one counter set.
    for (const api::CounterSet& set : s.shared_counters) {
      auto [sit, new_set] = counter_sets[g].try_emplace(set.name);
      if (!new_set) p.invalid = true;
      for (const api::CounterAmount& c : set.counters) {
        if (sit->second
                .try_emplace(c.name,
                             static_cast<int32_t>(counter_totals_.size()))
                .second) {
          counter_totals_.push_back(Milli(c.value));
        }
      }
    }
  }
  // The slot of a counter a device of generation `g` spends, or -1 when
  // its pool does not declare it (which makes the pool invalid, as a
  // device spending an undeclared counter set does).
  auto slot_of = [&](int32_t g, const std::string& set,
                     const std::string& counter) -> int32_t {
    auto it = counter_sets[g].find(set);
    if (it == counter_sets[g].end()) return -1;
    auto c = it->second.find(counter);
    return c == it->second.end() ? -1 : c->second;
  };
  for (const api::ResourceSlice& s : *world_->slices) {
    const int32_t g = generation_of[&s];
    for (const api::Device& d : s.devices) {
      for (const api::CounterConsumption& use : d.consumes_counters) {
        bool known = counter_sets[g].contains(use.counter_set);
        for (const api::CounterAmount& c : use.counters)
          known = known && slot_of(g, use.counter_set, c.name) >= 0;
        if (!known) generations[g].invalid = true;
      }
    }
  }
  // Slices in a stable order: node-local first, then by pool and name.
  std::vector<const api::ResourceSlice*> order;
  for (const api::ResourceSlice& s : *world_->slices) order.push_back(&s);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return std::make_tuple(a->node_name.empty(), a->driver, a->pool,
                           a->generation, a->name) <
           std::make_tuple(b->node_name.empty(), b->driver, b->pool,
                           b->generation, b->name);
  });
  std::vector<std::pair<const api::ResourceSlice*, DeviceId>> firsts;
  for (const api::ResourceSlice* s : order) {
    firsts.emplace_back(s, static_cast<DeviceId>(devices_.size()));
    for (const api::Device& d : s->devices) {
      DeviceEntry e{s, &d, s->unsupported_field.empty()};
      for (const api::DeviceTaint& t : d.taints) e.taints.push_back(&t);
      for (const api::DeviceTaintRule& rule : world_->taint_rules) {
        if (rule.Picks(s->driver, s->pool, d.name))
          e.taints.push_back(&rule.taint);
      }
      for (const api::DeviceTaint* t : e.taints)
        e.tainted |= t->effect == "NoSchedule" || t->effect == "NoExecute";
      for (const api::CounterConsumption& use : d.consumes_counters) {
        for (const api::CounterAmount& c : use.counters) {
          const int32_t slot =
              slot_of(generation_of[s], use.counter_set, c.name);
          if (slot >= 0) e.counters.emplace_back(slot, Milli(c.value));
        }
      }
      for (const api::DeviceCapacity& c : d.capacity) {
        e.capacity.push_back(Milli(c.value));
        e.capacity_policy |= c.policy.has_value();
      }
      same_[e.Key()].push_back(static_cast<DeviceId>(devices_.size()));
      devices_.push_back(e);
    }
  }
  // What a selector sees of each device, as one string per look.
  {
    absl::flat_hash_map<std::string, int32_t> looks;
    std::string key;
    look_.reserve(devices_.size());
    for (const DeviceEntry& e : devices_) {
      key.assign(e.slice->driver);
      key.push_back(e.device->allow_multiple_allocations ? '\1' : '\0');
      for (const auto& [name, a] : e.device->attributes) {
        absl::StrAppend(&key, "\na", name.size(), ":", name,
                        static_cast<int>(a.kind), a.b ? "t" : "f", a.i, ":",
                        a.s.size(), ":", a.s);
        if (!a.list) continue;
        // A list's values, in order (a selector may index them).
        absl::StrAppend(&key, "[", a.size());
        for (bool b : a.bools) key.push_back(b ? 't' : 'f');
        for (int64_t i : a.ints) absl::StrAppend(&key, ",", i);
        for (const std::string& v : a.strings)
          absl::StrAppend(&key, ",", v.size(), ":", v);
      }
      for (const api::DeviceCapacity& c : e.device->capacity) {
        absl::StrAppend(&key, "\nc", c.name.size(), ":", c.name, c.value);
      }
      auto [it, fresh] =
          looks.try_emplace(key, static_cast<int32_t>(look_example_.size()));
      if (fresh) look_example_.push_back(static_cast<DeviceId>(look_.size()));
      look_.push_back(it->second);
    }
  }
  // Each entry points at its device's list (the map's values stay put).
  for (DeviceEntry& e : devices_) e.same = &same_.find(e.Key())->second;
  // The slices a node may reach, in the order of `firsts`: those local
  // to it (by name, not tried against every node), then the
  // network-attached ones (sorted after every node-local one).
  absl::flat_hash_map<std::string, std::vector<size_t>> local;
  std::vector<size_t> attached;
  for (size_t i = 0; i < firsts.size(); ++i) {
    if (firsts[i].first->node_name.empty()) {
      attached.push_back(i);
    } else {
      local[firsts[i].first->node_name].push_back(i);
    }
  }
  // What a node can use of a pool is the newest generation among the
  // slices it reaches (a pool moving between nodes is complete on each
  // side as its slices say), usable when that generation is complete and
  // valid, as kube-scheduler's allocator gathers pools per node.
  reachable_.resize(nodes.size());
  std::vector<size_t> reached;
  std::vector<std::pair<int32_t, int64_t>> newest;
  for (const api::NodeInfo& n : nodes) {
    reached.clear();
    if (auto it = local.find(n.name()); it != local.end()) reached = it->second;
    for (size_t i : attached) {
      if (SliceReaches(*firsts[i].first, n)) reached.push_back(i);
    }
    // A node reaches a few pools: a list beats a map.
    newest.clear();
    for (size_t i : reached) {
      const api::ResourceSlice* s = firsts[i].first;
      const int32_t pool = pool_of[s];
      auto it = std::find_if(newest.begin(), newest.end(),
                             [&](const auto& e) { return e.first == pool; });
      if (it == newest.end()) {
        newest.emplace_back(pool, s->generation);
      } else if (s->generation > it->second) {
        it->second = s->generation;
      }
    }
    std::vector<Reach>& mine = reachable_[n.index()];
    for (size_t i : reached) {
      const auto& [s, first] = firsts[i];
      const int32_t pool = pool_of[s];
      if (std::find_if(newest.begin(), newest.end(), [&](const auto& e) {
            return e.first == pool;
          })->second != s->generation) {
        continue;
      }
      const PoolState& p = generations[generation_of[s]];
      const bool whole = p.slices_seen >= p.slice_count && !p.invalid;
      for (DeviceId d = first;
           d < first + static_cast<DeviceId>(s->devices.size()); ++d) {
        if (!DeviceReaches(*s, *devices_[d].device, n)) continue;
        devices_[d].reached = true;
        // Unusable ones too: "All" must know of them.
        mine.push_back({d, whole && devices_[d].usable});
      }
    }
  }
}

const std::vector<DeviceId>& Inventory::Find(const api::DeviceResult& r) const {
  auto it = same_.find(absl::StrCat(r.driver, "/", r.pool, "/", r.device));
  return it == same_.end() ? none_ : it->second;
}

const std::vector<DeviceId>& Inventory::Same(DeviceId d) const {
  return *devices_[d].same;
}

const Selector& Inventory::SelectorFor(const std::string& expression) {
  auto it = selectors_.find(expression);
  if (it != selectors_.end()) return *it->second;
  auto s = std::make_unique<Selector>();
  s->source = expression;
  s->id = verdicts_.size();
  verdicts_.emplace_back();
  // DRA's selectors see one variable; any other name is refused up
  // front, as Kubernetes' type checker does.
  cel::CompileOptions options;
  options.variables = std::vector<std::string>{"device"};
  auto program = cel::Program::Compile(expression, options);
  if (program.ok()) {
    s->program = std::move(*program);
  } else {
    s->error = std::string(program.status().message());
  }
  return *selectors_.emplace(expression, std::move(s)).first->second;
}

absl::StatusOr<bool> Inventory::Evaluate(const Selector& s, DeviceId device) {
  if (!s.program.has_value()) {
    return absl::InvalidArgumentError(s.error);
  }
  std::vector<uint8_t>& memo = verdicts_[s.id];
  if (memo.empty()) memo.assign(look_example_.size(), 0);
  const int32_t look = look_[device];
  uint8_t& v = memo[look];
  if (v == 0) {
    cel::Activation vars;
    vars.emplace("device", DeviceVariable(*devices_[device].slice,
                                          *devices_[device].device));
    auto result = s.program->Evaluate(vars);
    if (!result.ok()) {
      v = 3;
      errors_[&s][look] = std::string(result.status().message());
    } else if (result->kind() != cel::Kind::kBool) {
      v = 3;
      errors_[&s][look] = "the expression's value is not a boolean";
    } else {
      v = result->as_bool() ? 2 : 1;
    }
  }
  if (v == 3) return absl::InvalidArgumentError(errors_[&s][look]);
  return v == 2;
}

}  // namespace shoal::dra
