// Persistent volumes as kube-scheduler's VolumeBinding, VolumeZone and
// NodeVolumeLimits (CSI) filters see them: the claims a pod's volumes use,
// the claims themselves, the volumes they are bound to, the storage
// classes that say when an unbound claim gets its volume, and the CSINode
// objects that say how many volumes of each CSI driver a node may attach.
#ifndef SHOAL_SCHEDULER_API_VOLUME_H_
#define SHOAL_SCHEDULER_API_VOLUME_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/api/placement.h"

namespace shoal::api {

// A volume of a pod that needs a PersistentVolumeClaim in the pod's
// namespace: `persistentVolumeClaim.claimName`, or for a generic
// `ephemeral` volume the claim the ephemeral volume controller creates,
// named `<pod name>-<volume name>` and owned by the pod.
struct VolumeClaimRef {
  std::string claim;
  bool ephemeral = false;
  bool operator==(const VolumeClaimRef& o) const {
    return claim == o.claim && ephemeral == o.ephemeral;
  }
};

struct PersistentVolumeClaim {
  std::string ns;
  std::string name;
  std::string volume_name;  // spec.volumeName
  // The annotation volume.beta.kubernetes.io/storage-class, else
  // spec.storageClassName (as kube-scheduler reads the class).
  std::string storage_class;
  // status.phase is Bound (or the PV controller's
  // pv.kubernetes.io/bind-completed annotation is set) and it names its
  // volume.
  bool bound = false;
  bool deleting = false;  // metadata.deletionTimestamp is set
  bool lost = false;      // status.phase is Lost: its volume is gone
  std::string owner_uid;  // the controller ownerReference's uid, or ""

  std::string Key() const { return ns + "/" + name; }
};

struct PersistentVolume {
  std::string name;
  Labels labels;              // for the zone and region labels (VolumeZone)
  std::string storage_class;  // spec.storageClassName
  // spec.nodeAffinity.required.nodeSelectorTerms (ORed); nullopt when the
  // volume may be used from any node.
  std::optional<std::vector<NodeSelectorTerm>> node_affinity;
  // spec.claimRef; empty when the volume is not claimed.
  std::string claim_ns;
  std::string claim_name;
  // spec.csi.driver and spec.csi.volumeHandle; empty when it is not a CSI
  // volume (in-tree volume plugins are not counted against node limits).
  std::string csi_driver;
  std::string csi_handle;
};

// A CSI volume a pod attaches to its node: kube-scheduler's unique name
// is "<driver>/<volume handle>".
struct CsiVolume {
  std::string driver;
  std::string handle;
  bool operator==(const CsiVolume& o) const {
    return driver == o.driver && handle == o.handle;
  }
  bool operator<(const CsiVolume& o) const {
    return driver != o.driver ? driver < o.driver : handle < o.handle;
  }
};

// How many volumes of one CSI driver a node may attach
// (CSINode spec.drivers[].allocatable.count).
struct VolumeLimit {
  std::string driver;
  int64_t count = 0;
  bool operator==(const VolumeLimit& o) const {
    return driver == o.driver && count == o.count;
  }
};

// storage.k8s.io/v1 CSINode, named after its node: the drivers that give
// an attach limit (a driver without allocatable.count has none).
struct CsiNode {
  std::string name;
  std::vector<VolumeLimit> limits;
};

enum class VolumeBindingMode { kImmediate, kWaitForFirstConsumer };

struct StorageClass {
  std::string name;
  VolumeBindingMode binding_mode = VolumeBindingMode::kImmediate;
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_VOLUME_H_
