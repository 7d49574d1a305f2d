#include "scheduler/kube/snapshot_file.h"

#include <fstream>
#include <functional>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/kube/objects.h"
#include "scheduler/kube/volumes.h"
#include "scheduler/kube/yaml_json.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

struct Located {
  const json* object;
  int line;
};

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

}  // namespace

absl::Status LoadSnapshot(absl::string_view text, absl::string_view file,
                          cache::Cache& cache,
                          std::vector<std::string>* warnings) {
  auto docs = ParseYamlDocuments(text, file);
  if (!docs.ok()) return docs.status();
  std::vector<Located> objects;
  for (const auto& doc : *docs) {
    const json& v = doc.value;
    if (StringMember(v, "kind") == "List" && v.contains("items")) {
      if (!v["items"].is_array()) {
        return absl::InvalidArgumentError(
            absl::StrCat(file, ":", doc.line, ": List: items: must be a list"));
      }
      for (size_t i = 0; i < v["items"].size(); ++i) {
        int line = i < doc.item_lines.size() ? doc.item_lines[i] : doc.line;
        objects.push_back({&v["items"][i], line});
      }
    } else {
      objects.push_back({&v, doc.line});
    }
  }
  // Decode everything first: a bad object loads nothing.
  std::vector<std::function<void()>> apply;
  auto fail = [&](int line, const absl::Status& s) {
    return absl::Status(s.code(),
                        absl::StrCat(file, ":", line, ": ", s.message()));
  };
  for (const auto& [obj, line] : objects) {
    if (!obj->is_object() || !obj->contains("kind")) {
      return fail(line, absl::InvalidArgumentError(
                            "not a Kubernetes object: it has no \"kind\""));
    }
    if (!(*obj)["kind"].is_string()) {
      return fail(line,
                  absl::InvalidArgumentError(absl::StrCat(
                      "not a Kubernetes object: kind: must be a string, got ",
                      (*obj)["kind"].dump())));
    }
    const std::string kind = (*obj)["kind"].get<std::string>();
    if (const json* api_version =
            obj->contains("apiVersion") ? &(*obj)["apiVersion"] : nullptr;
        api_version != nullptr && !api_version->is_string()) {
      return fail(line,
                  absl::InvalidArgumentError(absl::StrCat(
                      Describe(*obj), ": apiVersion: must be a string, got ",
                      api_version->dump())));
    }
    if (kind == "Node") {
      auto node = DecodeNode(*obj);
      if (!node.ok()) return fail(line, node.status());
      apply.push_back([&cache, n = *node] { cache.UpsertNode(n); });
    } else if (kind == "Pod") {
      auto pod = DecodePod(*obj);
      if (!pod.ok()) return fail(line, pod.status());
      apply.push_back(
          [&cache, p = *pod] { cache.UpsertPod(p.pod, p.has_priority); });
    } else if (IsVolcanoPodGroup(*obj) || IsSchedulerPluginsPodGroup(*obj)) {
      auto group = DecodePodGroup(*obj);
      if (!group.ok()) return fail(line, group.status());
      apply.push_back([&cache, g = *group] { cache.UpsertPodGroup(g); });
    } else if (kind == "Queue" &&
               absl::StartsWith(StringMember(*obj, "apiVersion"),
                                "scheduling.volcano.sh/")) {
      auto queue = DecodeQueue(*obj);
      if (!queue.ok()) return fail(line, queue.status());
      apply.push_back([&cache, q = *queue] { cache.UpsertQueue(q); });
    } else if (kind == "Namespace") {
      auto ns = DecodeNamespace(*obj);
      if (!ns.ok()) return fail(line, ns.status());
      apply.push_back(
          [&cache, n = *ns] { cache.UpsertNamespace(n.name, n.labels); });
    } else if (kind == "PriorityClass") {
      auto pc = DecodePriorityClass(*obj);
      if (!pc.ok()) return fail(line, pc.status());
      apply.push_back([&cache, p = *pc] { cache.UpsertPriorityClass(p); });
    } else if (kind == "PersistentVolumeClaim") {
      auto claim = DecodePersistentVolumeClaim(*obj);
      if (!claim.ok()) return fail(line, claim.status());
      apply.push_back(
          [&cache, c = *claim] { cache.UpsertPersistentVolumeClaim(c); });
    } else if (kind == "PersistentVolume") {
      auto pv = DecodePersistentVolume(*obj);
      if (!pv.ok()) return fail(line, pv.status());
      apply.push_back([&cache, v = *pv] { cache.UpsertPersistentVolume(v); });
    } else if (kind == "StorageClass" &&
               absl::StartsWith(StringMember(*obj, "apiVersion"),
                                "storage.k8s.io/")) {
      auto sc = DecodeStorageClass(*obj);
      if (!sc.ok()) return fail(line, sc.status());
      apply.push_back([&cache, c = *sc] { cache.UpsertStorageClass(c); });
    } else if (kind == "CSINode" &&
               absl::StartsWith(StringMember(*obj, "apiVersion"),
                                "storage.k8s.io/")) {
      auto node = DecodeCsiNode(*obj);
      if (!node.ok()) return fail(line, node.status());
      apply.push_back([&cache, n = *node] { cache.UpsertCsiNode(n); });
    } else {
      warnings->push_back(
          absl::StrCat(file, ":", line, ": skipping ", Describe(*obj),
                       ": Shoal reads Node, Pod, PodGroup, Queue, "
                       "PriorityClass, Namespace, PersistentVolume, "
                       "PersistentVolumeClaim, StorageClass and "
                       "CSINode"));
    }
  }
  for (auto& f : apply) f();
  return absl::OkStatus();
}

absl::Status LoadSnapshotFile(const std::string& path, cache::Cache& cache,
                              std::vector<std::string>* warnings) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot read the snapshot file"));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return LoadSnapshot(buffer.str(), path, cache, warnings);
}

}  // namespace shoal::kube
