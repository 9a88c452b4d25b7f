// SPDX-License-Identifier: Apache-2.0
// Rendering of array values for `scan`: exact JSON (JSON-lines output) and short
// readable text (table output).
#pragma once

#include <cstdint>
#include <string>

#include "lance/core/array.h"
#include "lance/core/record_batch.h"

namespace lance::cli {

/// \brief Appends slot `i` of `array` as JSON.
///
///  - null: null; bool: true/false; integers (all widths, int64/uint64 included): exact
///    JSON integers;
///  - float16/float32/float64: the shortest decimal that reads back to the same value at
///    the column's own width; NaN and infinities as the strings "NaN", "Infinity",
///    "-Infinity";
///  - utf8: JSON strings (see AppendJsonString for escaping and invalid UTF-8);
///  - binary, fixed_size_binary: base64 strings;
///  - date32: "YYYY-MM-DD"; timestamp: ISO-8601 in the column's zone
///  (lance::FormatIsoTimestamp);
///  - lists: arrays; structs: objects with keys in field order;
///  - null type: null; decimals: exact decimal strings ("123.45", scale applied);
///  - date64: "YYYY-MM-DD" (see FormatDate64); time32/time64: "HH:MM:SS[.fraction]"
///    with the unit's digits; durations: integers in the column's unit;
///  - dictionary: the value a slot stands for (as its value type renders);
///  - map: an object when the keys are utf8 / large_utf8, otherwise an array of
///    [key, value] pairs.
void AppendJsonValue(const Array& array, int64_t i, std::string* out);

/// \brief Appends row `row` of `batch` as one JSON object (keys in schema order), no
/// newline.
void AppendJsonRow(const RecordBatch& batch, int64_t row, std::string* out);

/// \brief Slot `i` as table text: strings, decimals and temporal values unquoted
/// (control characters escaped so that a value stays on one line), dictionary slots as
/// their value, nested values (maps included) as compact JSON, null as "null".
std::string FormatTextValue(const Array& array, int64_t i);

}  // namespace lance::cli
