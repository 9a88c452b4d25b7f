// SPDX-License-Identifier: Apache-2.0
// Small helpers several stores and the URI code share. Private to src/io.

#pragma once

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

#include "lance/io/object_store.h"
#include "lance/macros.h"
#include "lance/result.h"

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

/// Checks the arguments of ObjectStore::List -- a well-formed prefix, max_keys not
/// negative -- for every store alike. `where` is the listed location as the user knows
/// it (ObjectUri or DisplayPath of the prefix).
/// \return the page size (max_keys, kDefaultMaxKeys for 0); Invalid naming `where`.
inline Result<int64_t> ListPageSize(std::string_view prefix, const ListOptions& options,
                                    std::string_view where) {
  LANCE_RETURN_NOT_OK(ValidateListPrefix(prefix));
  if (options.max_keys < 0) {
    return Status::Invalid("When listing " + Quoted(where) + ": max_keys is negative (" +
                           std::to_string(options.max_keys) + ")");
  }
  return options.max_keys == 0 ? ListOptions::kDefaultMaxKeys : options.max_keys;
}

}  // namespace lance::io::internal
