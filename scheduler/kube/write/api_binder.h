// Bind and evict through the API server: the Binding subresource, and the
// Eviction API (policy/v1) so that PodDisruptionBudgets are honoured.
#ifndef SHOAL_SCHEDULER_KUBE_WRITE_API_BINDER_H_
#define SHOAL_SCHEDULER_KUBE_WRITE_API_BINDER_H_

#include <string>

#include "absl/status/status.h"
#include "scheduler/api/task_info.h"
#include "scheduler/kube/client/http_client.h"

namespace shoal::kube {

class ApiBinder {
 public:
  explicit ApiBinder(HttpClient& client) : client_(client) {}

  // POST .../pods/NAME/binding. A pod already bound elsewhere (409) or
  // gone (404) is refused with what the API server said.
  absl::Status Bind(const api::PodInfo& pod, const std::string& node);

  // PATCH .../resourceclaims/NAME/status before the bind (DRA): the
  // allocation this cycle made and the pod in reservedFor, guarded by the
  // claim's resourceVersion. A claim changed meanwhile (409, or a failed
  // test: 422) or gone (404) is refused, naming the claim.
  // When write.create is set (the claim Shoal made for the pod's extended
  // resources, KEP-5004), first POST .../resourceclaims with it
  // (NewClaimJson); the status patch then holds the resourceVersion and
  // uid the API server gave it. A claim of that name there already (409)
  // is refused as Aborted, naming it.
  absl::Status WriteClaim(const api::ClaimWrite& write);

  // PATCH .../pods/NAME/status (merge patch) after the claims are written
  // and before the bind: status.extendedResourceClaimStatus naming the
  // claim `write` made for the pod's extended resources and its
  // write.mappings. Refused with the HTTP status, naming the pod.
  absl::Status WritePodExtendedClaimStatus(const api::PodInfo& pod,
                                           const api::ClaimWrite& write);

  // POST .../pods/NAME/eviction. A PodDisruptionBudget that forbids it
  // (429) comes back as ResourceExhausted: that victim is unavailable this
  // cycle. A pod already gone (404) counts as evicted.
  absl::Status Evict(const api::PodInfo& pod, const std::string& reason,
                     const std::string& preemptor);

  // PATCH .../resourceclaims/NAME/status clearing the allocation, the
  // reservations and the devices' status (a merge patch guarded by the
  // resourceVersion `after` carries). A claim changed meanwhile (409) is
  // refused, naming it: the next cycle judges it again.
  absl::Status DeallocateClaim(const api::ResourceClaim& after);

 private:
  // The status patch of WriteClaim (the claim exists).
  absl::Status PatchClaimStatus(const api::ClaimWrite& write);

  HttpClient& client_;
};

// The merge patch WritePodExtendedClaimStatus sends:
// {"status":{"extendedResourceClaimStatus":{"resourceClaimName": ...,
// "requestMappings":[{"containerName","resourceName","requestName"}]}}}.
std::string PodExtendedClaimStatusPatch(const api::ClaimWrite& write);

// The merge patch DeallocateClaim sends.
std::string DeallocationPatch(const api::ResourceClaim& after);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_WRITE_API_BINDER_H_
