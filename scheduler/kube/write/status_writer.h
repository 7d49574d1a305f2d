// Tells users what the scheduler decided, through the API server:
// PodGroup `/status` (phase, counts, conditions, elastic target) and, on
// each pod still waiting, PodScheduled=False/Unschedulable with the
// reason, plus a FailedScheduling event when that reason changes. Pods of
// a gang that still lacks members are not marked: they wait for their
// siblings, and the PodGroup's condition says so.
//
// It writes only what differs from what the API server last showed (fed
// by the informers and by the answers to its own writes), one write per
// object at a time. PodGroup writes carry the resourceVersion they were
// computed from; a 409 is retried on a freshly read object.
//
// A PodGroup CRD may declare no status subresource (Volcano's does not):
// then `.../podgroups/NAME/status` answers 404 as if the object were
// gone. Which way to write is learnt per API version from discovery
// (`GET /apis/GROUP/VERSION` lists `podgroups/status` only when it is
// served), logged once, and learnt again after a 404; without the
// subresource the status is written through the main resource. A field
// the CRD's schema prunes (Shoal's elasticTarget under Volcano's schema)
// never shows on the server: what was last written is remembered, so it
// is not written again every cycle.
#ifndef SHOAL_SCHEDULER_KUBE_WRITE_STATUS_WRITER_H_
#define SHOAL_SCHEDULER_KUBE_WRITE_STATUS_WRITER_H_

#include <map>
#include <set>
#include <string>

#include "absl/synchronization/mutex.h"
#include "nlohmann/json.hpp"
#include "scheduler/api/cluster_info.h"
#include "scheduler/cache/sinks.h"
#include "scheduler/kube/write/event_recorder.h"
#include "scheduler/kube/write/kube_group_status.h"
#include "scheduler/kube/write/request_pool.h"

namespace shoal::kube {

class StatusWriter : public cache::StatusSink {
 public:
  StatusWriter(RequestPool& pool, EventRecorder& events);

  // The informers' view: PodGroups of either API, and pods.
  void ObservePodGroup(const nlohmann::json& object);
  void ForgetPodGroup(const std::string& api_version, const std::string& key);
  void ObservePod(const nlohmann::json& object);
  void ForgetPod(const std::string& key);
  // Kubernetes' own groups (kube_group_status.h): the versions their
  // conditions are written in ("" for a kind not watched), and the
  // informers' view of them (`resource`: podgroups, compositepodgroups).
  void SetKubeGroupVersions(const std::string& pod_groups,
                            const std::string& composites);
  void ObserveKubeGroup(const std::string& resource,
                        const nlohmann::json& object);
  void ForgetKubeGroup(const std::string& api_version,
                       const std::string& resource, const std::string& key);

  // After a cycle: queue the writes its verdict calls for.
  void Publish(const api::ClusterInfo& cluster) override;

  int64_t writes() const;

 private:
  struct Observed {
    std::string resource_version;
    nlohmann::json
        status;  // a PodGroup's status, or a pod's PodScheduled condition
  };
  // Whether the API version serves podgroups/status; asks discovery
  // when not known yet or when `relearn`.
  bool ServesStatus(HttpClient& client, const std::string& api_version,
                    bool relearn);
  void WritePodGroup(HttpClient& client, const std::string& key,
                     const api::JobInfo& job);
  void WritePodCondition(HttpClient& client, const api::PodInfo& pod,
                         const std::string& message);
  void WriteKubeGroup(HttpClient& client, const KubeGroupVerdict& verdict);
  // Takes `object` as the newest view unless a newer one is known.
  void Remember(std::map<std::string, Observed>& into, const std::string& key,
                Observed seen) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  RequestPool& pool_;
  EventRecorder& events_;
  mutable absl::Mutex mu_;
  std::map<std::string, Observed> groups_
      ABSL_GUARDED_BY(mu_);  // by api version + ns/name
  std::map<std::string, Observed> pods_ ABSL_GUARDED_BY(mu_);  // by ns/name
  // What was last written to a PodGroup, and the resourceVersion that
  // write produced: unchanged since, it need not be written again.
  std::map<std::string, Observed> written_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> in_flight_ ABSL_GUARDED_BY(mu_);
  // What each Workload gang's last Event said (by ns/gang), so that an
  // Event is recorded when the reason changes, not every cycle.
  std::map<std::string, std::string> workload_said_ ABSL_GUARDED_BY(mu_);
  // Kubernetes' own groups, by their object path.
  std::map<std::string, Observed> kube_groups_ ABSL_GUARDED_BY(mu_);
  std::string kube_pod_group_version_ ABSL_GUARDED_BY(mu_);
  std::string kube_composite_version_ ABSL_GUARDED_BY(mu_);
  // By API version: true when podgroups/status is served.
  std::map<std::string, bool> serves_status_ ABSL_GUARDED_BY(mu_);
  int64_t writes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_WRITE_STATUS_WRITER_H_
