#include "e2e/emulator/pod_rules.h"

#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace shoal::emulator {
namespace {

using nlohmann::json;

const Selector& Everything() {
  static const Selector* all = [] {
    std::string unused;
    return new Selector(*Selector::ParseLabels("", &unused));
  }();
  return *all;
}

bool IsDnsSubdomain(const std::string& name) {
  static const std::regex kPattern(
      R"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)");
  return name.size() <= 253 && std::regex_match(name, kPattern);
}

bool SelectorMatches(const json& selector, const json& labels) {
  if (!selector.is_object()) return false;
  const json match = selector.value("matchLabels", json::object());
  for (const auto& [k, v] : match.items()) {
    if (!labels.contains(k) || labels[k] != v) return false;
  }
  return true;
}

}  // namespace

std::optional<ApiError> AdmitPod(const ObjectStore& store,
                                 const PodResources& r, json& pod) {
  json& meta = pod["metadata"];
  std::string name = meta.value("name", meta.value("generateName", "") + "x");
  if (!IsDnsSubdomain(name)) {
    return Invalid(
        "Pod", name, "metadata.name",
        absl::StrCat(
            "Invalid value: \"", name,
            "\": a lowercase RFC 1123 subdomain must consist of lower case "
            "alphanumeric characters, '-' or '.', and must start and end "
            "with an alphanumeric character"));
  }
  json& spec = pod["spec"];
  if (!spec.is_object() || !spec.contains("containers") ||
      !spec["containers"].is_array() || spec["containers"].empty()) {
    return Invalid("Pod", name, "spec.containers", "Required value");
  }
  for (size_t i = 0; i < spec["containers"].size(); ++i) {
    const json& c = spec["containers"][i];
    if (!c.is_object() || c.value("name", "").empty()) {
      return Invalid("Pod", name, absl::StrCat("spec.containers[", i, "].name"),
                     "Required value");
    }
    if (c.value("image", "").empty()) {
      return Invalid("Pod", name,
                     absl::StrCat("spec.containers[", i, "].image"),
                     "Required value");
    }
  }
  if (!spec.contains("schedulerName"))
    spec["schedulerName"] = "default-scheduler";
  if (!spec.contains("terminationGracePeriodSeconds"))
    spec["terminationGracePeriodSeconds"] = 30;
  if (!spec.contains("restartPolicy")) spec["restartPolicy"] = "Always";
  // Priority admission: the class's value, else the global default's, else 0.
  std::string cls = spec.value("priorityClassName", "");
  json classes = store.List(*r.priority_classes, "", Everything(), Everything())
                     .body["items"];
  int64_t priority = 0;
  bool found = cls.empty();
  for (const json& pc : classes) {
    if (cls.empty() && pc.value("globalDefault", false)) {
      priority = pc.value("value", 0);
      spec["priorityClassName"] = pc["metadata"]["name"];
    }
    if (!cls.empty() && pc["metadata"].value("name", "") == cls) {
      priority = pc.value("value", 0);
      found = true;
    }
  }
  if (!found) {
    return Forbidden(
        "pods", name,
        absl::StrCat("no PriorityClass with name ", cls, " was found"));
  }
  if (spec.contains("priority") && spec["priority"] != priority) {
    return Forbidden("pods", name,
                     "the integer value of priority must not be provided in "
                     "pod spec; priority "
                     "admission controller computed " +
                         absl::StrCat(priority) +
                         " from the given PriorityClass name");
  }
  spec["priority"] = priority;
  pod["status"] = {{"phase", "Pending"}, {"qosClass", "BestEffort"}};
  return std::nullopt;
}

std::optional<ApiError> CheckPodUpdate(const json& before, const json& after) {
  json a = before.value("spec", json::object()),
       b = after.value("spec", json::object());
  // What may change: images, activeDeadlineSeconds, added tolerations,
  // removed scheduling gates. Everything else in spec is fixed.
  for (json* s : {&a, &b}) {
    s->erase("activeDeadlineSeconds");
    s->erase("tolerations");
    s->erase("schedulingGates");
    if (s->contains("containers") && (*s)["containers"].is_array()) {
      for (json& c : (*s)["containers"]) c.erase("image");
    }
  }
  if (a != b) {
    return Invalid(
        "Pod", before["metadata"].value("name", ""), "spec",
        "Forbidden: pod updates may not change fields other than "
        "`spec.containers[*].image`, `spec.activeDeadlineSeconds`, "
        "`spec.tolerations` (only additions to existing tolerations) or "
        "`spec.schedulingGates`");
  }
  return std::nullopt;
}

Reply BindPod(ObjectStore& store, const PodResources& r, const std::string& ns,
              const std::string& name, const json& binding) {
  std::string node = binding.value("target", json::object()).value("name", "");
  if (node.empty()) {
    return Reply::Error(
        Invalid("Binding", name, "target.name", "Required value"));
  }
  Reply reply = store.Mutate(
      *r.pods, ns, name, [&](json& pod) -> std::optional<ApiError> {
        if (pod["metadata"].contains("deletionTimestamp")) {
          return Conflict(
              "pods/binding", name,
              "pod " + name +
                  " is being deleted, cannot be assigned to a host");
        }
        std::string current = pod["spec"].value("nodeName", "");
        if (!current.empty()) {
          return Conflict("pods/binding", name,
                          "pod " + name + " is already assigned to node \"" +
                              current + "\"");
        }
        pod["spec"]["nodeName"] = node;
        json& conditions = pod["status"]["conditions"];
        if (!conditions.is_array()) conditions = json::array();
        json scheduled = {{"type", "PodScheduled"},
                          {"status", "True"},
                          {"lastProbeTime", nullptr},
                          {"lastTransitionTime", Rfc3339(absl::Now())}};
        bool replaced = false;
        for (json& c : conditions) {
          if (c.value("type", "") == "PodScheduled") {
            c = scheduled;
            replaced = true;
          }
        }
        if (!replaced) conditions.push_back(scheduled);
        return std::nullopt;
      });
  if (!reply.ok()) return reply;
  return {201,
          {{"kind", "Status"},
           {"apiVersion", "v1"},
           {"metadata", json::object()},
           {"status", "Success"},
           {"code", 201}}};
}

Reply DeletePod(ObjectStore& store, const PodResources& r,
                const std::string& ns, const std::string& name,
                std::optional<int64_t> grace) {
  Reply current = store.Get(*r.pods, ns, name);
  if (!current.ok()) return current;
  const json& pod = current.body;
  std::string phase = pod["status"].value("phase", "");
  bool on_node = !pod["spec"].value("nodeName", "").empty();
  int64_t seconds =
      grace.value_or(pod["spec"].value("terminationGracePeriodSeconds", 30));
  // Only a kubelet can confirm that a running pod has stopped; until it
  // does (or the pod is deleted with grace 0) the pod stays, marked.
  if (!on_node || seconds == 0 || phase == "Succeeded" || phase == "Failed") {
    return store.Remove(*r.pods, ns, name);
  }
  return store.Mutate(*r.pods, ns, name,
                      [&](json& p) -> std::optional<ApiError> {
                        if (!p["metadata"].contains("deletionTimestamp")) {
                          p["metadata"]["deletionTimestamp"] =
                              Rfc3339(absl::Now() + absl::Seconds(seconds));
                          p["metadata"]["deletionGracePeriodSeconds"] = seconds;
                        }
                        return std::nullopt;
                      });
}

Reply EvictPod(ObjectStore& store, const PodResources& r, const std::string& ns,
               const std::string& name, const json& eviction) {
  Reply current = store.Get(*r.pods, ns, name);
  if (!current.ok()) return current;
  const json labels = current.body["metadata"].value("labels", json::object());
  json budgets =
      store.List(*r.disruption_budgets, ns, Everything(), Everything())
          .body["items"];
  for (const json& pdb : budgets) {
    if (!SelectorMatches(pdb["spec"].value("selector", json()), labels))
      continue;
    std::string pdb_name = pdb["metadata"].value("name", "");
    json status = pdb.value("status", json::object());
    if (status.value("disruptionsAllowed", 0) < 1) {
      ApiError e{
          429, "TooManyRequests",
          "Cannot evict pod as it would violate the pod's disruption budget."};
      e.details = {
          {"causes",
           {{{"reason", "DisruptionBudget"},
             {"message",
              absl::StrCat(
                  "The disruption budget ", pdb_name, " needs ",
                  status.value("desiredHealthy", 0), " healthy pods and has ",
                  status.value("currentHealthy", 0), " currently")}}}}};
      return Reply::Error(e);
    }
    store.Mutate(*r.disruption_budgets, ns, pdb_name,
                 [](json& p) -> std::optional<ApiError> {
                   p["status"]["disruptionsAllowed"] =
                       p["status"].value("disruptionsAllowed", 0) - 1;
                   return std::nullopt;
                 });
  }
  std::optional<int64_t> grace;
  const json options = eviction.value("deleteOptions", json::object());
  if (options.contains("gracePeriodSeconds"))
    grace = options["gracePeriodSeconds"].get<int64_t>();
  Reply deleted = DeletePod(store, r, ns, name, grace);
  if (!deleted.ok()) return deleted;
  return {201,
          {{"kind", "Status"},
           {"apiVersion", "v1"},
           {"metadata", json::object()},
           {"status", "Success"},
           {"code", 201}}};
}

}  // namespace shoal::emulator
