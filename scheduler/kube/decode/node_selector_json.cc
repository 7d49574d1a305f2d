#include "scheduler/kube/decode/node_selector_json.h"

namespace shoal::kube {

using nlohmann::json;

namespace {

const char* OperatorName(api::SelectorOperator op) {
  switch (op) {
    case api::SelectorOperator::kIn:
      return "In";
    case api::SelectorOperator::kNotIn:
      return "NotIn";
    case api::SelectorOperator::kExists:
      return "Exists";
    case api::SelectorOperator::kDoesNotExist:
      return "DoesNotExist";
    case api::SelectorOperator::kGt:
      return "Gt";
    case api::SelectorOperator::kLt:
      return "Lt";
  }
  return "In";
}

}  // namespace

json Requirements(const std::vector<api::NodeSelectorRequirement>& list) {
  json out = json::array();
  for (const auto& r : list) {
    json req = {{"key", r.key}, {"operator", OperatorName(r.op)}};
    if (!r.values.empty()) req["values"] = r.values;
    out.push_back(std::move(req));
  }
  return out;
}

json Term(const api::NodeSelectorTerm& term) {
  json out = json::object();
  if (!term.match_expressions.empty())
    out["matchExpressions"] = Requirements(term.match_expressions);
  if (!term.match_fields.empty())
    out["matchFields"] = Requirements(term.match_fields);
  return out;
}

json Terms(const std::vector<api::NodeSelectorTerm>& terms) {
  json out = json::array();
  for (const auto& t : terms) out.push_back(Term(t));
  return out;
}

}  // namespace shoal::kube
