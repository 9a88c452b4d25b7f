// SPDX-License-Identifier: Apache-2.0
// The predicate language of Delete, CountRows(filter) and Scan(filter): the SQL subset
// Lance users write, with DataFusion's precedence (OR < AND < NOT < IS < comparisons <
// + - < * / % < unary minus). docs/filters.md has the long form.
//
//   expr    := expr OR expr | expr AND expr | NOT expr
//            | expr ("=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">=") expr
//            | expr IS [NOT] (NULL | TRUE | FALSE)
//            | expr [NOT] IN "(" constant ("," constant)* ")"
//            | expr [NOT] BETWEEN expr AND expr
//            | expr [NOT] (LIKE | ILIKE) 'pattern'        ('%', '_', '\' escapes)
//            | expr ("+" | "-" | "*" | "/" | "%") expr | ("-" | "+") expr
//            | expr "||" expr                              (string concatenation)
//            | CAST "(" expr AS type ")"
//            | CASE [expr] (WHEN expr THEN expr)+ [ELSE expr] END
//            | EXTRACT "(" part FROM expr ")"
//            | SUBSTRING "(" expr FROM expr [FOR expr] ")"
//            | function "(" [expr ("," expr)*] ")"
//            | "(" expr ")" | column | literal
//   function := lower | upper | concat | length | char_length | character_length
//            | octet_length | substr | substring | trim | btrim | ltrim | rtrim
//            | replace | starts_with | ends_with | strpos | instr | reverse | abs
//            | round | coalesce | nullif | date_part   (case-insensitive; functions.cc)
//   type     := TINYINT | SMALLINT | INT | INTEGER | BIGINT [UNSIGNED] | FLOAT | REAL
//            | DOUBLE | STRING | VARCHAR | TEXT | BINARY | BOOLEAN | DATE
//            | TIMESTAMP ["(" 0|3|6|9 ")"]
//   column  := identifier | `quoted identifier` | column "." field
//   literal := ["-" | "+"] number | 'string' | "string" | TRUE | FALSE | NULL
//            | DATE 'YYYY-MM-DD' | TIMESTAMP 'YYYY-MM-DD[( |T)HH:MM[:SS[.f]]][Z|+HH:MM]'
//   constant := an expr of literals only (1 + 1, -(2))
//
// Keywords are case-insensitive; `--` and `/* */` comments are allowed. '' inside a
// string is a quote. Unquoted names match a column exactly, else case-insensitively;
// backticked names match exactly (`` is a backtick).
//
// Types are checked when parsing (Invalid, with the position): numbers compare with
// numbers, strings with strings/binaries, bools with bools, dates and timestamps with
// each other and with date/timestamp strings ('2024-01-02'); nested columns only with IS
// NULL. Semantics (checked against pylance):
//  - Lance types a comparison in two ways. `column OP literal` and `literal OP column`
//    reachable from the root through AND / OR (and BETWEEN on a column, IN on a
//    top-level column) take the literal in the column's type:
//     - integer columns compare exactly with any numeric literal (x > 2.5 is x >= 3; big
//       uint64 literals are exact; out-of-range literals give a constant answer; Lance
//       itself rejects the fractional ones);
//     - float columns compare with the literal rounded to the column's precision;
//     - a tree of literals there (`f = 7 / 2`, `i8 = 100 + 100`) is computed in the
//       column's type: 3.5 on a float64 column, -56 (wrapped) on an int8 one; a literal
//       of the tree that does not fit the type is an error (Invalid), as in Lance;
//    everywhere else (under NOT or IS, computed values, `7 / 2 = f`) numbers meet in
//    DataFusion's common type: integers exactly, an integer with a float in that float's
//    type (int64 = float32 compares as float32), a float64 literal widens a float32 or
//    float16 value (NOT (g = 0.1) is true for g = 0.1f);
//  - numbers compare by IEEE order (-0.0 = 0.0) with a literal; NaN by its sign: +NaN is
//    above every number (so `f > 1e300` matches NaN), -NaN below; two float values
//    compare in total order (-0.0 < 0.0, NaN = NaN);
//  - arithmetic follows DataFusion: integers meet in the narrowest type holding both
//    (int8 + uint8 is int16), a float makes it float (the widest one), literals are int64
//    when they fit, else uint64, else float64. Integer + - * and unary minus wrap; /
//    truncates toward zero and % takes the dividend's sign; a zero divisor and MIN / -1
//    fail the scan ("Divide by zero error", "Arithmetic overflow") on rows that are
//    evaluated and not NULL; float arithmetic is IEEE (x / 0.0 is inf or NaN). NULL
//    propagates. uint64 with a signed integer (a decimal in Lance), and arithmetic on
//    dates, timestamps and decimals, are NotImplemented; unsigned values refuse unary
//    minus;
//  - as in DataFusion, AND skips its right side where the left is FALSE on every row of a
//    batch, and evaluates it only on the selected rows when those are at most a fifth of
//    the batch (and the left has no NULL); OR skips it where the left is all TRUE. This
//    decides whether a division by zero on the right side fails the scan;
//  - strings and binaries compare bytewise;
//  - timestamp literals span years 0000-9999 and are truncated to the column's unit
//    (toward zero); one that does not fit the unit (a ns column ends at 1677-09-21 and
//    2262-04-11) is NULL, as Lance's cast makes it, so no comparison with it matches;
//    two timestamp columns meet in the coarser unit, dates meet timestamps as midnights
//    (UTC, whatever the column's zone);
//  - a timestamp literal (or timestamp string) with Z or an offset is an instant and
//    compares with any column; one without a zone is wall-clock time in the column's
//    zone: UTC for columns without a zone or with a UTC spelling (UTC, Etc/UTC, GMT,
//    Z, +00:00, ...), local time for fixed offsets (+05:30, -0800, Etc/GMT+8). For
//    named zones (America/New_York) that needs timezone rules, which this library does
//    not have: Parse returns NotImplemented, asking for the literal with an offset.
//    (Lance reads a literal *with* an offset on a zoned column as its UTC time in the
//    column's zone, shifting it twice; lance-cpp keeps the instant.)
//  - functions, CAST, CASE and || compute arrays with DataFusion's semantics (NULL in,
//    NULL out except concat / coalesce; CAST fails on a value that does not fit; CASE
//    computes a branch only on the rows that take it); docs/filters.md has the table.
//    The same language computes values: ValueExpression (value_expression.h).
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

// What a parsed and bound expression of the language offers, whether it is a filter
// (Predicate) or computes values (ValueExpression).
class ParsedExpression {
 public:
  virtual ~ParsedExpression() = default;

  /// \brief Top-level columns the expression reads (to add to a scan's projection).
  virtual std::vector<std::string> ReferencedColumns() const = 0;
  /// \brief The result for the rows of `batch` (what it is: see the subclass).
  /// REQUIRES: `batch` has every referenced column (by name).
  /// \return Invalid when integer arithmetic fails on the batch (a zero divisor).
  virtual Result<ArrayPtr> Evaluate(const RecordBatch& batch) const = 0;
  /// \brief A normalised rendering, e.g. "((x > 10) AND (s IS NOT NULL))".
  virtual std::string ToString() const = 0;
};

/// Evaluate() gives a boolean array without nulls: true where the row matches.
class Predicate : public ParsedExpression {
 public:
  /// \brief Parses `text` and binds it to `schema` (columns must exist and compare with
  /// compatible literals). \return Invalid with the position and what was expected;
  /// NotImplemented for a timestamp literal without a zone on a column of a named zone
  /// and for arithmetic Lance computes in decimals, dates or timestamps.
  static Result<std::shared_ptr<const Predicate>> Parse(std::string_view text,
                                                        const Schema& schema);
};

/// Evaluate() gives one value per row of the batch (constants are broadcast), of type().
class ValueExpression : public ParsedExpression {
 public:
  /// \brief Parses `text` (any expression of the predicate language, not only boolean
  /// ones) and binds it to `schema`.
  /// \return Invalid with the position and what was expected, naming an unknown column
  /// or function.
  static Result<std::shared_ptr<const ValueExpression>> Parse(std::string_view text,
                                                              const Schema& schema);

  /// \brief The static type of the result; nullptr for an untyped NULL.
  virtual DataTypePtr type() const = 0;
};

}  // namespace lance::table
