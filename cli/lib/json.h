// SPDX-License-Identifier: Apache-2.0
// JSON for the CLI: JSON-lines import, schema files and the JSON this tool prints.
// nlohmann_json does the parsing and escaping; this header keeps the CLI's view of a
// parsed value, whose numbers keep their source text so that int64, uint64 and float32
// values convert exactly (no detour through double).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lance/result.h"

namespace lance::cli {

/// \brief A parsed JSON value. Objects keep their members in source order.
struct JsonValue {
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

  // Special members defined in json.cc, where JsonValue is complete: clang (C++20,
  // libstdc++ 12) instantiates the constexpr destructor of `members` eagerly, while
  // std::pair<std::string, JsonValue> is still incomplete.
  JsonValue();
  ~JsonValue();
  JsonValue(const JsonValue&);
  JsonValue(JsonValue&&) noexcept;
  JsonValue& operator=(const JsonValue&);
  JsonValue& operator=(JsonValue&&) noexcept;

  Kind kind = Kind::kNull;
  bool boolean = false;
  /// \brief The decoded text of a string, or the source text of a number ("-1.5e3").
  std::string text;
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;

  bool is_null() const { return kind == Kind::kNull; }
  bool is_number() const { return kind == Kind::kNumber; }
  bool is_string() const { return kind == Kind::kString; }
  bool is_array() const { return kind == Kind::kArray; }
  bool is_object() const { return kind == Kind::kObject; }
  /// \brief A number written without fraction or exponent ("-12").
  bool is_integer_literal() const;
  /// \brief The member named `key`, or nullptr (first match).
  const JsonValue* Find(std::string_view key) const;
};

/// \brief "null", "bool", "number", "string", "array" or "object".
const char* JsonKindName(JsonValue::Kind kind);

/// \brief Parses exactly one JSON value (surrounding whitespace allowed).
///
/// Strict RFC 8259 grammar (nlohmann_json's parser); strings must be valid UTF-8,
/// escapes are decoded and a lone surrogate escape is an error. Numbers too large for a
/// double (1e999) are rejected. Nesting deeper than 256 levels is rejected.
/// \return Invalid with the 1-based character column of the problem.
Result<JsonValue> ParseJson(std::string_view text);

/// \brief Appends `s` as a JSON string literal (with quotes).
///
/// Escapes `"`, `\` and control characters (\b \f \n \r \t, others as \u00XX); valid
/// UTF-8 passes through unchanged; every byte that is not part of a valid UTF-8 sequence
/// is written as the escape \ufffd (U+FFFD REPLACEMENT CHARACTER).
void AppendJsonString(std::string_view s, std::string* out);
std::string JsonQuote(std::string_view s);

/// \brief Whether `s` is well-formed UTF-8 (no overlongs, surrogates or > U+10FFFF).
bool IsValidUtf8(std::string_view s);
/// \brief Offset of the first byte that is not well-formed UTF-8, or npos.
size_t FindInvalidUtf8(std::string_view s);

/// \brief Compact JSON text of `v` (numbers keep their source text).
std::string ToJsonText(const JsonValue& v);

/// \brief A JSON document the CLI prints: members stay in insertion order.
using JsonDoc = nlohmann::ordered_json;

/// \brief Compact JSON text of `doc`, one line. Strings are escaped as AppendJsonString
/// does (invalid UTF-8 as \ufffd per byte, where nlohmann's dump would throw or write
/// raw replacement characters); numbers, booleans and null are nlohmann's text.
std::string DumpJson(const JsonDoc& doc);

}  // namespace lance::cli
