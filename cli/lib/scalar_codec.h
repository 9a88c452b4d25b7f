// SPDX-License-Identifier: Apache-2.0
// Text forms of single values, both ways: shortest round-trip floats (float16 included),
// exact integers, ISO-8601 dates and timestamps, base64. Shared by the JSON-lines
// writer (scan) and the CSV / JSON-lines readers (import).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lance/core/float16.h"  // HalfToDouble / DoubleToHalf, used with FormatHalf
#include "lance/core/temporal.h"
#include "lance/core/type.h"
#include "lance/result.h"

namespace lance::cli {

// --- formatting ------------------------------------------------------------------------

/// \brief Shortest decimal that reads back as the same value at the type's own width,
/// laid out like std::to_chars (fixed or scientific, whichever is shorter). Non-finite
/// values give "NaN", "Infinity" and "-Infinity".
std::string FormatHalf(uint16_t bits);
std::string FormatFloat(float value);
std::string FormatDouble(double value);

// Timestamps, times of day and dates print with lance::FormatIsoTimestamp,
// AppendIsoTimeOfDay and FormatIsoDate (include/lance/core/temporal.h): one policy for
// time zones, documented in docs/cli.md.

/// \brief date64 (milliseconds): "YYYY-MM-DD" for whole days (the Arrow convention),
/// otherwise the instant as lance::FormatIsoTimestamp prints it (no zone).
std::string FormatDate64(int64_t millis);

/// \brief Standard base64 (RFC 4648 alphabet, '=' padding).
std::string Base64Encode(std::string_view bytes);
/// \brief Decodes standard base64; padding is optional, whitespace is not allowed.
Result<std::string> Base64Decode(std::string_view text);

// --- parsing ---------------------------------------------------------------------------
// Every parser takes the whole text (no surrounding whitespace) and returns Invalid with
// a message naming the text and the type ("'300' is out of range for int8").

/// \brief Decimal integer with optional sign. Instantiated for int8_t..uint64_t.
template <typename T>
Result<T> ParseInteger(std::string_view text);

/// \brief A decimal number, or "NaN" / "Infinity" / "-Infinity" (also "inf", "nan",
/// any case). Finite values beyond the type's range are Invalid; values below the
/// smallest subnormal round to zero.
Result<double> ParseDouble(std::string_view text);
Result<float> ParseFloat(std::string_view text);
Result<uint16_t> ParseHalf(std::string_view text);

/// \brief YYYY-MM-DD (year as lance::FormatIsoDate prints it) to days since the epoch.
Result<int64_t> ParseDate(std::string_view text);
/// \brief As ParseDate, checked against the int32 range of date32.
Result<int32_t> ParseDate32(std::string_view text);

/// \brief ISO-8601 date-time to ticks of `unit` since the epoch (UTC).
///
/// The grammar of lance::ParseIsoDateTime: "YYYY-MM-DD", optionally 'T' (or a space) and
/// HH:MM[:SS[.frac]], optionally "Z" or an offset (+HH:MM, +HHMM, +HH). Text without a
/// zone designator is taken as UTC. Fraction digits finer than the unit must be zeros.
Result<int64_t> ParseTimestamp(std::string_view text, TimeUnit unit);

/// \brief "HH:MM[:SS[.fraction]]" to ticks of `unit` since midnight. Fraction digits
/// finer than the unit must be zeros.
Result<int64_t> ParseTimeOfDay(std::string_view text, TimeUnit unit);

/// \brief A date ("YYYY-MM-DD") or what FormatDate64 prints, to date64 milliseconds.
Result<int64_t> ParseDate64(std::string_view text);

/// \brief Whether `text` is an integer literal ([+-]digits).
bool LooksLikeInteger(std::string_view text);

/// \brief Shortens `text` for an error message (quotes, at most ~40 characters).
std::string QuoteForMessage(std::string_view text);

}  // namespace lance::cli
