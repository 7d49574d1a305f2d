#include "scheduler/kube/write/api_decision_sink.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "scheduler/kube/write/api_binder.h"

namespace shoal::kube {
namespace {

ObjectRef RefOf(const api::PodInfo& pod) {
  return {"v1", "Pod", pod.ns, pod.name, pod.uid};
}

}  // namespace

namespace {

// kube-scheduler's PreBind: the claims first (creating the one made for
// the pod's extended resources), then the pod's
// status.extendedResourceClaimStatus naming it; a write that fails stops
// there.
absl::Status WriteClaims(HttpClient& client, const api::PodInfo& pod,
                         const std::vector<api::ClaimWrite>& claims) {
  absl::Status s;
  for (const api::ClaimWrite& w : claims) {
    s = ApiBinder(client).WriteClaim(w);
    // A claim shared with another pod of this cycle: its first write
    // may still be on its way (binds go out concurrently).
    for (int retry = 0; w.follows && absl::IsAborted(s) && retry < 20;
         ++retry) {
      absl::SleepFor(absl::Milliseconds(25));
      s = ApiBinder(client).WriteClaim(w);
    }
    if (!s.ok()) return s;
  }
  for (const api::ClaimWrite& w : claims) {
    if (w.mappings.empty()) continue;
    s = ApiBinder(client).WritePodExtendedClaimStatus(pod, w);
    if (!s.ok()) return s;
  }
  return s;
}

}  // namespace

void ApiDecisionSink::Bind(std::shared_ptr<const api::PodInfo> pod,
                           const std::string& node,
                           const std::vector<api::ClaimWrite>& claims,
                           cache::Done done) {
  pool_.Submit([this, pod = std::move(pod), node, claims,
                done = std::move(done)](HttpClient& client) {
    // kube-scheduler's order: the claims first (PreBind), then the bind;
    // a claim that cannot be written leaves the pod unbound.
    absl::Status s = WriteClaims(client, *pod, claims);
    if (s.ok()) s = ApiBinder(client).Bind(*pod, node);
    if (s.ok()) {
      events_.Record(
          RefOf(*pod), "Normal", "Scheduled",
          absl::StrCat("Successfully assigned ", pod->Key(), " to ", node));
    }
    done(std::move(s));
  });
}

void ApiDecisionSink::Reserve(std::shared_ptr<const api::PodInfo> pod,
                              const std::vector<api::ClaimWrite>& claims,
                              cache::Done done) {
  pool_.Submit([this, pod = std::move(pod), claims,
                done = std::move(done)](HttpClient& client) {
    absl::Status s = WriteClaims(client, *pod, claims);
    if (s.ok()) {
      events_.Record(RefOf(*pod), "Normal", "DevicesReserved",
                     "Devices allocated; the pod binds once they report "
                     "their binding conditions");
    }
    done(std::move(s));
  });
}

void ApiDecisionSink::Evict(std::shared_ptr<const api::PodInfo> pod,
                            const std::string& reason,
                            const std::string& preemptor, cache::Done done) {
  pool_.Submit([this, pod = std::move(pod), reason, preemptor,
                done = std::move(done)](HttpClient& client) {
    absl::Status s = ApiBinder(client).Evict(*pod, reason, preemptor);
    if (s.ok()) {
      if (reason == "preempt") {
        events_.Record(RefOf(*pod), "Normal", "Preempted",
                       absl::StrCat("Preempted by ", preemptor));
      } else if (reason == "consolidate") {
        events_.Record(
            RefOf(*pod), "Normal", "Moved",
            absl::StrCat("Moved by shoal to make room for ", preemptor,
                         " (consolidate): the pod its controller makes in "
                         "its place has room held on another node"));
      } else {
        std::string why = preemptor.empty()
                              ? reason
                              : absl::StrCat(reason, " for ", preemptor);
        events_.Record(RefOf(*pod), "Normal", "Evict",
                       absl::StrCat("Evicted by shoal: ", why));
      }
    }
    done(std::move(s));
  });
}

void ApiDecisionSink::Deallocate(const api::ResourceClaim& after,
                                 const std::string& reason,
                                 const std::vector<std::string>& pods,
                                 cache::Done done) {
  pool_.Submit(
      [this, after, reason, pods, done = std::move(done)](HttpClient& client) {
        absl::Status s = ApiBinder(client).DeallocateClaim(after);
        if (s.ok()) {
          for (const std::string& key : pods) {
            const size_t slash = key.find('/');
            events_.Record(
                {"v1", "Pod", key.substr(0, slash), key.substr(slash + 1), ""},
                "Warning", "DevicesDeallocated", reason);
          }
        }
        done(std::move(s));
      });
}

}  // namespace shoal::kube
