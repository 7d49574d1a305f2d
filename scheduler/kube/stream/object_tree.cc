#include "scheduler/kube/stream/object_tree.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace shoal::kube {

using nlohmann::json;

// Where a value sits, as far as leaving fields out is concerned.
enum class ObjectTree::Role {
  kDocument,  // a document's root: a List, or one object
  kEvent,     // a watch event's root
  kItems,     // a List's items
  kItem,      // one object
  kMetadata,  // an object's metadata
  kAnnotations,
  kSpec,
  kContainers,  // spec.containers, initContainers, ephemeralContainers
  kContainer,
  kStatus,
  kOther,
};

namespace {

using Role = ObjectTree::Role;

constexpr size_t kMaxDepth = 512;

bool IsObjectRoot(Role r) { return r == Role::kDocument || r == Role::kItem; }

Role ChildRole(Role parent, absl::string_view key, bool is_array) {
  switch (parent) {
    case Role::kEvent:
      return key == "object" && !is_array ? Role::kItem : Role::kOther;
    case Role::kItems:
      return Role::kItem;
    case Role::kContainers:
      return Role::kContainer;
    case Role::kMetadata:
      return key == "annotations" ? Role::kAnnotations : Role::kOther;
    case Role::kSpec:
      return is_array && (key == "containers" || key == "initContainers" ||
                          key == "ephemeralContainers")
                 ? Role::kContainers
                 : Role::kOther;
    default:
      break;
  }
  if (!IsObjectRoot(parent)) return Role::kOther;
  if (parent == Role::kDocument && key == "items" && is_array)
    return Role::kItems;
  if (key == "metadata") return Role::kMetadata;
  if (key == "spec") return Role::kSpec;
  if (key == "status") return Role::kStatus;
  return Role::kOther;
}

// What no decoder reads, by where it sits. These are the bulk of a real
// object (managedFields alone is often half a pod); leaving a field out
// here is safe only if no decoder in objects.cc or volumes.cc reads it.
bool KeptOut(Role parent, absl::string_view key) {
  static constexpr absl::string_view kContainer[] = {"args",
                                                     "command",
                                                     "env",
                                                     "envFrom",
                                                     "image",
                                                     "imagePullPolicy",
                                                     "lifecycle",
                                                     "livenessProbe",
                                                     "readinessProbe",
                                                     "securityContext",
                                                     "startupProbe",
                                                     "stdin",
                                                     "stdinOnce",
                                                     "terminationMessagePath",
                                                     "terminationMessagePolicy",
                                                     "tty",
                                                     "volumeDevices",
                                                     "volumeMounts",
                                                     "workingDir"};
  static constexpr absl::string_view kStatus[] = {
      "config",          "containerStatuses",
      "daemonEndpoints", "ephemeralContainerStatuses",
      "images",          "initContainerStatuses",
      "nodeInfo",        "volumesAttached",
      "volumesInUse"};
  auto in = [&key](const auto& names) {
    return std::find(std::begin(names), std::end(names), key) !=
           std::end(names);
  };
  switch (parent) {
    case Role::kMetadata:
      return key == "managedFields";
    case Role::kAnnotations:
      return key == "kubectl.kubernetes.io/last-applied-configuration";
    case Role::kContainer:
      return in(kContainer);
    case Role::kStatus:
      return in(kStatus);
    default:
      return false;
  }
}

// A number as nlohmann's own parser would give it: an integer when it is
// one and fits, otherwise a double.
json NumberOf(absl::string_view text) {
  if (text.find_first_of(".eE") == absl::string_view::npos) {
    if (text[0] == '-') {
      int64_t i;
      if (absl::SimpleAtoi(text, &i)) return i;
    } else {
      uint64_t u;
      if (absl::SimpleAtoi(text, &u)) return u;
    }
  }
  double d = 0;
  (void)absl::SimpleAtod(text, &d);
  return d;
}

}  // namespace

// Plain ASCII, nearly every string, is passed eight bytes at a time.
bool ValidUtf8(absl::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const unsigned char* end = p + text.size();
  while (p < end) {
    if (end - p >= 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      if ((word & 0x8080808080808080ull) == 0) {
        p += 8;
        continue;
      }
    }
    unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int more;
    unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range
    if (c >= 0xc2 && c <= 0xdf) {
      more = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
      more = 2;
      if (c == 0xe0) lo = 0xa0;
      if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      more = 3;
      if (c == 0xf0) lo = 0x90;
      if (c == 0xf4) hi = 0x8f;
    } else {
      return false;
    }
    if (end - p <= more) return false;
    if (p[1] < lo || p[1] > hi) return false;
    for (int i = 2; i <= more; ++i) {
      if (p[i] < 0x80 || p[i] > 0xbf) return false;
    }
    p += more + 1;
  }
  return true;
}

ObjectTree::ObjectTree(Root root, const ObjectHandler* on_object,
                       std::function<int()> line)
    : root_kind_(root), on_object_(on_object), line_(std::move(line)) {}

bool ObjectTree::Number(absl::string_view text) {
  return Scalar(NumberOf(text));
}

bool ObjectTree::String(absl::string_view text) {
  if (skip_depth_ > 0 || skip_next_) return Scalar(nullptr);
  if (!ValidUtf8(text)) return BadText("a string");
  return Scalar(std::string(text));
}

bool ObjectTree::Key(absl::string_view text) {
  if (skip_depth_ > 0) return true;
  if (!ValidUtf8(text)) return BadText("a key");
  Frame& top = stack_.back();
  top.key.assign(text.data(), text.size());
  skip_next_ = KeptOut(top.role, top.key);
  return true;
}

json* ObjectTree::Place(json value, bool* emit) {
  *emit = false;
  if (stack_.empty()) {
    root_ = std::move(value);
    return &root_;
  }
  Frame& top = stack_.back();
  if (top.role == Role::kItems) {
    *emit = true;
    item_ = std::move(value);
    return &item_;
  }
  if (top.value->is_array()) {
    top.value->push_back(std::move(value));
    return &top.value->back();
  }
  json& slot = (*top.value)[top.key];
  slot = std::move(value);
  return &slot;
}

bool ObjectTree::Scalar(json value) {
  if (skip_depth_ > 0) return true;
  if (skip_next_) {
    skip_next_ = false;
    return true;
  }
  bool emit;
  json* placed = Place(std::move(value), &emit);
  if (emit) return Emit(std::move(*placed), line_());
  return true;
}

bool ObjectTree::Open(json value, bool is_array) {
  if (skip_depth_ > 0 || skip_next_) {
    skip_next_ = false;
    ++skip_depth_;
    return true;
  }
  // Deeper than any Kubernetes object: refused before printing such a
  // value (recursive) could overflow the stack.
  if (stack_.size() >= kMaxDepth) {
    status_ = absl::InvalidArgumentError(
        absl::StrCat(line_(), ": nested deeper than ", kMaxDepth, " levels"));
    return false;
  }
  Role role = root_kind_ == Root::kWatchEvent ? Role::kEvent : Role::kDocument;
  if (!stack_.empty()) {
    const Frame& top = stack_.back();
    role = ChildRole(top.role, top.key, is_array);
    if (role == Role::kItems) had_items_ = true;
  }
  bool emit;
  json* placed = Place(std::move(value), &emit);
  // Only items need their line, for messages about them.
  stack_.push_back({placed, role, std::string(), emit, emit ? line_() : 0});
  return true;
}

bool ObjectTree::End() {
  if (skip_depth_ > 0) {
    --skip_depth_;
    return true;
  }
  Frame done = std::move(stack_.back());
  stack_.pop_back();
  if (done.emit) return Emit(std::move(*done.value), done.line);
  return true;
}

bool ObjectTree::BadText(const char* what) {
  status_ = absl::InvalidArgumentError(
      absl::StrCat(line_(), ": ", what, " is not valid UTF-8"));
  return false;
}

bool ObjectTree::Emit(json object, int line) {
  status_ = (*on_object_)(std::move(object), line);
  return status_.ok();
}

}  // namespace shoal::kube
