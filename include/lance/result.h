// SPDX-License-Identifier: Apache-2.0
/// \file result.h
/// \brief Result<T>: a value or a non-OK Status.
///
/// Shaped like `std::expected<T, Status>` (has_value / value / error) so that moving to
/// C++23's std::expected later is mechanical. Accessing the value of an error Result is a
/// programming error and aborts; check `ok()` first or use LANCE_ASSIGN_OR_RAISE.

#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <type_traits>
#include <utility>

#include "lance/status.h"

namespace lance {

namespace internal {
[[noreturn]] void DieOnBadResultAccess(const Status& status);
}  // namespace internal

template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<T, Status>, "use Status, not Result<Status>");

 public:
  using value_type = T;

  /// \brief An error Result. REQUIRES: !status.ok().
  Result(Status status)  // NOLINT(google-explicit-constructor)
      : status_(std::move(status)) {
    if (status_.ok()) {
      status_ = Status::Unknown("Result constructed from an OK Status without a value");
    }
  }
  Result(const T& value) : value_(value) {}  // NOLINT(google-explicit-constructor)
  Result(T&& value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  template <typename U,
            typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                        !std::is_same_v<std::decay_t<U>, T> &&
                                        !std::is_same_v<std::decay_t<U>, Status> &&
                                        !std::is_same_v<std::decay_t<U>, Result<T>>>>
  Result(U&& value) : value_(T(std::forward<U>(value))) {}  // NOLINT

  Result(const Result&) = default;
  Result(Result&&) noexcept = default;
  Result& operator=(const Result&) = default;
  Result& operator=(Result&&) noexcept = default;

  bool ok() const { return value_.has_value(); }
  bool has_value() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }

  /// \brief The error; Status::OK() when a value is held.
  const Status& status() const& { return status_; }
  Status status() && { return std::move(status_); }
  const Status& error() const& { return status_; }

  const T& value() const& {
    CheckOk();
    return *value_;
  }
  T& value() & {
    CheckOk();
    return *value_;
  }
  T&& value() && {
    CheckOk();
    return std::move(*value_);
  }
  /// \brief Moves the value out. REQUIRES: ok().
  T MoveValueUnsafe() { return std::move(*value_); }

  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  template <typename U>
  T value_or(U&& alternative) const& {
    return ok() ? *value_ : static_cast<T>(std::forward<U>(alternative));
  }

 private:
  void CheckOk() const {
    if (!value_.has_value()) internal::DieOnBadResultAccess(status_);
  }

  Status status_;
  std::optional<T> value_;
};

}  // namespace lance
