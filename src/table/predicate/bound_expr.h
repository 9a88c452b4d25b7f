// SPDX-License-Identifier: Apache-2.0
// Internals of the predicate language (predicate.h): literals, bound expression nodes and
// the vectorised kernels they evaluate with. Implemented in:
//   lexer.cc, parser.cc     tokens; parsing, which binds names and types as it goes
//   bound_expr.cc           expression nodes, type checks, three-valued logic
//   arith.cc                arithmetic (+ - * / % and unary minus): typing, folding
//   literal.cc              operators, literals, the temporal literal grammar
//   compare.cc, compare_arrays.cc, in.cc, like.cc   comparison / IN / LIKE kernels
//   value_expression.cc     CAST, CASE, || and ValueExpression (casts: lance/core/cast.h)
//   functions.cc            the SQL functions (lower, substr, round, date_part, ...)
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/cast.h"
#include "lance/core/record_batch.h"
#include "lance/core/type.h"
#include "lance/result.h"

namespace lance::table::predicate_internal {

// Integer literals span int64 and uint64 (and their negations); int128 holds them all
// exactly, as well as the floor/ceil of any float literal that matters for integer
// columns.
using compute::int128;

enum class CmpOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

std::string_view CmpOpSymbol(CmpOp op);
/// \brief The operator that gives the same answer with the operands swapped (a < b <=> b
/// > a).
CmpOp SwapSides(CmpOp op);

enum class ArithOp : uint8_t { kAdd, kSub, kMul, kDiv, kMod };

std::string_view ArithOpSymbol(ArithOp op);

/// \brief How a comparison of a numeric value with a literal is typed. Lance binds a
/// filter in two steps, and which one decides depends on where the comparison sits:
///  - kColumnLiteral: Lance's own resolve step casts the literal to the column's type
///    (`g = 0.1` on a float32 column compares with 0.1f). It applies to `column OP
///    literal` and `literal OP column` reachable from the root through AND / OR only, to
///    BETWEEN on a column and to IN on a top-level column;
///  - kCoerced: everywhere else (under NOT or IS, on computed values) DataFusion's type
///    coercion decides: both sides meet in the wider type, floats win over integers, and
///    float64 literals widen a float32 / float16 value instead of being rounded to it.
enum class CompareMode : uint8_t { kCoerced, kColumnLiteral };

/// \brief A literal as written in the filter, before coercion to a column's type: the
/// cast's scalar (lance/core/cast.h), so that casts and row-by-row functions read and
/// write literals directly.
using Literal = compute::Scalar;

// ---- dates and timestamps -------------------------------------------------------------

// The temporal literal grammar and spellings are the cast's (lance/core/cast.h).
using compute::FormatDate;
using compute::FormatTimestamp;
using compute::ParseDate;
using compute::ParsedTimestamp;
using compute::ParseTimestamp;
/// \brief lance::FixedZoneOffset (include/lance/core/time_zone.h): 0 for no zone and the
/// UTC spellings, the offset of a fixed zone (+05:30, Etc/GMT+8 = -08:00); nullopt for a
/// zone with rules such as America/New_York.
std::optional<int64_t> FixedZoneOffsetSeconds(std::string_view timezone);
/// \brief NotImplemented when `literal` is a timestamp (or timestamp string) without a
/// zone compared with a timestamp column of a named zone: Lance reads such a literal as
/// local time in that zone, which needs the zone's rules. `column` names the column in
/// the message (empty: "a <type> value"). OK otherwise.
Status CheckNaiveTimestampLiteral(const DataType& type, const Literal& literal,
                                  std::string_view column);
using compute::NanosPerUnit;

// ---- evaluation
// ------------------------------------------------------------------------

/// \brief The value of an expression: an array (one slot per row) or, for literals only,
/// a scalar that stands for every row.
struct Datum {
  ArrayPtr array;
  Literal scalar;
  bool is_array() const { return array != nullptr; }
};

/// \brief A bound expression: names resolved and types checked against the schema.
class Expr {
 public:
  explicit Expr(DataTypePtr type) : type_(std::move(type)) {}
  virtual ~Expr() = default;

  /// \brief The static type; nullptr for an untyped NULL literal.
  const DataTypePtr& type() const { return type_; }
  bool is_boolean() const { return !type_ || type_->id() == TypeId::kBool; }
  /// \brief The literal when this node is one (folded constants included).
  virtual const Literal* literal() const { return nullptr; }
  /// \brief True for literals and arithmetic of literals, even when folding failed (1 / 0
  /// is constant, but its error is raised only when evaluated, as DataFusion does).
  virtual bool is_constant() const { return literal() != nullptr; }
  /// \brief True for a literal as written in the filter (negative numbers included).
  virtual bool is_written_literal() const { return false; }
  /// \brief The column path when this node reads a column (or struct field) directly.
  virtual const std::vector<std::string>* column_path() const { return nullptr; }
  /// \brief For `a OP b` built from written literals and such trees only (no unary minus
  /// on a non-number, no column): the operator and operands. Lance computes such a tree
  /// in the type of the column it is compared with (see CoerceConstantTree).
  struct ArithTree {
    ArithOp op;
    std::shared_ptr<const Expr> left;
    std::shared_ptr<const Expr> right;
  };
  virtual const ArithTree* pure_arith() const { return nullptr; }

  /// \brief Non-literal nodes always return an array with batch.num_rows() slots.
  virtual Result<Datum> Evaluate(const RecordBatch& batch) const = 0;
  virtual std::string ToString() const = 0;
  /// \brief Appends the top-level column names read by this node.
  virtual void CollectColumns(std::vector<std::string>* out) const = 0;

 private:
  DataTypePtr type_;
};
using ExprPtr = std::shared_ptr<const Expr>;

/// \brief `left OP right` between two evaluated operands (column comparisons,
/// arithmetic): how it is written and the columns it reads do not depend on what the
/// operator computes, so subclasses only evaluate.
template <typename OpT>
class BinaryExpr : public Expr {
 public:
  BinaryExpr(DataTypePtr type, ExprPtr left, OpT op, ExprPtr right)
      : Expr(std::move(type)),
        left_(std::move(left)),
        op_(op),
        right_(std::move(right)) {}

  std::string ToString() const override {
    std::string_view symbol;
    if constexpr (std::is_same_v<OpT, CmpOp>) {
      symbol = CmpOpSymbol(op_);
    } else {
      symbol = ArithOpSymbol(op_);
    }
    return "(" + left_->ToString() + " " + std::string(symbol) + " " +
           right_->ToString() + ")";
  }
  void CollectColumns(std::vector<std::string>* out) const override {
    left_->CollectColumns(out);
    right_->CollectColumns(out);
  }

 protected:
  ExprPtr left_;
  OpT op_;
  ExprPtr right_;
};

/// \brief The columns `root` reads, each once, in the order first read (what a bound
/// filter or value expression reports as its columns).
std::vector<std::string> DistinctColumns(const Expr& root);

// Node factories. They check types and fold literal-only operands; errors are Invalid
// messages without a position (the parser appends where the operator was).
ExprPtr MakeLiteral(Literal value);
/// \brief `path` is the top-level column followed by struct field names; `type` is the
/// type of the last element.
ExprPtr MakeColumn(std::vector<std::string> path, DataTypePtr type);
Result<ExprPtr> MakeCompare(ExprPtr left, CmpOp op, ExprPtr right,
                            CompareMode mode = CompareMode::kCoerced);
Result<ExprPtr> MakeIsNull(ExprPtr operand, bool negated);
/// \brief operand IS [NOT] TRUE / FALSE (never NULL).
Result<ExprPtr> MakeIsBool(ExprPtr operand, bool value, bool negated);
/// \brief `items` must be constant (an item whose folding failed returns its error).
Result<ExprPtr> MakeIn(ExprPtr operand, std::vector<ExprPtr> items, bool negated,
                       CompareMode mode = CompareMode::kCoerced);
Result<ExprPtr> MakeLike(ExprPtr operand, ExprPtr pattern, bool negated,
                         bool case_insensitive);
Result<ExprPtr> MakeNot(ExprPtr operand);
Result<ExprPtr> MakeAnd(ExprPtr left, ExprPtr right);
Result<ExprPtr> MakeOr(ExprPtr left, ExprPtr right);
/// \brief `left OP right` with DataFusion's numeric typing; literal-only operands fold
/// (an error while folding, such as 1 / 0, is kept for evaluation). Invalid for
/// non-numeric operands, NotImplemented for temporal and decimal ones and where Lance's
/// result would be a decimal (uint64 with a signed integer).
Result<ExprPtr> MakeArith(ExprPtr left, ArithOp op, ExprPtr right);
/// \brief -operand: wrapping for signed integers, a sign flip for floats. Invalid for
/// unsigned integers (DataFusion refuses them).
Result<ExprPtr> MakeNegate(ExprPtr operand);
/// \brief Lance's resolve step for a constant tree compared with a column (`f = 7 / 2`
/// is 3.5 on a float64 column, `i8 = 100 + 100` wraps to -56 on an int8 one): every
/// literal is cast to `column_type` and the tree is computed in that type. nullopt when
/// `constant` is not such a tree (pure_arith()) or the column is not numeric; Invalid
/// when a literal does not fit the column's type, as in Lance.
Result<std::optional<ExprPtr>> CoerceConstantTree(const ExprPtr& constant,
                                                  const DataType& column_type);
/// \brief Why folding the constant `e` failed (is_constant() but no literal()).
Status ConstantFoldError(const Expr& e);
/// \brief The type a value takes part in arithmetic with: a literal's Lance type
/// (Literal::number_type), nullptr for NULL, else the node's type.
DataTypePtr ArithOperandType(const Expr& e);

/// \brief Parses and binds `text` as a value expression of any type (parser.cc);
/// errors say "expression" where a filter's say "filter".
Result<ExprPtr> ParseValueExpr(std::string_view text, const Schema& schema);

// Functions (functions.cc), CAST, CASE and || (value_expression.cc). Each returns a
// node computing an array (CAST of a literal folds to a literal where one of the target
// type exists).
/// \brief `name(args...)`, the name matched case-insensitively; Invalid naming an unknown
/// function or a wrong argument.
Result<ExprPtr> MakeFunction(std::string_view name, std::vector<ExprPtr> args);
Result<ExprPtr> MakeCast(ExprPtr operand, DataTypePtr to);
/// \brief CASE WHEN c THEN v ... [ELSE e] END (`otherwise` may be null: NULL).
Result<ExprPtr> MakeCase(std::vector<std::pair<ExprPtr, ExprPtr>> whens,
                         ExprPtr otherwise);
/// \brief `left || right`: NULL if either is; a non-string side is cast to a string.
Result<ExprPtr> MakeStringConcat(ExprPtr left, ExprPtr right);
/// \brief `value` as `n` slots of `type` (a null-typed array for an untyped NULL).
Result<ArrayPtr> BroadcastLiteral(const Literal& value, const DataTypePtr& type,
                                  int64_t n);

// Helpers of value_expression.cc that functions.cc (and, for messages, bound_expr.cc)
// use.
/// \brief Computes one row of a row-by-row function from its arguments' values.
using RowFn = std::function<Result<Literal>(const std::vector<Literal>&)>;
/// \brief A function node computed row by row with `fn`, its result written in `type`;
/// with `strict`, a NULL argument makes a NULL result without calling `fn`.
ExprPtr MakeRow(std::string name, std::vector<ExprPtr> args, DataTypePtr type,
                bool strict, RowFn fn);
/// \brief The type two values meet in for COALESCE and CASE (DataFusion's coercion for
/// the common cases); nullptr when `a` and `b` cannot meet.
DataTypePtr CommonType(const DataTypePtr& a, const DataTypePtr& b);
/// The zone offset of a timestamp type: the cast's (lance/core/cast.h).
using compute::ZoneOffset;
/// \brief The name of `e`'s type for messages ("null" for an untyped NULL).
std::string TypeName(const Expr& e);

/// \brief Evaluates a boolean root to a mask without nulls (NULL -> false).
Result<ArrayPtr> EvaluateMask(const Expr& root, const RecordBatch& batch);

// ---- kernels
// ---------------------------------------------------------------------------

/// \brief `column OP literal` for one column type, prepared once at bind time.
class ScalarCompareKernel {
 public:
  virtual ~ScalarCompareKernel() = default;
  /// \brief A boolean array (offset 0) with the column's nulls.
  /// REQUIRES: values has the type the kernel was made for.
  virtual Result<ArrayPtr> Apply(const Array& values) const = 0;
};

/// \brief Invalid (without position) if `literal` cannot be compared with `type`. The
/// literal is taken in the column's type (CompareMode::kColumnLiteral).
Result<std::unique_ptr<ScalarCompareKernel>> MakeScalarCompareKernel(
    const DataTypePtr& type, CmpOp op, const Literal& literal);
/// \brief The same under DataFusion's coercion (CompareMode::kCoerced) for a numeric
/// `type`: `literal_is_float` says the literal is float64 (else an integer); an integer
/// literal meets integers exactly and float types in their own precision, a float64
/// literal widens integers and floats to float64. Other types as MakeScalarCompareKernel.
Result<std::unique_ptr<ScalarCompareKernel>> MakeCoercedCompareKernel(
    const DataTypePtr& type, CmpOp op, const Literal& literal, bool literal_is_float);
/// \brief Invalid unless arrays of these types can be compared with each other.
Status CheckArraysComparable(const DataType& left, const DataType& right);
/// \brief Row-wise `left OP right`; nulls where either side is null.
Result<ArrayPtr> CompareArrays(const Array& left, CmpOp op, const Array& right);
/// \brief `left OP right` folded at bind time: a bool or NULL literal.
Result<Literal> CompareLiterals(const Literal& left, CmpOp op, const Literal& right);

/// \brief `column [NOT] IN (literals)` with SQL semantics for NULL items.
class InKernel {
 public:
  virtual ~InKernel() = default;
  virtual Result<ArrayPtr> Apply(const Array& values) const = 0;
};
/// \brief Items are taken in the column's type (CompareMode::kColumnLiteral); with
/// `coerced`, a numeric value meets float64 items (`items_are_float`, one per item) in
/// float64 as DataFusion's IN coercion does.
Result<std::unique_ptr<InKernel>> MakeInKernel(
    const DataTypePtr& type, const std::vector<Literal>& items, bool negated,
    bool coerced = false, const std::vector<bool>& items_are_float = {});

/// \brief A compiled LIKE pattern ('%' any run, '_' one character, '\' escapes).
class LikePattern {
 public:
  /// \brief Patterns that reduce to a byte comparison with needle(): 'abc', 'abc%',
  /// '%abc', '%abc%' (case-sensitive only); anything else is kGeneral.
  enum class Shape : uint8_t { kExact, kPrefix, kSuffix, kContains, kGeneral };

  LikePattern(std::string_view pattern, bool case_insensitive);
  bool Matches(std::string_view value) const;
  Shape shape() const { return shape_; }
  std::string_view needle() const { return needle_; }

 private:
  struct Token {
    enum class Kind : uint8_t { kByte, kAnyChar, kAnyRun } kind;
    char byte;
  };
  bool MatchGeneral(std::string_view value) const;

  bool case_insensitive_;
  Shape shape_ = Shape::kGeneral;
  std::string needle_;  // the literal part for the simple shapes
  std::vector<Token> tokens_;
};
/// \brief LIKE over a string-like array (nulls stay null).
Result<ArrayPtr> ApplyLike(const Array& values, const LikePattern& pattern, bool negated);

// ---- numeric helpers
// -------------------------------------------------------------------

// float16 conversions are lance::HalfToFloat, RoundToHalf and DoubleToHalf
// (include/lance/core/float16.h).
// Rounding to float and the numeric widenings are the cast's (lance/core/cast.h).
using compute::CastNumeric;
using compute::RoundToFloat;

// ---- bitmap helpers
// --------------------------------------------------------------------

/// \brief A boolean array over offset-0 bitmaps (validity may be null: no nulls).
ArrayPtr MakeBooleanArray(int64_t length, BufferPtr values, BufferPtr validity);
/// \brief bits[offset, offset + length) at bit offset 0: a zero-copy slice when offset is
/// byte aligned, a copy otherwise.
Result<BufferPtr> AlignBits(const BufferPtr& bits, int64_t offset, int64_t length);
/// \brief The array's logical validity at bit offset 0, or nullptr when it has no nulls:
/// every slot of a null array is null, and a dictionary slot is null when its index is or
/// the value the index points at is.
Result<BufferPtr> AlignedValidity(const Array& array);

}  // namespace lance::table::predicate_internal
