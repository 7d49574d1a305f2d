#include "scheduler/admin/explain.h"

#include <algorithm>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/framework/session.h"

namespace shoal {
using nlohmann::json;

absl::StatusOr<json> ExplainPod(api::ClusterInfo cluster,
                                framework::Policy& policy,
                                const std::string& pod_key) {
  framework::Session s(std::move(cluster), policy);
  const api::TaskInfo* task = nullptr;
  for (const auto& t : s.cluster().tasks) {
    if (t.pod->Key() == pod_key) task = &t;
  }
  if (task == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "pod ", pod_key,
        " is not in the snapshot, or its schedulerName is not Shoal's"));
  }
  if (task->status != api::TaskStatus::kPending) {
    return absl::NotFoundError(
        absl::StrCat("pod ", pod_key, " is not pending (it is ",
                     api::TaskStatusName(task->status), ")"));
  }
  const api::TaskInfo& t = *task;
  json out = {{"pod", pod_key}};
  std::string pod_reason;
  if (!s.JobSchedulable(s.cluster().jobs[t.job], &pod_reason))
    out["podReason"] = pod_reason;
  // A claim this pod cannot use refuses every node in kube-scheduler's
  // words (VolumeBinding); other pod-level refusals in Shoal's.
  // Likewise a resource claim (DynamicResources).
  std::string claim_reason;
  if (!t.pod->resource_claims.empty())
    s.devices().Refusal(*t.pod, &claim_reason);
  std::string node_reason = !t.pod->volume_reason.empty() ? t.pod->volume_reason
                            : !claim_reason.empty()       ? claim_reason
                                                          : pod_reason;
  if (pod_reason.empty()) node_reason.clear();

  std::vector<api::NodeIndex> feasible;
  json nodes = json::array();
  absl::flat_hash_map<std::string, int> why;
  const auto& cluster_nodes = s.cluster().nodes;
  for (api::NodeIndex n = 0;
       n < static_cast<api::NodeIndex>(cluster_nodes.size()); ++n) {
    const api::NodeInfo& node = cluster_nodes[n];
    framework::Reasons reasons;
    if (!node_reason.empty()) {
      reasons.push_back(node_reason);
    } else if (s.Call<framework::Predicate>(t.placement(), node, &reasons)) {
      s.FitsExplained(t, node, node.idle(), &reasons);
    }
    for (const auto& r : reasons) ++why[r];
    if (reasons.empty()) feasible.push_back(n);
    nodes.push_back({{"node", node.name()},
                     {"feasible", reasons.empty()},
                     {"reasons", reasons}});
  }
  // Scores of the nodes that passed, as kube-scheduler's Score returns them
  // (PreScore sees only those nodes). A plugin kube-scheduler would skip
  // for this pod is left out.
  const bool node_affinity = !t.placement().preferred_terms.empty();
  const bool spread =
      t.pod->inter_pod != nullptr &&
      std::any_of(t.pod->inter_pod->spread.begin(),
                  t.pod->inter_pod->spread.end(),
                  [](const auto& c) { return !c.do_not_schedule; });
  std::vector<double> spread_scores;
  if (spread) spread_scores = s.topology().KubeSpreadScores(t, feasible);
  bool any_affinity = false;
  std::vector<double> affinity(feasible.size());
  for (size_t i = 0; i < feasible.size(); ++i) {
    affinity[i] = s.topology().AffinityScore(t, cluster_nodes[feasible[i]],
                                             framework::TopologyScope::kAll);
    if (affinity[i] != 0) any_affinity = true;
  }
  for (size_t i = 0; i < feasible.size(); ++i) {
    const api::NodeInfo& node = cluster_nodes[feasible[i]];
    json scores = json::object();
    json ignored = json::array();
    scores["TaintToleration"] = api::UntoleratedPreferNoSchedule(
        t.placement().tolerations, node.spec().taints);
    if (node_affinity) {
      scores["NodeAffinity"] = api::MatchedPreferenceWeight(
          t.placement(), node.spec().labels, node.name());
    }
    if (any_affinity)
      scores["InterPodAffinity"] = static_cast<int64_t>(affinity[i]);
    if (spread) {
      if (spread_scores[i] < 0) {
        ignored.push_back("PodTopologySpread");
      } else {
        scores["PodTopologySpread"] = static_cast<int64_t>(spread_scores[i]);
      }
    }
    json& entry = nodes[feasible[i]];
    entry["scores"] = scores;
    if (!ignored.empty()) entry["ignored"] = ignored;
  }
  out["available"] =
      framework::FormatUnavailable(static_cast<int>(cluster_nodes.size()),
                                   static_cast<int>(feasible.size()), why);
  out["nodes"] = nodes;
  return out;
}

std::string ExplainText(const json& e) {
  std::ostringstream text;
  text << "Pod " << e["pod"].get<std::string>() << ": "
       << e["available"].get<std::string>() << "\n";
  if (e.contains("podReason"))
    text << "Waits: " << e["podReason"].get<std::string>() << "\n";
  size_t width = 4;
  for (const auto& n : e["nodes"])
    width = std::max(width, n["node"].get<std::string>().size());
  text << "\n"
       << absl::StrCat("NODE", std::string(width - 4 + 3, ' '),
                       "FITS  WHY / SCORES")
       << "\n";
  for (const auto& n : e["nodes"]) {
    const std::string name = n["node"].get<std::string>();
    std::string detail;
    if (n["feasible"].get<bool>()) {
      std::vector<std::string> parts;
      for (const auto& [plugin, score] : n["scores"].items()) {
        parts.push_back(absl::StrCat(plugin, "=", score.dump()));
      }
      detail = absl::StrJoin(parts, " ");
    } else {
      std::vector<std::string> reasons;
      for (const auto& r : n["reasons"])
        reasons.push_back(r.get<std::string>());
      detail = absl::StrJoin(reasons, "; ");
    }
    text << name << std::string(width - name.size() + 3, ' ')
         << (n["feasible"].get<bool>() ? "yes " : "no  ") << "  " << detail
         << "\n";
  }
  return text.str();
}

}  // namespace shoal
