#include "tools/bench/synthetic_cluster.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace shoal::bench {
namespace {

api::Resource R(std::vector<std::pair<std::string, std::string>> list) {
  return *api::Resource::FromList(list, "synthetic");
}

std::shared_ptr<const api::PlacementConstraints> Constraints(
    std::vector<std::pair<std::string, std::string>> selector,
    std::vector<api::Toleration> tolerations) {
  auto c = std::make_shared<api::PlacementConstraints>();
  c->node_selector = api::Labels(std::move(selector));
  c->tolerations = std::move(tolerations);
  c->ComputeFingerprint();
  return c;
}

}  // namespace

void BuildSyntheticCluster(const SyntheticClusterSpec& spec,
                           cache::Cache& cache) {
  std::mt19937_64 rng(spec.seed);
  const int gpu_nodes = static_cast<int>(spec.nodes * spec.gpu_node_fraction);
  for (int i = 0; i < spec.nodes; ++i) {
    auto node = std::make_shared<api::NodeSpec>();
    bool gpu = i < gpu_nodes;
    node->name = absl::StrCat(gpu ? "gpu-" : "cpu-", i);
    std::vector<std::pair<std::string, std::string>> labels = {
        {"kubernetes.io/hostname", node->name},
        {"topology.kubernetes.io/zone", absl::StrCat("zone-", i % 10)}};
    if (gpu) {
      labels.emplace_back("accelerator", "a100");
      node->taints.push_back(
          {"nvidia.com/gpu", "present", api::TaintEffect::kNoSchedule});
      node->allocatable = R({{"cpu", "96"},
                             {"memory", "768Gi"},
                             {"nvidia.com/gpu", "8"},
                             {"pods", "110"}});
    } else {
      node->allocatable =
          R({{"cpu", "64"}, {"memory", "256Gi"}, {"pods", "110"}});
    }
    node->labels = api::Labels(std::move(labels));
    cache.UpsertNode(std::move(node));
  }
  for (int q = 0; q < spec.queues; ++q) {
    api::QueueInfo queue;
    queue.name = spec.queues == 1 ? "default" : absl::StrCat("queue-", q);
    queue.weight = 1 + q % 3;
    cache.UpsertQueue(queue);
  }
  auto any = Constraints({}, {});
  auto gpu_only =
      Constraints({{"accelerator", "a100"}},
                  {{"nvidia.com/gpu", api::Toleration::Operator::kExists, "",
                    api::TaintEffect::kNoSchedule}});
  std::uniform_int_distribution<int> kind(0, 9), cpu(1, 8), mem_gi(2, 32),
      zone(0, 9);
  std::mt19937_64 rules_rng(spec.seed + 1);
  std::uniform_real_distribution<double> rules(0, 1);
  const absl::Time start = absl::FromUnixSeconds(1700000000);
  for (int g = 0; g < spec.gangs; ++g) {
    api::JobInfo job;
    job.ns = absl::StrCat("team-", g % 20);
    job.name = absl::StrCat("job-", g);
    job.uid = absl::StrCat("uid-job-", g);
    job.min_member = spec.pods_per_gang;
    job.queue =
        spec.queues == 1 ? "default" : absl::StrCat("queue-", g % spec.queues);
    job.created = start + absl::Seconds(g);
    job.phase = api::PodGroupPhase::kInqueue;
    cache.UpsertPodGroup(job);
    // 20% GPU jobs, 20% memory-heavy, 60% cpu; a fifth of the cpu jobs
    // pinned to one zone.
    int k = kind(rng);
    api::Resource request;
    std::shared_ptr<const api::PlacementConstraints> placement = any;
    if (k < 2) {
      request = R({{"cpu", "8"}, {"memory", "64Gi"}, {"nvidia.com/gpu", "1"}});
      placement = gpu_only;
    } else if (k < 4) {
      request =
          R({{"cpu", "1"}, {"memory", absl::StrCat(mem_gi(rng) * 2, "Gi")}});
    } else {
      request = R({{"cpu", absl::StrCat(cpu(rng))},
                   {"memory", absl::StrCat(mem_gi(rng) / 2 + 1, "Gi")}});
      if (k == 9) {
        placement = Constraints(
            {{"topology.kubernetes.io/zone", absl::StrCat("zone-", zone(rng))}},
            {});
      }
    }
    request.Set(api::kPods, 1);
    // Drawn from their own generator: the clusters without rules stay the
    // same as before rules existed.
    const double roll = rules(rules_rng);
    std::shared_ptr<const api::InterPodRules> inter_pod;
    api::LabelSelector own;
    own.requirements.push_back({"job", api::SelectorOperator::kIn, {job.name}});
    if (roll < spec.anti_affinity_fraction) {
      auto r = std::make_shared<api::InterPodRules>();
      api::PodAffinityTerm term;
      term.selector = own;
      term.namespaces.names = {job.ns};
      term.topology_key = api::kHostnameLabel;
      r->required_anti_affinity.push_back(std::move(term));
      inter_pod = std::move(r);
    } else if (roll < spec.anti_affinity_fraction + spec.spread_fraction) {
      auto r = std::make_shared<api::InterPodRules>();
      api::TopologySpreadConstraint c;
      c.topology_key = "topology.kubernetes.io/zone";
      c.selector = own;
      r->spread.push_back(std::move(c));
      inter_pod = std::move(r);
    }
    const bool host_port = rules(rules_rng) < spec.host_port_fraction;
    for (int p = 0; p < spec.pods_per_gang; ++p) {
      auto pod = std::make_shared<api::PodInfo>();
      pod->ns = job.ns;
      pod->name = absl::StrCat(job.name, "-", p);
      pod->uid = absl::StrCat(job.uid, "-", p);
      pod->scheduler_name = "shoal";
      pod->group = job.name;
      pod->created = job.created;
      pod->request = request;
      pod->placement = placement;
      if (inter_pod != nullptr ||
          spec.anti_affinity_fraction + spec.spread_fraction > 0) {
        pod->labels = api::Labels({{std::string("job"), job.name}});
      }
      pod->inter_pod = inter_pod;
      if (host_port) pod->host_ports.push_back({"", "TCP", 29500});
      cache.UpsertPod(std::move(pod), true);
    }
  }
}

void AddPlainNodes(int count, cache::Cache& cache) {
  for (int i = 0; i < count; ++i) {
    auto node = std::make_shared<api::NodeSpec>();
    node->name = absl::StrCat("node-", i);
    node->labels = api::Labels({{"kubernetes.io/hostname", node->name}});
    node->allocatable =
        R({{"cpu", "64"}, {"memory", "256Gi"}, {"pods", "110"}});
    cache.UpsertNode(std::move(node));
  }
}

void AddUniformJob(const UniformJob& spec,
                   const std::function<std::string(int pod)>& node_of,
                   cache::Cache& cache) {
  static const auto* const any =
      new std::shared_ptr<const api::PlacementConstraints>(Constraints({}, {}));
  api::JobInfo job;
  job.ns = spec.queue;
  job.name = spec.name;
  job.uid = "uid-" + spec.name;
  job.queue = spec.queue;
  job.min_member = spec.min_member;
  job.created = spec.created;
  job.phase = spec.phase;
  job.network = spec.network;
  job.sub_group_policies = spec.sub_group_policies;
  if (!spec.parent_group.empty()) {
    job.source = api::GroupSource::kKubePodGroup;
    job.parent_group = spec.parent_group;
  }
  cache.UpsertPodGroup(job);
  for (int p = 0; p < spec.pods; ++p) {
    auto pod = std::make_shared<api::PodInfo>();
    pod->ns = spec.queue;
    pod->name = absl::StrCat(spec.name, "-", p);
    pod->uid = absl::StrCat(job.uid, "-", p);
    pod->scheduler_name = "shoal";
    pod->group = spec.name;
    pod->created = spec.created;
    pod->request = spec.request;
    pod->placement = *any;
    if (spec.replicas > 0) {
      pod->labels =
          api::Labels({{std::string("replica"),
                        absl::StrCat(p * spec.replicas / spec.pods)}});
    }
    pod->node_name = node_of(p);
    if (!pod->node_name.empty()) pod->status = api::TaskStatus::kRunning;
    cache.UpsertPod(std::move(pod), true);
  }
}

void BuildReclaimHeavyCluster(int nodes, int lenders, int starving,
                              cache::Cache& cache) {
  const absl::Time start = absl::FromUnixSeconds(1700000000);
  const api::Resource big =
      R({{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "1"}});
  AddPlainNodes(nodes, cache);
  for (int q = 0; q < lenders + starving; ++q) {
    api::QueueInfo queue;
    queue.name = absl::StrCat("queue-", q);
    cache.UpsertQueue(queue);
  }
  // The lenders fill every node: 4 pods of 16 cpu each.
  int slot = 0;
  const int jobs_per_lender = nodes * 4 / 100 / lenders;
  for (int q = 0; q < lenders; ++q) {
    for (int j = 0; j < jobs_per_lender; ++j) {
      AddUniformJob(
          {absl::StrCat("queue-", q), absl::StrCat("lend-", q, "-", j), 10, 100,
           big, start + absl::Seconds(j), api::PodGroupPhase::kRunning},
          [&slot](int) { return absl::StrCat("node-", slot++ / 4); }, cache);
    }
  }
  for (int q = lenders; q < lenders + starving; ++q) {
    for (int j = 0; j < 5; ++j) {
      AddUniformJob(
          {absl::StrCat("queue-", q), absl::StrCat("gang-", q, "-", j), 50, 50,
           big, start + absl::Hours(1) + absl::Seconds(j),
           api::PodGroupPhase::kInqueue},
          [](int) { return std::string(); }, cache);
    }
  }
}

}  // namespace shoal::bench
