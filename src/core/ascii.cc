// SPDX-License-Identifier: Apache-2.0

#include "lance/core/ascii.h"

namespace lance {

namespace {
// Not std::tolower: that one depends on the C locale.
char LowerByte(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
}  // namespace

std::string AsciiToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = LowerByte(c);
  return out;
}

bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (LowerByte(a[i]) != LowerByte(b[i])) return false;
  }
  return true;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
    return;
  }
  // Lead byte carries the length; each continuation byte 6 payload bits.
  int continuation = cp < 0x800 ? 1 : cp < 0x10000 ? 2 : 3;
  static constexpr unsigned char kLead[] = {0, 0xC0, 0xE0, 0xF0};
  out->push_back(static_cast<char>(kLead[continuation] | (cp >> (6 * continuation))));
  for (int shift = 6 * (continuation - 1); shift >= 0; shift -= 6) {
    out->push_back(static_cast<char>(0x80 | ((cp >> shift) & 0x3F)));
  }
}

bool IsValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    const unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int extra;
    uint32_t code;
    uint32_t min_code;
    if ((c & 0xe0) == 0xc0) {
      extra = 1, code = c & 0x1f, min_code = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      extra = 2, code = c & 0x0f, min_code = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      extra = 3, code = c & 0x07, min_code = 0x10000;
    } else {
      return false;
    }
    if (end - p <= extra) return false;
    for (int k = 1; k <= extra; ++k) {
      if ((p[k] & 0xc0) != 0x80) return false;
      code = (code << 6) | (p[k] & 0x3f);
    }
    if (code < min_code || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
      return false;
    }
    p += extra + 1;
  }
  return true;
}

}  // namespace lance
