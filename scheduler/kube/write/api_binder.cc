#include "scheduler/kube/write/api_binder.h"

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "scheduler/kube/decode/device_json.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

std::string PodPath(const api::PodInfo& pod, const char* subresource) {
  return absl::StrCat("/api/v1/namespaces/", pod.ns, "/pods/", pod.name, "/",
                      subresource);
}

}  // namespace

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

std::string PodExtendedClaimStatusPatch(const api::ClaimWrite& w) {
  json mappings = json::array();
  for (const api::ContainerRequestMapping& m : w.mappings) {
    mappings.push_back({{"containerName", m.container},
                        {"resourceName", m.resource},
                        {"requestName", m.request}});
  }
  json patch = {
      {"status",
       {{"extendedResourceClaimStatus",
         {{"resourceClaimName", w.name}, {"requestMappings", mappings}}}}}};
  return patch.dump();
}

absl::Status ApiBinder::WriteClaim(const api::ClaimWrite& w) {
  if (w.create == nullptr) return PatchClaimStatus(w);
  const api::ResourceClaim& claim = *w.create;
  api::ClaimWrite created = w;
  if (created.api_version.empty()) created.api_version = claim.api_version;
  const std::string path = absl::StrCat(
      "/apis/", created.api_version, "/namespaces/", w.ns, "/resourceclaims");
  auto r = client_.Request("POST", path, NewClaimJson(claim).dump());
  if (!r.ok()) return r.status();
  const std::string owner = absl::StrCat(
      w.ns, "/", claim.owner_name.empty() ? w.consumer.name : claim.owner_name);
  if (r->status == 409) {
    return absl::AbortedError(absl::StrCat(
        "resourceclaim ", w.Key(), " exists already; not created for pod ",
        owner, "'s extended resources: HTTP 409: ", StatusMessage(r->body)));
  }
  if (r->status < 200 || r->status >= 300) {
    std::string why =
        absl::StrCat("create resourceclaim ", w.Key(), " for pod ", owner,
                     ": HTTP ", r->status, ": ", StatusMessage(r->body));
    if (r->status == 404) return absl::NotFoundError(why);
    if (r->status == 422) return absl::AbortedError(why);
    return absl::UnavailableError(why);
  }
  json body = json::parse(r->body, nullptr, /*allow_exceptions=*/false);
  const json* meta = body.is_object() && body.contains("metadata")
                         ? &body["metadata"]
                         : nullptr;
  if (meta != nullptr && meta->is_object()) {
    if (meta->contains("resourceVersion") &&
        (*meta)["resourceVersion"].is_string())
      created.resource_version = (*meta)["resourceVersion"].get<std::string>();
    if (meta->contains("uid") && (*meta)["uid"].is_string())
      created.uid = (*meta)["uid"].get<std::string>();
  }
  created.create = nullptr;
  return PatchClaimStatus(created);
}

absl::Status ApiBinder::WritePodExtendedClaimStatus(const api::PodInfo& pod,
                                                    const api::ClaimWrite& w) {
  auto r = client_.Request("PATCH", PodPath(pod, "status"),
                           PodExtendedClaimStatusPatch(w),
                           "application/merge-patch+json");
  if (!r.ok()) return r.status();
  if (r->status >= 200 && r->status < 300) return absl::OkStatus();
  std::string why = absl::StrCat(
      "write pod ", pod.Key(),
      " status.extendedResourceClaimStatus (resourceclaim ", w.Key(),
      "): HTTP ", r->status, ": ", StatusMessage(r->body));
  if (r->status == 404) return absl::NotFoundError(why);
  if (r->status == 409 || r->status == 422) return absl::AbortedError(why);
  return absl::UnavailableError(why);
}

absl::Status ApiBinder::PatchClaimStatus(const api::ClaimWrite& w) {
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

std::string DeallocationPatch(const api::ResourceClaim& after) {
  json patch = {{"status",
                 {{"allocation", nullptr},
                  {"reservedFor", nullptr},
                  {"devices", nullptr}}}};
  if (!after.resource_version.empty())
    patch["metadata"]["resourceVersion"] = after.resource_version;
  return patch.dump();
}

absl::Status ApiBinder::DeallocateClaim(const api::ResourceClaim& after) {
  const std::string path =
      absl::StrCat("/apis/", after.api_version, "/namespaces/", after.ns,
                   "/resourceclaims/", after.name, "/status");
  auto r = client_.Request("PATCH", path, DeallocationPatch(after),
                           "application/merge-patch+json");
  if (!r.ok()) return r.status();
  if (r->status >= 200 && r->status < 300) return absl::OkStatus();
  std::string why =
      absl::StrCat("deallocate resourceclaim ", after.Key(), ": HTTP ",
                   r->status, ": ", StatusMessage(r->body));
  if (r->status == 404) return absl::NotFoundError(why);
  if (r->status == 409) return absl::AbortedError(why);
  return absl::UnavailableError(why);
}

}  // namespace shoal::kube
