// SPDX-License-Identifier: Apache-2.0
/// \file status.h
/// \brief Status: the outcome of an operation that returns no value.
///
/// Library code never throws across its boundary. Every fallible function returns a
/// `Status` or a `Result<T>` (result.h). A Status is cheap when OK (a null pointer) and
/// carries a code, a message, a retryable flag and an optional typed detail otherwise.
/// Messages say what was being attempted on which path and never contain a secret.
///
/// Callers decide on `code()` and, where they need more (which namespace error, which
/// HTTP status or S3 error code, which errno), on `detail_as<T>()`: never on the text.

#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "lance/str_cat.h"

namespace lance {

/// \brief Error categories. Upper layers decide on codes, never on message text.
enum class StatusCode : int {
  kOk = 0,
  kInvalid,         ///< bad argument, malformed input or option
  kIOError,         ///< local or remote I/O failed
  kNotFound,        ///< a file, object, dataset or version does not exist
  kAlreadyExists,   ///< create-only write found something there (commit primitive)
  kNotImplemented,  ///< a valid request this build does not support (yet)
  kConflict,        ///< a commit lost a race that could not be rebased
  kUnauthorized,    ///< credentials missing or not accepted (HTTP 401)
  kForbidden,       ///< credentials valid but not allowed (HTTP 403)
  kTokenExpired,    ///< credentials expired and could not be refreshed
  kUnavailable,     ///< service unreachable, throttled or failing (usually retryable)
  kCancelled,       ///< the caller asked to stop
  kCorrupt,         ///< stored bytes do not decode (truncated, bit-flipped, wrong magic)
  kUnknown,
  /// \brief A commit whose outcome cannot be determined: the write that publishes it
  /// may have taken effect (its acknowledgement was lost) and checking failed too. Not
  /// retryable: repeating another write could apply the change twice; a retry of the
  /// same commit (Dataset::Commit with the same operation and read version) is safe, it
  /// finds the version if it exists (docs/commit-protocol.md, "Lost acknowledgements").
  /// Last, so the values of the older codes stay what they were.
  kCommitStateUnknown,
};

/// \brief The name of a code, e.g. "NotFound".
std::string_view StatusCodeName(StatusCode code);

/// \brief Machine-readable detail of an error, attached to a Status (Arrow's
/// StatusDetail).
///
/// Subclasses are immutable values shared between copies of a Status. `ToString()` is
/// for logs and must not contain a secret.
class StatusDetail {
 public:
  virtual ~StatusDetail() = default;
  /// \brief A stable name of the detail's type, e.g. "lance::ErrnoDetail".
  virtual std::string_view type_id() const = 0;
  /// \brief A short description, e.g. "errno 2 (No such file or directory)".
  virtual std::string ToString() const = 0;
};

/// \brief The errno of a failed system call.
class ErrnoDetail final : public StatusDetail {
 public:
  explicit ErrnoDetail(int errnum) : errnum_(errnum) {}
  int errnum() const { return errnum_; }
  std::string_view type_id() const override { return "lance::ErrnoDetail"; }
  std::string ToString() const override;

 private:
  int errnum_;
};

/// \brief Outcome of an operation. OK or (code, message, retryable, detail).
///
/// Thread-compatible: a Status is a value; copies share nothing mutable.
class [[nodiscard]] Status {
 public:
  Status() noexcept = default;
  Status(StatusCode code, std::string message, bool retryable = false,
         std::shared_ptr<const StatusDetail> detail = nullptr);

  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;

  static Status OK() { return Status(); }
  template <typename... Args>
  static Status Invalid(const Args&... args) {
    return {StatusCode::kInvalid, StrCat(args...)};
  }
  static Status IOError(std::string msg, bool retryable = false) {
    return {StatusCode::kIOError, std::move(msg), retryable};
  }
  template <typename... Args>
  static Status NotFound(const Args&... args) {
    return {StatusCode::kNotFound, StrCat(args...)};
  }
  template <typename... Args>
  static Status AlreadyExists(const Args&... args) {
    return {StatusCode::kAlreadyExists, StrCat(args...)};
  }
  template <typename... Args>
  static Status NotImplemented(const Args&... args) {
    return {StatusCode::kNotImplemented, StrCat(args...)};
  }
  template <typename... Args>
  static Status Conflict(const Args&... args) {
    return {StatusCode::kConflict, StrCat(args...)};
  }
  template <typename... Args>
  static Status Unauthorized(const Args&... args) {
    return {StatusCode::kUnauthorized, StrCat(args...)};
  }
  template <typename... Args>
  static Status Forbidden(const Args&... args) {
    return {StatusCode::kForbidden, StrCat(args...)};
  }
  template <typename... Args>
  static Status TokenExpired(const Args&... args) {
    return {StatusCode::kTokenExpired, StrCat(args...)};
  }
  static Status Unavailable(std::string msg, bool retryable = true) {
    return {StatusCode::kUnavailable, std::move(msg), retryable};
  }
  template <typename... Args>
  static Status Cancelled(const Args&... args) {
    return {StatusCode::kCancelled, StrCat(args...)};
  }
  template <typename... Args>
  static Status Corrupt(const Args&... args) {
    return {StatusCode::kCorrupt, StrCat(args...)};
  }
  template <typename... Args>
  static Status CommitStateUnknown(const Args&... args) {
    return {StatusCode::kCommitStateUnknown, StrCat(args...)};
  }
  template <typename... Args>
  static Status Unknown(const Args&... args) {
    return {StatusCode::kUnknown, StrCat(args...)};
  }

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
  bool IsCommitStateUnknown() const { return code() == StatusCode::kCommitStateUnknown; }

  /// \brief The typed detail, or null.
  const std::shared_ptr<const StatusDetail>& detail() const;
  /// \brief The detail as a `T` when it is one, else null.
  template <typename T>
  const T* detail_as() const {
    return dynamic_cast<const T*>(detail().get());
  }
  /// \brief A copy carrying `detail` (replacing any); OK stays OK.
  Status WithDetail(std::shared_ptr<const StatusDetail> detail) const;

  /// \brief A copy with `context` prepended ("When <context>: <message>"); code,
  /// retryable flag and detail kept. OK stays OK.
  Status WithContext(std::string_view context) const;

  /// \brief "OK" or "<CodeName>: <message>" (" (retryable)" appended when it is). The
  /// detail is not printed: messages already say what failed.
  std::string ToString() const;

  bool operator==(const Status& other) const;

 private:
  struct State {
    StatusCode code;
    std::string message;
    bool retryable;
    std::shared_ptr<const StatusDetail> detail;
  };
  std::unique_ptr<State> state_;
};

std::ostream& operator<<(std::ostream& os, const Status& status);

}  // namespace lance
