// The pieces of JSON the snapshot writer (snapshot_writer.h) makes every
// object of, and its encoders of the scheduling objects (PodGroups of
// every API, Queues, Workloads, HyperNodes: snapshot_scheduling.cc).
// Internal to the writer: nothing else builds Kubernetes JSON from the
// model this way.
#ifndef SHOAL_SCHEDULER_KUBE_SNAPSHOT_SNAPSHOT_JSON_H_
#define SHOAL_SCHEDULER_KUBE_SNAPSHOT_SNAPSHOT_JSON_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "scheduler/api/cluster_info.h"
#include "scheduler/api/composite_pod_group.h"
#include "scheduler/api/workload.h"

namespace shoal::kube::snapshot_json {

using nlohmann::json;

// An amount as a quantity that parses back to exactly it.
std::string Quantity(api::ResourceId id, int64_t amount);
// A resource list ({"cpu": "500m", ...}); `skip_pods` leaves out pods.
json Resources(const api::Resource& r, bool skip_pods = false);
json Limit(const api::Resource& r);
json StringMap(const std::vector<std::pair<std::string, std::string>>& pairs);
std::string Time(absl::Time t);  // RFC 3339
json Metadata(const std::string& name, const std::string& ns = "");
json Object(const char* api_version, const char* kind, json metadata);
json Selector(const api::LabelSelector& s);
// A field Shoal does not implement, written back as it came.
void WriteUnsupported(const std::string& field, const std::string& value,
                      json& spec);
// spec.resourceClaims of a pod or a PodGroup; returns what the
// resourceclaim controller recorded of them.
json ResourceClaims(const std::vector<api::PodClaim>& list, json& spec);

// The scheduling objects, as the decoders read them back.
json EncodePodGroup(const api::JobInfo& job);
json EncodeQueue(const api::QueueInfo& q);
json EncodeWorkload(const api::WorkloadSpec& w);
json EncodeCompositePodGroup(const api::CompositePodGroupSpec& g);
json EncodeHyperNode(const api::HyperNodeSpec& h);

}  // namespace shoal::kube::snapshot_json

#endif  // SHOAL_SCHEDULER_KUBE_SNAPSHOT_SNAPSHOT_JSON_H_
