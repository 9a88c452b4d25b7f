// SPDX-License-Identifier: Apache-2.0
// A small blocking HTTP(S) client over libcurl for the REST namespace client: one request
// in, status + body out. It knows nothing about the namespace spec (routes, JSON, error
// codes): rest_namespace.cc does. Transport failures come back as NamespaceError kinds:
// connection refused / reset, DNS failures and timeouts are ServiceUnavailable (retryable),
// TLS verification failures and anything else Internal (not retryable). Messages name the
// method and the URL (user info removed), never a header value.

#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lance/result.h"

namespace lance::ns::rest_internal {

struct HttpClientOptions {
  std::optional<std::string> ca_cert;
  std::optional<std::string> cert_file;
  std::optional<std::string> key_file;
  bool assert_hostname = true;
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds request_timeout{60'000};
};

struct HttpRequest {
  std::string method;  ///< "GET" or "POST"
  std::string url;     ///< absolute, already encoded
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct HttpResponse {
  int64_t status = 0;
  std::string body;
};

/// \brief Thread-safe: every request takes its own curl handle from a small pool (so
/// connections are reused between requests).
class HttpClient {
 public:
  static Result<std::unique_ptr<HttpClient>> Make(HttpClientOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  /// \return the response of any HTTP status; an error only when no response arrived.
  Result<HttpResponse> Send(const HttpRequest& request) const;

 private:
  struct Pool;
  explicit HttpClient(HttpClientOptions options);
  HttpClientOptions options_;
  std::unique_ptr<Pool> pool_;
};

/// \brief `url` with any `user:password@` removed (for messages).
std::string RedactUrl(const std::string& url);

}  // namespace lance::ns::rest_internal
