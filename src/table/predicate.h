// SPDX-License-Identifier: Apache-2.0
// The predicate language of Delete, CountRows(filter) and Scan(filter): the SQL subset
// Lance users write, with DataFusion's precedence (OR < AND < NOT < IS < comparisons).
//
//   expr    := expr OR expr | expr AND expr | NOT expr
//            | expr ("=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">=") expr
//            | expr IS [NOT] (NULL | TRUE | FALSE)
//            | expr [NOT] IN "(" literal ("," literal)* ")"
//            | expr [NOT] BETWEEN expr AND expr
//            | expr [NOT] (LIKE | ILIKE) 'pattern'        ('%', '_', '\' escapes)
//            | "(" expr ")" | column | literal
//   column  := identifier | `quoted identifier` | column "." field
//   literal := ["-" | "+"] number | 'string' | "string" | TRUE | FALSE | NULL
//            | DATE 'YYYY-MM-DD' | TIMESTAMP 'YYYY-MM-DD[( |T)HH:MM[:SS[.f]]][Z|+HH:MM]'
//
// Keywords are case-insensitive; `--` and `/* */` comments are allowed. '' inside a
// string is a quote. Unquoted names match a column exactly, else case-insensitively;
// backticked names match exactly (`` is a backtick). Arithmetic is not supported.
//
// Types are checked when parsing (Invalid, with the position): numbers compare with
// numbers, strings with strings/binaries, bools with bools, dates and timestamps with
// each other and with date/timestamp strings ('2024-01-02'); nested columns only with IS
// NULL. Semantics (checked against pylance):
//  - integer columns compare exactly with any numeric literal (x > 2.5 is x >= 3; big
//    uint64 literals are exact; out-of-range literals give a constant answer);
//  - float columns compare with the literal rounded to the column's precision; numbers by
//    IEEE order (-0.0 = 0.0); NaN by its sign: +NaN is above every number (so `f > 1e300`
//    matches NaN), -NaN below; two float columns compare in total order (-0.0 < 0.0,
//    NaN = NaN);
//  - strings and binaries compare bytewise;
//  - timestamp literals are truncated to the column's unit (toward zero), two timestamp
//    columns meet in the coarser unit, dates meet timestamps as midnights; a literal
//    without a zone is UTC.
// Evaluation uses SQL three-valued logic (NULL AND FALSE = FALSE, NULL OR TRUE = TRUE,
// x IN (1, NULL) is NULL for x = 2); a row matches only when the predicate is TRUE.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/record_batch.h"
#include "lance/core/type.h"
#include "lance/result.h"

namespace lance::table {

class Predicate {
 public:
  virtual ~Predicate() = default;

  /// \brief Parses `text` and binds it to `schema` (columns must exist and compare with
  /// compatible literals). \return Invalid with the position and what was expected.
  static Result<std::shared_ptr<const Predicate>> Parse(std::string_view text,
                                                        const Schema& schema);

  /// \brief Top-level columns the predicate reads (to add to a scan's projection).
  virtual std::vector<std::string> ReferencedColumns() const = 0;
  /// \brief A boolean array without nulls: true where the row matches.
  /// REQUIRES: `batch` has every referenced column (by name).
  virtual Result<ArrayPtr> Evaluate(const RecordBatch& batch) const = 0;
  /// \brief A normalised rendering, e.g. "((x > 10) AND (s IS NOT NULL))".
  virtual std::string ToString() const = 0;
};

}  // namespace lance::table
