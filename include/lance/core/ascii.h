// SPDX-License-Identifier: Apache-2.0
/// \file ascii.h
/// \brief Locale-independent ASCII text helpers shared by every layer (option keys, URI
/// schemes, HTTP header names, XML/JSON character references).

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lance {

/// \brief `s` with A-Z mapped to a-z; other bytes (UTF-8 included) unchanged.
std::string AsciiToLower(std::string_view s);

/// \brief True if `a` and `b` are equal ignoring ASCII case.
bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b);

/// \brief Appends the UTF-8 encoding of the code point `cp` (REQUIRES: cp <= 0x10FFFF).
void AppendUtf8(uint32_t cp, std::string* out);

/// \brief True if `s` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates,
/// nothing above U+10FFFF).
bool IsValidUtf8(std::string_view s);

}  // namespace lance
