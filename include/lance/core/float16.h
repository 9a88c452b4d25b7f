// SPDX-License-Identifier: Apache-2.0
/// \file float16.h
/// \brief IEEE 754 half precision (binary16) <-> float / double: the one conversion used
/// by the predicate kernels, the pretty printer and the CLI.

#pragma once

#include <cstdint>

namespace lance {

/// \brief The value of half-precision bits, exactly (every half is a float). NaNs stay
/// NaNs with their sign.
float HalfToFloat(uint16_t bits);

/// \brief As HalfToFloat, widened to double (exact).
double HalfToDouble(uint16_t bits);

/// \brief `value` rounded to the nearest half, ties to even. Values from 65520 up round
/// to infinity; a NaN becomes the quiet NaN 0x7E00 with its sign kept.
uint16_t DoubleToHalf(double value);

/// \brief The value a float16 column would hold for `value` (DoubleToHalf widened back to
/// float), except that a NaN is returned as it came (its sign orders it in Lance).
float RoundToHalf(double value);

}  // namespace lance
