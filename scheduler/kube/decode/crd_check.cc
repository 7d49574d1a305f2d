#include "scheduler/kube/decode/crd_check.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

struct Honoured {
  const char* path;
  const char* what;  // what is lost without it
};

// A kind Shoal reads from a CRD: the CRD's name, the version Shoal reads,
// the kind's name in messages, and the fields Shoal honours.
struct ReadKind {
  const char* crd;
  const char* version;
  const char* kind;
  std::vector<Honoured> fields;
};

const std::vector<ReadKind>& ReadKinds() {
  static const auto* kinds = new std::vector<ReadKind>{
      {"podgroups.scheduling.volcano.sh",
       "v1beta1",
       "PodGroup",
       {{"spec.minMember", "the gang's minimum"},
        {"spec.minTaskMember", "each role's minimum"},
        {"spec.minResources", "admission by the gang's minimum resources"},
        {"spec.queue", "the queue the gang is in"},
        {"spec.priorityClassName", "the gang's priority"},
        {"spec.networkTopology",
         "the gang's network topology: a hard gang spreads over domains"},
        {"spec.subGroupPolicy", "sub-groups' minimums and domains"}}},
      {"queues.scheduling.volcano.sh",
       "v1beta1",
       "Queue",
       {{"spec.weight", "the queue's weight"},
        {"spec.capability", "the queue's cap"},
        {"spec.deserved", "the queue's deserved share"},
        {"spec.guarantee", "the queue's guarantee"},
        {"spec.reclaimable", "whether others may reclaim from the queue"},
        {"spec.priority", "the queue's priority"},
        {"spec.parent",
         "the queue tree: a child is a root, its parent's cap is ignored"}}},
      {"podgroups.scheduling.x-k8s.io",
       "v1alpha1",
       "PodGroup",
       {{"spec.minMember", "the gang's minimum"},
        {"spec.minResources", "admission by the gang's minimum resources"}}},
      {"hypernodes.topology.volcano.sh",
       "v1alpha1",
       "HyperNode",
       {{"spec.tier", "the network tier of the domain"},
        {"spec.tierName", "the tier's name"},
        {"spec.members", "the domain's nodes"}}},
  };
  return *kinds;
}

// The member `key` of `o` when it is of the type asked; the fallback
// otherwise (the API server validates CRDs; nothing here may throw).
std::string StringAt(const json& o, const char* key) {
  if (!o.is_object()) return "";
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}
bool TrueAt(const json& o, const char* key) {
  if (!o.is_object()) return false;
  auto it = o.find(key);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}
const json* ObjectAt(const json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it != o.end() && (it->is_object() || it->is_array()) ? &*it : nullptr;
}

bool Preserves(const json& schema) {
  return TrueAt(schema, "x-kubernetes-preserve-unknown-fields");
}

// The schema of property `field` of an object schema; null when the
// schema declares no such property (additionalProperties: a schema or
// true takes any name).
const json* Property(const json& schema, const std::string& field) {
  if (!schema.is_object()) return nullptr;
  auto props = schema.find("properties");
  if (props != schema.end() && props->is_object()) {
    auto it = props->find(field);
    if (it != props->end()) return &*it;
  }
  auto more = schema.find("additionalProperties");
  if (more != schema.end() && (more->is_object() || more->is_boolean()) &&
      *more != false) {
    static const json kAny = json::object({{"type", "object"}});
    return more->is_object() ? &*more : &kAny;
  }
  return nullptr;
}

constexpr char kFix[] =
    "install Shoal's CRDs (kubectl apply -f conf/crds.yaml) or a newer "
    "release's CRD that declares it";

}  // namespace

bool IsCheckedCrd(const std::string& name) {
  for (const ReadKind& kind : ReadKinds()) {
    if (name == kind.crd) return true;
  }
  return false;
}

bool SchemaKeeps(const json& schema, const std::string& path) {
  const json* at = &schema;
  for (const std::string& step :
       std::vector<std::string>(absl::StrSplit(path, '.'))) {
    if (Preserves(*at)) return true;
    const json* next = Property(*at, step);
    if (next == nullptr) return false;
    at = next;
  }
  return true;
}

std::vector<PrunedField> PrunedFields(const json& crd) {
  std::vector<PrunedField> out;
  if (!crd.is_object()) return out;
  const json* meta = ObjectAt(crd, "metadata");
  const std::string name = meta != nullptr ? StringAt(*meta, "name") : "";
  for (const ReadKind& kind : ReadKinds()) {
    if (name != kind.crd) continue;
    const json* version = nullptr;
    const json* spec = ObjectAt(crd, "spec");
    const json* versions =
        spec != nullptr ? ObjectAt(*spec, "versions") : nullptr;
    if (versions != nullptr && versions->is_array()) {
      for (const json& v : *versions) {
        if (StringAt(v, "name") == kind.version && TrueAt(v, "served"))
          version = &v;
      }
    }
    const std::string head =
        absl::StrCat("CustomResourceDefinition ", name, ": ");
    if (version == nullptr) {
      out.push_back({"", absl::StrCat(head, "does not serve ", kind.version,
                                      ", the version Shoal reads: no ",
                                      kind.kind, " of it is seen; ", kFix)});
      return out;
    }
    // A version without a schema (apiextensions v1 requires one) keeps
    // everything; so does one that preserves unknown fields at the top.
    const json* schema_holder = ObjectAt(*version, "schema");
    const json* schema = schema_holder != nullptr
                             ? ObjectAt(*schema_holder, "openAPIV3Schema")
                             : nullptr;
    if (schema == nullptr || !schema->is_object()) return out;
    for (const Honoured& field : kind.fields) {
      if (SchemaKeeps(*schema, field.path)) continue;
      out.push_back(
          {field.path,
           absl::StrCat(head, "the schema of ", kind.version, " has no ",
                        field.path, ", so the API server drops it from every ",
                        kind.kind, " before Shoal reads it (", field.what,
                        "); ", kFix)});
    }
    return out;
  }
  return out;
}

void CrdFindings::Set(const std::string& crd, std::vector<PrunedField> pruned) {
  absl::MutexLock lock(&mu_);
  by_crd_[crd] = std::move(pruned);
}

void CrdFindings::Erase(const std::string& crd) {
  absl::MutexLock lock(&mu_);
  by_crd_.erase(crd);
}

bool CrdFindings::Seen() const {
  absl::MutexLock lock(&mu_);
  return !by_crd_.empty();
}

std::map<std::string, std::vector<PrunedField>> CrdFindings::All() const {
  absl::MutexLock lock(&mu_);
  return by_crd_;
}

}  // namespace shoal::kube
