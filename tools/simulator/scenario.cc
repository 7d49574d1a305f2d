#include "tools/simulator/scenario.h"

#include <cmath>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/api/quantity.h"
#include "tools/simulator/yaml_reader.h"
#include "yaml-cpp/yaml.h"

namespace shoal::sim {
namespace {

// A GPU memory quantity, above 0, in bytes.
absl::StatusOr<int64_t> GpuMemory(const Reader& r, const YAML::Node& v,
                                  const std::string& path) {
  auto bytes = v.IsScalar()
                   ? api::ParseQuantity(v.Scalar(), api::QuantityScale::kUnit)
                   : absl::InvalidArgumentError("not a scalar");
  if (!bytes.ok() || *bytes <= 0) {
    return r.Error(v, path,
                   absl::StrCat("must be a quantity above 0 such as 80Gi, "
                                "got \"",
                                v.IsScalar() ? v.Scalar() : "?", "\""));
  }
  return *bytes;
}

// A pool's `gpus: {count, memory, share, partitions}`.
absl::StatusOr<GpuSpec> ParseGpus(const Reader& r, const YAML::Node& g,
                                  const std::string& p) {
  if (auto s = r.OnlyKeys(g, p, {"count", "memory", "share", "partitions"});
      !s.ok())
    return s;
  GpuSpec gpus;
  SIM_ASSIGN(count, r.Int(g, "count", p + ".", true, 0, 1));
  SIM_ASSIGN(share, r.Bool(g, "share", p + ".", false));
  SIM_ASSIGN(partitions, r.Int(g, "partitions", p + ".", false, 0, 2));
  gpus.count = count;
  gpus.share = share;
  gpus.partitions = partitions;
  if (YAML::Node m = g["memory"]) {
    SIM_ASSIGN(bytes, GpuMemory(r, m, p + ".memory"));
    gpus.memory = m.Scalar();
    gpus.memory_bytes = bytes;
  }
  if (share && partitions > 0) {
    return r.Error(g, p,
                   "share and partitions exclude each other: a GPU is "
                   "shared by memory or cut into partitions");
  }
  return gpus;
}

// A task's `gpu`: whole, partition, {count, kind}, or {memory}.
absl::StatusOr<GpuAsk> ParseGpuAsk(const Reader& r, const YAML::Node& g,
                                   const std::string& p) {
  GpuAsk ask;
  const std::string kinds =
      "must be whole, partition, {count: N, kind: "
      "whole|partition} or {memory: 20Gi}";
  if (g.IsScalar()) {
    if (g.Scalar() == "whole") {
      ask.kind = GpuAsk::Kind::kWhole;
    } else if (g.Scalar() == "partition") {
      ask.kind = GpuAsk::Kind::kPartition;
    } else {
      return r.Error(g, p, absl::StrCat(kinds, ", got \"", g.Scalar(), "\""));
    }
    return ask;
  }
  if (auto s = r.OnlyKeys(g, p, {"count", "kind", "memory"}); !s.ok()) return s;
  SIM_ASSIGN(count, r.Int(g, "count", p + ".", false, 1, 1));
  SIM_ASSIGN(kind, r.String(g, "kind", p + ".", false, "whole"));
  ask.count = count;
  if (YAML::Node m = g["memory"]) {
    if (g["count"] || g["kind"]) {
      return r.Error(g, p,
                     "memory asks a share of one GPU: not with count "
                     "or kind");
    }
    SIM_ASSIGN(bytes, GpuMemory(r, m, p + ".memory"));
    (void)bytes;
    ask.kind = GpuAsk::Kind::kShare;
    ask.memory = m.Scalar();
  } else if (kind == "whole" || kind == "partition") {
    ask.kind =
        kind == "whole" ? GpuAsk::Kind::kWhole : GpuAsk::Kind::kPartition;
  } else {
    return r.Error(
        g["kind"], p + ".kind",
        absl::StrCat("must be whole or partition, got \"", kind, "\""));
  }
  return ask;
}

absl::StatusOr<TaskSpec> ParseTask(const Reader& r, const YAML::Node& t,
                                   const std::string& p) {
  if (auto s = r.OnlyKeys(t, p, {"name", "replicas", "min", "requests", "gpu"});
      !s.ok())
    return s;
  TaskSpec task;
  SIM_ASSIGN(name, r.String(t, "name", p + ".", true));
  SIM_ASSIGN(replicas, r.Int(t, "replicas", p + ".", true, 0, 1));
  SIM_ASSIGN(min, r.Int(t, "min", p + ".", false, replicas, 0));
  if (min > replicas) {
    return r.Error(
        t["min"], p + ".min",
        absl::StrCat("must be <= replicas (", replicas, "), got ", min));
  }
  SIM_ASSIGN(requests, r.Resources(t, "requests", p + "."));
  task.name = name;
  task.replicas = replicas;
  task.min = min;
  task.requests = std::move(requests);
  task.requests.Set(api::kPods, 1);
  if (YAML::Node g = t["gpu"]) {
    SIM_ASSIGN(gpu, ParseGpuAsk(r, g, p + ".gpu"));
    task.gpu = gpu;
  }
  return task;
}

// cluster.network: {spines, racksPerSpine, nodesPerRack, top, slowdown}.
absl::StatusOr<NetworkSpec> ParseNetwork(const Reader& r, const YAML::Node& n,
                                         int nodes) {
  const std::string p = "cluster.network";
  if (auto s = r.OnlyKeys(
          n, p, {"spines", "racksPerSpine", "nodesPerRack", "top", "slowdown"});
      !s.ok())
    return s;
  NetworkSpec net;
  SIM_ASSIGN(spines, r.Int(n, "spines", p + ".", true, 0, 1));
  SIM_ASSIGN(racks, r.Int(n, "racksPerSpine", p + ".", true, 0, 1));
  SIM_ASSIGN(per_rack, r.Int(n, "nodesPerRack", p + ".", true, 0, 1));
  SIM_ASSIGN(top, r.Bool(n, "top", p + ".", false));
  net.spines = spines;
  net.racks_per_spine = racks;
  net.nodes_per_rack = per_rack;
  net.top = top;
  // A node outside every rack would make "the tier a job spans" undefined.
  if (static_cast<int64_t>(spines) * racks * per_rack != nodes) {
    return r.Error(n, p,
                   absl::StrCat(spines, " spines x ", racks, " racks x ",
                                per_rack, " nodes hold ",
                                static_cast<int64_t>(spines) * racks * per_rack,
                                " nodes, but cluster.nodes has ", nodes));
  }
  if (YAML::Node f = n["slowdown"]) {
    const std::string fp = p + ".slowdown";
    if (auto s = r.OnlyKeys(f, fp, {"rack", "spine", "cluster"}); !s.ok())
      return s;
    SIM_ASSIGN(rack, r.Double(f, "rack", fp + ".", 1, 0));
    SIM_ASSIGN(spine, r.Double(f, "spine", fp + ".", 1, 0));
    SIM_ASSIGN(cluster, r.Double(f, "cluster", fp + ".", 1, 0));
    net.rack = rack;
    net.spine = spine;
    net.cluster = cluster;
  }
  return net;
}

// A job's networkTopology, read as a PodGroup's spec.networkTopology.
absl::StatusOr<api::NetworkConstraint> ParseNetworkTopology(
    const Reader& r, const YAML::Node& n, const std::string& p) {
  if (auto s =
          r.OnlyKeys(n, p, {"mode", "highestTierAllowed", "highestTierName"});
      !s.ok())
    return s;
  api::NetworkConstraint c;
  SIM_ASSIGN(mode, r.String(n, "mode", p + ".", true));
  SIM_ASSIGN(tier, r.Int(n, "highestTierAllowed", p + ".", false, 0, 1));
  SIM_ASSIGN(tier_name, r.String(n, "highestTierName", p + ".", false));
  if (mode == "hard") {
    c.mode = api::NetworkConstraint::Mode::kHard;
  } else if (mode == "soft") {
    c.mode = api::NetworkConstraint::Mode::kSoft;
  } else {
    return r.Error(n["mode"], p + ".mode",
                   absl::StrCat("must be hard or soft, got \"", mode, "\""));
  }
  // Volcano reads a hard mode without a tier as no limit at all; a
  // scenario that means that should say soft.
  if (c.mode == api::NetworkConstraint::Mode::kHard && tier == 0 &&
      tier_name.empty()) {
    return r.Error(n, p,
                   "mode hard needs highestTierAllowed or highestTierName");
  }
  c.highest_tier = tier;
  c.highest_tier_name = tier_name;
  return c;
}

// The arrival times of a Job workload's PodGroups. Each workload draws
// from its own generator (the seed and its index), so adding a workload
// does not move the others' arrivals.
std::vector<absl::Duration> Arrivals(const JobWorkload& w, uint64_t seed,
                                     size_t index) {
  std::vector<absl::Duration> out;
  std::seed_seq seq{static_cast<uint32_t>(seed),
                    static_cast<uint32_t>(seed >> 32),
                    static_cast<uint32_t>(index)};
  std::mt19937_64 gen(seq);
  absl::Duration at = w.start;
  for (int k = 0; k < w.count; ++k) {
    if (!w.poisson) {
      out.push_back(w.start + k * w.every);
      continue;
    }
    // From the generator's raw bits (fixed by the standard), not from a
    // std:: distribution, whose algorithm each library chooses.
    double u = static_cast<double>(gen() >> 11) * 0x1.0p-53;
    double gap = -absl::ToDoubleSeconds(w.every) * std::log1p(-u);
    at += absl::Seconds(std::floor(gap));
    out.push_back(at);
  }
  return out;
}

}  // namespace

absl::StatusOr<Scenario> ParseScenario(const std::string& yaml,
                                       const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ":", e.mark.line + 1, ":", e.mark.column + 1,
                     ": malformed YAML: ", e.msg));
  }
  Reader r(file);
  if (auto s =
          r.OnlyKeys(root, "",
                     {"duration", "period", "policy", "seed", "priorityClasses",
                      "cluster", "queues", "workloads", "stopWhenDone"});
      !s.ok()) {
    return s;
  }
  Scenario sc;
  sc.file = file;
  SIM_ASSIGN(duration,
             r.Duration(root, "duration", "", true, absl::ZeroDuration()));
  SIM_ASSIGN(period, r.Duration(root, "period", "", false, absl::Seconds(1)));
  if (period < absl::Seconds(1) ||
      period % absl::Seconds(1) != absl::ZeroDuration()) {
    return r.Error(root["period"], "period",
                   "must be a whole number of seconds, at least 1s");
  }
  SIM_ASSIGN(policy, r.String(root, "policy", "", false, ""));
  SIM_ASSIGN(seed, r.Int(root, "seed", "", false, 1, 0));
  sc.seed = static_cast<uint64_t>(seed);
  SIM_ASSIGN(stop_when_done, r.Bool(root, "stopWhenDone", "", false));
  sc.stop_when_done = stop_when_done;
  sc.duration = duration;
  sc.period = period;
  sc.policy = policy;
  std::set<std::string> classes;
  if (YAML::Node pcs = root["priorityClasses"]) {
    if (!pcs.IsSequence())
      return r.Error(pcs, "priorityClasses", "must be a list of {name, value}");
    for (size_t i = 0; i < pcs.size(); ++i) {
      std::string p = absl::StrCat("priorityClasses[", i, "]");
      if (auto s = r.OnlyKeys(pcs[i], p, {"name", "value"}); !s.ok()) return s;
      SIM_ASSIGN(name, r.String(pcs[i], "name", p + ".", true));
      SIM_ASSIGN(value, r.Int(pcs[i], "value", p + ".", true, 0, -2147483647));
      sc.priority_classes.push_back({name, value, false});
      classes.insert(name);
    }
  }
  YAML::Node cluster = root["cluster"];
  if (!cluster) return r.Error(root, "cluster", "is required");
  if (auto s = r.OnlyKeys(cluster, "cluster", {"nodes", "network"}); !s.ok())
    return s;
  YAML::Node nodes = cluster["nodes"];
  if (!nodes || !nodes.IsSequence() || nodes.size() == 0) {
    return r.Error(cluster, "cluster.nodes",
                   "must list at least one node pool");
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::string p = absl::StrCat("cluster.nodes[", i, "]");
    if (auto s = r.OnlyKeys(
            nodes[i], p,
            {"prefix", "count", "allocatable", "labels", "taints", "gpus"});
        !s.ok()) {
      return s;
    }
    NodePool pool;
    SIM_ASSIGN(prefix, r.String(nodes[i], "prefix", p + ".", true));
    SIM_ASSIGN(count, r.Int(nodes[i], "count", p + ".", true, 0, 1));
    SIM_ASSIGN(allocatable, r.Resources(nodes[i], "allocatable", p + "."));
    pool.prefix = prefix;
    pool.count = count;
    pool.allocatable = std::move(allocatable);
    if (YAML::Node g = nodes[i]["gpus"]) {
      SIM_ASSIGN(gpus, ParseGpus(r, g, p + ".gpus"));
      pool.gpus = gpus;
    }
    if (YAML::Node labels = nodes[i]["labels"]; labels && labels.IsMap()) {
      std::vector<std::pair<std::string, std::string>> l;
      for (const auto& kv : labels)
        l.emplace_back(kv.first.as<std::string>(), kv.second.as<std::string>());
      pool.labels = api::Labels(std::move(l));
    }
    if (YAML::Node taints = nodes[i]["taints"]; taints && taints.IsSequence()) {
      for (size_t k = 0; k < taints.size(); ++k) {
        std::string tp = absl::StrCat(p, ".taints[", k, "]");
        SIM_ASSIGN(key, r.String(taints[k], "key", tp + ".", true));
        SIM_ASSIGN(value, r.String(taints[k], "value", tp + ".", false));
        SIM_ASSIGN(effect, r.String(taints[k], "effect", tp + ".", false,
                                    "NoSchedule"));
        api::TaintEffect e =
            effect == "NoExecute"          ? api::TaintEffect::kNoExecute
            : effect == "PreferNoSchedule" ? api::TaintEffect::kPreferNoSchedule
                                           : api::TaintEffect::kNoSchedule;
        pool.taints.push_back({key, value, e});
      }
    }
    sc.pools.push_back(std::move(pool));
  }
  if (YAML::Node network = cluster["network"]) {
    int64_t count = 0;
    for (const auto& pool : sc.pools) count += pool.count;
    SIM_ASSIGN(net, ParseNetwork(r, network, static_cast<int>(count)));
    sc.network = net;
  }
  std::set<std::string> queue_names = {"default"};
  if (YAML::Node queues = root["queues"]) {
    if (!queues.IsSequence())
      return r.Error(queues, "queues", "must be a list of {name, weight}");
    for (size_t i = 0; i < queues.size(); ++i) {
      std::string p = absl::StrCat("queues[", i, "]");
      if (auto s = r.OnlyKeys(queues[i], p, {"name", "weight", "reclaimable"});
          !s.ok())
        return s;
      api::QueueInfo q;
      SIM_ASSIGN(name, r.String(queues[i], "name", p + ".", true));
      SIM_ASSIGN(weight, r.Int(queues[i], "weight", p + ".", false, 1, 1));
      q.name = name;
      q.weight = weight;
      if (YAML::Node rec = queues[i]["reclaimable"])
        q.reclaimable = rec.as<bool>(true);
      sc.queues.push_back(q);
      queue_names.insert(name);
    }
  }
  YAML::Node workloads = root["workloads"];
  if (!workloads || !workloads.IsSequence()) {
    return r.Error(root, "workloads",
                   "must be a list of Job and Service workloads");
  }
  for (size_t i = 0; i < workloads.size(); ++i) {
    const YAML::Node& w = workloads[i];
    std::string p = absl::StrCat("workloads[", i, "]");
    SIM_ASSIGN(kind, r.String(w, "kind", p + ".", true));
    if (kind == "Job") {
      if (auto s = r.OnlyKeys(
              w, p,
              {"kind", "name", "count", "arrival", "queue", "priorityClass",
               "tasks", "work", "networkTopology", "resizeCost"});
          !s.ok()) {
        return s;
      }
      JobWorkload job;
      SIM_ASSIGN(name, r.String(w, "name", p + ".", true));
      SIM_ASSIGN(count, r.Int(w, "count", p + ".", false, 1, 1));
      SIM_ASSIGN(queue, r.String(w, "queue", p + ".", false, "default"));
      SIM_ASSIGN(pc, r.String(w, "priorityClass", p + ".", false));
      if (queue_names.count(queue) == 0) {
        return r.Error(w["queue"], p + ".queue",
                       absl::StrCat("queue \"", queue, "\" is not in queues"));
      }
      if (!pc.empty() && classes.count(pc) == 0) {
        return r.Error(w["priorityClass"], p + ".priorityClass",
                       absl::StrCat("priority class \"", pc,
                                    "\" is not in priorityClasses"));
      }
      job.name = name;
      job.count = count;
      job.queue = queue;
      job.priority_class = pc;
      if (YAML::Node a = w["arrival"]) {
        if (auto s =
                r.OnlyKeys(a, p + ".arrival", {"start", "every", "poisson"});
            !s.ok())
          return s;
        SIM_ASSIGN(start, r.Duration(a, "start", p + ".arrival.", false,
                                     absl::ZeroDuration()));
        SIM_ASSIGN(every, r.Duration(a, "every", p + ".arrival.", false,
                                     absl::ZeroDuration()));
        SIM_ASSIGN(poisson, r.Bool(a, "poisson", p + ".arrival.", false));
        if (poisson && every <= absl::ZeroDuration()) {
          return r.Error(a, p + ".arrival.every",
                         "must be above 0s with poisson (it is the mean gap)");
        }
        job.start = start;
        job.every = every;
        job.poisson = poisson;
      }
      job.arrivals = Arrivals(job, sc.seed, i);
      if (YAML::Node nt = w["networkTopology"]) {
        SIM_ASSIGN(c, ParseNetworkTopology(r, nt, p + ".networkTopology"));
        job.network = c;
      }
      if (w["resizeCost"]) {
        SIM_ASSIGN(cost, r.Duration(w, "resizeCost", p + ".", true,
                                    absl::ZeroDuration()));
        if (cost != absl::Seconds(absl::ToInt64Seconds(cost))) {
          return r.Error(w["resizeCost"], p + ".resizeCost",
                         "must be whole seconds");
        }
        job.resize_cost = cost;
        job.resize_cost_given = true;
      }
      YAML::Node tasks = w["tasks"];
      if (!tasks || !tasks.IsSequence() || tasks.size() == 0) {
        return r.Error(w, p + ".tasks", "must list at least one task");
      }
      for (size_t k = 0; k < tasks.size(); ++k) {
        SIM_ASSIGN(task,
                   ParseTask(r, tasks[k], absl::StrCat(p, ".tasks[", k, "]")));
        // An ask no pool could ever serve is a mistake in the scenario.
        bool gpus = false, partitions = false;
        for (const auto& pool : sc.pools) {
          gpus |= pool.gpus.count > 0;
          partitions |= pool.gpus.partitions > 0;
        }
        if ((task.gpu.kind != GpuAsk::Kind::kNone && !gpus) ||
            (task.gpu.kind == GpuAsk::Kind::kPartition && !partitions)) {
          return r.Error(tasks[k]["gpu"],
                         absl::StrCat(p, ".tasks[", k, "].gpu"),
                         gpus ? "no node pool has gpus with partitions"
                              : "no node pool has gpus");
        }
        job.tasks.push_back(std::move(task));
      }
      if (YAML::Node work = w["work"]) {
        if (auto s = r.OnlyKeys(work, p + ".work", {"task", "podSeconds"});
            !s.ok())
          return s;
        SIM_ASSIGN(task, r.String(work, "task", p + ".work.", true));
        SIM_ASSIGN(seconds,
                   r.Int(work, "podSeconds", p + ".work.", true, 0, 1));
        bool known = false;
        for (const auto& t : job.tasks) known |= t.name == task;
        if (!known)
          return r.Error(work["task"], p + ".work.task",
                         absl::StrCat("no task named \"", task, "\""));
        job.work_task = task;
        job.pod_seconds = seconds;
      }
      sc.jobs.push_back(std::move(job));
    } else if (kind == "Service") {
      if (auto s = r.OnlyKeys(
              w, p, {"kind", "name", "priorityClass", "requests", "replicas"});
          !s.ok()) {
        return s;
      }
      ServiceWorkload svc;
      SIM_ASSIGN(name, r.String(w, "name", p + ".", true));
      SIM_ASSIGN(pc, r.String(w, "priorityClass", p + ".", false));
      if (!pc.empty() && classes.count(pc) == 0) {
        return r.Error(w["priorityClass"], p + ".priorityClass",
                       absl::StrCat("priority class \"", pc,
                                    "\" is not in priorityClasses"));
      }
      SIM_ASSIGN(requests, r.Resources(w, "requests", p + "."));
      svc.name = name;
      svc.priority_class = pc;
      svc.requests = std::move(requests);
      svc.requests.Set(api::kPods, 1);
      YAML::Node reps = w["replicas"];
      if (!reps || !reps.IsSequence() || reps.size() == 0) {
        return r.Error(w, p + ".replicas",
                       "must list at least one {at, count}");
      }
      for (size_t k = 0; k < reps.size(); ++k) {
        std::string rp = absl::StrCat(p, ".replicas[", k, "]");
        if (auto s = r.OnlyKeys(reps[k], rp, {"at", "count"}); !s.ok())
          return s;
        SIM_ASSIGN(at, r.Duration(reps[k], "at", rp + ".", true,
                                  absl::ZeroDuration()));
        SIM_ASSIGN(n, r.Int(reps[k], "count", rp + ".", true, 0, 0));
        if (!svc.replicas.empty() && at <= svc.replicas.back().first) {
          return r.Error(reps[k]["at"], rp + ".at",
                         "must be later than the entry before");
        }
        svc.replicas.emplace_back(at, n);
      }
      sc.services.push_back(std::move(svc));
    } else {
      return r.Error(
          w["kind"], p + ".kind",
          absl::StrCat("unknown kind \"", kind, "\" (valid: Job, Service)"));
    }
  }
  return sc;
}

absl::StatusOr<Scenario> LoadScenario(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot read the scenario"));
  std::stringstream text;
  text << in.rdbuf();
  return ParseScenario(text.str(), path);
}

}  // namespace shoal::sim
