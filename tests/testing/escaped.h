// SPDX-License-Identifier: Apache-2.0
// Test messages about hostile names: bytes shown exactly, on one line.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace lance::testing {

/// \brief `text` quoted, with every byte outside printable ASCII (and '"', '\') as
/// \xNN: one line that says exactly which bytes a name held.
inline std::string Escaped(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '"' || c == '\\') {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02X", u);
      out += hex;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace lance::testing
