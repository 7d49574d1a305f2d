// Writes a cache back out as the Kubernetes objects it was fed: one
// `kind: List` JSON document that `shoal-scheduler --snapshot=FILE`
// (LoadSnapshot, with the decoders of objects.cc and volumes.cc) reads
// back into an equal cache, so a replay of a live cluster's state decides
// what the live cycle decided. "Capture live, replay offline."
//
// Each object carries exactly the fields the decoders read, written so
// they decode to the same model: a pod's effective request (its
// containers, init containers, sidecars and overhead as kube-scheduler
// sums them) is written as the requests of one container; matchLabels,
// matchLabelKeys and mismatchLabelKeys, already folded into a selector,
// come back as matchExpressions; a term's default namespace (the pod's
// own) is written out. Items are sorted by kind, then by key, and every
// object's keys are sorted: equal caches give equal text.
//
// What the cache holds beyond the objects, and how it is written:
// * an assumed bind (AssumeBound) is the pod bound to the assumed node
//   (spec.nodeName, status.phase Pending): it reads back as Bound, where
//   the live snapshot shows it Binding;
// * a kept PodGroup phase (KeepDecisions) is the PodGroup's status.phase.
//
// What cannot be written (lossy spots):
// * a kept elastic target: the decoders do not read status.elasticTarget,
//   and the elastic plugin computes the target afresh each cycle, so it is
//   left out;
// * how a kept phase would later give way (the phase the source showed
//   when it was decided): read back, it is the source's phase;
// * a PodGroup's apiVersion beyond its API group: Volcano's are written
//   as scheduling.volcano.sh/v1beta1, scheduler-plugins' as
//   scheduling.x-k8s.io/v1alpha1;
// * statuses no decoder produces (Allocated, Pipelined, Binding; a
//   Pending pod with a node name) are written as the nearest one that it
//   does: Binding as Bound, Allocated and Pipelined by their node name;
// * an unsupported field other than spec.resources (the only one the pod
//   decoder reports) is written as spec.resources;
// * a ResourceClaim's owner is written by uid alone, and DRA objects in
//   resource.k8s.io/v1 whatever version they were read in.
#ifndef SHOAL_SCHEDULER_KUBE_SNAPSHOT_SNAPSHOT_WRITER_H_
#define SHOAL_SCHEDULER_KUBE_SNAPSHOT_SNAPSHOT_WRITER_H_

#include <string>

#include "nlohmann/json.hpp"
#include "scheduler/cache/cache.h"

namespace shoal::kube {

// The List object (apiVersion v1, kind List, items).
nlohmann::json EncodeSnapshotList(const cache::CacheContents& contents);

// Its JSON text, indented, ending in a newline.
std::string WriteSnapshotList(const cache::CacheContents& contents);
std::string WriteSnapshotList(const cache::Cache& cache);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_SNAPSHOT_SNAPSHOT_WRITER_H_
