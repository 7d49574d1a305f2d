#include "plugins/networktopology/network_topology_aware.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "scheduler/api/resource_name.h"
#include "scheduler/framework/session.h"

namespace shoal::plugins::networktopology {
namespace {

using framework::Session;

constexpr double kMaxScore = 100;

struct Config {
  double weight = 1;
  // (resource, weight) pairs that count toward a domain's fullness.
  std::vector<std::pair<api::ResourceId, double>> resources;
  bool normal_pods = true;
  double fading = 0.8;
};

// What each domain holds, measured when the session opens.
struct DomainUse {
  std::vector<api::Resource> used;
  std::vector<api::Resource> allocatable;
};

class Scores : public framework::PluginSession {
 public:
  Scores(const Config& config, const api::NetworkTopology& net,
         const api::ClusterInfo& c)
      : config_(config), net_(net) {
    use_.used.resize(net.domains().size());
    use_.allocatable.resize(net.domains().size());
    for (size_t d = 0; d < net.domains().size(); ++d) {
      for (api::NodeIndex n : net.domain(d).nodes) {
        use_.used[d] += c.nodes[n].used();
        use_.allocatable[d] += c.nodes[n].allocatable();
      }
    }
    for (int32_t tier : net.tiers()) {
      const double w = std::pow(config.fading, tier - net.tiers().front());
      tier_weights_.emplace_back(tier, w);
      total_weight_ += w;
    }
  }

  double Score(const api::TaskInfo& t, const api::NodeInfo& n) const {
    if (total_weight_ <= 0) return 0;
    const std::vector<int32_t>& domains = net_.DomainsOf(n.index());
    double total = 0;
    size_t next = 0;
    for (const auto& [tier, weight] : tier_weights_) {
      // A node in no domain of a tier scores full there, as in Volcano:
      // nodes outside the description are filled before whole racks.
      double score = 1;
      while (next < domains.size() && net_.domain(domains[next]).tier < tier)
        ++next;
      if (next < domains.size() && net_.domain(domains[next]).tier == tier)
        score = Fullness(domains[next], t);
      total += weight * score;
    }
    return config_.weight * kMaxScore * total / total_weight_;
  }

 private:
  // (used + request) / allocatable in the domain, over the resources the
  // pod asks for, weighted; 0 when the pod would not fit there.
  double Fullness(int32_t d, const api::TaskInfo& t) const {
    double sum = 0, weights = 0;
    for (const auto& [id, weight] : config_.resources) {
      const int64_t request = t.request().Get(id);
      if (request == 0) continue;
      const int64_t allocatable = use_.allocatable[d].Get(id);
      const int64_t after = use_.used[d].Get(id) + request;
      if (allocatable <= 0 || after > allocatable) return 0;
      sum += weight * static_cast<double>(after) / allocatable;
      weights += weight;
    }
    return weights > 0 ? sum / weights : 0;
  }

  const Config& config_;
  const api::NetworkTopology& net_;
  DomainUse use_;
  std::vector<std::pair<int32_t, double>> tier_weights_;
  double total_weight_ = 0;
};

class NetworkTopologyAware : public framework::Plugin {
 public:
  explicit NetworkTopologyAware(Config config) : config_(std::move(config)) {}

  std::unique_ptr<framework::PluginSession> OnSessionOpen(Session& s) override {
    const api::NetworkTopology* net = s.network();
    if (!config_.normal_pods || net == nullptr || net->empty()) return nullptr;
    auto scores = std::make_unique<Scores>(config_, *net, s.cluster());
    const Scores* self = scores.get();
    s.Register<framework::NodeOrder>(
        [self, &s](const api::TaskInfo& t, const api::NodeInfo& n) {
          // Jobs bound to the network choose a domain whole
          // (actions/network_domains.h); this is for the others.
          if (s.cluster().jobs[t.job].network.mode !=
              api::NetworkConstraint::Mode::kNone) {
            return 0.0;
          }
          return self->Score(t, n);
        });
    return scores;
  }

 private:
  Config config_;
};

absl::Status AddResource(const framework::Arguments& args,
                         const std::string& name, const std::string& key,
                         double fallback, Config* config) {
  auto weight = args.GetDouble(key, fallback);
  if (!weight.ok()) return weight.status();
  // Volcano puts a negative weight back to its default.
  double w = *weight < 0 ? fallback : *weight;
  auto id = api::InternResourceName(name);
  if (!id.ok()) return id.status();
  if (w > 0) config->resources.emplace_back(*id, w);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args) {
  Config config;
  auto weight = args.GetDouble("weight", 1);
  if (!weight.ok()) return weight.status();
  config.weight = *weight < 0 ? 1 : *weight;
  if (auto st = AddResource(args, "cpu", "hypernode.binpack.cpu", 1, &config);
      !st.ok())
    return st;
  if (auto st =
          AddResource(args, "memory", "hypernode.binpack.memory", 1, &config);
      !st.ok())
    return st;
  const std::string listed = args.GetString("hypernode.binpack.resources", "");
  for (absl::string_view name : absl::StrSplit(listed, ',')) {
    name = absl::StripAsciiWhitespace(name);
    if (name.empty()) continue;
    const std::string n(name);
    if (auto st = AddResource(args, n, "hypernode.binpack.resources." + n, 1,
                              &config);
        !st.ok())
      return st;
  }
  auto enable = args.GetBool("hypernode.binpack.normal-pod.enable", true);
  if (!enable.ok()) return enable.status();
  config.normal_pods = *enable;
  auto fading = args.GetDouble("hypernode.binpack.normal-pod.fading", 0.8);
  if (!fading.ok()) return fading.status();
  config.fading = *fading < 0 ? 0.8 : *fading;
  // Read by the session (framework/policy.h, NetworkTierLabels).
  args.GetString("tierLabels", "");
  auto evict = args.GetInt("hypernode.gradient.evict.max-hypernodes", 8);
  if (!evict.ok()) return evict.status();
  if (!args.GetString("hypernode.gradient.evict.max-hypernodes", "").empty()) {
    args.Warn(
        "hypernode.gradient.evict.max-hypernodes: Shoal's preempt and "
        "reclaim try a gang's first 8 domains (narrowest tier first) "
        "whatever this says, so it has no effect");
  }
  return std::make_unique<NetworkTopologyAware>(std::move(config));
}

}  // namespace shoal::plugins::networktopology
