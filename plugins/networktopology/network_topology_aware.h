// Volcano's network-topology-aware plugin, as its configuration names it.
//
// Where a gang bound to the network goes is mechanism (the allocate
// action, scheduler/actions/network_domains.h): a job's stated hard limit
// holds whatever plugins a policy lists, and domains are always tried
// fullest first. This plugin adds what is preference: pods of jobs without
// a network constraint prefer nodes in fuller domains (Volcano's
// hypernode.binpack.normal-pod), so that they do not scatter over every
// rack and leave none whole. A node scores the fullness of each domain it
// is in, tier by tier, the wider tiers counting less (weights fading^(tier
// - 1)); fullness is (used + the pod's request) / allocatable over the
// domain's nodes, per resource weighted as hypernode.binpack.cpu, .memory
// and .resources.<name> say, and 0 where the pod would not fit. It is
// measured when the session opens.
//
// Arguments: weight, hypernode.binpack.cpu, hypernode.binpack.memory,
// hypernode.binpack.resources (and .resources.<name>),
// hypernode.binpack.normal-pod.enable, hypernode.binpack.normal-pod.fading
// (Volcano's, with Volcano's defaults), and Shoal's tierLabels: node label
// keys, narrowest first, that describe the network where no HyperNode
// does (framework/policy.h, NetworkTierLabels).
#ifndef SHOAL_PLUGINS_NETWORKTOPOLOGY_NETWORK_TOPOLOGY_AWARE_H_
#define SHOAL_PLUGINS_NETWORKTOPOLOGY_NETWORK_TOPOLOGY_AWARE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/arguments.h"
#include "scheduler/framework/plugin.h"

namespace shoal::plugins::networktopology {

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args);

}  // namespace shoal::plugins::networktopology

#endif  // SHOAL_PLUGINS_NETWORKTOPOLOGY_NETWORK_TOPOLOGY_AWARE_H_
