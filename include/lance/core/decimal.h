// SPDX-License-Identifier: Apache-2.0
/// \file decimal.h
/// \brief Exact text conversion of Arrow decimal values.
///
/// A decimal128 / decimal256 value is stored as its unscaled integer: 16 / 32 bytes of
/// little-endian two's complement; the value is unscaled * 10^-scale. These helpers work
/// on those raw bytes, so they serve arrays, builders and the CLI alike, and never go
/// through floating point.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lance/core/type.h"
#include "lance/status.h"

namespace lance {

/// \brief The exact decimal text of an unscaled value of `byte_width` (16 or 32) bytes:
/// "123.45", "-0.01", "0.000" (always `scale` fraction digits when scale > 0). A negative
/// scale appends zeros ("12300" for unscaled 123, scale -2). Scales beyond +-100 (legal
/// in Arrow, but pages long when written out) use an exponent: "123E-500", "-7E+300".
std::string FormatDecimal(const uint8_t* value, int byte_width, int32_t scale);

/// \brief Parses decimal text into the unscaled value of `type` (decimal128 or
/// decimal256), written to `out` (byte_width() bytes).
///
/// Accepts an optional sign, digits with an optional '.', and an optional exponent
/// ("1.5e3"). The value must be exactly representable at the type's scale (extra fraction
/// digits must be zeros) and have at most precision() digits.
/// \return Invalid naming the text and the type otherwise.
Status ParseDecimal(std::string_view text, const DataType& type, uint8_t* out);

/// \brief Writes the integer `unscaled` as a `byte_width`-byte (16 or 32) value.
void DecimalFromInt64(int64_t unscaled, int byte_width, uint8_t* out);

/// \brief Whether |value| < 10^precision, i.e. the value has at most `precision` digits.
bool DecimalFitsPrecision(const uint8_t* value, int byte_width, int32_t precision);

}  // namespace lance
