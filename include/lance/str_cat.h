// SPDX-License-Identifier: Apache-2.0
/// \file str_cat.h
/// \brief StrCat: the one way error messages (and other short texts) are assembled.
///
/// `StrCat("read ", n, " bytes of '", path, "' at ", offset)` replaces chains of
/// `std::string(...) + std::to_string(...)`. Integers and floating-point values are
/// written with std::to_chars (shortest text that reads back exactly, no locale), strings
/// and characters as they are, bools as true/false, and anything else through its
/// operator<<. Status factories (status.h) take the same arguments.

#pragma once

#include <charconv>
#include <concepts>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace lance {

namespace internal {

template <typename T>
void AppendPiece(std::string* out, const T& value) {
  using V = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<V, bool>) {
    out->append(value ? "true" : "false");
  } else if constexpr (std::is_same_v<V, char>) {
    out->push_back(value);
  } else if constexpr (std::is_convertible_v<const V&, std::string_view>) {
    out->append(std::string_view(value));
  } else if constexpr (std::is_enum_v<V>) {
    AppendPiece(out, static_cast<std::underlying_type_t<V>>(value));
  } else if constexpr (std::is_arithmetic_v<V>) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
    if (ec == std::errc()) out->append(buf, end);
  } else {
    std::ostringstream os;
    os << value;
    out->append(os.str());
  }
}

}  // namespace internal

/// \brief The concatenation of the texts of `pieces` (see the file comment).
template <typename... Pieces>
std::string StrCat(const Pieces&... pieces) {
  std::string out;
  (internal::AppendPiece(&out, pieces), ...);
  return out;
}

/// \brief Appends the texts of `pieces` to `*out`.
template <typename... Pieces>
void StrAppend(std::string* out, const Pieces&... pieces) {
  (internal::AppendPiece(out, pieces), ...);
}

}  // namespace lance
