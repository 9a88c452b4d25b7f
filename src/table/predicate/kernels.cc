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
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "lance/macros.h"
#include "table/predicate/internal.h"

namespace lance::table::predicate_internal {

namespace {

constexpr int64_t kNanosPerDay = 86'400'000'000'000;

int ThreeWay(int128 a, int128 b) { return a < b ? -1 : (a > b ? 1 : 0); }

bool ApplyThreeWay(CmpOp op, int c) {
  switch (op) {
    case CmpOp::kEq:
      return c == 0;
    case CmpOp::kNe:
      return c != 0;
    case CmpOp::kLt:
      return c < 0;
    case CmpOp::kLe:
      return c <= 0;
    case CmpOp::kGt:
      return c > 0;
    case CmpOp::kGe:
      return c >= 0;
  }
  return false;
}

std::string Int128ToString(int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  unsigned __int128 u =
      negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  while (u > 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

int128 FloorDiv(int128 num, int128 den) {  // den > 0
  int128 q = num / den;
  if ((num % den != 0) && num < 0) --q;
  return q;
}

int128 CeilDiv(int128 num, int128 den) {  // den > 0
  int128 q = num / den;
  if ((num % den != 0) && num > 0) ++q;
  return q;
}

}  // namespace

// ---- float16
// ----------------------------------------------------------------------------

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t mant = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else {
    // Zero or subnormal: mant * 2^-24 is exact in float.
    const float magnitude = static_cast<float>(mant) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(bits);
}

// Round-to-nearest-even conversion of a double to the nearest float16, returned widened
// to float: the value a float16 column would hold.
float RoundToHalf(double d) {
  // A NaN keeps its sign: Lance orders NaNs by it.
  if (std::isnan(d)) return static_cast<float>(d);
  const bool negative = std::signbit(d);
  const double a = std::fabs(d);
  double r;
  if (a >= 65520.0) {  // halfway between 65504 (max half) and 65536 rounds to infinity
    r = std::numeric_limits<double>::infinity();
  } else if (a < 0x1p-14) {
    // Subnormal range: multiples of 2^-24.
    r = std::nearbyint(a * 0x1p24) * 0x1p-24;
  } else {
    int e;
    std::frexp(a, &e);                           // a = f * 2^e, f in [0.5, 1)
    const double ulp = std::ldexp(1.0, e - 11);  // 10 mantissa bits below the leading one
    r = std::nearbyint(a / ulp) * ulp;
  }
  return static_cast<float>(negative ? -r : r);
}

// Round-to-nearest conversion to float that is defined for every finite double (a plain
// cast of an out-of-range value is undefined behaviour).
float RoundToFloat(double d) {
  constexpr double kMax = std::numeric_limits<float>::max();
  constexpr double kOverflow =
      0x1.ffffffp+127;  // FLT_MAX + half an ulp: ties to even -> inf
  // The conversion of a NaN is defined and keeps its sign (Lance orders NaNs by it).
  if (std::isnan(d)) return static_cast<float>(d);
  if (d >= kOverflow) return std::numeric_limits<float>::infinity();
  if (d <= -kOverflow) return -std::numeric_limits<float>::infinity();
  if (d > kMax) return std::numeric_limits<float>::max();
  if (d < -kMax) return -std::numeric_limits<float>::max();
  return static_cast<float>(d);
}

uint16_t HalfBits(double d) {
  const float r = RoundToHalf(d);
  const uint16_t sign = std::signbit(r) ? 0x8000u : 0;
  const float a = std::fabs(r);
  if (std::isnan(r)) return static_cast<uint16_t>(sign | 0x7E00u);
  if (std::isinf(r)) return static_cast<uint16_t>(sign | 0x7C00u);
  if (a < 0x1p-14f) {
    // Zero or subnormal: a multiple of 2^-24, exactly.
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(a * 0x1p24f));
  }
  int e;
  const float m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1), exact in 11 bits
  const auto mantissa = static_cast<uint16_t>((m * 2.0f - 1.0f) * 1024.0f);
  return static_cast<uint16_t>(sign | ((e - 1 + 15) << 10) | mantissa);
}

namespace {

double LiteralToDouble(const Literal& lit) {
  return lit.kind == Literal::Kind::kInt ? static_cast<double>(lit.int_value)
                                         : lit.float_value;
}

// ---- bit writing
// ------------------------------------------------------------------------

// out bit i = pred(i) for i in [0, n). Packing eight results per byte in an inner loop of
// constant trip count lets the compiler unroll (and often vectorise) the comparisons.
template <typename Pred>
inline void WriteBits(int64_t n, uint8_t* out, Pred&& pred) {
  const int64_t full = n / 8;
  for (int64_t b = 0; b < full; ++b) {
    const int64_t base = b * 8;
    uint8_t byte = 0;
    for (int j = 0; j < 8; ++j) {
      byte |= static_cast<uint8_t>(static_cast<uint8_t>(pred(base + j)) << j);
    }
    out[b] = byte;
  }
  if (const int64_t rest = n - full * 8; rest > 0) {
    uint8_t byte = 0;
    for (int j = 0; j < rest; ++j) {
      byte |= static_cast<uint8_t>(static_cast<uint8_t>(pred(full * 8 + j)) << j);
    }
    out[full] = byte;
  }
}

Result<BufferPtr> AllocateBits(int64_t n) {
  return Buffer::Allocate(bit_util::BytesForBits(n));
}

Result<BufferPtr> FilledBits(int64_t n, bool value) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, AllocateBits(n));
  if (value) std::memset(out->mutable_data(), 0xFF, static_cast<size_t>(out->size()));
  return out;
}

// Wraps computed value bits with the column's validity.
Result<ArrayPtr> WithValidityOf(const Array& values, BufferPtr bits) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, AlignedValidity(values));
  return MakeBooleanArray(values.length(), std::move(bits), std::move(validity));
}

template <typename T>
const T* RawValues(const Array& values) {
  const auto& buffers = values.data()->buffers;
  if (buffers.size() < 2 || !buffers[1]) return nullptr;
  return buffers[1]->data_as<T>() + values.offset();
}

// Dispatches the six operators to a loop over `get(i) OP literal` for totally ordered
// values (integers after normalisation, strings).
template <typename Get, typename V>
void CompareLoop(CmpOp op, int64_t n, uint8_t* out, Get&& get, const V& lit) {
  switch (op) {
    case CmpOp::kEq:
      WriteBits(n, out, [&](int64_t i) { return get(i) == lit; });
      break;
    case CmpOp::kNe:
      WriteBits(n, out, [&](int64_t i) { return get(i) != lit; });
      break;
    case CmpOp::kLt:
      WriteBits(n, out, [&](int64_t i) { return get(i) < lit; });
      break;
    case CmpOp::kLe:
      WriteBits(n, out, [&](int64_t i) { return get(i) <= lit; });
      break;
    case CmpOp::kGt:
      WriteBits(n, out, [&](int64_t i) { return get(i) > lit; });
      break;
    case CmpOp::kGe:
      WriteBits(n, out, [&](int64_t i) { return get(i) >= lit; });
      break;
  }
}

// Same for floating point against a non-NaN literal: IEEE order for numbers, and a NaN
// sorts by its sign bit, +NaN above every number and -NaN below (what Lance answers).
template <typename Get, typename V>
void FloatCompareLoop(CmpOp op, int64_t n, uint8_t* out, Get&& get, V lit) {
  // Bitwise & and | keep these loops branch-free (a mispredicted branch per row was most
  // of a filtered count's time on random data).
  auto pos_nan = [](V v) { return (v != v) & !std::signbit(v); };
  auto neg_nan = [](V v) { return (v != v) & std::signbit(v); };
  switch (op) {
    case CmpOp::kEq:
      WriteBits(n, out, [&](int64_t i) { return get(i) == lit; });
      break;
    case CmpOp::kNe:
      WriteBits(n, out, [&](int64_t i) { return !(get(i) == lit); });
      break;
    case CmpOp::kLt:
      WriteBits(n, out, [&](int64_t i) {
        const V v = get(i);
        return (v < lit) | neg_nan(v);
      });
      break;
    case CmpOp::kLe:
      WriteBits(n, out, [&](int64_t i) {
        const V v = get(i);
        return (v <= lit) | neg_nan(v);
      });
      break;
    case CmpOp::kGt:
      WriteBits(n, out, [&](int64_t i) {
        const V v = get(i);
        return (v > lit) | pos_nan(v);
      });
      break;
    case CmpOp::kGe:
      WriteBits(n, out, [&](int64_t i) {
        const V v = get(i);
        return (v >= lit) | pos_nan(v);
      });
      break;
  }
}

// The integer whose signed order is f64::total_cmp's order: negative values (sign bit
// set) have their magnitude bits flipped so that they sort descending.
inline int64_t TotalOrderKey(double v) {
  const auto bits = std::bit_cast<int64_t>(v);
  return bits ^ static_cast<int64_t>(static_cast<uint64_t>(bits >> 63) >> 1);
}
inline int32_t TotalOrderKey(float v) {
  const auto bits = std::bit_cast<int32_t>(v);
  return bits ^ static_cast<int32_t>(static_cast<uint32_t>(bits >> 31) >> 1);
}

// ---- integer normalisation
// --------------------------------------------------------------

// A literal seen from an integer column: the integers just below and above it (equal when
// the literal is itself an integer of the column's unit).
struct IntTarget {
  int128 floor;
  int128 ceil;
  bool exact() const { return floor == ceil; }
};

IntTarget TargetFromRational(int128 num, int128 den) {
  return {FloorDiv(num, den), CeilDiv(num, den)};
}

IntTarget TargetFromNumber(const Literal& lit) {
  if (lit.kind == Literal::Kind::kInt) return {lit.int_value, lit.int_value};
  const double d = lit.float_value;
  // Beyond 2^100 every column range is exceeded; clamping keeps the int128 cast defined.
  constexpr double kLimit = 0x1p100;
  if (std::isnan(d)) {
    // Above every number when positive, below when negative (total order).
    const int128 side =
        std::signbit(d) ? -static_cast<int128>(kLimit) : static_cast<int128>(kLimit);
    return {side, side};
  }
  if (d >= kLimit) return {static_cast<int128>(kLimit), static_cast<int128>(kLimit)};
  if (d <= -kLimit) return {-static_cast<int128>(kLimit), -static_cast<int128>(kLimit)};
  return {static_cast<int128>(std::floor(d)), static_cast<int128>(std::ceil(d))};
}

struct IntPlan {
  enum class Mode : uint8_t { kAllTrue, kAllFalse, kCompare } mode;
  CmpOp op = CmpOp::kEq;
  int128 k = 0;
};

// Rewrites `x OP literal` for integer x in [lo, hi] into `x OP' k` with k in [lo, hi], or
// a constant. For a non-integer literal r: x > r <=> x > floor(r), x < r <=> x < ceil(r).
IntPlan PlanIntCompare(CmpOp op, const IntTarget& t, int128 lo, int128 hi) {
  using Mode = IntPlan::Mode;
  auto compare = [&](CmpOp o, int128 k) { return IntPlan{Mode::kCompare, o, k}; };
  switch (op) {
    case CmpOp::kEq:
      if (!t.exact() || t.floor < lo || t.floor > hi) return {Mode::kAllFalse};
      return compare(CmpOp::kEq, t.floor);
    case CmpOp::kNe:
      if (!t.exact() || t.floor < lo || t.floor > hi) return {Mode::kAllTrue};
      return compare(CmpOp::kNe, t.floor);
    case CmpOp::kGt:
      if (t.floor < lo) return {Mode::kAllTrue};
      if (t.floor >= hi) return {Mode::kAllFalse};
      return compare(CmpOp::kGt, t.floor);
    case CmpOp::kGe:
      if (t.ceil <= lo) return {Mode::kAllTrue};
      if (t.ceil > hi) return {Mode::kAllFalse};
      return compare(CmpOp::kGe, t.ceil);
    case CmpOp::kLt:
      if (t.ceil > hi) return {Mode::kAllTrue};
      if (t.ceil <= lo) return {Mode::kAllFalse};
      return compare(CmpOp::kLt, t.ceil);
    case CmpOp::kLe:
      if (t.floor >= hi) return {Mode::kAllTrue};
      if (t.floor < lo) return {Mode::kAllFalse};
      return compare(CmpOp::kLe, t.floor);
  }
  return {Mode::kAllFalse};
}

template <typename T>
constexpr int128 MinOf() {
  return static_cast<int128>(std::numeric_limits<T>::min());
}
template <typename T>
constexpr int128 MaxOf() {
  return static_cast<int128>(std::numeric_limits<T>::max());
}

std::string DescribeColumnType(const DataType& type) { return type.ToString(); }

Status IncompatibleLiteral(const DataType& type, const Literal& lit,
                           std::string_view why = {}) {
  std::string msg = "cannot compare a " + DescribeColumnType(type) + " value with " +
                    std::string(lit.KindName()) + " literal " + lit.ToString();
  if (!why.empty()) msg += " (" + std::string(why) + ")";
  return Status::Invalid(std::move(msg));
}

// The literal as a target on the integer axis of an integer, date32 or timestamp column;
// nullopt when a timestamp literal does not fit the column's unit (before 1677-09-21 or
// after 2262-04-11 for nanoseconds): Lance's cast of the literal overflows to NULL, so
// every comparison with it is NULL.
Result<std::optional<IntTarget>> IntegerAxisTarget(const DataType& type,
                                                   const Literal& lit) {
  switch (type.id()) {
    case TypeId::kDate32: {
      switch (lit.kind) {
        case Literal::Kind::kDate:
          return IntTarget{lit.days, lit.days};
        case Literal::Kind::kTimestamp:
          return TargetFromRational(lit.nanos, kNanosPerDay);
        case Literal::Kind::kString: {
          if (auto days = ParseDate(lit.string_value)) return IntTarget{*days, *days};
          if (auto ts = ParseTimestamp(lit.string_value)) {
            return TargetFromRational(ts->nanos, kNanosPerDay);
          }
          return IncompatibleLiteral(type, lit, "not a date");
        }
        default:
          return IncompatibleLiteral(type, lit);
      }
    }
    case TypeId::kTimestamp: {
      const int64_t per_tick = NanosPerUnit(type.unit());
      // A literal without a zone is wall-clock time in the column's zone. Lance then
      // casts the instant to the column's unit like arrow does: integer division,
      // truncating toward zero (`ts_seconds = TIMESTAMP '... 05.5'` matches second 5).
      auto cast = [&](int128 nanos, bool has_zone) -> Result<std::optional<IntTarget>> {
        if (!has_zone) {
          const auto offset = FixedZoneOffsetSeconds(type.timezone());
          if (!offset) return CheckNaiveTimestampLiteral(type, lit, {});
          nanos -= static_cast<int128>(*offset) * 1'000'000'000;
        }
        const int128 ticks = nanos / per_tick;
        if (ticks < MinOf<int64_t>() || ticks > MaxOf<int64_t>()) return std::nullopt;
        return IntTarget{ticks, ticks};
      };
      switch (lit.kind) {
        case Literal::Kind::kTimestamp:
          return cast(lit.nanos, lit.has_zone);
        case Literal::Kind::kDate:
          return TargetFromRational(static_cast<int128>(lit.days) * kNanosPerDay,
                                    per_tick);
        case Literal::Kind::kString: {
          if (auto ts = ParseTimestamp(lit.string_value)) {
            return cast(ts->nanos, ts->has_zone);
          }
          return IncompatibleLiteral(type, lit, "not a timestamp");
        }
        default:
          return IncompatibleLiteral(type, lit);
      }
    }
    default:
      if (!lit.is_numeric()) return IncompatibleLiteral(type, lit);
      return TargetFromNumber(lit);
  }
}

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

template <typename T>
class IntKernel : public ScalarCompareKernel {
 public:
  IntKernel(CmpOp op, T k) : op_(op), k_(k) {}
  Result<ArrayPtr> Apply(const Array& values) const override {
    const int64_t n = values.length();
    LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBits(n));
    if (n > 0) {
      const T* v = RawValues<T>(values);
      if (v == nullptr) return Status::Invalid("comparing an array without values");
      CompareLoop(
          op_, n, bits->mutable_data(), [v](int64_t i) { return v[i]; }, k_);
    }
    return WithValidityOf(values, std::move(bits));
  }

 private:
  CmpOp op_;
  T k_;
};

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

template <typename T>
class FloatKernel : public ScalarCompareKernel {
 public:
  FloatKernel(CmpOp op, T lit) : op_(op), lit_(lit) {}
  Result<ArrayPtr> Apply(const Array& values) const override {
    const int64_t n = values.length();
    LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBits(n));
    if (n > 0) {
      const T* v = RawValues<T>(values);
      if (v == nullptr) return Status::Invalid("comparing an array without values");
      if (std::isnan(lit_)) {
        // A NaN literal (only constant arithmetic makes one, 0.0 / 0.0) compares in
        // total order, as arrow's kernels do: a NaN equals only the same NaN.
        CompareLoop(
            op_, n, bits->mutable_data(), [v](int64_t i) { return TotalOrderKey(v[i]); },
            TotalOrderKey(lit_));
      } else {
        FloatCompareLoop(
            op_, n, bits->mutable_data(), [v](int64_t i) { return v[i]; }, lit_);
      }
    }
    return WithValidityOf(values, std::move(bits));
  }

 private:
  CmpOp op_;
  T lit_;
};

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

class HalfKernel : public ScalarCompareKernel {
 public:
  HalfKernel(CmpOp op, float lit) : op_(op), lit_(lit) {}
  Result<ArrayPtr> Apply(const Array& values) const override {
    const int64_t n = values.length();
    LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBits(n));
    if (n > 0) {
      const uint16_t* v = RawValues<uint16_t>(values);
      if (v == nullptr) return Status::Invalid("comparing an array without values");
      if (std::isnan(lit_)) {
        CompareLoop(
            op_, n, bits->mutable_data(),
            [v](int64_t i) { return TotalOrderKey(HalfToFloat(v[i])); },
            TotalOrderKey(lit_));
      } else {
        FloatCompareLoop(
            op_, n, bits->mutable_data(), [v](int64_t i) { return HalfToFloat(v[i]); },
            lit_);
      }
    }
    return WithValidityOf(values, std::move(bits));
  }

 private:
  CmpOp op_;
  float lit_;
};

// Reads slot i of any string-like array (utf8, binary, their large variants and
// fixed_size_binary) as bytes. The branch on the layout is loop-invariant.
class ViewReader {
 public:
  static Result<ViewReader> Make(const Array& values) {
    ViewReader r;
    const ArrayData& data = *values.data();
    const int64_t n = values.length();
    auto buffer = [&](size_t i) -> const uint8_t* {
      return data.buffers.size() > i && data.buffers[i] ? data.buffers[i]->data()
                                                        : nullptr;
    };
    static const uint8_t kEmpty = 0;
    switch (values.type_id()) {
      case TypeId::kUtf8:
      case TypeId::kBinary:
        r.offsets32_ = reinterpret_cast<const int32_t*>(buffer(1));
        if (r.offsets32_) r.offsets32_ += data.offset;
        break;
      case TypeId::kLargeUtf8:
      case TypeId::kLargeBinary:
        r.offsets64_ = reinterpret_cast<const int64_t*>(buffer(1));
        if (r.offsets64_) r.offsets64_ += data.offset;
        break;
      case TypeId::kFixedSizeBinary:
        r.width_ = values.type()->fixed_size();
        r.data_ = buffer(1);
        if (r.data_ != nullptr) {
          r.data_ += data.offset * r.width_;
        } else if (n == 0 || r.width_ == 0) {
          r.data_ = &kEmpty;
        } else {
          return Status::Invalid("comparing an array without values");
        }
        return r;
      default:
        return Status::Invalid("comparing " + values.type()->ToString() + " as bytes");
    }
    if (n > 0 && !r.offsets32_ && !r.offsets64_) {
      return Status::Invalid("comparing a string array without offsets");
    }
    r.data_ = buffer(2);
    if (r.data_ == nullptr) r.data_ = &kEmpty;  // all values empty
    return r;
  }

  std::string_view operator()(int64_t i) const {
    const char* base = reinterpret_cast<const char*>(data_);
    if (offsets32_) {
      return {base + offsets32_[i],
              static_cast<size_t>(offsets32_[i + 1] - offsets32_[i])};
    }
    if (offsets64_) {
      return {base + offsets64_[i],
              static_cast<size_t>(offsets64_[i + 1] - offsets64_[i])};
    }
    return {base + i * width_, static_cast<size_t>(width_)};
  }

 private:
  const int32_t* offsets32_ = nullptr;
  const int64_t* offsets64_ = nullptr;
  const uint8_t* data_ = nullptr;
  int64_t width_ = 0;
};

template <typename OffsetT>
class StringKernel : public ScalarCompareKernel {
 public:
  StringKernel(CmpOp op, std::string lit) : op_(op), lit_(std::move(lit)) {}
  Result<ArrayPtr> Apply(const Array& values) const override {
    const int64_t n = values.length();
    LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBits(n));
    if (n > 0) {
      const OffsetT* offsets = RawValues<OffsetT>(values);
      if (offsets == nullptr)
        return Status::Invalid("comparing a string array without offsets");
      const auto& buffers = values.data()->buffers;
      const char* data = buffers.size() > 2 && buffers[2]
                             ? reinterpret_cast<const char*>(buffers[2]->data())
                             : "";
      auto get = [offsets, data](int64_t i) {
        return std::string_view(data + offsets[i],
                                static_cast<size_t>(offsets[i + 1] - offsets[i]));
      };
      // string_view ordering is std::char_traits<char>::compare: bytewise, unsigned.
      CompareLoop(op_, n, bits->mutable_data(), get, std::string_view(lit_));
    }
    return WithValidityOf(values, std::move(bits));
  }

 private:
  CmpOp op_;
  std::string lit_;
};

class FixedSizeBinaryKernel : public ScalarCompareKernel {
 public:
  FixedSizeBinaryKernel(CmpOp op, std::string lit) : op_(op), lit_(std::move(lit)) {}
  Result<ArrayPtr> Apply(const Array& values) const override {
    const int64_t n = values.length();
    LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBits(n));
    if (n > 0) {
      LANCE_ASSIGN_OR_RAISE(ViewReader get, ViewReader::Make(values));
      CompareLoop(op_, n, bits->mutable_data(), get, std::string_view(lit_));
    }
    return WithValidityOf(values, std::move(bits));
  }

 private:
  CmpOp op_;
  std::string lit_;
};

// bool columns: each operator against a constant is the value bits, their complement, or
// a constant (false < true).
class BoolKernel : public ScalarCompareKernel {
 public:
  enum class Form : uint8_t { kSame, kFlip, kTrue, kFalse };
  explicit BoolKernel(Form form) : form_(form) {}

  static Form FormFor(CmpOp op, bool lit) {
    switch (op) {
      case CmpOp::kEq:
        return lit ? Form::kSame : Form::kFlip;
      case CmpOp::kNe:
        return lit ? Form::kFlip : Form::kSame;
      case CmpOp::kLt:
        return lit ? Form::kFlip : Form::kFalse;
      case CmpOp::kLe:
        return lit ? Form::kTrue : Form::kFlip;
      case CmpOp::kGt:
        return lit ? Form::kFalse : Form::kSame;
      case CmpOp::kGe:
        return lit ? Form::kSame : Form::kTrue;
    }
    return Form::kFalse;
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

bool IsStringLike(const DataType& type) {
  return type.is_binary_like() || type.id() == TypeId::kFixedSizeBinary;
}

bool IsTemporal(const DataType& type) {
  return type.id() == TypeId::kDate32 || type.id() == TypeId::kTimestamp;
}

bool IsNumeric(const DataType& type) { return type.is_integer() || type.is_floating(); }

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
  const int64_t n = left.length();
  auto run = [&](auto tag) {
    using T = decltype(tag);
    CompareValues<T>(op, n, RawValues<T>(left), RawValues<T>(right), out);
    return true;
  };
  switch (lt.id()) {
    case TypeId::kInt8:
      return run(int8_t{});
    case TypeId::kInt16:
      return run(int16_t{});
    case TypeId::kInt32:
    case TypeId::kDate32:
      return run(int32_t{});
    case TypeId::kInt64:
    case TypeId::kTimestamp:
      return run(int64_t{});
    case TypeId::kUInt8:
      return run(uint8_t{});
    case TypeId::kUInt16:
      return run(uint16_t{});
    case TypeId::kUInt32:
      return run(uint32_t{});
    case TypeId::kUInt64:
      return run(uint64_t{});
    case TypeId::kFloat32:
      return run(float{});
    case TypeId::kFloat64:
      return run(double{});
    default:
      return false;
  }
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
  switch (a.type_id()) {
    case TypeId::kInt8:
      fill(RawValues<int8_t>(a), 1);
      break;
    case TypeId::kInt16:
      fill(RawValues<int16_t>(a), 1);
      break;
    case TypeId::kInt32:
      fill(RawValues<int32_t>(a), 1);
      break;
    case TypeId::kInt64:
      fill(RawValues<int64_t>(a), 1);
      break;
    case TypeId::kUInt8:
      fill(RawValues<uint8_t>(a), 1);
      break;
    case TypeId::kUInt16:
      fill(RawValues<uint16_t>(a), 1);
      break;
    case TypeId::kUInt32:
      fill(RawValues<uint32_t>(a), 1);
      break;
    case TypeId::kUInt64:
      fill(RawValues<uint64_t>(a), 1);
      break;
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

// ---- public helpers
// ----------------------------------------------------------------------

std::string_view CmpOpSymbol(CmpOp op) {
  switch (op) {
    case CmpOp::kEq:
      return "=";
    case CmpOp::kNe:
      return "!=";
    case CmpOp::kLt:
      return "<";
    case CmpOp::kLe:
      return "<=";
    case CmpOp::kGt:
      return ">";
    case CmpOp::kGe:
      return ">=";
  }
  return "?";
}

CmpOp SwapSides(CmpOp op) {
  switch (op) {
    case CmpOp::kLt:
      return CmpOp::kGt;
    case CmpOp::kLe:
      return CmpOp::kGe;
    case CmpOp::kGt:
      return CmpOp::kLt;
    case CmpOp::kGe:
      return CmpOp::kLe;
    default:
      return op;
  }
}

Literal Literal::Bool(bool v) {
  Literal l;
  l.kind = Kind::kBool;
  l.bool_value = v;
  return l;
}
Literal Literal::Int(int128 v) {
  Literal l;
  l.kind = Kind::kInt;
  l.int_value = v;
  return l;
}
Literal Literal::Float(double v) {
  Literal l;
  l.kind = Kind::kFloat;
  l.float_value = v;
  return l;
}
Literal Literal::String(std::string v) {
  Literal l;
  l.kind = Kind::kString;
  l.string_value = std::move(v);
  return l;
}
Literal Literal::Date(int32_t days) {
  Literal l;
  l.kind = Kind::kDate;
  l.days = days;
  return l;
}
Literal Literal::Timestamp(int128 nanos, bool has_zone) {
  Literal l;
  l.kind = Kind::kTimestamp;
  l.nanos = nanos;
  l.has_zone = has_zone;
  return l;
}

std::string_view Literal::KindName() const {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return "boolean";
    case Kind::kInt:
      return "integer";
    case Kind::kFloat:
      return "float";
    case Kind::kString:
      return "string";
    case Kind::kDate:
      return "date";
    case Kind::kTimestamp:
      return "timestamp";
  }
  return "?";
}

std::string Literal::ToString() const {
  switch (kind) {
    case Kind::kNull:
      return "NULL";
    case Kind::kBool:
      return bool_value ? "TRUE" : "FALSE";
    case Kind::kInt:
      return Int128ToString(int_value);
    case Kind::kFloat: {
      char buf[64];
      auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), float_value);
      std::string s(buf, ec == std::errc() ? end : buf);
      // Keep it a float literal when read back.
      if (s.find_first_of(".eE") == std::string::npos) s += ".0";
      return s;
    }
    case Kind::kString: {
      std::string out = "'";
      for (char c : string_value) {
        if (c == '\'') out += '\'';
        out += c;
      }
      return out + "'";
    }
    case Kind::kDate:
      return "DATE '" + FormatDate(days) + "'";
    case Kind::kTimestamp:
      // An instant keeps a zone so that it reads back the same on zoned columns.
      return "TIMESTAMP '" + FormatTimestamp(nanos) + (has_zone ? "Z'" : "'");
  }
  return "?";
}

// ---- dates and timestamps
// ----------------------------------------------------------------

// Days since 1970-01-01 of a proleptic Gregorian date. Works on 400-year eras (146097
// days each) counted from 0000-03-01 so that the leap day is the last day of a year.
int64_t DaysFromCivil(int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;                       // [0, 399]
  const int64_t month_index = (month + 9) % 12;                       // March = 0
  const int64_t day_of_year = (153 * month_index + 2) / 5 + day - 1;  // [0, 365]
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 +
                             day_of_year;  // [0, 146096]
  return era * 146097 + day_of_era -
         719468;  // 719468: days from 0000-03-01 to 1970-01-01
}

namespace {

struct Civil {
  int64_t year;
  int month;
  int day;
};

Civil CivilFromDays(int64_t days) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t day_of_era = days - era * 146097;
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t month_index = (5 * day_of_year + 2) / 153;
  const int day = static_cast<int>(day_of_year - (153 * month_index + 2) / 5 + 1);
  const int month =
      static_cast<int>(month_index < 10 ? month_index + 3 : month_index - 9);
  return {year_of_era + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeap(year) ? 29 : kDays[month - 1];
}

// Reads between min and max digits at text[*pos]; advances pos.
bool ReadDigits(std::string_view text, size_t* pos, int min, int max, int64_t* out) {
  int64_t value = 0;
  int count = 0;
  while (*pos < text.size() && count < max && text[*pos] >= '0' && text[*pos] <= '9') {
    value = value * 10 + (text[*pos] - '0');
    ++*pos;
    ++count;
  }
  *out = value;
  return count >= min;
}

bool Expect(std::string_view text, size_t* pos, char c) {
  if (*pos < text.size() && text[*pos] == c) {
    ++*pos;
    return true;
  }
  return false;
}

// Parses the date part; leaves pos after it.
bool ParseDatePart(std::string_view text, size_t* pos, int64_t* days) {
  int64_t year, month, day;
  if (!ReadDigits(text, pos, 4, 4, &year) || !Expect(text, pos, '-') ||
      !ReadDigits(text, pos, 1, 2, &month) || !Expect(text, pos, '-') ||
      !ReadDigits(text, pos, 1, 2, &day)) {
    return false;
  }
  if (month < 1 || month > 12 || day < 1 ||
      day > DaysInMonth(year, static_cast<int>(month))) {
    return false;
  }
  *days = DaysFromCivil(year, static_cast<int>(month), static_cast<int>(day));
  return true;
}

std::string Pad(int64_t v, int width) {
  std::string s = std::to_string(v);
  if (static_cast<int>(s.size()) < width) s.insert(0, width - s.size(), '0');
  return s;
}

}  // namespace

std::optional<int32_t> ParseDate(std::string_view text) {
  size_t pos = 0;
  int64_t days;
  if (!ParseDatePart(text, &pos, &days) || pos != text.size()) return std::nullopt;
  return static_cast<int32_t>(days);
}

std::optional<ParsedTimestamp> ParseTimestamp(std::string_view text) {
  size_t pos = 0;
  int64_t days;
  if (!ParseDatePart(text, &pos, &days)) return std::nullopt;
  int128 nanos = static_cast<int128>(days) * kNanosPerDay;
  bool has_zone = false;
  if (pos < text.size() && (text[pos] == 'T' || text[pos] == 't' || text[pos] == ' ')) {
    ++pos;
    int64_t hour, minute, second = 0;
    if (!ReadDigits(text, &pos, 2, 2, &hour) || !Expect(text, &pos, ':') ||
        !ReadDigits(text, &pos, 2, 2, &minute)) {
      return std::nullopt;
    }
    int64_t fraction = 0;
    if (Expect(text, &pos, ':')) {
      if (!ReadDigits(text, &pos, 2, 2, &second)) return std::nullopt;
      if (Expect(text, &pos, '.')) {
        const size_t start = pos;
        if (!ReadDigits(text, &pos, 1, 9, &fraction)) return std::nullopt;
        for (size_t d = pos - start; d < 9; ++d) fraction *= 10;
      }
    }
    if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
    nanos += ((hour * 60 + minute) * 60 + second) * int128{1'000'000'000} + fraction;
    // A zone designator turns local time into UTC.
    if (pos < text.size()) {
      const char c = text[pos];
      if (c == 'Z' || c == 'z') {
        ++pos;
        has_zone = true;
      } else if (c == '+' || c == '-') {
        ++pos;
        int64_t oh, om = 0;
        if (!ReadDigits(text, &pos, 2, 2, &oh)) return std::nullopt;
        if (Expect(text, &pos, ':')) {
          if (!ReadDigits(text, &pos, 2, 2, &om)) return std::nullopt;
        } else if (pos < text.size()) {
          if (!ReadDigits(text, &pos, 2, 2, &om)) return std::nullopt;
        }
        if (oh > 23 || om > 59) return std::nullopt;
        const int128 offset = (oh * 60 + om) * int128{60'000'000'000};
        nanos += c == '+' ? -offset : offset;
        has_zone = true;
      }
    }
  }
  if (pos != text.size()) return std::nullopt;
  // Four-digit years keep |nanos| below 2^69: no overflow here.
  return ParsedTimestamp{nanos, has_zone};
}

std::string FormatDate(int64_t days) {
  const Civil c = CivilFromDays(days);
  return Pad(c.year, 4) + "-" + Pad(c.month, 2) + "-" + Pad(c.day, 2);
}

std::string FormatTimestamp(int128 nanos) {
  int64_t days = static_cast<int64_t>(nanos / kNanosPerDay);
  int64_t rem = static_cast<int64_t>(nanos % kNanosPerDay);
  if (rem < 0) {
    rem += kNanosPerDay;
    --days;
  }
  const int64_t secs = rem / 1'000'000'000;
  int64_t frac = rem % 1'000'000'000;
  std::string out = FormatDate(days) + " " + Pad(secs / 3600, 2) + ":" +
                    Pad(secs / 60 % 60, 2) + ":" + Pad(secs % 60, 2);
  if (frac != 0) {
    std::string digits = Pad(frac, 9);
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out;
}

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) {
      return c >= 'A' && c <= 'Z' ? static_cast<char>(c | 0x20) : c;
    };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// +HH, +HHMM or +HH:MM (arrow's fixed-offset spellings) in seconds east of UTC.
std::optional<int64_t> ParseFixedOffset(std::string_view tz) {
  if (tz.empty() || (tz[0] != '+' && tz[0] != '-')) return std::nullopt;
  size_t pos = 1;
  int64_t hours, minutes = 0;
  if (!ReadDigits(tz, &pos, 2, 2, &hours)) return std::nullopt;
  if (pos < tz.size()) {
    Expect(tz, &pos, ':');
    if (!ReadDigits(tz, &pos, 2, 2, &minutes)) return std::nullopt;
  }
  if (pos != tz.size() || hours > 23 || minutes > 59) return std::nullopt;
  const int64_t seconds = (hours * 60 + minutes) * 60;
  return tz[0] == '-' ? -seconds : seconds;
}

// Etc/GMT+N is N hours *west* of UTC (POSIX sign), N in [0, 14]; also GMT+0, GMT-0.
std::optional<int64_t> ParseEtcGmt(std::string_view tz) {
  std::string_view rest;
  if (tz.size() > 7 && EqualsIgnoreCase(tz.substr(0, 7), "Etc/GMT")) {
    rest = tz.substr(7);
  } else if (tz.size() > 3 && EqualsIgnoreCase(tz.substr(0, 3), "GMT")) {
    rest = tz.substr(3);
  } else {
    return std::nullopt;
  }
  if (rest == "0") return 0;
  if (rest.size() < 2 || (rest[0] != '+' && rest[0] != '-')) return std::nullopt;
  size_t pos = 1;
  int64_t hours;
  if (!ReadDigits(rest, &pos, 1, 2, &hours) || pos != rest.size() || hours > 14) {
    return std::nullopt;
  }
  const bool is_etc = tz.size() > 7 && EqualsIgnoreCase(tz.substr(0, 4), "Etc/");
  if (!is_etc && hours != 0) return std::nullopt;  // GMT+5 is not a zone name
  return rest[0] == '+' ? -hours * 3600 : hours * 3600;
}

}  // namespace

std::optional<int64_t> FixedZoneOffsetSeconds(std::string_view tz) {
  if (tz.empty()) return 0;
  static constexpr std::string_view kUtcNames[] = {
      "UTC",      "Z",       "Zulu",          "UCT",      "Universal",
      "GMT",      "GMT0",    "Greenwich",     "Etc/UTC",  "Etc/UCT",
      "Etc/Zulu", "Etc/GMT", "Etc/Universal", "Etc/GMT0", "Etc/Greenwich"};
  for (std::string_view name : kUtcNames) {
    if (EqualsIgnoreCase(tz, name)) return 0;
  }
  if (auto offset = ParseFixedOffset(tz)) return offset;
  return ParseEtcGmt(tz);
}

Status CheckNaiveTimestampLiteral(const DataType& type, const Literal& lit,
                                  std::string_view column) {
  if (type.id() != TypeId::kTimestamp || FixedZoneOffsetSeconds(type.timezone())) {
    return Status::OK();
  }
  std::optional<ParsedTimestamp> ts;
  if (lit.kind == Literal::Kind::kTimestamp) {
    ts = ParsedTimestamp{lit.nanos, lit.has_zone};
  } else if (lit.kind == Literal::Kind::kString) {
    ts = ParseTimestamp(lit.string_value);
  }
  if (!ts || ts->has_zone) return Status::OK();
  const std::string what =
      column.empty() ? "a " + type.ToString() + " value"
                     : "column '" + std::string(column) + "' (" + type.ToString() + ")";
  return Status::NotImplemented(
      "comparing " + what +
      " with a timestamp literal without a zone needs timezone rules; write the "
      "literal with an offset, e.g. '" +
      FormatTimestamp(ts->nanos) + "-05:00'");
}

int64_t NanosPerUnit(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return 1'000'000'000;
    case TimeUnit::kMilli:
      return 1'000'000;
    case TimeUnit::kMicro:
      return 1'000;
    case TimeUnit::kNano:
      return 1;
  }
  return 1;
}

// ---- bitmap helpers
// ----------------------------------------------------------------------

ArrayPtr MakeBooleanArray(int64_t length, BufferPtr values, BufferPtr validity) {
  const int64_t nulls = validity ? kUnknownNullCount : 0;
  return MakeArray(ArrayData::Make(boolean(), length,
                                   {std::move(validity), std::move(values)}, nulls));
}

Result<BufferPtr> AlignBits(const BufferPtr& bits, int64_t offset, int64_t length) {
  if (offset % 8 == 0) {
    return Buffer::Slice(bits, offset / 8, bit_util::BytesForBits(length));
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, AllocateBits(length));
  if (length > 0)
    bit_util::CopyBits(bits->data(), offset, length, out->mutable_data(), 0);
  return out;
}

Result<BufferPtr> AlignedValidity(const Array& array) {
  const ArrayData& data = *array.data();
  const int64_t n = array.length();
  // A null array has no bitmap, yet every slot is null.
  if (data.type->id() == TypeId::kNull) return FilledBits(n, false);
  const auto& buffers = data.buffers;
  BufferPtr validity;
  if (!buffers.empty() && buffers[0] && array.null_count() != 0) {
    LANCE_ASSIGN_OR_RAISE(validity, AlignBits(buffers[0], array.offset(), n));
  }
  if (data.type->id() != TypeId::kDictionary || !data.dictionary ||
      data.dictionary->GetNullCount() == 0) {
    return validity;
  }
  // A dictionary slot is also null when the value its index points at is (Arrow's
  // logical nulls, which DataFusion's IS NULL follows): legacy Lance files keep a
  // dictionary column's nulls only there. AlignBits may hand out the column's own bitmap,
  // so the result is a fresh one.
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, FilledBits(n, true));
  if (validity) {
    std::memcpy(out->mutable_data(), validity->data(),
                static_cast<size_t>(bit_util::BytesForBits(n)));
  }
  const ArrayData& values = *data.dictionary;
  for (int64_t i = 0; i < n; ++i) {
    if (!bit_util::GetBit(out->data(), i)) continue;
    const int64_t index = IntegerValueAt(data, i);
    if (index >= 0 && index < values.length && !values.IsValid(index)) {
      bit_util::ClearBit(out->mutable_data(), i);
    }
  }
  return out;
}

// ---- comparison kernels
// --------------------------------------------------------------------

Result<std::unique_ptr<ScalarCompareKernel>> MakeScalarCompareKernel(
    const DataTypePtr& type, CmpOp op, const Literal& lit) {
  if (lit.is_null()) {
    return std::unique_ptr<ScalarCompareKernel>(std::make_unique<AllNullKernel>());
  }
  switch (type->id()) {
    case TypeId::kBool:
      if (lit.kind != Literal::Kind::kBool) return IncompatibleLiteral(*type, lit);
      return std::unique_ptr<ScalarCompareKernel>(
          std::make_unique<BoolKernel>(BoolKernel::FormFor(op, lit.bool_value)));
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kDate32:
    case TypeId::kTimestamp: {
      LANCE_ASSIGN_OR_RAISE(std::optional<IntTarget> fitted,
                            IntegerAxisTarget(*type, lit));
      if (!fitted) {
        return std::unique_ptr<ScalarCompareKernel>(std::make_unique<AllNullKernel>());
      }
      const IntTarget& target = *fitted;
      switch (type->id()) {
        case TypeId::kInt8:
          return MakeIntKernel<int8_t>(op, target);
        case TypeId::kInt16:
          return MakeIntKernel<int16_t>(op, target);
        case TypeId::kInt32:
        case TypeId::kDate32:
          return MakeIntKernel<int32_t>(op, target);
        case TypeId::kInt64:
        case TypeId::kTimestamp:
          return MakeIntKernel<int64_t>(op, target);
        case TypeId::kUInt8:
          return MakeIntKernel<uint8_t>(op, target);
        case TypeId::kUInt16:
          return MakeIntKernel<uint16_t>(op, target);
        case TypeId::kUInt32:
          return MakeIntKernel<uint32_t>(op, target);
        default:
          return MakeIntKernel<uint64_t>(op, target);
      }
    }
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

// ---- IN
// ------------------------------------------------------------------------------------

namespace {

// Writes the IN result: value = (match XOR negated); a row is NULL when the column is, or
// when it matched nothing and the list holds a NULL (x IN (1, NULL) is NULL for x = 2).
template <typename Match>
Result<ArrayPtr> FinishIn(const Array& values, bool negated, bool has_null,
                          Match&& match) {
  const int64_t n = values.length();
  LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBits(n));
  if (n > 0) WriteBits(n, bits->mutable_data(), match);
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, AlignedValidity(values));
  const int64_t bytes = bit_util::BytesForBits(n);
  if (has_null) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr combined, AllocateBits(n));
    for (int64_t i = 0; i < bytes; ++i) {
      const uint8_t valid = validity ? validity->data()[i] : 0xFF;
      combined->mutable_data()[i] = valid & bits->data()[i];
    }
    validity = std::move(combined);
  }
  if (negated) {
    for (int64_t i = 0; i < bytes; ++i) bits->mutable_data()[i] = ~bits->data()[i];
  }
  return MakeBooleanArray(n, std::move(bits), std::move(validity));
}

// Membership in a small sorted set: a linear scan beats binary search for a handful.
template <typename T, typename V>
inline bool SetContains(const std::vector<T>& set, const V& v) {
  if (set.size() <= 8) {
    for (const auto& s : set) {
      if (s == v) return true;
    }
    return false;
  }
  auto it = std::lower_bound(set.begin(), set.end(), v);
  return it != set.end() && *it == v;
}

// Up to this many values, membership is tested by comparing a block of rows with every
// value in turn (branch-free, vectorisable); beyond it, by binary search per row.
constexpr size_t kLinearSetLimit = 24;

template <typename T>
class NumericInKernel : public InKernel {
 public:
  NumericInKernel(std::vector<T> set, bool has_null, bool negated)
      : set_(std::move(set)), has_null_(has_null), negated_(negated) {}
  Result<ArrayPtr> Apply(const Array& values) const override {
    const int64_t n = values.length();
    const T* v = RawValues<T>(values);
    if (v == nullptr && n > 0) return Status::Invalid("IN over an array without values");
    if (set_.size() > kLinearSetLimit) {
      return FinishIn(values, negated_, has_null_, [&](int64_t i) {
        auto it = std::lower_bound(set_.begin(), set_.end(), v[i]);
        return it != set_.end() && *it == v[i];
      });
    }
    // One byte per row, computed 64 rows at a time into a local block: a constant trip
    // count and no aliasing let the compiler vectorise the comparisons.
    std::vector<uint8_t> hits(static_cast<size_t>(n));
    constexpr int64_t kBlock = 64;
    const int64_t full = n / kBlock * kBlock;
    for (int64_t start = 0; start < full; start += kBlock) {
      uint8_t acc[kBlock] = {};
      const T* block = v + start;
      for (const T k : set_) {
        for (int64_t j = 0; j < kBlock; ++j)
          acc[j] |= static_cast<uint8_t>(block[j] == k);
      }
      std::memcpy(hits.data() + start, acc, kBlock);
    }
    for (int64_t i = full; i < n; ++i) {
      for (const T k : set_) hits[i] |= static_cast<uint8_t>(v[i] == k);
    }
    return FinishIn(values, negated_, has_null_, [&](int64_t i) { return hits[i] != 0; });
  }

 private:
  std::vector<T> set_;
  bool has_null_;
  bool negated_;
};

class HalfInKernel : public InKernel {
 public:
  HalfInKernel(std::vector<float> set, bool has_null, bool negated)
      : set_(std::move(set)), has_null_(has_null), negated_(negated) {}
  Result<ArrayPtr> Apply(const Array& values) const override {
    const uint16_t* v = RawValues<uint16_t>(values);
    if (v == nullptr && values.length() > 0) {
      return Status::Invalid("IN over an array without values");
    }
    return FinishIn(values, negated_, has_null_,
                    [&](int64_t i) { return SetContains(set_, HalfToFloat(v[i])); });
  }

 private:
  std::vector<float> set_;
  bool has_null_;
  bool negated_;
};

class BytesInKernel : public InKernel {
 public:
  BytesInKernel(std::vector<std::string> set, bool has_null, bool negated)
      : set_(std::move(set)), has_null_(has_null), negated_(negated) {
    views_.assign(set_.begin(), set_.end());
  }
  Result<ArrayPtr> Apply(const Array& values) const override {
    LANCE_ASSIGN_OR_RAISE(ViewReader get, ViewReader::Make(values));
    return FinishIn(values, negated_, has_null_,
                    [&](int64_t i) { return SetContains(views_, get(i)); });
  }

 private:
  std::vector<std::string> set_;
  std::vector<std::string_view> views_;
  bool has_null_;
  bool negated_;
};

class BoolInKernel : public InKernel {
 public:
  BoolInKernel(bool has_true, bool has_false, bool has_null, bool negated)
      : has_true_(has_true),
        has_false_(has_false),
        has_null_(has_null),
        negated_(negated) {}
  Result<ArrayPtr> Apply(const Array& values) const override {
    const auto& buffers = values.data()->buffers;
    if (values.length() > 0 && (buffers.size() < 2 || !buffers[1])) {
      return Status::Invalid("IN over a bool array without values");
    }
    const uint8_t* bits = values.length() > 0 ? buffers[1]->data() : nullptr;
    const int64_t offset = values.offset();
    return FinishIn(values, negated_, has_null_, [&](int64_t i) {
      return bit_util::GetBit(bits, offset + i) ? has_true_ : has_false_;
    });
  }

 private:
  bool has_true_, has_false_, has_null_, negated_;
};

template <typename T>
std::vector<T> SortedUnique(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

template <typename T>
Result<std::unique_ptr<InKernel>> MakeIntegerIn(const DataType& type,
                                                const std::vector<Literal>& items,
                                                bool negated) {
  std::vector<T> set;
  bool has_null = false;
  for (const auto& lit : items) {
    if (lit.is_null()) {
      has_null = true;
      continue;
    }
    LANCE_ASSIGN_OR_RAISE(std::optional<IntTarget> fitted, IntegerAxisTarget(type, lit));
    if (!fitted) {  // a timestamp beyond the column's unit: NULL, as Lance casts it
      has_null = true;
      continue;
    }
    const IntTarget& t = *fitted;
    // A literal that is not a whole value of the column's unit, or outside its range,
    // can never be equal: leave it out.
    if (t.exact() && t.floor >= MinOf<T>() && t.floor <= MaxOf<T>()) {
      set.push_back(static_cast<T>(t.floor));
    }
  }
  return std::unique_ptr<InKernel>(std::make_unique<NumericInKernel<T>>(
      SortedUnique(std::move(set)), has_null, negated));
}

}  // namespace

namespace {

// IN over values widened to float64 (DataFusion's IN coercion when a float64 item meets
// an integer, float32 or float16 value).
class WidenedInKernel : public InKernel {
 public:
  explicit WidenedInKernel(std::unique_ptr<InKernel> inner) : inner_(std::move(inner)) {}
  Result<ArrayPtr> Apply(const Array& values) const override {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr wide, CastNumeric(values, float64()));
    return inner_->Apply(*wide);
  }

 private:
  std::unique_ptr<InKernel> inner_;
};

}  // namespace

Result<std::unique_ptr<InKernel>> MakeInKernel(const DataTypePtr& type,
                                               const std::vector<Literal>& items,
                                               bool negated, bool coerced,
                                               const std::vector<bool>& items_are_float) {
  if (coerced && IsNumeric(*type) && type->id() != TypeId::kFloat64) {
    bool any_float = false;
    for (size_t i = 0; i < items.size(); ++i) {
      const bool is_float = i < items_are_float.size()
                                ? items_are_float[i]
                                : items[i].kind == Literal::Kind::kFloat;
      any_float |= items[i].is_numeric() && is_float;
    }
    if (any_float) {
      LANCE_ASSIGN_OR_RAISE(auto inner, MakeInKernel(float64(), items, negated));
      return std::unique_ptr<InKernel>(
          std::make_unique<WidenedInKernel>(std::move(inner)));
    }
  }
  switch (type->id()) {
    case TypeId::kInt8:
      return MakeIntegerIn<int8_t>(*type, items, negated);
    case TypeId::kInt16:
      return MakeIntegerIn<int16_t>(*type, items, negated);
    case TypeId::kInt32:
    case TypeId::kDate32:
      return MakeIntegerIn<int32_t>(*type, items, negated);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
      return MakeIntegerIn<int64_t>(*type, items, negated);
    case TypeId::kUInt8:
      return MakeIntegerIn<uint8_t>(*type, items, negated);
    case TypeId::kUInt16:
      return MakeIntegerIn<uint16_t>(*type, items, negated);
    case TypeId::kUInt32:
      return MakeIntegerIn<uint32_t>(*type, items, negated);
    case TypeId::kUInt64:
      return MakeIntegerIn<uint64_t>(*type, items, negated);
    default:
      break;
  }
  bool has_null = false;
  for (const auto& lit : items) has_null |= lit.is_null();
  auto check = [&](bool (*accepts)(const Literal&)) -> Status {
    for (const auto& lit : items) {
      if (!lit.is_null() && !accepts(lit)) return IncompatibleLiteral(*type, lit);
    }
    return Status::OK();
  };
  switch (type->id()) {
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      LANCE_RETURN_NOT_OK(check([](const Literal& l) { return l.is_numeric(); }));
      if (type->id() == TypeId::kFloat64) {
        std::vector<double> set;
        for (const auto& l : items) {
          if (!l.is_null()) set.push_back(LiteralToDouble(l));
        }
        return std::unique_ptr<InKernel>(std::make_unique<NumericInKernel<double>>(
            SortedUnique(std::move(set)), has_null, negated));
      }
      std::vector<float> set;
      for (const auto& l : items) {
        if (l.is_null()) continue;
        const double d = LiteralToDouble(l);
        set.push_back(type->id() == TypeId::kFloat32 ? RoundToFloat(d) : RoundToHalf(d));
      }
      set = SortedUnique(std::move(set));
      if (type->id() == TypeId::kFloat32) {
        return std::unique_ptr<InKernel>(
            std::make_unique<NumericInKernel<float>>(std::move(set), has_null, negated));
      }
      return std::unique_ptr<InKernel>(
          std::make_unique<HalfInKernel>(std::move(set), has_null, negated));
    }
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary: {
      LANCE_RETURN_NOT_OK(
          check([](const Literal& l) { return l.kind == Literal::Kind::kString; }));
      std::vector<std::string> set;
      for (const auto& l : items) {
        if (!l.is_null()) set.push_back(l.string_value);
      }
      return std::unique_ptr<InKernel>(std::make_unique<BytesInKernel>(
          SortedUnique(std::move(set)), has_null, negated));
    }
    case TypeId::kBool: {
      LANCE_RETURN_NOT_OK(
          check([](const Literal& l) { return l.kind == Literal::Kind::kBool; }));
      bool has_true = false, has_false = false;
      for (const auto& l : items) {
        if (l.kind == Literal::Kind::kBool) (l.bool_value ? has_true : has_false) = true;
      }
      return std::unique_ptr<InKernel>(
          std::make_unique<BoolInKernel>(has_true, has_false, has_null, negated));
    }
    default:
      return Status::Invalid("IN does not apply to a " + type->ToString() + " value");
  }
}

// ---- LIKE
// ----------------------------------------------------------------------------------

namespace {

inline char FoldCase(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}

// Bytes of the UTF-8 sequence starting with `lead` (1 for stray continuation bytes, so
// that malformed input still advances).
inline size_t Utf8Length(unsigned char lead) {
  if (lead < 0xC0) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  return 4;
}

}  // namespace

LikePattern::LikePattern(std::string_view pattern, bool case_insensitive)
    : case_insensitive_(case_insensitive) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      tokens_.push_back({Token::Kind::kByte, pattern[++i]});
    } else if (c == '%') {
      // Consecutive '%' are one.
      if (tokens_.empty() || tokens_.back().kind != Token::Kind::kAnyRun) {
        tokens_.push_back({Token::Kind::kAnyRun, 0});
      }
    } else if (c == '_') {
      tokens_.push_back({Token::Kind::kAnyChar, 0});
    } else {
      tokens_.push_back({Token::Kind::kByte, c});
    }
  }
  if (case_insensitive_) {
    for (auto& t : tokens_) t.byte = FoldCase(t.byte);
    return;  // the simple shapes below compare bytes exactly
  }
  // Recognise 'abc', 'abc%', '%abc' and '%abc%' so that the common cases are a memcmp.
  size_t runs = 0;
  for (const auto& t : tokens_) {
    if (t.kind == Token::Kind::kAnyChar) return;
    runs += t.kind == Token::Kind::kAnyRun;
  }
  const bool leading = !tokens_.empty() && tokens_.front().kind == Token::Kind::kAnyRun;
  const bool trailing = !tokens_.empty() && tokens_.back().kind == Token::Kind::kAnyRun;
  for (const auto& t : tokens_) {
    if (t.kind == Token::Kind::kByte) needle_ += t.byte;
  }
  if (runs == 0) {
    shape_ = Shape::kExact;
  } else if (tokens_.size() == 1) {
    shape_ = Shape::kPrefix;  // '%' alone: every value starts with the empty string
  } else if (runs == 1 && trailing) {
    shape_ = Shape::kPrefix;
  } else if (runs == 1 && leading) {
    shape_ = Shape::kSuffix;
  } else if (runs == 2 && leading && trailing) {
    shape_ = Shape::kContains;
  }  // otherwise a '%' in the middle: kGeneral
}

bool LikePattern::Matches(std::string_view value) const {
  switch (shape_) {
    case Shape::kExact:
      return value == needle_;
    case Shape::kPrefix:
      return value.starts_with(needle_);
    case Shape::kSuffix:
      return value.ends_with(needle_);
    case Shape::kContains:
      return value.find(needle_) != std::string_view::npos;
    case Shape::kGeneral:
      return MatchGeneral(value);
  }
  return false;
}

// Backtracking over the last '%' only: on a mismatch, let that '%' swallow one more
// character and retry. Linear for patterns with one '%', never exponential.
bool LikePattern::MatchGeneral(std::string_view value) const {
  size_t t = 0, s = 0;
  size_t star = std::string_view::npos, star_s = 0;
  const size_t nt = tokens_.size();
  while (s < value.size()) {
    if (t < nt && tokens_[t].kind == Token::Kind::kByte &&
        (case_insensitive_ ? FoldCase(value[s]) : value[s]) == tokens_[t].byte) {
      ++t;
      ++s;
    } else if (t < nt && tokens_[t].kind == Token::Kind::kAnyChar) {
      s += Utf8Length(static_cast<unsigned char>(value[s]));
      ++t;
    } else if (t < nt && tokens_[t].kind == Token::Kind::kAnyRun) {
      star = t++;
      star_s = s;
    } else if (star != std::string_view::npos) {
      t = star + 1;
      star_s += Utf8Length(static_cast<unsigned char>(value[star_s]));
      s = star_s;
    } else {
      return false;
    }
  }
  // A '_' may have stepped over the end of a truncated UTF-8 sequence.
  if (s > value.size()) return false;
  while (t < nt && tokens_[t].kind == Token::Kind::kAnyRun) ++t;
  return t == nt;
}

namespace {

// Byte equality that stays inline for the short needles LIKE patterns usually have
// (a memcmp call per row costs more than the comparison).
inline bool SameBytes(const char* a, const char* b, size_t n) {
  if (n > 16) return std::memcmp(a, b, n) == 0;
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// The LIKE loop for one value layout (`get`), with the pattern's shape hoisted out of it.
template <typename Get>
void LikeLoop(int64_t n, const Get& get, const LikePattern& pattern, bool negated,
              uint8_t* out) {
  const std::string_view needle = pattern.needle();
  const size_t m = needle.size();
  switch (pattern.shape()) {
    case LikePattern::Shape::kExact:
      WriteBits(n, out, [&](int64_t i) {
        const std::string_view v = get(i);
        return (v.size() == m && SameBytes(v.data(), needle.data(), m)) != negated;
      });
      break;
    case LikePattern::Shape::kPrefix:
      WriteBits(n, out, [&](int64_t i) {
        const std::string_view v = get(i);
        return (v.size() >= m && SameBytes(v.data(), needle.data(), m)) != negated;
      });
      break;
    case LikePattern::Shape::kSuffix:
      WriteBits(n, out, [&](int64_t i) {
        const std::string_view v = get(i);
        return (v.size() >= m && SameBytes(v.data() + v.size() - m, needle.data(), m)) !=
               negated;
      });
      break;
    case LikePattern::Shape::kContains:
      WriteBits(n, out, [&](int64_t i) {
        return (get(i).find(needle) != std::string_view::npos) != negated;
      });
      break;
    case LikePattern::Shape::kGeneral:
      WriteBits(n, out, [&](int64_t i) { return pattern.Matches(get(i)) != negated; });
      break;
  }
}

template <typename OffsetT>
void LikeOverOffsets(const Array& values, const LikePattern& pattern, bool negated,
                     uint8_t* out) {
  const OffsetT* offsets = RawValues<OffsetT>(values);
  const auto& buffers = values.data()->buffers;
  const char* data = buffers.size() > 2 && buffers[2]
                         ? reinterpret_cast<const char*>(buffers[2]->data())
                         : "";
  auto get = [offsets, data](int64_t i) {
    return std::string_view(data + offsets[i],
                            static_cast<size_t>(offsets[i + 1] - offsets[i]));
  };
  LikeLoop(values.length(), get, pattern, negated, out);
}

}  // namespace

Result<ArrayPtr> ApplyLike(const Array& values, const LikePattern& pattern,
                           bool negated) {
  const int64_t n = values.length();
  LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBits(n));
  if (n > 0) {
    switch (values.type_id()) {
      case TypeId::kUtf8:
      case TypeId::kBinary:
      case TypeId::kLargeUtf8:
      case TypeId::kLargeBinary: {
        const bool large = values.type_id() == TypeId::kLargeUtf8 ||
                           values.type_id() == TypeId::kLargeBinary;
        if ((large ? static_cast<const void*>(RawValues<int64_t>(values))
                   : static_cast<const void*>(RawValues<int32_t>(values))) == nullptr) {
          return Status::Invalid("LIKE over a string array without offsets");
        }
        if (large) {
          LikeOverOffsets<int64_t>(values, pattern, negated, bits->mutable_data());
        } else {
          LikeOverOffsets<int32_t>(values, pattern, negated, bits->mutable_data());
        }
        break;
      }
      default: {
        LANCE_ASSIGN_OR_RAISE(ViewReader get, ViewReader::Make(values));
        LikeLoop(n, get, pattern, negated, bits->mutable_data());
        break;
      }
    }
  }
  return WithValidityOf(values, std::move(bits));
}

}  // namespace lance::table::predicate_internal
