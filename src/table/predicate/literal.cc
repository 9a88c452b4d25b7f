// SPDX-License-Identifier: Apache-2.0
//
// Operators and literals of the predicate language: spelling, rounding of numbers to a
// column's float width, and the temporal literal grammar.

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "lance/core/enum_names.h"
#include "lance/core/float16.h"
#include "lance/core/temporal.h"
#include "lance/core/time_zone.h"
#include "lance/macros.h"
#include "table/predicate/kernel_util.h"

namespace lance::table::predicate_internal {

// ---- public helpers
// ----------------------------------------------------------------------

constexpr auto kCmpOpSymbols = MakeEnumNames<CmpOp>("=", "!=", "<", "<=", ">", ">=");
static_assert(kCmpOpSymbols.size() == EnumCount(CmpOp::kGe));

std::string_view CmpOpSymbol(CmpOp op) { return kCmpOpSymbols.Name(op, "?"); }

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

// ---- dates and timestamps
// ----------------------------------------------------------------
// The grammar, calendar and zones are core's (include/lance/core/temporal.h and
// time_zone.h); these adapt them to literals (nanoseconds in an int128).

std::optional<int64_t> FixedZoneOffsetSeconds(std::string_view tz) {
  return FixedZoneOffset(tz);
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

}  // namespace lance::table::predicate_internal
