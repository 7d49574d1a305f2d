// Reads Kubernetes objects out of JSON one object at a time, without a
// tree of the whole document: a snapshot file of 50,000 pods, a LIST page
// or a watch event is tokenized by RapidJSON's SAX reader (README, "Why
// RapidJSON") into an ObjectTree (object_tree.h), which hands each object
// on as soon as it is complete, without the bulk no decoder reads.
#ifndef SHOAL_SCHEDULER_KUBE_STREAM_JSON_STREAM_H_
#define SHOAL_SCHEDULER_KUBE_STREAM_JSON_STREAM_H_

#include <cstdio>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "scheduler/kube/stream/object_tree.h"

namespace shoal::kube {

// Where the bytes come from: a file read in blocks, or text in memory.
class JsonSource {
 public:
  // Neither is owned; both must outlive the source.
  static JsonSource File(std::FILE* file);
  static JsonSource Text(absl::string_view text);

  // RapidJSON's input stream concept.
  using Ch = char;
  Ch Peek() { return pos_ < end_ || Refill() ? *pos_ : '\0'; }
  Ch Take() { return pos_ < end_ || Refill() ? *pos_++ : '\0'; }
  size_t Tell() const { return consumed_ + (pos_ - begin_); }
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  size_t PutEnd(Ch*) { return 0; }

  // The line of the next byte. Each byte is counted once, when asked for
  // or when its block is replaced.
  int Line();
  int Column();  // 1-based, of the next byte
  // The first non-blank byte, without taking it ('\0' at the end).
  char FirstNonBlank();
  // Takes blanks a block at a time (RapidJSON's own loop asks byte by
  // byte; kubectl's indentation makes blanks a third of a dump).
  void SkipBlanks();

 private:
  explicit JsonSource(std::FILE* file) : file_(file) {}
  bool Refill();
  void CountTo(const char* upto);

  std::FILE* file_ = nullptr;
  std::string block_;
  const char* begin_ = nullptr;
  const char* pos_ = nullptr;
  const char* end_ = nullptr;
  const char* counted_ = nullptr;
  size_t consumed_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;  // offset of the current line's first byte
};

// Found by argument-dependent lookup from RapidJSON's reader, and chosen
// over its generic version.
inline void SkipWhitespace(JsonSource& source) { source.SkipBlanks(); }

// What a document held besides its items: kind, apiVersion, metadata
// (so a LIST page's resourceVersion and continue token).
struct JsonEnvelope {
  nlohmann::json fields = nlohmann::json::object();
  // Whether the root was an object with an `items` array, whose elements
  // went to the handler one by one.
  bool had_items = false;
};

// Reads one JSON document whose `items` array, if the root has one, goes
// to `on_item` element by element as read; the root without them is
// returned (a LIST page: its kind and metadata).
absl::StatusOr<JsonEnvelope> ReadJsonList(JsonSource& source,
                                          const ObjectHandler& on_item);

// The members of a List's root that come before its `items` array
// (kube-apiserver writes kind, apiVersion and metadata first), read no
// further than the first item: a LIST page's continue token, known
// before its items are decoded. Members after the items are not seen.
absl::StatusOr<nlohmann::json> ReadListHead(absl::string_view text);

// Reads one JSON document. A root object with an `items` array hands on
// each element as soon as it is read; any other root is handed on whole.
// A handler's error stops the reading and is returned as it is; malformed
// JSON gives "LINE:COLUMN: malformed JSON: why".
absl::StatusOr<JsonEnvelope> ReadJsonObjects(JsonSource& source,
                                             const ObjectHandler& on_object);

// A watch event line: its type and its object, kept out fields left out.
struct WatchEvent {
  std::string type;
  nlohmann::json object;
};
absl::StatusOr<WatchEvent> ReadWatchEvent(absl::string_view line);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_STREAM_JSON_STREAM_H_
