// SPDX-License-Identifier: Apache-2.0
// Small helpers several stores and the URI code share. Private to src/io.

#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace lance::io::internal {

/// RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
inline bool IsValidScheme(std::string_view scheme) {
  if (scheme.empty() || !std::isalpha(static_cast<unsigned char>(scheme[0])))
    return false;
  for (char c : scheme) {
    auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '+' && c != '-' && c != '.') return false;
  }
  return true;
}

/// The smallest string greater than every string starting with `prefix`; empty if there
/// is none (only 0xff bytes, which valid UTF-8 keys never are). Bounds a listing of a
/// prefix in an ordered key space.
inline std::string PrefixSuccessor(std::string prefix) {
  while (!prefix.empty()) {
    auto& c = reinterpret_cast<unsigned char&>(prefix.back());
    if (c != 0xff) {
      ++c;
      return prefix;
    }
    prefix.pop_back();
  }
  return prefix;
}

/// `s` in single quotes, as error messages name paths and URIs.
inline std::string Quoted(std::string_view s) {
  std::string out = "'";
  out.append(s);
  out.push_back('\'');
  return out;
}

}  // namespace lance::io::internal
