// SPDX-License-Identifier: Apache-2.0
/// \file enum_names.h
/// \brief One table of names per enum, in place of a name switch per enum.
///
/// The enums it serves are numbered 0, 1, ... in declaration order (the default), so a
/// name is an index into an array. Each table is defined next to the function that
/// names the enum, with a static_assert that it is as long as the enum: an added value
/// without a name fails to compile, as a switch's -Wswitch would have warned.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

namespace lance {

template <typename Enum, size_t N>
class EnumNames {
 public:
  static_assert(std::is_enum_v<Enum>, "EnumNames names the values of an enum");

  constexpr explicit EnumNames(std::array<std::string_view, N> names) : names_(names) {}

  static constexpr size_t size() { return N; }

  /// \brief The name of `value`, or `fallback` for a value outside the table (one cast
  /// from an integer that no enumerator has).
  constexpr std::string_view Name(Enum value, std::string_view fallback) const {
    const auto index = static_cast<size_t>(value);
    return index < N ? names_[index] : fallback;
  }

  /// \brief The value whose name is `name` exactly (the parse direction of Name).
  constexpr std::optional<Enum> Find(std::string_view name) const {
    for (size_t i = 0; i < N; ++i) {
      if (names_[i] == name) return static_cast<Enum>(i);
    }
    return std::nullopt;
  }

 private:
  std::array<std::string_view, N> names_;
};

/// \brief `MakeEnumNames<Color>("red", "green", "blue")`: the names in value order.
template <typename Enum, typename... Names>
constexpr EnumNames<Enum, sizeof...(Names)> MakeEnumNames(Names... names) {
  return EnumNames<Enum, sizeof...(Names)>(
      std::array<std::string_view, sizeof...(Names)>{std::string_view(names)...});
}

/// \brief How many values an enum numbered 0..`last` has, for the tables' static_asserts.
template <typename Enum>
constexpr size_t EnumCount(Enum last) {
  return static_cast<size_t>(last) + 1;
}

}  // namespace lance
