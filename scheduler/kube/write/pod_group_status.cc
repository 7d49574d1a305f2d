#include "scheduler/kube/write/pod_group_status.h"

#include "absl/strings/str_cat.h"
#include "scheduler/kube/client/timestamps.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

// `condition` with the observed lastTransitionTime when its status has
// not changed.
json Transition(json condition, const json& observed_conditions,
                absl::Time now) {
  condition["lastTransitionTime"] = Rfc3339(now);
  if (observed_conditions.is_array()) {
    for (const json& c : observed_conditions) {
      if (c.is_object() && c.value("type", "") == condition["type"] &&
          c.value("status", "") == condition["status"] &&
          c.contains("lastTransitionTime")) {
        condition["lastTransitionTime"] = c["lastTransitionTime"];
      }
    }
  }
  return condition;
}

// `conditions` has one of `type` with `status`.
bool Says(const json& conditions, const char* type, const char* status) {
  if (!conditions.is_array()) return false;
  for (const json& c : conditions) {
    if (c.is_object() && c.value("type", "") == type &&
        c.value("status", "") == status) {
      return true;
    }
  }
  return false;
}

// The observed conditions with ours put in place of their types.
json MergeConditions(const json& observed, const std::vector<json>& ours) {
  json merged = json::array();
  if (observed.is_array()) {
    for (const json& c : observed) {
      bool replaced = false;
      for (const json& o : ours)
        replaced |= c.is_object() && c.value("type", "") == o["type"];
      if (!replaced) merged.push_back(c);
    }
  }
  for (const json& o : ours) merged.push_back(o);
  return merged;
}

// ", 3 resizes (cost 30s each)": how often the running job's pod count
// changed (JobInfo::resizing), once it has; stable between changes, so the
// condition is written again only when it changes.
std::string Resizes(const api::JobInfo& job) {
  if (job.resizing.count == 0) return "";
  return absl::StrCat(
      ", ", job.resizing.count,
      job.resizing.count == 1 ? " resize" : " resizes",
      job.resizing.cost_seconds > 0
          ? absl::StrCat(" (cost ", job.resizing.cost_seconds, "s each)")
          : "");
}

}  // namespace

std::string PendingReason(const api::JobInfo& job) {
  return job.message.empty() ? job.fit_error : job.message;
}

json DesiredPodGroupStatus(const api::JobInfo& job, const json& observed,
                           absl::Time now) {
  const json observed_status = observed.is_object() ? observed : json::object();
  int32_t running = job.Count(api::TaskStatus::kRunning);
  int32_t succeeded = job.Count(api::TaskStatus::kSucceeded);
  int32_t failed = job.Count(api::TaskStatus::kFailed);
  json status = {
      {"running", running}, {"succeeded", succeeded}, {"failed", failed}};
  if (job.source == api::GroupSource::kSchedulerPlugins) {
    // scheduler-plugins' phases: PreScheduling once admitted, Scheduled
    // once the gang is placed, Running once its pods run.
    const char* phase = "Pending";
    switch (job.phase) {
      case api::PodGroupPhase::kPending:
        phase = "Pending";
        break;
      case api::PodGroupPhase::kInqueue:
        phase = "PreScheduling";
        break;
      case api::PodGroupPhase::kRunning:
        phase = running + succeeded >= job.min_member ? "Running" : "Scheduled";
        break;
      case api::PodGroupPhase::kUnknown:
        phase = "Unknown";
        break;
      case api::PodGroupPhase::kCompleted:
        phase = "Finished";
        break;
    }
    status["phase"] = phase;
    status["scheduled"] = job.ScheduledCount();
    return status;
  }
  status["phase"] = api::PodGroupPhaseName(job.phase);
  std::string why = PendingReason(job);
  bool waiting = job.ReadyCount() < job.min_member && !why.empty();
  const json& observed_conditions =
      observed_status.value("conditions", json::array());
  std::vector<json> ours;
  if (waiting) {
    ours.push_back(
        Transition({{"type", "Unschedulable"},
                    {"status", "True"},
                    {"reason", job.phase == api::PodGroupPhase::kPending
                                   ? "NotEnqueued"
                                   : "NotEnoughResources"},
                    {"message", why}},
                   observed_conditions, now));
    if (Says(observed_conditions, "Scheduled", "True")) {  // it lost members
      ours.push_back(Transition({{"type", "Scheduled"},
                                 {"status", "False"},
                                 {"reason", "NotEnoughResources"},
                                 {"message", ""}},
                                observed_conditions, now));
    }
  } else if (job.ScheduledCount() + succeeded >= job.min_member) {
    ours.push_back(Transition(
        {{"type", "Scheduled"},
         {"status", "True"},
         {"reason", "GangScheduled"},
         {"message",
          absl::StrCat(job.ScheduledCount() + succeeded, "/", job.tasks.size(),
                       " tasks scheduled, minMember ", job.min_member,
                       Resizes(job))}},
        observed_conditions, now));
    if (Says(observed_conditions, "Unschedulable",
             "True")) {  // it waited before
      ours.push_back(Transition({{"type", "Unschedulable"},
                                 {"status", "False"},
                                 {"reason", "GangScheduled"},
                                 {"message", ""}},
                                observed_conditions, now));
    }
  }
  if (!ours.empty())
    status["conditions"] = MergeConditions(observed_conditions, ours);
  // Shoal's own field (kept by Shoal's CRD in conf/): how many pods an
  // elastic job should run now, for controllers that resize themselves.
  status["elasticTarget"] =
      job.elastic() ? json(job.elastic_target) : json(nullptr);
  return status;
}

json UnschedulableCondition(const std::string& message, const json& observed,
                            absl::Time now) {
  json condition = {{"type", "PodScheduled"},
                    {"status", "False"},
                    {"reason", "Unschedulable"},
                    {"message", message},
                    {"lastProbeTime", nullptr}};
  return Transition(condition, json::array({observed}), now);
}

bool AlreadySays(const json& observed, const json& desired) {
  if (!desired.is_object()) return observed == desired;
  for (const auto& [key, value] : desired.items()) {
    bool present = observed.is_object() && observed.contains(key);
    if (value.is_null()) {
      if (present && !observed[key].is_null()) return false;
      continue;
    }
    if (!present || observed[key] != value) return false;
  }
  return true;
}

}  // namespace shoal::kube
