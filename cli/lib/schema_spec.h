// SPDX-License-Identifier: Apache-2.0
// The CLI's spelling of types and schemas: "int64", "timestamp[us, UTC]",
// "list<utf8>", "fixed_size_list<float32, 128>", "struct<x: int32, y: list<utf8>>",
// "decimal128(10, 2)", "time64[us]", "map<utf8, int32>",
// "dictionary<values=utf8, indices=int32>", and
// schema files (a JSON list of {"name", "type", "nullable"}). `info --json` prints the
// same form, so its output can be fed back to `import --schema`.
#pragma once

#include <string>
#include <string_view>

#include "lance/core/type.h"
#include "lance/result.h"
#include "lib/json.h"

namespace lance::cli {

/// \brief Parses a type string (whitespace-tolerant, nesting to any depth).
///
/// Grammar:
///   type   := scalar | "fixed_size_binary[" N "]" | "timestamp[" unit ["," tz] "]"
///           | "decimal128(" P "," S ")" | "decimal256(" P "," S ")" | "decimal(" P "," S
///           ")" | "time32[" s|ms "]" | "time64[" us|ns "]" | "duration[" unit "]" |
///           "list<" item ">" | "large_list<" item ">" | "fixed_size_list<" item "," N
///           ">" | "struct<" [member {"," member}] ">" | "map<" type "," item [","
///           "keys_sorted"] ">" | "dictionary<" param {"," param} ">"
///   param  := "values=" type | "indices=" integer-type | "ordered" ["=" 0|1]
///   item   := type ["not null"]
///   member := name ":" type ["not null"]         (name: identifier or "JSON string")
///   scalar := null | bool | int8..int64 | uint8..uint64 | float16 | float32 | float64
///           | utf8 | large_utf8 | binary | large_binary | date32 | date64
/// decimal(P, S) is decimal128 up to 38 digits and decimal256 beyond; S may be negative.
/// A dictionary needs values=; its indices default to int32. Map keys are never null;
/// map entry names are Arrow's ("entries", "key", "value").
/// Aliases: boolean, string, large_string, halffloat, float, double; "tz=UTC" is
/// accepted for the timezone as Arrow prints it.
/// \return Invalid naming the position and what was expected.
Result<DataTypePtr> ParseTypeString(std::string_view text);

/// \brief The canonical spelling that ParseTypeString reads back to an equal type.
std::string FormatTypeString(const DataType& type);

/// \brief Parses a schema file: a JSON list of {"name": ..., "type": ...,
/// "nullable": bool (default true)}, or an object with such a list under "schema"
/// (the shape of `lance-cpp info --json`).
Result<SchemaPtr> ParseSchemaJson(std::string_view json);

/// \brief The schema as a JSON list of {"name", "type", "nullable"} (compact, one line).
std::string FormatSchemaJson(const Schema& schema);
/// \brief The document FormatSchemaJson prints.
JsonDoc SchemaJson(const Schema& schema);

}  // namespace lance::cli
