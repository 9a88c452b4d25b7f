// SPDX-License-Identifier: Apache-2.0
/// \file http_client.h
/// \brief The one HTTP(S) transport of the library: S3, STS and the REST namespace
/// client send their requests through it (and Azure / GCS clients would).
///
/// It moves bytes and nothing more: one request, one attempt. Signing, retry loops and
/// the mapping of answers to a Status belong to the protocol clients; this layer gives
/// them the pieces they share:
///  - a client that keeps a pool of libcurl easy handles, so keep-alive connections are
///    reused between requests (a handle is reset, not destroyed, after each request),
///    and optionally bounds the requests in flight;
///  - timeouts (connect, whole request, stalled transfer) and TLS options (CA bundle,
///    client certificate, peer and host name verification);
///  - a neutral classification of transport failures and retryable HTTP statuses
///    (protocol-specific codes, such as S3's SlowDown, stay with the protocol);
///  - redaction for logs and messages: credentials in URLs and secret-bearing headers
///    (Authorization, x-amz-security-token, x-api-key, ...) never reach a log line.
///
/// No libcurl type appears here: the namespace layer uses this header too.

#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lance/result.h"

namespace lance::io::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

/// \brief Why no HTTP answer arrived (kNone: one did, whatever its status).
enum class TransportError {
  kNone,
  kConnect,          ///< the connection could not be opened: nothing was sent
  kResolve,          ///< the host or proxy name did not resolve: nothing was sent
  kTimeout,          ///< connect or request timeout, or a stalled transfer
  kConnectionLost,   ///< the exchange broke off: reset, empty or cut answer
  kTlsHandshake,     ///< the TLS handshake failed (often a reset during it)
  kTlsVerification,  ///< a certificate (the peer's or one of our TLS files) was refused
  kOther,            ///< anything else (a sink that stopped, a body too large, ...)
};

/// \brief The TransportError of a libcurl result code (0 is kNone).
TransportError ClassifyTransportCode(int curl_code);

/// \brief Connection failures a later attempt may get past: kConnect, kResolve,
/// kTimeout, kConnectionLost. Protocols with a stricter policy (S3 retries a resolve
/// failure once, and a TLS handshake failure) decide on the TransportError themselves.
bool IsTransientTransportError(TransportError error);

/// \brief Statuses that mean "overloaded or briefly broken, try again": 429 (throttled),
/// 500, 502, 503, 504.
bool IsRetryableHttpStatus(int status);

/// \brief RFC 3986 percent-encoding, as SigV4, Shared Key and the GCS JSON API want it:
/// every byte but the unreserved ones (ASCII letters, digits, "-._~") becomes %XX
/// (upper-case hex); '/' is kept unless `encode_slash`.
std::string PercentEncode(std::string_view data, bool encode_slash = true);

/// \brief True for headers whose value is a secret or grants access (Authorization,
/// Proxy-Authorization, Cookie, x-amz-security-token, x-api-key, and any name that
/// mentions a token, a secret, a password, a signature, a key, a credential or an
/// authorization, e.g. x-ms-copy-source-authorization).
bool IsSecretHeader(std::string_view name);

/// \brief True for query parameters whose value is a secret: Azure's SAS signature `sig`
/// and any name IsSecretHeader would hide (X-Amz-Signature, X-Amz-Security-Token, ...).
bool IsSecretQueryParameter(std::string_view name);

/// \brief `url` with any `user:password@` replaced by `***@` and the values of secret
/// query parameters (IsSecretQueryParameter) by `<redacted>` (for messages and logs).
std::string RedactUrl(std::string_view url);

/// \brief "name: value, name: <redacted>" for a log line: secret headers (see
/// IsSecretHeader) show no value, and URL values (x-ms-copy-source) go through RedactUrl.
std::string DescribeHeaders(const Headers& headers);

struct TlsOptions {
  /// \brief CA bundle to trust instead of the system's.
  std::optional<std::string> ca_file;
  /// \brief Client certificate and key (mutual TLS).
  std::optional<std::string> cert_file;
  std::optional<std::string> key_file;
  /// \brief Check the peer's certificate chain and that it names the host.
  bool verify_peer = true;
  bool verify_host = true;
};

struct ClientOptions {
  /// \brief The log component of the client's lines ("s3", "sts", "rest", ...).
  std::string log_component = "http";
  /// \brief Opening the connection (at least 1 ms).
  std::chrono::milliseconds connect_timeout{10'000};
  /// \brief The whole request, 0 for none.
  std::chrono::milliseconds request_timeout{60'000};
  /// \brief Abort a transfer that moves less than one byte a second for this long; 0
  /// for no such check (rounded down to seconds, at least 1 s when set).
  std::chrono::milliseconds stall_timeout{0};
  TlsOptions tls;
  /// \brief Most requests in flight at once (others wait); 0 for no bound.
  int max_in_flight = 0;
  /// \brief Most idle handles kept for reuse; 0 for no bound.
  size_t max_idle_handles = 0;
  /// \brief TCP keep-alive probes on idle connections.
  bool tcp_keepalive = false;
  /// \brief libcurl's receive buffer in bytes; 0 for its default.
  int64_t receive_buffer_size = 0;
  /// \brief Ask for and decode any content encoding libcurl supports (gzip, ...).
  bool decode_content = false;
};

/// \brief The options of a client whose log lines name `component`, with these timeouts,
/// checking TLS certificates unless `allow_invalid_certificates`.
ClientOptions MakeClientOptions(std::string component,
                                std::chrono::milliseconds connect_timeout,
                                std::chrono::milliseconds request_timeout,
                                bool allow_invalid_certificates);

struct HttpResponse;

/// \brief Where the body of a successful (2xx) answer goes when the caller streams it
/// (e.g. straight into a read buffer). Error bodies always go to HttpResponse::body.
class ResponseSink {
 public:
  enum class Verdict {
    kContinue,  ///< keep receiving
    kDone,      ///< all wanted bytes arrived: stop the transfer, the request succeeded
    kAbort,     ///< stop the transfer, the request failed (TransportError::kOther)
  };
  virtual ~ResponseSink() = default;
  /// \brief Once, after the headers of the final answer, before any Write (also for a
  /// bodiless answer).
  virtual void Start(const HttpResponse& head) = 0;
  virtual Verdict Write(std::string_view data) = 0;
};

struct HttpRequest {
  std::string method = "GET";  ///< GET, HEAD, PUT (uploaded), POST, or any other verb
  std::string url;             ///< absolute, already encoded; sent as is
  /// \brief Sent in order; an empty value removes a header libcurl would add.
  Headers headers;
  /// \brief The body of PUT and POST; must outlive Send.
  std::string_view body;
  /// \brief Receives a 2xx body when set (else it goes to HttpResponse::body).
  ResponseSink* success_sink = nullptr;
  /// \brief Most bytes buffered in HttpResponse::body; a longer body fails the request
  /// (TransportError::kOther). -1 for no bound.
  int64_t max_buffered_body = -1;
};

struct HttpResponse {
  /// \brief The HTTP status of the final answer (0 when none arrived).
  int status = 0;
  /// \brief The headers of the final answer, names as sent, values trimmed.
  Headers headers;
  std::string body;
  /// \brief kNone when an answer arrived; else why not, with libcurl's code and message
  /// (never a header value).
  TransportError error = TransportError::kNone;
  int transport_code = 0;
  std::string transport_message;

  bool answered() const { return error == TransportError::kNone; }
  /// \brief The value of header `name` (case-insensitive); empty when absent.
  std::string_view Header(std::string_view name) const;
};

/// \brief A token request: a POST of the application/x-www-form-urlencoded `body` (which
/// must outlive Send) that asks for JSON, its answer buffered up to 1 MiB.
HttpRequest FormPost(std::string url, std::string_view body);

/// \brief Thread-safe: every request takes its own handle from the pool.
class HttpClient {
 public:
  /// \return the client; IOError if libcurl cannot be initialised.
  static Result<std::unique_ptr<HttpClient>> Make(ClientOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  /// \brief One attempt of `request`. Logs one Trace line (redacted URL and headers).
  /// \return the answer of any status, or the transport failure (see answered()).
  HttpResponse Send(const HttpRequest& request) const;

  const ClientOptions& options() const;
  /// \brief Handles created so far (a reused connection creates none; for tests).
  int64_t handles_created() const;

 private:
  struct Impl;
  explicit HttpClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lance::io::http
