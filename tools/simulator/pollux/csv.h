// A strict reader for the plain CSV files of Pollux's artifact (no quoting):
// a header line, then rows of the same number of comma-separated fields.
// Every error names the file, the 1-based line and the field.
#ifndef SHOAL_TOOLS_SIMULATOR_POLLUX_CSV_H_
#define SHOAL_TOOLS_SIMULATOR_POLLUX_CSV_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace shoal::sim::pollux {

// One data row: its fields in the order of the expected header.
struct CsvRow {
  int line = 0;  // 1-based line number in the file
  std::vector<std::string> fields;
};

struct CsvTable {
  std::string path;
  std::vector<std::string> header;
  std::vector<CsvRow> rows;

  // "<path>:<line>: field '<name>': <what>".
  absl::Status Error(const CsvRow& row, int field,
                     absl::string_view what) const;
  // Typed access to one field of a row; errors as Error().
  absl::StatusOr<double> Double(const CsvRow& row, int field) const;
  absl::StatusOr<int64_t> Int(const CsvRow& row, int field) const;
};

// Parses `text` (the contents of `path`, which is used in messages only).
// The header must be exactly `expected_header` (surrounding blanks and a
// trailing '\r' are ignored); blank lines are skipped.
absl::StatusOr<CsvTable> ParseCsv(
    absl::string_view text, absl::string_view path,
    const std::vector<std::string>& expected_header);

// Reads the file at `path`, then ParseCsv.
absl::StatusOr<CsvTable> ReadCsv(
    const std::string& path, const std::vector<std::string>& expected_header);

}  // namespace shoal::sim::pollux

#endif  // SHOAL_TOOLS_SIMULATOR_POLLUX_CSV_H_
