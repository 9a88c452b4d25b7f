// SPDX-License-Identifier: Apache-2.0
// Text forms of single values, both ways: shortest round-trip floats (float16 included),
// exact integers, ISO-8601 dates and timestamps, base64. Shared by the JSON-lines
// writer (scan) and the CSV / JSON-lines readers (import).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lance/core/type.h"
#include "lance/result.h"

namespace lance::cli {

// --- float16 ---------------------------------------------------------------------------

/// \brief The value of IEEE half-precision bits (exact).
double HalfToDouble(uint16_t bits);
/// \brief `value` rounded to the nearest half (ties to even); overflow gives infinity,
/// NaN gives a quiet NaN with the sign kept.
uint16_t DoubleToHalf(double value);

// --- formatting ------------------------------------------------------------------------

/// \brief Shortest decimal that reads back as the same value at the type's own width,
/// laid out like std::to_chars (fixed or scientific, whichever is shorter). Non-finite
/// values give "NaN", "Infinity" and "-Infinity".
std::string FormatHalf(uint16_t bits);
std::string FormatFloat(float value);
std::string FormatDouble(double value);

/// \brief Days since the epoch as YYYY-MM-DD in the proleptic Gregorian calendar. Years
/// outside 0000..9999 get a sign and at least four digits ("-0044-03-15",
/// "+10000-01-01").
std::string FormatDate(int64_t days);

/// \brief ISO-8601 for a timestamp of `unit` since the epoch, with the unit's fraction
/// digits (s: none, ms: 3, us: 6, ns: 9).
///
/// Zone rules: empty timezone (naive) prints no suffix; UTC spellings (IsUtcTimezone)
/// print "Z"; fixed offsets ("+05:30") print local time with that offset; other named
/// zones print the UTC instant with "Z" (no tz database is consulted).
std::string FormatTimestamp(int64_t value, TimeUnit unit, const std::string& timezone);

/// \brief A time of day (time32 / time64 value in `unit` since midnight) as
/// "HH:MM:SS" plus the unit's fraction digits; values outside a day (invalid in Arrow)
/// as plain integers.
std::string FormatTimeOfDay(int64_t value, TimeUnit unit);

/// \brief date64 (milliseconds): "YYYY-MM-DD" for whole days (the Arrow convention),
/// otherwise the instant as FormatTimestamp prints it (no zone).
std::string FormatDate64(int64_t millis);

/// \brief Standard base64 (RFC 4648 alphabet, '=' padding).
std::string Base64Encode(std::string_view bytes);
/// \brief Decodes standard base64; padding is optional, whitespace is not allowed.
Result<std::string> Base64Decode(std::string_view text);

// --- time zones ------------------------------------------------------------------------

/// \brief "UTC", "Z", "Etc/UTC", "GMT", "Etc/GMT" (any case) or a zero offset.
bool IsUtcTimezone(std::string_view tz);
/// \brief Seconds east of UTC for "+HH:MM", "-HHMM" or "+HH"; nullopt otherwise.
std::optional<int32_t> ParseFixedOffset(std::string_view tz);

// --- calendar --------------------------------------------------------------------------

/// \brief Days since 1970-01-01 of a proleptic Gregorian date (no range checks on y).
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day);
void CivilFromDays(int64_t days, int64_t* year, unsigned* month, unsigned* day);

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

/// \brief YYYY-MM-DD (year as printed by FormatDate) to days since the epoch.
Result<int64_t> ParseDate(std::string_view text);
/// \brief As ParseDate, checked against the int32 range of date32.
Result<int32_t> ParseDate32(std::string_view text);

/// \brief ISO-8601 date-time to ticks of `unit` since the epoch (UTC).
///
/// Accepts "YYYY-MM-DD", optionally followed by 'T' (or a space) and HH:MM[:SS[.frac]],
/// optionally followed by "Z" or an offset (+HH:MM, +HHMM, +HH). Text without a zone
/// designator is taken as UTC. Fraction digits finer than the unit must be zeros.
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

/// \brief ASCII case-insensitive equality ("NaN" == "nan").
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace lance::cli
