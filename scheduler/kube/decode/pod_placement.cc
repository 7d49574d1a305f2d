#include "scheduler/kube/decode/pod_placement.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/kube/decode/fields.h"

namespace shoal::kube {
namespace {

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

}  // namespace

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

absl::StatusOr<api::LabelSelector> LabelSelectorAt(const Reader& r,
                                                   const json* sel,
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

namespace {

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
  SHOAL_ASSIGN_OR_RETURN(sel,
                         LabelSelectorAt(r, Reader::Get(term, "labelSelector"),
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
    SHOAL_ASSIGN_OR_RETURN(
        nsel, LabelSelectorAt(r, ns_sel, path + ".namespaceSelector"));
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
  SHOAL_ASSIGN_OR_RETURN(sel,
                         LabelSelectorAt(r, Reader::Get(c, "labelSelector"),
                                         p + ".labelSelector"));
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

}  // namespace

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

namespace fields {

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
