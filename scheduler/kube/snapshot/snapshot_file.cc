#include "scheduler/kube/snapshot/snapshot_file.h"

#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/volumes.h"
#include "scheduler/kube/stream/json_stream.h"
#include "scheduler/kube/stream/yaml_stream.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

std::string Describe(const json& obj) {
  std::string kind = StringMember(obj, "kind");
  std::string name;
  if (obj.is_object() && obj.contains("metadata") &&
      obj["metadata"].is_object()) {
    const json& m = obj["metadata"];
    if (m.contains("namespace") && m["namespace"].is_string()) {
      name = m["namespace"].get<std::string>() + "/";
    }
    if (m.contains("name") && m["name"].is_string())
      name += m["name"].get<std::string>();
  }
  return absl::StrCat(kind.empty() ? "object" : kind, name.empty() ? "" : " ",
                      name);
}

// Decodes the objects of one snapshot as they are read, and loads them
// into the cache only once every one has decoded: a bad object loads
// nothing.
class SnapshotObjects {
 public:
  SnapshotObjects(absl::string_view file, std::vector<std::string>* warnings)
      : file_(file), warnings_(warnings) {}

  absl::Status Add(const json& object, int line);
  void LoadInto(cache::Cache& cache) {
    for (auto& f : apply_) f(cache);
  }

 private:
  absl::Status Fail(int line, const absl::Status& s) const {
    return absl::Status(s.code(),
                        absl::StrCat(file_, ":", line, ": ", s.message()));
  }

  // The decoder's warnings, with the place in the file; a field Shoal
  // does not know is said once per kind for the whole file.
  void Warn(int line, const DecodeWarnings& warnings) {
    for (const DecodeWarning& w : warnings) {
      if (!w.per_object && !said_once_.insert(w.once_key).second) continue;
      warnings_->push_back(absl::StrCat(file_, ":", line, ": ", w.message));
    }
  }

  std::string file_;
  std::vector<std::string>* warnings_;
  std::set<std::string> said_once_;
  std::vector<std::function<void(cache::Cache&)>> apply_;
};

absl::Status SnapshotObjects::Add(const json& object, int line) {
  if (!object.is_object() || !object.contains("kind")) {
    return Fail(line, absl::InvalidArgumentError(
                          "not a Kubernetes object: it has no \"kind\""));
  }
  if (!object["kind"].is_string()) {
    return Fail(line,
                absl::InvalidArgumentError(absl::StrCat(
                    "not a Kubernetes object: kind: must be a string, got ",
                    object["kind"].dump())));
  }
  const std::string kind = object["kind"].get<std::string>();
  if (kind == "List") {
    return Fail(line,
                absl::InvalidArgumentError("List: items: must be a list"));
  }
  if (const json* api_version =
          object.contains("apiVersion") ? &object["apiVersion"] : nullptr;
      api_version != nullptr && !api_version->is_string()) {
    return Fail(line,
                absl::InvalidArgumentError(absl::StrCat(
                    Describe(object), ": apiVersion: must be a string, got ",
                    api_version->dump())));
  }
  if (kind == "Node") {
    auto node = DecodeNode(object);
    if (!node.ok()) return Fail(line, node.status());
    apply_.push_back([n = *node](cache::Cache& cache) { cache.UpsertNode(n); });
  } else if (kind == "Pod") {
    DecodeWarnings said;
    auto pod = DecodePod(object, &said);
    if (!pod.ok()) return Fail(line, pod.status());
    Warn(line, said);
    apply_.push_back([p = *pod](cache::Cache& cache) {
      cache.UpsertPod(p.pod, p.has_priority);
    });
  } else if (IsKubePodGroup(object)) {
    DecodeWarnings said;
    auto group = DecodeKubePodGroup(object, &said);
    if (!group.ok()) return Fail(line, group.status());
    Warn(line, said);
    apply_.push_back(
        [g = *group](cache::Cache& cache) { cache.UpsertPodGroup(g); });
  } else if (IsVolcanoPodGroup(object) || IsSchedulerPluginsPodGroup(object)) {
    DecodeWarnings said;
    auto group = DecodePodGroup(object, &said);
    if (!group.ok()) return Fail(line, group.status());
    Warn(line, said);
    apply_.push_back(
        [g = *group](cache::Cache& cache) { cache.UpsertPodGroup(g); });
  } else if (kind == "Queue" &&
             absl::StartsWith(StringMember(object, "apiVersion"),
                              "scheduling.volcano.sh/")) {
    DecodeWarnings said;
    auto queue = DecodeQueue(object, &said);
    if (!queue.ok()) return Fail(line, queue.status());
    Warn(line, said);
    apply_.push_back(
        [q = *queue](cache::Cache& cache) { cache.UpsertQueue(q); });
  } else if (IsHyperNode(object)) {
    DecodeWarnings said;
    auto h = DecodeHyperNode(object, &said);
    if (!h.ok()) return Fail(line, h.status());
    Warn(line, said);
    apply_.push_back(
        [h = *h](cache::Cache& cache) { cache.UpsertHyperNode(h); });
  } else if (IsCompositePodGroup(object)) {
    DecodeWarnings said;
    auto group = DecodeCompositePodGroup(object, &said);
    if (!group.ok()) return Fail(line, group.status());
    Warn(line, said);
    apply_.push_back([g = *group](cache::Cache& cache) {
      cache.UpsertCompositePodGroup(g);
    });
  } else if (IsWorkload(object)) {
    DecodeWarnings said;
    auto w = DecodeWorkload(object, &said);
    if (!w.ok()) return Fail(line, w.status());
    Warn(line, said);
    apply_.push_back(
        [w = *w](cache::Cache& cache) { cache.UpsertWorkload(w); });
  } else if (kind == "Namespace") {
    auto ns = DecodeNamespace(object);
    if (!ns.ok()) return Fail(line, ns.status());
    apply_.push_back([n = *ns](cache::Cache& cache) {
      cache.UpsertNamespace(n.name, n.labels);
    });
  } else if (kind == "PriorityClass") {
    auto pc = DecodePriorityClass(object);
    if (!pc.ok()) return Fail(line, pc.status());
    apply_.push_back(
        [p = *pc](cache::Cache& cache) { cache.UpsertPriorityClass(p); });
  } else if (kind == "PersistentVolumeClaim") {
    auto claim = DecodePersistentVolumeClaim(object);
    if (!claim.ok()) return Fail(line, claim.status());
    apply_.push_back([c = *claim](cache::Cache& cache) {
      cache.UpsertPersistentVolumeClaim(c);
    });
  } else if (kind == "PersistentVolume") {
    auto pv = DecodePersistentVolume(object);
    if (!pv.ok()) return Fail(line, pv.status());
    apply_.push_back(
        [v = *pv](cache::Cache& cache) { cache.UpsertPersistentVolume(v); });
  } else if (kind == "StorageClass" &&
             absl::StartsWith(StringMember(object, "apiVersion"),
                              "storage.k8s.io/")) {
    auto sc = DecodeStorageClass(object);
    if (!sc.ok()) return Fail(line, sc.status());
    apply_.push_back(
        [c = *sc](cache::Cache& cache) { cache.UpsertStorageClass(c); });
  } else if (kind == "CSINode" &&
             absl::StartsWith(StringMember(object, "apiVersion"),
                              "storage.k8s.io/")) {
    auto node = DecodeCsiNode(object);
    if (!node.ok()) return Fail(line, node.status());
    apply_.push_back(
        [n = *node](cache::Cache& cache) { cache.UpsertCsiNode(n); });
  } else if (absl::StartsWith(StringMember(object, "apiVersion"),
                              "resource.k8s.io/") &&
             (kind == "ResourceSlice" || kind == "DeviceClass" ||
              kind == "ResourceClaim" || kind == "DeviceTaintRule")) {
    DecodeWarnings said;
    if (kind == "DeviceTaintRule") {
      auto rule = DecodeDeviceTaintRule(object, &said);
      if (!rule.ok()) return Fail(line, rule.status());
      apply_.push_back(
          [r = *rule](cache::Cache& cache) { cache.UpsertDeviceTaintRule(r); });
    } else if (kind == "ResourceSlice") {
      auto s = DecodeResourceSlice(object, &said);
      if (!s.ok()) return Fail(line, s.status());
      apply_.push_back(
          [s = *s](cache::Cache& cache) { cache.UpsertResourceSlice(s); });
    } else if (kind == "DeviceClass") {
      auto c = DecodeDeviceClass(object, &said);
      if (!c.ok()) return Fail(line, c.status());
      apply_.push_back(
          [c = *c](cache::Cache& cache) { cache.UpsertDeviceClass(c); });
    } else {
      auto c = DecodeResourceClaim(object, &said);
      if (!c.ok()) return Fail(line, c.status());
      apply_.push_back(
          [c = *c](cache::Cache& cache) { cache.UpsertResourceClaim(c); });
    }
    Warn(line, said);
  } else {
    warnings_->push_back(
        absl::StrCat(file_, ":", line, ": skipping ", Describe(object),
                     ": Shoal reads Node, Pod, PodGroup, Queue, "
                     "HyperNode, Workload, CompositePodGroup, "
                     "PriorityClass, Namespace, "
                     "PersistentVolume, PersistentVolumeClaim, "
                     "StorageClass, CSINode, ResourceSlice, DeviceClass, "
                     "ResourceClaim and DeviceTaintRule"));
  }
  return absl::OkStatus();
}

// A List's items were handed on; anything else with items is refused.
absl::Status CheckList(const JsonEnvelope& envelope, absl::string_view file,
                       int line, SnapshotObjects& objects) {
  if (!envelope.had_items) return absl::OkStatus();
  const json& fields = envelope.fields;
  auto kind = fields.find("kind");
  if (kind == fields.end() || !kind->is_string()) {
    return objects.Add(fields, line);  // says what is wrong with its kind
  }
  if (absl::EndsWith(kind->get<std::string>(), "List")) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      file, ":", line, ": ", kind->get<std::string>(),
      " has items: only a List (kind: List, PodList, ...) lists objects"));
}

absl::Status WithFile(const absl::Status& s, absl::string_view file) {
  return absl::Status(s.code(), absl::StrCat(file, ":", s.message()));
}

// Both readers stream: only one object's tree exists at a time.
absl::Status LoadJson(JsonSource& source, absl::string_view file,
                      cache::Cache& cache, std::vector<std::string>* warnings) {
  SnapshotObjects objects(file, warnings);
  auto read = ReadJsonObjects(source, [&objects](json object, int line) {
    return objects.Add(object, line);
  });
  if (!read.ok()) {
    // The objects' own errors name the file already.
    if (absl::StartsWith(read.status().message(), file)) return read.status();
    return WithFile(read.status(), file);
  }
  if (absl::Status s = CheckList(*read, file, 1, objects); !s.ok()) return s;
  objects.LoadInto(cache);
  return absl::OkStatus();
}

absl::Status LoadYaml(std::istream& in, absl::string_view file,
                      cache::Cache& cache, std::vector<std::string>* warnings) {
  SnapshotObjects objects(file, warnings);
  auto read = ReadYamlObjects(in, [&objects](json object, int line) {
    return objects.Add(object, line);
  });
  if (!read.ok()) {
    if (absl::StartsWith(read.status().message(), file)) return read.status();
    return WithFile(read.status(), file);
  }
  for (const YamlDocumentEnvelope& d : *read) {
    if (absl::Status s = CheckList(d.envelope, file, d.line, objects); !s.ok())
      return s;
  }
  objects.LoadInto(cache);
  return absl::OkStatus();
}

}  // namespace

absl::Status LoadSnapshot(absl::string_view text, absl::string_view file,
                          cache::Cache& cache,
                          std::vector<std::string>* warnings) {
  JsonSource source = JsonSource::Text(text);
  if (source.FirstNonBlank() == '{') {
    return LoadJson(source, file, cache, warnings);
  }
  std::istringstream in{std::string(text)};
  return LoadYaml(in, file, cache, warnings);
}

absl::Status LoadSnapshotFile(const std::string& path, cache::Cache& cache,
                              std::vector<std::string>* warnings) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(
      std::fopen(path.c_str(), "rb"), &std::fclose);
  if (file == nullptr) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot read the snapshot file"));
  }
  JsonSource source = JsonSource::File(file.get());
  if (source.FirstNonBlank() == '{') {
    return LoadJson(source, path, cache, warnings);
  }
  std::ifstream in(path);
  return LoadYaml(in, path, cache, warnings);
}

}  // namespace shoal::kube
