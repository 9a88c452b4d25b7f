// SPDX-License-Identifier: Apache-2.0
//
// Value expressions (value_expression.h) over the predicate language's bound Expr tree,
// the CAST, CASE and || nodes, and the row-by-row function node the SQL functions
// (functions.cc) are built from. CAST is core's compute::Cast (lance/core/cast.h), whose
// scalar is the parser's Literal.

#include "table/predicate/value_expression.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "lance/core/ascii.h"
#include "lance/core/builder.h"
#include "lance/core/compute.h"
#include "lance/core/float16.h"
#include "lance/macros.h"
#include "table/predicate/bound_expr.h"
#include "table/predicate/kernel_util.h"

namespace lance::table {

namespace pi = predicate_internal;

// Shared with functions.cc and bound_expr.cc (declared in bound_expr.h).
namespace predicate_internal {

std::string TypeName(const Expr& e) { return e.type() ? e.type()->ToString() : "null"; }

}  // namespace predicate_internal

namespace {

using pi::int128;
using pi::Literal;
using pi::TypeName;

// Slots are read and written as Literals by the cast's reader and writer.
using SlotReader = compute::ScalarReader;
using SlotWriter = compute::ScalarWriter;
using compute::BroadcastScalar;

// ---- function nodes -----------------------------------------------------------------

bool IsStringLikeId(TypeId id) {
  return id == TypeId::kUtf8 || id == TypeId::kLargeUtf8 || id == TypeId::kBinary ||
         id == TypeId::kLargeBinary;
}

// An expression's value as an array of batch.num_rows() slots.
Result<ArrayPtr> EvalArray(const pi::Expr& e, const RecordBatch& batch) {
  LANCE_ASSIGN_OR_RAISE(pi::Datum d, e.Evaluate(batch));
  if (d.is_array()) return d.array;
  return BroadcastScalar(d.scalar, e.type(), batch.num_rows());
}

std::string JoinArgs(const std::vector<pi::ExprPtr>& args) {
  std::string out;
  for (const auto& a : args) out += (out.empty() ? "" : ", ") + a->ToString();
  return out;
}

// A function computed row by row over Literals: `fn` gets one Literal per argument (NULL
// included unless `strict`, where a NULL argument makes a NULL result) and returns the
// result, written in type().
class RowFunctionExpr final : public pi::Expr {
 public:
  using Fn = pi::RowFn;

  RowFunctionExpr(std::string name, std::vector<pi::ExprPtr> args, DataTypePtr type,
                  bool strict, Fn fn)
      : Expr(std::move(type)),
        name_(std::move(name)),
        args_(std::move(args)),
        strict_(strict),
        fn_(std::move(fn)) {}

  Result<pi::Datum> Evaluate(const RecordBatch& batch) const override {
    const int64_t n = batch.num_rows();
    std::vector<std::optional<SlotReader>> readers;
    std::vector<Literal> row(args_.size());
    for (size_t k = 0; k < args_.size(); ++k) {
      LANCE_ASSIGN_OR_RAISE(pi::Datum d, args_[k]->Evaluate(batch));
      if (d.is_array()) {
        LANCE_ASSIGN_OR_RAISE(SlotReader r, SlotReader::Make(d.array));
        readers.emplace_back(std::move(r));
      } else {
        readers.emplace_back(std::nullopt);
        row[k] = d.scalar;
      }
    }
    LANCE_ASSIGN_OR_RAISE(SlotWriter writer, SlotWriter::Make(type(), *type()));
    LANCE_RETURN_NOT_OK(writer.Reserve(n));
    for (int64_t i = 0; i < n; ++i) {
      bool any_null = false;
      for (size_t k = 0; k < args_.size(); ++k) {
        if (readers[k]) row[k] = readers[k]->Get(i);
        any_null = any_null || row[k].is_null();
      }
      if (strict_ && any_null) {
        LANCE_RETURN_NOT_OK(writer.Append(Literal::Null()));
        continue;
      }
      Result<Literal> v = fn_(row);
      if (!v.ok()) {
        return Status(v.status().code(), name_ + ": " + v.status().message());
      }
      LANCE_RETURN_NOT_OK(writer.Append(*v));
    }
    LANCE_ASSIGN_OR_RAISE(ArrayPtr out, writer.Finish());
    return pi::Datum{std::move(out), {}};
  }
  std::string ToString() const override { return name_ + "(" + JoinArgs(args_) + ")"; }
  void CollectColumns(std::vector<std::string>* out) const override {
    for (const auto& a : args_) a->CollectColumns(out);
  }

 private:
  std::string name_;
  std::vector<pi::ExprPtr> args_;
  bool strict_;
  Fn fn_;
};

class CastExpr final : public pi::Expr {
 public:
  CastExpr(pi::ExprPtr operand, DataTypePtr to)
      : Expr(std::move(to)), operand_(std::move(operand)) {}
  Result<pi::Datum> Evaluate(const RecordBatch& batch) const override {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr values, EvalArray(*operand_, batch));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr out, compute::Cast(values, type()));
    return pi::Datum{std::move(out), {}};
  }
  std::string ToString() const override {
    return "CAST(" + operand_->ToString() + " AS " + type()->ToString() + ")";
  }
  void CollectColumns(std::vector<std::string>* out) const override {
    operand_->CollectColumns(out);
  }

 private:
  pi::ExprPtr operand_;
};

// CASE WHEN c1 THEN v1 ... [ELSE e] END. As in DataFusion, a branch's value is computed
// only on the rows that take the branch, and a condition only on the rows no earlier
// branch took (so `CASE WHEN x = 0 THEN 0 ELSE 1 / x END` does not divide by zero).
class CaseExpr final : public pi::Expr {
 public:
  CaseExpr(std::vector<std::pair<pi::ExprPtr, pi::ExprPtr>> whens, pi::ExprPtr otherwise,
           DataTypePtr type)
      : Expr(std::move(type)), whens_(std::move(whens)), else_(std::move(otherwise)) {}

  Result<pi::Datum> Evaluate(const RecordBatch& batch) const override {
    const int64_t n = batch.num_rows();
    std::vector<Literal> out(static_cast<size_t>(n));
    std::vector<int64_t> remaining(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) remaining[static_cast<size_t>(i)] = i;
    auto rows_of = [&](const std::vector<int64_t>& rows) -> Result<RecordBatchPtr> {
      return compute::TakeBatch(batch, rows);
    };
    auto fill = [&](const pi::Expr& value, const std::vector<int64_t>& rows) -> Status {
      if (rows.empty()) return Status::OK();
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr sub, rows_of(rows));
      LANCE_ASSIGN_OR_RAISE(ArrayPtr values, EvalArray(value, *sub));
      LANCE_ASSIGN_OR_RAISE(SlotReader reader, SlotReader::Make(values));
      for (size_t k = 0; k < rows.size(); ++k) {
        out[static_cast<size_t>(rows[k])] = reader.Get(static_cast<int64_t>(k));
      }
      return Status::OK();
    };
    for (const auto& [cond, value] : whens_) {
      if (remaining.empty()) break;
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr sub, rows_of(remaining));
      LANCE_ASSIGN_OR_RAISE(ArrayPtr mask, EvalArray(*cond, *sub));
      LANCE_ASSIGN_OR_RAISE(SlotReader reader, SlotReader::Make(mask));
      std::vector<int64_t> hits;
      std::vector<int64_t> rest;
      for (size_t k = 0; k < remaining.size(); ++k) {
        const Literal c = reader.Get(static_cast<int64_t>(k));
        (!c.is_null() && c.bool_value ? hits : rest).push_back(remaining[k]);
      }
      LANCE_RETURN_NOT_OK(fill(*value, hits));
      remaining = std::move(rest);
    }
    if (else_) LANCE_RETURN_NOT_OK(fill(*else_, remaining));
    if (!type()) return pi::Datum{NullArray::Make(n), {}};
    LANCE_ASSIGN_OR_RAISE(SlotWriter writer, SlotWriter::Make(type(), *type()));
    LANCE_RETURN_NOT_OK(writer.Reserve(n));
    for (const auto& v : out) LANCE_RETURN_NOT_OK(writer.Append(v));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr result, writer.Finish());
    return pi::Datum{std::move(result), {}};
  }
  std::string ToString() const override {
    std::string s = "CASE";
    for (const auto& [c, v] : whens_) {
      s += " WHEN " + c->ToString() + " THEN " + v->ToString();
    }
    if (else_) s += " ELSE " + else_->ToString();
    return s + " END";
  }
  void CollectColumns(std::vector<std::string>* out) const override {
    for (const auto& [c, v] : whens_) {
      c->CollectColumns(out);
      v->CollectColumns(out);
    }
    if (else_) else_->CollectColumns(out);
  }

 private:
  std::vector<std::pair<pi::ExprPtr, pi::ExprPtr>> whens_;
  pi::ExprPtr else_;
};

// ---- typing ---------------------------------------------------------------------------

DataTypePtr SignedOfWidth(int w) { return integer_type(8 * w, true); }

}  // namespace

namespace predicate_internal {

// The type two values meet in for COALESCE and CASE (DataFusion's coercion for the
// common cases); nullptr when `a` and `b` cannot meet.
DataTypePtr CommonType(const DataTypePtr& a, const DataTypePtr& b) {
  if (!a || a->id() == TypeId::kNull) return b;
  if (!b || b->id() == TypeId::kNull) return a;
  if (a->Equals(*b)) return a;
  const TypeId x = a->id();
  const TypeId y = b->id();
  if (a->is_integer() && b->is_integer()) {
    const bool sa = a->is_signed_integer();
    const bool sb = b->is_signed_integer();
    const int wa = a->byte_width();
    const int wb = b->byte_width();
    if (sa == sb) return wa >= wb ? a : b;
    const int ws = sa ? wa : wb;
    const int wu = sa ? wb : wa;
    if (ws > wu) return sa ? a : b;
    return SignedOfWidth(std::min(8, wu * 2));
  }
  const bool na = a->is_integer() || a->is_floating();
  const bool nb = b->is_integer() || b->is_floating();
  if (na && nb) {
    if (a->is_floating() && b->is_floating()) {
      return a->byte_width() >= b->byte_width() ? a : b;
    }
    return a->is_floating() ? a : b;  // an integer meets a float in that float's type
  }
  if (IsStringLikeId(x) && IsStringLikeId(y)) {
    const bool is_binary = x == TypeId::kBinary || x == TypeId::kLargeBinary ||
                           y == TypeId::kBinary || y == TypeId::kLargeBinary;
    const bool large = x == TypeId::kLargeUtf8 || x == TypeId::kLargeBinary ||
                       y == TypeId::kLargeUtf8 || y == TypeId::kLargeBinary;
    if (is_binary) return large ? large_binary() : binary();
    return large ? large_utf8() : utf8();
  }
  if (x == TypeId::kDate32 && y == TypeId::kTimestamp) return b;
  if (y == TypeId::kDate32 && x == TypeId::kTimestamp) return a;
  if (x == TypeId::kTimestamp && y == TypeId::kTimestamp) {
    return pi::NanosPerUnit(a->unit()) >= pi::NanosPerUnit(b->unit()) ? a : b;  // coarser
  }
  return nullptr;
}

ExprPtr MakeRow(std::string name, std::vector<ExprPtr> args, DataTypePtr type,
                bool strict, RowFn fn) {
  return std::make_shared<RowFunctionExpr>(std::move(name), std::move(args),
                                           std::move(type), strict, std::move(fn));
}

Result<ArrayPtr> BroadcastLiteral(const Literal& value, const DataTypePtr& type,
                                  int64_t n) {
  return BroadcastScalar(value, type, n);
}

Result<ExprPtr> MakeCast(ExprPtr operand, DataTypePtr to) {
  auto node = std::make_shared<CastExpr>(operand, to);
  if (const Literal* lit = operand->literal()) {
    // Fold a constant cast (an error, such as CAST('x' AS INT), shows at parse time);
    // the result stays a literal when a literal of its kind has the target type.
    LANCE_ASSIGN_OR_RAISE(ArrayPtr one, BroadcastScalar(*lit, operand->type(), 1));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr cast, compute::Cast(one, to));
    LANCE_ASSIGN_OR_RAISE(SlotReader reader, SlotReader::Make(cast));
    Literal folded = reader.Get(0);
    const TypeId id = to->id();
    const bool literal_typed = id == TypeId::kInt64 || id == TypeId::kUtf8 ||
                               id == TypeId::kBool || id == TypeId::kDate32 ||
                               (id == TypeId::kFloat64 &&
                                (folded.is_null() || std::isfinite(folded.float_value)));
    if (literal_typed && !folded.is_null()) return MakeLiteral(std::move(folded));
  }
  return ExprPtr(std::move(node));
}

Result<ExprPtr> MakeStringConcat(ExprPtr left, ExprPtr right) {
  auto is_string = [](const Expr& e) {
    return e.type() &&
           (e.type()->id() == TypeId::kUtf8 || e.type()->id() == TypeId::kLargeUtf8);
  };
  if (!is_string(*left) && !is_string(*right)) {
    return Status::Invalid("|| joins strings, but ", left->ToString(), " is ",
                           TypeName(*left), " and ", right->ToString(), " is ",
                           TypeName(*right));
  }
  if (left->type() && !is_string(*left)) {
    LANCE_ASSIGN_OR_RAISE(left, MakeCast(left, utf8()));
  }
  if (right->type() && !is_string(*right)) {
    LANCE_ASSIGN_OR_RAISE(right, MakeCast(right, utf8()));
  }
  const DataTypePtr type =
      is_string(*left) && left->type()->id() == TypeId::kLargeUtf8
          ? large_utf8()
          : (right->type() && right->type()->id() == TypeId::kLargeUtf8 ? large_utf8()
                                                                        : utf8());
  return MakeRow("concat_op", {std::move(left), std::move(right)}, type, true,
                 [](const std::vector<Literal>& a) -> Result<Literal> {
                   return Literal::String(a[0].string_value + a[1].string_value);
                 });
}

Result<ExprPtr> MakeCase(std::vector<std::pair<ExprPtr, ExprPtr>> whens,
                         ExprPtr otherwise) {
  DataTypePtr type;
  for (const auto& [cond, value] : whens) {
    if (!cond->is_boolean()) {
      return Status::Invalid("CASE WHEN needs a boolean condition, but ",
                             cond->ToString(), " is ", TypeName(*cond));
    }
  }
  auto unify = [&](const ExprPtr& v) -> Status {
    DataTypePtr next = CommonType(type, v->type());
    if (!next && v->type()) {
      return Status::Invalid("CASE results do not share a type: ", v->ToString(), " is ",
                             TypeName(*v), " but an earlier one is ", type->ToString());
    }
    type = next;
    return Status::OK();
  };
  for (const auto& [cond, value] : whens) LANCE_RETURN_NOT_OK(unify(value));
  if (otherwise) LANCE_RETURN_NOT_OK(unify(otherwise));
  return ExprPtr(
      std::make_shared<CaseExpr>(std::move(whens), std::move(otherwise), type));
}

}  // namespace predicate_internal

namespace {

class BoundValueExpression final : public ValueExpression {
 public:
  BoundValueExpression(std::string text, pi::ExprPtr root)
      : text_(std::move(text)), root_(std::move(root)) {
    columns_ = pi::DistinctColumns(*root_);
  }

  DataTypePtr type() const override { return root_->type(); }
  std::vector<std::string> ReferencedColumns() const override { return columns_; }

  Result<ArrayPtr> Evaluate(const RecordBatch& batch) const override {
    Result<pi::Datum> datum = root_->Evaluate(batch);
    if (!datum.ok()) {
      return Status(datum.status().code(),
                    "expression '" + text_ + "': " + datum.status().message());
    }
    if (datum->is_array()) return datum->array;
    return BroadcastScalar(datum->scalar, root_->type(), batch.num_rows());
  }

  std::string ToString() const override { return root_->ToString(); }

 private:
  std::string text_;
  pi::ExprPtr root_;
  std::vector<std::string> columns_;
};

}  // namespace

Result<std::shared_ptr<const ValueExpression>> ValueExpression::Parse(
    std::string_view text, const Schema& schema) {
  LANCE_ASSIGN_OR_RAISE(pi::ExprPtr root, pi::ParseValueExpr(text, schema));
  if (root->is_constant() && !root->literal()) {
    // A constant whose folding failed (1 / 0) fails here rather than on every batch.
    return pi::ConstantFoldError(*root);
  }
  return std::shared_ptr<const ValueExpression>(
      std::make_shared<BoundValueExpression>(std::string(text), std::move(root)));
}

}  // namespace lance::table
