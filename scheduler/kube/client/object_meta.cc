#include "scheduler/kube/client/object_meta.h"

namespace shoal::kube {

using nlohmann::json;

namespace {

// obj[key] when `obj` is an object holding a string there, else "": the
// API server's bytes may hold anything anywhere, and json::value() throws
// when the member or the object is not of the type it expects.
std::string StringAt(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

const json& Meta(const json& object) {
  static const json* const kNone = new json(json::object());
  if (!object.is_object()) return *kNone;
  auto it = object.find("metadata");
  return it != object.end() ? *it : *kNone;
}

}  // namespace

std::string ObjectKey(const json& object) {
  const json& meta = Meta(object);
  std::string name = StringAt(meta, "name");
  std::string ns = StringAt(meta, "namespace");
  return ns.empty() ? name : ns + "/" + name;
}

std::string ResourceVersionOf(const json& object) {
  return StringAt(Meta(object), "resourceVersion");
}

}  // namespace shoal::kube
