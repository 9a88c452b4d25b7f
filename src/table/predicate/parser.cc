// SPDX-License-Identifier: Apache-2.0
//
// Parser of the predicate language, over the tokens of lexer.cc. Parsing and binding
// happen in one pass: every node is type-checked against the schema as soon as it is
// built, so an error can name the position of the offending operator.
//
// Operator precedence follows DataFusion's SQL parser (higher binds tighter):
//   OR 5 < AND 10 < NOT (prefix) 15 < IS 17 < comparisons, [NOT] IN / BETWEEN / LIKE 20
//   < + - 30 < * / % 40 <= unary minus, whose operand is parsed at 40 (`-a * b` is
//   `(-a) * b`).
// Comparisons and arithmetic are left-associative, so `x > 0 = true` is
// `(x > 0) = true` and `a - b - c` is `(a - b) - c`.
//
// Lance binds a filter in two steps (see CompareMode in bound_expr.h). The
// parser builds every node with DataFusion's typing, remembers how each comparison,
// BETWEEN, IN, AND and OR was built, and then replays Lance's resolve step over the
// comparisons it reaches from the root through AND / OR: there a literal is taken in the
// type of the column it is compared with, and a tree of literals (`f = 7 / 2`) is
// computed in that type. `-2` is a literal, `-(2)` is not (Lance keeps the latter as an
// expression), which is why unary minus on a number is folded by the parser itself.
//
// Beyond the grammar in predicate.h the parser accepts what Lance users commonly write:
// `x [NOT] BETWEEN a AND b`, `s [NOT] LIKE / ILIKE 'pattern'`, `b IS [NOT] TRUE / FALSE`,
// "double-quoted" strings (Lance's dialect reads them as string literals), `-- line` and
// `/* block */` comments. Unquoted identifiers match a column exactly or, failing that,
// case-insensitively (as Lance does); `quoted` ones only exactly.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "lance/core/ascii.h"
#include "lance/macros.h"
#include "table/predicate/bound_expr.h"
#include "table/predicate/lexer.h"
#include "table/predicate/predicate.h"

namespace lance::table {

namespace pi = predicate_internal;

namespace {

using pi::ArithOp;
using pi::CmpOp;
using pi::CompareMode;
using pi::ExprPtr;
using pi::IsReserved;
using pi::Lex;
using pi::Literal;
using pi::Tok;
using pi::Token;

constexpr int kPrecOr = 5;
constexpr int kPrecAnd = 10;
constexpr int kPrecNot = 15;
constexpr int kPrecIs = 17;
constexpr int kPrecCompare = 20;
constexpr int kPrecSum = 30;
constexpr int kPrecProduct = 40;

ArithOp ArithOpOf(char c) {
  switch (c) {
    case '+':
      return ArithOp::kAdd;
    case '-':
      return ArithOp::kSub;
    case '*':
      return ArithOp::kMul;
    case '/':
      return ArithOp::kDiv;
    default:
      return ArithOp::kMod;
  }
}

class Parser {
 public:
  Parser(std::string_view text, const Schema& schema, std::vector<Token> tokens,
         std::string_view what = "filter")
      : text_(text), schema_(schema), tokens_(std::move(tokens)), what_(what) {}

  // Any expression, not only boolean ones (ValueExpression).
  Result<ExprPtr> ParseValue() {
    LANCE_ASSIGN_OR_RAISE(ExprPtr root, ParseExpr(0));
    if (Peek().kind != Tok::kEnd)
      return SyntaxError("an operator or end of input", Peek());
    LANCE_ASSIGN_OR_RAISE(root, ResolveRootArith(root));
    return Resolve(root);
  }

  // Lance's resolve step on a value: `column OP literal` (or `literal OP column`) at the
  // root takes the literal in the column's type (`i16 * 2` is int16, `u32 + 1` uint32,
  // `f32 * 0.5` float32), where DataFusion alone would widen to the literal's type. An
  // integer column keeps DataFusion's typing for a non-integer literal.
  Result<ExprPtr> ResolveRootArith(const ExprPtr& root) const {
    auto it = arith_.find(root.get());
    if (it == arith_.end()) return root;
    const BuiltArith& a = it->second;
    const bool column_left = a.left->column_path() && a.right->is_written_literal();
    const bool column_right = a.right->column_path() && a.left->is_written_literal();
    if (!column_left && !column_right) return root;
    const ExprPtr& column = column_left ? a.left : a.right;
    const ExprPtr& literal = column_left ? a.right : a.left;
    const DataTypePtr& type = column->type();
    const Literal* lit = literal->literal();
    if (!type || !lit || !(type->is_integer() || type->is_floating())) return root;
    if (type->is_integer() && lit->kind != Literal::Kind::kInt) return root;
    if (lit->kind != Literal::Kind::kInt && lit->kind != Literal::Kind::kFloat)
      return root;
    LANCE_ASSIGN_OR_RAISE(ExprPtr typed, Bind(pi::MakeCast(literal, type), a.pos));
    return Bind(column_left ? pi::MakeArith(column, a.op, typed)
                            : pi::MakeArith(typed, a.op, column),
                a.pos);
  }

  Result<ExprPtr> ParseFilter() {
    LANCE_ASSIGN_OR_RAISE(ExprPtr root, ParseExpr(0));
    if (Peek().kind != Tok::kEnd)
      return SyntaxError("an operator or end of input", Peek());
    LANCE_ASSIGN_OR_RAISE(root, Resolve(root));
    if (!root->is_boolean()) {
      return BindError(
          Status::Invalid("the filter must be a boolean expression, but " +
                          root->ToString() + " is " + root->type()->ToString()),
          0);
    }
    return root;
  }

 private:
  const Token& Peek(size_t k = 0) const {
    return tokens_[std::min(index_ + k, tokens_.size() - 1)];
  }
  const Token& Advance() {
    const Token& t = tokens_[index_];
    if (index_ + 1 < tokens_.size()) ++index_;
    return t;
  }
  bool IsKeyword(const Token& t, std::string_view word) const {
    return t.kind == Tok::kIdent && EqualsIgnoreAsciiCase(t.text, word);
  }
  bool AcceptKeyword(std::string_view word) {
    if (!IsKeyword(Peek(), word)) return false;
    Advance();
    return true;
  }

  Status SyntaxError(const std::string& expected, const Token& found) const {
    std::string msg = "cannot parse " + std::string(what_) + " '" + std::string(text_) +
                      "': expected " + expected + " at position " +
                      std::to_string(found.pos);
    if (found.kind != Tok::kEnd) {
      msg += " but found '" +
             std::string(text_.substr(found.pos, found.end - found.pos)) + "'";
    }
    return Status::Invalid(msg);
  }

  // Keeps the code of `st` (Invalid, or NotImplemented for what this build cannot do).
  Status BindError(const Status& st, size_t pos) const {
    return Status(st.code(), "invalid " + std::string(what_) + " '" + std::string(text_) +
                                 "': " + st.message() + " at position " +
                                 std::to_string(pos));
  }

  template <typename T>
  Result<T> Bind(Result<T> r, size_t pos) const {
    if (!r.ok()) return BindError(r.status(), pos);
    return r;
  }

  // How a node Lance's resolve step can revisit was built (see the file comment).
  struct Built {
    enum class Kind : uint8_t { kCompare, kLogic, kBetween, kIn };
    Kind kind = Kind::kCompare;
    ExprPtr a;  // compare: left; logic: left; between / in: the operand
    ExprPtr b;  // compare: right; logic: right; between: low
    ExprPtr c;  // between: high
    std::vector<ExprPtr> items;
    CmpOp op = CmpOp::kEq;
    bool flag = false;  // logic: is AND; between / in: negated
    size_t pos = 0;
    ExprPtr node;  // the node built

    // Every factory starts from a default Built (members not named keep their
    // defaults), so that -Wmissing-field-initializers has nothing to say.
    static Built Make(Kind kind, ExprPtr a, size_t pos) {
      Built built;
      built.kind = kind;
      built.a = std::move(a);
      built.pos = pos;
      return built;
    }
    static Built Compare(ExprPtr left, CmpOp op, ExprPtr right, size_t pos) {
      Built built = Make(Kind::kCompare, std::move(left), pos);
      built.b = std::move(right);
      built.op = op;
      return built;
    }
    static Built Logic(ExprPtr left, ExprPtr right, bool is_and, size_t pos) {
      Built built = Make(Kind::kLogic, std::move(left), pos);
      built.b = std::move(right);
      built.flag = is_and;
      return built;
    }
    static Built Between(ExprPtr operand, ExprPtr low, ExprPtr high, bool negated,
                         size_t pos) {
      Built built = Make(Kind::kBetween, std::move(operand), pos);
      built.b = std::move(low);
      built.c = std::move(high);
      built.flag = negated;
      return built;
    }
    static Built In(ExprPtr operand, std::vector<ExprPtr> items, bool negated,
                    size_t pos) {
      Built built = Make(Kind::kIn, std::move(operand), pos);
      built.items = std::move(items);
      built.flag = negated;
      return built;
    }
  };

  void Remember(const ExprPtr& node, Built built) {
    // Holding the node keeps its address from being reused by another one (a folded
    // comparison can be dropped from the tree, `(1 = 1) IS NULL`).
    built.node = node;
    built_.insert_or_assign(node.get(), std::move(built));
  }

  // A value compared with a column, as Lance's resolve step leaves it: a written literal
  // as is (compared in the column's type), a tree of literals computed in the column's
  // type; nullopt when Lance leaves it to DataFusion.
  Result<std::optional<ExprPtr>> ColumnSide(const ExprPtr& value, const pi::Expr& column,
                                            size_t pos) const {
    if (value->is_written_literal()) return std::optional<ExprPtr>(value);
    return Bind(pi::CoerceConstantTree(value, *column.type()), pos);
  }

  // Lance's resolve_expr over the nodes reachable from `node` through AND / OR.
  Result<ExprPtr> Resolve(const ExprPtr& node) const {
    auto it = built_.find(node.get());
    if (it == built_.end()) return node;
    const Built& b = it->second;
    switch (b.kind) {
      case Built::Kind::kLogic: {
        LANCE_ASSIGN_OR_RAISE(ExprPtr left, Resolve(b.a));
        LANCE_ASSIGN_OR_RAISE(ExprPtr right, Resolve(b.b));
        if (left == b.a && right == b.b) return node;
        return Bind(b.flag ? pi::MakeAnd(std::move(left), std::move(right))
                           : pi::MakeOr(std::move(left), std::move(right)),
                    b.pos);
      }
      case Built::Kind::kCompare: {
        if (b.a->column_path()) {
          LANCE_ASSIGN_OR_RAISE(auto right, ColumnSide(b.b, *b.a, b.pos));
          if (!right) return node;
          return Bind(pi::MakeCompare(b.a, b.op, *right, CompareMode::kColumnLiteral),
                      b.pos);
        }
        // A literal on the left is resolved too, a tree there is not.
        if (b.b->column_path() && b.a->is_written_literal()) {
          return Bind(pi::MakeCompare(b.a, b.op, b.b, CompareMode::kColumnLiteral),
                      b.pos);
        }
        return node;
      }
      case Built::Kind::kBetween: {
        if (!b.a->column_path()) return node;
        LANCE_ASSIGN_OR_RAISE(auto low, ColumnSide(b.b, *b.a, b.pos));
        LANCE_ASSIGN_OR_RAISE(auto high, ColumnSide(b.c, *b.a, b.pos));
        return BuildBetween(b.a, low ? *low : b.b, high ? *high : b.c, b.flag, b.pos,
                            CompareMode::kColumnLiteral);
      }
      case Built::Kind::kIn: {
        // Lance resolves IN on a top-level column only.
        const auto* path = b.a->column_path();
        if (!path || path->size() != 1) return node;
        std::vector<ExprPtr> items;
        for (const auto& item : b.items) {
          LANCE_ASSIGN_OR_RAISE(auto resolved, ColumnSide(item, *b.a, b.pos));
          items.push_back(resolved ? *resolved : item);
        }
        return Bind(
            pi::MakeIn(b.a, std::move(items), b.flag, CompareMode::kColumnLiteral),
            b.pos);
      }
    }
    return node;
  }

  // Precedence of the infix operator at the current token, 0 if there is none.
  int InfixPrecedence() const {
    const Token& t = Peek();
    switch (t.kind) {
      case Tok::kCompare:
        return kPrecCompare;
      case Tok::kMinus:
      case Tok::kPlus:
      case Tok::kConcat:
        return kPrecSum;
      case Tok::kArith:
        return kPrecProduct;
      case Tok::kIdent:
        if (IsKeyword(t, "or")) return kPrecOr;
        if (IsKeyword(t, "and")) return kPrecAnd;
        if (IsKeyword(t, "is")) return kPrecIs;
        if (IsKeyword(t, "in") || IsKeyword(t, "between") || IsKeyword(t, "like") ||
            IsKeyword(t, "ilike")) {
          return kPrecCompare;
        }
        if (IsKeyword(t, "not")) {
          const Token& next = Peek(1);
          if (IsKeyword(next, "in") || IsKeyword(next, "between") ||
              IsKeyword(next, "like") || IsKeyword(next, "ilike")) {
            return kPrecCompare;
          }
        }
        return 0;
      default:
        return 0;
    }
  }

  // Expression trees are walked recursively (binding, resolving, evaluating, freeing), so
  // their depth is bounded: kMaxNesting levels of nested sub-expressions (parentheses,
  // prefix operators, arguments; sqlparser, which Lance uses, stops at 50) and
  // kMaxOperators binary operators in all (a chain `a AND b AND ...` is as deep as it is
  // long). A hostile filter is an error, not a stack overflow.
  static constexpr int kMaxNesting = 256;
  static constexpr int kMaxOperators = 4096;

  Result<ExprPtr> ParseExpr(int min_prec) {
    if (nesting_ >= kMaxNesting) {
      return Status::Invalid("cannot parse " + std::string(what_) +
                             ": expressions nested deeper than " +
                             std::to_string(kMaxNesting) + " levels at position " +
                             std::to_string(Peek().pos));
    }
    ++nesting_;
    Result<ExprPtr> out = ParseExprNested(min_prec);
    --nesting_;
    return out;
  }

  Result<ExprPtr> ParseExprNested(int min_prec) {
    LANCE_ASSIGN_OR_RAISE(ExprPtr left, ParsePrefix());
    while (true) {
      const int prec = InfixPrecedence();
      if (prec == 0 || prec <= min_prec) break;
      if (++operators_ > kMaxOperators) {
        return Status::Invalid("cannot parse " + std::string(what_) + ": more than " +
                               std::to_string(kMaxOperators) + " operators");
      }
      LANCE_ASSIGN_OR_RAISE(left, ParseInfix(std::move(left), prec));
    }
    return left;
  }

  Result<ExprPtr> ParseInfix(ExprPtr left, int prec) {
    const Token op = Advance();
    switch (op.kind) {
      case Tok::kCompare: {
        LANCE_ASSIGN_OR_RAISE(ExprPtr right, ParseExpr(kPrecCompare));
        LANCE_ASSIGN_OR_RAISE(ExprPtr out,
                              Bind(pi::MakeCompare(left, op.op, right), op.pos));
        Remember(out, Built::Compare(std::move(left), op.op, std::move(right), op.pos));
        return out;
      }
      case Tok::kConcat: {
        LANCE_ASSIGN_OR_RAISE(ExprPtr right, ParseExpr(prec));
        return Bind(pi::MakeStringConcat(std::move(left), std::move(right)), op.pos);
      }
      case Tok::kMinus:
      case Tok::kPlus:
      case Tok::kArith: {
        // The right operand stops at operators of the same level: left-associative.
        LANCE_ASSIGN_OR_RAISE(ExprPtr right, ParseExpr(prec));
        const ArithOp arith = ArithOpOf(text_[op.pos]);
        LANCE_ASSIGN_OR_RAISE(ExprPtr out,
                              Bind(pi::MakeArith(left, arith, right), op.pos));
        arith_.insert_or_assign(
            out.get(), BuiltArith{std::move(left), arith, std::move(right), op.pos, out});
        return out;
      }
      default:
        break;
    }
    if (IsKeyword(op, "or") || IsKeyword(op, "and")) {
      const bool is_and = IsKeyword(op, "and");
      LANCE_ASSIGN_OR_RAISE(ExprPtr right, ParseExpr(is_and ? kPrecAnd : kPrecOr));
      LANCE_ASSIGN_OR_RAISE(
          ExprPtr out,
          Bind(is_and ? pi::MakeAnd(left, right) : pi::MakeOr(left, right), op.pos));
      Remember(out, Built::Logic(std::move(left), std::move(right), is_and, op.pos));
      return out;
    }
    if (IsKeyword(op, "is")) {
      const bool negated = AcceptKeyword("not");
      if (AcceptKeyword("null"))
        return Bind(pi::MakeIsNull(std::move(left), negated), op.pos);
      if (AcceptKeyword("true")) {
        return Bind(pi::MakeIsBool(std::move(left), true, negated), op.pos);
      }
      if (AcceptKeyword("false")) {
        return Bind(pi::MakeIsBool(std::move(left), false, negated), op.pos);
      }
      return SyntaxError(negated ? "NULL, TRUE or FALSE after IS NOT"
                                 : "NOT, NULL, TRUE or FALSE after IS",
                         Peek());
    }
    // [NOT] IN / BETWEEN / LIKE / ILIKE
    const bool negated = IsKeyword(op, "not");
    const Token word = negated ? Advance() : op;
    if (IsKeyword(word, "in")) return ParseIn(std::move(left), negated, word);
    if (IsKeyword(word, "between")) return ParseBetween(std::move(left), negated, word);
    const bool ilike = IsKeyword(word, "ilike");
    LANCE_ASSIGN_OR_RAISE(ExprPtr pattern, ParseExpr(kPrecCompare));
    return Bind(pi::MakeLike(std::move(left), std::move(pattern), negated, ilike),
                word.pos);
  }

  Result<ExprPtr> ParseIn(ExprPtr left, bool negated, const Token& word) {
    if (Peek().kind != Tok::kLParen) return SyntaxError("'(' after IN", Peek());
    Advance();
    std::vector<ExprPtr> items;
    while (true) {
      const Token& start = Peek();
      LANCE_ASSIGN_OR_RAISE(ExprPtr item, ParseExpr(0));
      if (!item->is_constant()) {
        return BindError(
            Status::Invalid("IN lists hold literals only, not " + item->ToString()),
            start.pos);
      }
      items.push_back(std::move(item));
      if (Peek().kind == Tok::kComma) {
        Advance();
        continue;
      }
      if (Peek().kind == Tok::kRParen) {
        Advance();
        break;
      }
      return SyntaxError("',' or ')' in the IN list", Peek());
    }
    LANCE_ASSIGN_OR_RAISE(ExprPtr out, Bind(pi::MakeIn(left, items, negated), word.pos));
    Remember(out, Built::In(std::move(left), std::move(items), negated, word.pos));
    return out;
  }

  // x BETWEEN a AND b is (x >= a) AND (x <= b), as in SQL.
  Result<ExprPtr> BuildBetween(const ExprPtr& operand, ExprPtr low, ExprPtr high,
                               bool negated, size_t pos, CompareMode mode) const {
    LANCE_ASSIGN_OR_RAISE(
        ExprPtr ge,
        Bind(pi::MakeCompare(operand, CmpOp::kGe, std::move(low), mode), pos));
    LANCE_ASSIGN_OR_RAISE(
        ExprPtr le,
        Bind(pi::MakeCompare(operand, CmpOp::kLe, std::move(high), mode), pos));
    LANCE_ASSIGN_OR_RAISE(ExprPtr both,
                          Bind(pi::MakeAnd(std::move(ge), std::move(le)), pos));
    if (!negated) return both;
    return Bind(pi::MakeNot(std::move(both)), pos);
  }

  Result<ExprPtr> ParseBetween(ExprPtr left, bool negated, const Token& word) {
    LANCE_ASSIGN_OR_RAISE(ExprPtr low, ParseExpr(kPrecCompare));
    if (!AcceptKeyword("and")) return SyntaxError("AND in BETWEEN", Peek());
    LANCE_ASSIGN_OR_RAISE(ExprPtr high, ParseExpr(kPrecCompare));
    LANCE_ASSIGN_OR_RAISE(ExprPtr out, BuildBetween(left, low, high, negated, word.pos,
                                                    CompareMode::kCoerced));
    Remember(out, Built::Between(std::move(left), std::move(low), std::move(high),
                                 negated, word.pos));
    return out;
  }

  Result<ExprPtr> ParsePrefix() {
    const Token& t = Peek();
    switch (t.kind) {
      case Tok::kLParen: {
        Advance();
        LANCE_ASSIGN_OR_RAISE(ExprPtr inner, ParseExpr(0));
        if (Peek().kind != Tok::kRParen) return SyntaxError("')'", Peek());
        Advance();
        return inner;
      }
      case Tok::kMinus:
      case Tok::kPlus: {
        const Token sign = Advance();
        if (Peek().kind == Tok::kNumber) {
          // A signed number is a literal, as Lance reads it.
          const Token num = Advance();
          LANCE_ASSIGN_OR_RAISE(ExprPtr number, ParseNumber(num));
          if (sign.kind == Tok::kPlus) return number;
          const Literal& lit = *number->literal();
          return pi::MakeLiteral(lit.kind == Literal::Kind::kInt
                                     ? Literal::Int(-lit.int_value)
                                     : Literal::Float(-lit.float_value));
        }
        LANCE_ASSIGN_OR_RAISE(ExprPtr operand, ParseExpr(kPrecProduct));
        if (sign.kind == Tok::kMinus)
          return Bind(pi::MakeNegate(std::move(operand)), sign.pos);
        // Unary plus changes nothing, but only numbers take it.
        const DataTypePtr type = pi::ArithOperandType(*operand);
        if (type && !type->is_integer() && !type->is_floating()) {
          return BindError(
              Status::Invalid("unary + needs a numeric operand, but " +
                              operand->ToString() + " is " + type->ToString()),
              sign.pos);
        }
        return operand;
      }
      case Tok::kNumber: {
        const Token num = Advance();
        return ParseNumber(num);
      }
      case Tok::kString: {
        const Token s = Advance();
        return pi::MakeLiteral(Literal::String(s.text));
      }
      case Tok::kQuotedIdent:
        return ParseColumn();
      case Tok::kIdent:
        break;
      default:
        return SyntaxError("a value", t);
    }
    if (IsKeyword(t, "not")) {
      const Token op = Advance();
      LANCE_ASSIGN_OR_RAISE(ExprPtr operand, ParseExpr(kPrecNot));
      return Bind(pi::MakeNot(std::move(operand)), op.pos);
    }
    if (IsKeyword(t, "true") || IsKeyword(t, "false")) {
      const bool value = IsKeyword(t, "true");
      Advance();
      return pi::MakeLiteral(Literal::Bool(value));
    }
    if (IsKeyword(t, "null")) {
      Advance();
      return pi::MakeLiteral(Literal::Null());
    }
    if ((IsKeyword(t, "date") || IsKeyword(t, "timestamp")) &&
        Peek(1).kind == Tok::kString) {
      const bool is_date = IsKeyword(t, "date");
      Advance();
      const Token s = Advance();
      if (is_date) {
        if (auto days = pi::ParseDate(s.text))
          return pi::MakeLiteral(Literal::Date(*days));
        return BindError(Status::Invalid("'" + s.text + "' is not a date (YYYY-MM-DD)"),
                         s.pos);
      }
      if (auto ts = pi::ParseTimestamp(s.text)) {
        return pi::MakeLiteral(Literal::Timestamp(ts->nanos, ts->has_zone));
      }
      return BindError(Status::Invalid("'" + s.text +
                                       "' is not a timestamp (YYYY-MM-DD HH:MM:SS[.f])"),
                       s.pos);
    }
    if (IsKeyword(t, "case") && !FollowedByOperator()) return ParseCase();
    if (Peek(1).kind == Tok::kLParen) {
      if (IsKeyword(t, "cast")) return ParseCast();
      if (IsKeyword(t, "extract")) return ParseExtract();
      if (IsKeyword(t, "substring") || IsKeyword(t, "substr")) return ParseSubstring();
      if (!IsReserved(t.text)) return ParseCall();
    }
    if (IsReserved(t.text)) return SyntaxError("a value", t);
    return ParseColumn();
  }

  // True when the word at the cursor is followed by what can only follow a value (an
  // operator, ')', ',', '.', the end): then `case` names a column, not a CASE.
  bool FollowedByOperator() const {
    const Token& next = Peek(1);
    switch (next.kind) {
      case Tok::kEnd:
      case Tok::kCompare:
      case Tok::kArith:
      case Tok::kConcat:
      case Tok::kRParen:
      case Tok::kComma:
      case Tok::kDot:
        return true;
      default:
        break;
    }
    for (std::string_view word : {"and", "or", "is", "in", "between", "like", "ilike"}) {
      if (IsKeyword(next, word)) return true;
    }
    return false;
  }

  Status Expect(Tok kind, const std::string& what) {
    if (Peek().kind != kind) return SyntaxError(what, Peek());
    Advance();
    return Status::OK();
  }

  // name "(" [expr ("," expr)*] ")"
  Result<ExprPtr> ParseCall() {
    const Token name = Advance();
    Advance();  // (
    std::vector<ExprPtr> args;
    if (Peek().kind != Tok::kRParen) {
      while (true) {
        LANCE_ASSIGN_OR_RAISE(ExprPtr arg, ParseExpr(0));
        args.push_back(std::move(arg));
        if (Peek().kind == Tok::kComma) {
          Advance();
          continue;
        }
        break;
      }
    }
    LANCE_RETURN_NOT_OK(Expect(Tok::kRParen, "',' or ')' after a function argument"));
    return Bind(pi::MakeFunction(name.text, std::move(args)), name.pos);
  }

  // The SQL type names of CAST: Lance's (TINYINT .. BIGINT [UNSIGNED], INT / INTEGER,
  // FLOAT, DOUBLE, STRING, BINARY, BOOLEAN, DATE, TIMESTAMP / DATETIME [(precision)])
  // and common spellings DataFusion also takes (REAL, DOUBLE PRECISION, VARCHAR, TEXT,
  // CHAR, BOOL, BYTEA).
  Result<DataTypePtr> ParseTypeName() {
    const Token t = Peek();
    if (t.kind != Tok::kIdent) return SyntaxError("a type name", t);
    Advance();
    const std::string name = AsciiToLower(t.text);
    auto precision = [&]() -> Result<std::optional<int>> {
      if (Peek().kind != Tok::kLParen) return std::optional<int>();
      Advance();
      const Token num = Peek();
      if (num.kind != Tok::kNumber) return SyntaxError("a precision", num);
      Advance();
      LANCE_RETURN_NOT_OK(Expect(Tok::kRParen, "')' after the precision"));
      return std::optional<int>(std::atoi(num.text.c_str()));
    };
    auto int_type = [&](int bits) -> DataTypePtr {
      return integer_type(bits, !AcceptKeyword("unsigned"));
    };
    if (name == "tinyint") return int_type(8);
    if (name == "smallint") return int_type(16);
    if (name == "int" || name == "integer") return int_type(32);
    if (name == "bigint") return int_type(64);
    if (name == "float" || name == "real") return float32();
    if (name == "double") {
      AcceptKeyword("precision");
      return float64();
    }
    if (name == "string" || name == "varchar" || name == "text" || name == "char") {
      LANCE_RETURN_NOT_OK(precision().status());
      return utf8();
    }
    if (name == "binary" || name == "varbinary" || name == "bytea") return binary();
    if (name == "boolean" || name == "bool") return boolean();
    if (name == "date") return date32();
    if (name == "timestamp" || name == "datetime") {
      LANCE_ASSIGN_OR_RAISE(std::optional<int> p, precision());
      TimeUnit unit = TimeUnit::kMicro;
      if (p) {
        switch (*p) {
          case 0:
            unit = TimeUnit::kSecond;
            break;
          case 3:
            unit = TimeUnit::kMilli;
            break;
          case 6:
            unit = TimeUnit::kMicro;
            break;
          case 9:
            unit = TimeUnit::kNano;
            break;
          default:
            return BindError(
                Status::Invalid("timestamp precision must be 0, 3, 6 or 9, not " +
                                std::to_string(*p)),
                t.pos);
        }
      }
      return timestamp(unit);
    }
    return BindError(
        Status::Invalid("unknown type '" + t.text +
                        "' (TINYINT, SMALLINT, INT, BIGINT [UNSIGNED], FLOAT, "
                        "DOUBLE, STRING, BINARY, BOOLEAN, DATE, TIMESTAMP)"),
        t.pos);
  }

  // CAST "(" expr AS type ")"
  Result<ExprPtr> ParseCast() {
    const Token cast = Advance();
    Advance();  // (
    LANCE_ASSIGN_OR_RAISE(ExprPtr operand, ParseExpr(0));
    if (!AcceptKeyword("as")) return SyntaxError("AS in CAST", Peek());
    LANCE_ASSIGN_OR_RAISE(DataTypePtr type, ParseTypeName());
    LANCE_RETURN_NOT_OK(Expect(Tok::kRParen, "')' after the CAST type"));
    return Bind(pi::MakeCast(std::move(operand), std::move(type)), cast.pos);
  }

  // EXTRACT "(" part FROM expr ")" is date_part('part', expr).
  Result<ExprPtr> ParseExtract() {
    const Token word = Advance();
    Advance();  // (
    const Token part = Peek();
    if (part.kind != Tok::kIdent && part.kind != Tok::kString) {
      return SyntaxError("a date part (YEAR, MONTH, ...)", part);
    }
    Advance();
    if (!AcceptKeyword("from")) return SyntaxError("FROM in EXTRACT", Peek());
    LANCE_ASSIGN_OR_RAISE(ExprPtr operand, ParseExpr(0));
    LANCE_RETURN_NOT_OK(Expect(Tok::kRParen, "')' after EXTRACT"));
    std::vector<ExprPtr> args{pi::MakeLiteral(Literal::String(part.text)),
                              std::move(operand)};
    return Bind(pi::MakeFunction("date_part", std::move(args)), word.pos);
  }

  // SUBSTRING "(" expr FROM start [FOR length] ")" or substring(expr, start[, length]).
  Result<ExprPtr> ParseSubstring() {
    const Token word = Advance();
    Advance();  // (
    std::vector<ExprPtr> args;
    LANCE_ASSIGN_OR_RAISE(ExprPtr operand, ParseExpr(0));
    args.push_back(std::move(operand));
    if (AcceptKeyword("from")) {
      LANCE_ASSIGN_OR_RAISE(ExprPtr start, ParseExpr(0));
      args.push_back(std::move(start));
      if (AcceptKeyword("for")) {
        LANCE_ASSIGN_OR_RAISE(ExprPtr length, ParseExpr(0));
        args.push_back(std::move(length));
      }
    } else {
      while (Peek().kind == Tok::kComma) {
        Advance();
        LANCE_ASSIGN_OR_RAISE(ExprPtr arg, ParseExpr(0));
        args.push_back(std::move(arg));
      }
    }
    LANCE_RETURN_NOT_OK(Expect(Tok::kRParen, "')' after SUBSTRING"));
    return Bind(pi::MakeFunction("substr", std::move(args)), word.pos);
  }

  // CASE [operand] (WHEN a THEN b)+ [ELSE c] END
  Result<ExprPtr> ParseCase() {
    const Token word = Advance();
    ExprPtr operand;
    if (!IsKeyword(Peek(), "when")) {
      LANCE_ASSIGN_OR_RAISE(operand, ParseExpr(0));
    }
    std::vector<std::pair<ExprPtr, ExprPtr>> whens;
    while (IsKeyword(Peek(), "when")) {
      const Token when = Advance();
      LANCE_ASSIGN_OR_RAISE(ExprPtr cond, ParseExpr(0));
      if (operand) {
        LANCE_ASSIGN_OR_RAISE(cond,
                              Bind(pi::MakeCompare(operand, CmpOp::kEq, cond), when.pos));
      }
      if (!AcceptKeyword("then")) return SyntaxError("THEN in CASE", Peek());
      LANCE_ASSIGN_OR_RAISE(ExprPtr value, ParseExpr(0));
      whens.emplace_back(std::move(cond), std::move(value));
    }
    if (whens.empty()) return SyntaxError("WHEN in CASE", Peek());
    ExprPtr otherwise;
    if (AcceptKeyword("else")) {
      LANCE_ASSIGN_OR_RAISE(otherwise, ParseExpr(0));
    }
    if (!AcceptKeyword("end")) return SyntaxError("WHEN, ELSE or END in CASE", Peek());
    return Bind(pi::MakeCase(std::move(whens), std::move(otherwise)), word.pos);
  }

  Result<ExprPtr> ParseNumber(const Token& num) {
    const std::string& s = num.text;
    const bool is_float = s.find_first_of(".eE") != std::string::npos;
    if (!is_float) {
      // Up to 2^64 - 1 stays an exact integer; longer ones become floats (as in SQL).
      constexpr pi::int128 kMax = (pi::int128{1} << 64) - 1;
      pi::int128 v = 0;
      bool fits = true;
      for (char c : s) {
        v = v * 10 + (c - '0');
        if (v > kMax) {
          fits = false;
          break;
        }
      }
      if (fits) return pi::MakeLiteral(Literal::Int(v));
    }
    double d = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(d)) {
      return BindError(Status::Invalid("number " + s + " is out of range"), num.pos);
    }
    return pi::MakeLiteral(Literal::Float(d));
  }

  // Resolves `name` among `fields`: exact match first, then (for unquoted names) a unique
  // case-insensitive one.
  Result<FieldPtr> Resolve(const std::vector<FieldPtr>& fields, const Token& t,
                           const std::string& where) const {
    for (const auto& f : fields) {
      if (f->name() == t.text) return f;
    }
    if (t.kind == Tok::kIdent) {
      FieldPtr match;
      for (const auto& f : fields) {
        if (EqualsIgnoreAsciiCase(f->name(), t.text)) {
          if (match) {
            return BindError(Status::Invalid("'" + t.text + "' matches both '" +
                                             match->name() + "' and '" + f->name() + "'" +
                                             where + "; quote it with backticks"),
                             t.pos);
          }
          match = f;
        }
      }
      if (match) return match;
    }
    std::string names;
    for (const auto& f : fields) names += (names.empty() ? "" : ", ") + f->name();
    return BindError(Status::Invalid("no column named '" + t.text + "'" + where +
                                     " (available: " + names + ")"),
                     t.pos);
  }

  Result<ExprPtr> ParseColumn() {
    const Token first = Advance();
    LANCE_ASSIGN_OR_RAISE(FieldPtr field, Resolve(schema_.fields(), first, ""));
    std::vector<std::string> path{field->name()};
    DataTypePtr type = field->type();
    while (Peek().kind == Tok::kDot) {
      Advance();
      const Token name = Peek();
      // After a dot any word names a field, keywords included.
      if (name.kind != Tok::kIdent && name.kind != Tok::kQuotedIdent) {
        return SyntaxError("a field name after '.'", name);
      }
      Advance();
      std::string dotted;
      for (const auto& p : path) dotted += (dotted.empty() ? "" : ".") + p;
      if (type->id() != TypeId::kStruct) {
        return BindError(
            Status::Invalid("'" + dotted + "' is " + type->ToString() +
                            ", not a struct, so it has no field '" + name.text + "'"),
            name.pos);
      }
      LANCE_ASSIGN_OR_RAISE(FieldPtr child,
                            Resolve(type->fields(), name, " in struct '" + dotted + "'"));
      path.push_back(child->name());
      type = child->type();
    }
    return pi::MakeColumn(std::move(path), std::move(type));
  }

  std::string_view text_;
  const Schema& schema_;
  std::vector<Token> tokens_;
  size_t index_ = 0;
  std::string_view what_;
  int nesting_ = 0;
  int operators_ = 0;
  std::unordered_map<const pi::Expr*, Built> built_;
  // Arithmetic nodes as built (the node is held so that its address stays unique).
  struct BuiltArith {
    ExprPtr left;
    ArithOp op;
    ExprPtr right;
    size_t pos;
    ExprPtr node;
  };
  std::unordered_map<const pi::Expr*, BuiltArith> arith_;
};

class BoundPredicate final : public Predicate {
 public:
  BoundPredicate(std::string text, ExprPtr root)
      : text_(std::move(text)), root_(std::move(root)) {
    columns_ = pi::DistinctColumns(*root_);
  }

  std::vector<std::string> ReferencedColumns() const override { return columns_; }
  Result<ArrayPtr> Evaluate(const RecordBatch& batch) const override {
    Result<ArrayPtr> mask = pi::EvaluateMask(*root_, batch);
    if (!mask.ok()) {
      // Arithmetic can fail on the data (a zero divisor): name the filter.
      return Status(mask.status().code(),
                    "filter '" + text_ + "': " + mask.status().message());
    }
    return mask;
  }
  std::string ToString() const override { return root_->ToString(); }

 private:
  std::string text_;
  ExprPtr root_;
  std::vector<std::string> columns_;
};

}  // namespace

Result<std::shared_ptr<const Predicate>> Predicate::Parse(std::string_view text,
                                                          const Schema& schema) {
  LANCE_ASSIGN_OR_RAISE(std::vector<Token> tokens, Lex(text, "filter"));
  Parser parser(text, schema, std::move(tokens));
  LANCE_ASSIGN_OR_RAISE(ExprPtr root, parser.ParseFilter());
  return std::shared_ptr<const Predicate>(
      std::make_shared<BoundPredicate>(std::string(text), std::move(root)));
}

namespace predicate_internal {

Result<ExprPtr> ParseValueExpr(std::string_view text, const Schema& schema) {
  LANCE_ASSIGN_OR_RAISE(std::vector<Token> tokens, Lex(text, "expression"));
  Parser parser(text, schema, std::move(tokens), "expression");
  return parser.ParseValue();
}

}  // namespace predicate_internal

}  // namespace lance::table
