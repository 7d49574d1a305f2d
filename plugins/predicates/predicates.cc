#include "plugins/predicates/predicates.h"

#include "absl/strings/str_cat.h"
#include "scheduler/framework/session.h"

namespace shoal::plugins::predicates {
namespace {

using framework::Reasons;
using framework::Session;

// kube-scheduler's NodeUnschedulable plugin lets pods through that tolerate
// this taint (DaemonSets, for instance).
const api::Taint kUnschedulableTaint{"node.kubernetes.io/unschedulable", "",
                                     api::TaintEffect::kNoSchedule};

bool Refuse(Reasons* why, std::string reason) {
  if (why != nullptr) why->push_back(std::move(reason));
  return false;
}

// In kube-scheduler's filter order: the first failing check explains.
bool StaticFilter(const api::PlacementConstraints& c, const api::NodeInfo& n,
                  Reasons* why) {
  const api::NodeSpec& node = n.spec();
  if (!node.ready) return Refuse(why, "node(s) were not ready");
  if (node.unschedulable &&
      !api::ToleratesAll(c.tolerations, kUnschedulableTaint)) {
    return Refuse(why, "node(s) were unschedulable");
  }
  for (const api::Taint& taint : node.taints) {
    if (taint.effect == api::TaintEffect::kPreferNoSchedule) continue;
    if (!api::ToleratesAll(c.tolerations, taint)) {
      return Refuse(why, absl::StrCat("node(s) had untolerated taint {",
                                      taint.key, ": ", taint.value, "}"));
    }
  }
  if (!api::MatchesNodeSelectorAndAffinity(c, node.labels, node.name)) {
    return Refuse(why, "node(s) didn't match Pod's node affinity/selector");
  }
  // VolumeBinding, then VolumeZone: the persistent volumes of the pod's
  // bound claims (kube-scheduler checks resource fit and host ports
  // before these; Shoal checks those after every static filter).
  if (!api::MatchesAllOf(c.volume_node_affinity, node.labels, node.name)) {
    return Refuse(why, "node(s) had volume node affinity conflict");
  }
  if (!api::MatchesAllOf(c.volume_zones, node.labels, node.name)) {
    return Refuse(why, "node(s) had no available volume zone");
  }
  return true;
}

class Predicates : public framework::Plugin {
 public:
  std::unique_ptr<framework::PluginSession> OnSessionOpen(Session& s) override {
    // Resource fit and host ports are the session's own mechanism
    // (Session::Fits), not a plugin's: no policy may book a node past its
    // allocatable or bind a port twice.
    s.Register<framework::Predicate>(StaticFilter);
    return nullptr;  // stateless
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments&) {
  return std::make_unique<Predicates>();
}

}  // namespace shoal::plugins::predicates
