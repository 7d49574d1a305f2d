// What every Kubernetes object carries the same way: how it is keyed
// (namespace/name, or name when cluster-scoped) and its resourceVersion.
#ifndef SHOAL_SCHEDULER_KUBE_CLIENT_OBJECT_META_H_
#define SHOAL_SCHEDULER_KUBE_CLIENT_OBJECT_META_H_

#include <string>

#include "nlohmann/json.hpp"

namespace shoal::kube {

std::string ObjectKey(const nlohmann::json& object);
std::string ResourceVersionOf(const nlohmann::json& object);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_CLIENT_OBJECT_META_H_
