// SPDX-License-Identifier: Apache-2.0
//
// Bound expression nodes of the predicate language and SQL three-valued logic.
//
// Boolean intermediate results are boolean arrays at offset 0 whose validity marks
// UNKNOWN. AND, OR and NOT combine them a byte at a time:
//   true(a AND b)  = true(a) & true(b)      false(a AND b) = false(a) | false(b)
//   true(a OR b)   = true(a) | true(b)      false(a OR b)  = false(a) & false(b)
// where true(x) = value & valid and false(x) = ~value & valid; the result is valid where
// it is true or false. So NULL AND FALSE = FALSE and NULL OR TRUE = TRUE.

#include "table/predicate/bound_expr.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>

#include "lance/core/compute.h"
#include "lance/core/enum_names.h"
#include "lance/macros.h"

namespace lance::table::predicate_internal {

namespace {

DataTypePtr LiteralType(const Literal& lit) {
  // By kind: null (untyped), bool, int, float, string, date, timestamp.
  static const DataTypePtr kTypes[] = {nullptr,
                                       boolean(),
                                       int64(),
                                       float64(),
                                       utf8(),
                                       date32(),
                                       timestamp(TimeUnit::kNano)};
  static_assert(std::size(kTypes) == EnumCount(Literal::Kind::kTimestamp));
  const auto i = static_cast<size_t>(lit.kind);
  return i < std::size(kTypes) ? kTypes[i] : nullptr;
}

bool IsPlainIdentifier(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!(alpha || (i > 0 && digit))) return false;
  }
  // DATE and TIMESTAMP are keywords only before a string, which never follows a column.
  static constexpr std::string_view kReserved[] = {"and",     "or",   "not",  "is",
                                                   "null",    "in",   "true", "false",
                                                   "between", "like", "ilike"};
  for (auto word : kReserved) {
    if (name.size() == word.size()) {
      bool same = true;
      for (size_t i = 0; i < name.size() && same; ++i) {
        same = static_cast<char>(name[i] | 0x20) == word[i];
      }
      if (same) return false;
    }
  }
  return true;
}

std::string QuoteIdentifier(const std::string& name) {
  if (IsPlainIdentifier(name)) return name;
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

// Kernels depend on the physical layout only, so a batch whose nested field names or
// nullability differ from the schema the filter was parsed with is still accepted.
bool SameLayout(const DataType& a, const DataType& b) {
  if (a.id() != b.id()) return false;
  if (a.id() == TypeId::kTimestamp) return a.unit() == b.unit();
  if (a.id() == TypeId::kFixedSizeBinary) return a.fixed_size() == b.fixed_size();
  return true;
}

Result<BufferPtr> Filled(int64_t n, bool value) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, Buffer::Allocate(bit_util::BytesForBits(n)));
  if (value) std::memset(out->mutable_data(), 0xFF, static_cast<size_t>(out->size()));
  return out;
}

// A three-valued boolean vector at bit offset 0 (validity null: no UNKNOWN).
struct TriBits {
  BufferPtr values;
  BufferPtr validity;
};

Result<TriBits> ToTriBits(const Datum& d, int64_t n) {
  if (!d.is_array()) {
    const bool known = d.scalar.kind == Literal::Kind::kBool;
    LANCE_ASSIGN_OR_RAISE(BufferPtr values, Filled(n, known && d.scalar.bool_value));
    BufferPtr validity;
    if (!known) {
      LANCE_ASSIGN_OR_RAISE(validity, Filled(n, false));
    }
    return TriBits{std::move(values), std::move(validity)};
  }
  const Array& a = *d.array;
  if (a.type_id() != TypeId::kBool || a.length() != n) {
    return Status::Invalid("internal: expected a boolean array of " + std::to_string(n) +
                           " slots, got " + a.type()->ToString());
  }
  TriBits out;
  if (n > 0) {
    const auto& buffers = a.data()->buffers;
    if (buffers.size() < 2 || !buffers[1])
      return Status::Invalid("bool array without values");
    LANCE_ASSIGN_OR_RAISE(out.values, AlignBits(buffers[1], a.offset(), n));
  } else {
    LANCE_ASSIGN_OR_RAISE(out.values, Filled(0, false));
  }
  LANCE_ASSIGN_OR_RAISE(out.validity, AlignedValidity(a));
  return out;
}

Literal KleeneAnd(const Literal& a, const Literal& b) {
  const bool a_false = a.kind == Literal::Kind::kBool && !a.bool_value;
  const bool b_false = b.kind == Literal::Kind::kBool && !b.bool_value;
  if (a_false || b_false) return Literal::Bool(false);
  if (a.is_null() || b.is_null()) return Literal::Null();
  return Literal::Bool(true);
}

Literal KleeneOr(const Literal& a, const Literal& b) {
  const bool a_true = a.kind == Literal::Kind::kBool && a.bool_value;
  const bool b_true = b.kind == Literal::Kind::kBool && b.bool_value;
  if (a_true || b_true) return Literal::Bool(true);
  if (a.is_null() || b.is_null()) return Literal::Null();
  return Literal::Bool(false);
}

Literal KleeneNot(const Literal& a) {
  return a.is_null() ? Literal::Null() : Literal::Bool(!a.bool_value);
}

Result<ArrayPtr> EvaluateArray(const Expr& e, const RecordBatch& batch) {
  LANCE_ASSIGN_OR_RAISE(Datum d, e.Evaluate(batch));
  if (!d.is_array())
    return Status::Invalid("internal: expected an array for " + e.ToString());
  if (d.array->length() != batch.num_rows()) {
    return Status::Invalid("internal: " + e.ToString() + " produced " +
                           std::to_string(d.array->length()) + " rows for a batch of " +
                           std::to_string(batch.num_rows()));
  }
  return std::move(d.array);
}

// ---- nodes
// ---------------------------------------------------------------------------------

class LiteralExpr final : public Expr {
 public:
  explicit LiteralExpr(Literal value)
      : Expr(LiteralType(value)), value_(std::move(value)) {}
  const Literal* literal() const override { return &value_; }
  bool is_written_literal() const override { return true; }
  Result<Datum> Evaluate(const RecordBatch&) const override {
    return Datum{nullptr, value_};
  }
  std::string ToString() const override { return value_.ToString(); }
  void CollectColumns(std::vector<std::string>*) const override {}

 private:
  Literal value_;
};

class ColumnExpr final : public Expr {
 public:
  ColumnExpr(std::vector<std::string> path, DataTypePtr type)
      : Expr(std::move(type)), path_(std::move(path)) {}

  const std::vector<std::string>* column_path() const override { return &path_; }

  Result<Datum> Evaluate(const RecordBatch& batch) const override {
    ArrayPtr current = batch.GetColumnByName(path_[0]);
    if (!current) {
      return Status::Invalid("the batch has no column '" + path_[0] +
                             "', which the filter " + "reads");
    }
    if (current->length() != batch.num_rows()) {
      return Status::Invalid("column '" + path_[0] + "' has " +
                             std::to_string(current->length()) + " rows, the batch " +
                             std::to_string(batch.num_rows()));
    }
    // A field of a NULL struct is NULL: gather the validity of every enclosing struct.
    BufferPtr parents_valid;
    const int64_t n = current->length();
    for (size_t i = 1; i < path_.size(); ++i) {
      if (current->type_id() != TypeId::kStruct) {
        return Status::Invalid("column '" + path_[0] + "' in the batch is not a struct");
      }
      LANCE_ASSIGN_OR_RAISE(BufferPtr valid, AlignedValidity(*current));
      if (valid) {
        if (!parents_valid) {
          parents_valid = std::move(valid);
        } else {
          LANCE_ASSIGN_OR_RAISE(BufferPtr both, Filled(n, false));
          for (int64_t b = 0; b < bit_util::BytesForBits(n); ++b) {
            both->mutable_data()[b] = parents_valid->data()[b] & valid->data()[b];
          }
          parents_valid = std::move(both);
        }
      }
      const auto& st = static_cast<const StructArray&>(*current);
      ArrayPtr child = st.GetFieldByName(path_[i]);
      if (!child) {
        return Status::Invalid("struct column '" + path_[0] +
                               "' in the batch has no field '" + path_[i] + "'");
      }
      current = std::move(child);
    }
    if (!SameLayout(*current->type(), *type())) {
      return Status::Invalid("column " + ToString() + " has type " +
                             current->type()->ToString() + " in the batch but " +
                             type()->ToString() + " in the filter's schema");
    }
    if (parents_valid) {
      LANCE_ASSIGN_OR_RAISE(current, WithParentValidity(*current, *parents_valid));
    }
    return Datum{std::move(current), {}};
  }

  std::string ToString() const override {
    std::string out;
    for (size_t i = 0; i < path_.size(); ++i) {
      if (i > 0) out += '.';
      out += QuoteIdentifier(path_[i]);
    }
    return out;
  }

  void CollectColumns(std::vector<std::string>* out) const override {
    out->push_back(path_[0]);
  }

 private:
  // The leaf with validity = own validity AND the enclosing structs' (offset-0 bitmap).
  static Result<ArrayPtr> WithParentValidity(const Array& leaf, const Buffer& parents) {
    const int64_t n = leaf.length();
    const int64_t offset = leaf.offset();
    // The new bitmap keeps the leaf's offset so that the other buffers stay shared.
    LANCE_ASSIGN_OR_RAISE(BufferPtr bitmap,
                          Buffer::Allocate(bit_util::BytesForBits(offset + n)));
    if (n > 0) bit_util::CopyBits(parents.data(), 0, n, bitmap->mutable_data(), offset);
    const uint8_t* own = leaf.null_bitmap_data();
    if (own != nullptr && leaf.null_count() > 0) {
      uint8_t* dst = bitmap->mutable_data();
      for (int64_t b = offset / 8; b < bit_util::BytesForBits(offset + n); ++b)
        dst[b] &= own[b];
    }
    auto data = std::make_shared<ArrayData>(*leaf.data());
    if (data->buffers.empty()) data->buffers.resize(1);
    data->buffers[0] = std::move(bitmap);
    data->null_count = kUnknownNullCount;
    return MakeArray(std::move(data));
  }

  std::vector<std::string> path_;
};

// The evaluation of every predicate that is a kernel bound at planning time applied to
// one operand's values.
template <typename Kernel>
Result<Datum> ApplyKernel(const Expr& operand, const Kernel& kernel,
                          const RecordBatch& batch) {
  LANCE_ASSIGN_OR_RAISE(ArrayPtr values, EvaluateArray(operand, batch));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr out, kernel.Apply(*values));
  return Datum{std::move(out), {}};
}

// A boolean predicate over one operand: the columns it reads are the operand's.
class UnaryPredicate : public Expr {
 public:
  explicit UnaryPredicate(ExprPtr operand)
      : Expr(boolean()), operand_(std::move(operand)) {}
  void CollectColumns(std::vector<std::string>* out) const final {
    operand_->CollectColumns(out);
  }

 protected:
  ExprPtr operand_;
};

// A predicate that is one kernel, bound at planning time, applied to the operand.
template <typename Kernel>
class KernelPredicate : public UnaryPredicate {
 public:
  KernelPredicate(ExprPtr operand, std::unique_ptr<Kernel> kernel)
      : UnaryPredicate(std::move(operand)), kernel_(std::move(kernel)) {}
  Result<Datum> Evaluate(const RecordBatch& batch) const final {
    return ApplyKernel(*operand_, *kernel_, batch);
  }

 private:
  std::unique_ptr<Kernel> kernel_;
};

class ScalarCompareExpr final : public KernelPredicate<ScalarCompareKernel> {
 public:
  // `constant` is the literal side as written (a literal or constant arithmetic), kept to
  // render the filter; `literal` is its value.
  // `swapped`: the constant was written on the left.
  ScalarCompareExpr(ExprPtr operand, CmpOp op, ExprPtr constant, bool swapped,
                    std::unique_ptr<ScalarCompareKernel> kernel)
      : KernelPredicate(std::move(operand), std::move(kernel)),
        op_(op),
        constant_(std::move(constant)),
        swapped_(swapped) {}

  std::string ToString() const override {
    // Lance types a tree of literals by the column only when the column is on the left
    // (`f = 7 / 2` is 3.5, `7 / 2 = f` is 3): such a tree keeps its side.
    if (swapped_ && constant_->pure_arith()) {
      return "(" + constant_->ToString() + " " +
             std::string(CmpOpSymbol(SwapSides(op_))) + " " + operand_->ToString() + ")";
    }
    return "(" + operand_->ToString() + " " + std::string(CmpOpSymbol(op_)) + " " +
           constant_->ToString() + ")";
  }

 private:
  CmpOp op_;
  ExprPtr constant_;
  bool swapped_;
};

class ArrayCompareExpr final : public BinaryExpr<CmpOp> {
 public:
  ArrayCompareExpr(ExprPtr left, CmpOp op, ExprPtr right)
      : BinaryExpr(boolean(), std::move(left), op, std::move(right)) {}

  Result<Datum> Evaluate(const RecordBatch& batch) const override {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr left, EvaluateArray(*left_, batch));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr right, EvaluateArray(*right_, batch));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr out, CompareArrays(*left, op_, *right));
    return Datum{std::move(out), {}};
  }
};

class IsNullExpr final : public UnaryPredicate {
 public:
  IsNullExpr(ExprPtr operand, bool negated)
      : UnaryPredicate(std::move(operand)), negated_(negated) {}

  Result<Datum> Evaluate(const RecordBatch& batch) const override {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr values, EvaluateArray(*operand_, batch));
    const int64_t n = values->length();
    LANCE_ASSIGN_OR_RAISE(BufferPtr valid, AlignedValidity(*values));
    LANCE_ASSIGN_OR_RAISE(BufferPtr out, Filled(n, negated_));
    if (valid) {
      uint8_t* dst = out->mutable_data();
      for (int64_t b = 0; b < bit_util::BytesForBits(n); ++b) {
        dst[b] = negated_ ? valid->data()[b] : static_cast<uint8_t>(~valid->data()[b]);
      }
    }
    return Datum{MakeBooleanArray(n, std::move(out), nullptr), {}};
  }
  std::string ToString() const override {
    return "(" + operand_->ToString() + (negated_ ? " IS NOT NULL)" : " IS NULL)");
  }

 private:
  bool negated_;
};

class IsBoolExpr final : public UnaryPredicate {
 public:
  IsBoolExpr(ExprPtr operand, bool value, bool negated)
      : UnaryPredicate(std::move(operand)), value_(value), negated_(negated) {}

  Result<Datum> Evaluate(const RecordBatch& batch) const override {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr values, EvaluateArray(*operand_, batch));
    const int64_t n = values->length();
    LANCE_ASSIGN_OR_RAISE(TriBits bits, ToTriBits(Datum{values, {}}, n));
    LANCE_ASSIGN_OR_RAISE(BufferPtr out, Filled(n, false));
    uint8_t* dst = out->mutable_data();
    for (int64_t b = 0; b < bit_util::BytesForBits(n); ++b) {
      const uint8_t valid = bits.validity ? bits.validity->data()[b] : 0xFF;
      const uint8_t v = bits.values->data()[b];
      const uint8_t hit = valid & (value_ ? v : static_cast<uint8_t>(~v));
      dst[b] = negated_ ? static_cast<uint8_t>(~hit) : hit;
    }
    return Datum{MakeBooleanArray(n, std::move(out), nullptr), {}};
  }
  std::string ToString() const override {
    return "(" + operand_->ToString() + " IS " + (negated_ ? "NOT " : "") +
           (value_ ? "TRUE)" : "FALSE)");
  }

 private:
  bool value_;
  bool negated_;
};

class InExpr final : public KernelPredicate<InKernel> {
 public:
  InExpr(ExprPtr operand, std::vector<ExprPtr> items, bool negated,
         std::unique_ptr<InKernel> kernel)
      : KernelPredicate(std::move(operand), std::move(kernel)),
        items_(std::move(items)),
        negated_(negated) {}

  std::string ToString() const override {
    std::string out = "(" + operand_->ToString() + (negated_ ? " NOT IN (" : " IN (");
    for (size_t i = 0; i < items_.size(); ++i) {
      if (i > 0) out += ", ";
      out += items_[i]->ToString();
    }
    return out + "))";
  }

 private:
  std::vector<ExprPtr> items_;
  bool negated_;
};

class LikeExpr final : public UnaryPredicate {
 public:
  // A NULL pattern (pattern == nullopt) makes every row NULL.
  LikeExpr(ExprPtr operand, std::optional<std::string> pattern, bool negated,
           bool case_insensitive)
      : UnaryPredicate(std::move(operand)),
        text_(std::move(pattern)),
        pattern_(text_.value_or(""), case_insensitive),
        negated_(negated),
        case_insensitive_(case_insensitive) {}

  Result<Datum> Evaluate(const RecordBatch& batch) const override {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr values, EvaluateArray(*operand_, batch));
    if (!text_) {
      const int64_t n = values->length();
      LANCE_ASSIGN_OR_RAISE(BufferPtr bits, Filled(n, false));
      LANCE_ASSIGN_OR_RAISE(BufferPtr validity, Filled(n, false));
      return Datum{MakeBooleanArray(n, std::move(bits), std::move(validity)), {}};
    }
    LANCE_ASSIGN_OR_RAISE(ArrayPtr out, ApplyLike(*values, pattern_, negated_));
    return Datum{std::move(out), {}};
  }
  std::string ToString() const override {
    std::string op = case_insensitive_ ? "ILIKE" : "LIKE";
    if (negated_) op = "NOT " + op;
    const Literal pattern = text_ ? Literal::String(*text_) : Literal::Null();
    return "(" + operand_->ToString() + " " + op + " " + pattern.ToString() + ")";
  }

 private:
  std::optional<std::string> text_;
  LikePattern pattern_;
  bool negated_;
  bool case_insensitive_;
};

class NotExpr final : public UnaryPredicate {
 public:
  explicit NotExpr(ExprPtr operand) : UnaryPredicate(std::move(operand)) {}

  Result<Datum> Evaluate(const RecordBatch& batch) const override {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr values, EvaluateArray(*operand_, batch));
    const int64_t n = values->length();
    LANCE_ASSIGN_OR_RAISE(TriBits bits, ToTriBits(Datum{values, {}}, n));
    LANCE_ASSIGN_OR_RAISE(BufferPtr out, Filled(n, false));
    for (int64_t b = 0; b < bit_util::BytesForBits(n); ++b) {
      out->mutable_data()[b] = static_cast<uint8_t>(~bits.values->data()[b]);
    }
    return Datum{MakeBooleanArray(n, std::move(out), std::move(bits.validity)), {}};
  }
  std::string ToString() const override { return "(NOT " + operand_->ToString() + ")"; }
};

class LogicExpr final : public Expr {
 public:
  LogicExpr(ExprPtr left, ExprPtr right, bool is_and)
      : Expr(boolean()),
        left_(std::move(left)),
        right_(std::move(right)),
        is_and_(is_and) {}

  Result<Datum> Evaluate(const RecordBatch& batch) const override {
    const int64_t n = batch.num_rows();
    LANCE_ASSIGN_OR_RAISE(Datum l, left_->Evaluate(batch));
    // DataFusion's short circuits decide whether the right side runs at all, and so
    // whether its errors (a division by zero) surface: AND skips it when the left is
    // FALSE on every row and OR when it is TRUE on every row; AND evaluates it on the
    // selected rows only when the left, without NULLs, is TRUE on at most a fifth of
    // them (pre-selection).
    const bool skip_value = !is_and_;  // the left value that decides alone
    if (!l.is_array()) {
      if (l.scalar.kind == Literal::Kind::kBool && l.scalar.bool_value == skip_value) {
        LANCE_ASSIGN_OR_RAISE(BufferPtr bits, Filled(n, skip_value));
        return Datum{MakeBooleanArray(n, std::move(bits), nullptr), {}};
      }
    } else if (n > 0 && l.array->null_count() == 0) {
      const int64_t trues = static_cast<const BooleanArray&>(*l.array).true_count();
      if (trues == (skip_value ? n : 0)) return l;
      constexpr float kPreSelectionThreshold = 0.2f;
      if (is_and_ &&
          static_cast<float>(trues) / static_cast<float>(n) <= kPreSelectionThreshold) {
        return EvaluateSelected(batch, l.array);
      }
    }
    LANCE_ASSIGN_OR_RAISE(Datum r, right_->Evaluate(batch));
    LANCE_ASSIGN_OR_RAISE(TriBits a, ToTriBits(l, n));
    LANCE_ASSIGN_OR_RAISE(TriBits b, ToTriBits(r, n));
    LANCE_ASSIGN_OR_RAISE(BufferPtr values, Filled(n, false));
    const int64_t bytes = bit_util::BytesForBits(n);
    uint8_t* v = values->mutable_data();
    const uint8_t* va = a.values->data();
    const uint8_t* vb = b.values->data();
    if (!a.validity && !b.validity) {
      // No UNKNOWN anywhere: plain bitwise logic.
      for (int64_t i = 0; i < bytes; ++i)
        v[i] = is_and_ ? (va[i] & vb[i]) : (va[i] | vb[i]);
      return Datum{MakeBooleanArray(n, std::move(values), nullptr), {}};
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr validity, Filled(n, false));
    uint8_t* m = validity->mutable_data();
    for (int64_t i = 0; i < bytes; ++i) {
      const uint8_t ma = a.validity ? a.validity->data()[i] : 0xFF;
      const uint8_t mb = b.validity ? b.validity->data()[i] : 0xFF;
      const uint8_t ta = va[i] & ma, fa = static_cast<uint8_t>(~va[i]) & ma;
      const uint8_t tb = vb[i] & mb, fb = static_cast<uint8_t>(~vb[i]) & mb;
      const uint8_t t = is_and_ ? (ta & tb) : (ta | tb);
      const uint8_t f = is_and_ ? (fa | fb) : (fa & fb);
      v[i] = t;
      m[i] = t | f;
    }
    return Datum{MakeBooleanArray(n, std::move(values), std::move(validity)), {}};
  }
  std::string ToString() const override {
    return "(" + left_->ToString() + (is_and_ ? " AND " : " OR ") + right_->ToString() +
           ")";
  }
  void CollectColumns(std::vector<std::string>* out) const override {
    left_->CollectColumns(out);
    right_->CollectColumns(out);
  }

 private:
  // left AND right where `left` (no NULLs) selects few rows: the right side runs on those
  // rows only, and is FALSE elsewhere.
  Result<Datum> EvaluateSelected(const RecordBatch& batch, const ArrayPtr& left) const {
    const int64_t n = batch.num_rows();
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr selected, compute::FilterBatch(batch, *left));
    const int64_t m = selected->num_rows();
    LANCE_ASSIGN_OR_RAISE(Datum r, right_->Evaluate(*selected));
    LANCE_ASSIGN_OR_RAISE(TriBits rb, ToTriBits(r, m));
    LANCE_ASSIGN_OR_RAISE(TriBits lb, ToTriBits(Datum{left, {}}, n));
    LANCE_ASSIGN_OR_RAISE(BufferPtr values, Filled(n, false));
    LANCE_ASSIGN_OR_RAISE(BufferPtr validity, Filled(n, true));
    int64_t j = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!bit_util::GetBit(lb.values->data(), i)) continue;
      if (bit_util::GetBit(rb.values->data(), j)) {
        bit_util::SetBit(values->mutable_data(), i);
      }
      if (rb.validity && !bit_util::GetBit(rb.validity->data(), j)) {
        bit_util::ClearBit(validity->mutable_data(), i);
      }
      ++j;
    }
    return Datum{MakeBooleanArray(n, std::move(values), std::move(validity)), {}};
  }

  ExprPtr left_;
  ExprPtr right_;
  bool is_and_;
};

Status RequireBoolean(const Expr& e, std::string_view what) {
  if (e.is_boolean()) return Status::OK();
  return Status::Invalid(std::string(what) + " needs a boolean operand, but " +
                         e.ToString() + " is " + TypeName(e));
}

bool IsTextual(const DataType& type) {
  return type.is_binary_like() || type.id() == TypeId::kFixedSizeBinary;
}

}  // namespace

// ---- factories
// -----------------------------------------------------------------------------

ExprPtr MakeLiteral(Literal value) {
  return std::make_shared<LiteralExpr>(std::move(value));
}

ExprPtr MakeColumn(std::vector<std::string> path, DataTypePtr type) {
  return std::make_shared<ColumnExpr>(std::move(path), std::move(type));
}

Result<ExprPtr> MakeCompare(ExprPtr left, CmpOp op, ExprPtr right, CompareMode mode) {
  const Literal* ll = left->literal();
  const Literal* rl = right->literal();
  if (ll && rl) {
    LANCE_ASSIGN_OR_RAISE(Literal folded, CompareLiterals(*ll, op, *rl));
    return MakeLiteral(std::move(folded));
  }
  const bool swapped = ll != nullptr;
  if (swapped) {
    // Normalise to `expression OP literal`.
    std::swap(left, right);
    std::swap(ll, rl);
    op = SwapSides(op);
  }
  if (rl) {
    LANCE_RETURN_NOT_OK(CheckNaiveTimestampLiteral(*left->type(), *rl, left->ToString()));
    std::unique_ptr<ScalarCompareKernel> kernel;
    if (mode == CompareMode::kCoerced) {
      const DataTypePtr literal_type = ArithOperandType(*right);
      const bool is_float = literal_type && literal_type->is_floating();
      LANCE_ASSIGN_OR_RAISE(kernel,
                            MakeCoercedCompareKernel(left->type(), op, *rl, is_float));
    } else {
      LANCE_ASSIGN_OR_RAISE(kernel, MakeScalarCompareKernel(left->type(), op, *rl));
    }
    return ExprPtr(std::make_shared<ScalarCompareExpr>(
        std::move(left), op, std::move(right), swapped, std::move(kernel)));
  }
  LANCE_RETURN_NOT_OK(CheckArraysComparable(*left->type(), *right->type()));
  return ExprPtr(
      std::make_shared<ArrayCompareExpr>(std::move(left), op, std::move(right)));
}

Result<ExprPtr> MakeIsNull(ExprPtr operand, bool negated) {
  if (const Literal* lit = operand->literal()) {
    return MakeLiteral(Literal::Bool(lit->is_null() != negated));
  }
  return ExprPtr(std::make_shared<IsNullExpr>(std::move(operand), negated));
}

Result<ExprPtr> MakeIsBool(ExprPtr operand, bool value, bool negated) {
  LANCE_RETURN_NOT_OK(RequireBoolean(*operand, value ? "IS TRUE" : "IS FALSE"));
  if (const Literal* lit = operand->literal()) {
    const bool hit = !lit->is_null() && lit->bool_value == value;
    return MakeLiteral(Literal::Bool(hit != negated));
  }
  return ExprPtr(std::make_shared<IsBoolExpr>(std::move(operand), value, negated));
}

Result<ExprPtr> MakeIn(ExprPtr operand, std::vector<ExprPtr> items, bool negated,
                       CompareMode mode) {
  std::vector<Literal> values;
  std::vector<bool> floats;
  for (const auto& item : items) {
    if (!item->literal()) {
      if (item->is_constant()) return ConstantFoldError(*item);
      return Status::Invalid("IN lists hold literals only, not " + item->ToString());
    }
    values.push_back(*item->literal());
    const DataTypePtr type = ArithOperandType(*item);
    floats.push_back(type && type->is_floating());
  }
  if (const Literal* lit = operand->literal()) {
    Literal any = Literal::Bool(false);
    for (const auto& item : values) {
      LANCE_ASSIGN_OR_RAISE(Literal eq, CompareLiterals(*lit, CmpOp::kEq, item));
      any = KleeneOr(any, eq);
    }
    return MakeLiteral(negated ? KleeneNot(any) : any);
  }
  if (operand->type()->is_nested()) {
    return Status::Invalid("IN does not apply to " + operand->ToString() + " of type " +
                           TypeName(*operand));
  }
  for (const auto& item : values) {
    LANCE_RETURN_NOT_OK(
        CheckNaiveTimestampLiteral(*operand->type(), item, operand->ToString()));
  }
  LANCE_ASSIGN_OR_RAISE(auto kernel, MakeInKernel(operand->type(), values, negated,
                                                  mode == CompareMode::kCoerced, floats));
  return ExprPtr(std::make_shared<InExpr>(std::move(operand), std::move(items), negated,
                                          std::move(kernel)));
}

Result<ExprPtr> MakeLike(ExprPtr operand, ExprPtr pattern, bool negated,
                         bool case_insensitive) {
  const Literal* pat = pattern->literal();
  if (!pat || (pat->kind != Literal::Kind::kString && !pat->is_null())) {
    return Status::Invalid("the pattern of LIKE must be a string literal, not " +
                           pattern->ToString());
  }
  if (const Literal* lit = operand->literal()) {
    if (lit->is_null() || pat->is_null()) return MakeLiteral(Literal::Null());
    if (lit->kind != Literal::Kind::kString) {
      return Status::Invalid("LIKE applies to strings, not to " + lit->ToString());
    }
    LikePattern compiled(pat->string_value, case_insensitive);
    return MakeLiteral(Literal::Bool(compiled.Matches(lit->string_value) != negated));
  }
  if (!IsTextual(*operand->type())) {
    return Status::Invalid("LIKE applies to strings, but " + operand->ToString() +
                           " is " + TypeName(*operand));
  }
  std::optional<std::string> text;
  if (!pat->is_null()) text = pat->string_value;
  return ExprPtr(std::make_shared<LikeExpr>(std::move(operand), std::move(text), negated,
                                            case_insensitive));
}

Result<ExprPtr> MakeNot(ExprPtr operand) {
  LANCE_RETURN_NOT_OK(RequireBoolean(*operand, "NOT"));
  if (const Literal* lit = operand->literal()) return MakeLiteral(KleeneNot(*lit));
  return ExprPtr(std::make_shared<NotExpr>(std::move(operand)));
}

namespace {

// AND (is_and) or OR: folded when both sides are literals.
Result<ExprPtr> MakeLogic(ExprPtr left, ExprPtr right, bool is_and) {
  const char* name = is_and ? "AND" : "OR";
  LANCE_RETURN_NOT_OK(RequireBoolean(*left, name));
  LANCE_RETURN_NOT_OK(RequireBoolean(*right, name));
  if (left->literal() && right->literal()) {
    return MakeLiteral(is_and ? KleeneAnd(*left->literal(), *right->literal())
                              : KleeneOr(*left->literal(), *right->literal()));
  }
  return ExprPtr(std::make_shared<LogicExpr>(std::move(left), std::move(right), is_and));
}

}  // namespace

Result<ExprPtr> MakeAnd(ExprPtr left, ExprPtr right) {
  return MakeLogic(std::move(left), std::move(right), true);
}

Result<ExprPtr> MakeOr(ExprPtr left, ExprPtr right) {
  return MakeLogic(std::move(left), std::move(right), false);
}

Result<ArrayPtr> EvaluateMask(const Expr& root, const RecordBatch& batch) {
  const int64_t n = batch.num_rows();
  LANCE_ASSIGN_OR_RAISE(Datum d, root.Evaluate(batch));
  LANCE_ASSIGN_OR_RAISE(TriBits bits, ToTriBits(d, n));
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, Filled(n, false));
  uint8_t* dst = out->mutable_data();
  const int64_t bytes = bit_util::BytesForBits(n);
  for (int64_t i = 0; i < bytes; ++i) {
    dst[i] = bits.values->data()[i] & (bits.validity ? bits.validity->data()[i] : 0xFF);
  }
  // Clear the padding bits of the last byte so that byte-wise popcounts are exact.
  if (n % 8 != 0) dst[bytes - 1] &= static_cast<uint8_t>((1u << (n % 8)) - 1);
  return MakeArray(ArrayData::Make(boolean(), n, {nullptr, std::move(out)}, 0));
}

std::vector<std::string> DistinctColumns(const Expr& root) {
  std::vector<std::string> all;
  root.CollectColumns(&all);
  std::vector<std::string> out;
  for (auto& name : all) {
    if (std::find(out.begin(), out.end(), name) == out.end()) {
      out.push_back(std::move(name));
    }
  }
  return out;
}

}  // namespace lance::table::predicate_internal
