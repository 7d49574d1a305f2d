// Fuzzes every object decoder of scheduler/kube (objects.h, volumes.h) on
// JSON as the API server sends it: the input is parsed the way the
// informer parses a body (nlohmann::json::parse without exceptions) and
// handed to each decoder; a LIST page's items are each decoded too. Every
// refusal must name the object and the field ("<what>: <field>: <why>").
#include <cstddef>
#include <cstdint>
#include <string>

#include "nlohmann/json.hpp"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/decode/volumes.h"
#include "tools/fuzz/fuzz_check.h"

namespace {

using nlohmann::json;
using shoal::fuzz::CheckRefusal;

void DecodeAll(const json& obj) {
  namespace kube = shoal::kube;
  CheckRefusal(kube::DecodeNode(obj).status(), "DecodeNode");
  kube::DecodeWarnings warnings;  // their paths are fuzzed too
  CheckRefusal(kube::DecodePod(obj, &warnings).status(), "DecodePod");
  CheckRefusal(kube::DecodePodGroup(obj, &warnings).status(), "DecodePodGroup");
  CheckRefusal(kube::DecodeQueue(obj, &warnings).status(), "DecodeQueue");
  CheckRefusal(kube::DecodePriorityClass(obj).status(), "DecodePriorityClass");
  CheckRefusal(kube::DecodeNamespace(obj).status(), "DecodeNamespace");
  CheckRefusal(kube::DecodePersistentVolumeClaim(obj).status(),
               "DecodePersistentVolumeClaim");
  CheckRefusal(kube::DecodePersistentVolume(obj).status(),
               "DecodePersistentVolume");
  CheckRefusal(kube::DecodeStorageClass(obj).status(), "DecodeStorageClass");
  CheckRefusal(kube::DecodeCsiNode(obj).status(), "DecodeCsiNode");
  // The pod decoder reads a pod's volumes through this; called on its own
  // it also sees a spec that is not a pod's.
  if (obj.is_object() && obj.contains("spec")) {
    CheckRefusal(
        kube::DecodePodVolumeClaims(obj["spec"], "fuzz", "pod fuzz").status(),
        "DecodePodVolumeClaims");
  }
  kube::IsVolcanoPodGroup(obj);
  kube::IsSchedulerPluginsPodGroup(obj);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  json obj = json::parse(data, data + size, nullptr,
                         /*allow_exceptions=*/false);
  if (obj.is_discarded()) return 0;
  DecodeAll(obj);
  if (obj.is_object() && obj.contains("items") && obj["items"].is_array()) {
    for (const json& item : obj["items"]) DecodeAll(item);
  }
  return 0;
}
