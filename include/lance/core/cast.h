// SPDX-License-Identifier: Apache-2.0
/// \file cast.h
/// \brief Per-value conversion of arrays between types (SQL CAST semantics) and the
/// scalar it works through.
///
/// Cast reads each slot as a Scalar (integers as int128, floats as double, dates as
/// days, timestamps as nanoseconds, strings as bytes) with ScalarReader and writes it
/// into an array of the target type with ScalarWriter, checking that it fits. Numeric
/// widenings that lose nothing take a vectorised path (CastNumeric). The filter language
/// (src/table/predicate) uses the same Scalar for its literals and the reader / writer
/// for its row-by-row functions.

#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/core/type.h"
#include "lance/result.h"

namespace lance::compute {

/// \brief Integers of every integer type (and the negations of uint64 values) and
/// timestamps in nanoseconds over years 0000-9999 fit exactly.
using int128 = __int128;

/// \brief One value in the cast's common representation. The filter language's literal
/// is this type.
struct Scalar {
  enum class Kind : uint8_t { kNull, kBool, kInt, kFloat, kString, kDate, kTimestamp };

  Kind kind = Kind::kNull;
  bool bool_value = false;
  int128 int_value = 0;      ///< kInt, within [-(2^64 - 1), 2^64 - 1]
  double float_value = 0;    ///< kFloat (a literal's is finite; a slot's may not be)
  std::string string_value;  ///< kString, raw bytes
  int32_t days = 0;          ///< kDate: days since the epoch
  /// kTimestamp: nanoseconds since the epoch (int128: every year 0000-9999 fits), UTC
  /// when has_zone, else the wall-clock time read as UTC (its zone is the column's).
  int128 nanos = 0;
  bool has_zone = false;  ///< kTimestamp: an instant (written with Z or an offset)

  static Scalar Null() { return Scalar{}; }
  static Scalar Bool(bool v);
  static Scalar Int(int128 v);
  static Scalar Float(double v);
  static Scalar String(std::string v);
  static Scalar Date(int32_t days);
  static Scalar Timestamp(int128 nanos, bool has_zone);

  bool is_null() const { return kind == Kind::kNull; }
  bool is_numeric() const { return kind == Kind::kInt || kind == Kind::kFloat; }
  /// \brief The type Lance reads this numeric value as: int64 when it fits int64, else
  /// uint64 when it fits that, else float64 (so -9223372036854775808, minus applied to
  /// 2^63, is float64); non-integers are float64. nullptr for other kinds.
  DataTypePtr number_type() const;
  /// \brief Re-parsable SQL spelling: 42, 1.5, 'it''s', DATE '2024-01-02', NULL, ...
  std::string ToString() const;
  /// \brief "integer", "float", "string", ... for error messages.
  std::string_view KindName() const;
};

// ---- the scalar's numbers, dates and timestamps -----------------------------------

/// \brief The smallest and largest values of integer type T, as int128.
template <typename T>
constexpr int128 MinOf() {
  return static_cast<int128>(std::numeric_limits<T>::min());
}
template <typename T>
constexpr int128 MaxOf() {
  return static_cast<int128>(std::numeric_limits<T>::max());
}
/// \brief num / den rounded toward negative infinity. REQUIRES: den > 0.
inline int128 FloorDiv(int128 num, int128 den) {
  int128 q = num / den;
  if ((num % den != 0) && num < 0) --q;
  return q;
}
/// \brief Decimal digits of an int128.
std::string Int128ToString(int128 v);
/// \brief Round-to-nearest to float, defined for every double (NaN keeps its sign).
float RoundToFloat(double d);
/// \brief Nanoseconds per tick of `unit`.
int64_t NanosPerUnit(TimeUnit unit);
/// \brief A date: lance::ParseIsoDateTime's date alone, within date32's range. nullopt
/// if malformed or invalid.
std::optional<int32_t> ParseDate(std::string_view text);
/// \brief A timestamp as written: nanoseconds since the epoch, UTC when has_zone, else
/// the wall-clock time read as UTC.
struct ParsedTimestamp {
  int128 nanos = 0;
  bool has_zone = false;
};
/// \brief lance::ParseIsoDateTime's grammar (YYYY-MM-DD[(T| )HH:MM[:SS[.fraction]]]
/// [Z|(+|-)HH[[:]MM]]). A date alone means midnight. nullopt if malformed, invalid, or
/// with a non-zero digit finer than nanoseconds.
std::optional<ParsedTimestamp> ParseTimestamp(std::string_view text);
std::string FormatDate(int64_t days);
/// \brief "YYYY-MM-DD HH:MM:SS[.fraction]" of nanoseconds since the epoch.
std::string FormatTimestamp(int128 nanos);
/// \brief The zone offset of a timestamp type in seconds (0 for other types and without
/// a zone); NotImplemented for zones with rules.
Result<int64_t> ZoneOffset(const DataType& type);

// ---- reading and writing slots as scalars -----------------------------------------

/// \brief Reads the slots of an array as Scalars: null, bool, integers, floats, date32,
/// date64 (as its day), timestamp and the four string / binary types.
class ScalarReader {
 public:
  /// \return NotImplemented for the other types.
  static Result<ScalarReader> Make(const ArrayPtr& values);
  /// \brief Slot i (Null when the slot is null).
  Scalar Get(int64_t i) const;

 private:
  ArrayPtr values_;
  int64_t nanos_per_tick_ = 1;
  bool has_zone_ = false;
};

/// \brief Appends Scalars to an array of type `to`, converting each as SQL CAST does
/// from values of type `from` (which decides the zone of wall-clock timestamps and how
/// floats are spelled).
class ScalarWriter {
 public:
  /// \return NotImplemented for a timestamp type whose zone has rules.
  static Result<ScalarWriter> Make(const DataTypePtr& to, const DataType& from);
  Status Reserve(int64_t n) { return builder_->Reserve(n); }
  /// \return Invalid naming both types when the value does not convert or fit.
  Status Append(const Scalar& v);
  Result<ArrayPtr> Finish() { return builder_->Finish(); }

 private:
  Status Unsupported() const;
  Status DoesNotFit(const Scalar& v) const;
  Status NotParsable(const Scalar& v) const;
  int128 LocalNanos(const Scalar& v) const;
  Status AppendBool(const Scalar& v);
  template <typename T>
  Status AppendInt(const Scalar& v);
  Status AppendFloat(const Scalar& v);
  template <typename O>
  Status AppendString(const Scalar& v);
  Status AppendDate(const Scalar& v);
  Status AppendTimestamp(const Scalar& v);

  DataTypePtr to_;
  std::string from_;
  std::unique_ptr<ArrayBuilder> builder_;
  int64_t to_offset_ = 0;
  int64_t from_offset_ = 0;
  int64_t nanos_per_tick_ = 1;
  bool from_is_narrow_float_ = false;
};

// ---- casts ------------------------------------------------------------------------

/// \brief `values` converted to `to` as SQL CAST does (numbers widened or narrowed with
/// an error on overflow, numbers <-> strings, dates <-> timestamps, ...), used to store
/// an expression's result into a column of another type.
/// \return Invalid naming both types when the cast is not supported or a value does not
/// fit.
Result<ArrayPtr> Cast(const ArrayPtr& values, const DataTypePtr& to);

/// \brief `value` as `n` slots of `type` (a null-typed array when type is nullptr).
Result<ArrayPtr> BroadcastScalar(const Scalar& value, const DataTypePtr& type, int64_t n);

/// \brief `values` (integer or float) as `to`, a type at least as wide (the conversions
/// DataFusion's coercion inserts: integers widened, integers to floats rounded to
/// nearest, floats widened). Offset 0, same validity. Invalid for a narrowing.
Result<ArrayPtr> CastNumeric(const Array& values, const DataTypePtr& to);

/// \brief Integer or float widening that loses nothing (CastNumeric's conversions).
bool IsLosslessNumericWidening(const DataType& from, const DataType& to);

}  // namespace lance::compute
