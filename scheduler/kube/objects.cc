#include "scheduler/kube/objects.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "scheduler/kube/fields.h"
#include "scheduler/kube/volumes.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

// Reads fields of one object; every error it makes starts with the object
// ("pod team-a/worker-0: ") and names the field path.
class Reader {
 public:
  explicit Reader(std::string what) : what_(std::move(what)) {}

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

  // A ResourceList: {"cpu": "500m", "memory": 1073741824, ...}.
  absl::StatusOr<api::Resource> Resources(const json* list,
                                          absl::string_view path) const {
    if (list == nullptr) return api::Resource();
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
};

#define SHOAL_ASSIGN_OR_RETURN(lhs, expr)       \
  auto lhs##_or = (expr);                       \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = std::move(*lhs##_or)

#define SHOAL_RETURN_IF_ERROR(expr)                    \
  do {                                                 \
    if (absl::Status s_ = (expr); !s_.ok()) return s_; \
  } while (0)

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

absl::StatusOr<api::NodeSelectorRequirement> Requirement(
    const Reader& r, const json& req, const std::string& path) {
  api::NodeSelectorRequirement out;
  SHOAL_ASSIGN_OR_RETURN(key, r.String(req, "key", path + ".key"));
  SHOAL_ASSIGN_OR_RETURN(op, r.String(req, "operator", path + ".operator"));
  out.key = key;
  static const std::pair<const char*, api::SelectorOperator> kOps[] = {
      {"In", api::SelectorOperator::kIn},
      {"NotIn", api::SelectorOperator::kNotIn},
      {"Exists", api::SelectorOperator::kExists},
      {"DoesNotExist", api::SelectorOperator::kDoesNotExist},
      {"Gt", api::SelectorOperator::kGt},
      {"Lt", api::SelectorOperator::kLt}};
  bool known = false;
  for (const auto& [name, value] : kOps) {
    if (op == name) {
      out.op = value;
      known = true;
    }
  }
  if (!known) {
    return r.Error(
        path + ".operator",
        absl::StrCat("unknown operator \"", op,
                     "\" (valid: In, NotIn, Exists, DoesNotExist, Gt, Lt)"));
  }
  if (const json* values = Reader::Get(req, "values")) {
    if (!values->is_array()) return r.Error(path + ".values", "must be a list");
    for (const auto& v : *values) {
      if (!v.is_string()) {
        return r.Error(path + ".values",
                       absl::StrCat("must hold strings, got ", v.dump()));
      }
      out.values.push_back(v.get<std::string>());
    }
  }
  return out;
}

absl::StatusOr<api::NodeSelectorTerm> Term(const Reader& r, const json& term,
                                           const std::string& path) {
  api::NodeSelectorTerm out;
  for (const char* field : {"matchExpressions", "matchFields"}) {
    const json* list = Reader::Get(term, field);
    if (list == nullptr) continue;
    if (!list->is_array()) return r.Error(path + "." + field, "must be a list");
    for (size_t i = 0; i < list->size(); ++i) {
      SHOAL_ASSIGN_OR_RETURN(
          req, Requirement(r, (*list)[i],
                           absl::StrCat(path, ".", field, "[", i, "]")));
      (std::string(field) == "matchFields" ? out.match_fields
                                           : out.match_expressions)
          .push_back(std::move(req));
    }
  }
  return out;
}

absl::StatusOr<std::shared_ptr<api::PlacementConstraints>> Placement(
    const Reader& r, const json& spec) {
  auto c = std::make_shared<api::PlacementConstraints>();
  SHOAL_ASSIGN_OR_RETURN(
      selector,
      r.StringMap(Reader::Get(spec, "nodeSelector"), "spec.nodeSelector"));
  c->node_selector = api::Labels(std::move(selector));
  const json* affinity = Reader::Get(spec, "affinity");
  const json* node_affinity =
      affinity != nullptr ? Reader::Get(*affinity, "nodeAffinity") : nullptr;
  if (node_affinity != nullptr) {
    const std::string base = "spec.affinity.nodeAffinity";
    if (const json* req = Reader::Get(
            *node_affinity, "requiredDuringSchedulingIgnoredDuringExecution")) {
      const std::string path =
          base +
          ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
      const json* terms = Reader::Get(*req, "nodeSelectorTerms");
      if (terms == nullptr || !terms->is_array()) {
        return r.Error(path, "must be a list of node selector terms");
      }
      c->required_terms.emplace();
      for (size_t i = 0; i < terms->size(); ++i) {
        SHOAL_ASSIGN_OR_RETURN(
            t, Term(r, (*terms)[i], absl::StrCat(path, "[", i, "]")));
        c->required_terms->push_back(std::move(t));
      }
    }
    if (const json* pref =
            Reader::Get(*node_affinity,
                        "preferredDuringSchedulingIgnoredDuringExecution")) {
      const std::string path =
          base + ".preferredDuringSchedulingIgnoredDuringExecution";
      if (!pref->is_array()) return r.Error(path, "must be a list");
      for (size_t i = 0; i < pref->size(); ++i) {
        std::string p = absl::StrCat(path, "[", i, "]");
        SHOAL_ASSIGN_OR_RETURN(weight,
                               r.Int((*pref)[i], "weight", p + ".weight", 0));
        if (weight < 1 || weight > 100) {
          return r.Error(p + ".weight",
                         absl::StrCat("must be 1 to 100, got ", weight));
        }
        const json* pt = Reader::Get((*pref)[i], "preference");
        SHOAL_ASSIGN_OR_RETURN(t, Term(r, pt != nullptr ? *pt : json::object(),
                                       p + ".preference"));
        c->preferred_terms.push_back(
            {static_cast<int32_t>(weight), std::move(t)});
      }
    }
  }
  if (const json* tols = Reader::Get(spec, "tolerations")) {
    if (!tols->is_array()) return r.Error("spec.tolerations", "must be a list");
    for (size_t i = 0; i < tols->size(); ++i) {
      std::string p = absl::StrCat("spec.tolerations[", i, "]");
      const json& t = (*tols)[i];
      api::Toleration tol;
      SHOAL_ASSIGN_OR_RETURN(key, r.String(t, "key", p + ".key"));
      SHOAL_ASSIGN_OR_RETURN(op,
                             r.String(t, "operator", p + ".operator", "Equal"));
      SHOAL_ASSIGN_OR_RETURN(value, r.String(t, "value", p + ".value"));
      SHOAL_ASSIGN_OR_RETURN(effect, r.String(t, "effect", p + ".effect"));
      tol.key = key;
      tol.value = value;
      if (op == "Exists") {
        tol.op = api::Toleration::Operator::kExists;
      } else if (op != "Equal") {
        return r.Error(p + ".operator",
                       absl::StrCat("unknown operator \"", op,
                                    "\" (valid: Equal, Exists)"));
      }
      if (!effect.empty()) {
        SHOAL_ASSIGN_OR_RETURN(e, Effect(r, effect, p + ".effect"));
        tol.effect = e;
      }
      c->tolerations.push_back(std::move(tol));
    }
  }
  c->ComputeFingerprint();
  return c;
}

// A metav1.LabelSelector at `path`; null or absent is a selector that
// matches nothing (as the API reads it for pod affinity terms and spread).
absl::StatusOr<api::LabelSelector> Selector(const Reader& r, const json* sel,
                                            const std::string& path) {
  api::LabelSelector out;
  if (sel == nullptr) {
    out.nothing = true;
    return out;
  }
  if (!sel->is_object()) return r.Error(path, "must be a label selector");
  SHOAL_ASSIGN_OR_RETURN(labels, r.StringMap(Reader::Get(*sel, "matchLabels"),
                                             path + ".matchLabels"));
  for (auto& [k, v] : labels) {
    out.requirements.push_back({k, api::SelectorOperator::kIn, {v}});
  }
  if (const json* list = Reader::Get(*sel, "matchExpressions")) {
    if (!list->is_array())
      return r.Error(path + ".matchExpressions", "must be a list");
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string at = absl::StrCat(path, ".matchExpressions[", i, "]");
      SHOAL_ASSIGN_OR_RETURN(req, Requirement(r, (*list)[i], at));
      if (req.op == api::SelectorOperator::kGt ||
          req.op == api::SelectorOperator::kLt) {
        return r.Error(
            at + ".operator",
            "must be In, NotIn, Exists or DoesNotExist in a label selector");
      }
      out.requirements.push_back(std::move(req));
    }
  }
  return out;
}

// matchLabelKeys / mismatchLabelKeys: the pod's own value of each listed
// key joins the selector as `key In (value)` / `key NotIn (value)`; a key
// the pod lacks adds nothing.
absl::Status FoldLabelKeys(const Reader& r, const json& obj, const char* field,
                           bool match, const std::string& path,
                           const api::Labels& own, api::LabelSelector* out) {
  const json* keys = Reader::Get(obj, field);
  if (keys == nullptr) return absl::OkStatus();
  if (!keys->is_array())
    return r.Error(path + "." + field, "must be a list of label keys");
  for (const json& k : *keys) {
    if (!k.is_string()) {
      return r.Error(path + "." + field,
                     absl::StrCat("must hold strings, got ", k.dump()));
    }
    const std::string* value = own.Find(k.get<std::string>());
    if (value == nullptr || out->nothing) continue;
    out->requirements.push_back(
        {k.get<std::string>(),
         match ? api::SelectorOperator::kIn : api::SelectorOperator::kNotIn,
         {*value}});
  }
  return absl::OkStatus();
}

absl::StatusOr<api::PodAffinityTerm> AffinityTerm(const Reader& r,
                                                  const json& term,
                                                  const std::string& path,
                                                  const std::string& own_ns,
                                                  const api::Labels& own) {
  api::PodAffinityTerm out;
  if (!term.is_object()) return r.Error(path, "must be a pod affinity term");
  SHOAL_ASSIGN_OR_RETURN(sel, Selector(r, Reader::Get(term, "labelSelector"),
                                       path + ".labelSelector"));
  out.selector = std::move(sel);
  SHOAL_RETURN_IF_ERROR(
      FoldLabelKeys(r, term, "matchLabelKeys", true, path, own, &out.selector));
  SHOAL_RETURN_IF_ERROR(FoldLabelKeys(r, term, "mismatchLabelKeys", false, path,
                                      own, &out.selector));
  SHOAL_ASSIGN_OR_RETURN(key,
                         r.String(term, "topologyKey", path + ".topologyKey"));
  if (key.empty()) return r.Error(path + ".topologyKey", "is required");
  out.topology_key = key;
  if (const json* names = Reader::Get(term, "namespaces")) {
    if (!names->is_array())
      return r.Error(path + ".namespaces", "must be a list");
    for (const json& n : *names) {
      if (!n.is_string()) {
        return r.Error(path + ".namespaces",
                       absl::StrCat("must hold strings, got ", n.dump()));
      }
      out.namespaces.names.push_back(n.get<std::string>());
    }
  }
  if (const json* ns_sel = Reader::Get(term, "namespaceSelector")) {
    SHOAL_ASSIGN_OR_RETURN(nsel,
                           Selector(r, ns_sel, path + ".namespaceSelector"));
    out.namespaces.selector = std::move(nsel);
  }
  // Neither a list nor a selector: the pod's own namespace.
  if (out.namespaces.names.empty() && !out.namespaces.selector.has_value()) {
    out.namespaces.names.push_back(own_ns);
  }
  std::sort(out.namespaces.names.begin(), out.namespaces.names.end());
  return out;
}

absl::Status AffinityTerms(const Reader& r, const json& kind,
                           const std::string& path, bool preferred,
                           const std::string& own_ns, const api::Labels& own,
                           std::vector<api::PodAffinityTerm>* out) {
  const char* field = preferred
                          ? "preferredDuringSchedulingIgnoredDuringExecution"
                          : "requiredDuringSchedulingIgnoredDuringExecution";
  const json* list = Reader::Get(kind, field);
  if (list == nullptr) return absl::OkStatus();
  const std::string at = path + "." + field;
  if (!list->is_array()) return r.Error(at, "must be a list");
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string p = absl::StrCat(at, "[", i, "]");
    const json& item = (*list)[i];
    if (!preferred) {
      SHOAL_ASSIGN_OR_RETURN(term, AffinityTerm(r, item, p, own_ns, own));
      out->push_back(std::move(term));
      continue;
    }
    SHOAL_ASSIGN_OR_RETURN(weight, r.Int(item, "weight", p + ".weight", 0));
    if (weight < 1 || weight > 100) {
      return r.Error(p + ".weight",
                     absl::StrCat("must be 1 to 100, got ", weight));
    }
    const json* t = Reader::Get(item, "podAffinityTerm");
    if (t == nullptr) return r.Error(p + ".podAffinityTerm", "is required");
    SHOAL_ASSIGN_OR_RETURN(
        term, AffinityTerm(r, *t, p + ".podAffinityTerm", own_ns, own));
    term.weight = static_cast<int32_t>(weight);
    out->push_back(std::move(term));
  }
  return absl::OkStatus();
}

absl::StatusOr<api::TopologySpreadConstraint> SpreadConstraint(
    const Reader& r, const json& c, const std::string& p,
    const api::Labels& own) {
  api::TopologySpreadConstraint out;
  if (!c.is_object()) return r.Error(p, "must be a topology spread constraint");
  SHOAL_ASSIGN_OR_RETURN(skew, r.Int(c, "maxSkew", p + ".maxSkew", 0));
  if (skew < 1)
    return r.Error(p + ".maxSkew",
                   absl::StrCat("must be at least 1, got ", skew));
  out.max_skew = static_cast<int32_t>(skew);
  SHOAL_ASSIGN_OR_RETURN(key, r.String(c, "topologyKey", p + ".topologyKey"));
  if (key.empty()) return r.Error(p + ".topologyKey", "is required");
  out.topology_key = key;
  SHOAL_ASSIGN_OR_RETURN(
      when, r.String(c, "whenUnsatisfiable", p + ".whenUnsatisfiable"));
  if (when != "DoNotSchedule" && when != "ScheduleAnyway") {
    return r.Error(
        p + ".whenUnsatisfiable",
        absl::StrCat("must be DoNotSchedule or ScheduleAnyway, got \"", when,
                     "\""));
  }
  out.do_not_schedule = when == "DoNotSchedule";
  SHOAL_ASSIGN_OR_RETURN(
      sel, Selector(r, Reader::Get(c, "labelSelector"), p + ".labelSelector"));
  out.selector = std::move(sel);
  SHOAL_RETURN_IF_ERROR(
      FoldLabelKeys(r, c, "matchLabelKeys", true, p, own, &out.selector));
  SHOAL_ASSIGN_OR_RETURN(min_domains,
                         r.Int(c, "minDomains", p + ".minDomains", 1));
  if (min_domains < 1) {
    return r.Error(p + ".minDomains",
                   absl::StrCat("must be at least 1, got ", min_domains));
  }
  if (Reader::Get(c, "minDomains") != nullptr && !out.do_not_schedule) {
    return r.Error(p + ".minDomains",
                   "may only be set with whenUnsatisfiable: DoNotSchedule");
  }
  out.min_domains = static_cast<int32_t>(min_domains);
  for (const auto& [field, honor, fallback] :
       {std::tuple<const char*, bool*, const char*>{
            "nodeAffinityPolicy", &out.honor_node_affinity, "Honor"},
        std::tuple<const char*, bool*, const char*>{
            "nodeTaintsPolicy", &out.honor_taints, "Ignore"}}) {
    SHOAL_ASSIGN_OR_RETURN(policy,
                           r.String(c, field, p + "." + field, fallback));
    if (policy != "Honor" && policy != "Ignore") {
      return r.Error(
          p + "." + field,
          absl::StrCat("must be Honor or Ignore, got \"", policy, "\""));
    }
    *honor = policy == "Honor";
  }
  return out;
}

// spec.affinity.podAffinity/podAntiAffinity and topologySpreadConstraints;
// null when the pod has none.
absl::StatusOr<std::shared_ptr<const api::InterPodRules>> InterPod(
    const Reader& r, const json& spec, const std::string& own_ns,
    const api::Labels& own) {
  auto rules = std::make_shared<api::InterPodRules>();
  if (const json* affinity = Reader::Get(spec, "affinity")) {
    for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
      const json* k = Reader::Get(*affinity, kind);
      if (k == nullptr) continue;
      const std::string path = absl::StrCat("spec.affinity.", kind);
      bool anti = std::string(kind) == "podAntiAffinity";
      SHOAL_RETURN_IF_ERROR(AffinityTerms(
          r, *k, path, false, own_ns, own,
          anti ? &rules->required_anti_affinity : &rules->required_affinity));
      SHOAL_RETURN_IF_ERROR(AffinityTerms(
          r, *k, path, true, own_ns, own,
          anti ? &rules->preferred_anti_affinity : &rules->preferred_affinity));
    }
  }
  if (const json* list = Reader::Get(spec, "topologySpreadConstraints")) {
    if (!list->is_array())
      return r.Error("spec.topologySpreadConstraints", "must be a list");
    for (size_t i = 0; i < list->size(); ++i) {
      SHOAL_ASSIGN_OR_RETURN(
          c, SpreadConstraint(
                 r, (*list)[i],
                 absl::StrCat("spec.topologySpreadConstraints[", i, "]"), own));
      rules->spread.push_back(std::move(c));
    }
  }
  if (rules->empty()) return std::shared_ptr<const api::InterPodRules>();
  return std::shared_ptr<const api::InterPodRules>(std::move(rules));
}

// requests, with limits standing in for requests that are not given (the
// API server's defaulting).
absl::StatusOr<api::Resource> ContainerRequest(const Reader& r, const json& c,
                                               const std::string& path) {
  const json* res = Reader::Get(c, "resources");
  if (res == nullptr) return api::Resource();
  SHOAL_ASSIGN_OR_RETURN(requests, r.Resources(Reader::Get(*res, "requests"),
                                               path + ".resources.requests"));
  SHOAL_ASSIGN_OR_RETURN(limits, r.Resources(Reader::Get(*res, "limits"),
                                             path + ".resources.limits"));
  for (size_t id = 0; id < limits.size(); ++id) {
    auto rid = static_cast<api::ResourceId>(id);
    const json* req = Reader::Get(*res, "requests");
    bool given =
        req != nullptr && req->contains(std::string(api::ResourceName(rid)));
    if (!given && limits.Get(rid) > 0) requests.Set(rid, limits.Get(rid));
  }
  return requests;
}

// What kube-scheduler counts for a pod: the larger of (app containers +
// sidecars) and each init container's peak (itself plus the sidecars
// started before it), plus overhead, plus one pod slot.
absl::StatusOr<api::Resource> PodRequest(const Reader& r, const json& spec) {
  api::Resource containers;
  const json* list = Reader::Get(spec, "containers");
  if (list == nullptr || !list->is_array() || list->empty()) {
    return r.Error("spec.containers", "must list at least one container");
  }
  for (size_t i = 0; i < list->size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(
        req, ContainerRequest(r, (*list)[i],
                              absl::StrCat("spec.containers[", i, "]")));
    containers += req;
  }
  api::Resource sidecars, init_peak;
  if (const json* inits = Reader::Get(spec, "initContainers")) {
    if (!inits->is_array())
      return r.Error("spec.initContainers", "must be a list");
    for (size_t i = 0; i < inits->size(); ++i) {
      std::string path = absl::StrCat("spec.initContainers[", i, "]");
      SHOAL_ASSIGN_OR_RETURN(req, ContainerRequest(r, (*inits)[i], path));
      SHOAL_ASSIGN_OR_RETURN(policy, r.String((*inits)[i], "restartPolicy",
                                              path + ".restartPolicy"));
      if (policy == "Always") {
        sidecars += req;
        init_peak.MaxWith(sidecars);
      } else {
        init_peak.MaxWith(req + sidecars);
      }
    }
  }
  api::Resource total = containers + sidecars;
  total.MaxWith(init_peak);
  SHOAL_ASSIGN_OR_RETURN(
      overhead, r.Resources(Reader::Get(spec, "overhead"), "spec.overhead"));
  total += overhead;
  total.Set(api::kPods, 1);
  return total;
}

// A queue's capability or deserved: it bounds only the resources it names;
// every other resource is kUnlimited.
absl::StatusOr<api::Resource> Limit(const Reader& r, const json& list,
                                    absl::string_view path) {
  SHOAL_ASSIGN_OR_RETURN(named, r.Resources(&list, path));
  api::Resource limit;
  for (int id = 0; id < api::ResourceNameCount(); ++id) {
    limit.Set(static_cast<api::ResourceId>(id), api::kUnlimited);
  }
  for (const auto& item : list.items()) {
    api::ResourceId id = *api::InternResourceName(item.key());
    limit.Set(id, named.Get(id));
  }
  return limit;
}

// The host ports the pod's containers bind, sidecars (init containers with
// restartPolicy: Always) included; an ordinary init container has exited
// before the pod's containers start, so kube-scheduler does not count its
// ports. hostPort where given; with spec.hostNetwork, every container
// port (the API server defaults hostPort to it).
absl::StatusOr<std::vector<api::HostPort>> HostPorts(const Reader& r,
                                                     const json& spec) {
  std::vector<api::HostPort> out;
  SHOAL_ASSIGN_OR_RETURN(
      host_network, r.Bool(spec, "hostNetwork", "spec.hostNetwork", false));
  for (const char* list : {"initContainers", "containers"}) {
    const json* containers = Reader::Get(spec, list);
    if (containers == nullptr || !containers->is_array()) continue;
    for (size_t i = 0; i < containers->size(); ++i) {
      const json* ports = Reader::Get((*containers)[i], "ports");
      if (ports == nullptr) continue;
      if (std::string(list) == "initContainers" &&
          StringMember((*containers)[i], "restartPolicy") != "Always") {
        continue;
      }
      const std::string path = absl::StrCat("spec.", list, "[", i, "].ports");
      if (!ports->is_array()) return r.Error(path, "must be a list");
      for (size_t j = 0; j < ports->size(); ++j) {
        const json& p = (*ports)[j];
        const std::string at = absl::StrCat(path, "[", j, "]");
        SHOAL_ASSIGN_OR_RETURN(host_port,
                               r.Int(p, "hostPort", at + ".hostPort", 0));
        SHOAL_ASSIGN_OR_RETURN(container_port, r.Int(p, "containerPort",
                                                     at + ".containerPort", 0));
        if (host_port == 0 && host_network) host_port = container_port;
        if (host_port == 0) continue;
        if (host_port < 0 || host_port > 65535) {
          return r.Error(at + ".hostPort",
                         absl::StrCat("must be 1 to 65535, got ", host_port));
        }
        api::HostPort hp;
        hp.port = static_cast<int32_t>(host_port);
        SHOAL_ASSIGN_OR_RETURN(
            protocol, r.String(p, "protocol", at + ".protocol", "TCP"));
        SHOAL_ASSIGN_OR_RETURN(ip, r.String(p, "hostIP", at + ".hostIP"));
        hp.protocol = protocol;
        hp.ip = ip;
        out.push_back(std::move(hp));
      }
    }
  }
  return out;
}

// spec.schedulingGates[].name.
absl::StatusOr<std::vector<std::string>> SchedulingGates(const Reader& r,
                                                         const json& spec) {
  std::vector<std::string> names;
  const json* gates = Reader::Get(spec, "schedulingGates");
  if (gates == nullptr) return names;
  if (!gates->is_array())
    return r.Error("spec.schedulingGates", "must be a list");
  for (size_t i = 0; i < gates->size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(
        name, r.String((*gates)[i], "name",
                       absl::StrCat("spec.schedulingGates[", i, "].name")));
    names.push_back(name);
  }
  return names;
}

bool NonEmpty(const json* v) {
  return v != nullptr && !((v->is_array() || v->is_object()) && v->empty());
}

// The first field bearing on placement that Shoal does not implement yet,
// or "" (README, "What a pod may ask for").
std::string UnsupportedField(const json& spec) {
  if (NonEmpty(Reader::Get(spec, "resourceClaims")))
    return "spec.resourceClaims";
  // Volumes that need a claim are honoured (volumes.cc, and the cache).
  return "";
}

bool IsCriticalClass(const std::string& name) {
  return name == "system-cluster-critical" || name == "system-node-critical";
}

// volcano.sh/preemptable, annotation first, then label, as Volcano reads
// it: unmarked pods may be evicted; a value that is not a boolean keeps
// the pod safe (not preemptable), as in Volcano.
bool Preemptable(
    const std::vector<std::pair<std::string, std::string>>& annotations,
    const std::vector<std::pair<std::string, std::string>>& labels) {
  for (const auto* list : {&annotations, &labels}) {
    for (const auto& [k, v] : *list) {
      if (k != kPreemptableKey) continue;
      bool value = false;
      return absl::SimpleAtob(v, &value) && value;
    }
  }
  return true;
}

}  // namespace

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

absl::StatusOr<std::shared_ptr<api::NodeSpec>> DecodeNode(const json& obj) {
  if (auto s = RequireName(obj, "node"); !s.ok()) return s;
  Reader r(absl::StrCat("node ", NameOf(obj)));
  auto node = std::make_shared<api::NodeSpec>();
  node->name = NameOf(obj);
  SHOAL_ASSIGN_OR_RETURN(
      labels,
      r.StringMap(Reader::Get(Metadata(obj), "labels"), "metadata.labels"));
  node->labels = api::Labels(std::move(labels));
  static const json kEmpty = json::object();
  const json* spec = Reader::Get(obj, "spec");
  const json& s = spec != nullptr ? *spec : kEmpty;
  SHOAL_ASSIGN_OR_RETURN(
      unschedulable, r.Bool(s, "unschedulable", "spec.unschedulable", false));
  node->unschedulable = unschedulable;
  if (const json* taints = Reader::Get(s, "taints")) {
    if (!taints->is_array()) return r.Error("spec.taints", "must be a list");
    for (size_t i = 0; i < taints->size(); ++i) {
      std::string p = absl::StrCat("spec.taints[", i, "]");
      SHOAL_ASSIGN_OR_RETURN(key, r.String((*taints)[i], "key", p + ".key"));
      SHOAL_ASSIGN_OR_RETURN(value,
                             r.String((*taints)[i], "value", p + ".value"));
      SHOAL_ASSIGN_OR_RETURN(effect_name,
                             r.String((*taints)[i], "effect", p + ".effect"));
      if (key.empty()) return r.Error(p + ".key", "is required");
      SHOAL_ASSIGN_OR_RETURN(effect, Effect(r, effect_name, p + ".effect"));
      node->taints.push_back({key, value, effect});
    }
  }
  SHOAL_ASSIGN_OR_RETURN(status, r.Section(obj, "status"));
  const json& st = *status;
  const char* field =
      Reader::Get(st, "allocatable") != nullptr ? "allocatable" : "capacity";
  SHOAL_ASSIGN_OR_RETURN(
      allocatable,
      r.Resources(Reader::Get(st, field), absl::StrCat("status.", field)));
  node->allocatable = std::move(allocatable);
  // No Ready condition at all (a hand-written node) counts as ready.
  if (const json* conditions = Reader::Get(st, "conditions")) {
    if (!conditions->is_array())
      return r.Error("status.conditions", "must be a list");
    for (size_t i = 0; i < conditions->size(); ++i) {
      const std::string path = absl::StrCat("status.conditions[", i, "]");
      SHOAL_ASSIGN_OR_RETURN(
          type, r.String((*conditions)[i], "type", path + ".type"));
      SHOAL_ASSIGN_OR_RETURN(
          value, r.String((*conditions)[i], "status", path + ".status"));
      if (type == "Ready") node->ready = value == "True";
    }
  }
  return node;
}

absl::StatusOr<DecodedPod> DecodePod(const json& obj) {
  if (auto s = RequireName(obj, "pod"); !s.ok()) return s;
  Reader r(absl::StrCat("pod ", NamespaceOf(obj), "/", NameOf(obj)));
  static const json kEmpty = json::object();
  const json& meta = Metadata(obj);
  const json* spec_ptr = Reader::Get(obj, "spec");
  if (spec_ptr == nullptr || !spec_ptr->is_object())
    return r.Error("spec", "is required");
  const json& spec = *spec_ptr;
  SHOAL_ASSIGN_OR_RETURN(status_ptr, r.Section(obj, "status"));
  const json& status = *status_ptr;

  auto pod = std::make_shared<api::PodInfo>();
  pod->ns = NamespaceOf(obj);
  pod->name = NameOf(obj);
  SHOAL_ASSIGN_OR_RETURN(uid, r.String(meta, "uid", "metadata.uid"));
  pod->uid = uid.empty() ? pod->Key() : uid;
  SHOAL_ASSIGN_OR_RETURN(created, Timestamp(r, meta, "creationTimestamp",
                                            "metadata.creationTimestamp"));
  pod->created = created;
  SHOAL_ASSIGN_OR_RETURN(
      annotations,
      r.StringMap(Reader::Get(meta, "annotations"), "metadata.annotations"));
  SHOAL_ASSIGN_OR_RETURN(
      labels, r.StringMap(Reader::Get(meta, "labels"), "metadata.labels"));
  for (const auto& [k, v] : annotations) {
    if (k == kGroupAnnotation) pod->group = v;
    if (k == kTaskSpecAnnotation) pod->role = v;
  }
  // Volcano's job controller writes the task name as a label too; the
  // annotation wins when both are set (as Volcano reads them).
  for (const auto& [k, v] : labels) {
    if (k == kGroupLabel && pod->group.empty()) pod->group = v;
    if (k == kTaskSpecAnnotation && pod->role.empty()) pod->role = v;
  }
  pod->preemptable = Preemptable(annotations, labels);
  pod->labels = api::Labels(std::move(labels));
  SHOAL_ASSIGN_OR_RETURN(scheduler,
                         r.String(spec, "schedulerName", "spec.schedulerName",
                                  "default-scheduler"));
  pod->scheduler_name = scheduler;
  SHOAL_ASSIGN_OR_RETURN(node_name,
                         r.String(spec, "nodeName", "spec.nodeName"));
  pod->node_name = node_name;
  SHOAL_ASSIGN_OR_RETURN(
      pc, r.String(spec, "priorityClassName", "spec.priorityClassName"));
  pod->priority_class = pc;
  pod->critical = IsCriticalClass(pc);
  DecodedPod out;
  out.has_priority = Reader::Get(spec, "priority") != nullptr;
  SHOAL_ASSIGN_OR_RETURN(priority, r.Int(spec, "priority", "spec.priority", 0));
  pod->priority = static_cast<int32_t>(priority);
  SHOAL_ASSIGN_OR_RETURN(
      preemption, r.String(spec, "preemptionPolicy", "spec.preemptionPolicy"));
  pod->preempt_never = preemption == "Never";
  pod->preemption_policy_set = !preemption.empty();
  SHOAL_ASSIGN_OR_RETURN(gates, SchedulingGates(r, spec));
  pod->scheduling_gates = std::move(gates);
  pod->unsupported_field = UnsupportedField(spec);
  SHOAL_ASSIGN_OR_RETURN(
      claims,
      DecodePodVolumeClaims(spec, pod->name, absl::StrCat("pod ", pod->Key())));
  pod->volume_claims = std::move(claims);
  SHOAL_ASSIGN_OR_RETURN(host_ports, HostPorts(r, spec));
  pod->host_ports = std::move(host_ports);
  SHOAL_ASSIGN_OR_RETURN(request, PodRequest(r, spec));
  pod->request = std::move(request);
  SHOAL_ASSIGN_OR_RETURN(placement, Placement(r, spec));
  pod->placement = std::move(placement);
  SHOAL_ASSIGN_OR_RETURN(inter_pod, InterPod(r, spec, pod->ns, pod->labels));
  pod->inter_pod = std::move(inter_pod);

  SHOAL_ASSIGN_OR_RETURN(phase,
                         r.String(status, "phase", "status.phase", "Pending"));
  bool terminating = Reader::Get(meta, "deletionTimestamp") != nullptr;
  if (phase == "Succeeded") {
    pod->status = api::TaskStatus::kSucceeded;
  } else if (phase == "Failed") {
    pod->status = api::TaskStatus::kFailed;
  } else if (pod->node_name.empty()) {
    pod->status = api::TaskStatus::kPending;
  } else if (terminating) {
    pod->status = api::TaskStatus::kReleasing;
  } else {
    pod->status = phase == "Running" ? api::TaskStatus::kRunning
                                     : api::TaskStatus::kBound;
  }
  out.pod = std::move(pod);
  return out;
}

absl::StatusOr<api::JobInfo> DecodePodGroup(const json& obj) {
  if (auto s = RequireName(obj, "podgroup"); !s.ok()) return s;
  Reader r(absl::StrCat("podgroup ", NamespaceOf(obj), "/", NameOf(obj)));
  static const json kEmpty = json::object();
  const json& meta = Metadata(obj);
  const json* spec_ptr = Reader::Get(obj, "spec");
  const json& spec = spec_ptr != nullptr ? *spec_ptr : kEmpty;
  SHOAL_ASSIGN_OR_RETURN(status_ptr, r.Section(obj, "status"));
  const json& status = *status_ptr;
  api::JobInfo job;
  job.ns = NamespaceOf(obj);
  job.name = NameOf(obj);
  SHOAL_ASSIGN_OR_RETURN(uid, r.String(meta, "uid", "metadata.uid"));
  job.uid = uid.empty() ? job.Key() : uid;
  SHOAL_ASSIGN_OR_RETURN(created, Timestamp(r, meta, "creationTimestamp",
                                            "metadata.creationTimestamp"));
  job.created = created;
  bool volcano = IsVolcanoPodGroup(obj);
  job.source = volcano ? api::GroupSource::kVolcano
                       : api::GroupSource::kSchedulerPlugins;
  SHOAL_ASSIGN_OR_RETURN(min_member,
                         r.Int(spec, "minMember", "spec.minMember", 1));
  // 0 is legal (Volcano accepts it): no gang minimum, every pod on its own.
  if (min_member < 0) {
    return r.Error("spec.minMember",
                   absl::StrCat("must be >= 0, got ", min_member));
  }
  job.min_member = static_cast<int32_t>(min_member);
  if (const json* mtm = Reader::Get(spec, "minTaskMember")) {
    if (!mtm->is_object())
      return r.Error("spec.minTaskMember",
                     "must be a map of task names to counts");
    for (const auto& [role, count] : mtm->items()) {
      std::string path = absl::StrCat("spec.minTaskMember.", role);
      if (!count.is_number_integer() || count.get<int64_t>() < 0) {
        return r.Error(path, absl::StrCat("must be a whole number >= 0, got ",
                                          count.dump()));
      }
      job.min_task_member[role] = count.get<int32_t>();
    }
  }
  if (const json* mr = Reader::Get(spec, "minResources")) {
    SHOAL_ASSIGN_OR_RETURN(res, r.Resources(mr, "spec.minResources"));
    job.min_resources = std::move(res);
  }
  if (volcano) {
    SHOAL_ASSIGN_OR_RETURN(queue,
                           r.String(spec, "queue", "spec.queue", "default"));
    job.queue = queue.empty() ? "default" : queue;
  }
  SHOAL_ASSIGN_OR_RETURN(
      pc, r.String(spec, "priorityClassName", "spec.priorityClassName"));
  job.priority_class = pc;
  SHOAL_ASSIGN_OR_RETURN(phase,
                         r.String(status, "phase", "status.phase", "Pending"));
  if (phase == "Inqueue") {
    job.phase = api::PodGroupPhase::kInqueue;
  } else if (phase == "Running" || phase == "Scheduled") {
    job.phase = api::PodGroupPhase::kRunning;
  } else if (phase == "Unknown") {
    job.phase = api::PodGroupPhase::kUnknown;
  } else if (phase == "Completed" || phase == "Finished") {
    job.phase = api::PodGroupPhase::kCompleted;
  } else {
    job.phase = api::PodGroupPhase::kPending;
  }
  return job;
}

absl::StatusOr<api::QueueInfo> DecodeQueue(const json& obj) {
  if (auto s = RequireName(obj, "queue"); !s.ok()) return s;
  Reader r(absl::StrCat("queue ", NameOf(obj)));
  static const json kEmpty = json::object();
  const json* spec_ptr = Reader::Get(obj, "spec");
  const json& spec = spec_ptr != nullptr ? *spec_ptr : kEmpty;
  SHOAL_ASSIGN_OR_RETURN(status_ptr, r.Section(obj, "status"));
  const json& status = *status_ptr;
  api::QueueInfo q;
  q.name = NameOf(obj);
  SHOAL_ASSIGN_OR_RETURN(weight, r.Int(spec, "weight", "spec.weight", 1));
  if (weight < 1)
    return r.Error("spec.weight", absl::StrCat("must be >= 1, got ", weight));
  q.weight = static_cast<int32_t>(weight);
  SHOAL_ASSIGN_OR_RETURN(priority, r.Int(spec, "priority", "spec.priority", 0));
  q.priority = static_cast<int32_t>(priority);
  if (const json* cap = Reader::Get(spec, "capability")) {
    SHOAL_ASSIGN_OR_RETURN(limit, Limit(r, *cap, "spec.capability"));
    q.capability = std::move(limit);
  }
  if (const json* deserved = Reader::Get(spec, "deserved")) {
    SHOAL_ASSIGN_OR_RETURN(limit, Limit(r, *deserved, "spec.deserved"));
    q.deserved = std::move(limit);
  }
  if (const json* guarantee = Reader::Get(spec, "guarantee")) {
    SHOAL_ASSIGN_OR_RETURN(res, r.Resources(Reader::Get(*guarantee, "resource"),
                                            "spec.guarantee.resource"));
    q.guarantee = std::move(res);
  }
  SHOAL_ASSIGN_OR_RETURN(reclaimable,
                         r.Bool(spec, "reclaimable", "spec.reclaimable", true));
  q.reclaimable = reclaimable;
  SHOAL_ASSIGN_OR_RETURN(state,
                         r.String(status, "state", "status.state", "Open"));
  q.open = state == "Open" || state.empty();
  return q;
}

absl::StatusOr<DecodedNamespace> DecodeNamespace(const json& obj) {
  if (auto s = RequireName(obj, "namespace"); !s.ok()) return s;
  Reader r(absl::StrCat("namespace ", NameOf(obj)));
  SHOAL_ASSIGN_OR_RETURN(
      labels,
      r.StringMap(Reader::Get(Metadata(obj), "labels"), "metadata.labels"));
  return DecodedNamespace{NameOf(obj), api::Labels(std::move(labels))};
}

absl::StatusOr<api::PriorityClass> DecodePriorityClass(const json& obj) {
  if (auto s = RequireName(obj, "priorityclass"); !s.ok()) return s;
  Reader r(absl::StrCat("priorityclass ", NameOf(obj)));
  api::PriorityClass pc;
  pc.name = NameOf(obj);
  SHOAL_ASSIGN_OR_RETURN(value, r.Int(obj, "value", "value", 0));
  if (value > 1000000000 && !IsCriticalClass(pc.name)) {
    return r.Error(
        "value",
        absl::StrCat("must be <= 1000000000 for user classes, got ", value));
  }
  pc.value = static_cast<int32_t>(value);
  SHOAL_ASSIGN_OR_RETURN(global,
                         r.Bool(obj, "globalDefault", "globalDefault", false));
  pc.global_default = global;
  SHOAL_ASSIGN_OR_RETURN(policy,
                         r.String(obj, "preemptionPolicy", "preemptionPolicy",
                                  "PreemptLowerPriority"));
  if (policy != "Never" && policy != "PreemptLowerPriority") {
    return r.Error("preemptionPolicy",
                   absl::StrCat("must be Never or PreemptLowerPriority, got \"",
                                policy, "\""));
  }
  pc.preempt_never = policy == "Never";
  return pc;
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

absl::StatusOr<std::vector<api::NodeSelectorTerm>> NodeSelectorTerms(
    const std::string& what, const json& list, const std::string& path) {
  Reader r(what);
  if (!list.is_array())
    return r.Error(path, "must be a list of node selector terms");
  std::vector<api::NodeSelectorTerm> out;
  for (size_t i = 0; i < list.size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(t,
                           Term(r, list[i], absl::StrCat(path, "[", i, "]")));
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace fields

}  // namespace shoal::kube
