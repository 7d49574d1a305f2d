#include "tools/bench/realistic_objects.h"

#include <cstdio>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "scheduler/kube/snapshot/snapshot_writer.h"

namespace shoal::bench {
namespace {

using nlohmann::json;

std::string Uid(uint64_t n, uint64_t salt) {
  return absl::StrFormat("%08x-%04x-4%03x-8%03x-%012x", n * 2654435761u,
                         salt & 0xffff, n & 0xfff, (n >> 12) & 0xfff,
                         n * 0x9e3779b97f4a7c15ull >> 16);
}

void SetIfAbsent(json& object, const char* key, json value) {
  if (!object.contains(key)) object[key] = std::move(value);
}

// The field tree a controller's server-side apply records: one entry per
// field it set, as `kubectl get -o json` shows it.
json ControllerManagedFields(const std::string& time) {
  json container = {{".", json::object()},
                    {"f:args", json::object()},
                    {"f:command", json::object()},
                    {"f:env",
                     {{".", json::object()},
                      {"k:{\"name\":\"MASTER_ADDR\"}",
                       {{".", json::object()},
                        {"f:name", json::object()},
                        {"f:value", json::object()}}},
                      {"k:{\"name\":\"WORLD_SIZE\"}",
                       {{".", json::object()},
                        {"f:name", json::object()},
                        {"f:value", json::object()}}}}},
                    {"f:image", json::object()},
                    {"f:imagePullPolicy", json::object()},
                    {"f:name", json::object()},
                    {"f:resources",
                     {{".", json::object()},
                      {"f:limits", json::object()},
                      {"f:requests", json::object()}}},
                    {"f:terminationMessagePath", json::object()},
                    {"f:terminationMessagePolicy", json::object()},
                    {"f:volumeMounts", json::object()}};
  json fields = {
      {"f:metadata",
       {{"f:annotations",
         {{".", json::object()},
          {"f:scheduling.k8s.io/group-name", json::object()},
          {"f:volcano.sh/job-name", json::object()},
          {"f:volcano.sh/job-version", json::object()},
          {"f:volcano.sh/queue-name", json::object()}}},
        {"f:labels",
         {{".", json::object()},
          {"f:volcano.sh/job-name", json::object()},
          {"f:volcano.sh/job-namespace", json::object()},
          {"f:volcano.sh/queue-name", json::object()}}},
        {"f:ownerReferences",
         {{".", json::object()}, {"k:{\"uid\":\"0\"}", json::object()}}}}},
      {"f:spec",
       {{"f:containers", {{"k:{\"name\":\"worker\"}", container}}},
        {"f:dnsPolicy", json::object()},
        {"f:enableServiceLinks", json::object()},
        {"f:restartPolicy", json::object()},
        {"f:schedulerName", json::object()},
        {"f:securityContext", json::object()},
        {"f:terminationGracePeriodSeconds", json::object()}}}};
  return json::array({{{"apiVersion", "v1"},
                       {"fieldsType", "FieldsV1"},
                       {"fieldsV1", fields},
                       {"manager", "vc-controller-manager"},
                       {"operation", "Update"},
                       {"time", time}}});
}

json KubeletManagedFields(const std::string& time) {
  json conditions = json::object();
  for (const char* type :
       {"DiskPressure", "MemoryPressure", "PIDPressure", "Ready"}) {
    conditions[absl::StrCat("k:{\"type\":\"", type, "\"}")] = {
        {".", json::object()},
        {"f:lastHeartbeatTime", json::object()},
        {"f:lastTransitionTime", json::object()},
        {"f:message", json::object()},
        {"f:reason", json::object()},
        {"f:status", json::object()},
        {"f:type", json::object()}};
  }
  json status = {
      {"f:allocatable", json::object()}, {"f:capacity", json::object()},
      {"f:conditions", conditions},      {"f:daemonEndpoints", json::object()},
      {"f:images", json::object()},      {"f:nodeInfo", json::object()}};
  return json::array(
      {{{"apiVersion", "v1"},
        {"fieldsType", "FieldsV1"},
        {"fieldsV1",
         {{"f:metadata",
           {{"f:annotations",
             {{".", json::object()},
              {"f:volumes.kubernetes.io/controller-managed-attach-detach",
               json::object()}}},
            {"f:labels",
             {{".", json::object()},
              {"f:beta.kubernetes.io/arch", json::object()},
              {"f:beta.kubernetes.io/os", json::object()},
              {"f:kubernetes.io/arch", json::object()},
              {"f:kubernetes.io/os", json::object()}}}}}}},
        {"manager", "kubelet"},
        {"operation", "Update"},
        {"time", time}},
       {{"apiVersion", "v1"},
        {"fieldsType", "FieldsV1"},
        {"fieldsV1", {{"f:status", status}}},
        {"manager", "kubelet"},
        {"operation", "Update"},
        {"subresource", "status"},
        {"time", time}}});
}

}  // namespace

void DressPod(json& pod, uint64_t n, const std::string& queue) {
  const std::string time = "2026-11-01T08:00:00Z";
  json& meta = pod["metadata"];
  SetIfAbsent(meta, "uid", Uid(n, 1));
  SetIfAbsent(meta, "resourceVersion", std::to_string(100000 + n));
  SetIfAbsent(meta, "creationTimestamp", time);
  const std::string job =
      meta.value("annotations", json::object())
          .value("scheduling.k8s.io/group-name", std::string("job"));
  SetIfAbsent(meta, "ownerReferences",
              json::array({{{"apiVersion", "batch.volcano.sh/v1alpha1"},
                            {"blockOwnerDeletion", true},
                            {"controller", true},
                            {"kind", "Job"},
                            {"name", job},
                            {"uid", Uid(n / 50, 2)}}}));
  SetIfAbsent(meta, "managedFields", ControllerManagedFields(time));
  // What Volcano's job controller writes on each pod it creates (the
  // managed fields above name them), but for the task-spec annotation,
  // which Shoal reads (a gang's minTaskMember counts pods by it).
  const std::string ns = meta.value("namespace", std::string("default"));
  json& annotations = meta["annotations"];
  SetIfAbsent(annotations, "volcano.sh/job-name", job);
  SetIfAbsent(annotations, "volcano.sh/job-version", "0");
  SetIfAbsent(annotations, "volcano.sh/queue-name", queue);
  json& labels = meta["labels"];
  SetIfAbsent(labels, "volcano.sh/job-name", job);
  SetIfAbsent(labels, "volcano.sh/job-namespace", ns);
  SetIfAbsent(labels, "volcano.sh/queue-name", queue);

  json& spec = pod["spec"];
  for (json& c : spec["containers"]) {
    SetIfAbsent(c, "image", "registry.example.com/ml/trainer:2026.11.1-cuda12");
    SetIfAbsent(c, "imagePullPolicy", "IfNotPresent");
    SetIfAbsent(c, "command",
                json::array({"torchrun", "--nnodes=$(WORLD_SIZE)",
                             "--nproc-per-node=8"}));
    SetIfAbsent(c, "args",
                json::array({"train.py", "--config=/etc/job/config",
                             "--checkpoint-dir=/data/ckpt"}));
    json env = json::array();
    for (const char* name :
         {"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "NCCL_DEBUG",
          "PYTHONUNBUFFERED", "VC_TASK_INDEX", "VK_TASK_INDEX"}) {
      env.push_back({{"name", name}, {"value", absl::StrCat(name, "-", n)}});
    }
    SetIfAbsent(c, "env", env);
    SetIfAbsent(c, "volumeMounts",
                json::array({{{"mountPath", "/data"}, {"name", "data"}},
                             {{"mountPath", "/etc/job"}, {"name", "config"}},
                             {{"mountPath",
                               "/var/run/secrets/kubernetes.io/serviceaccount"},
                              {"name", "kube-api-access"},
                              {"readOnly", true}}}));
    SetIfAbsent(c, "terminationMessagePath", "/dev/termination-log");
    SetIfAbsent(c, "terminationMessagePolicy", "File");
  }
  SetIfAbsent(spec, "dnsPolicy", "ClusterFirst");
  SetIfAbsent(spec, "enableServiceLinks", true);
  SetIfAbsent(spec, "restartPolicy", "OnFailure");
  SetIfAbsent(spec, "securityContext", json::object());
  SetIfAbsent(spec, "serviceAccount", "default");
  SetIfAbsent(spec, "serviceAccountName", "default");
  SetIfAbsent(spec, "terminationGracePeriodSeconds", 30);
  SetIfAbsent(
      spec, "volumes",
      json::array(
          {{{"name", "data"}, {"emptyDir", json::object()}},
           {{"name", "config"},
            {"configMap", {{"defaultMode", 420}, {"name", job + "-config"}}}},
           {{"name", "kube-api-access"},
            {"projected",
             {{"defaultMode", 420},
              {"sources",
               json::array(
                   {{{"serviceAccountToken",
                      {{"expirationSeconds", 3607}, {"path", "token"}}}},
                    {{"configMap",
                      {{"items",
                        json::array({{{"key", "ca.crt"}, {"path", "ca.crt"}}})},
                       {"name", "kube-root-ca.crt"}}}}})}}}}}));
  if (pod.contains("status"))
    SetIfAbsent(pod["status"], "qosClass", "Guaranteed");
}

void DressNode(json& node, uint64_t n) {
  const std::string time = "2026-11-01T07:00:00Z";
  json& meta = node["metadata"];
  SetIfAbsent(meta, "uid", Uid(n, 3));
  SetIfAbsent(meta, "resourceVersion", std::to_string(900000 + n));
  SetIfAbsent(meta, "creationTimestamp", time);
  SetIfAbsent(meta, "managedFields", KubeletManagedFields(time));
  // The kubelet's own labels (named in its managed fields).
  json& labels = meta["labels"];
  for (const char* os : {"beta.kubernetes.io/os", "kubernetes.io/os"})
    SetIfAbsent(labels, os, "linux");
  for (const char* arch : {"beta.kubernetes.io/arch", "kubernetes.io/arch"})
    SetIfAbsent(labels, arch, "amd64");
  SetIfAbsent(node["spec"], "podCIDR",
              absl::StrFormat("10.%d.%d.0/24", (n >> 8) & 255, n & 255));
  json& status = node["status"];
  SetIfAbsent(
      status, "addresses",
      json::array(
          {{{"address",
             absl::StrFormat("172.16.%d.%d", (n >> 8) & 255, n & 255)},
            {"type", "InternalIP"}},
           {{"address", meta.value("name", "node")}, {"type", "Hostname"}}}));
  SetIfAbsent(status, "daemonEndpoints",
              {{"kubeletEndpoint", {{"Port", 10250}}}});
  SetIfAbsent(status, "nodeInfo",
              {{"architecture", "amd64"},
               {"bootID", Uid(n, 4)},
               {"containerRuntimeVersion", "containerd://1.7.13"},
               {"kernelVersion", "6.1.0-18-amd64"},
               {"kubeProxyVersion", "v1.26.15"},
               {"kubeletVersion", "v1.26.15"},
               {"machineID", Uid(n, 5)},
               {"operatingSystem", "linux"},
               {"osImage", "Debian GNU/Linux 12 (bookworm)"},
               {"systemUUID", Uid(n, 6)}});
  json images = json::array();
  for (int i = 0; i < 12; ++i) {
    images.push_back(
        {{"names",
          json::array(
              {absl::StrFormat("registry.example.com/ml/image-%d@sha256:%064x",
                               i, static_cast<uint64_t>(i) * 7919),
               absl::StrFormat("registry.example.com/ml/image-%d:v%d", i, i)})},
         {"sizeBytes", 120000000 + i * 1000003}});
  }
  SetIfAbsent(status, "images", images);
}

absl::flat_hash_map<std::string, std::string> QueuesOfPodGroups(
    const json& list) {
  absl::flat_hash_map<std::string, std::string> queues;
  for (const json& item : list.value("items", json::array())) {
    if (item.value("kind", "") != "PodGroup") continue;
    const json& meta = item.value("metadata", json::object());
    queues[absl::StrCat(meta.value("namespace", ""), "/",
                        meta.value("name", ""))] =
        item.value("spec", json::object()).value("queue", "default");
  }
  return queues;
}

std::string QueueOfPod(
    const absl::flat_hash_map<std::string, std::string>& queues,
    const json& pod) {
  const json& meta = pod.value("metadata", json::object());
  auto it =
      queues.find(absl::StrCat(meta.value("namespace", ""), "/",
                               meta.value("annotations", json::object())
                                   .value("scheduling.k8s.io/group-name", "")));
  return it == queues.end() ? "default" : it->second;
}

absl::StatusOr<uint64_t> WriteRealisticSnapshot(const cache::Cache& cache,
                                                const std::string& path) {
  json list = kube::EncodeSnapshotList(cache.Export());
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(
      std::fopen(path.c_str(), "wb"), &std::fclose);
  if (out == nullptr) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot write"));
  }
  uint64_t bytes = 0;
  auto write = [&](const std::string& s) {
    bytes += std::fwrite(s.data(), 1, s.size(), out.get());
  };
  // As kubectl prints a List: apiVersion, items, kind, metadata.
  write("{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n");
  const auto queues = QueuesOfPodGroups(list);
  uint64_t n = 0;
  for (json& item : list["items"]) {
    const std::string kind = item.value("kind", "");
    if (kind == "Pod") DressPod(item, n, QueueOfPod(queues, item));
    if (kind == "Node") DressNode(item, n);
    write(absl::StrCat(n == 0 ? "" : ",\n", item.dump(4)));
    ++n;
    item = nullptr;  // keep the generator's memory to the model's
  }
  write(
      "\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        "
      "\"resourceVersion\": \"\"\n    }\n}\n");
  if (std::ferror(out.get())) {
    return absl::DataLossError(absl::StrCat(path, ": write failed"));
  }
  return bytes;
}

}  // namespace shoal::bench
