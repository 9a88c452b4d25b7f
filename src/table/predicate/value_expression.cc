// SPDX-License-Identifier: Apache-2.0
//
// Value expressions (value_expression.h) over the predicate language's bound Expr tree,
// the CAST, CASE and || nodes, the row-by-row function node the SQL functions
// (functions.cc) are built from, and CastArray, the conversion used to store a value into
// a column of another type.
//
// CastArray works value by value through a Literal (bound_expr.h), the parser's scalar:
// each slot is read as one (integers as int128, floats as double, dates as days,
// timestamps as nanoseconds) and written into a builder of the target type, checking
// that it fits. Numeric widenings take a vectorised path (CastNumeric).

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

std::string TypeName(const Expr& e) { return e.type() ? e.type()->ToString() : "null"; }

}  // namespace predicate_internal

namespace {

using pi::int128;
using pi::Literal;
using pi::TypeName;
using pi::ZoneOffset;

constexpr int64_t kNanosPerSecond = 1000000000;
constexpr int128 kNanosPerDay = int128{86400} * kNanosPerSecond;

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
    const int wa = IntWidth(x);
    const int wb = IntWidth(y);
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
