#include "tools/simulator/pollux/csv.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace shoal::sim::pollux {

absl::Status CsvTable::Error(const CsvRow& row, int field,
                             absl::string_view what) const {
  std::string name = field >= 0 && field < static_cast<int>(header.size())
                         ? header[field]
                         : absl::StrCat("#", field + 1);
  return absl::InvalidArgumentError(
      absl::StrCat(path, ":", row.line, ": field '", name, "': ", what));
}

absl::StatusOr<double> CsvTable::Double(const CsvRow& row, int field) const {
  const std::string& s = row.fields[field];
  double v = 0;
  if (!absl::SimpleAtod(s, &v) || !std::isfinite(v)) {
    return Error(row, field, absl::StrCat("not a finite number: \"", s, "\""));
  }
  return v;
}

absl::StatusOr<int64_t> CsvTable::Int(const CsvRow& row, int field) const {
  const std::string& s = row.fields[field];
  int64_t v = 0;
  if (!absl::SimpleAtoi(s, &v)) {
    return Error(row, field, absl::StrCat("not an integer: \"", s, "\""));
  }
  return v;
}

absl::StatusOr<CsvTable> ParseCsv(
    absl::string_view text, absl::string_view path,
    const std::vector<std::string>& expected_header) {
  CsvTable table;
  table.path = std::string(path);
  int line_no = 0;
  bool have_header = false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    std::vector<std::string> fields;
    for (absl::string_view f : absl::StrSplit(line, ',')) {
      fields.emplace_back(absl::StripAsciiWhitespace(f));
    }
    if (!have_header) {
      if (fields != expected_header) {
        return absl::InvalidArgumentError(absl::StrCat(
            path, ":", line_no, ": header is \"", line, "\", want \"",
            absl::StrJoin(expected_header, ","), "\""));
      }
      table.header = std::move(fields);
      have_header = true;
      continue;
    }
    if (fields.size() != table.header.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ":", line_no, ": ", fields.size(), " fields, want ",
          table.header.size(), " (", absl::StrJoin(table.header, ","), ")"));
    }
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].empty()) {
        return table.Error(CsvRow{line_no, fields}, static_cast<int>(i),
                           "empty");
      }
    }
    table.rows.push_back(CsvRow{line_no, std::move(fields)});
  }
  if (!have_header) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": empty file, want the header \"",
                     absl::StrJoin(expected_header, ","), "\""));
  }
  return table;
}

absl::StatusOr<CsvTable> ReadCsv(
    const std::string& path, const std::vector<std::string>& expected_header) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseCsv(ss.str(), path, expected_header);
}

}  // namespace shoal::sim::pollux
