// SPDX-License-Identifier: Apache-2.0
//
// Cast (cast.h): slots read as Scalars and written into a builder of the target type,
// checking that each fits; numeric widenings that lose nothing are converted in bulk.

#include "lance/core/cast.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "lance/core/ascii.h"
#include "lance/core/float16.h"
#include "lance/core/temporal.h"
#include "lance/core/visit_type.h"
#include "lance/macros.h"

namespace lance::compute {

namespace {

std::string FormatFloat(double v, bool is_float32) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = is_float32 ? std::to_chars(buf, buf + sizeof(buf), static_cast<float>(v))
                        : std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<int128> ParseInteger(std::string_view s) {
  s = Trim(s);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s.size() > 20) return std::nullopt;
  int128 v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return negative ? -v : v;
}

std::optional<double> ParseFloat(std::string_view s) {
  s = Trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  bool negative = false;
  std::string_view body = s;
  if (!body.empty() && body.front() == '-') {
    negative = true;
    body.remove_prefix(1);
  }
  if (EqualsIgnoreAsciiCase(body, "nan")) return std::nan("");
  if (EqualsIgnoreAsciiCase(body, "inf") || EqualsIgnoreAsciiCase(body, "infinity")) {
    return negative ? -HUGE_VAL : HUGE_VAL;
  }
  double d = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return d;
}

std::string OffsetSuffix(int64_t seconds) {
  if (seconds == 0) return "Z";
  const int64_t m = (seconds < 0 ? -seconds : seconds) / 60;
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%c%02d:%02d", seconds < 0 ? '-' : '+',
                static_cast<int>(m / 60), static_cast<int>(m % 60));
  return buf;
}

std::string Render(const Scalar& v) {
  if (v.kind == Scalar::Kind::kFloat) return FormatFloat(v.float_value, false);
  return v.ToString();
}

}  // namespace

Result<ScalarReader> ScalarReader::Make(const ArrayPtr& values) {
  ScalarReader r;
  r.values_ = values;
  const DataType& t = *values->type();
  return VisitType(t, [&](auto traits) -> Result<ScalarReader> {
    using T = decltype(traits);
    if constexpr (T::kId == TypeId::kTimestamp) {
      r.nanos_per_tick_ = NanosPerUnit(t.unit());
      r.has_zone_ = !t.timezone().empty();
    } else if constexpr (T::kIsBaseBinary) {
      const auto& buffers = values->data()->buffers;
      if (values->length() > 0 && (buffers.size() < 2 || !buffers[1])) {
        return Status::Invalid("casting a string array without offsets");
      }
    } else if constexpr (!T::kIsNumeric && T::kId != TypeId::kNull &&
                         T::kId != TypeId::kBool) {
      return Status::NotImplemented("casting values of type ", t.ToString());
    } else if constexpr (T::kId == TypeId::kTime32 || T::kId == TypeId::kTime64 ||
                         T::kId == TypeId::kDuration) {
      return Status::NotImplemented("casting values of type ", t.ToString());
    }
    return r;
  });
}

namespace {

template <typename C>
C ValueAt(const Array& a, int64_t i) {
  return a.data()->buffers[1]->data_as<C>()[a.offset() + i];
}

// Scalar::Float documents finite values; a cast needs NaN and infinities too.
Scalar FloatScalar(double v) {
  Scalar s = Scalar::Float(0);
  s.float_value = v;
  return s;
}

}  // namespace

Scalar ScalarReader::Get(int64_t i) const {
  const Array& a = *values_;
  if (a.type_id() == TypeId::kNull || a.IsNull(i)) return Scalar::Null();
  return VisitType(*a.type(), [&](auto traits) -> Scalar {
    using T = decltype(traits);
    constexpr TypeId kId = T::kId;
    if constexpr (kId == TypeId::kBool) {
      return Scalar::Bool(bit_util::GetBit(a.data()->buffers[1]->data(), a.offset() + i));
    } else if constexpr (kId == TypeId::kFloat16) {
      return FloatScalar(HalfToFloat(ValueAt<uint16_t>(a, i)));
    } else if constexpr (kId == TypeId::kFloat32 || kId == TypeId::kFloat64) {
      return FloatScalar(ValueAt<typename T::CType>(a, i));
    } else if constexpr (kId == TypeId::kDate32) {
      return Scalar::Date(ValueAt<int32_t>(a, i));
    } else if constexpr (kId == TypeId::kDate64) {
      return Scalar::Date(
          static_cast<int32_t>(FloorDiv(ValueAt<int64_t>(a, i), 86400000)));
    } else if constexpr (kId == TypeId::kTimestamp) {
      return Scalar::Timestamp(int128{ValueAt<int64_t>(a, i)} * nanos_per_tick_,
                               has_zone_);
    } else if constexpr (T::kIsNumeric) {  // the integers
      return Scalar::Int(ValueAt<typename T::CType>(a, i));
    } else if constexpr (T::kIsBaseBinary) {
      using Offset = typename T::OffsetType;
      const auto& buffers = a.data()->buffers;
      const Offset* offsets = buffers[1]->data_as<Offset>() + a.offset();
      const char* bytes =
          buffers.size() > 2 && buffers[2] ? buffers[2]->data_as<char>() : nullptr;
      const Offset begin = offsets[i];
      const Offset end = offsets[i + 1];
      if (bytes == nullptr || end == begin) return Scalar::String(std::string());
      return Scalar::String(std::string(bytes + begin, static_cast<size_t>(end - begin)));
    } else {
      return Scalar::Null();  // Make refuses the other types
    }
  });
}

Result<ScalarWriter> ScalarWriter::Make(const DataTypePtr& to, const DataType& from) {
  ScalarWriter w;
  w.to_ = to;
  LANCE_ASSIGN_OR_RAISE(w.builder_, MakeBuilder(to));
  if (to->id() == TypeId::kTimestamp) {
    LANCE_ASSIGN_OR_RAISE(w.to_offset_, ZoneOffset(*to));
    w.nanos_per_tick_ = NanosPerUnit(to->unit());
  }
  LANCE_ASSIGN_OR_RAISE(w.from_offset_, ZoneOffset(from));
  w.from_ = from.ToString();
  w.from_is_narrow_float_ =
      from.id() == TypeId::kFloat16 || from.id() == TypeId::kFloat32;
  return w;
}

Status ScalarWriter::Append(const Scalar& v) {
  if (v.is_null()) return builder_->AppendNull();
  return VisitType(*to_, [&](auto traits) -> Status {
    using T = decltype(traits);
    constexpr TypeId kId = T::kId;
    if constexpr (kId == TypeId::kBool) {
      return AppendBool(v);
    } else if constexpr (kId == TypeId::kFloat16 || kId == TypeId::kFloat32 ||
                         kId == TypeId::kFloat64) {
      return AppendFloat(v);
    } else if constexpr (kId == TypeId::kDate32) {
      return AppendDate(v);
    } else if constexpr (kId == TypeId::kTimestamp) {
      return AppendTimestamp(v);
    } else if constexpr (T::kIsBaseBinary) {
      return AppendString<typename T::OffsetType>(v);
    } else if constexpr (kId == TypeId::kInt8 || kId == TypeId::kInt16 ||
                         kId == TypeId::kInt32 || kId == TypeId::kInt64 ||
                         kId == TypeId::kUInt8 || kId == TypeId::kUInt16 ||
                         kId == TypeId::kUInt32 || kId == TypeId::kUInt64) {
      return AppendInt<typename T::CType>(v);
    } else {
      return Unsupported();
    }
  });
}

Status ScalarWriter::Unsupported() const {
  return Status::Invalid("cannot cast ", from_, " to ", to_->ToString());
}
Status ScalarWriter::DoesNotFit(const Scalar& v) const {
  return Status::Invalid("cannot cast ", from_, " value ", Render(v), " to ",
                         to_->ToString(), ": out of range");
}
Status ScalarWriter::NotParsable(const Scalar& v) const {
  return Status::Invalid("cannot cast ", from_, " value ", Render(v), " to ",
                         to_->ToString());
}

// The wall-clock nanoseconds of a timestamp slot (in its column's zone).
int128 ScalarWriter::LocalNanos(const Scalar& v) const {
  return v.nanos + int128{from_offset_} * kNanosPerSecond;
}

Status ScalarWriter::AppendBool(const Scalar& v) {
  auto* b = static_cast<BooleanBuilder*>(builder_.get());
  switch (v.kind) {
    case Scalar::Kind::kBool:
      return b->Append(v.bool_value);
    case Scalar::Kind::kInt:
      return b->Append(v.int_value != 0);
    case Scalar::Kind::kFloat:
      return b->Append(v.float_value != 0);
    case Scalar::Kind::kString: {
      const std::string_view s = Trim(v.string_value);
      for (std::string_view t : {"true", "t", "yes", "y", "on", "1"}) {
        if (EqualsIgnoreAsciiCase(s, t)) return b->Append(true);
      }
      for (std::string_view f : {"false", "f", "no", "n", "off", "0"}) {
        if (EqualsIgnoreAsciiCase(s, f)) return b->Append(false);
      }
      return NotParsable(v);
    }
    default:
      return Unsupported();
  }
}

template <typename T>
Status ScalarWriter::AppendInt(const Scalar& v) {
  int128 x = 0;
  switch (v.kind) {
    case Scalar::Kind::kBool:
      x = v.bool_value ? 1 : 0;
      break;
    case Scalar::Kind::kInt:
      x = v.int_value;
      break;
    case Scalar::Kind::kFloat: {
      const double t = std::trunc(v.float_value);
      // 2^127 bounds every integer type; beyond it (and NaN) nothing fits.
      if (!(std::fabs(t) < 1.7e38)) return DoesNotFit(v);
      x = static_cast<int128>(t);
      break;
    }
    case Scalar::Kind::kString: {
      auto parsed = ParseInteger(v.string_value);
      if (!parsed) return NotParsable(v);
      x = *parsed;
      break;
    }
    case Scalar::Kind::kDate:
      x = v.days;  // days since the epoch, as Arrow's date32 -> integer cast
      break;
    default:
      return Unsupported();
  }
  if (x < MinOf<T>() || x > MaxOf<T>()) return DoesNotFit(v);
  return static_cast<NumericBuilder<T>*>(builder_.get())->Append(static_cast<T>(x));
}

Status ScalarWriter::AppendFloat(const Scalar& v) {
  double d = 0;
  switch (v.kind) {
    case Scalar::Kind::kBool:
      d = v.bool_value ? 1 : 0;
      break;
    case Scalar::Kind::kInt:
      d = static_cast<double>(v.int_value);
      break;
    case Scalar::Kind::kFloat:
      d = v.float_value;
      break;
    case Scalar::Kind::kString: {
      auto parsed = ParseFloat(v.string_value);
      if (!parsed) return NotParsable(v);
      d = *parsed;
      break;
    }
    default:
      return Unsupported();
  }
  switch (to_->id()) {
    case TypeId::kFloat16:
      return static_cast<NumericBuilder<uint16_t>*>(builder_.get())
          ->Append(DoubleToHalf(d));
    case TypeId::kFloat32:
      // int -> float32 rounds once, from the exact integer.
      return static_cast<FloatBuilder*>(builder_.get())
          ->Append(v.kind == Scalar::Kind::kInt ? static_cast<float>(v.int_value)
                                                : RoundToFloat(d));
    default:
      return static_cast<DoubleBuilder*>(builder_.get())->Append(d);
  }
}

template <typename O>
Status ScalarWriter::AppendString(const Scalar& v) {
  auto* b = static_cast<BaseBinaryBuilder<O>*>(builder_.get());
  switch (v.kind) {
    case Scalar::Kind::kString:
      return b->Append(v.string_value);
    case Scalar::Kind::kBool:
      return b->Append(v.bool_value ? "true" : "false");
    case Scalar::Kind::kInt:
      return b->Append(Int128ToString(v.int_value));
    case Scalar::Kind::kFloat:
      return b->Append(FormatFloat(v.float_value, from_is_narrow_float_));
    case Scalar::Kind::kDate:
      return b->Append(FormatDate(v.days));
    case Scalar::Kind::kTimestamp: {
      // Arrow's rendering: ISO 8601 with a 'T'; a zoned value in its zone's local
      // time followed by the offset ('Z' for UTC).
      std::string s = FormatTimestamp(LocalNanos(v));
      std::replace(s.begin(), s.end(), ' ', 'T');
      if (v.has_zone) s += OffsetSuffix(from_offset_);
      return b->Append(s);
    }
    default:
      return Unsupported();
  }
}

Status ScalarWriter::AppendDate(const Scalar& v) {
  int128 days = 0;
  switch (v.kind) {
    case Scalar::Kind::kDate:
      days = v.days;
      break;
    case Scalar::Kind::kTimestamp:
      days = FloorDiv(LocalNanos(v), kNanosPerDay);
      break;
    case Scalar::Kind::kInt:
      days = v.int_value;  // a day count, as Arrow's integer -> date32 cast
      break;
    case Scalar::Kind::kString: {
      if (auto d = ParseDate(Trim(v.string_value))) {
        days = *d;
      } else if (auto ts = ParseTimestamp(Trim(v.string_value))) {
        days = FloorDiv(ts->nanos, kNanosPerDay);
      } else {
        return NotParsable(v);
      }
      break;
    }
    default:
      return Unsupported();
  }
  if (days < MinOf<int32_t>() || days > MaxOf<int32_t>()) return DoesNotFit(v);
  return static_cast<Date32Builder*>(builder_.get())->Append(static_cast<int32_t>(days));
}

Status ScalarWriter::AppendTimestamp(const Scalar& v) {
  int128 nanos = 0;
  switch (v.kind) {
    case Scalar::Kind::kDate:
      nanos = int128{v.days} * kNanosPerDay;
      break;
    case Scalar::Kind::kTimestamp:
      // An instant stays the same instant; wall-clock time is read in the target zone.
      nanos = v.has_zone ? v.nanos : v.nanos - int128{to_offset_} * kNanosPerSecond;
      break;
    case Scalar::Kind::kString: {
      auto ts = ParseTimestamp(Trim(v.string_value));
      if (!ts) return NotParsable(v);
      nanos = ts->has_zone ? ts->nanos : ts->nanos - int128{to_offset_} * kNanosPerSecond;
      break;
    }
    case Scalar::Kind::kInt:
      // A number is a count of the target's unit since the epoch, as in Arrow.
      nanos = v.int_value * nanos_per_tick_;
      break;
    default:
      return Unsupported();
  }
  const int128 ticks = nanos / nanos_per_tick_;  // toward zero, as Arrow's cast
  if (ticks < MinOf<int64_t>() || ticks > MaxOf<int64_t>()) {
    return DoesNotFit(v);
  }
  return static_cast<TimestampBuilder*>(builder_.get())
      ->Append(static_cast<int64_t>(ticks));
}

bool IsLosslessNumericWidening(const DataType& from, const DataType& to) {
  if (!(from.is_integer() || from.is_floating())) return false;
  if (!(to.is_integer() || to.is_floating())) return false;
  if (from.is_floating() || to.is_floating()) {
    return from.is_floating() && to.is_floating() && to.byte_width() >= from.byte_width();
  }
  const bool from_signed = from.is_signed_integer();
  const bool to_signed = to.is_signed_integer();
  if (from_signed && !to_signed) return false;
  if (from_signed == to_signed) return to.byte_width() >= from.byte_width();
  return to.byte_width() > from.byte_width();  // unsigned into a wider signed type
}

namespace {

bool IsArithmetic(const DataType& t) { return t.is_integer() || t.is_floating(); }

// Calls f(C{}) with the C type of an integer, float32 or float64 type (callers handle
// float16 apart: its C type holds bits, not the number).
template <typename F>
void VisitArithmetic(const DataType& type, F&& f) {
  VisitType(type, [&](auto traits) {
    using T = decltype(traits);
    if constexpr (T::kIsNumeric && T::kId != TypeId::kFloat16) f(typename T::CType{});
  });
}

// The validity bitmap of a numeric array at bit offset 0; nullptr without nulls.
Result<BufferPtr> AlignedValidity(const Array& values) {
  const auto& buffers = values.data()->buffers;
  const int64_t n = values.length();
  if (buffers.empty() || !buffers[0] || values.null_count() == 0) return BufferPtr();
  if (values.offset() % 8 == 0) {
    return Buffer::Slice(buffers[0], values.offset() / 8, bit_util::BytesForBits(n));
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, Buffer::Allocate(bit_util::BytesForBits(n)));
  if (n > 0) {
    bit_util::CopyBits(buffers[0]->data(), values.offset(), n, out->mutable_data(), 0);
  }
  return out;
}

}  // namespace

Result<ArrayPtr> CastNumeric(const Array& values, const DataTypePtr& to) {
  const DataType& from = *values.type();
  const int64_t n = values.length();
  if (!IsArithmetic(from) || !IsArithmetic(*to)) {
    return Status::Invalid("internal: cannot convert " + from.ToString() + " to " +
                           to->ToString() + " for arithmetic");
  }
  if (from.id() == to->id() && values.offset() == 0) {
    return MakeArray(std::make_shared<ArrayData>(*values.data()));
  }
  const auto& src = values.data()->buffers;
  if (n > 0 && (src.size() < 2 || !src[1])) {
    return Status::Invalid("internal: a numeric array without values");
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, AlignedValidity(values));
  LANCE_ASSIGN_OR_RAISE(BufferPtr data,
                        Buffer::AllocateForOverwrite(n * to->byte_width()));
  const int64_t offset = values.offset();
  auto narrowing = [&] {
    return Status::Invalid("internal: converting " + from.ToString() + " to " +
                           to->ToString() + " would narrow");
  };
  if (n == 0) {
    // Nothing to convert.
  } else if (from.id() == TypeId::kFloat16) {
    const uint16_t* in = src[1]->data_as<uint16_t>() + offset;
    if (to->id() == TypeId::kFloat16) {
      std::memcpy(data->mutable_data(), in, static_cast<size_t>(n) * 2);
    } else if (to->id() == TypeId::kFloat32) {
      float* out = data->mutable_data_as<float>();
      for (int64_t i = 0; i < n; ++i) out[i] = HalfToFloat(in[i]);
    } else if (to->id() == TypeId::kFloat64) {
      double* out = data->mutable_data_as<double>();
      for (int64_t i = 0; i < n; ++i) out[i] = HalfToFloat(in[i]);
    } else {
      return narrowing();
    }
  } else if (to->id() == TypeId::kFloat16) {
    if (!from.is_integer()) return narrowing();
    VisitArithmetic(from, [&](auto tag) {
      using S = decltype(tag);
      const S* in = src[1]->template data_as<S>() + offset;
      uint16_t* out = data->mutable_data_as<uint16_t>();
      for (int64_t i = 0; i < n; ++i) out[i] = DoubleToHalf(static_cast<double>(in[i]));
    });
  } else {
    // Integer widening, integer -> float (round to nearest), float32 -> float64.
    const bool ok =
        (from.is_integer() && to->is_floating()) ||
        (from.is_floating() && to->is_floating() &&
         to->byte_width() >= from.byte_width()) ||
        (from.is_integer() && to->is_integer() &&
         (from.is_signed_integer() == to->is_signed_integer()
              ? to->byte_width() >= from.byte_width()
              : (to->is_signed_integer() && to->byte_width() > from.byte_width())));
    if (!ok) return narrowing();
    VisitArithmetic(from, [&](auto from_tag) {
      using S = decltype(from_tag);
      const S* in = src[1]->template data_as<S>() + offset;
      VisitArithmetic(*to, [&](auto to_tag) {
        using D = decltype(to_tag);
        D* out = data->template mutable_data_as<D>();
        // int8 values sign-extend on purpose.
        for (int64_t i = 0; i < n; ++i) {
          out[i] = static_cast<D>(in[i]);  // NOLINT(bugprone-signed-char-misuse)
        }
      });
    });
  }
  return MakeArray(ArrayData::Make(to, n, {std::move(validity), std::move(data)}));
}

namespace {

Result<ArrayPtr> CastSlots(const ArrayPtr& values, const DataTypePtr& to) {
  LANCE_ASSIGN_OR_RAISE(ScalarReader reader, ScalarReader::Make(values));
  LANCE_ASSIGN_OR_RAISE(ScalarWriter writer, ScalarWriter::Make(to, *values->type()));
  const int64_t n = values->length();
  LANCE_RETURN_NOT_OK(writer.Reserve(n));
  for (int64_t i = 0; i < n; ++i) LANCE_RETURN_NOT_OK(writer.Append(reader.Get(i)));
  return writer.Finish();
}

}  // namespace

// A scalar as `n` slots of `type` (its own type when type is nullptr: a NULL literal is
// a null-typed array).
Result<ArrayPtr> BroadcastScalar(const Scalar& value, const DataTypePtr& type,
                                 int64_t n) {
  if (!type || value.is_null()) {
    if (!type) return ArrayPtr(NullArray::Make(n));
    LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(type));
    LANCE_RETURN_NOT_OK(builder->AppendNulls(n));
    return builder->Finish();
  }
  LANCE_ASSIGN_OR_RAISE(ScalarWriter writer, ScalarWriter::Make(type, *type));
  LANCE_RETURN_NOT_OK(writer.Reserve(n));
  if (n > 0) {
    // Convert once (errors surface here), then repeat the converted slot.
    LANCE_RETURN_NOT_OK(writer.Append(value));
    for (int64_t i = 1; i < n; ++i) LANCE_RETURN_NOT_OK(writer.Append(value));
  }
  return writer.Finish();
}

Result<ArrayPtr> Cast(const ArrayPtr& values, const DataTypePtr& to) {
  if (!values || !to) return Status::Invalid("Cast needs values and a target type");
  const DataType& from = *values->type();
  if (from.Equals(*to)) return values;
  if (from.id() == TypeId::kNull)
    return BroadcastScalar(Scalar::Null(), to, values->length());
  if (IsLosslessNumericWidening(from, *to)) return CastNumeric(*values, to);
  return CastSlots(values, to);
}

}  // namespace lance::compute
