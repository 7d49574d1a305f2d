#include "scheduler/live_kinds.h"

#include "absl/strings/str_cat.h"
#include "scheduler/kube/decode/crd_check.h"
#include "scheduler/kube/decode/fields.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/volumes.h"
#include "scheduler/metrics/scheduler_metrics.h"

namespace shoal {
namespace {

using nlohmann::json;

// List items of core kinds come without apiVersion and kind; the decoders
// tell PodGroup APIs apart by them.
// Anything but an object is left to the decoder to refuse.
json Typed(json object, const char* api_version, const char* kind) {
  if (!object.is_object()) return object;
  if (!object.contains("apiVersion")) object["apiVersion"] = api_version;
  if (!object.contains("kind")) object["kind"] = kind;
  return object;
}

// The object an Event about `o` names.
kube::ObjectRef RefOf(const json& o, const char* api_version,
                      const char* kind) {
  const json& meta = kube::fields::Metadata(o);
  return {api_version, kind, kube::StringMember(meta, "namespace"),
          kube::StringMember(meta, "name"), kube::StringMember(meta, "uid")};
}

// Dynamic Resource Allocation, in the version the API server serves
// (discovery: a cluster before 1.32, or without the API, gets none of
// these). Required once served: a cycle before every claim is listed
// could give a device some claim on a later page already holds.
void AddDeviceKinds(cache::Cache& cache, kube::WarningLog& warnings,
                    const std::string& v, const std::string& taint_rules,
                    std::vector<kube::WatchedKind>& kinds) {
  const std::string base = absl::StrCat("/apis/", v);
  kinds.push_back(
      {absl::StrCat("resourceslices (", v, ")"), base + "/resourceslices",
       false,
       [&cache, &warnings, v](const json& o) {
         kube::DecodeWarnings said;
         auto s = kube::DecodeResourceSlice(
             Typed(o, v.c_str(), "ResourceSlice"), &said);
         if (!s.ok()) return s.status();
         warnings.Report(RefOf(o, v.c_str(), "ResourceSlice"), said);
         cache.UpsertResourceSlice(*s);
         return absl::OkStatus();
       },
       [&cache](const std::string& key) { cache.DeleteResourceSlice(key); }});
  kinds.push_back(
      {absl::StrCat("deviceclasses (", v, ")"), base + "/deviceclasses", false,
       [&cache, &warnings, v](const json& o) {
         kube::DecodeWarnings said;
         auto c =
             kube::DecodeDeviceClass(Typed(o, v.c_str(), "DeviceClass"), &said);
         if (!c.ok()) return c.status();
         warnings.Report(RefOf(o, v.c_str(), "DeviceClass"), said);
         cache.UpsertDeviceClass(*c);
         return absl::OkStatus();
       },
       [&cache](const std::string& key) { cache.DeleteDeviceClass(key); }});
  if (!taint_rules.empty()) {
    const std::string rules_base = absl::StrCat("/apis/", taint_rules);
    kinds.push_back(
        {absl::StrCat("devicetaintrules (", taint_rules, ")"),
         rules_base + "/devicetaintrules", false,
         [&cache, &warnings, taint_rules](const json& o) {
           kube::DecodeWarnings said;
           auto r = kube::DecodeDeviceTaintRule(
               Typed(o, taint_rules.c_str(), "DeviceTaintRule"), &said);
           if (!r.ok()) return r.status();
           warnings.Report(RefOf(o, taint_rules.c_str(), "DeviceTaintRule"),
                           said);
           cache.UpsertDeviceTaintRule(*r);
           return absl::OkStatus();
         },
         [&cache](const std::string& key) {
           cache.DeleteDeviceTaintRule(key);
         }});
  }
  kinds.push_back(
      {absl::StrCat("resourceclaims (", v, ")"), base + "/resourceclaims",
       false,
       [&cache, &warnings, v](const json& o) {
         kube::DecodeWarnings said;
         auto c = kube::DecodeResourceClaim(
             Typed(o, v.c_str(), "ResourceClaim"), &said);
         if (!c.ok()) return c.status();
         warnings.Report(RefOf(o, v.c_str(), "ResourceClaim"), said);
         cache.UpsertResourceClaim(*c);
         return absl::OkStatus();
       },
       [&cache](const std::string& key) { cache.DeleteResourceClaim(key); }});
}

}  // namespace

std::vector<kube::WatchedKind> LiveKinds(
    cache::Cache& cache, kube::StatusWriter& status, kube::WarningLog& warnings,
    const std::string& dra_version, const std::string& taint_rule_version,
    kube::CrdFindings* crds, const GangApiVersions& gang) {
  std::vector<kube::WatchedKind> kinds;
  kinds.push_back(
      {"nodes", "/api/v1/nodes", false,
       [&cache](const json& o) {
         auto node = kube::DecodeNode(Typed(o, "v1", "Node"));
         if (!node.ok()) return node.status();
         cache.UpsertNode(*node);
         return absl::OkStatus();
       },
       [&cache](const std::string& key) { cache.DeleteNode(key); }});
  kinds.push_back({"pods", "/api/v1/pods", false,
                   [&cache, &status, &warnings](const json& o) {
                     kube::DecodeWarnings said;
                     auto pod = kube::DecodePod(Typed(o, "v1", "Pod"), &said);
                     if (!pod.ok()) return pod.status();
                     warnings.Report(RefOf(o, "v1", "Pod"), said);
                     if (pod->pod->scheduler_name == cache.scheduler_name())
                       status.ObservePod(o);
                     cache.UpsertPod(pod->pod, pod->has_priority);
                     return absl::OkStatus();
                   },
                   [&cache, &status, &warnings](const std::string& key) {
                     cache.DeletePod(key);
                     status.ForgetPod(key);
                     warnings.Forget(kube::NamedObject("pod", key));
                   }});
  for (const char* api_version :
       {"scheduling.volcano.sh/v1beta1", "scheduling.x-k8s.io/v1alpha1"}) {
    kinds.push_back(
        {absl::StrCat("podgroups (", api_version, ")"),
         absl::StrCat("/apis/", api_version, "/podgroups"), true,
         [&cache, &status, &warnings, api_version](const json& o) {
           json typed = Typed(o, api_version, "PodGroup");
           kube::DecodeWarnings said;
           auto group = kube::DecodePodGroup(typed, &said);
           if (!group.ok()) return group.status();
           warnings.Report(RefOf(o, api_version, "PodGroup"), said);
           status.ObservePodGroup(typed);
           cache.UpsertPodGroup(*group);
           return absl::OkStatus();
         },
         [&cache, &status, &warnings, api_version](const std::string& key) {
           cache.DeletePodGroup(key);
           status.ForgetPodGroup(api_version, key);
           warnings.Forget(kube::NamedObject("podgroup", key));
         }});
  }
  kinds.push_back({"queues", "/apis/scheduling.volcano.sh/v1beta1/queues", true,
                   [&cache, &warnings](const json& o) {
                     kube::DecodeWarnings said;
                     auto queue = kube::DecodeQueue(o, &said);
                     if (!queue.ok()) return queue.status();
                     warnings.Report(
                         RefOf(o, "scheduling.volcano.sh/v1beta1", "Queue"),
                         said);
                     cache.UpsertQueue(*queue);
                     return absl::OkStatus();
                   },
                   [&cache, &warnings](const std::string& key) {
                     cache.DeleteQueue(key);
                     warnings.Forget(kube::NamedObject("queue", key));
                   }});
  // The CRDs of the kinds above: a schema that would drop a field Shoal
  // honours is said (kube/crd_check.h) at start and whenever the CRD
  // changes. Optional: RBAC may not let Shoal read CRDs.
  kinds.push_back(
      {"customresourcedefinitions",
       "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", true,
       [&warnings, crds](const json& o) {
         const std::string name =
             kube::StringMember(kube::fields::Metadata(o), "name");
         const std::vector<kube::PrunedField> pruned = kube::PrunedFields(o);
         if (pruned.empty() && !kube::IsCheckedCrd(name))
           return absl::OkStatus();
         if (crds != nullptr) crds->Set(name, pruned);
         metrics::Shoal().crd_pruned_fields.With({name}).Set(
             static_cast<double>(pruned.size()));
         kube::DecodeWarnings said;
         for (const kube::PrunedField& p : pruned)
           said.push_back({"customresourcedefinition " + name, p.message});
         warnings.Report(
             RefOf(o, "apiextensions.k8s.io/v1", "CustomResourceDefinition"),
             said);
         return absl::OkStatus();
       },
       [&warnings, crds](const std::string& key) {
         warnings.Forget("customresourcedefinition " + key);
         if (crds != nullptr) crds->Erase(key);
       }});
  // Volcano's network topology; a cluster without the CRD has none.
  kinds.push_back(
      {"hypernodes", "/apis/topology.volcano.sh/v1alpha1/hypernodes", true,
       [&cache, &warnings](const json& o) {
         json typed = Typed(o, "topology.volcano.sh/v1alpha1", "HyperNode");
         kube::DecodeWarnings said;
         auto h = kube::DecodeHyperNode(typed, &said);
         if (!h.ok()) return h.status();
         warnings.Report(RefOf(o, "topology.volcano.sh/v1alpha1", "HyperNode"),
                         said);
         cache.UpsertHyperNode(*h);
         return absl::OkStatus();
       },
       [&cache, &warnings](const std::string& key) {
         cache.DeleteHyperNode(key);
         warnings.Forget(kube::NamedObject("hypernode", key));
       }});
  // Kubernetes' own gang API (KEP-4671, KEP-6012): served only where its
  // feature gates and API versions are on; a cluster without it has none.
  if (!gang.workloads.empty()) {
    const std::string v = gang.workloads;
    kinds.push_back({absl::StrCat("workloads (", v, ")"),
                     absl::StrCat("/apis/", v, "/workloads"), true,
                     [&cache, &warnings, v](const json& o) {
                       json typed = Typed(o, v.c_str(), "Workload");
                       kube::DecodeWarnings said;
                       auto w = kube::DecodeWorkload(typed, &said);
                       if (!w.ok()) return w.status();
                       warnings.Report(RefOf(o, v.c_str(), "Workload"), said);
                       cache.UpsertWorkload(*w);
                       return absl::OkStatus();
                     },
                     [&cache, &warnings](const std::string& key) {
                       cache.DeleteWorkload(key);
                       warnings.Forget(kube::NamedObject("workload", key));
                     }});
  }
  status.SetKubeGroupVersions(gang.pod_groups, gang.composite_pod_groups);
  if (!gang.pod_groups.empty()) {
    const std::string v = gang.pod_groups;
    kinds.push_back({absl::StrCat("podgroups (", v, ")"),
                     absl::StrCat("/apis/", v, "/podgroups"), true,
                     [&cache, &warnings, &status, v](const json& o) {
                       json typed = Typed(o, v.c_str(), "PodGroup");
                       kube::DecodeWarnings said;
                       auto group = kube::DecodeKubePodGroup(typed, &said);
                       if (!group.ok()) return group.status();
                       warnings.Report(RefOf(o, v.c_str(), "PodGroup"), said);
                       status.ObserveKubeGroup("podgroups", typed);
                       cache.UpsertPodGroup(*group);
                       return absl::OkStatus();
                     },
                     [&cache, &warnings, &status, v](const std::string& key) {
                       cache.DeletePodGroup(key);
                       status.ForgetKubeGroup(v, "podgroups", key);
                       warnings.Forget(kube::NamedObject("podgroup", key));
                     }});
  }
  if (!gang.composite_pod_groups.empty()) {
    const std::string v = gang.composite_pod_groups;
    kinds.push_back(
        {absl::StrCat("compositepodgroups (", v, ")"),
         absl::StrCat("/apis/", v, "/compositepodgroups"), true,
         [&cache, &warnings, &status, v](const json& o) {
           json typed = Typed(o, v.c_str(), "CompositePodGroup");
           kube::DecodeWarnings said;
           auto group = kube::DecodeCompositePodGroup(typed, &said);
           if (!group.ok()) return group.status();
           warnings.Report(RefOf(o, v.c_str(), "CompositePodGroup"), said);
           status.ObserveKubeGroup("compositepodgroups", typed);
           cache.UpsertCompositePodGroup(*group);
           return absl::OkStatus();
         },
         [&cache, &warnings, &status, v](const std::string& key) {
           cache.DeleteCompositePodGroup(key);
           status.ForgetKubeGroup(v, "compositepodgroups", key);
           warnings.Forget(kube::NamedObject("compositepodgroup", key));
         }});
  }
  kinds.push_back(
      {"namespaces", "/api/v1/namespaces", false,
       [&cache](const json& o) {
         auto ns = kube::DecodeNamespace(o);
         if (!ns.ok()) return ns.status();
         cache.UpsertNamespace(ns->name, ns->labels);
         return absl::OkStatus();
       },
       [&cache](const std::string& key) { cache.DeleteNamespace(key); }});
  kinds.push_back(
      {"priorityclasses", "/apis/scheduling.k8s.io/v1/priorityclasses", false,
       [&cache](const json& o) {
         auto pc = kube::DecodePriorityClass(o);
         if (!pc.ok()) return pc.status();
         cache.UpsertPriorityClass(*pc);
         return absl::OkStatus();
       },
       [&cache](const std::string& key) { cache.DeletePriorityClass(key); }});
  // What kube-scheduler's VolumeBinding and VolumeZone read.
  kinds.push_back({"persistentvolumeclaims", "/api/v1/persistentvolumeclaims",
                   false,
                   [&cache](const json& o) {
                     auto claim = kube::DecodePersistentVolumeClaim(o);
                     if (!claim.ok()) return claim.status();
                     cache.UpsertPersistentVolumeClaim(*claim);
                     return absl::OkStatus();
                   },
                   [&cache](const std::string& key) {
                     cache.DeletePersistentVolumeClaim(key);
                   }});
  kinds.push_back({"persistentvolumes", "/api/v1/persistentvolumes", false,
                   [&cache](const json& o) {
                     auto pv = kube::DecodePersistentVolume(o);
                     if (!pv.ok()) return pv.status();
                     cache.UpsertPersistentVolume(*pv);
                     return absl::OkStatus();
                   },
                   [&cache](const std::string& key) {
                     cache.DeletePersistentVolume(key);
                   }});
  kinds.push_back(
      {"storageclasses", "/apis/storage.k8s.io/v1/storageclasses", false,
       [&cache](const json& o) {
         auto sc = kube::DecodeStorageClass(o);
         if (!sc.ok()) return sc.status();
         cache.UpsertStorageClass(*sc);
         return absl::OkStatus();
       },
       [&cache](const std::string& key) { cache.DeleteStorageClass(key); }});
  // What kube-scheduler's NodeVolumeLimits reads: attach limits per CSI driver.
  kinds.push_back(
      {"csinodes", "/apis/storage.k8s.io/v1/csinodes", false,
       [&cache](const json& o) {
         auto node = kube::DecodeCsiNode(o);
         if (!node.ok()) return node.status();
         cache.UpsertCsiNode(*node);
         return absl::OkStatus();
       },
       [&cache](const std::string& key) { cache.DeleteCsiNode(key); }});
  if (!dra_version.empty()) {
    AddDeviceKinds(cache, warnings, dra_version, taint_rule_version, kinds);
  }
  return kinds;
}

}  // namespace shoal
