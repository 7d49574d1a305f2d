#include "scheduler/kube/stream/yaml_stream.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/exceptions.h"
#include "yaml-cpp/mark.h"
#include "yaml-cpp/parser.h"

namespace shoal::kube {
namespace {

// Thrown from the event handler to stop the parser (its events cannot
// return false); the reason is in `failure`.
struct Stop {};

struct Event {
  enum Type { kNull, kScalar, kSeqStart, kMapStart, kEnd } type;
  int line;
  std::string tag;
  std::string value;
};

class Events : public YAML::EventHandler {
 public:
  Events(const ObjectHandler& on_object) : on_object_(on_object) {}

  // A fresh tree for each document.
  void OnDocumentStart(const YAML::Mark& mark) override {
    // yaml-cpp 0.7 yields empty documents forever on text it cannot
    // place after a document ("{}," : a JSON file's trailing comma)
    // without moving on: each document must start further on.
    if (mark.pos <= last_start_) {
      Fail(absl::StrCat(mark.line + 1, ":", mark.column + 1,
                        ": malformed YAML: unexpected text after the end of a "
                        "document"));
    }
    last_start_ = mark.pos;
    line_ = mark.line + 1;
    tree_ = std::make_unique<ObjectTree>(ObjectTree::Root::kDocument,
                                         &on_object_, [this] { return line_; });
    levels_.clear();
    empty_ = true;
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    ++read_;
    Dispatch({Event::kNull, mark.line + 1, "", ""}, anchor);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag,
                YAML::anchor_t anchor, const std::string& value) override {
    ++read_;
    Dispatch({Event::kScalar, mark.line + 1, tag, value}, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&,
                       YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    ++read_;
    Dispatch({Event::kSeqStart, mark.line + 1, "", ""}, anchor);
  }
  void OnSequenceEnd() override { Dispatch({Event::kEnd, line_, "", ""}, 0); }
  void OnMapStart(const YAML::Mark& mark, const std::string&,
                  YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    ++read_;
    Dispatch({Event::kMapStart, mark.line + 1, "", ""}, anchor);
  }
  void OnMapEnd() override { Dispatch({Event::kEnd, line_, "", ""}, 0); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      Fail(absl::StrCat(mark.line + 1,
                        ": malformed YAML: an alias names no complete anchor "
                        "before it (an alias inside its own anchor?)"));
    }
    // Nested aliases ("billion laughs") double at each level: what aliases
    // add is bounded by what the text itself holds.
    replayed_ += it->second.size();
    if (replayed_ > 16 * read_ + 100000) {
      Fail(absl::StrCat(mark.line + 1, ":", mark.column + 1,
                        ": malformed YAML: aliases expand to too many nodes"));
    }
    // Replayed through Dispatch: an anchor being recorded around the
    // alias takes its events too.
    const std::vector<Event> events = it->second;
    for (const Event& e : events) Dispatch(e, 0);
  }

  ObjectTree& tree() { return *tree_; }
  int document_line() const { return document_line_; }
  bool empty() const { return empty_; }
  const absl::Status& failure() const { return failure_; }

 private:
  struct Level {
    bool map;
    bool want_key;
  };
  struct Recording {
    YAML::anchor_t anchor;
    std::vector<Event> events;
    int depth;
  };

  [[noreturn]] void Fail(std::string message) {
    failure_ = absl::InvalidArgumentError(std::move(message));
    throw Stop{};
  }

  void Dispatch(const Event& e, YAML::anchor_t anchor) {
    // Anchored collections being recorded take every event inside them.
    for (auto it = recording_.begin(); it != recording_.end();) {
      it->events.push_back(e);
      if (e.type == Event::kSeqStart || e.type == Event::kMapStart) {
        ++it->depth;
      } else if (e.type == Event::kEnd && --it->depth == 0) {
        anchors_[it->anchor] = std::move(it->events);
        it = recording_.erase(it);
        continue;
      }
      ++it;
    }
    if (anchor != 0) {
      if (e.type == Event::kSeqStart || e.type == Event::kMapStart) {
        recording_.push_back({anchor, {e}, 1});
      } else {
        anchors_[anchor] = {e};
      }
    }
    line_ = e.line;
    if (empty_) document_line_ = e.line;  // where its root begins
    Feed(e);
  }

  void Feed(const Event& e) {
    empty_ = false;
    ObjectTree& tree = *tree_;
    bool ok = true;
    if (!levels_.empty() && levels_.back().map && levels_.back().want_key) {
      if (e.type == Event::kEnd) {
        levels_.pop_back();
        ok = tree.End();
        ValueDone();
      } else if (e.type == Event::kScalar || e.type == Event::kNull) {
        levels_.back().want_key = false;
        ok = tree.Key(e.value);
      } else {
        Fail(absl::StrCat(e.line,
                          ": a mapping key must be text, not a list or map"));
      }
    } else {
      switch (e.type) {
        case Event::kNull:
          ok = tree.Null();
          ValueDone();
          break;
        case Event::kScalar:
          ok = Scalar(tree, e);
          ValueDone();
          break;
        case Event::kSeqStart:
          levels_.push_back({false, false});
          ok = tree.StartArray();
          break;
        case Event::kMapStart:
          levels_.push_back({true, true});
          ok = tree.StartObject();
          break;
        case Event::kEnd:
          levels_.pop_back();
          ok = tree.End();
          ValueDone();
          break;
      }
    }
    if (!ok) {
      failure_ = tree.status();
      throw Stop{};
    }
  }

  // A value of a map is complete: a key comes next.
  void ValueDone() {
    if (!levels_.empty() && levels_.back().map) levels_.back().want_key = true;
  }

  // [-+]?[0-9]+, without std::regex: it recurses per character and
  // overflows the stack on a long enough number.
  static bool IsInteger(absl::string_view s) {
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
      return c >= '0' && c <= '9';
    });
  }

  // As yaml_json.cc types scalars.
  static bool Scalar(ObjectTree& tree, const Event& e) {
    const std::string& s = e.value;
    if (e.tag == "!") return tree.String(s);  // quoted: always text
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL")
      return tree.Null();
    if (s == "true" || s == "True" || s == "TRUE") return tree.Bool(true);
    if (s == "false" || s == "False" || s == "FALSE") return tree.Bool(false);
    int64_t i;
    if (IsInteger(s) && absl::SimpleAtoi(s, &i)) return tree.Integer(i);
    return tree.String(s);
  }

  const ObjectHandler& on_object_;
  std::unique_ptr<ObjectTree> tree_;
  std::vector<Level> levels_;
  std::vector<Recording> recording_;
  std::map<YAML::anchor_t, std::vector<Event>> anchors_;
  int line_ = 1;
  int document_line_ = 1;
  int last_start_ = -1;
  uint64_t read_ = 0;      // events the text held
  uint64_t replayed_ = 0;  // events aliases added
  bool empty_ = true;
  absl::Status failure_;
};

}  // namespace

absl::StatusOr<std::vector<YamlDocumentEnvelope>> ReadYamlObjects(
    std::istream& in, const ObjectHandler& on_object) {
  std::vector<YamlDocumentEnvelope> documents;
  Events events(on_object);
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(events)) {
      ObjectTree& tree = events.tree();
      // An empty document (between two ---) holds nothing.
      if (events.empty() || tree.root().is_null()) continue;
      YamlDocumentEnvelope d;
      d.line = events.document_line();
      d.envelope.had_items = tree.root_had_items();
      if (!d.envelope.had_items) {
        if (absl::Status s = on_object(std::move(tree.root()), d.line); !s.ok())
          return s;
      } else {
        d.envelope.fields = std::move(tree.root());
        d.envelope.fields.erase("items");
      }
      documents.push_back(std::move(d));
    }
  } catch (const Stop&) {
    return events.failure();
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        e.mark.line + 1, ":", e.mark.column + 1, ": malformed YAML: ", e.msg));
  }
  return documents;
}

}  // namespace shoal::kube
