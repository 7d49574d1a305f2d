// Splits CEL source into tokens. String and bytes literals are unescaped
// here (CEL's escapes: \n \x41 \101 \u00e9 \U0001F600, raw r"..." and
// triple-quoted forms), so the parser only sees values.
#ifndef SHOAL_SCHEDULER_CEL_LEXER_H_
#define SHOAL_SCHEDULER_CEL_LEXER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace shoal::cel {

enum class TokenKind {
  kEnd,
  kIdent,
  kQuotedIdent,  // `field-name` after a '.'
  kInt,          // magnitude in `number`; sign handled by the parser
  kUint,
  kDouble,
  kString,
  kBytes,
  kPunct,  // operators and brackets, text in `text`
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  int column = 0;        // 1-based byte column of the first character
  std::string text;      // identifier, punctuation, or unescaped literal
  uint64_t number = 0;   // kInt/kUint magnitude
  bool too_big = false;  // kInt/kUint literal beyond uint64
  double real = 0;       // kDouble
};

// Errors read "syntax error at column N: ...".
absl::StatusOr<std::vector<Token>> Tokenize(absl::string_view source);

}  // namespace shoal::cel

#endif  // SHOAL_SCHEDULER_CEL_LEXER_H_
