// The kinds live mode lists and watches, and what each does with an object
// the API server sends: decode it and put it in the cache (and show it to
// the status writer). Apart from live.cc so that tools/fuzz feeds the
// informers exactly these.
#ifndef SHOAL_SCHEDULER_LIVE_KINDS_H_
#define SHOAL_SCHEDULER_LIVE_KINDS_H_

#include <string>
#include <vector>

#include "scheduler/cache/cache.h"
#include "scheduler/kube/client/informer.h"
#include "scheduler/kube/decode/crd_check.h"
#include "scheduler/kube/write/status_writer.h"
#include "scheduler/kube/write/warning_log.h"

namespace shoal {

// The scheduling.k8s.io versions Kubernetes' gang API is watched in: the
// newest the API server serves of each kind ("" when it serves none).
// One version per kind: a server serving two serves the same objects.
struct GangApiVersions {
  std::string workloads = "scheduling.k8s.io/v1beta1";
  std::string pod_groups = "scheduling.k8s.io/v1beta1";
  std::string composite_pod_groups = "scheduling.k8s.io/v1alpha3";
};

// What the decoders leave out goes to `warnings`, said once.
// `dra_version`: the resource.k8s.io version to watch ResourceSlices,
// DeviceClasses and ResourceClaims in (the newest the API server serves,
// see PreferredDraVersion), "" for none; `taint_rule_version` the one to
// watch DeviceTaintRules in ("" when none serves them). What the CRDs of
// the kinds read would drop goes to `crds` too, when given (shoalctl crds).
// `gang`: where Workloads, PodGroups and CompositePodGroups are watched.
std::vector<kube::WatchedKind> LiveKinds(
    cache::Cache& cache, kube::StatusWriter& status, kube::WarningLog& warnings,
    const std::string& dra_version = "resource.k8s.io/v1",
    const std::string& taint_rule_version = "",
    kube::CrdFindings* crds = nullptr,
    const GangApiVersions& gang = GangApiVersions());

}  // namespace shoal

#endif  // SHOAL_SCHEDULER_LIVE_KINDS_H_
