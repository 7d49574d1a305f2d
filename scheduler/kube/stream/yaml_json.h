// Reads YAML (or JSON, which YAML contains) into nlohmann::json the way
// the API server reads a manifest: quoted scalars stay strings, plain ones
// become numbers, booleans or null when they look like one. A whole
// stream becomes trees at once: tests use it as the reference for the
// streaming readers (yaml_stream.h, json_stream.h), which the binary runs.
#ifndef SHOAL_SCHEDULER_KUBE_STREAM_YAML_JSON_H_
#define SHOAL_SCHEDULER_KUBE_STREAM_YAML_JSON_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace shoal::kube {

struct YamlDocument {
  nlohmann::json value;
  int line = 0;  // 1-based line where the document starts
  // For a `kind: List`, the line of each item, in order.
  std::vector<int> item_lines;
};

// Every document of a multi-document stream. Malformed YAML is refused as
// "FILE:LINE:COLUMN: malformed YAML: ...".
absl::StatusOr<std::vector<YamlDocument>> ParseYamlDocuments(
    absl::string_view text, absl::string_view file);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_STREAM_YAML_JSON_H_
