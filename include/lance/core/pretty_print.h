// SPDX-License-Identifier: Apache-2.0
/// \file pretty_print.h
/// \brief Human-readable rendering of arrays and of single array elements.
///
/// Spelling of values:
///  - null slots: `null`; bool: `true` / `false`; integers in decimal;
///  - float16/float/double: shortest round-trip decimal (`1.5`, `nan`, `-inf`);
///  - utf8: double-quoted with `\"`, `\\`, `\n`, `\t`, `\r` and `\xNN` escapes;
///  - binary and fixed_size_binary: `x'48656C6C6F'` (upper-case hex);
///  - date32: `2024-02-29`; timestamp: `2024-02-29 13:45:00.123456` (UTC, fraction digits
///    per unit), with a trailing `Z` when the type has a timezone;
///  - list-like: `[1, 2, 3]`; struct: `{x: 1, y: "a"}`;
///  - null type: `null`; decimals: exact, with the scale applied (`123.45`, `-0.01`);
///  - date64: `2024-02-29`; time32/time64: `12:34:56.789` (fraction digits per unit);
///    duration: the integer and its unit (`1500ms`);
///  - dictionary: the value a slot stands for; map: `{"a": 1, "b": null}`.

#pragma once

#include <cstdint>
#include <string>

#include "lance/core/array.h"

namespace lance {

struct PrettyPrintOptions {
  /// \brief Arrays (and nested lists) longer than 2 * window elements show the first and
  /// last `window` elements around a "..." marker.
  int64_t window = 10;
};

/// \brief "[1, null, 3]"-style rendering of a whole array.
std::string PrettyPrint(const Array& array, const PrettyPrintOptions& options = {});

/// \brief Rendering of slot i of `array` alone, e.g. `null`, `42`, `"a"`, `[1, 2]`.
/// REQUIRES: 0 <= i < array.length().
std::string FormatValue(const Array& array, int64_t i,
                        const PrettyPrintOptions& options = {});

}  // namespace lance
