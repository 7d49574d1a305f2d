#include "scheduler/kube/stream/yaml_json.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/yaml.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

// [-+]?[0-9]+, checked by hand: std::regex_match recurses once per
// character and overflowed the stack on a scalar of some 30,000 digits.
bool IsInteger(absl::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), absl::ascii_isdigit);
}

// RFC 3629 UTF-8 (no overlong forms, no surrogates), what nlohmann::json
// accepts: it throws when dumping a string that is not, and decoders dump
// the values they refuse. YAML passes bytes through, and escapes such as
// "\uD800" make surrogates.
bool IsUtf8(absl::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = s[i];
    int n;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
    if (c < 0x80) {
      n = 0;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (n > 0 && i + n >= s.size()) return false;  // cut short
    for (int k = 1; k <= n; ++k) {
      const unsigned char b = s[i + k];
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return false;
    }
    i += n + 1;
  }
  return true;
}

const std::string& Text(const YAML::Node& node) {
  const std::string& s = node.Scalar();
  if (!IsUtf8(s)) throw YAML::ParserException(node.Mark(), "invalid UTF-8");
  return s;
}

json Scalar(const YAML::Node& node) {
  const std::string& s = Text(node);
  if (node.Tag() == "!") return s;  // quoted: always a string
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") {
    return nullptr;
  }
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  int64_t i;
  if (IsInteger(s) && absl::SimpleAtoi(s, &i)) return i;
  // Everything else stays text, floats included: in Kubernetes objects they
  // are quantities ("0.5", "1e3"), parsed exactly from their text and never
  // through a double.
  return s;
}

// Aliases make a node graph of the text: one that refers to itself
// ("a: &x {b: *x}") is endless, and nested ones ("billion laughs") grow
// exponentially. Converting stops at a depth no Kubernetes object reaches,
// and at a number of nodes no plain text of this size holds.
struct Budget {
  int64_t nodes_left;
  static constexpr int kMaxDepth = 1000;
};

json ToJson(const YAML::Node& node, int depth, Budget& budget) {
  if (depth > Budget::kMaxDepth) {
    throw YAML::ParserException(
        node.Mark(), "nested too deeply (an alias inside its own anchor?)");
  }
  if (--budget.nodes_left < 0) {
    throw YAML::ParserException(node.Mark(),
                                "aliases expand to too many nodes");
  }
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json obj = json::object();
      for (const auto& kv : node)
        obj[Text(kv.first)] = ToJson(kv.second, depth + 1, budget);
      return obj;
    }
    case YAML::NodeType::Sequence: {
      json arr = json::array();
      for (const auto& item : node)
        arr.push_back(ToJson(item, depth + 1, budget));
      return arr;
    }
    case YAML::NodeType::Scalar:
      return Scalar(node);
    default:
      return nullptr;
  }
}

// yaml-cpp 0.7's LoadAll never returns on some malformed streams (a ","
// outside any flow collection, as in "{},", a JSON file with a trailing
// comma): the parser yields an empty document after another without
// consuming anything, and the list of them grows until memory runs out.
// This pass reads events only and reports where the parser stopped
// moving; every document starts at a later token than the one before.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  YAML::Mark start = YAML::Mark::null_mark();
};

// Where the parser stops moving, or nullopt. Throws YAML::Exception on
// malformed YAML, as LoadAll does.
std::optional<YAML::Mark> StuckAt(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  int previous = -1;
  while (parser.HandleNextDocument(starts)) {
    if (starts.start.pos <= previous) return starts.start;
    previous = starts.start.pos;
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<std::vector<YamlDocument>> ParseYamlDocuments(
    absl::string_view text, absl::string_view file) {
  std::vector<YAML::Node> nodes;
  std::vector<YamlDocument> docs;
  try {
    const std::string input(text);
    if (auto stuck = StuckAt(input)) {
      return absl::InvalidArgumentError(absl::StrCat(
          file, ":", stuck->line + 1, ":", stuck->column + 1,
          ": malformed YAML: unexpected text after the end of a document"));
    }
    nodes = YAML::LoadAll(input);
    // Text written out by hand or by a dumper, aliases included, has far
    // fewer nodes than 16 per byte.
    Budget budget{16 * static_cast<int64_t>(input.size()) + 10000};
    for (const auto& node : nodes) {
      if (node.IsNull()) continue;  // an empty document between ---
      YamlDocument doc;
      doc.value = ToJson(node, 0, budget);  // throws on what it refuses
      doc.line = node.Mark().line + 1;
      if (node.IsMap() && node["items"] && node["items"].IsSequence()) {
        for (const auto& item : node["items"]) {
          doc.item_lines.push_back(item.Mark().line + 1);
        }
      }
      docs.push_back(std::move(doc));
    }
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ":", e.mark.line + 1, ":", e.mark.column + 1,
                     ": malformed YAML: ", e.msg));
  }
  return docs;
}

}  // namespace shoal::kube
