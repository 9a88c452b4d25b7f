// SPDX-License-Identifier: Apache-2.0
// Building blocks shared by the predicate kernels (compare.cc, compare_arrays.cc, in.cc,
// like.cc): bit writing, comparison loops, the integer axis a literal is placed on, and
// byte views of string-like arrays. Private to src/table/predicate/.
#pragma once

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "lance/core/float16.h"
#include "lance/core/temporal.h"  // kNanosPerDay
#include "lance/macros.h"
#include "table/predicate/bound_expr.h"

namespace lance::table::predicate_internal {

inline int ThreeWay(int128 a, int128 b) { return a < b ? -1 : (a > b ? 1 : 0); }

inline bool ApplyThreeWay(CmpOp op, int c) {
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

using compute::Int128ToString;

using compute::FloorDiv;

inline int128 CeilDiv(int128 num, int128 den) {  // den > 0
  int128 q = num / den;
  if ((num % den != 0) && num > 0) ++q;
  return q;
}

inline double LiteralToDouble(const Literal& lit) {
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

Result<BufferPtr> AllocateBits(int64_t n);
Result<BufferPtr> FilledBits(int64_t n, bool value);
// Wraps computed value bits with the column's validity.
Result<ArrayPtr> WithValidityOf(const Array& values, BufferPtr bits);

template <typename T>
const T* RawValues(const Array& values) {
  const auto& buffers = values.data()->buffers;
  if (buffers.size() < 2 || !buffers[1]) return nullptr;
  return buffers[1]->data_as<T>() + values.offset();
}

// Element i of a string or binary array as a view, from its offsets (RawValues) and
// value bytes; an array whose values are all empty may carry no value buffer at all.
template <typename OffsetT>
struct OffsetStrings {
  const OffsetT* offsets;
  const char* data;

  static OffsetStrings Of(const Array& values, const OffsetT* offsets) {
    const auto& buffers = values.data()->buffers;
    const char* data = buffers.size() > 2 && buffers[2]
                           ? reinterpret_cast<const char*>(buffers[2]->data())
                           : "";
    return {offsets, data};
  }
  std::string_view operator()(int64_t i) const {
    return std::string_view(data + offsets[i],
                            static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }
};

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

inline IntTarget TargetFromRational(int128 num, int128 den) {
  return {FloorDiv(num, den), CeilDiv(num, den)};
}

IntTarget TargetFromNumber(const Literal& lit);

struct IntPlan {
  enum class Mode : uint8_t { kAllTrue, kAllFalse, kCompare } mode;
  CmpOp op = CmpOp::kEq;
  int128 k = 0;
};

// Rewrites `x OP literal` for integer x in [lo, hi] into `x OP' k` with k in [lo, hi], or
// a constant. For a non-integer literal r: x > r <=> x > floor(r), x < r <=> x < ceil(r).
IntPlan PlanIntCompare(CmpOp op, const IntTarget& t, int128 lo, int128 hi);

using compute::MaxOf;
using compute::MinOf;

Status IncompatibleLiteral(const DataType& type, const Literal& lit,
                           std::string_view why = {});

// The literal as a target on the integer axis of an integer, date32 or timestamp column;
// nullopt when a timestamp literal does not fit the column's unit (before 1677-09-21 or
// after 2262-04-11 for nanoseconds): Lance's cast of the literal overflows to NULL, so
// every comparison with it is NULL.
Result<std::optional<IntTarget>> IntegerAxisTarget(const DataType& type,
                                                   const Literal& lit);

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

bool IsStringLike(const DataType& type);
bool IsTemporal(const DataType& type);
bool IsNumeric(const DataType& type);

}  // namespace lance::table::predicate_internal
