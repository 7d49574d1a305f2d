#include "plugins/nodeorder/nodeorder.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "scheduler/framework/session.h"

namespace shoal::plugins::nodeorder {
namespace {

using framework::Arguments;
using framework::Session;

constexpr double kMaxScore = 100;

struct WeightedResource {
  api::ResourceId id;
  double weight;
};

// What one configured scorer computes; every score is node-local (it reads
// only this node and the task), as NodeOrder requires.
struct Weights {
  double least_requested = 0;
  double most_requested = 0;
  double balanced = 0;
  double node_affinity = 0;
  double taint_toleration = 0;
  double binpack = 0;
  double pod_affinity = 0;
  double spread = 0;
  std::vector<WeightedResource> resources;  // for least/most/binpack
};

// Fraction of `id` the node would have in use with the task placed; -1
// when it would not fit or the node has none.
double UsedFraction(const api::TaskInfo& t, const api::NodeInfo& n,
                    api::ResourceId id) {
  int64_t capacity = n.allocatable().Get(id);
  int64_t requested = n.used().Get(id) + t.request().Get(id);
  if (capacity <= 0 || requested > capacity) return -1;
  return static_cast<double>(requested) / capacity;
}

double LeastOrMost(const Weights& w, const api::TaskInfo& t,
                   const api::NodeInfo& n, bool least) {
  double sum = 0, weights = 0;
  for (const auto& r : w.resources) {
    weights += r.weight;
    double f = UsedFraction(t, n, r.id);
    if (f < 0) continue;
    sum += r.weight * (least ? 1 - f : f);
  }
  return weights > 0 ? kMaxScore * sum / weights : 0;
}

// Volcano's binpack counts only the resources the task asks for.
double Binpack(const Weights& w, const api::TaskInfo& t,
               const api::NodeInfo& n) {
  double sum = 0, weights = 0;
  for (const auto& r : w.resources) {
    if (t.request().Get(r.id) == 0) continue;
    weights += r.weight;
    double f = UsedFraction(t, n, r.id);
    if (f > 0) sum += r.weight * f;
  }
  return weights > 0 ? kMaxScore * sum / weights : 0;
}

// 100 when cpu and memory would be used in equal proportion.
double Balanced(const api::TaskInfo& t, const api::NodeInfo& n) {
  double cpu = UsedFraction(t, n, api::kCpu);
  double mem = UsedFraction(t, n, api::kMemory);
  if (cpu < 0 || mem < 0) return 0;
  return kMaxScore * (1 - std::abs(cpu - mem) / 2);
}

double NodeAffinity(const api::TaskInfo& t, const api::NodeInfo& n) {
  double total = 0;
  for (const auto& p : t.placement().preferred_terms) total += p.weight;
  if (total <= 0) return 0;
  return kMaxScore *
         api::MatchedPreferenceWeight(t.placement(), n.spec().labels,
                                      n.name()) /
         total;
}

// Fewer untolerated PreferNoSchedule taints is better.
double TaintToleration(const api::TaskInfo& t, const api::NodeInfo& n) {
  return kMaxScore / (1 + api::UntoleratedPreferNoSchedule(
                              t.placement().tolerations, n.spec().taints));
}

// Preferred inter-pod affinity in [-100, 100]: kube-scheduler's raw score
// (weights times matching pods) over the weights of the pod's own
// preferred terms. kube-scheduler rescales over all nodes instead; a fixed
// scale keeps each node's score its own, so allocate can cache it.
double PodAffinity(const Session& s, const api::TaskInfo& t,
                   const api::NodeInfo& n, framework::TopologyScope scope) {
  double raw = s.topology().AffinityScore(t, n, scope);
  if (raw == 0) return 0;
  double scale = 0;
  if (t.pod->inter_pod != nullptr) {
    for (const auto& term : t.pod->inter_pod->preferred_affinity)
      scale += term.weight;
    for (const auto& term : t.pod->inter_pod->preferred_anti_affinity)
      scale += term.weight;
  }
  if (scale == 0) scale = kMaxScore;
  return std::clamp(kMaxScore * raw / scale, -kMaxScore, kMaxScore);
}

// ScheduleAnyway spread: 0 in the least-loaded domains, down to -100 per
// constraint a maxSkew or more above them.
double Spread(const Session& s, const api::TaskInfo& t, const api::NodeInfo& n,
              framework::TopologyScope scope) {
  return -kMaxScore * s.topology().SpreadExcess(t, n, scope);
}

class NodeOrder : public framework::Plugin {
 public:
  explicit NodeOrder(Weights w) : w_(std::move(w)) {}

  // Only the configured weights are read, and they never change: the
  // callbacks point at them rather than copy them per session.
  std::unique_ptr<framework::PluginSession> OnSessionOpen(Session& s) override {
    const Weights& w = w_;
    s.Register<framework::NodeOrder>([&w, &s](const api::TaskInfo& t,
                                              const api::NodeInfo& n) {
      double score = 0;
      if (w.least_requested != 0) {
        score += w.least_requested * LeastOrMost(w, t, n, true);
      }
      if (w.most_requested != 0) {
        score += w.most_requested * LeastOrMost(w, t, n, false);
      }
      if (w.balanced != 0) score += w.balanced * Balanced(t, n);
      if (w.node_affinity != 0) {
        score += w.node_affinity * NodeAffinity(t, n);
      }
      if (w.taint_toleration != 0) {
        score += w.taint_toleration * TaintToleration(t, n);
      }
      if (w.binpack != 0) score += w.binpack * Binpack(w, t, n);
      if (t.topology_class != 0) {
        score += w.pod_affinity *
                     PodAffinity(s, t, n, framework::TopologyScope::kNode) +
                 w.spread * Spread(s, t, n, framework::TopologyScope::kNode);
      }
      return score;
    });
    if (w.pod_affinity == 0 && w.spread == 0) return nullptr;
    s.Register<framework::DomainOrder>(
        [&w, &s](const api::TaskInfo& t, const api::NodeInfo& n) {
          if (t.topology_class == 0) return 0.0;
          return w.pod_affinity *
                     PodAffinity(s, t, n, framework::TopologyScope::kDomain) +
                 w.spread * Spread(s, t, n, framework::TopologyScope::kDomain);
        });
    return nullptr;  // nothing shared between callbacks
  }

 private:
  const Weights w_;
};

// Reads `key` into *out; returns the error, if any, through `status`.
bool Read(const Arguments& args, const std::string& key, double default_value,
          double* out, absl::Status* status) {
  auto v = args.GetDouble(key, default_value);
  if (!v.ok()) {
    *status = v.status();
    return false;
  }
  if (*v < 0) {
    *status = absl::InvalidArgumentError(absl::StrCat(
        args.owner(), ": arguments.", key, ": must not be negative, got ", *v));
    return false;
  }
  *out = *v;
  return true;
}

absl::Status AddResource(const Arguments& args, const std::string& name,
                         const std::string& weight_key, double default_weight,
                         std::vector<WeightedResource>* out) {
  auto id = api::InternResourceName(name);
  if (!id.ok()) return id.status();
  absl::Status status;
  double weight;
  if (!Read(args, weight_key, default_weight, &weight, &status)) return status;
  for (auto& r : *out) {
    if (r.id == *id) {
      r.weight = weight;
      return absl::OkStatus();
    }
  }
  out->push_back({*id, weight});
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(const Arguments& args) {
  Weights w;
  absl::Status status;
  if (!Read(args, "leastrequested.weight", 1, &w.least_requested, &status) ||
      !Read(args, "mostrequested.weight", 0, &w.most_requested, &status) ||
      !Read(args, "balancedresource.weight", 1, &w.balanced, &status) ||
      !Read(args, "nodeaffinity.weight", 1, &w.node_affinity, &status) ||
      !Read(args, "tainttoleration.weight", 1, &w.taint_toleration, &status) ||
      !Read(args, "podaffinity.weight", 1, &w.pod_affinity, &status) ||
      !Read(args, "podtopologyspread.weight", 2, &w.spread, &status)) {
    return status;
  }
  // resources.<name>: weight, for least- and most-requested.
  for (const char* name : {"cpu", "memory"}) {
    if (auto s = AddResource(args, name, absl::StrCat("resources.", name), 1,
                             &w.resources);
        !s.ok()) {
      return s;
    }
  }
  for (const std::string& name : args.KeysUnder("resources.")) {
    if (auto s = AddResource(args, name, "resources." + name, 1, &w.resources);
        !s.ok()) {
      return s;
    }
  }
  return std::make_unique<NodeOrder>(std::move(w));
}

absl::StatusOr<std::unique_ptr<framework::Plugin>> NewBinpack(
    const Arguments& args) {
  Weights w;
  absl::Status status;
  if (!Read(args, "binpack.weight", 1, &w.binpack, &status)) return status;
  for (const char* name : {"cpu", "memory"}) {
    if (auto s = AddResource(args, name, absl::StrCat("binpack.", name), 1,
                             &w.resources);
        !s.ok()) {
      return s;
    }
  }
  // binpack.resources: "nvidia.com/gpu, example.com/foo", each weighted by
  // binpack.resources.<name> (default 1).
  std::string listed = args.GetString("binpack.resources", "");
  for (absl::string_view name :
       absl::StrSplit(listed, ',', absl::SkipWhitespace())) {
    std::string n(absl::StripAsciiWhitespace(name));
    if (auto s =
            AddResource(args, n, "binpack.resources." + n, 1, &w.resources);
        !s.ok()) {
      return s;
    }
  }
  return std::make_unique<NodeOrder>(std::move(w));
}

}  // namespace shoal::plugins::nodeorder
