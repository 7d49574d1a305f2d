#include "scheduler/kube/object_meta.h"

namespace shoal::kube {

using nlohmann::json;

std::string ObjectKey(const json& object) {
  const json& meta = object.value("metadata", json::object());
  std::string name = meta.value("name", "");
  std::string ns = meta.value("namespace", "");
  return ns.empty() ? name : ns + "/" + name;
}

std::string ResourceVersionOf(const json& object) {
  return object.value("metadata", json::object()).value("resourceVersion", "");
}

}  // namespace shoal::kube
