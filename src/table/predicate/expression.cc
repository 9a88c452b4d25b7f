// SPDX-License-Identifier: Apache-2.0
//
// Value expressions (expression.h) over the predicate language's bound Expr tree, and
// CastArray, the conversion used to store a value into a column of another type.
//
// CastArray works value by value through a Literal (internal.h), the parser's scalar:
// each slot is read as one (integers as int128, floats as double, dates as days,
// timestamps as nanoseconds) and written into a builder of the target type, checking
// that it fits. Numeric widenings take a vectorised path (CastNumeric).

#include "table/predicate/expression.h"

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
#include "table/predicate/internal.h"
#include "table/predicate/kernel_util.h"

namespace lance::table {

namespace pi = predicate_internal;

namespace {

using pi::int128;
using pi::Literal;

constexpr int64_t kNanosPerSecond = 1000000000;
constexpr int128 kNanosPerDay = int128{86400} * kNanosPerSecond;

bool IsIntegerId(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
      return true;
    default:
      return false;
  }
}

// The zone offset of a timestamp type in seconds (0 without a zone); NotImplemented for
// zones with rules.
Result<int64_t> ZoneOffset(const DataType& type) {
  if (type.id() != TypeId::kTimestamp || type.timezone().empty()) return int64_t{0};
  auto offset = pi::FixedZoneOffsetSeconds(type.timezone());
  if (!offset) {
    return Status::NotImplemented("converting timestamps of time zone '", type.timezone(),
                                  "' needs its rules, which lance-cpp does not have");
  }
  return *offset;
}

// ---- reading a slot as a Literal ----------------------------------------------------

class SlotReader {
 public:
  static Result<SlotReader> Make(const ArrayPtr& values) {
    SlotReader r;
    r.values_ = values;
    const DataType& t = *values->type();
    switch (t.id()) {
      case TypeId::kNull:
      case TypeId::kBool:
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kInt64:
      case TypeId::kUInt8:
      case TypeId::kUInt16:
      case TypeId::kUInt32:
      case TypeId::kUInt64:
      case TypeId::kFloat16:
      case TypeId::kFloat32:
      case TypeId::kFloat64:
      case TypeId::kDate32:
      case TypeId::kDate64:
        return r;
      case TypeId::kTimestamp:
        r.nanos_per_tick_ = pi::NanosPerUnit(t.unit());
        r.has_zone_ = !t.timezone().empty();
        return r;
      case TypeId::kUtf8:
      case TypeId::kLargeUtf8:
      case TypeId::kBinary:
      case TypeId::kLargeBinary: {
        LANCE_ASSIGN_OR_RAISE(pi::ViewReader views, pi::ViewReader::Make(*values));
        r.views_ = std::make_shared<pi::ViewReader>(views);
        return r;
      }
      default:
        return Status::NotImplemented("casting values of type ", t.ToString());
    }
  }

  Literal Get(int64_t i) const {
    const Array& a = *values_;
    if (a.type_id() == TypeId::kNull || a.IsNull(i)) return Literal::Null();
    switch (a.type_id()) {
      case TypeId::kBool: {
        const int64_t bit = a.offset() + i;
        const uint8_t* bits = a.data()->buffers[1]->data();
        return Literal::Bool(((bits[bit >> 3] >> (bit & 7)) & 1) != 0);
      }
      case TypeId::kInt8:
        return Literal::Int(pi::RawValues<int8_t>(a)[i]);
      case TypeId::kInt16:
        return Literal::Int(pi::RawValues<int16_t>(a)[i]);
      case TypeId::kInt32:
        return Literal::Int(pi::RawValues<int32_t>(a)[i]);
      case TypeId::kInt64:
        return Literal::Int(pi::RawValues<int64_t>(a)[i]);
      case TypeId::kUInt8:
        return Literal::Int(pi::RawValues<uint8_t>(a)[i]);
      case TypeId::kUInt16:
        return Literal::Int(pi::RawValues<uint16_t>(a)[i]);
      case TypeId::kUInt32:
        return Literal::Int(pi::RawValues<uint32_t>(a)[i]);
      case TypeId::kUInt64:
        return Literal::Int(pi::RawValues<uint64_t>(a)[i]);
      case TypeId::kFloat16:
        return FloatLiteral(HalfToFloat(pi::RawValues<uint16_t>(a)[i]));
      case TypeId::kFloat32:
        return FloatLiteral(pi::RawValues<float>(a)[i]);
      case TypeId::kFloat64:
        return FloatLiteral(pi::RawValues<double>(a)[i]);
      case TypeId::kDate32:
        return Literal::Date(pi::RawValues<int32_t>(a)[i]);
      case TypeId::kDate64:
        return Literal::Date(
            static_cast<int32_t>(pi::FloorDiv(pi::RawValues<int64_t>(a)[i], 86400000)));
      case TypeId::kTimestamp:
        return Literal::Timestamp(int128{pi::RawValues<int64_t>(a)[i]} * nanos_per_tick_,
                                  has_zone_);
      default:
        return Literal::String(std::string((*views_)(i)));
    }
  }

 private:
  // Literal::Float documents finite values; a cast needs NaN and infinities too.
  static Literal FloatLiteral(double v) {
    Literal lit = Literal::Float(0);
    lit.float_value = v;
    return lit;
  }

  ArrayPtr values_;
  std::shared_ptr<pi::ViewReader> views_;
  int64_t nanos_per_tick_ = 1;
  bool has_zone_ = false;
};

// ---- writing a Literal into a builder of the target type ---------------------------

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

class SlotWriter {
 public:
  static Result<SlotWriter> Make(const DataTypePtr& to, const DataType& from) {
    SlotWriter w;
    w.to_ = to;
    LANCE_ASSIGN_OR_RAISE(w.builder_, MakeBuilder(to));
    if (to->id() == TypeId::kTimestamp) {
      LANCE_ASSIGN_OR_RAISE(w.to_offset_, ZoneOffset(*to));
      w.nanos_per_tick_ = pi::NanosPerUnit(to->unit());
    }
    LANCE_ASSIGN_OR_RAISE(w.from_offset_, ZoneOffset(from));
    w.from_ = from.ToString();
    w.from_is_narrow_float_ =
        from.id() == TypeId::kFloat16 || from.id() == TypeId::kFloat32;
    return w;
  }

  Status Reserve(int64_t n) { return builder_->Reserve(n); }

  Status Append(const Literal& v) {
    if (v.is_null()) return builder_->AppendNull();
    switch (to_->id()) {
      case TypeId::kBool:
        return AppendBool(v);
      case TypeId::kInt8:
        return AppendInt<int8_t>(v);
      case TypeId::kInt16:
        return AppendInt<int16_t>(v);
      case TypeId::kInt32:
        return AppendInt<int32_t>(v);
      case TypeId::kInt64:
        return AppendInt<int64_t>(v);
      case TypeId::kUInt8:
        return AppendInt<uint8_t>(v);
      case TypeId::kUInt16:
        return AppendInt<uint16_t>(v);
      case TypeId::kUInt32:
        return AppendInt<uint32_t>(v);
      case TypeId::kUInt64:
        return AppendInt<uint64_t>(v);
      case TypeId::kFloat16:
      case TypeId::kFloat32:
      case TypeId::kFloat64:
        return AppendFloat(v);
      case TypeId::kUtf8:
      case TypeId::kBinary:
        return AppendString<int32_t>(v);
      case TypeId::kLargeUtf8:
      case TypeId::kLargeBinary:
        return AppendString<int64_t>(v);
      case TypeId::kDate32:
        return AppendDate(v);
      case TypeId::kTimestamp:
        return AppendTimestamp(v);
      default:
        return Unsupported();
    }
  }

  Result<ArrayPtr> Finish() { return builder_->Finish(); }

 private:
  Status Unsupported() const {
    return Status::Invalid("cannot cast ", from_, " to ", to_->ToString());
  }
  Status DoesNotFit(const Literal& v) const {
    return Status::Invalid("cannot cast ", from_, " value ", Render(v), " to ",
                           to_->ToString(), ": out of range");
  }
  Status NotParsable(const Literal& v) const {
    return Status::Invalid("cannot cast ", from_, " value ", Render(v), " to ",
                           to_->ToString());
  }
  static std::string Render(const Literal& v) {
    if (v.kind == Literal::Kind::kFloat) return FormatFloat(v.float_value, false);
    return v.ToString();
  }

  // The wall-clock nanoseconds of a timestamp slot (in its column's zone).
  int128 LocalNanos(const Literal& v) const {
    return v.nanos + int128{from_offset_} * kNanosPerSecond;
  }

  Status AppendBool(const Literal& v) {
    auto* b = static_cast<BooleanBuilder*>(builder_.get());
    switch (v.kind) {
      case Literal::Kind::kBool:
        return b->Append(v.bool_value);
      case Literal::Kind::kInt:
        return b->Append(v.int_value != 0);
      case Literal::Kind::kFloat:
        return b->Append(v.float_value != 0);
      case Literal::Kind::kString: {
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
  Status AppendInt(const Literal& v) {
    int128 x = 0;
    switch (v.kind) {
      case Literal::Kind::kBool:
        x = v.bool_value ? 1 : 0;
        break;
      case Literal::Kind::kInt:
        x = v.int_value;
        break;
      case Literal::Kind::kFloat: {
        const double t = std::trunc(v.float_value);
        // 2^127 bounds every integer type; beyond it (and NaN) nothing fits.
        if (!(std::fabs(t) < 1.7e38)) return DoesNotFit(v);
        x = static_cast<int128>(t);
        break;
      }
      case Literal::Kind::kString: {
        auto parsed = ParseInteger(v.string_value);
        if (!parsed) return NotParsable(v);
        x = *parsed;
        break;
      }
      case Literal::Kind::kDate:
        x = v.days;  // days since the epoch, as Arrow's date32 -> integer cast
        break;
      default:
        return Unsupported();
    }
    if (x < pi::MinOf<T>() || x > pi::MaxOf<T>()) return DoesNotFit(v);
    return static_cast<NumericBuilder<T>*>(builder_.get())->Append(static_cast<T>(x));
  }

  Status AppendFloat(const Literal& v) {
    double d = 0;
    switch (v.kind) {
      case Literal::Kind::kBool:
        d = v.bool_value ? 1 : 0;
        break;
      case Literal::Kind::kInt:
        d = static_cast<double>(v.int_value);
        break;
      case Literal::Kind::kFloat:
        d = v.float_value;
        break;
      case Literal::Kind::kString: {
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
            ->Append(v.kind == Literal::Kind::kInt ? static_cast<float>(v.int_value)
                                                   : pi::RoundToFloat(d));
      default:
        return static_cast<DoubleBuilder*>(builder_.get())->Append(d);
    }
  }

  template <typename O>
  Status AppendString(const Literal& v) {
    auto* b = static_cast<BaseBinaryBuilder<O>*>(builder_.get());
    switch (v.kind) {
      case Literal::Kind::kString:
        return b->Append(v.string_value);
      case Literal::Kind::kBool:
        return b->Append(v.bool_value ? "true" : "false");
      case Literal::Kind::kInt:
        return b->Append(pi::Int128ToString(v.int_value));
      case Literal::Kind::kFloat:
        return b->Append(FormatFloat(v.float_value, from_is_narrow_float_));
      case Literal::Kind::kDate:
        return b->Append(pi::FormatDate(v.days));
      case Literal::Kind::kTimestamp: {
        // Arrow's rendering: ISO 8601 with a 'T'; a zoned value in its zone's local
        // time followed by the offset ('Z' for UTC).
        std::string s = pi::FormatTimestamp(LocalNanos(v));
        std::replace(s.begin(), s.end(), ' ', 'T');
        if (v.has_zone) s += OffsetSuffix(from_offset_);
        return b->Append(s);
      }
      default:
        return Unsupported();
    }
  }

  Status AppendDate(const Literal& v) {
    int128 days = 0;
    switch (v.kind) {
      case Literal::Kind::kDate:
        days = v.days;
        break;
      case Literal::Kind::kTimestamp:
        days = pi::FloorDiv(LocalNanos(v), kNanosPerDay);
        break;
      case Literal::Kind::kInt:
        days = v.int_value;  // a day count, as Arrow's integer -> date32 cast
        break;
      case Literal::Kind::kString: {
        if (auto d = pi::ParseDate(Trim(v.string_value))) {
          days = *d;
        } else if (auto ts = pi::ParseTimestamp(Trim(v.string_value))) {
          days = pi::FloorDiv(ts->nanos, kNanosPerDay);
        } else {
          return NotParsable(v);
        }
        break;
      }
      default:
        return Unsupported();
    }
    if (days < pi::MinOf<int32_t>() || days > pi::MaxOf<int32_t>()) return DoesNotFit(v);
    return static_cast<Date32Builder*>(builder_.get())
        ->Append(static_cast<int32_t>(days));
  }

  Status AppendTimestamp(const Literal& v) {
    int128 nanos = 0;
    switch (v.kind) {
      case Literal::Kind::kDate:
        nanos = int128{v.days} * kNanosPerDay;
        break;
      case Literal::Kind::kTimestamp:
        // An instant stays the same instant; wall-clock time is read in the target zone.
        nanos = v.has_zone ? v.nanos : v.nanos - int128{to_offset_} * kNanosPerSecond;
        break;
      case Literal::Kind::kString: {
        auto ts = pi::ParseTimestamp(Trim(v.string_value));
        if (!ts) return NotParsable(v);
        nanos =
            ts->has_zone ? ts->nanos : ts->nanos - int128{to_offset_} * kNanosPerSecond;
        break;
      }
      case Literal::Kind::kInt:
        // A number is a count of the target's unit since the epoch, as in Arrow.
        nanos = v.int_value * nanos_per_tick_;
        break;
      default:
        return Unsupported();
    }
    const int128 ticks = nanos / nanos_per_tick_;  // toward zero, as Arrow's cast
    if (ticks < pi::MinOf<int64_t>() || ticks > pi::MaxOf<int64_t>()) {
      return DoesNotFit(v);
    }
    return static_cast<TimestampBuilder*>(builder_.get())
        ->Append(static_cast<int64_t>(ticks));
  }

  DataTypePtr to_;
  std::string from_;
  std::unique_ptr<ArrayBuilder> builder_;
  int64_t to_offset_ = 0;
  int64_t from_offset_ = 0;
  int64_t nanos_per_tick_ = 1;
  bool from_is_narrow_float_ = false;
};

// Integer or float widening that loses nothing: CastNumeric's vectorised conversions.
bool IsLosslessNumericWidening(const DataType& from, const DataType& to) {
  if (!(IsIntegerId(from.id()) || from.is_floating())) return false;
  if (!(IsIntegerId(to.id()) || to.is_floating())) return false;
  if (from.is_floating() || to.is_floating()) {
    return from.is_floating() && to.is_floating() && to.byte_width() >= from.byte_width();
  }
  const bool from_signed = from.is_signed_integer();
  const bool to_signed = to.is_signed_integer();
  if (from_signed && !to_signed) return false;
  if (from_signed == to_signed) return to.byte_width() >= from.byte_width();
  return to.byte_width() > from.byte_width();  // unsigned into a wider signed type
}

Result<ArrayPtr> CastSlots(const ArrayPtr& values, const DataTypePtr& to) {
  LANCE_ASSIGN_OR_RAISE(SlotReader reader, SlotReader::Make(values));
  LANCE_ASSIGN_OR_RAISE(SlotWriter writer, SlotWriter::Make(to, *values->type()));
  const int64_t n = values->length();
  LANCE_RETURN_NOT_OK(writer.Reserve(n));
  for (int64_t i = 0; i < n; ++i) LANCE_RETURN_NOT_OK(writer.Append(reader.Get(i)));
  return writer.Finish();
}

// A literal as `n` slots of `type` (its own type when type is nullptr: a NULL literal is
// a null-typed array).
Result<ArrayPtr> Broadcast(const Literal& value, const DataTypePtr& type, int64_t n) {
  if (!type || value.is_null()) {
    if (!type) return ArrayPtr(NullArray::Make(n));
    LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(type));
    LANCE_RETURN_NOT_OK(builder->AppendNulls(n));
    return builder->Finish();
  }
  LANCE_ASSIGN_OR_RAISE(SlotWriter writer, SlotWriter::Make(type, *type));
  LANCE_RETURN_NOT_OK(writer.Reserve(n));
  if (n > 0) {
    // Convert once (errors surface here), then repeat the converted slot.
    LANCE_RETURN_NOT_OK(writer.Append(value));
    for (int64_t i = 1; i < n; ++i) LANCE_RETURN_NOT_OK(writer.Append(value));
  }
  return writer.Finish();
}

// ---- function nodes -----------------------------------------------------------------

std::string TypeName(const pi::Expr& e) {
  return e.type() ? e.type()->ToString() : "null";
}

bool IsStringLikeId(TypeId id) {
  return id == TypeId::kUtf8 || id == TypeId::kLargeUtf8 || id == TypeId::kBinary ||
         id == TypeId::kLargeBinary;
}

// An expression's value as an array of batch.num_rows() slots.
Result<ArrayPtr> EvalArray(const pi::Expr& e, const RecordBatch& batch) {
  LANCE_ASSIGN_OR_RAISE(pi::Datum d, e.Evaluate(batch));
  if (d.is_array()) return d.array;
  return Broadcast(d.scalar, e.type(), batch.num_rows());
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
  using Fn = std::function<Result<Literal>(const std::vector<Literal>&)>;

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
    LANCE_ASSIGN_OR_RAISE(ArrayPtr out, CastArray(values, type()));
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

// ---- UTF-8 helpers ------------------------------------------------------------------

// Decodes the code point at s[*i] and advances *i (an invalid byte is taken as itself).
uint32_t NextCodePoint(std::string_view s, size_t* i) {
  const auto b0 = static_cast<unsigned char>(s[*i]);
  int len = 1;
  uint32_t cp = b0;
  if (b0 >= 0xF0) {
    len = 4;
    cp = b0 & 0x07;
  } else if (b0 >= 0xE0) {
    len = 3;
    cp = b0 & 0x0F;
  } else if (b0 >= 0xC0) {
    len = 2;
    cp = b0 & 0x1F;
  }
  if (*i + static_cast<size_t>(len) > s.size()) len = 1;
  if (len == 1) {
    ++*i;
    return b0;
  }
  for (int k = 1; k < len; ++k) {
    cp = (cp << 6) | (static_cast<unsigned char>(s[*i + static_cast<size_t>(k)]) & 0x3F);
  }
  *i += static_cast<size_t>(len);
  return cp;
}

void PutCodePoint(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Simple case mappings of Latin (ASCII, Latin-1, Latin Extended-A), Greek and Cyrillic;
// other code points are left as they are.
uint32_t ToLowerCp(uint32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c < 0x80) return c;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  if (c >= 0x100 && c <= 0x137 && c % 2 == 0) return c + 1;
  if (c >= 0x139 && c <= 0x148 && c % 2 == 1) return c + 1;
  if (c >= 0x14A && c <= 0x177 && c % 2 == 0) return c + 1;
  if (c == 0x178) return 0xFF;
  if (c >= 0x179 && c <= 0x17E && c % 2 == 1) return c + 1;
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

uint32_t ToUpperCp(uint32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  if (c < 0x80) return c;
  if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 32;
  if (c == 0xFF) return 0x178;
  if (c >= 0x101 && c <= 0x137 && c % 2 == 1) return c - 1;
  if (c >= 0x13A && c <= 0x148 && c % 2 == 0) return c - 1;
  if (c >= 0x14B && c <= 0x177 && c % 2 == 1) return c - 1;
  if (c >= 0x17A && c <= 0x17E && c % 2 == 0) return c - 1;
  if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) return c - 32;
  if (c == 0x3C2) return 0x3A3;
  if (c >= 0x430 && c <= 0x44F) return c - 32;
  if (c >= 0x450 && c <= 0x45F) return c - 80;
  return c;
}

bool IsCased(uint32_t cp) { return ToLowerCp(cp) != cp || ToUpperCp(cp) != cp; }

std::string MapCase(std::string_view s, bool upper) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  uint32_t previous = 0;
  while (i < s.size()) {
    const uint32_t cp = NextCodePoint(s, &i);
    if (upper && cp == 0xDF) {  // ß has no single upper-case letter
      out += "SS";
    } else if (!upper && cp == 0x3A3 && IsCased(previous)) {
      // Σ ends a word as ς (as Rust's to_lowercase): a cased letter before, none after.
      size_t next = i;
      const bool more = next < s.size() && IsCased(NextCodePoint(s, &next));
      PutCodePoint(more ? 0x3C3 : 0x3C2, &out);
    } else {
      PutCodePoint(upper ? ToUpperCp(cp) : ToLowerCp(cp), &out);
    }
    previous = cp;
  }
  return out;
}

std::vector<uint32_t> CodePoints(std::string_view s) {
  std::vector<uint32_t> out;
  size_t i = 0;
  while (i < s.size()) out.push_back(NextCodePoint(s, &i));
  return out;
}

int64_t CharCount(std::string_view s) {
  int64_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

// Byte offset of character `k` (0-based, clamped to the end).
size_t CharOffset(std::string_view s, int64_t k) {
  size_t i = 0;
  while (k > 0 && i < s.size()) {
    NextCodePoint(s, &i);
    --k;
  }
  return i;
}

std::string Trimmed(std::string_view s, std::string_view chars, bool left, bool right) {
  const std::vector<uint32_t> set = CodePoints(chars);
  auto in_set = [&](uint32_t cp) {
    return std::find(set.begin(), set.end(), cp) != set.end();
  };
  size_t begin = 0;
  if (left) {
    while (begin < s.size()) {
      size_t next = begin;
      if (!in_set(NextCodePoint(s, &next))) break;
      begin = next;
    }
  }
  size_t end = s.size();
  if (right) {
    while (end > begin) {
      size_t start = end - 1;
      while (start > begin && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80)
        --start;
      size_t probe = start;
      if (!in_set(NextCodePoint(s, &probe))) break;
      end = start;
    }
  }
  return std::string(s.substr(begin, end - begin));
}

// ---- dates ---------------------------------------------------------------------------

struct Civil {
  int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

// Proleptic Gregorian date of a day count since 1970-01-01.
Civil CivilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// ISO 8601 week number (1..53) of a day count.
int IsoWeek(int64_t days) {
  const int64_t dow = ((days + 3) % 7 + 7) % 7;  // Monday = 0
  const int64_t thursday = days - dow + 3;
  const Civil c = CivilFromDays(thursday);
  const int64_t jan1 = DaysFromCivil(c.year, 1, 1);
  return static_cast<int>((thursday - jan1) / 7 + 1);
}

enum class DatePart : uint8_t {
  kYear,
  kQuarter,
  kMonth,
  kWeek,
  kDay,
  kDow,
  kDoy,
  kHour,
  kMinute,
  kSecond,
  kMillisecond,
  kMicrosecond,
  kNanosecond,
  kEpoch,
};

std::optional<DatePart> ParseDatePart(std::string_view name) {
  struct Entry {
    std::string_view name;
    DatePart part;
  };
  static constexpr Entry kParts[] = {
      {"year", DatePart::kYear},
      {"years", DatePart::kYear},
      {"quarter", DatePart::kQuarter},
      {"month", DatePart::kMonth},
      {"months", DatePart::kMonth},
      {"week", DatePart::kWeek},
      {"weeks", DatePart::kWeek},
      {"day", DatePart::kDay},
      {"days", DatePart::kDay},
      {"dow", DatePart::kDow},
      {"doy", DatePart::kDoy},
      {"hour", DatePart::kHour},
      {"hours", DatePart::kHour},
      {"minute", DatePart::kMinute},
      {"minutes", DatePart::kMinute},
      {"second", DatePart::kSecond},
      {"seconds", DatePart::kSecond},
      {"millisecond", DatePart::kMillisecond},
      {"milliseconds", DatePart::kMillisecond},
      {"microsecond", DatePart::kMicrosecond},
      {"microseconds", DatePart::kMicrosecond},
      {"nanosecond", DatePart::kNanosecond},
      {"nanoseconds", DatePart::kNanosecond},
      {"epoch", DatePart::kEpoch},
  };
  for (const auto& e : kParts) {
    if (EqualsIgnoreAsciiCase(name, e.name)) return e.part;
  }
  return std::nullopt;
}

// The part of a wall-clock time given as nanoseconds since the epoch.
Literal ExtractPart(DatePart part, int128 nanos) {
  const int128 days128 = pi::FloorDiv(nanos, kNanosPerDay);
  const auto days = static_cast<int64_t>(days128);
  const auto in_day = static_cast<int64_t>(nanos - days128 * kNanosPerDay);
  const Civil c = CivilFromDays(days);
  const int64_t second_nanos = in_day % (int64_t{60} * kNanosPerSecond);
  switch (part) {
    case DatePart::kYear:
      return Literal::Int(c.year);
    case DatePart::kQuarter:
      return Literal::Int((c.month - 1) / 3 + 1);
    case DatePart::kMonth:
      return Literal::Int(c.month);
    case DatePart::kWeek:
      return Literal::Int(IsoWeek(days));
    case DatePart::kDay:
      return Literal::Int(c.day);
    case DatePart::kDow:
      return Literal::Int(((days + 4) % 7 + 7) % 7);  // Sunday = 0
    case DatePart::kDoy:
      return Literal::Int(days - DaysFromCivil(c.year, 1, 1) + 1);
    case DatePart::kHour:
      return Literal::Int(in_day / (int64_t{3600} * kNanosPerSecond));
    case DatePart::kMinute:
      return Literal::Int(in_day / (int64_t{60} * kNanosPerSecond) % 60);
    case DatePart::kSecond:
      return Literal::Int(second_nanos / kNanosPerSecond);
    case DatePart::kMillisecond:
      return Literal::Int(second_nanos / 1000000);
    case DatePart::kMicrosecond:
      return Literal::Int(second_nanos / 1000);
    case DatePart::kNanosecond:
      return Literal::Int(second_nanos);
    case DatePart::kEpoch: {
      Literal l = Literal::Float(0);
      l.float_value = static_cast<double>(nanos) / 1e9;
      return l;
    }
  }
  return Literal::Null();
}

// ---- typing ---------------------------------------------------------------------------

int IntWidth(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 1;
    case TypeId::kInt16:
    case TypeId::kUInt16:
      return 2;
    case TypeId::kInt32:
    case TypeId::kUInt32:
      return 4;
    default:
      return 8;
  }
}

DataTypePtr SignedOfWidth(int w) {
  switch (w) {
    case 1:
      return int8();
    case 2:
      return int16();
    case 4:
      return int32();
    default:
      return int64();
  }
}

// The type two values meet in for COALESCE and CASE (DataFusion's coercion for the
// common cases); nullptr when `a` and `b` cannot meet.
DataTypePtr CommonType(const DataTypePtr& a, const DataTypePtr& b) {
  if (!a || a->id() == TypeId::kNull) return b;
  if (!b || b->id() == TypeId::kNull) return a;
  if (a->Equals(*b)) return a;
  const TypeId x = a->id();
  const TypeId y = b->id();
  if (IsIntegerId(x) && IsIntegerId(y)) {
    const bool sa = a->is_signed_integer();
    const bool sb = b->is_signed_integer();
    const int wa = IntWidth(x);
    const int wb = IntWidth(y);
    if (sa == sb) return wa >= wb ? a : b;
    const int ws = sa ? wa : wb;
    const int wu = sa ? wb : wa;
    if (ws > wu) return sa ? a : b;
    return SignedOfWidth(std::min(8, wu * 2));
  }
  const bool na = IsIntegerId(x) || a->is_floating();
  const bool nb = IsIntegerId(y) || b->is_floating();
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

Status RequireArgs(std::string_view name, const std::vector<pi::ExprPtr>& args,
                   size_t min, size_t max) {
  if (args.size() < min || args.size() > max) {
    std::string want = min == max ? std::to_string(min)
                                  : std::to_string(min) + " to " + std::to_string(max);
    if (max == SIZE_MAX) want = "at least " + std::to_string(min);
    return Status::Invalid("function '", name, "' takes ", want, " argument",
                           (min == 1 && max == 1) ? "" : "s", ", not ", args.size());
  }
  return Status::OK();
}

bool IsStringOrNull(const pi::Expr& e) {
  return !e.type() || e.type()->id() == TypeId::kNull ||
         e.type()->id() == TypeId::kUtf8 || e.type()->id() == TypeId::kLargeUtf8;
}

Status RequireString(std::string_view name, const pi::Expr& e) {
  if (IsStringOrNull(e)) return Status::OK();
  return Status::Invalid("function '", name, "' needs a string, but ", e.ToString(),
                         " is ", TypeName(e));
}

Status RequireNumber(std::string_view name, const pi::Expr& e) {
  if (!e.type() || IsIntegerId(e.type()->id()) || e.type()->is_floating()) {
    return Status::OK();
  }
  return Status::Invalid("function '", name, "' needs a number, but ", e.ToString(),
                         " is ", TypeName(e));
}

DataTypePtr StringResult(const pi::Expr& e) {
  return e.type() && e.type()->id() == TypeId::kLargeUtf8 ? large_utf8() : utf8();
}

pi::ExprPtr MakeRow(std::string name, std::vector<pi::ExprPtr> args, DataTypePtr type,
                    bool strict, RowFunctionExpr::Fn fn) {
  return std::make_shared<RowFunctionExpr>(std::move(name), std::move(args),
                                           std::move(type), strict, std::move(fn));
}

// Equality of two non-NULL values of types that meet (nullif).
bool SameValue(const Literal& a, const Literal& b) {
  using K = Literal::Kind;
  if (a.is_numeric() && b.is_numeric()) {
    if (a.kind == K::kInt && b.kind == K::kInt) return a.int_value == b.int_value;
    const double x = a.kind == K::kInt ? static_cast<double>(a.int_value) : a.float_value;
    const double y = b.kind == K::kInt ? static_cast<double>(b.int_value) : b.float_value;
    return x == y;
  }
  if (a.kind != b.kind) {
    if (a.kind == K::kDate && b.kind == K::kTimestamp) {
      return int128{a.days} * kNanosPerDay == b.nanos;
    }
    if (a.kind == K::kTimestamp && b.kind == K::kDate) {
      return int128{b.days} * kNanosPerDay == a.nanos;
    }
    return false;
  }
  switch (a.kind) {
    case K::kBool:
      return a.bool_value == b.bool_value;
    case K::kString:
      return a.string_value == b.string_value;
    case K::kDate:
      return a.days == b.days;
    case K::kTimestamp:
      return a.nanos == b.nanos;
    default:
      return false;
  }
}

int64_t AsInt(const Literal& l) {
  if (l.kind == Literal::Kind::kFloat) return static_cast<int64_t>(l.float_value);
  return static_cast<int64_t>(l.int_value);
}

Literal FloatValue(double v) {
  Literal l = Literal::Float(0);
  l.float_value = v;
  return l;
}

}  // namespace

namespace predicate_internal {

Result<ArrayPtr> BroadcastLiteral(const Literal& value, const DataTypePtr& type,
                                  int64_t n) {
  return Broadcast(value, type, n);
}

Result<ExprPtr> MakeCast(ExprPtr operand, DataTypePtr to) {
  auto node = std::make_shared<CastExpr>(operand, to);
  if (const Literal* lit = operand->literal()) {
    // Fold a constant cast (an error, such as CAST('x' AS INT), shows at parse time);
    // the result stays a literal when a literal of its kind has the target type.
    LANCE_ASSIGN_OR_RAISE(ArrayPtr one, Broadcast(*lit, operand->type(), 1));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr cast, CastArray(one, to));
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

namespace {

// The factories of the SQL functions MakeFunction knows; `name` is the lower-case
// name the query used (some functions have aliases).
Result<ExprPtr> MakeCaseMapping(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, 1));
  LANCE_RETURN_NOT_OK(RequireString(name, *args[0]));
  const bool upper = name == "upper";
  const DataTypePtr type = StringResult(*args[0]);
  return MakeRow(name, std::move(args), type, true,
                 [upper](const std::vector<Literal>& a) -> Result<Literal> {
                   return Literal::String(MapCase(a[0].string_value, upper));
                 });
}

Result<ExprPtr> MakeLength(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, 1));
  if (!IsStringOrNull(*args[0])) {
    LANCE_ASSIGN_OR_RAISE(args[0], MakeCast(args[0], utf8()));
  }
  const bool bytes = name == "octet_length";
  const DataTypePtr type =
      args[0]->type() && args[0]->type()->id() == TypeId::kLargeUtf8 ? int64() : int32();
  return MakeRow(
      name, std::move(args), type, true,
      [bytes](const std::vector<Literal>& a) -> Result<Literal> {
        const std::string& s = a[0].string_value;
        return Literal::Int(bytes ? static_cast<int64_t>(s.size()) : CharCount(s));
      });
}

Result<ExprPtr> MakeConcat(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, SIZE_MAX));
  for (auto& a : args) {
    if (!IsStringOrNull(*a)) {
      LANCE_ASSIGN_OR_RAISE(a, MakeCast(a, utf8()));
    }
  }
  return MakeRow(name, std::move(args), utf8(), false,
                 [](const std::vector<Literal>& a) -> Result<Literal> {
                   std::string out;
                   for (const auto& v : a) {
                     if (!v.is_null()) out += v.string_value;
                   }
                   return Literal::String(std::move(out));
                 });
}

Result<ExprPtr> MakeSubstring(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 2, 3));
  LANCE_RETURN_NOT_OK(RequireString(name, *args[0]));
  for (size_t k = 1; k < args.size(); ++k) {
    if (args[k]->type() && !IsIntegerId(args[k]->type()->id())) {
      return Status::Invalid("function '", name, "' needs integer positions, but ",
                             args[k]->ToString(), " is ", TypeName(*args[k]));
    }
  }
  const DataTypePtr type = StringResult(*args[0]);
  return MakeRow(name, std::move(args), type, true,
                 [](const std::vector<Literal>& a) -> Result<Literal> {
                   const std::string& s = a[0].string_value;
                   const int64_t start = AsInt(a[1]);  // 1-based, may be <= 0
                   int64_t end = std::numeric_limits<int64_t>::max();  // exclusive
                   if (a.size() > 2) {
                     const int64_t len = AsInt(a[2]);
                     if (len < 0) {
                       return Status::Invalid("negative substring length ", len);
                     }
                     end = start > std::numeric_limits<int64_t>::max() - len
                               ? std::numeric_limits<int64_t>::max()
                               : start + len;
                   }
                   const int64_t from = std::max<int64_t>(start, 1);
                   if (end <= from) return Literal::String("");
                   const size_t b = CharOffset(s, from - 1);
                   const size_t e = end == std::numeric_limits<int64_t>::max()
                                        ? s.size()
                                        : CharOffset(s, end - 1);
                   return Literal::String(s.substr(b, e - b));
                 });
}

Result<ExprPtr> MakeTrim(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, 2));
  for (const auto& a : args) LANCE_RETURN_NOT_OK(RequireString(name, *a));
  const bool left = name != "rtrim";
  const bool right = name != "ltrim";
  const DataTypePtr type = StringResult(*args[0]);
  return MakeRow(name, std::move(args), type, true,
                 [left, right](const std::vector<Literal>& a) -> Result<Literal> {
                   const std::string_view chars =
                       a.size() > 1 ? std::string_view(a[1].string_value) : " ";
                   return Literal::String(Trimmed(a[0].string_value, chars, left, right));
                 });
}

Result<ExprPtr> MakeReplace(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 3, 3));
  for (const auto& a : args) LANCE_RETURN_NOT_OK(RequireString(name, *a));
  const DataTypePtr type = StringResult(*args[0]);
  return MakeRow(name, std::move(args), type, true,
                 [](const std::vector<Literal>& a) -> Result<Literal> {
                   const std::string& s = a[0].string_value;
                   const std::string& from = a[1].string_value;
                   const std::string& to = a[2].string_value;
                   std::string out;
                   if (from.empty()) {
                     // An empty pattern matches before every character and at the end.
                     size_t i = 0;
                     while (i < s.size()) {
                       out += to;
                       const size_t start = i;
                       NextCodePoint(s, &i);
                       out.append(s, start, i - start);
                     }
                     return Literal::String(out + to);
                   }
                   size_t pos = 0;
                   while (true) {
                     const size_t hit = s.find(from, pos);
                     if (hit == std::string::npos) break;
                     out.append(s, pos, hit - pos);
                     out += to;
                     pos = hit + from.size();
                   }
                   out.append(s, pos, std::string::npos);
                   return Literal::String(std::move(out));
                 });
}

Result<ExprPtr> MakeAffixTest(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 2, 2));
  for (const auto& a : args) LANCE_RETURN_NOT_OK(RequireString(name, *a));
  const bool starts = name == "starts_with";
  return MakeRow(name, std::move(args), boolean(), true,
                 [starts](const std::vector<Literal>& a) -> Result<Literal> {
                   const std::string_view s = a[0].string_value;
                   const std::string_view p = a[1].string_value;
                   return Literal::Bool(starts ? s.starts_with(p) : s.ends_with(p));
                 });
}

Result<ExprPtr> MakeStrpos(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 2, 2));
  for (const auto& a : args) LANCE_RETURN_NOT_OK(RequireString(name, *a));
  return MakeRow(name, std::move(args), int32(), true,
                 [](const std::vector<Literal>& a) -> Result<Literal> {
                   const std::string_view s = a[0].string_value;
                   const size_t hit = s.find(a[1].string_value);
                   // 1-based character position; 0 when absent.
                   if (hit == std::string_view::npos) return Literal::Int(0);
                   return Literal::Int(CharCount(s.substr(0, hit)) + 1);
                 });
}

Result<ExprPtr> MakeReverse(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, 1));
  LANCE_RETURN_NOT_OK(RequireString(name, *args[0]));
  const DataTypePtr type = StringResult(*args[0]);
  return MakeRow(name, std::move(args), type, true,
                 [](const std::vector<Literal>& a) -> Result<Literal> {
                   std::vector<uint32_t> cps = CodePoints(a[0].string_value);
                   std::string out;
                   out.reserve(a[0].string_value.size());
                   for (auto it = cps.rbegin(); it != cps.rend(); ++it) {
                     PutCodePoint(*it, &out);
                   }
                   return Literal::String(std::move(out));
                 });
}

Result<ExprPtr> MakeNullif(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 2, 2));
  DataTypePtr type = CommonType(args[0]->type(), args[1]->type());
  if (!type && args[0]->type() && args[1]->type()) {
    return Status::Invalid("nullif arguments do not share a type: ", args[0]->ToString(),
                           " is ", TypeName(*args[0]), " and ", args[1]->ToString(),
                           " is ", TypeName(*args[1]));
  }
  if (!type) return MakeLiteral(Literal::Null());
  return MakeRow(name, std::move(args), type, false,
                 [](const std::vector<Literal>& a) -> Result<Literal> {
                   if (a[0].is_null() || a[1].is_null()) return a[0];
                   return SameValue(a[0], a[1]) ? Literal::Null() : a[0];
                 });
}

Result<ExprPtr> MakeAbs(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, 1));
  LANCE_RETURN_NOT_OK(RequireNumber(name, *args[0]));
  const DataTypePtr type = args[0]->type() ? args[0]->type() : int64();
  return MakeRow(
      name, std::move(args), type, true,
      [](const std::vector<Literal>& a) -> Result<Literal> {
        if (a[0].kind == Literal::Kind::kFloat) {
          return FloatValue(std::fabs(a[0].float_value));
        }
        return Literal::Int(a[0].int_value < 0 ? -a[0].int_value : a[0].int_value);
      });
}

Result<ExprPtr> MakeRound(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, 2));
  LANCE_RETURN_NOT_OK(RequireNumber(name, *args[0]));
  if (args.size() > 1 && args[1]->type() && !IsIntegerId(args[1]->type()->id())) {
    return Status::Invalid("function 'round' needs an integer number of places, but ",
                           args[1]->ToString(), " is ", TypeName(*args[1]));
  }
  const bool single = args[0]->type() && (args[0]->type()->id() == TypeId::kFloat32 ||
                                          args[0]->type()->id() == TypeId::kFloat16);
  return MakeRow(name, std::move(args), single ? float32() : float64(), true,
                 [single](const std::vector<Literal>& a) -> Result<Literal> {
                   const int64_t places = a.size() > 1 ? AsInt(a[1]) : 0;
                   const double x = a[0].kind == Literal::Kind::kFloat
                                        ? a[0].float_value
                                        : static_cast<double>(a[0].int_value);
                   if (single) {
                     // Computed in float32, as DataFusion does for float32 input.
                     const float scale = std::pow(10.0F, static_cast<float>(places));
                     return FloatValue(std::round(static_cast<float>(x) * scale) / scale);
                   }
                   const double scale = std::pow(10.0, static_cast<double>(places));
                   return FloatValue(std::round(x * scale) / scale);
                 });
}

Result<ExprPtr> MakeCoalesce(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, SIZE_MAX));
  DataTypePtr type;
  for (const auto& a : args) {
    DataTypePtr next = CommonType(type, a->type());
    if (!next && a->type()) {
      return Status::Invalid("coalesce arguments do not share a type: ", a->ToString(),
                             " is ", TypeName(*a), " but an earlier one is ",
                             type->ToString());
    }
    type = next;
  }
  if (!type) return MakeLiteral(Literal::Null());
  return MakeRow(name, std::move(args), type, false,
                 [](const std::vector<Literal>& a) -> Result<Literal> {
                   for (const auto& v : a) {
                     if (!v.is_null()) return v;
                   }
                   return Literal::Null();
                 });
}

Result<ExprPtr> MakeDatePart(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 2, 2));
  const Literal* part_lit = args[0]->literal();
  if (!part_lit || part_lit->kind != Literal::Kind::kString) {
    return Status::Invalid(
        "function 'date_part' needs the part as a string literal "
        "('year', 'month', ...), not ",
        args[0]->ToString());
  }
  auto part = ParseDatePart(part_lit->string_value);
  if (!part) {
    return Status::Invalid("date_part does not know the part '", part_lit->string_value,
                           "' (year, quarter, month, week, day, dow, doy, hour, minute, "
                           "second, millisecond, microsecond, nanosecond, epoch)");
  }
  const DataTypePtr& t = args[1]->type();
  if (t && t->id() != TypeId::kDate32 && t->id() != TypeId::kTimestamp) {
    return Status::Invalid("date_part needs a date or timestamp, but ",
                           args[1]->ToString(), " is ", TypeName(*args[1]));
  }
  int64_t offset = 0;
  if (t) {
    LANCE_ASSIGN_OR_RAISE(offset, ZoneOffset(*t));
  }
  const DatePart p = *part;
  std::vector<ExprPtr> operand{args[1]};
  return MakeRow("date_part('" + AsciiToLower(part_lit->string_value) + "')",
                 std::move(operand), p == DatePart::kEpoch ? float64() : int32(), true,
                 [p, offset](const std::vector<Literal>& a) -> Result<Literal> {
                   const int128 nanos =
                       a[0].kind == Literal::Kind::kDate
                           ? int128{a[0].days} * kNanosPerDay
                           : a[0].nanos + int128{offset} * kNanosPerSecond;
                   return ExtractPart(p, nanos);
                 });
}

using FunctionFactory = Result<ExprPtr> (*)(const std::string& name,
                                            std::vector<ExprPtr> args);

struct FunctionEntry {
  std::string_view name;
  FunctionFactory make;
};

constexpr FunctionEntry kFunctions[] = {
    {"lower", MakeCaseMapping},
    {"upper", MakeCaseMapping},
    {"length", MakeLength},
    {"char_length", MakeLength},
    {"character_length", MakeLength},
    {"octet_length", MakeLength},
    {"concat", MakeConcat},
    {"substr", MakeSubstring},
    {"substring", MakeSubstring},
    {"trim", MakeTrim},
    {"btrim", MakeTrim},
    {"ltrim", MakeTrim},
    {"rtrim", MakeTrim},
    {"replace", MakeReplace},
    {"starts_with", MakeAffixTest},
    {"ends_with", MakeAffixTest},
    {"strpos", MakeStrpos},
    {"instr", MakeStrpos},
    {"reverse", MakeReverse},
    {"nullif", MakeNullif},
    {"abs", MakeAbs},
    {"round", MakeRound},
    {"coalesce", MakeCoalesce},
    {"date_part", MakeDatePart},
    {"datepart", MakeDatePart},
};

}  // namespace

Result<ExprPtr> MakeFunction(std::string_view name_in, std::vector<ExprPtr> args) {
  const std::string name = AsciiToLower(name_in);
  for (const FunctionEntry& f : kFunctions) {
    if (f.name == name) return f.make(name, std::move(args));
  }
  return Status::Invalid("unknown function '", std::string(name_in), "'");
}

}  // namespace predicate_internal

namespace {

class BoundValueExpression final : public ValueExpression {
 public:
  BoundValueExpression(std::string text, pi::ExprPtr root)
      : text_(std::move(text)), root_(std::move(root)) {
    std::vector<std::string> all;
    root_->CollectColumns(&all);
    for (auto& name : all) {
      if (std::find(columns_.begin(), columns_.end(), name) == columns_.end()) {
        columns_.push_back(std::move(name));
      }
    }
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
    return Broadcast(datum->scalar, root_->type(), batch.num_rows());
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

Result<ArrayPtr> CastArray(const ArrayPtr& values, const DataTypePtr& to) {
  if (!values || !to) return Status::Invalid("CastArray needs values and a target type");
  const DataType& from = *values->type();
  if (from.Equals(*to)) return values;
  if (from.id() == TypeId::kNull) return Broadcast(Literal::Null(), to, values->length());
  if (IsLosslessNumericWidening(from, *to)) return pi::CastNumeric(*values, to);
  return CastSlots(values, to);
}

}  // namespace lance::table
