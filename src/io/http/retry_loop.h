// SPDX-License-Identifier: Apache-2.0
// The request loop the cloud clients share (private): credentials -> attempt -> verdict,
// then refresh the credentials once, back off and retry, or return. Each client makes
// the attempt (sign, send, read its service's error answer) and says what it means; the
// loop owns the credentials of the attempts, the retry budget and the backoff.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "lance/io/credentials.h"
#include "lance/io/http/http_client.h"
#include "lance/io/remote_tuning.h"
#include "lance/result.h"

namespace lance::io::http {

/// \brief Counters of a cloud client, for tests and benchmarks (monotonic, relaxed).
struct ClientStats {
  std::atomic<int64_t> requests{0};  ///< HTTP attempts sent (retries included)
  std::atomic<int64_t> retries{0};   ///< attempts after the first, all causes
  std::atomic<int64_t> credential_refreshes{0};  ///< OnRejected calls
  std::atomic<int64_t> bytes_received{0};        ///< body bytes of successful responses
  std::atomic<int64_t> bytes_sent{0};            ///< body bytes of successful requests
};

/// \brief What the attempts of one request did, for the writes whose effect must be
/// checked when an answer went missing.
struct AttemptTrace {
  int attempts = 0;
  /// \brief An attempt ended without an HTTP answer after the request may have reached
  /// the server (reset, empty or cut answer, timeout): the server may have carried it
  /// out. Failures to connect or resolve never sent anything and do not count.
  bool unanswered = false;

  /// \brief The request may have taken effect although the outcome is an error: an
  /// attempt went unanswered, or a later attempt met the state an earlier one left.
  bool MayHaveTakenEffect() const { return unanswered || attempts > 1; }
};

/// \brief How a client classifies an error answer.
enum class RetryClass {
  kFinal,               ///< return the mapped error
  kRetry,               ///< transient: back off and retry
  kRefreshCredentials,  ///< ask CredentialsSource::OnRejected, retry once
  /// \brief Maybe the credentials, maybe a real denial. Ask OnRejected once; if it
  /// cannot refresh, the original error stands as is.
  kMaybeRefreshCredentials,
};

/// \brief A transport failure worth retrying: a refused connection, a timeout, a
/// connection lost mid-exchange, a failed TLS handshake (resets during it). Resolve
/// failures are not: the loop retries them once, since a name that does not resolve is
/// almost always a configuration error.
bool IsRetryableTransportError(TransportError error);

/// \brief The full jitter bound for retry number `retry` (0-based):
/// min(max_backoff, initial * 2^retry).
std::chrono::milliseconds BackoffCeiling(int retry, std::chrono::milliseconds initial,
                                         std::chrono::milliseconds max_backoff);
/// \brief A delay uniformly chosen in [0, BackoffCeiling] from `unit` in [0, 1).
std::chrono::milliseconds BackoffDelay(int retry, std::chrono::milliseconds initial,
                                       std::chrono::milliseconds max_backoff,
                                       double unit);

/// \brief The options of a cloud store's HTTP client: MakeClientOptions with the
/// tuning's timeouts, the stall check always on (a zero stall timeout has meant "one
/// second", never "no check"), at most max_connections requests in flight, TCP
/// keep-alive and a 512 KiB receive buffer (fewer write callbacks per ranged GET of
/// several MiB).
ClientOptions CloudClientOptions(const RemoteTuning& tuning,
                                 bool allow_invalid_certificates, std::string component);

/// \brief ", after <n> attempts in <t> s" when `attempts` > 1, else empty: the tail of
/// the clients' error messages.
std::string AfterAttempts(int attempts, double elapsed_s);

/// \brief "<subject>: HTTP <status>[ <code>] (request id <id>)[: <message>]", the head of
/// the clients' error messages; a missing request id shows as "none", or not at all
/// unless `name_missing_id`.
std::string HttpErrorHead(std::string_view subject, int http_status,
                          std::string_view error_code, std::string_view request_id,
                          std::string_view message, bool name_missing_id = true);

/// \brief The Status of a final HTTP error answer: `code` and `message`, retryable when
/// Unavailable, with an io::HttpErrorDetail (status, the service's error code, request
/// id).
Status HttpErrorStatus(StatusCode code, std::string message, int http_status,
                       const std::string& error_code, const std::string& request_id);

/// \brief What the loop does after an attempt.
struct Verdict {
  enum Kind {
    kSucceed,  ///< return OK: the caller keeps the answer
    kFail,     ///< return `status`
    kRefresh,  ///< the credentials were rejected (`status`): refresh, then retry
    kRetry,    ///< transient (`status`): back off and retry, or fail when spent
  };
  Kind kind = kSucceed;
  Status status;
  /// \brief kRefresh: what was rejected, for the log ("HTTP 403 AccessDenied").
  std::string rejection;
  /// \brief kRefresh: a failed refresh returns `status` as is (a denial that may not be
  /// about the credentials), else with the refresh's failure appended.
  bool maybe_credentials = false;
  /// \brief kRetry: an HTTP answer (its message already counts the attempts).
  bool answered = true;

  static Verdict Succeed() { return Verdict(); }
  static Verdict Fail(Status status) { return Make(kFail, std::move(status)); }
  static Verdict Retry(Status status, bool answered) {
    Verdict v = Make(kRetry, std::move(status));
    v.answered = answered;
    return v;
  }
  static Verdict Refresh(Status status, std::string rejection, bool maybe_credentials) {
    Verdict v = Make(kRefresh, std::move(status));
    v.rejection = std::move(rejection);
    v.maybe_credentials = maybe_credentials;
    return v;
  }

 private:
  static Verdict Make(Kind kind, Status status) {
    Verdict v;
    v.kind = kind;
    v.status = std::move(status);
    return v;
  }
};

/// \brief What a client's loops share.
struct RetryConfig {
  /// \brief The log component ("s3") and the service in messages ("S3").
  std::string_view component;
  std::string_view service;
  /// \brief What a refresh asks for: "fresh credentials" / "a fresh token", and how its
  /// failure is told: "refreshing credentials failed" / "refreshing the token failed".
  std::string_view fresh_what = "fresh credentials";
  std::string_view refresh_failed = "refreshing credentials failed";
  const RemoteTuning* tuning = nullptr;
  CredentialsSource* credentials = nullptr;
  ClientStats* stats = nullptr;
};

/// \brief The attempts of one request.
class RetryLoop {
 public:
  RetryLoop(const RetryConfig& config, std::string_view op, std::string uri,
            AttemptTrace* trace);

  /// \brief Runs `attempt` with the credentials of each round (creds()) until a verdict
  /// of success or failure, or the retry budget is spent (Unavailable, retryable).
  /// \return OK on success; an error `attempt` returns, as is.
  Status Run(const std::function<Result<Verdict>()>& attempt);

  /// \brief The credentials of the current attempt.
  const std::shared_ptr<const Credentials>& creds() const { return creds_; }
  const std::string& uri() const { return uri_; }
  int attempts() const { return attempts_; }
  bool refreshed() const { return refreshed_; }
  double ElapsedSeconds() const;
  /// \brief The credentials in their redacted form, for log lines.
  std::string CredentialsLabel() const;
  /// \brief ", after <n> attempts in <t> s" once there was more than one attempt.
  std::string AfterAttempts() const;
  /// \brief "<service> <op> of <uri>".
  std::string Subject() const;

  /// \brief Counts one attempt (the trace and the requests counter).
  void CountAttempt();
  /// \brief The verdict on an attempt without an answer; `message` is libcurl's, as it
  /// may be shown.
  Verdict OnTransportFailure(TransportError error, int code, std::string_view message);
  /// \brief The verdict on an error answer (`error`, its class): a refresh when the
  /// credentials may be the cause, none was made yet and `can_refresh` (credentials
  /// went); a retry when transient; else the failure, logged (Debug for absent objects
  /// and lost create races).
  Verdict OnErrorAnswer(Status error, RetryClass cls, bool can_refresh,
                        std::string rejection);

 private:
  Status TakeCredentials();
  Status Refresh(const Verdict& rejected);
  Status BackOff(const Verdict& failure);

  const RetryConfig& config_;
  std::string_view op_;
  std::string uri_;
  AttemptTrace* trace_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  int attempts_ = 0;
  int retries_ = 0;
  int resolve_failures_ = 0;
  bool refreshed_ = false;
  std::shared_ptr<const Credentials> creds_;
  std::shared_ptr<const Credentials> fresh_;
};

}  // namespace lance::io::http
