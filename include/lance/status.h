// SPDX-License-Identifier: Apache-2.0
/// \file status.h
/// \brief Status: the outcome of an operation that returns no value.
///
/// Library code never throws across its boundary. Every fallible function returns a
/// `Status` or a `Result<T>` (result.h). A Status is cheap when OK (a null pointer) and
/// carries a code, a message and a retryable flag otherwise. Messages say what was being
/// attempted on which path and never contain a secret.

#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace lance {

/// \brief Error categories. Upper layers decide on codes, never on message text.
enum class StatusCode : int {
  kOk = 0,
  kInvalid,          ///< bad argument, malformed input or option
  kIOError,          ///< local or remote I/O failed
  kNotFound,         ///< a file, object, dataset or version does not exist
  kAlreadyExists,    ///< create-only write found something there (commit primitive)
  kNotImplemented,   ///< a valid request this build does not support (yet)
  kConflict,         ///< a commit lost a race that could not be rebased
  kUnauthorized,     ///< credentials missing or not accepted (HTTP 401)
  kForbidden,        ///< credentials valid but not allowed (HTTP 403)
  kTokenExpired,     ///< credentials expired and could not be refreshed
  kUnavailable,      ///< service unreachable, throttled or failing (usually retryable)
  kCancelled,        ///< the caller asked to stop
  kCorrupt,          ///< stored bytes do not decode (truncated, bit-flipped, wrong magic)
  kUnknown,
};

/// \brief The name of a code, e.g. "NotFound".
std::string_view StatusCodeName(StatusCode code);

/// \brief Outcome of an operation. OK or (code, message, retryable).
///
/// Thread-compatible: a Status is a value; copies share nothing mutable.
class [[nodiscard]] Status {
 public:
  Status() noexcept = default;
  Status(StatusCode code, std::string message, bool retryable = false);

  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;

  static Status OK() { return Status(); }
  static Status Invalid(std::string msg) { return {StatusCode::kInvalid, std::move(msg)}; }
  static Status IOError(std::string msg, bool retryable = false) {
    return {StatusCode::kIOError, std::move(msg), retryable};
  }
  static Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
  static Status AlreadyExists(std::string msg) {
    return {StatusCode::kAlreadyExists, std::move(msg)};
  }
  static Status NotImplemented(std::string msg) {
    return {StatusCode::kNotImplemented, std::move(msg)};
  }
  static Status Conflict(std::string msg) { return {StatusCode::kConflict, std::move(msg)}; }
  static Status Unauthorized(std::string msg) {
    return {StatusCode::kUnauthorized, std::move(msg)};
  }
  static Status Forbidden(std::string msg) { return {StatusCode::kForbidden, std::move(msg)}; }
  static Status TokenExpired(std::string msg) {
    return {StatusCode::kTokenExpired, std::move(msg)};
  }
  static Status Unavailable(std::string msg, bool retryable = true) {
    return {StatusCode::kUnavailable, std::move(msg), retryable};
  }
  static Status Cancelled(std::string msg) { return {StatusCode::kCancelled, std::move(msg)}; }
  static Status Corrupt(std::string msg) { return {StatusCode::kCorrupt, std::move(msg)}; }
  static Status Unknown(std::string msg) { return {StatusCode::kUnknown, std::move(msg)}; }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  /// \brief The message; empty when OK.
  const std::string& message() const;
  /// \brief True when repeating the same call may succeed (throttling, 5xx, resets).
  bool retryable() const { return state_ && state_->retryable; }

  bool IsInvalid() const { return code() == StatusCode::kInvalid; }
  bool IsIOError() const { return code() == StatusCode::kIOError; }
  bool IsNotFound() const { return code() == StatusCode::kNotFound; }
  bool IsAlreadyExists() const { return code() == StatusCode::kAlreadyExists; }
  bool IsNotImplemented() const { return code() == StatusCode::kNotImplemented; }
  bool IsConflict() const { return code() == StatusCode::kConflict; }
  bool IsUnauthorized() const { return code() == StatusCode::kUnauthorized; }
  bool IsForbidden() const { return code() == StatusCode::kForbidden; }
  bool IsTokenExpired() const { return code() == StatusCode::kTokenExpired; }
  bool IsUnavailable() const { return code() == StatusCode::kUnavailable; }
  bool IsCorrupt() const { return code() == StatusCode::kCorrupt; }

  /// \brief A copy with `context` prepended ("When <context>: <message>"); OK stays OK.
  Status WithContext(std::string_view context) const;

  /// \brief "OK" or "<CodeName>: <message>".
  std::string ToString() const;

  bool operator==(const Status& other) const;

 private:
  struct State {
    StatusCode code;
    std::string message;
    bool retryable;
  };
  std::unique_ptr<State> state_;
};

std::ostream& operator<<(std::ostream& os, const Status& status);

}  // namespace lance
