// SPDX-License-Identifier: Apache-2.0
//
// Lexer of the predicate language: splits a filter or value expression into tokens
// (lexer.h) for the parser (parser.cc).

#include "table/predicate/lexer.h"

#include <string>
#include <utility>

#include "lance/core/ascii.h"

namespace lance::table::predicate_internal {

namespace {

bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9') || c == '$'; }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool IsReserved(std::string_view word) {
  static constexpr std::string_view kWords[] = {"and",     "or",   "not",  "is",
                                                "null",    "in",   "true", "false",
                                                "between", "like", "ilike"};
  for (auto w : kWords) {
    if (EqualsIgnoreAsciiCase(word, w)) return true;
  }
  return false;
}

namespace {

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  // On failure *error_pos / *error_what say where and what.
  bool Run(std::vector<Token>* out, size_t* error_pos, std::string* error_what) {
    while (true) {
      SkipSpaceAndComments();
      if (!error_.empty()) break;
      Token tok;
      tok.pos = pos_;
      if (pos_ >= text_.size()) {
        tok.kind = Tok::kEnd;
        tok.end = pos_;
        out->push_back(std::move(tok));
        return true;
      }
      if (!Next(&tok)) break;
      tok.end = pos_;
      out->push_back(std::move(tok));
    }
    *error_pos = error_pos_;
    *error_what = error_;
    return false;
  }

 private:
  void Fail(size_t pos, std::string what) {
    error_pos_ = pos;
    error_ = std::move(what);
  }

  void SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (text_.substr(pos_, 2) == "--") {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (text_.substr(pos_, 2) == "/*") {
        const size_t close = text_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) {
          Fail(pos_, "a closing '*/' for the comment starting");
          return;
        }
        pos_ = close + 2;
      } else {
        return;
      }
    }
  }

  // Reads text up to the closing `quote`; a doubled quote stands for itself.
  bool Quoted(char quote, std::string* out) {
    const size_t start = pos_++;
    while (pos_ < text_.size()) {
      if (text_[pos_] == quote) {
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == quote) {
          out->push_back(quote);
          pos_ += 2;
          continue;
        }
        ++pos_;
        return true;
      }
      out->push_back(text_[pos_++]);
    }
    Fail(start, std::string("a closing ") + quote + " for the " +
                    (quote == '`' ? "identifier" : "string") + " starting");
    return false;
  }

  bool Next(Token* tok) {
    const char c = text_[pos_];
    auto peek = [&](size_t k) {
      return pos_ + k < text_.size() ? text_[pos_ + k] : '\0';
    };
    if (IsIdentStart(c)) {
      const size_t start = pos_;
      while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
      tok->kind = Tok::kIdent;
      tok->text = std::string(text_.substr(start, pos_ - start));
      return true;
    }
    if (IsDigit(c) || (c == '.' && IsDigit(peek(1)))) {
      const size_t start = pos_;
      while (IsDigit(peek(0))) ++pos_;
      if (peek(0) == '.') {
        ++pos_;
        while (IsDigit(peek(0))) ++pos_;
      }
      // An exponent needs digits; otherwise the 'e' starts the next token.
      if ((peek(0) == 'e' || peek(0) == 'E') &&
          (IsDigit(peek(1)) ||
           ((peek(1) == '+' || peek(1) == '-') && IsDigit(peek(2))))) {
        pos_ += IsDigit(peek(1)) ? 1 : 2;
        while (IsDigit(peek(0))) ++pos_;
      }
      tok->kind = Tok::kNumber;
      tok->text = std::string(text_.substr(start, pos_ - start));
      return true;
    }
    // Punctuation of one character.
    struct Punctuation {
      char c;
      Tok kind;
    };
    static constexpr Punctuation kPunctuation[] = {
        {'(', Tok::kLParen}, {')', Tok::kRParen}, {',', Tok::kComma},
        {'.', Tok::kDot},    {'-', Tok::kMinus},  {'+', Tok::kPlus},
    };
    for (const auto& p : kPunctuation) {
      if (c == p.c) {
        tok->kind = p.kind;
        ++pos_;
        return true;
      }
    }
    switch (c) {
      case '\'':
      case '"':
        tok->kind = Tok::kString;
        return Quoted(c, &tok->text);
      case '`':
        tok->kind = Tok::kQuotedIdent;
        return Quoted('`', &tok->text);
      case '|':
        if (peek(1) != '|') break;
        tok->kind = Tok::kConcat;
        pos_ += 2;
        return true;
      case '*':
      case '/':
      case '%':
        tok->kind = Tok::kArith;
        tok->text = std::string(1, c);
        ++pos_;
        return true;
      default:
        break;
    }
    // Comparison operators.
    struct Spelling {
      std::string_view text;
      CmpOp op;
    };
    static constexpr Spelling kOps[] = {
        {"==", CmpOp::kEq}, {"!=", CmpOp::kNe}, {"<>", CmpOp::kNe}, {"<=", CmpOp::kLe},
        {">=", CmpOp::kGe}, {"=", CmpOp::kEq},  {"<", CmpOp::kLt},  {">", CmpOp::kGt},
    };
    for (const auto& s : kOps) {
      if (text_.substr(pos_, s.text.size()) == s.text) {
        tok->kind = Tok::kCompare;
        tok->op = s.op;
        tok->text = std::string(s.text);
        pos_ += s.text.size();
        return true;
      }
    }
    Fail(pos_, "");
    return false;
  }

  std::string_view text_;
  size_t pos_ = 0;
  size_t error_pos_ = 0;
  std::string error_;
};

}  // namespace

Result<std::vector<Token>> Lex(std::string_view text, std::string_view what) {
  std::vector<Token> tokens;
  size_t error_pos = 0;
  std::string error_what;
  if (!Lexer(text).Run(&tokens, &error_pos, &error_what)) {
    std::string msg =
        "cannot parse " + std::string(what) + " '" + std::string(text) + "': ";
    if (error_what.empty()) {
      msg += "unexpected character '" + std::string(1, text[error_pos]) +
             "' at position " + std::to_string(error_pos);
    } else {
      msg += "expected " + error_what + " at position " + std::to_string(error_pos);
    }
    return Status::Invalid(msg);
  }
  return tokens;
}

}  // namespace lance::table::predicate_internal
