// SPDX-License-Identifier: Apache-2.0
// The S3 client's side of the HTTP layer (private): an S3 operation's request (key,
// query, range, sink) becomes one io::http request, and the answer's S3 headers come
// back named. Keep-alive reuse, timeouts, TLS and the bound on requests in flight
// (S3Options::max_connections) are the HTTP layer's; signing, retries and error mapping
// are the client's (s3_client.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/http/slice_sink.h"
#include "io/s3/endpoint.h"
#include "io/s3/errors.h"
#include "lance/io/http/http_client.h"
#include "lance/io/s3/s3_options.h"
#include "lance/result.h"

namespace lance::io::s3::internal {

// One HTTP request as the operations describe it.
struct Request : http::BodyTarget {
  const char* op = "";
  std::string method = "GET";
  std::string key;
  bool bucket_level = false;
  std::vector<std::pair<std::string, std::string>> query;
  std::vector<std::pair<std::string, std::string>> headers;  // sent and signed
  std::string_view body;
  ErrorContext context = ErrorContext::kDefault;
  std::string uri_for_messages;  // defaults to ObjectUri(key)
  // The successful body goes where BodyTarget says (into the caller's buffer, or into
  // Response::body).
};

// body: the success body (no buffer) or the error body; written: bytes delivered to the
// success sink; overflow: the server sent more than asked.
struct Response : http::SliceAnswer {
  std::string etag;
  std::string content_range;
  std::string last_modified;
  std::string content_length;
  std::string request_id;
  std::string error_code_header;  // x-amz-error-code (HEAD errors have no body)
};

/// \brief The HTTP client options of S3Options (timeouts, TLS checks, connections).
http::ClientOptions S3HttpOptions(const S3Options& options, std::string log_component);

class S3Transport {
 public:
  static Result<std::unique_ptr<S3Transport>> Make(const S3Options& options);

  /// \brief One attempt of `req` to `target` with the signature headers
  /// `auth_headers`. \return the answer (any status) or the transport failure.
  Response Perform(
      const Request& req, const RequestTarget& target,
      const std::vector<std::pair<std::string, std::string>>& auth_headers) const;

 private:
  explicit S3Transport(std::unique_ptr<http::HttpClient> http) : http_(std::move(http)) {}
  std::unique_ptr<http::HttpClient> http_;
};

}  // namespace lance::io::s3::internal
