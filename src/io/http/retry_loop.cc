// SPDX-License-Identifier: Apache-2.0
// The request loop the cloud clients share (see retry_loop.h).

#include "io/http/retry_loop.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <random>
#include <thread>
#include <utility>

#include "lance/core/logging.h"
#include "lance/io/http_error.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::http {

namespace {

// Full jitter needs one uniform draw per backoff; all clients share the generator.
double RandomUnit() {
  static std::mutex mutex;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard<std::mutex> lock(mutex);
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

bool MayRefresh(RetryClass cls) {
  return cls == RetryClass::kRefreshCredentials ||
         cls == RetryClass::kMaybeRefreshCredentials;
}

}  // namespace

bool IsRetryableTransportError(TransportError error) {
  // A TLS handshake that fails is most often a connection reset during it.
  return error == TransportError::kConnect || error == TransportError::kTimeout ||
         error == TransportError::kConnectionLost ||
         error == TransportError::kTlsHandshake;
}

std::chrono::milliseconds BackoffCeiling(int retry, std::chrono::milliseconds initial,
                                         std::chrono::milliseconds max_backoff) {
  if (initial.count() <= 0) return std::chrono::milliseconds(0);
  // Double without overflowing: stop as soon as the cap is reached.
  int64_t ceiling = initial.count();
  for (int i = 0; i < retry && ceiling < max_backoff.count(); ++i) ceiling *= 2;
  return std::chrono::milliseconds(std::min<int64_t>(ceiling, max_backoff.count()));
}

std::chrono::milliseconds BackoffDelay(int retry, std::chrono::milliseconds initial,
                                       std::chrono::milliseconds max_backoff,
                                       double unit) {
  const auto ceiling = BackoffCeiling(retry, initial, max_backoff);
  unit = std::clamp(unit, 0.0, 1.0);
  auto ms = static_cast<int64_t>(std::floor(unit * static_cast<double>(ceiling.count())));
  return std::chrono::milliseconds(std::min<int64_t>(ms, ceiling.count()));
}

ClientOptions CloudClientOptions(const RemoteTuning& tuning,
                                 bool allow_invalid_certificates, std::string component) {
  ClientOptions options =
      MakeClientOptions(std::move(component), tuning.connect_timeout,
                        tuning.request_timeout, allow_invalid_certificates);
  options.stall_timeout = std::max(tuning.stall_timeout, std::chrono::milliseconds(1));
  options.max_in_flight = std::max(1, tuning.max_connections);
  options.tcp_keepalive = true;
  options.receive_buffer_size = 512L * 1024;
  return options;
}

std::string AfterAttempts(int attempts, double elapsed_s) {
  if (attempts <= 1) return "";
  char buf[64];
  std::snprintf(buf, sizeof(buf), ", after %d attempts in %.1f s", attempts, elapsed_s);
  return buf;
}

std::string HttpErrorHead(std::string_view subject, int http_status,
                          std::string_view error_code, std::string_view request_id,
                          std::string_view message, bool name_missing_id) {
  std::string msg = StrCat(subject, ": HTTP ", http_status);
  if (!error_code.empty()) StrAppend(&msg, " ", error_code);
  if (!request_id.empty() || name_missing_id) {
    StrAppend(&msg, " (request id ", request_id.empty() ? "none" : request_id, ")");
  }
  if (!message.empty()) StrAppend(&msg, ": ", message);
  return msg;
}

Status HttpErrorStatus(StatusCode code, std::string message, int http_status,
                       const std::string& error_code, const std::string& request_id) {
  return Status(code, std::move(message), code == StatusCode::kUnavailable,
                std::make_shared<HttpErrorDetail>(http_status, error_code, request_id));
}

RetryLoop::RetryLoop(const RetryConfig& config, std::string_view op, std::string uri,
                     AttemptTrace* trace)
    : config_(config), op_(op), uri_(std::move(uri)), trace_(trace) {}

double RetryLoop::ElapsedSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string RetryLoop::CredentialsLabel() const {
  return creds_ != nullptr ? creds_->ToString() : std::string("anonymous");
}

std::string RetryLoop::AfterAttempts() const {
  return http::AfterAttempts(attempts_, ElapsedSeconds());
}

std::string RetryLoop::Subject() const {
  return StrCat(config_.service, " ", op_, " of ", uri_);
}

Status RetryLoop::Run(const std::function<Result<Verdict>()>& attempt) {
  while (true) {
    LANCE_RETURN_NOT_OK(TakeCredentials());
    LANCE_ASSIGN_OR_RAISE(Verdict verdict, attempt());
    switch (verdict.kind) {
      case Verdict::kSucceed:
        return Status::OK();
      case Verdict::kFail:
        return verdict.status;
      case Verdict::kRefresh:
        // No backoff: the cause was the credentials, not the load.
        LANCE_RETURN_NOT_OK(Refresh(verdict));
        break;
      case Verdict::kRetry:
        LANCE_RETURN_NOT_OK(BackOff(verdict));
        break;
    }
  }
}

// The credentials of the next attempt: those a refresh just gave, else the source's
// current ones (never cached here).
Status RetryLoop::TakeCredentials() {
  if (fresh_ != nullptr) {
    creds_ = std::move(fresh_);
    fresh_ = nullptr;
    return Status::OK();
  }
  auto current = config_.credentials->Current();
  if (!current.ok()) {
    LANCE_LOG(Warn, config_.component)
        << Subject() << ": no credentials from " << config_.credentials->ToString()
        << ": " << current.status().ToString();
    return current.status().WithContext(StrCat(Subject(), ": getting credentials"));
  }
  creds_ = *current;
  return Status::OK();
}

void RetryLoop::CountAttempt() {
  ++attempts_;
  if (trace_ != nullptr) trace_->attempts = attempts_;
  config_.stats->requests.fetch_add(1, std::memory_order_relaxed);
}

Verdict RetryLoop::OnTransportFailure(TransportError error, int code,
                                      std::string_view message) {
  const bool resolve = error == TransportError::kResolve;
  // Only a failure to resolve or connect proves the request never left.
  if (trace_ != nullptr && !resolve && error != TransportError::kConnect) {
    trace_->unanswered = true;
  }
  if (resolve) ++resolve_failures_;
  std::string msg = StrCat(Subject(), ": ", message, " (curl error ", code, ")");
  if (IsRetryableTransportError(error) || (resolve && resolve_failures_ <= 1)) {
    return Verdict::Retry(Status::Unavailable(std::move(msg)), /*answered=*/false);
  }
  msg += AfterAttempts();
  LANCE_LOG(Warn, config_.component) << msg;
  return Verdict::Fail(resolve ? Status::Unavailable(std::move(msg), /*retryable=*/false)
                               : Status::IOError(std::move(msg)));
}

Verdict RetryLoop::OnErrorAnswer(Status error, RetryClass cls, bool can_refresh,
                                 std::string rejection) {
  if (MayRefresh(cls) && !refreshed_ && can_refresh) {
    return Verdict::Refresh(std::move(error), std::move(rejection),
                            cls == RetryClass::kMaybeRefreshCredentials);
  }
  if (cls == RetryClass::kRetry)
    return Verdict::Retry(std::move(error), /*answered=*/true);
  // Absent objects and lost create races are answers, not failures: debug only.
  if (error.IsNotFound() || error.IsAlreadyExists()) {
    LANCE_LOG(Debug, config_.component) << error.message();
  } else {
    LANCE_LOG(Warn, config_.component)
        << error.message() << " (" << CredentialsLabel() << ")";
  }
  return Verdict::Fail(std::move(error));
}

// The credentials were rejected: asks the source once for fresh ones. \return OK to
// retry with them, else the error to return.
Status RetryLoop::Refresh(const Verdict& rejected) {
  refreshed_ = true;
  config_.stats->credential_refreshes.fetch_add(1, std::memory_order_relaxed);
  LANCE_LOG(Info, config_.component)
      << op_ << " of " << uri_ << ": " << rejected.rejection << " with "
      << CredentialsLabel() << "; asking " << config_.credentials->ToString() << " for "
      << config_.fresh_what;
  auto fresh = config_.credentials->OnRejected(*creds_);
  if (!fresh.ok()) {
    const Status& original = rejected.status;
    LANCE_LOG(Warn, config_.component)
        << original.message() << " with " << CredentialsLabel()
        << "; no fresh credentials: " << fresh.status().message();
    // A plain denial is most often a real permission problem: a source that cannot
    // refresh must not turn it into a credentials story.
    if (rejected.maybe_credentials) return original;
    return Status(original.code(),
                  StrCat(original.message(), "; ", config_.refresh_failed, ": ",
                         fresh.status().message()),
                  original.retryable(), original.detail());
  }
  fresh_ = *fresh;
  LANCE_LOG(Info, config_.component)
      << op_ << " of " << uri_ << ": retrying with " << fresh_->ToString();
  ++retries_;
  config_.stats->retries.fetch_add(1, std::memory_order_relaxed);
  return Status::OK();
}

// A transient failure: waits before the next attempt. \return OK to retry, or
// Unavailable (retryable) when the retry budget is spent.
Status RetryLoop::BackOff(const Verdict& failure) {
  const RemoteTuning& tuning = *config_.tuning;
  const auto elapsed = std::chrono::steady_clock::now() - start_;
  if (retries_ >= tuning.max_retries || elapsed >= tuning.retry_timeout) {
    // An HTTP answer's message already counts the attempts.
    std::string msg =
        failure.status.message() + (failure.answered ? "" : AfterAttempts());
    LANCE_LOG(Warn, config_.component) << msg << " (retries exhausted)";
    // The last HTTP answer's detail (none after a transport failure) stays on.
    return Status::Unavailable(std::move(msg), /*retryable=*/true)
        .WithDetail(failure.status.detail());
  }
  auto delay =
      BackoffDelay(retries_, tuning.initial_backoff, tuning.max_backoff, RandomUnit());
  // Rounded up: truncated, the last fraction of a millisecond before the timeout read
  // as 0 and the loop retried without pausing until the clock passed it.
  const auto remaining =
      std::chrono::ceil<std::chrono::milliseconds>(tuning.retry_timeout - elapsed);
  delay = std::min(delay, remaining);
  LANCE_LOG(Info, config_.component)
      << failure.status.message() << "; retry " << (retries_ + 1) << " of "
      << tuning.max_retries << " in " << delay.count() << " ms";
  if (delay.count() > 0) std::this_thread::sleep_for(delay);
  ++retries_;
  config_.stats->retries.fetch_add(1, std::memory_order_relaxed);
  return Status::OK();
}

}  // namespace lance::io::http
