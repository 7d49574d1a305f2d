// Decodes Kubernetes objects (as the API server serves them, or as kubectl
// prints them) into Shoal's model, one file per kind (node_decoder.cc,
// pod_decoder.cc, ...). Refusals name the object and the field:
//   podgroup team-a/resnet: spec.minMember: must be >= 0, got -1
// What a decoder reads but leaves out is never dropped without a word: it
// comes back as a warning for the operator.
#ifndef SHOAL_SCHEDULER_KUBE_DECODE_OBJECTS_H_
#define SHOAL_SCHEDULER_KUBE_DECODE_OBJECTS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "scheduler/api/composite_pod_group.h"
#include "scheduler/api/job_info.h"
#include "scheduler/api/network_topology.h"
#include "scheduler/api/node_info.h"
#include "scheduler/api/priority_class.h"
#include "scheduler/api/queue_info.h"
#include "scheduler/api/task_info.h"
#include "scheduler/api/workload.h"

namespace shoal::kube {

// How a pod names its group: Volcano/kube-batch annotation, or the
// scheduler-plugins label.
inline constexpr char kGroupAnnotation[] = "scheduling.k8s.io/group-name";
inline constexpr char kGroupLabel[] = "scheduling.x-k8s.io/pod-group";
// Volcano's job controller names each pod's task (role) here.
inline constexpr char kTaskSpecAnnotation[] = "volcano.sh/task-spec";
// Where Volcano's controllers name a queue on objects without a spec for
// it; Shoal reads it on Kubernetes' Workloads and PodGroups (annotation,
// else label) and writes it back there.
inline constexpr char kQueueNameAnnotation[] =
    "scheduling.volcano.sh/queue-name";
// PodGroup annotation, Shoal's own: what one change of the job's running
// pod count costs it, in whole seconds (README "Resizes that cost a
// restart"). Read by the elastic plugin; absent: the policy's default.
inline constexpr char kResizeCostAnnotation[] = "shoal.dev/resize-cost-seconds";
// PodGroup (or Workload) annotation, Shoal's own: the job's throughput
// relative to one pod, by pod count, "1=1,2=1.9,4=3.5,8=6.1" (README
// "Elastic scheduling"). Read by the elastic plugin (share: throughput).
inline constexpr char kThroughputAnnotation[] = "shoal.dev/throughput";
// The work a job has done so far, in any unit, as its trainer reports it.
inline constexpr char kProgressAnnotation[] = "shoal.dev/progress";
// Pod annotation or label: "false" keeps the pod from ever being a victim.
inline constexpr char kPreemptableKey[] = "volcano.sh/preemptable";

// Something a decoder read and left out, or a field it does not know.
struct DecodeWarning {
  // Said once per key: the object ("podgroup ns/name") for what one
  // object holds; the kind and the field ("podgroup spec.foo") for a field
  // Shoal does not know at all, which every object of a kind may carry.
  std::string once_key;
  // With the object, the field and the value, as kubectl would say it.
  std::string message;
  // True when the warning is about one object (an Event on it is useful).
  bool per_object = true;
};
using DecodeWarnings = std::vector<DecodeWarning>;

// How the decoders name an object ("podgroup team/llm", "queue research"):
// the start of every refusal and warning about it, and the once_key of
// its per-object warnings, so that whoever forgets a deleted object
// (WarningLog::Forget) names it the same way. `key` is namespace/name, or
// the name of a cluster-scoped object.
std::string NamedObject(absl::string_view kind, absl::string_view key);

// obj[key] when it is a string, else "" (never throws, whatever the
// object holds).
std::string StringMember(const nlohmann::json& obj, const char* key);

absl::StatusOr<std::shared_ptr<api::NodeSpec>> DecodeNode(
    const nlohmann::json& obj);

// `has_priority` tells whether spec.priority was set (the API server's
// admission sets it; hand-written manifests may leave it to the class).
struct DecodedPod {
  std::shared_ptr<api::PodInfo> pod;
  bool has_priority = false;
};
// The three decoders of workload objects add to `warnings` (when not
// null) what they left out: resource names no node has, fields Shoal
// does not know.
absl::StatusOr<DecodedPod> DecodePod(const nlohmann::json& obj,
                                     DecodeWarnings* warnings);

// A PodGroup of either API group; the job has no tasks yet.
absl::StatusOr<api::JobInfo> DecodePodGroup(const nlohmann::json& obj,
                                            DecodeWarnings* warnings);

absl::StatusOr<api::QueueInfo> DecodeQueue(const nlohmann::json& obj,
                                           DecodeWarnings* warnings);

absl::StatusOr<api::PriorityClass> DecodePriorityClass(
    const nlohmann::json& obj);

// A Namespace's name and labels.
struct DecodedNamespace {
  std::string name;
  api::Labels labels;
};
absl::StatusOr<DecodedNamespace> DecodeNamespace(const nlohmann::json& obj);

// A HyperNode of Volcano (topology.volcano.sh/v1alpha1): one domain of
// the network (api/network_topology.h).
absl::StatusOr<api::HyperNodeSpec> DecodeHyperNode(const nlohmann::json& obj,
                                                   DecodeWarnings* warnings);

// Kubernetes' Workload (scheduling.k8s.io, KEP-4671): its pod groups,
// gangs or basic (api/workload.h).
absl::StatusOr<api::WorkloadSpec> DecodeWorkload(const nlohmann::json& obj,
                                                 DecodeWarnings* warnings);

// Kubernetes' own PodGroup (scheduling.k8s.io v1alpha2, v1beta1,
// v1alpha3, made from a Workload's template; pods join it by
// spec.schedulingGroup): a gang of schedulingPolicy.gang.minCount, or
// basic (minimum 1); a leaf of a tree when it names a parent.
absl::StatusOr<api::JobInfo> DecodeKubePodGroup(const nlohmann::json& obj,
                                                DecodeWarnings* warnings);

// Kubernetes' CompositePodGroup (scheduling.k8s.io/v1alpha3, KEP-6012):
// a non-leaf group of a tree (api/composite_pod_group.h).
absl::StatusOr<api::CompositePodGroupSpec> DecodeCompositePodGroup(
    const nlohmann::json& obj, DecodeWarnings* warnings);

// Dynamic Resource Allocation (resource.k8s.io v1, v1beta2, v1beta1):
// the devices a driver publishes, the classes that select them, the
// claims pods make (api/devices.h).
absl::StatusOr<api::ResourceSlice> DecodeResourceSlice(
    const nlohmann::json& obj, DecodeWarnings* warnings);
absl::StatusOr<api::DeviceClass> DecodeDeviceClass(const nlohmann::json& obj,
                                                   DecodeWarnings* warnings);
absl::StatusOr<api::ResourceClaim> DecodeResourceClaim(
    const nlohmann::json& obj, DecodeWarnings* warnings);
// DeviceTaintRule (resource.k8s.io v1, v1beta2, v1alpha3).
absl::StatusOr<api::DeviceTaintRule> DecodeDeviceTaintRule(
    const nlohmann::json& obj, DecodeWarnings* warnings);

// "kind apiVersion" pairs Shoal reads; anything else is skipped.
bool IsVolcanoPodGroup(const nlohmann::json& obj);
bool IsHyperNode(const nlohmann::json& obj);
bool IsWorkload(const nlohmann::json& obj);
bool IsKubePodGroup(const nlohmann::json& obj);
bool IsCompositePodGroup(const nlohmann::json& obj);
bool IsSchedulerPluginsPodGroup(const nlohmann::json& obj);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_DECODE_OBJECTS_H_
