// Reads Kubernetes objects out of YAML one object at a time: yaml-cpp's
// event parser (no node tree) feeds an ObjectTree (object_tree.h), so a
// `kubectl get -o yaml` dump of any size is read in the memory of one
// object. Scalars are typed as ParseYamlDocuments types them (yaml_json.h):
// quoted text stays text, plain null/true/false and integers are typed,
// everything else (floats included: quantities) stays text. Anchors and
// aliases are replayed.
#ifndef SHOAL_SCHEDULER_KUBE_STREAM_YAML_STREAM_H_
#define SHOAL_SCHEDULER_KUBE_STREAM_YAML_STREAM_H_

#include <istream>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/kube/stream/json_stream.h"
#include "scheduler/kube/stream/object_tree.h"

namespace shoal::kube {

// One document's envelope (see JsonEnvelope) and the line it began on.
struct YamlDocumentEnvelope {
  JsonEnvelope envelope;
  int line = 1;
};

// Reads every document of `in`: a List's items and every other non-empty
// document go to `on_object` as they are read. Malformed YAML gives
// "LINE:COLUMN: malformed YAML: why"; a handler's error is returned as is.
absl::StatusOr<std::vector<YamlDocumentEnvelope>> ReadYamlObjects(
    std::istream& in, const ObjectHandler& on_object);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_STREAM_YAML_STREAM_H_
