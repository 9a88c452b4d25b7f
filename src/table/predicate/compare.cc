// SPDX-License-Identifier: Apache-2.0
//
// Vectorised kernels of the predicate language. Every kernel is chosen once, when the
// filter is bound to a schema, for one physical column type and one operator; at run time
// it is a tight loop over raw values that writes result bits eight at a time. Nulls never
// enter the loops: the result simply carries the column's validity bitmap.
//
// Comparison semantics (matching Lance / DataFusion where Lance accepts the filter):
//  - integer columns compare exactly with any numeric literal: `x > 2.5` is `x >= 3`,
//    `u = 18446744073709551615` is exact, literals outside the column's range give a
//    constant answer (Lance itself rejects float literals on integer columns);
//  - float columns compare with the literal rounded to the column's precision (Lance
//  casts
//    the literal to the column type) using IEEE order for numbers (-0.0 = 0.0), while a
//    NaN sorts by its sign: +NaN above +inf, -NaN below -inf (so `f > 1e300` matches
//    NaN);
//  - two float columns compare with Rust's f64::total_cmp, as arrow-rs does: -0.0 < 0.0,
//    a NaN equals only an identical NaN; integers meeting floats are widened to double;
//  - strings and binaries compare bytewise (unsigned);
//  - a timestamp literal is cast to the column's unit by truncation toward zero (arrow's
//    cast), two timestamp columns meet in the coarser unit (DataFusion's coercion), dates
//    meet timestamps as midnights (UTC); a literal that does not fit the column's unit
//    (nanoseconds end at 1677-09-21 and 2262-04-11) is NULL, as arrow's cast makes it;
//  - a timestamp literal without a zone is wall-clock time in the column's zone (UTC for
//    columns without one): done for UTC and fixed-offset zones; for named zones (which
//    need timezone rules) such a literal is NotImplemented at bind time. A literal with
//    Z or an offset is an instant and compares with any column.

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "lance/core/visit_type.h"
#include "lance/macros.h"
#include "table/predicate/kernel_util.h"

namespace lance::table::predicate_internal {

namespace {

// ---- scalar comparison kernels
// ----------------------------------------------------------

class ConstantKernel : public ScalarCompareKernel {
 public:
  explicit ConstantKernel(bool value) : value_(value) {}
  Result<ArrayPtr> Apply(const Array& values) const override {
    LANCE_ASSIGN_OR_RAISE(BufferPtr bits, FilledBits(values.length(), value_));
    return WithValidityOf(values, std::move(bits));
  }

 private:
  bool value_;
};

// `x OP NULL` is NULL on every row.
class AllNullKernel : public ScalarCompareKernel {
 public:
  Result<ArrayPtr> Apply(const Array& values) const override {
    LANCE_ASSIGN_OR_RAISE(BufferPtr bits, FilledBits(values.length(), false));
    LANCE_ASSIGN_OR_RAISE(BufferPtr validity, FilledBits(values.length(), false));
    return MakeBooleanArray(values.length(), std::move(bits), std::move(validity));
  }
};

// The frame of every comparison with a literal: Fill() writes the bits of a non-empty
// array, the result carries the column's validity.
template <typename Lit>
class LiteralKernel : public ScalarCompareKernel {
 public:
  LiteralKernel(CmpOp op, Lit lit) : op_(op), lit_(std::move(lit)) {}
  Result<ArrayPtr> Apply(const Array& values) const final {
    const int64_t n = values.length();
    LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBits(n));
    if (n > 0) {
      LANCE_RETURN_NOT_OK(Fill(values, n, bits->mutable_data()));
    }
    return WithValidityOf(values, std::move(bits));
  }

 protected:
  virtual Status Fill(const Array& values, int64_t n, uint8_t* bits) const = 0;

  CmpOp op_;
  Lit lit_;
};

// Integers and floats. Stored is the C type of the values buffer, T the type they compare
// as (float16 bits compare as float).
template <typename T, typename Stored = T>
class NumericKernel : public LiteralKernel<T> {
 public:
  using LiteralKernel<T>::LiteralKernel;

 protected:
  Status Fill(const Array& values, int64_t n, uint8_t* bits) const override {
    const Stored* v = RawValues<Stored>(values);
    if (v == nullptr) return Status::Invalid("comparing an array without values");
    if constexpr (std::is_integral_v<T>) {
      CompareLoop(
          this->op_, n, bits, [v](int64_t i) { return v[i]; }, this->lit_);
    } else {
      auto value = [v](int64_t i) -> T {
        if constexpr (std::is_same_v<Stored, T>) {
          return v[i];
        } else {
          return HalfToFloat(v[i]);
        }
      };
      const T lit = this->lit_;
      if (std::isnan(lit)) {
        // A NaN literal (only constant arithmetic makes one, 0.0 / 0.0) compares in
        // total order, as arrow's kernels do: a NaN equals only the same NaN.
        CompareLoop(
            this->op_, n, bits, [&value](int64_t i) { return TotalOrderKey(value(i)); },
            TotalOrderKey(lit));
      } else {
        FloatCompareLoop(this->op_, n, bits, value, lit);
      }
    }
    return Status::OK();
  }
};

template <typename T>
using IntKernel = NumericKernel<T>;
template <typename T, typename Stored = T>
using FloatKernel = NumericKernel<T, Stored>;
using HalfKernel = FloatKernel<float, uint16_t>;

template <typename T>
std::unique_ptr<ScalarCompareKernel> MakeIntKernel(CmpOp op, const IntTarget& target) {
  const IntPlan plan = PlanIntCompare(op, target, MinOf<T>(), MaxOf<T>());
  switch (plan.mode) {
    case IntPlan::Mode::kAllTrue:
      return std::make_unique<ConstantKernel>(true);
    case IntPlan::Mode::kAllFalse:
      return std::make_unique<ConstantKernel>(false);
    case IntPlan::Mode::kCompare:
      break;
  }
  return std::make_unique<IntKernel<T>>(plan.op, static_cast<T>(plan.k));
}

// Compares values widened to float64 (DataFusion's coercion of an integer, float32 or
// float16 value with a float64 literal).
class WidenedKernel : public ScalarCompareKernel {
 public:
  WidenedKernel(CmpOp op, double lit) : inner_(op, lit) {}
  Result<ArrayPtr> Apply(const Array& values) const override {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr wide, CastNumeric(values, float64()));
    return inner_.Apply(*wide);
  }

 private:
  FloatKernel<double> inner_;
};

template <typename OffsetT>
class StringKernel : public LiteralKernel<std::string> {
 public:
  using LiteralKernel::LiteralKernel;

 protected:
  Status Fill(const Array& values, int64_t n, uint8_t* bits) const override {
    const OffsetT* offsets = RawValues<OffsetT>(values);
    if (offsets == nullptr)
      return Status::Invalid("comparing a string array without offsets");
    const auto get = OffsetStrings<OffsetT>::Of(values, offsets);
    // string_view ordering is std::char_traits<char>::compare: bytewise, unsigned.
    CompareLoop(op_, n, bits, get, std::string_view(lit_));
    return Status::OK();
  }
};

class FixedSizeBinaryKernel : public LiteralKernel<std::string> {
 public:
  using LiteralKernel::LiteralKernel;

 protected:
  Status Fill(const Array& values, int64_t n, uint8_t* bits) const override {
    LANCE_ASSIGN_OR_RAISE(ViewReader get, ViewReader::Make(values));
    CompareLoop(op_, n, bits, get, std::string_view(lit_));
    return Status::OK();
  }
};

// bool columns: each operator against a constant is the value bits, their complement, or
// a constant (false < true).
class BoolKernel : public ScalarCompareKernel {
 public:
  enum class Form : uint8_t { kSame, kFlip, kTrue, kFalse };
  explicit BoolKernel(Form form) : form_(form) {}

  static Form FormFor(CmpOp op, bool lit) {
    // Per operator (CmpOp order), the form against false and against true.
    static constexpr Form kForms[][2] = {
        {Form::kFlip, Form::kSame},   // =
        {Form::kSame, Form::kFlip},   // !=
        {Form::kFalse, Form::kFlip},  // <
        {Form::kFlip, Form::kTrue},   // <=
        {Form::kSame, Form::kFalse},  // >
        {Form::kTrue, Form::kSame},   // >=
    };
    const auto i = static_cast<size_t>(op);
    return i < std::size(kForms) ? kForms[i][lit ? 1 : 0] : Form::kFalse;
  }

  Result<ArrayPtr> Apply(const Array& values) const override {
    const int64_t n = values.length();
    if (form_ == Form::kTrue || form_ == Form::kFalse) {
      LANCE_ASSIGN_OR_RAISE(BufferPtr bits, FilledBits(n, form_ == Form::kTrue));
      return WithValidityOf(values, std::move(bits));
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBits(n));
    if (n > 0) {
      const auto& buffers = values.data()->buffers;
      if (buffers.size() < 2 || !buffers[1]) {
        return Status::Invalid("comparing a bool array without values");
      }
      bit_util::CopyBits(buffers[1]->data(), values.offset(), n, bits->mutable_data(), 0);
      if (form_ == Form::kFlip) {
        uint8_t* out = bits->mutable_data();
        for (int64_t i = 0; i < bit_util::BytesForBits(n); ++i) out[i] = ~out[i];
      }
    }
    return WithValidityOf(values, std::move(bits));
  }

 private:
  Form form_;
};

// Integers, dates and timestamps compare on one integer axis: the literal is fitted to
// the column's type, then compared as the column's storage integer.
Result<std::unique_ptr<ScalarCompareKernel>> MakeIntegerAxisKernel(
    const DataTypePtr& type, CmpOp op, const Literal& lit) {
  LANCE_ASSIGN_OR_RAISE(std::optional<IntTarget> fitted, IntegerAxisTarget(*type, lit));
  if (!fitted) {
    return std::unique_ptr<ScalarCompareKernel>(std::make_unique<AllNullKernel>());
  }
  const IntTarget& target = *fitted;
  // The caller passes integer-axis types only (ints, date32, timestamp).
  return VisitType(*type, [&](auto traits) {
    using C = typename decltype(traits)::CType;
    if constexpr (std::is_integral_v<C>) {
      return MakeIntKernel<C>(op, target);
    } else {
      return MakeIntKernel<uint64_t>(op, target);
    }
  });
}

}  // namespace

// ---- comparison kernels
// --------------------------------------------------------------------

Result<std::unique_ptr<ScalarCompareKernel>> MakeScalarCompareKernel(
    const DataTypePtr& type, CmpOp op, const Literal& lit) {
  if (lit.is_null()) {
    return std::unique_ptr<ScalarCompareKernel>(std::make_unique<AllNullKernel>());
  }
  if (type->is_integer() || type->id() == TypeId::kDate32 ||
      type->id() == TypeId::kTimestamp) {
    return MakeIntegerAxisKernel(type, op, lit);
  }
  switch (type->id()) {
    case TypeId::kBool:
      if (lit.kind != Literal::Kind::kBool) return IncompatibleLiteral(*type, lit);
      return std::unique_ptr<ScalarCompareKernel>(
          std::make_unique<BoolKernel>(BoolKernel::FormFor(op, lit.bool_value)));
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      if (!lit.is_numeric()) return IncompatibleLiteral(*type, lit);
      const double d = LiteralToDouble(lit);
      if (type->id() == TypeId::kFloat64) {
        return std::unique_ptr<ScalarCompareKernel>(
            std::make_unique<FloatKernel<double>>(op, d));
      }
      if (type->id() == TypeId::kFloat32) {
        return std::unique_ptr<ScalarCompareKernel>(
            std::make_unique<FloatKernel<float>>(op, RoundToFloat(d)));
      }
      return std::unique_ptr<ScalarCompareKernel>(
          std::make_unique<HalfKernel>(op, RoundToHalf(d)));
    }
    case TypeId::kUtf8:
    case TypeId::kBinary:
      if (lit.kind != Literal::Kind::kString) return IncompatibleLiteral(*type, lit);
      return std::unique_ptr<ScalarCompareKernel>(
          std::make_unique<StringKernel<int32_t>>(op, lit.string_value));
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary:
      if (lit.kind != Literal::Kind::kString) return IncompatibleLiteral(*type, lit);
      return std::unique_ptr<ScalarCompareKernel>(
          std::make_unique<StringKernel<int64_t>>(op, lit.string_value));
    case TypeId::kFixedSizeBinary:
      if (lit.kind != Literal::Kind::kString) return IncompatibleLiteral(*type, lit);
      return std::unique_ptr<ScalarCompareKernel>(
          std::make_unique<FixedSizeBinaryKernel>(op, lit.string_value));
    default:
      return IncompatibleLiteral(*type, lit, "only IS NULL applies to nested columns");
  }
}

Result<std::unique_ptr<ScalarCompareKernel>> MakeCoercedCompareKernel(
    const DataTypePtr& type, CmpOp op, const Literal& lit, bool literal_is_float) {
  using Ptr = std::unique_ptr<ScalarCompareKernel>;
  if (lit.is_null() || !IsNumeric(*type) || !lit.is_numeric()) {
    return MakeScalarCompareKernel(type, op, lit);
  }
  const bool as_float = literal_is_float || lit.kind == Literal::Kind::kFloat;
  const double d = LiteralToDouble(lit);
  switch (type->id()) {
    case TypeId::kFloat64:
      return Ptr(std::make_unique<FloatKernel<double>>(op, d));
    case TypeId::kFloat32:
      if (as_float) return Ptr(std::make_unique<WidenedKernel>(op, d));
      // The integer literal is cast to float32 (rounded once, directly).
      return Ptr(
          std::make_unique<FloatKernel<float>>(op, static_cast<float>(lit.int_value)));
    case TypeId::kFloat16:
      if (as_float) return Ptr(std::make_unique<WidenedKernel>(op, d));
      return Ptr(std::make_unique<HalfKernel>(op, RoundToHalf(d)));
    default:
      // Integers meet an integer literal exactly (in int64, or decimal128 for uint64).
      if (as_float) return Ptr(std::make_unique<WidenedKernel>(op, d));
      return MakeScalarCompareKernel(type, op, lit);
  }
}

}  // namespace lance::table::predicate_internal
