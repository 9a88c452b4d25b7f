// SPDX-License-Identifier: Apache-2.0
// The lexer of the predicate language (lexer.cc): the text of a filter or value
// expression as tokens, for the parser (parser.cc). Private to src/table/predicate/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lance/result.h"
#include "table/predicate/bound_expr.h"

namespace lance::table::predicate_internal {

enum class Tok : uint8_t {
  kEnd,
  kIdent,        // bare word: a keyword or a column name
  kQuotedIdent,  // `name`
  kString,       // 'text' or "text"
  kNumber,
  kCompare,
  kLParen,
  kRParen,
  kComma,
  kDot,
  kMinus,
  kPlus,
  kArith,   // * / %
  kConcat,  // ||
};

struct Token {
  Tok kind = Tok::kEnd;
  size_t pos = 0;
  size_t end = 0;
  std::string text;  // identifier / string contents (unescaped) or number spelling
  CmpOp op = CmpOp::kEq;
};

// Words that cannot name a column unless quoted. DATE and TIMESTAMP are keywords only in
// front of a string (`date > DATE '2024-01-01'` reads column `date`).
bool IsReserved(std::string_view word);

// The tokens of `text`, ending with one kEnd token. `what` ("filter", "expression")
// names the text in errors. \return Invalid naming the position of a character that
// starts no token, or of an unterminated string or comment.
Result<std::vector<Token>> Lex(std::string_view text, std::string_view what);

}  // namespace lance::table::predicate_internal
