#include "e2e/emulator/selectors.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace shoal::emulator {
namespace {

using nlohmann::json;

// Splits on commas that are not inside parentheses.
std::vector<std::string> Terms(const std::string& text) {
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) out.push_back(current);
  return out;
}

std::string Trim(absl::string_view s) {
  return std::string(absl::StripAsciiWhitespace(s));
}

// The field's value as a selector compares it; missing is "".
std::string FieldValue(const json& object,
                       const std::vector<std::string>& path) {
  const json* at = &object;
  for (const auto& step : path) {
    if (!at->is_object() || !at->contains(step)) return "";
    at = &(*at)[step];
  }
  if (at->is_string()) return at->get<std::string>();
  if (at->is_null()) return "";
  return at->dump();
}

}  // namespace

std::optional<Selector> Selector::ParseLabels(const std::string& text,
                                              std::string* error) {
  Selector s;
  for (const std::string& raw : Terms(text)) {
    std::string term = Trim(raw);
    if (term.empty()) continue;
    Requirement r;
    size_t pos;
    if (term[0] == '!') {
      r = {{Trim(term.substr(1))}, Op::kNotExists, {}};
    } else if ((pos = term.find("!=")) != std::string::npos) {
      r = {{Trim(term.substr(0, pos))},
           Op::kNotEquals,
           {Trim(term.substr(pos + 2))}};
    } else if ((pos = term.find("==")) != std::string::npos) {
      r = {{Trim(term.substr(0, pos))},
           Op::kEquals,
           {Trim(term.substr(pos + 2))}};
    } else if ((pos = term.find('=')) != std::string::npos) {
      r = {{Trim(term.substr(0, pos))},
           Op::kEquals,
           {Trim(term.substr(pos + 1))}};
    } else if ((pos = term.find(" notin ")) != std::string::npos ||
               (pos = term.find(" in ")) != std::string::npos) {
      bool notin = term.compare(pos, 7, " notin ") == 0;
      std::string set = Trim(term.substr(pos + (notin ? 7 : 4)));
      if (set.size() < 2 || set.front() != '(' || set.back() != ')') {
        *error =
            "unable to parse requirement: found '" + set + "', expected: '('";
        return std::nullopt;
      }
      r = {{Trim(term.substr(0, pos))}, notin ? Op::kNotIn : Op::kIn, {}};
      for (absl::string_view v :
           absl::StrSplit(set.substr(1, set.size() - 2), ',')) {
        r.values.push_back(Trim(v));
      }
    } else {
      r = {{term}, Op::kExists, {}};
    }
    if (r.path[0].empty()) {
      *error = "unable to parse requirement: empty key in '" + term + "'";
      return std::nullopt;
    }
    s.requirements_.push_back(std::move(r));
  }
  return s;
}

std::optional<Selector> Selector::ParseFields(const std::string& text,
                                              std::string* error) {
  Selector s;
  s.labels_ = false;
  for (const std::string& raw : Terms(text)) {
    std::string term = Trim(raw);
    if (term.empty()) continue;
    Requirement r;
    size_t pos;
    if ((pos = term.find("!=")) != std::string::npos) {
      r = {{}, Op::kNotEquals, {Trim(term.substr(pos + 2))}};
    } else if ((pos = term.find("==")) != std::string::npos) {
      r = {{}, Op::kEquals, {Trim(term.substr(pos + 2))}};
    } else if ((pos = term.find('=')) != std::string::npos) {
      r = {{}, Op::kEquals, {Trim(term.substr(pos + 1))}};
    } else {
      *error =
          "invalid selector: '" + term + "'; can't understand '" + term + "'";
      return std::nullopt;
    }
    r.path = absl::StrSplit(Trim(term.substr(0, pos)), '.');
    s.requirements_.push_back(std::move(r));
  }
  return s;
}

bool Selector::Matches(const json& object) const {
  static const json kEmpty = json::object();
  const json& labels =
      object.contains("metadata") && object["metadata"].contains("labels")
          ? object["metadata"]["labels"]
          : kEmpty;
  for (const Requirement& r : requirements_) {
    bool present;
    std::string value;
    if (labels_) {
      present = labels.is_object() && labels.contains(r.path[0]);
      value = present ? FieldValue(labels, r.path) : "";
    } else {
      present = true;
      value = FieldValue(object, r.path);
    }
    bool in =
        std::find(r.values.begin(), r.values.end(), value) != r.values.end();
    bool ok = false;
    switch (r.op) {
      case Op::kEquals:
        ok = present && value == r.values[0];
        break;
      case Op::kNotEquals:
        ok = !present || value != r.values[0];
        break;
      case Op::kExists:
        ok = present;
        break;
      case Op::kNotExists:
        ok = !present;
        break;
      case Op::kIn:
        ok = present && in;
        break;
      case Op::kNotIn:
        ok = !present || !in;
        break;
    }
    if (!ok) return false;
  }
  return true;
}

}  // namespace shoal::emulator
