#include "scheduler/kube/decode/reader.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "scheduler/api/resource_name.h"
#include "scheduler/kube/decode/fields.h"
#include "scheduler/kube/decode/objects.h"

namespace shoal::kube {

absl::StatusOr<api::Resource> Reader::Resources(const json* list,
                                                absl::string_view path) const {
  // Made in place: a moved empty Resource trips GCC 12's
  // -Wmaybe-uninitialized inside Abseil's InlinedVector.
  if (list == nullptr) return absl::StatusOr<api::Resource>(absl::in_place);
  if (!list->is_object()) {
    return Error(path, "must be a map of resource names to quantities");
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& [name, value] : list->items()) {
    if (value.is_string()) {
      pairs.emplace_back(name, value.get<std::string>());
    } else if (value.is_number_integer()) {
      pairs.emplace_back(name, std::to_string(value.get<int64_t>()));
    } else {
      return Error(absl::StrCat(path, ".", name),
                   absl::StrCat("must be a quantity, got ", value.dump()));
    }
  }
  auto r = api::Resource::FromList(pairs, path);
  if (!r.ok())
    return absl::Status(r.status().code(),
                        absl::StrCat(what_, ": ", r.status().message()));
  return r;
}

absl::StatusOr<api::Resource> Reader::WorkloadResources(
    const json* list, absl::string_view path) const {
  if (list == nullptr || !list->is_object()) return Resources(list, path);
  bool all_node_names = true;
  for (const auto& item : list->items()) {
    all_node_names &= api::IsNodeResourceName(item.key());
  }
  if (all_node_names) return Resources(list, path);
  json kept = json::object();
  for (const auto& [name, value] : list->items()) {
    if (api::IsNodeResourceName(name)) {
      kept[name] = value;
    } else {
      ignored_.emplace_back(std::string(path), name);
    }
  }
  return Resources(&kept, path);
}

std::string Reader::CheckFields(const json& section,
                                absl::string_view section_path,
                                const SchedulingFields& fields,
                                std::string* value) const {
  std::string first;
  if (!section.is_object()) return first;
  for (const auto& [name, v] : section.items()) {
    // What the API server would drop or default is no request at all.
    if (v.is_null() || ((v.is_object() || v.is_array()) && v.empty())) {
      continue;
    }
    const std::string path = absl::StrCat(section_path, ".", name);
    const FieldRule* rule = fields.Find(name);
    if (rule == nullptr) {
      warnings_.push_back(
          {absl::StrCat(fields.kind, " ", path),
           absl::StrCat(what_, ": ", path,
                        ": not a field Shoal knows; ignored (said once for "
                        "every ",
                        fields.kind, ")"),
           /*per_object=*/false});
      continue;
    }
    if (rule->use == FieldUse::kNotImplemented && first.empty()) {
      first = path;
      if (value != nullptr) *value = v.dump();
    }
  }
  return first;
}

void Reader::Warn(std::string message) const {
  warnings_.push_back({what_, absl::StrCat(what_, ": ", message), true});
}

void Reader::TakeWarnings(DecodeWarnings* out) const {
  if (!ignored_.empty()) {
    // One sentence per object: "ignored spec.minResources count/pods,
    // limits.cpu; spec.overhead requests.cpu: ...".
    std::vector<std::string> parts;
    for (size_t i = 0; i < ignored_.size();) {
      const std::string& path = ignored_[i].first;
      std::vector<std::string> names;
      for (; i < ignored_.size() && ignored_[i].first == path; ++i) {
        names.push_back(ignored_[i].second);
      }
      std::sort(names.begin(), names.end());
      parts.push_back(absl::StrCat(path, " ", absl::StrJoin(names, ", ")));
    }
    warnings_.insert(
        warnings_.begin(),
        {what_,
         absl::StrCat(what_, ": ignored ", absl::StrJoin(parts, "; "),
                      ": not resources a node has (ResourceQuota's names; "
                      "Volcano's scheduler ignores them too)"),
         true});
    ignored_.clear();
  }
  if (out != nullptr) {
    out->insert(out->end(), warnings_.begin(), warnings_.end());
  }
  warnings_.clear();
}

std::string NamedObject(absl::string_view kind, absl::string_view key) {
  return absl::StrCat(kind, " ", key);
}

const json& Metadata(const json& obj) {
  static const json kEmpty = json::object();
  const json* m = Reader::Get(obj, "metadata");
  return m != nullptr && m->is_object() ? *m : kEmpty;
}

std::string NameOf(const json& obj) {
  const json* n = Reader::Get(Metadata(obj), "name");
  return n != nullptr && n->is_string() ? n->get<std::string>() : "";
}

std::string NamespaceOf(const json& obj) {
  const json* n = Reader::Get(Metadata(obj), "namespace");
  return n != nullptr && n->is_string() ? n->get<std::string>() : "default";
}

absl::Status RequireName(const json& obj, absl::string_view kind) {
  if (NameOf(obj).empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kind, " without a name: metadata.name is required"));
  }
  return absl::OkStatus();
}

absl::StatusOr<absl::Time> Timestamp(const Reader& r, const json& meta,
                                     const char* key, absl::string_view path) {
  SHOAL_ASSIGN_OR_RETURN(text, r.String(meta, key, path));
  if (text.empty()) return absl::UnixEpoch();
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, text, &t, &err)) {
    return r.Error(
        path, absl::StrCat("must be an RFC 3339 time, got \"", text, "\""));
  }
  return t;
}

absl::StatusOr<api::TaintEffect> Effect(const Reader& r, const std::string& s,
                                        absl::string_view path) {
  if (s == "NoSchedule") return api::TaintEffect::kNoSchedule;
  if (s == "PreferNoSchedule") return api::TaintEffect::kPreferNoSchedule;
  if (s == "NoExecute") return api::TaintEffect::kNoExecute;
  return r.Error(path, absl::StrCat("unknown effect \"", s,
                                    "\" (valid: NoSchedule, PreferNoSchedule, "
                                    "NoExecute)"));
}

bool IsCriticalClass(const std::string& name) {
  return name == "system-cluster-critical" || name == "system-node-critical";
}

std::string StringMember(const json& obj, const char* key) {
  const json* v = Reader::Get(obj, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

bool IsVolcanoPodGroup(const json& obj) {
  return StringMember(obj, "kind") == "PodGroup" &&
         absl::StartsWith(StringMember(obj, "apiVersion"),
                          "scheduling.volcano.sh/");
}

bool IsSchedulerPluginsPodGroup(const json& obj) {
  return StringMember(obj, "kind") == "PodGroup" &&
         absl::StartsWith(StringMember(obj, "apiVersion"),
                          "scheduling.x-k8s.io/");
}

namespace fields {

std::string Name(const json& obj) { return NameOf(obj); }
std::string Namespace(const json& obj) { return NamespaceOf(obj); }
absl::Status RequireName(const json& obj, absl::string_view kind) {
  return kube::RequireName(obj, kind);
}
const json& Metadata(const json& obj) { return kube::Metadata(obj); }
const json* Get(const json& obj, const char* key) {
  return Reader::Get(obj, key);
}

absl::Status Error(const std::string& what, absl::string_view path,
                   absl::string_view why) {
  return Reader(what).Error(path, why);
}

absl::StatusOr<std::string> String(const std::string& what, const json& obj,
                                   const char* key, absl::string_view path,
                                   std::string fallback) {
  return Reader(what).String(obj, key, path, std::move(fallback));
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> StringMap(
    const std::string& what, const json* m, absl::string_view path) {
  return Reader(what).StringMap(m, path);
}

}  // namespace fields
absl::StatusOr<int32_t> ResizeCostOf(const Reader& r, const json& meta) {
  SHOAL_ASSIGN_OR_RETURN(
      annotations,
      r.StringMap(Reader::Get(meta, "annotations"), "metadata.annotations"));
  for (const auto& [k, v] : annotations) {
    if (k != kResizeCostAnnotation) continue;
    int32_t seconds = -1;
    if (!absl::SimpleAtoi(v, &seconds) || seconds < 0) {
      return r.Error(
          absl::StrCat("metadata.annotations[\"", k, "\"]"),
          absl::StrCat("must be a whole number of seconds >= 0, got \"", v,
                       "\""));
    }
    return seconds;
  }
  return -1;
}

absl::StatusOr<std::vector<std::pair<int32_t, double>>> ThroughputOf(
    const Reader& r, const json& meta) {
  SHOAL_ASSIGN_OR_RETURN(
      annotations,
      r.StringMap(Reader::Get(meta, "annotations"), "metadata.annotations"));
  std::vector<std::pair<int32_t, double>> curve;
  for (const auto& annotation : annotations) {
    // Named, not bound: a lambda may not capture a structured binding
    // (clang, C++17).
    const std::string& k = annotation.first;
    const std::string& v = annotation.second;
    if (k != kThroughputAnnotation) continue;
    auto refuse = [&](absl::string_view why) {
      return r.Error(
          absl::StrCat("metadata.annotations[\"", k, "\"]"),
          absl::StrCat("must be pods=throughput points, comma-separated, by "
                       "pod count ascending (\"1=1,2=1.9,4=3.5\"), got \"",
                       v, "\": ", why));
    };
    if (absl::StripAsciiWhitespace(v).empty()) return refuse("no points");
    for (absl::string_view point : absl::StrSplit(v, ',')) {
      point = absl::StripAsciiWhitespace(point);
      std::vector<absl::string_view> parts = absl::StrSplit(point, '=');
      if (parts.size() != 2) {
        return refuse(
            absl::StrCat("\"", point, "\" is not one pods=throughput"));
      }
      absl::string_view pods_text = absl::StripAsciiWhitespace(parts[0]);
      absl::string_view value_text = absl::StripAsciiWhitespace(parts[1]);
      int32_t pods = 0;
      if (!absl::SimpleAtoi(pods_text, &pods) || pods < 1) {
        return refuse(absl::StrCat("pod count \"", pods_text,
                                   "\" is not a whole number >= 1"));
      }
      double value = 0;
      if (!absl::SimpleAtod(value_text, &value) || !std::isfinite(value) ||
          value <= 0) {
        return refuse(absl::StrCat("throughput \"", value_text,
                                   "\" is not a positive number"));
      }
      if (!curve.empty() && pods <= curve.back().first) {
        return refuse(absl::StrCat("pod count ", pods, " comes after ",
                                   curve.back().first));
      }
      curve.emplace_back(pods, value);
    }
    if (curve.front().first == 1 && curve.front().second != 1) {
      const double one = curve.front().second;
      for (auto& point : curve) point.second /= one;
    }
  }
  return curve;
}

absl::StatusOr<double> ProgressOf(const Reader& r, const json& meta) {
  SHOAL_ASSIGN_OR_RETURN(
      annotations,
      r.StringMap(Reader::Get(meta, "annotations"), "metadata.annotations"));
  for (const auto& annotation : annotations) {
    if (annotation.first != kProgressAnnotation) continue;
    double value = 0;
    if (!absl::SimpleAtod(absl::StripAsciiWhitespace(annotation.second),
                          &value) ||
        !std::isfinite(value) || value < 0) {
      return r.Error(
          absl::StrCat("metadata.annotations[\"", annotation.first, "\"]"),
          absl::StrCat("must be a number >= 0 (the work the job has done so "
                       "far, in any unit, raised as it trains), got \"",
                       annotation.second, "\""));
    }
    return value;
  }
  return -1.0;
}

}  // namespace shoal::kube
