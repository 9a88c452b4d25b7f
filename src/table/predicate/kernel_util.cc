// SPDX-License-Identifier: Apache-2.0
#include "table/predicate/kernel_util.h"

namespace lance::table::predicate_internal {

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

std::string DescribeColumnType(const DataType& type) { return type.ToString(); }

Status IncompatibleLiteral(const DataType& type, const Literal& lit,
                           std::string_view why) {
  std::string msg = "cannot compare a " + DescribeColumnType(type) + " value with " +
                    std::string(lit.KindName()) + " literal " + lit.ToString();
  if (!why.empty()) msg += " (" + std::string(why) + ")";
  return Status::Invalid(msg);
}

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

bool IsStringLike(const DataType& type) {
  return type.is_binary_like() || type.id() == TypeId::kFixedSizeBinary;
}

bool IsTemporal(const DataType& type) {
  return type.id() == TypeId::kDate32 || type.id() == TypeId::kTimestamp;
}

bool IsNumeric(const DataType& type) { return type.is_integer() || type.is_floating(); }

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

}  // namespace lance::table::predicate_internal
