#include "scheduler/kube/api_binder.h"

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "scheduler/kube/device_json.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

std::string PodPath(const api::PodInfo& pod, const char* subresource) {
  return absl::StrCat("/api/v1/namespaces/", pod.ns, "/pods/", pod.name, "/",
                      subresource);
}

}  // namespace

std::string StatusMessage(const std::string& body) {
  json status = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (status.is_object() && status.contains("message") &&
      status["message"].is_string()) {
    return status["message"].get<std::string>();
  }
  return body;
}

absl::Status ApiBinder::Bind(const api::PodInfo& pod, const std::string& node) {
  json binding = {
      {"apiVersion", "v1"},
      {"kind", "Binding"},
      {"metadata", {{"name", pod.name}, {"namespace", pod.ns}}},
      {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  auto r = client_.Request("POST", PodPath(pod, "binding"), binding.dump());
  if (!r.ok()) return r.status();
  if (r->status >= 200 && r->status < 300) return absl::OkStatus();
  std::string why =
      absl::StrCat("bind pod ", pod.Key(), " to ", node, ": HTTP ", r->status,
                   ": ", StatusMessage(r->body));
  if (r->status == 404) return absl::NotFoundError(why);
  if (r->status == 409) return absl::AlreadyExistsError(why);
  return absl::UnavailableError(why);
}

absl::Status ApiBinder::WriteClaim(const api::ClaimWrite& w) {
  const std::string path =
      absl::StrCat("/apis/", w.api_version, "/namespaces/", w.ns,
                   "/resourceclaims/", w.name, "/status");
  auto r = client_.Request("PATCH", path, ClaimStatusPatch(w),
                           "application/json-patch+json");
  if (!r.ok()) return r.status();
  if (r->status >= 200 && r->status < 300) return absl::OkStatus();
  std::string why = absl::StrCat(
      "write resourceclaim ", w.Key(), " (",
      w.newly_allocated ? "allocation and " : "", "reservedFor pod ",
      w.consumer.name, "): HTTP ", r->status, ": ", StatusMessage(r->body));
  if (r->status == 404) return absl::NotFoundError(why);
  if (r->status == 409 || r->status == 422) return absl::AbortedError(why);
  return absl::UnavailableError(why);
}

absl::Status ApiBinder::Evict(const api::PodInfo& pod,
                              const std::string& reason,
                              const std::string& preemptor) {
  json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", pod.name}, {"namespace", pod.ns}}}};
  auto r = client_.Request("POST", PodPath(pod, "eviction"), eviction.dump());
  if (!r.ok()) return r.status();
  if ((r->status >= 200 && r->status < 300) || r->status == 404)
    return absl::OkStatus();
  std::string why =
      absl::StrCat("evict pod ", pod.Key(), " (", reason,
                   preemptor.empty() ? "" : absl::StrCat(" for ", preemptor),
                   "): HTTP ", r->status, ": ", StatusMessage(r->body));
  if (r->status == 429) return absl::ResourceExhaustedError(why);
  return absl::UnavailableError(why);
}

}  // namespace shoal::kube
