#include "scheduler/kube/stream/json_stream.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "rapidjson/error/en.h"
#include "rapidjson/reader.h"
#include "scheduler/kube/stream/object_tree.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

constexpr size_t kBlockSize = 1 << 16;

// Hands RapidJSON's events to the tree.
class Events : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Events> {
 public:
  explicit Events(ObjectTree& tree) : tree_(tree) {}
  bool Null() { return tree_.Null(); }
  bool Bool(bool b) { return tree_.Bool(b); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    return tree_.Number(absl::string_view(s, n));
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    return tree_.String(absl::string_view(s, n));
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    return tree_.Key(absl::string_view(s, n));
  }
  bool StartObject() { return tree_.StartObject(); }
  bool StartArray() { return tree_.StartArray(); }
  bool EndObject(rapidjson::SizeType) { return tree_.End(); }
  bool EndArray(rapidjson::SizeType) { return tree_.End(); }

 private:
  ObjectTree& tree_;
};

// Iterative: nesting costs heap, not stack (ObjectTree bounds the depth).
constexpr unsigned kParseFlags =
    rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseIterativeFlag;

// Parses `source` into `tree`; malformed JSON is named with its place.
absl::Status Parse(JsonSource& source, ObjectTree& tree) {
  rapidjson::Reader reader;
  Events events(tree);
  rapidjson::ParseResult result = reader.Parse<kParseFlags>(source, events);
  if (result.IsError()) {
    if (result.Code() == rapidjson::kParseErrorTermination &&
        !tree.status().ok()) {
      return tree.status();
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

absl::StatusOr<JsonEnvelope> ReadJsonList(JsonSource& source,
                                          const ObjectHandler& on_item) {
  ObjectTree builder(ObjectTree::Root::kDocument, &on_item,
                     [&source] { return source.Line(); });
  if (absl::Status s = Parse(source, builder); !s.ok()) return s;
  JsonEnvelope envelope;
  envelope.had_items = builder.root_had_items();
  envelope.fields = std::move(builder.root());
  if (envelope.had_items) envelope.fields.erase("items");
  return envelope;
}

absl::StatusOr<nlohmann::json> ReadListHead(absl::string_view text) {
  JsonSource source = JsonSource::Text(text);
  // The first item ends the reading: everything before it is in the root.
  const absl::Status first_item = absl::CancelledError("first item");
  ObjectHandler stop = [&first_item](json, int) { return first_item; };
  ObjectTree builder(ObjectTree::Root::kDocument, &stop,
                     [&source] { return source.Line(); });
  absl::Status s = Parse(source, builder);
  if (!s.ok() && s != first_item) return s;
  json head = std::move(builder.root());
  if (head.is_object()) head.erase("items");
  return head;
}

absl::StatusOr<JsonEnvelope> ReadJsonObjects(JsonSource& source,
                                             const ObjectHandler& on_object) {
  int line = 1;
  if (source.FirstNonBlank() != '\0') line = source.Line();
  auto envelope = ReadJsonList(source, on_object);
  if (!envelope.ok() || envelope->had_items) return envelope;
  if (absl::Status s = on_object(std::move(envelope->fields), line); !s.ok())
    return s;
  envelope->fields = nlohmann::json::object();
  return envelope;
}

absl::StatusOr<WatchEvent> ReadWatchEvent(absl::string_view line) {
  JsonSource source = JsonSource::Text(line);
  ObjectHandler none = [](json, int) { return absl::OkStatus(); };
  ObjectTree builder(ObjectTree::Root::kWatchEvent, &none,
                     [&source] { return source.Line(); });
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
