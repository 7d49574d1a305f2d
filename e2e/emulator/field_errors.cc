#include "e2e/emulator/field_errors.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shoal::emulator {

using nlohmann::json;

FieldError RequiredField(const std::string& field, const std::string& detail) {
  return {field, "FieldValueRequired",
          detail.empty() ? "Required value"
                         : absl::StrCat("Required value: ", detail)};
}

FieldError InvalidInteger(const std::string& field, int64_t value,
                          const std::string& detail) {
  return {field, "FieldValueInvalid",
          absl::StrCat("Invalid value: ", value, ": ", detail)};
}

FieldError TooMany(const std::string& field, size_t actual, size_t most) {
  return {field, "FieldValueTooMany",
          absl::StrCat("Too many: ", actual, ": must have at most ", most,
                       " items")};
}

const json* PresentMember(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

std::string GoQuote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

ApiError InvalidObject(const ResourceType& type, const json& object,
                       const std::vector<FieldError>& errors) {
  const json meta = object.value("metadata", json::object());
  const std::string name = meta.value("name", meta.value("generateName", ""));
  std::vector<std::string> parts;
  json causes = json::array();
  for (const FieldError& e : errors) {
    parts.push_back(absl::StrCat(e.field, ": ", e.body));
    causes.push_back(
        {{"reason", e.reason}, {"message", e.body}, {"field", e.field}});
  }
  std::string list = parts.size() == 1
                         ? parts[0]
                         : absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
  return ApiError{422,
                  "Invalid",
                  absl::StrCat(type.kind, ".", type.group, " \"", name,
                               "\" is invalid: ", list),
                  {{"name", name},
                   {"group", type.group},
                   {"kind", type.kind},
                   {"causes", causes}}};
}

}  // namespace shoal::emulator
