#include "scheduler/kube/json_stream.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "rapidjson/error/en.h"
#include "rapidjson/reader.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

constexpr size_t kBlockSize = 1 << 16;

// Where a value sits, as far as leaving fields out is concerned.
enum class Role {
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
json Number(absl::string_view text) {
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

// RFC 3629 UTF-8: no overlong forms, no surrogates, nothing past
// U+10FFFF. Plain ASCII, nearly every string, is passed eight bytes at a
// time.
bool ValidUtf8(const char* s, size_t n) {
  const auto* p = reinterpret_cast<const unsigned char*>(s);
  const unsigned char* end = p + n;
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

// Builds the tree of one object at a time from the reader's events.
class TreeBuilder
    : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TreeBuilder> {
 public:
  TreeBuilder(JsonSource& source, Role root_role, const ObjectHandler* on)
      : source_(source), root_role_(root_role), on_object_(on) {}

  bool Null() { return Scalar(nullptr); }
  bool Bool(bool b) { return Scalar(b); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    return Scalar(Number(absl::string_view(s, n)));
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    if (skip_depth_ > 0 || skip_next_) return Scalar(nullptr);
    if (!ValidUtf8(s, n)) return BadText("a string");
    return Scalar(std::string(s, n));
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    if (skip_depth_ > 0) return true;
    if (!ValidUtf8(s, n)) return BadText("a key");
    Frame& top = stack_.back();
    top.key.assign(s, n);
    skip_next_ = KeptOut(top.role, top.key);
    return true;
  }
  bool StartObject() { return Open(json::object(), false); }
  bool StartArray() { return Open(json::array(), true); }
  bool EndObject(rapidjson::SizeType) { return Close(); }
  bool EndArray(rapidjson::SizeType) { return Close(); }

  json& root() { return root_; }
  bool root_had_items() const { return had_items_; }
  const absl::Status& status() const { return status_; }

 private:
  struct Frame {
    json* value;
    Role role;
    std::string key;  // the object's key whose value comes next
    bool emit;        // a List's item: handed on when complete
    int line;
  };

  // Where a new value goes, and whether it starts an item.
  json* Place(json value, bool* emit) {
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

  bool Scalar(json value) {
    if (skip_depth_ > 0) return true;
    if (skip_next_) {
      skip_next_ = false;
      return true;
    }
    bool emit;
    json* placed = Place(std::move(value), &emit);
    if (emit) return Emit(std::move(*placed), source_.Line());
    return true;
  }

  bool Open(json value, bool is_array) {
    if (skip_depth_ > 0 || skip_next_) {
      skip_next_ = false;
      ++skip_depth_;
      return true;
    }
    Role role = root_role_;
    if (!stack_.empty()) {
      const Frame& top = stack_.back();
      role = ChildRole(top.role, top.key, is_array);
      if (role == Role::kItems) had_items_ = true;
    }
    bool emit;
    json* placed = Place(std::move(value), &emit);
    // Only items need their line, for messages about them.
    stack_.push_back(
        {placed, role, std::string(), emit, emit ? source_.Line() : 0});
    return true;
  }

  bool Close() {
    if (skip_depth_ > 0) {
      --skip_depth_;
      return true;
    }
    Frame done = std::move(stack_.back());
    stack_.pop_back();
    if (done.emit) return Emit(std::move(*done.value), done.line);
    return true;
  }

  bool BadText(const char* what) {
    status_ = absl::InvalidArgumentError(
        absl::StrCat(source_.Line(), ":", source_.Column(), ": ", what,
                     " is not valid UTF-8"));
    return false;
  }

  bool Emit(json object, int line) {
    status_ = (*on_object_)(std::move(object), line);
    return status_.ok();
  }

  JsonSource& source_;
  Role root_role_;
  const ObjectHandler* on_object_;
  std::vector<Frame> stack_;
  json root_;
  json item_;
  int skip_depth_ = 0;
  bool skip_next_ = false;
  bool had_items_ = false;
  absl::Status status_;
};

// Encoding is checked only on the strings kept (TreeBuilder::String): the
// rest is never read, and checking every byte cost an eighth of a load.
constexpr unsigned kParseFlags = rapidjson::kParseNumbersAsStringsFlag;

// Parses `source` into `builder`; malformed JSON is named with its place.
absl::Status Parse(JsonSource& source, TreeBuilder& builder) {
  rapidjson::Reader reader;
  rapidjson::ParseResult result = reader.Parse<kParseFlags>(source, builder);
  if (result.IsError()) {
    if (result.Code() == rapidjson::kParseErrorTermination &&
        !builder.status().ok()) {
      return builder.status();
    }
    int line = source.Line();
    return absl::InvalidArgumentError(absl::StrCat(
        line, ":", source.Column(),
        ": malformed JSON: ", rapidjson::GetParseError_En(result.Code())));
  }
  return absl::OkStatus();
}

}  // namespace

JsonSource JsonSource::File(std::FILE* file) { return JsonSource(file); }

JsonSource JsonSource::Text(absl::string_view text) {
  JsonSource s(nullptr);
  s.begin_ = s.pos_ = s.counted_ = text.data();
  s.end_ = text.data() + text.size();
  return s;
}

bool JsonSource::Refill() {
  if (file_ == nullptr) return false;
  CountTo(end_);
  consumed_ += end_ - begin_;
  block_.resize(kBlockSize);
  size_t n = std::fread(block_.data(), 1, block_.size(), file_);
  begin_ = pos_ = counted_ = block_.data();
  end_ = block_.data() + n;
  return n > 0;
}

void JsonSource::CountTo(const char* upto) {
  if (counted_ == nullptr || upto <= counted_) return;
  for (const char* p = counted_;
       (p = static_cast<const char*>(std::memchr(p, '\n', upto - p)));) {
    ++line_;
    line_start_ = consumed_ + (++p - begin_);
  }
  counted_ = upto;
}

int JsonSource::Column() {
  CountTo(pos_);
  return static_cast<int>(Tell() - line_start_) + 1;
}

int JsonSource::Line() {
  CountTo(pos_);
  return line_;
}

char JsonSource::FirstNonBlank() {
  SkipBlanks();
  return Peek();
}

void JsonSource::SkipBlanks() {
  for (;;) {
    // Indentation: eight spaces at a time.
    while (end_ - pos_ >= 8 && std::memcmp(pos_, "        ", 8) == 0) pos_ += 8;
    while (pos_ < end_ &&
           (*pos_ == ' ' || *pos_ == '\n' || *pos_ == '\r' || *pos_ == '\t'))
      ++pos_;
    if (pos_ < end_ || !Refill()) return;
  }
}

absl::StatusOr<JsonEnvelope> ReadJsonObjects(JsonSource& source,
                                             const ObjectHandler& on_object) {
  TreeBuilder builder(source, Role::kDocument, &on_object);
  int line = 1;
  if (source.FirstNonBlank() != '\0') line = source.Line();
  if (absl::Status s = Parse(source, builder); !s.ok()) return s;
  JsonEnvelope envelope;
  envelope.had_items = builder.root_had_items();
  if (!envelope.had_items) {
    if (absl::Status s = on_object(std::move(builder.root()), line); !s.ok())
      return s;
    return envelope;
  }
  envelope.fields = std::move(builder.root());
  envelope.fields.erase("items");
  return envelope;
}

absl::StatusOr<WatchEvent> ReadWatchEvent(absl::string_view line) {
  JsonSource source = JsonSource::Text(line);
  ObjectHandler none = [](json, int) { return absl::OkStatus(); };
  TreeBuilder builder(source, Role::kEvent, &none);
  if (absl::Status s = Parse(source, builder); !s.ok()) return s;
  json& root = builder.root();
  if (!root.is_object()) {
    return absl::InvalidArgumentError("watch event: not a JSON object");
  }
  WatchEvent event;
  if (auto t = root.find("type"); t != root.end() && t->is_string())
    event.type = t->get<std::string>();
  if (auto o = root.find("object"); o != root.end())
    event.object = std::move(*o);
  return event;
}

}  // namespace shoal::kube
