// SPDX-License-Identifier: Apache-2.0

#include "lance/status.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "lance/core/enum_names.h"
#include "lance/macros.h"
#include "lance/result.h"

namespace lance {

constexpr auto kStatusCodeNames = MakeEnumNames<StatusCode>(
    "OK", "Invalid", "IOError", "NotFound", "AlreadyExists", "NotImplemented", "Conflict",
    "Unauthorized", "Forbidden", "TokenExpired", "Unavailable", "Cancelled", "Corrupt",
    "Unknown", "CommitStateUnknown");
static_assert(kStatusCodeNames.size() == EnumCount(StatusCode::kCommitStateUnknown));

std::string_view StatusCodeName(StatusCode code) {
  return kStatusCodeNames.Name(code, "Unknown");
}

std::string ErrnoDetail::ToString() const {
  return StrCat("errno ", errnum_, " (", std::strerror(errnum_), ")");
}

Status::Status(StatusCode code, std::string message, bool retryable,
               std::shared_ptr<const StatusDetail> detail) {
  // An OK code never allocates, whatever message was passed.
  if (code != StatusCode::kOk) {
    state_ = std::make_unique<State>(
        State{code, std::move(message), retryable, std::move(detail)});
  }
}

Status::Status(const Status& other)
    : state_(other.state_ ? std::make_unique<State>(*other.state_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) {
    state_ = other.state_ ? std::make_unique<State>(*other.state_) : nullptr;
  }
  return *this;
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return state_ ? state_->message : kEmpty;
}

const std::shared_ptr<const StatusDetail>& Status::detail() const {
  static const std::shared_ptr<const StatusDetail> kNone;
  return state_ ? state_->detail : kNone;
}

Status Status::WithDetail(std::shared_ptr<const StatusDetail> detail) const {
  if (ok()) return Status();
  return Status(state_->code, state_->message, state_->retryable, std::move(detail));
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return Status();
  return Status(state_->code, StrCat("When ", context, ": ", state_->message),
                state_->retryable, state_->detail);
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(code()));
  out.append(": ");
  out.append(state_->message);
  if (state_->retryable) out.append(" (retryable)");
  return out;
}

bool Status::operator==(const Status& other) const {
  if (ok() || other.ok()) return ok() == other.ok();
  return state_->code == other.state_->code && state_->message == other.state_->message;
}

std::ostream& operator<<(std::ostream& os, const Status& status) {
  return os << status.ToString();
}

namespace internal {

void DieOnBadResultAccess(const Status& status) {
  std::fprintf(stderr, "lance: value() called on an error Result: %s\n",
               status.ToString().c_str());
  std::abort();
}

void DieOnFailedCheck(const char* cond, const char* file, int line) {
  std::fprintf(stderr, "lance: check failed: %s at %s:%d\n", cond, file, line);
  std::abort();
}

}  // namespace internal
}  // namespace lance
