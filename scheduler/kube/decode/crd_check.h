// Whether an installed CustomResourceDefinition can carry what Shoal
// reads. The API server prunes from a custom object every field its CRD's
// schema does not declare (unless the schema preserves unknown fields
// there), before anyone reads the object: with Volcano v1.7's CRDs a
// PodGroup's spec.networkTopology and a Queue's spec.parent are gone, and
// a hard network gang spreads, a parent's cap is ignored, with no error
// anywhere. The live scheduler watches the CRDs of the kinds it reads and
// warns (log, an IgnoredFields Event on the CRD, the metric
// shoal_crd_pruned_fields) for each field it honours that the schema of
// the version it reads would drop, naming the fix.
#ifndef SHOAL_SCHEDULER_KUBE_DECODE_CRD_CHECK_H_
#define SHOAL_SCHEDULER_KUBE_DECODE_CRD_CHECK_H_

#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "nlohmann/json.hpp"

namespace shoal::kube {

// One field Shoal honours that `crd` would prune.
struct PrunedField {
  std::string path;     // "spec.networkTopology"
  std::string message;  // the whole warning, kubectl-style
};

// For a CRD of a kind Shoal reads (PodGroups of Volcano and
// scheduler-plugins, Volcano's Queues and HyperNodes), the honoured
// fields that the schema of the version Shoal reads prunes; empty for any
// other CRD, or one that keeps them all. A CRD that does not serve that
// version at all is one message of its own (path "").
std::vector<PrunedField> PrunedFields(const nlohmann::json& crd);

// Whether the structural schema `schema` keeps the dotted `path`
// ("spec.networkTopology.mode"): every step is a declared property, or an
// enclosing level preserves unknown fields (x-kubernetes-preserve-unknown-
// fields), or takes any property (additionalProperties).
bool SchemaKeeps(const nlohmann::json& schema, const std::string& path);

// Whether `name` is the CRD of a kind Shoal reads (PrunedFields checks it).
bool IsCheckedCrd(const std::string& name);

// What the CRD watch found, by CRD name, for whoever asks (shoalctl crds).
// Thread-safe: the watch writes while the admin service reads.
class CrdFindings {
 public:
  void Set(const std::string& crd, std::vector<PrunedField> pruned);
  void Erase(const std::string& crd);
  // Whether any CRD of a kind Shoal reads has been seen.
  bool Seen() const;
  std::map<std::string, std::vector<PrunedField>> All() const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::vector<PrunedField>> by_crd_ ABSL_GUARDED_BY(mu_);
};

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_DECODE_CRD_CHECK_H_
