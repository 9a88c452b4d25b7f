// SPDX-License-Identifier: Apache-2.0
//
// Comparisons of two columns row by row, and of two literals (constant folding). The
// semantics are those listed at the top of compare.cc.

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "lance/core/visit_type.h"
#include "lance/macros.h"
#include "table/predicate/kernel_util.h"

namespace lance::table::predicate_internal {

namespace {

// ---- array vs array -------------------------------------------------------------------

// Row-wise a[i] OP b[i]. Floating point uses total order (f64::total_cmp), as arrow-rs
// compares two float arrays.
template <typename T>
void CompareValues(CmpOp op, int64_t n, const T* a, const T* b, uint8_t* out) {
  if constexpr (std::is_floating_point_v<T>) {
    auto ka = [&](int64_t i) { return TotalOrderKey(a[i]); };
    auto kb = [&](int64_t i) { return TotalOrderKey(b[i]); };
    switch (op) {
      case CmpOp::kEq:
        WriteBits(n, out, [&](int64_t i) { return ka(i) == kb(i); });
        break;
      case CmpOp::kNe:
        WriteBits(n, out, [&](int64_t i) { return ka(i) != kb(i); });
        break;
      case CmpOp::kLt:
        WriteBits(n, out, [&](int64_t i) { return ka(i) < kb(i); });
        break;
      case CmpOp::kLe:
        WriteBits(n, out, [&](int64_t i) { return ka(i) <= kb(i); });
        break;
      case CmpOp::kGt:
        WriteBits(n, out, [&](int64_t i) { return ka(i) > kb(i); });
        break;
      case CmpOp::kGe:
        WriteBits(n, out, [&](int64_t i) { return ka(i) >= kb(i); });
        break;
    }
  } else {
    switch (op) {
      case CmpOp::kEq:
        WriteBits(n, out, [&](int64_t i) { return a[i] == b[i]; });
        break;
      case CmpOp::kNe:
        WriteBits(n, out, [&](int64_t i) { return a[i] != b[i]; });
        break;
      case CmpOp::kLt:
        WriteBits(n, out, [&](int64_t i) { return a[i] < b[i]; });
        break;
      case CmpOp::kLe:
        WriteBits(n, out, [&](int64_t i) { return a[i] <= b[i]; });
        break;
      case CmpOp::kGt:
        WriteBits(n, out, [&](int64_t i) { return a[i] > b[i]; });
        break;
      case CmpOp::kGe:
        WriteBits(n, out, [&](int64_t i) { return a[i] >= b[i]; });
        break;
    }
  }
}

// Both arrays of one physical type (and unit): compares raw values without conversion.
// Returns false when the pair needs widening instead.
bool CompareSameType(const Array& left, CmpOp op, const Array& right, uint8_t* out) {
  const DataType& lt = *left.type();
  const DataType& rt = *right.type();
  if (lt.id() != rt.id() || (lt.id() == TypeId::kTimestamp && lt.unit() != rt.unit())) {
    return false;
  }
  // Raw values order as the values do for these (not float16 bits; the other temporal
  // types are widened).
  const TypeId id = lt.id();
  if (!lt.is_integer() && id != TypeId::kFloat32 && id != TypeId::kFloat64 &&
      id != TypeId::kDate32 && id != TypeId::kTimestamp) {
    return false;
  }
  const int64_t n = left.length();
  return VisitType(lt, [&](auto traits) {
    using T = typename decltype(traits)::CType;
    if constexpr (std::is_void_v<T>) {
      return false;
    } else {
      CompareValues<T>(op, n, RawValues<T>(left), RawValues<T>(right), out);
      return true;
    }
  });
}

// Integers exactly; dates and timestamps as ticks of `per_tick` nanoseconds: dates
// exactly (midnights), timestamps truncated toward zero when their unit is finer (arrow's
// cast).
Result<std::vector<int128>> ToInt128s(const Array& a, int64_t per_tick = 1) {
  const int64_t n = a.length();
  std::vector<int128> out(static_cast<size_t>(n));
  if (n == 0) return out;
  auto fill = [&](auto* v, int128 scale) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int128>(v[i]) * scale;
  };
  if (a.type()->is_integer()) {
    return VisitNumericType(*a.type(), "comparing", [&](auto traits) {
      fill(RawValues<typename decltype(traits)::CType>(a), 1);
      return Result<std::vector<int128>>(std::move(out));
    });
  }
  switch (a.type_id()) {
    case TypeId::kDate32:
      fill(RawValues<int32_t>(a), kNanosPerDay / per_tick);
      break;
    case TypeId::kTimestamp: {
      const int64_t own = NanosPerUnit(a.type()->unit());
      if (own >= per_tick) {
        fill(RawValues<int64_t>(a), own / per_tick);
      } else {
        const int64_t* v = RawValues<int64_t>(a);
        const int64_t divisor = per_tick / own;
        for (int64_t i = 0; i < n; ++i) out[i] = v[i] / divisor;
      }
      break;
    }
    default:
      return Status::Invalid("comparing " + a.type()->ToString() + " as an integer");
  }
  return out;
}

// The unit two temporal columns meet in: DataFusion coerces two timestamps to the coarser
// unit, and a date to the timestamp's unit.
int64_t CommonTemporalTick(const DataType& a, const DataType& b) {
  const bool ta = a.id() == TypeId::kTimestamp, tb = b.id() == TypeId::kTimestamp;
  if (ta && tb) return std::max(NanosPerUnit(a.unit()), NanosPerUnit(b.unit()));
  if (ta) return NanosPerUnit(a.unit());
  if (tb) return NanosPerUnit(b.unit());
  return kNanosPerDay;
}

Result<BufferPtr> AndValidity(const Array& left, const Array& right) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr a, AlignedValidity(left));
  LANCE_ASSIGN_OR_RAISE(BufferPtr b, AlignedValidity(right));
  if (!a) return b;
  if (!b) return a;
  const int64_t n = left.length();
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, AllocateBits(n));
  for (int64_t i = 0; i < bit_util::BytesForBits(n); ++i) {
    out->mutable_data()[i] = a->data()[i] & b->data()[i];
  }
  return out;
}

bool AnyFloating(const DataType& a, const DataType& b) {
  return a.is_floating() || b.is_floating();
}

}  // namespace

Status CheckArraysComparable(const DataType& left, const DataType& right) {
  const bool ok = (left.id() == TypeId::kBool && right.id() == TypeId::kBool) ||
                  (IsNumeric(left) && IsNumeric(right)) ||
                  (IsStringLike(left) && IsStringLike(right)) ||
                  (IsTemporal(left) && IsTemporal(right));
  if (ok) return Status::OK();
  return Status::Invalid("cannot compare a " + left.ToString() + " value with a " +
                         right.ToString() + " value");
}

Result<ArrayPtr> CompareArrays(const Array& left, CmpOp op, const Array& right) {
  LANCE_RETURN_NOT_OK(CheckArraysComparable(*left.type(), *right.type()));
  if (left.length() != right.length()) {
    return Status::Invalid("comparing arrays of different lengths");
  }
  const int64_t n = left.length();
  LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBits(n));
  uint8_t* out = bits->mutable_data();
  const DataType& lt = *left.type();
  const DataType& rt = *right.type();
  if (n == 0) {
    // Nothing to compare.
  } else if (lt.id() == TypeId::kBool) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr a,
                          AlignBits(left.data()->buffers[1], left.offset(), n));
    LANCE_ASSIGN_OR_RAISE(BufferPtr b,
                          AlignBits(right.data()->buffers[1], right.offset(), n));
    const uint8_t* x = a->data();
    const uint8_t* y = b->data();
    for (int64_t i = 0; i < bit_util::BytesForBits(n); ++i) {
      uint8_t r = 0;
      switch (op) {
        case CmpOp::kEq:
          r = ~(x[i] ^ y[i]);
          break;
        case CmpOp::kNe:
          r = x[i] ^ y[i];
          break;
        case CmpOp::kLt:
          r = ~x[i] & y[i];
          break;
        case CmpOp::kLe:
          r = ~x[i] | y[i];
          break;
        case CmpOp::kGt:
          r = x[i] & ~y[i];
          break;
        case CmpOp::kGe:
          r = x[i] | ~y[i];
          break;
      }
      out[i] = r;
    }
  } else if ((IsNumeric(lt) || IsTemporal(lt)) && CompareSameType(left, op, right, out)) {
    // Done without conversion.
  } else if (IsNumeric(lt) && AnyFloating(lt, rt)) {
    // DataFusion compares in the widest float type involved, integers cast to it: an
    // int64 meets a float32 as float32 (16777217 = 16777216.0f), a float16 as float16.
    auto rank = [](const DataType& t) {
      return t.id() == TypeId::kFloat64   ? 3
             : t.id() == TypeId::kFloat32 ? 2
             : t.id() == TypeId::kFloat16 ? 1
                                          : 0;
    };
    const int common = std::max(rank(lt), rank(rt));
    const DataTypePtr type = common == 3   ? float64()
                             : common == 2 ? float32()
                                           : float16();
    LANCE_ASSIGN_OR_RAISE(ArrayPtr a, CastNumeric(left, type));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr b, CastNumeric(right, type));
    if (common == 1) {
      // float16 orders as its exact float32 widening.
      LANCE_ASSIGN_OR_RAISE(a, CastNumeric(*a, float32()));
      LANCE_ASSIGN_OR_RAISE(b, CastNumeric(*b, float32()));
    }
    CompareSameType(*a, op, *b, out);
  } else if (IsNumeric(lt) || IsTemporal(lt)) {
    const int64_t per_tick = IsTemporal(lt) ? CommonTemporalTick(lt, rt) : 1;
    LANCE_ASSIGN_OR_RAISE(auto a, ToInt128s(left, per_tick));
    LANCE_ASSIGN_OR_RAISE(auto b, ToInt128s(right, per_tick));
    CompareValues<int128>(op, n, a.data(), b.data(), out);
  } else {
    LANCE_ASSIGN_OR_RAISE(ViewReader a, ViewReader::Make(left));
    LANCE_ASSIGN_OR_RAISE(ViewReader b, ViewReader::Make(right));
    WriteBits(n, out, [&](int64_t i) { return ApplyThreeWay(op, a(i).compare(b(i))); });
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, AndValidity(left, right));
  return MakeBooleanArray(n, std::move(bits), std::move(validity));
}

namespace {

// Nanoseconds since the epoch of a temporal literal (strings parsed as timestamps).
std::optional<int128> LiteralInstant(const Literal& lit) {
  switch (lit.kind) {
    case Literal::Kind::kDate:
      return static_cast<int128>(lit.days) * kNanosPerDay;
    case Literal::Kind::kTimestamp:
      return lit.nanos;
    case Literal::Kind::kString:
      if (auto ts = ParseTimestamp(lit.string_value)) return ts->nanos;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

bool IsTemporalLiteral(const Literal& lit) {
  return lit.kind == Literal::Kind::kDate || lit.kind == Literal::Kind::kTimestamp;
}

}  // namespace

Result<Literal> CompareLiterals(const Literal& left, CmpOp op, const Literal& right) {
  using Kind = Literal::Kind;
  if (left.is_null() || right.is_null()) return Literal::Null();
  auto incompatible = [&] {
    return Status::Invalid(
        "cannot compare " + std::string(left.KindName()) + " literal " + left.ToString() +
        " with " + std::string(right.KindName()) + " literal " + right.ToString());
  };
  if (left.kind == Kind::kBool && right.kind == Kind::kBool) {
    return Literal::Bool(ApplyThreeWay(op, ThreeWay(left.bool_value, right.bool_value)));
  }
  if (left.is_numeric() && right.is_numeric()) {
    if (left.kind == Kind::kFloat && right.kind == Kind::kFloat) {
      const double a = left.float_value, b = right.float_value;
      return Literal::Bool(ApplyThreeWay(op, a < b ? -1 : (a > b ? 1 : 0)));
    }
    if (left.kind == Kind::kInt && right.kind == Kind::kInt) {
      return Literal::Bool(ApplyThreeWay(op, ThreeWay(left.int_value, right.int_value)));
    }
    // Mixed: view the float from the integer's axis, exactly.
    const bool int_left = left.kind == Kind::kInt;
    const int128 v = int_left ? left.int_value : right.int_value;
    const CmpOp int_op = int_left ? op : SwapSides(op);
    const IntPlan plan =
        PlanIntCompare(int_op, TargetFromNumber(int_left ? right : left), v, v);
    switch (plan.mode) {
      case IntPlan::Mode::kAllTrue:
        return Literal::Bool(true);
      case IntPlan::Mode::kAllFalse:
        return Literal::Bool(false);
      case IntPlan::Mode::kCompare:
        break;
    }
    return Literal::Bool(ApplyThreeWay(plan.op, ThreeWay(v, plan.k)));
  }
  if (left.kind == Kind::kString && right.kind == Kind::kString) {
    return Literal::Bool(ApplyThreeWay(
        op, std::string_view(left.string_value).compare(right.string_value)));
  }
  if (IsTemporalLiteral(left) || IsTemporalLiteral(right)) {
    auto a = LiteralInstant(left);
    auto b = LiteralInstant(right);
    if (!a || !b) return incompatible();
    return Literal::Bool(ApplyThreeWay(op, ThreeWay(*a, *b)));
  }
  return incompatible();
}

}  // namespace lance::table::predicate_internal
