// Builds Kubernetes objects, one at a time, from a parser's events (a
// JSON or a YAML stream): the tree of the object being read is the only
// tree there is. A List's items are handed on as each is complete; any
// other document root is kept until the end.
//
// The trees leave out what no decoder reads and what makes real objects
// large: managedFields, the last-applied-configuration annotation,
// containers' env, command, probes and mounts, and status' container
// statuses and node images (KeptOut in the .cc lists them). Everything
// else stays, so a field Shoal refuses is still seen and refused by name.
// Kept text must be UTF-8: nlohmann::json cannot print anything else.
#ifndef SHOAL_SCHEDULER_KUBE_STREAM_OBJECT_TREE_H_
#define SHOAL_SCHEDULER_KUBE_STREAM_OBJECT_TREE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace shoal::kube {

// One object read: its tree and the line (1-based) where it began.
using ObjectHandler =
    std::function<absl::Status(nlohmann::json object, int line)>;

class ObjectTree {
 public:
  enum class Root {
    kDocument,    // a List, whose items are handed on, or one object
    kWatchEvent,  // {"type": ..., "object": {...}}: the object is trimmed
  };
  // `line` tells the current line, asked when an object begins.
  ObjectTree(Root root, const ObjectHandler* on_object,
             std::function<int()> line);

  // The parser's events. Each returns false to stop the parser; status()
  // then says why.
  bool Null() { return Scalar(nullptr); }
  bool Bool(bool b) { return Scalar(b); }
  bool Number(absl::string_view text);  // as nlohmann would read it
  bool Integer(int64_t i) { return Scalar(i); }
  bool String(absl::string_view text);
  bool Key(absl::string_view text);
  bool StartObject() { return Open(nlohmann::json::object(), false); }
  bool StartArray() { return Open(nlohmann::json::array(), true); }
  bool End();

  // After the document: the root (without the items handed on).
  nlohmann::json& root() { return root_; }
  bool root_had_items() const { return had_items_; }
  const absl::Status& status() const { return status_; }

  enum class Role;  // where a value sits (the .cc)

 private:
  struct Frame {
    nlohmann::json* value;
    Role role;
    std::string key;  // the object's key whose value comes next
    bool emit;        // a List's item: handed on when complete
    int line;
  };

  nlohmann::json* Place(nlohmann::json value, bool* emit);
  bool Scalar(nlohmann::json value);
  bool Open(nlohmann::json value, bool is_array);
  bool Emit(nlohmann::json object, int line);
  bool BadText(const char* what);

  Root root_kind_;
  const ObjectHandler* on_object_;
  std::function<int()> line_;
  std::vector<Frame> stack_;
  nlohmann::json root_;
  nlohmann::json item_;
  int skip_depth_ = 0;
  bool skip_next_ = false;
  bool had_items_ = false;
  absl::Status status_;
};

// RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF.
bool ValidUtf8(absl::string_view text);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_STREAM_OBJECT_TREE_H_
