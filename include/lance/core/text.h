// SPDX-License-Identifier: Apache-2.0
/// \file text.h
/// \brief Small text helpers shared by every layer: trimming and exact number parsing
/// (std::from_chars, locale independent).

#pragma once

#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace lance {

/// \brief The ASCII whitespace set TrimAscii strips by default (" \t\r\n\v\f").
inline constexpr std::string_view kAsciiWhitespace = " \t\r\n\v\f";

/// \brief `s` without leading and trailing bytes from `chars`.
std::string_view TrimAscii(std::string_view s, std::string_view chars = kAsciiWhitespace);

/// \brief The whole of `text` as a decimal integer of type T (an optional leading '-' for
/// signed types, no '+', no spaces); nullopt when it is not one or does not fit.
template <typename T>
std::optional<T> ParseDecimalInteger(std::string_view text) {
  static_assert(std::is_integral_v<T>);
  T value{};
  const char* end = text.data() + text.size();
  auto res = std::from_chars(text.data(), end, value);
  if (text.empty() || res.ec != std::errc() || res.ptr != end) return std::nullopt;
  return value;
}

/// \brief The whole of `text` as a decimal floating-point number ("1.5", "-2e3", "inf",
/// "nan"; no '+', no spaces); nullopt when it is not one.
inline std::optional<double> ParseDecimalDouble(std::string_view text) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto res = std::from_chars(text.data(), end, value);
  if (text.empty() || res.ec != std::errc() || res.ptr != end) return std::nullopt;
  return value;
}

}  // namespace lance
