#include "scheduler/cel/parser.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "scheduler/cel/functions.h"
#include "scheduler/cel/lexer.h"

namespace shoal::cel {
namespace {

using ExprPtr = std::unique_ptr<Expr>;

absl::Status SyntaxError(int column, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("syntax error at column ", column, ": ", what));
}

bool IsReserved(absl::string_view name) {
  static const auto* words = new absl::flat_hash_set<std::string>{
      "as",        "break",  "const",  "continue", "else",  "for",
      "function",  "if",     "import", "let",      "loop",  "package",
      "namespace", "return", "var",    "void",     "while", "in"};
  return words->contains(name);
}

// Namespaces of CEL extension functions (cel.bind, math.greatest,
// optional.of, ...): a call through one is refused by its full name.
bool IsRefusedNamespace(absl::string_view name) {
  return name == "cel" || name == "math" || name == "optional" ||
         name == "strings" || name == "base64" || name == "sets" ||
         name == "lists" || name == "regex" || name == "encoders" ||
         name == "google";
}

ExprPtr Node(ExprKind kind, int column) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->column = column;
  return e;
}

ExprPtr Call(Fn fn, absl::string_view name, int column,
             std::vector<ExprPtr> args) {
  ExprPtr e = Node(ExprKind::kCall, column);
  e->fn = fn;
  e->fn_name = std::string(name);
  e->args = std::move(args);
  return e;
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, const ParseOptions& options)
      : t_(std::move(tokens)), options_(options) {}

  absl::StatusOr<ExprPtr> Run() {
    absl::StatusOr<ExprPtr> e = ParseExpr();
    if (!e.ok()) return e;
    if (Cur().kind != TokenKind::kEnd) {
      return SyntaxError(Cur().column,
                         absl::StrCat("unexpected '", Describe(Cur()), "'"));
    }
    return e;
  }

 private:
  const Token& Cur() const { return t_[pos_]; }
  bool IsPunct(absl::string_view p) const {
    return Cur().kind == TokenKind::kPunct && Cur().text == p;
  }
  bool Accept(absl::string_view p) {
    if (!IsPunct(p)) return false;
    ++pos_;
    return true;
  }
  static std::string Describe(const Token& t) {
    switch (t.kind) {
      case TokenKind::kEnd:
        return "end of input";
      case TokenKind::kString:
        return "string literal";
      case TokenKind::kBytes:
        return "bytes literal";
      case TokenKind::kInt:
      case TokenKind::kUint:
      case TokenKind::kDouble:
        return "number";
      default:
        return t.text;
    }
  }
  absl::Status Expect(absl::string_view p) {
    if (Accept(p)) return absl::OkStatus();
    return SyntaxError(Cur().column, absl::StrCat("expected '", p, "'"));
  }

  // Depth of the recursion, which bounds the tree's depth too.
  struct DepthGuard {
    explicit DepthGuard(int* d) : d(d) { ++*d; }
    ~DepthGuard() { --*d; }
    int* d;
  };
  absl::Status CheckDepth() {
    if (depth_ > kMaxNesting) {
      return SyntaxError(Cur().column,
                         absl::StrCat("expression nested deeper than ",
                                      kMaxNesting, " levels"));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<ExprPtr> ParseExpr() {
    DepthGuard g(&depth_);
    if (absl::Status s = CheckDepth(); !s.ok()) return s;
    absl::StatusOr<ExprPtr> cond = ParseOr();
    if (!cond.ok() || !IsPunct("?")) return cond;
    int col = Cur().column;
    ++pos_;
    absl::StatusOr<ExprPtr> yes = ParseOr();
    if (!yes.ok()) return yes;
    if (absl::Status s = Expect(":"); !s.ok()) return s;
    absl::StatusOr<ExprPtr> no = ParseExpr();
    if (!no.ok()) return no;
    ExprPtr e = Node(ExprKind::kCond, col);
    e->args.push_back(*std::move(cond));
    e->args.push_back(*std::move(yes));
    e->args.push_back(*std::move(no));
    return e;
  }

  // Left-associative chains; each link adds one level of tree depth.
  absl::StatusOr<ExprPtr> ParseOr() {
    absl::StatusOr<ExprPtr> left = ParseAnd();
    int links = 0;
    while (left.ok() && IsPunct("||")) {
      int col = Cur().column;
      ++pos_;
      if (++links + depth_ > kMaxNesting) return CheckChain(col);
      absl::StatusOr<ExprPtr> right = ParseAnd();
      if (!right.ok()) return right;
      ExprPtr e = Node(ExprKind::kOr, col);
      e->args.push_back(*std::move(left));
      e->args.push_back(*std::move(right));
      left = std::move(e);
    }
    return left;
  }

  absl::StatusOr<ExprPtr> ParseAnd() {
    absl::StatusOr<ExprPtr> left = ParseRelation();
    int links = 0;
    while (left.ok() && IsPunct("&&")) {
      int col = Cur().column;
      ++pos_;
      if (++links + depth_ > kMaxNesting) return CheckChain(col);
      absl::StatusOr<ExprPtr> right = ParseRelation();
      if (!right.ok()) return right;
      ExprPtr e = Node(ExprKind::kAnd, col);
      e->args.push_back(*std::move(left));
      e->args.push_back(*std::move(right));
      left = std::move(e);
    }
    return left;
  }

  absl::Status CheckChain(int col) {
    return SyntaxError(col, absl::StrCat("expression nested deeper than ",
                                         kMaxNesting, " levels"));
  }

  absl::StatusOr<ExprPtr> ParseRelation() {
    absl::StatusOr<ExprPtr> left = ParseAddition();
    int links = 0;
    while (left.ok()) {
      Fn fn = Fn::kNone;
      const Token& t = Cur();
      if (t.kind == TokenKind::kIdent && t.text == "in") {
        fn = Fn::kIn;
      } else if (t.kind == TokenKind::kPunct) {
        if (t.text == "==") fn = Fn::kEq;
        if (t.text == "!=") fn = Fn::kNe;
        if (t.text == "<") fn = Fn::kLt;
        if (t.text == "<=") fn = Fn::kLe;
        if (t.text == ">") fn = Fn::kGt;
        if (t.text == ">=") fn = Fn::kGe;
      }
      if (fn == Fn::kNone) break;
      int col = t.column;
      std::string op = t.text;
      ++pos_;
      if (++links + depth_ > kMaxNesting) return CheckChain(col);
      absl::StatusOr<ExprPtr> right = ParseAddition();
      if (!right.ok()) return right;
      std::vector<ExprPtr> args;
      args.push_back(*std::move(left));
      args.push_back(*std::move(right));
      left = Call(fn, op, col, std::move(args));
    }
    return left;
  }

  absl::StatusOr<ExprPtr> ParseAddition() {
    absl::StatusOr<ExprPtr> left = ParseMultiplication();
    int links = 0;
    while (left.ok() && (IsPunct("+") || IsPunct("-"))) {
      int col = Cur().column;
      std::string op = Cur().text;
      ++pos_;
      if (++links + depth_ > kMaxNesting) return CheckChain(col);
      absl::StatusOr<ExprPtr> right = ParseMultiplication();
      if (!right.ok()) return right;
      std::vector<ExprPtr> args;
      args.push_back(*std::move(left));
      args.push_back(*std::move(right));
      left = Call(op == "+" ? Fn::kAdd : Fn::kSub, op, col, std::move(args));
    }
    return left;
  }

  absl::StatusOr<ExprPtr> ParseMultiplication() {
    absl::StatusOr<ExprPtr> left = ParseUnary();
    int links = 0;
    while (left.ok() && (IsPunct("*") || IsPunct("/") || IsPunct("%"))) {
      int col = Cur().column;
      std::string op = Cur().text;
      ++pos_;
      if (++links + depth_ > kMaxNesting) return CheckChain(col);
      absl::StatusOr<ExprPtr> right = ParseUnary();
      if (!right.ok()) return right;
      std::vector<ExprPtr> args;
      args.push_back(*std::move(left));
      args.push_back(*std::move(right));
      Fn fn = op == "*" ? Fn::kMul : (op == "/" ? Fn::kDiv : Fn::kMod);
      left = Call(fn, op, col, std::move(args));
    }
    return left;
  }

  absl::StatusOr<ExprPtr> ParseUnary() {
    if (IsPunct("!") || IsPunct("-")) {
      std::string op = Cur().text;
      std::vector<int> cols;
      while (IsPunct(op)) {
        cols.push_back(Cur().column);
        ++pos_;
      }
      if (static_cast<int>(cols.size()) + depth_ > kMaxNesting) {
        return CheckChain(cols.back());
      }
      absl::StatusOr<ExprPtr> operand;
      // CEL's grammar reads "-" directly before a number as part of the
      // literal, which is how -9223372036854775808 is expressible.
      if (op == "-" &&
          (Cur().kind == TokenKind::kInt || Cur().kind == TokenKind::kDouble)) {
        operand = ParseMember(/*negate_literal=*/true);
        cols.pop_back();
      } else {
        operand = ParseMember(false);
      }
      if (!operand.ok()) return operand;
      ExprPtr e = *std::move(operand);
      for (auto it = cols.rbegin(); it != cols.rend(); ++it) {
        std::vector<ExprPtr> args;
        args.push_back(std::move(e));
        e = Call(op == "!" ? Fn::kNot : Fn::kNeg, op, *it, std::move(args));
      }
      return e;
    }
    return ParseMember(false);
  }

  absl::StatusOr<ExprPtr> ParseMember(bool negate_literal) {
    absl::StatusOr<ExprPtr> operand = ParsePrimary(negate_literal);
    while (operand.ok()) {
      int col = Cur().column;
      if (options_.for_checker && (Accept(".?") || Accept("[?"))) {
        operand = OptionalSelect(*std::move(operand), col);
        continue;
      }
      if (IsPunct("?.") || IsPunct(".?") || IsPunct("[?")) {
        return Unsupported(
            absl::StrCat("optional ", Cur().text == "[?" ? "index" : "field",
                         " selection ", Cur().text),
            col);
      }
      if (Accept(".")) {
        const Token& f = Cur();
        if (f.kind != TokenKind::kIdent && f.kind != TokenKind::kQuotedIdent) {
          return SyntaxError(f.column, "expected a field name after '.'");
        }
        std::string field = f.text;
        bool quoted = f.kind == TokenKind::kQuotedIdent;
        ++pos_;
        if (IsPunct("(") && !quoted) {
          operand = ParseMethod(*std::move(operand), field, f.column);
          continue;
        }
        ExprPtr e = Node(ExprKind::kSelect, f.column);
        e->name = field;
        const Expr& inner = **operand;
        if (!quoted && inner.kind == ExprKind::kIdent) {
          e->qualified = absl::StrCat(inner.name, ".", field);
        } else if (!quoted && inner.kind == ExprKind::kSelect &&
                   !inner.qualified.empty()) {
          e->qualified = absl::StrCat(inner.qualified, ".", field);
        }
        e->args.push_back(*std::move(operand));
        operand = std::move(e);
        continue;
      }
      if (Accept("[")) {
        absl::StatusOr<ExprPtr> index = ParseExpr();
        if (!index.ok()) return index;
        if (absl::Status s = Expect("]"); !s.ok()) return s;
        ExprPtr e = Node(ExprKind::kIndex, col);
        e->args.push_back(*std::move(operand));
        e->args.push_back(*std::move(index));
        operand = std::move(e);
        continue;
      }
      if (IsPunct("{")) {
        const Expr& inner = **operand;
        if (inner.kind == ExprKind::kIdent || !inner.qualified.empty()) {
          std::string type =
              inner.kind == ExprKind::kIdent ? inner.name : inner.qualified;
          return Unsupported(
              absl::StrCat("message construction ", type, "{...}"), col);
        }
      }
      break;
    }
    return operand;
  }

  absl::StatusOr<std::vector<ExprPtr>> ParseArgs(absl::string_view close) {
    std::vector<ExprPtr> args;
    if (Accept(close)) return args;
    while (true) {
      absl::StatusOr<ExprPtr> a = ParseExpr();
      if (!a.ok()) return a.status();
      args.push_back(*std::move(a));
      if (Accept(close)) return args;
      if (absl::Status s = Expect(","); !s.ok()) return s;
      if (Accept(close)) return args;  // trailing comma
    }
  }

  absl::StatusOr<ExprPtr> ParseMethod(ExprPtr receiver, const std::string& name,
                                      int col) {
    ++pos_;  // '('
    std::string ns;
    if (receiver->kind == ExprKind::kIdent) ns = receiver->name;
    if (receiver->kind == ExprKind::kSelect) ns = receiver->qualified;
    std::string root = ns.substr(0, ns.find('.'));
    if (!ns.empty() && IsRefusedNamespace(root) && !options_.for_checker) {
      return Unsupported(absl::StrCat(ns, ".", name, "()"), receiver->column);
    }
    absl::StatusOr<std::vector<ExprPtr>> args = ParseArgs(")");
    if (!args.ok()) return args.status();
    int argc = static_cast<int>(args->size());
    ExprKind macro = ExprKind::kConst;
    if (name == "all") macro = ExprKind::kAll;
    if (name == "exists") macro = ExprKind::kExists;
    if (name == "exists_one") macro = ExprKind::kExistsOne;
    if (name == "map") macro = ExprKind::kMapMacro;
    if (name == "filter") macro = ExprKind::kFilter;
    if (macro != ExprKind::kConst) {
      bool ok_argc = argc == 2 || (argc == 3 && macro == ExprKind::kMapMacro);
      if (argc == 3 && !ok_argc) {
        return Unsupported(
            absl::StrCat("two-variable comprehension ", name, "()"), col);
      }
      if (!ok_argc) {
        return SyntaxError(col, absl::StrCat("wrong number of arguments to ",
                                             name, "() macro"));
      }
      if ((*args)[0]->kind != ExprKind::kIdent) {
        return SyntaxError(
            (*args)[0]->column,
            absl::StrCat("argument 1 of ", name, "() must be a simple name"));
      }
      ExprPtr e = Node(macro, col);
      e->name = (*args)[0]->name;
      e->args.push_back(std::move(receiver));
      for (int i = 1; i < argc; ++i) e->args.push_back(std::move((*args)[i]));
      return e;
    }
    absl::StatusOr<Fn> fn = Resolve(name, true, argc, col);
    if (!fn.ok()) return fn.status();
    std::vector<ExprPtr> all;
    all.push_back(std::move(receiver));
    for (ExprPtr& a : *args) all.push_back(std::move(a));
    ExprPtr call = Call(*fn, name, col, std::move(all));
    call->member = true;
    return Finish(std::move(call));
  }

  // The checker types every function the API server declares, so it
  // parses calls Shoal does not evaluate as Fn::kNone instead of refusing.
  absl::StatusOr<Fn> Resolve(absl::string_view name, bool member, int argc,
                             int col) {
    absl::StatusOr<Fn> fn = ResolveFunction(name, member, argc, col);
    if (!fn.ok() && options_.for_checker) return Fn::kNone;
    return fn;
  }

  // a.?b and a[?b], for the checker only: the calls cel-go's parser makes.
  absl::StatusOr<ExprPtr> OptionalSelect(ExprPtr operand, int col) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(operand));
    if (t_[pos_ - 1].text == ".?") {
      const Token& f = Cur();
      if (f.kind != TokenKind::kIdent && f.kind != TokenKind::kQuotedIdent) {
        return SyntaxError(f.column, "expected a field name after '.?'");
      }
      args.push_back(Node(ExprKind::kConst, f.column));
      args.back()->value = Value::String(f.text);
      ++pos_;
      return Call(Fn::kNone, "_?._", col, std::move(args));
    }
    absl::StatusOr<ExprPtr> index = ParseExpr();
    if (!index.ok()) return index;
    if (absl::Status s = Expect("]"); !s.ok()) return s;
    args.push_back(*std::move(index));
    return Call(Fn::kNone, "_[?_]", col, std::move(args));
  }

  // Precompiles a constant matches() pattern.
  ExprPtr Finish(ExprPtr call) {
    if (call->fn == Fn::kMatches && call->args.size() == 2 &&
        call->args[1]->kind == ExprKind::kConst &&
        call->args[1]->value.kind() == Kind::kString) {
      auto re = std::make_shared<re2::RE2>(call->args[1]->value.as_string(),
                                           re2::RE2::Quiet);
      if (re->ok()) call->regex = std::move(re);
    }
    return call;
  }

  absl::StatusOr<ExprPtr> ParsePrimary(bool negate_literal) {
    DepthGuard g(&depth_);
    if (absl::Status s = CheckDepth(); !s.ok()) return s;
    const Token t = Cur();
    switch (t.kind) {
      case TokenKind::kInt:
      case TokenKind::kUint:
      case TokenKind::kDouble:
        ++pos_;
        return NumberLiteral(t, negate_literal);
      case TokenKind::kString:
      case TokenKind::kBytes: {
        ++pos_;
        ExprPtr e = Node(ExprKind::kConst, t.column);
        e->value = t.kind == TokenKind::kString ? Value::String(t.text)
                                                : Value::Bytes(t.text);
        return e;
      }
      case TokenKind::kIdent:
        ++pos_;
        return Identifier(t, /*leading_dot=*/false);
      case TokenKind::kEnd:
        return SyntaxError(t.column, "unexpected end of input");
      case TokenKind::kQuotedIdent:
        return SyntaxError(t.column, "quoted identifier outside a selection");
      case TokenKind::kPunct:
        break;
    }
    if (Accept(".")) {
      const Token id = Cur();
      if (id.kind != TokenKind::kIdent) {
        return SyntaxError(id.column, "expected a name after '.'");
      }
      ++pos_;
      return Identifier(id, /*leading_dot=*/true);
    }
    if (Accept("(")) {
      absl::StatusOr<ExprPtr> e = ParseExpr();
      if (!e.ok()) return e;
      if (absl::Status s = Expect(")"); !s.ok()) return s;
      return e;
    }
    if (IsPunct("[?")) {
      return Unsupported("optional list element [?...]", t.column);
    }
    if (Accept("[")) {
      absl::StatusOr<std::vector<ExprPtr>> elems = ParseArgs("]");
      if (!elems.ok()) return elems.status();
      ExprPtr e = Node(ExprKind::kList, t.column);
      e->args = *std::move(elems);
      return e;
    }
    if (Accept("{")) return MapLiteral(t.column);
    return SyntaxError(t.column,
                       absl::StrCat("unexpected '", Describe(t), "'"));
  }

  absl::StatusOr<ExprPtr> MapLiteral(int column) {
    ExprPtr e = Node(ExprKind::kMap, column);
    if (Accept("}")) return e;
    while (true) {
      if (IsPunct("?"))
        return Unsupported("optional map entry {?k: v}", Cur().column);
      absl::StatusOr<ExprPtr> k = ParseExpr();
      if (!k.ok()) return k;
      if (absl::Status s = Expect(":"); !s.ok()) return s;
      absl::StatusOr<ExprPtr> v = ParseExpr();
      if (!v.ok()) return v;
      e->args.push_back(*std::move(k));
      e->args.push_back(*std::move(v));
      if (Accept("}")) return e;
      if (absl::Status s = Expect(","); !s.ok()) return s;
      if (Accept("}")) return e;
    }
  }

  absl::StatusOr<ExprPtr> NumberLiteral(const Token& t, bool negate) {
    ExprPtr e = Node(ExprKind::kConst, t.column);
    if (t.kind == TokenKind::kDouble) {
      e->value = Value::Double(negate ? -t.real : t.real);
      return e;
    }
    if (t.kind == TokenKind::kUint) {
      if (t.too_big) return SyntaxError(t.column, "invalid uint literal");
      e->value = Value::Uint(t.number);
      return e;
    }
    constexpr uint64_t kMaxPositive = 9223372036854775807ull;
    if (t.too_big || t.number > kMaxPositive + (negate ? 1 : 0)) {
      return SyntaxError(t.column, "invalid int literal");
    }
    e->value = Value::Int(negate ? static_cast<int64_t>(0 - t.number)
                                 : static_cast<int64_t>(t.number));
    return e;
  }

  absl::StatusOr<ExprPtr> Identifier(const Token& t, bool leading_dot) {
    const std::string& name = t.text;
    if (IsPunct("(")) {
      ++pos_;
      if (name == "has") return HasMacro(t.column);
      if (!options_.for_checker &&
          (name == "timestamp" || name == "duration")) {
        return Unsupported(absl::StrCat(name, "()"), t.column);
      }
      absl::StatusOr<std::vector<ExprPtr>> args = ParseArgs(")");
      if (!args.ok()) return args.status();
      absl::StatusOr<Fn> fn =
          Resolve(name, false, static_cast<int>(args->size()), t.column);
      if (!fn.ok()) return fn.status();
      return Finish(Call(*fn, name, t.column, *std::move(args)));
    }
    if (!leading_dot) {
      ExprPtr e = Node(ExprKind::kConst, t.column);
      if (name == "true" || name == "false") {
        e->value = Value::Bool(name == "true");
        return e;
      }
      if (name == "null") return e;
    }
    if (IsReserved(name)) {
      return SyntaxError(t.column,
                         absl::StrCat("reserved identifier '", name, "'"));
    }
    if (IsTypeName(name)) {
      ExprPtr e = Node(ExprKind::kConst, t.column);
      e->value = Value::Type(name);
      return e;
    }
    if (name == "google" || (name == "cel" && !options_.for_checker)) {
      // google.protobuf.* and cel.expr.* name protobuf types and enums.
      return Unsupported(absl::StrCat("protobuf types (", name, ".*)"),
                         t.column);
    }
    ExprPtr e = Node(ExprKind::kIdent, t.column);
    e->name = name;
    return e;
  }

  absl::StatusOr<ExprPtr> HasMacro(int column) {
    absl::StatusOr<std::vector<ExprPtr>> args = ParseArgs(")");
    if (!args.ok()) return args.status();
    if (args->size() != 1 || (*args)[0]->kind != ExprKind::kSelect) {
      return SyntaxError(column, "invalid argument to has() macro");
    }
    ExprPtr e = std::move((*args)[0]);
    e->test_only = true;
    return e;
  }

  std::vector<Token> t_;
  ParseOptions options_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Expr>> Parse(absl::string_view source,
                                            const ParseOptions& options) {
  if (source.size() > kMaxSourceLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("expression is ", source.size(),
                     " bytes long, over the limit of ", kMaxSourceLength));
  }
  absl::StatusOr<std::vector<Token>> tokens = Tokenize(source);
  if (!tokens.ok()) return tokens.status();
  return Parser(*std::move(tokens), options).Run();
}

}  // namespace shoal::cel
