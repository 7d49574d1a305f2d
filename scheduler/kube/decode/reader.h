// Field reading shared by the decoders of this folder, one file per kind
// (node_decoder.cc, pod_decoder.cc, pod_group_decoder.cc, ...): every
// refusal starts with the object and names the field path
//   pod team-a/worker-0: spec.containers[0].resources.requests.cpu: ...
// and nothing throws, whatever a field holds.
#ifndef SHOAL_SCHEDULER_KUBE_DECODE_READER_H_
#define SHOAL_SCHEDULER_KUBE_DECODE_READER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "scheduler/api/placement.h"
#include "scheduler/api/resource.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/scheduling_fields.h"

namespace shoal::kube {

using nlohmann::json;

// Reads fields of one object; every error it makes starts with the object
// ("pod team-a/worker-0: ") and names the field path.
class Reader {
 public:
  explicit Reader(std::string what) : what_(std::move(what)) {}
  // The object, as errors name it ("resourceslice gpu-node-1").
  const std::string& object() const { return what_; }

  absl::Status Error(absl::string_view path, absl::string_view why) const {
    return absl::InvalidArgumentError(
        absl::StrCat(what_, ": ", path, ": ", why));
  }

  // The member `key` of `obj` when it is an object; an empty object when
  // it is absent or null; refused when it is anything else (a `status`
  // that is text must not read as a status that says nothing).
  absl::StatusOr<const json*> Section(const json& obj, const char* key) const {
    static const json kNone = json::object();
    const json* v = Get(obj, key);
    if (v == nullptr) return &kNone;
    if (!v->is_object()) {
      return Error(key, absl::StrCat("must be an object, got ", v->dump()));
    }
    return v;
  }

  // The member `key` of `obj` when it is present and not null.
  static const json* Get(const json& obj, const char* key) {
    if (!obj.is_object()) return nullptr;
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return nullptr;
    return &*it;
  }

  absl::StatusOr<std::string> String(const json& obj, const char* key,
                                     absl::string_view path,
                                     std::string fallback = "") const {
    const json* v = Get(obj, key);
    if (v == nullptr) return fallback;
    if (!v->is_string()) {
      return Error(path, absl::StrCat("must be a string, got ", v->dump()));
    }
    return v->get<std::string>();
  }

  absl::StatusOr<int64_t> Int(const json& obj, const char* key,
                              absl::string_view path, int64_t fallback) const {
    const json* v = Get(obj, key);
    if (v == nullptr) return fallback;
    if (!v->is_number_integer()) {
      return Error(path,
                   absl::StrCat("must be a whole number, got ", v->dump()));
    }
    return v->get<int64_t>();
  }

  absl::StatusOr<bool> Bool(const json& obj, const char* key,
                            absl::string_view path, bool fallback) const {
    const json* v = Get(obj, key);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) {
      return Error(path,
                   absl::StrCat("must be true or false, got ", v->dump()));
    }
    return v->get<bool>();
  }

  // A ResourceList: {"cpu": "500m", "memory": 1073741824, ...}, every
  // name kept (a node's allocatable: whatever the kubelet reports).
  absl::StatusOr<api::Resource> Resources(const json* list,
                                          absl::string_view path) const;

  // A ResourceList a workload or a queue asks for: names no node can have
  // (ResourceQuota's count/pods, requests.cpu, limits.memory, ...) are
  // left out, as Volcano's scheduler leaves them out, and remembered for
  // one warning per object (TakeWarnings).
  absl::StatusOr<api::Resource> WorkloadResources(const json* list,
                                                  absl::string_view path) const;

  // Checks `section` (the object's spec) against the list of its kind's
  // fields that bear on placement: returns the first field present that
  // Shoal does not implement ("" when none), as "spec.<name>", with its
  // value in *value; fields the list does not name are remembered for a
  // warning said once per kind.
  std::string CheckFields(const json& section, absl::string_view section_path,
                          const SchedulingFields& fields,
                          std::string* value = nullptr) const;

  // Adds a warning about this object, said once per object.
  void Warn(std::string message) const;

  // What was left out of this object, in words for the operator.
  void TakeWarnings(DecodeWarnings* out) const;

  // "key=value" maps (labels, annotations, nodeSelector).
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> StringMap(
      const json* m, absl::string_view path) const {
    std::vector<std::pair<std::string, std::string>> out;
    if (m == nullptr) return out;
    if (!m->is_object()) return Error(path, "must be a map of strings");
    for (const auto& [k, v] : m->items()) {
      if (!v.is_string()) {
        return Error(absl::StrCat(path, ".", k),
                     absl::StrCat("must be a string, got ", v.dump()));
      }
      out.emplace_back(k, v.get<std::string>());
    }
    return out;
  }

 private:
  std::string what_;
  // (path, name) of each resource name WorkloadResources left out.
  mutable std::vector<std::pair<std::string, std::string>> ignored_;
  mutable DecodeWarnings warnings_;
};

#define SHOAL_ASSIGN_OR_RETURN(lhs, expr)       \
  auto lhs##_or = (expr);                       \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = std::move(*lhs##_or)

#define SHOAL_RETURN_IF_ERROR(expr)                    \
  do {                                                 \
    if (absl::Status s_ = (expr); !s_.ok()) return s_; \
  } while (0)

// obj["metadata"] when it is an object, else an empty object.
const json& Metadata(const json& obj);
// metadata.name, or ""; metadata.namespace, or "default".
std::string NameOf(const json& obj);
std::string NamespaceOf(const json& obj);
// "<kind> without a name: metadata.name is required" when it has none.
absl::Status RequireName(const json& obj, absl::string_view kind);
// An RFC 3339 time at meta[key]; the epoch when absent.
absl::StatusOr<absl::Time> Timestamp(const Reader& r, const json& meta,
                                     const char* key, absl::string_view path);
absl::StatusOr<api::TaintEffect> Effect(const Reader& r, const std::string& s,
                                        absl::string_view path);
// metadata.annotations' kResizeCostAnnotation (objects.h): whole seconds
// >= 0, or -1 when absent. Any other value refuses the object (its gang
// waits, naming it): a guessed cost would resize a job that said it
// cannot afford it.
absl::StatusOr<int32_t> ResizeCostOf(const Reader& r, const json& meta);
// metadata.annotations' kThroughputAnnotation (objects.h): comma-separated
// pods=throughput points, pod counts whole, >= 1 and ascending, throughputs
// positive and finite; divided by the throughput at 1 pod when it names
// 1 pod, so that the curve is relative to one pod. Empty when absent. Any
// other value refuses the object, as a bad resize cost does: a guessed
// curve would move pods between jobs on numbers nobody gave.
absl::StatusOr<std::vector<std::pair<int32_t, double>>> ThroughputOf(
    const Reader& r, const json& meta);
// metadata.annotations' kProgressAnnotation (objects.h): a finite number
// >= 0, or -1 when absent. Any other value refuses the object, as a bad
// curve does.
absl::StatusOr<double> ProgressOf(const Reader& r, const json& meta);
// The two classes the API server lets exceed a user class's value.
bool IsCriticalClass(const std::string& name);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_DECODE_READER_H_
