#include "scheduler/cel/lexer.h"

#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace shoal::cel {
namespace {

absl::Status SyntaxError(size_t pos, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("syntax error at column ", pos + 1, ": ", what));
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Lexer {
 public:
  explicit Lexer(absl::string_view src) : src_(src) {}

  absl::StatusOr<std::vector<Token>> Run() {
    std::vector<Token> out;
    while (true) {
      absl::Status s = SkipSpace();
      if (!s.ok()) return s;
      if (pos_ >= src_.size()) break;
      absl::StatusOr<Token> t = Next();
      if (!t.ok()) return t.status();
      out.push_back(*std::move(t));
    }
    Token end;
    end.column = static_cast<int>(src_.size()) + 1;
    out.push_back(end);
    return out;
  }

 private:
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
  }

  absl::Status SkipSpace() {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++pos_;
      } else if (c == '/' && Peek(1) == '/') {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Token> Next() {
    Token t;
    t.column = static_cast<int>(pos_) + 1;
    char c = Peek();
    // String prefixes: r, b and both in either order and case.
    if (absl::ascii_isalpha(c) || c == '_') {
      size_t p = pos_;
      bool raw = false, bytes = false;
      for (int i = 0; i < 2 && p < src_.size(); ++i) {
        char l = absl::ascii_tolower(src_[p]);
        if (l == 'r' && !raw) {
          raw = true;
          ++p;
        } else if (l == 'b' && !bytes) {
          bytes = true;
          ++p;
        } else {
          break;
        }
      }
      if ((raw || bytes) && p < src_.size() &&
          (src_[p] == '"' || src_[p] == '\'')) {
        pos_ = p;
        return Quoted(t, raw, bytes);
      }
      size_t start = pos_;
      while (pos_ < src_.size() &&
             (absl::ascii_isalnum(src_[pos_]) || src_[pos_] == '_')) {
        ++pos_;
      }
      t.kind = TokenKind::kIdent;
      t.text = std::string(src_.substr(start, pos_ - start));
      return t;
    }
    if (c == '"' || c == '\'') return Quoted(t, false, false);
    if (absl::ascii_isdigit(c) || (c == '.' && absl::ascii_isdigit(Peek(1)))) {
      return Number(t);
    }
    if (c == '`') {
      size_t end = src_.find('`', pos_ + 1);
      if (end == absl::string_view::npos) {
        return SyntaxError(pos_, "unterminated quoted identifier");
      }
      t.kind = TokenKind::kQuotedIdent;
      t.text = std::string(src_.substr(pos_ + 1, end - pos_ - 1));
      for (char q : t.text) {
        if (!absl::ascii_isalnum(q) && q != '_' && q != '.' && q != '-' &&
            q != '/' && q != ' ') {
          return SyntaxError(pos_, "invalid quoted identifier");
        }
      }
      pos_ = end + 1;
      return t;
    }
    static const char* kPuncts[] = {"&&", "||", "==", "!=", "<=", ">=", "?.",
                                    ".?", "[?", "<",  ">",  "+",  "-",  "*",
                                    "/",  "%",  "!",  "?",  ":",  ".",  ",",
                                    "(",  ")",  "[",  "]",  "{",  "}",  "="};
    for (const char* p : kPuncts) {
      absl::string_view ps(p);
      if (src_.substr(pos_, ps.size()) == ps) {
        // "?." followed by a digit is a conditional and a number (a?.5:b).
        if (ps == "?." && absl::ascii_isdigit(Peek(2))) continue;
        t.kind = TokenKind::kPunct;
        t.text = std::string(ps);
        pos_ += ps.size();
        return t;
      }
    }
    return SyntaxError(
        pos_, absl::StrCat("unexpected character '",
                           absl::CHexEscape(src_.substr(pos_, 1)), "'"));
  }

  absl::StatusOr<Token> Number(Token t) {
    size_t start = pos_;
    if (Peek() == '0' && (Peek(1) == 'x' || Peek(1) == 'X')) {
      pos_ += 2;
      size_t digits = pos_;
      uint64_t v = 0;
      while (HexValue(Peek()) >= 0) {
        if (v >> 60) t.too_big = true;
        v = v * 16 + HexValue(Peek());
        ++pos_;
      }
      if (pos_ == digits) return SyntaxError(start, "invalid hex literal");
      t.number = v;
      t.kind = TokenKind::kInt;
      if (Peek() == 'u' || Peek() == 'U') {
        t.kind = TokenKind::kUint;
        ++pos_;
      }
      return CheckEnd(t, start);
    }
    while (absl::ascii_isdigit(Peek())) ++pos_;
    bool is_double = false;
    if (Peek() == '.' && absl::ascii_isdigit(Peek(1))) {
      is_double = true;
      ++pos_;
      while (absl::ascii_isdigit(Peek())) ++pos_;
    }
    if (Peek() == 'e' || Peek() == 'E') {
      size_t save = pos_;
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      if (absl::ascii_isdigit(Peek())) {
        is_double = true;
        while (absl::ascii_isdigit(Peek())) ++pos_;
      } else {
        pos_ = save;
      }
    }
    std::string text(src_.substr(start, pos_ - start));
    if (is_double) {
      t.kind = TokenKind::kDouble;
      t.real = std::strtod(text.c_str(), nullptr);
      return CheckEnd(t, start);
    }
    uint64_t v = 0;
    for (char d : text) {
      uint64_t next = v * 10 + (d - '0');
      if (v > UINT64_MAX / 10 || next < v * 10) t.too_big = true;
      v = next;
    }
    t.number = v;
    t.kind = TokenKind::kInt;
    if (Peek() == 'u' || Peek() == 'U') {
      t.kind = TokenKind::kUint;
      ++pos_;
    }
    return CheckEnd(t, start);
  }

  // A number glued to letters (12abc) is not two tokens.
  absl::StatusOr<Token> CheckEnd(Token t, size_t start) {
    if (absl::ascii_isalpha(Peek()) || Peek() == '_') {
      return SyntaxError(start, "invalid number literal");
    }
    return t;
  }

  absl::StatusOr<Token> Quoted(Token t, bool raw, bool bytes) {
    char q = Peek();
    bool triple = Peek(1) == q && Peek(2) == q;
    size_t open = pos_;
    pos_ += triple ? 3 : 1;
    std::string out;
    while (true) {
      if (pos_ >= src_.size()) return SyntaxError(open, "unterminated string");
      char c = src_[pos_];
      if (c == q && (!triple || (Peek(1) == q && Peek(2) == q))) {
        pos_ += triple ? 3 : 1;
        break;
      }
      if (!triple && (c == '\n' || c == '\r')) {
        return SyntaxError(open, "unterminated string");
      }
      if (c != '\\' || raw) {
        out.push_back(c);
        ++pos_;
        continue;
      }
      absl::Status s = Escape(bytes, &out);
      if (!s.ok()) return s;
    }
    t.kind = bytes ? TokenKind::kBytes : TokenKind::kString;
    t.text = std::move(out);
    return t;
  }

  absl::Status Escape(bool bytes, std::string* out) {
    size_t at = pos_;
    char e = Peek(1);
    pos_ += 2;
    switch (e) {
      case 'a':
        out->push_back('\a');
        return absl::OkStatus();
      case 'b':
        out->push_back('\b');
        return absl::OkStatus();
      case 'f':
        out->push_back('\f');
        return absl::OkStatus();
      case 'n':
        out->push_back('\n');
        return absl::OkStatus();
      case 'r':
        out->push_back('\r');
        return absl::OkStatus();
      case 't':
        out->push_back('\t');
        return absl::OkStatus();
      case 'v':
        out->push_back('\v');
        return absl::OkStatus();
      case '\\':
      case '\'':
      case '"':
      case '`':
      case '?':
        out->push_back(e);
        return absl::OkStatus();
      default:
        break;
    }
    int digits = 0, base = 16;
    if (e == 'x' || e == 'X') {
      digits = 2;
    } else if (e == 'u') {
      digits = 4;
    } else if (e == 'U') {
      digits = 8;
    } else if (e >= '0' && e <= '3') {
      digits = 2;  // first octal digit already read
      base = 8;
    } else {
      return SyntaxError(at, "invalid escape sequence");
    }
    if (bytes && (e == 'u' || e == 'U')) {
      return SyntaxError(at, "unicode escape in bytes literal");
    }
    uint32_t v = base == 8 ? static_cast<uint32_t>(e - '0') : 0;
    for (int i = 0; i < digits; ++i) {
      int d = HexValue(Peek());
      if (d < 0 || d >= base) return SyntaxError(at, "invalid escape sequence");
      v = v * base + d;
      ++pos_;
    }
    if (bytes) {
      out->push_back(static_cast<char>(v));
      return absl::OkStatus();
    }
    if ((v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF) {
      return SyntaxError(at, "invalid unicode code point in escape");
    }
    AppendUtf8(v, out);
    return absl::OkStatus();
  }

  absl::string_view src_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<std::vector<Token>> Tokenize(absl::string_view source) {
  return Lexer(source).Run();
}

}  // namespace shoal::cel
