// SPDX-License-Identifier: Apache-2.0
// The HTTP transport of the S3 client (private): one request, one attempt, over a pool
// of libcurl easy handles. A handle keeps its own connection cache, so returning it to
// the pool after each request (curl_easy_reset keeps live connections) lets the next
// request reuse the keep-alive connection. A counting semaphore bounds the requests in
// flight to S3Options::max_connections. Signing, retries and error mapping are the
// client's (s3_client.cc); this file only moves bytes.
#pragma once

#include <curl/curl.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <semaphore>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/s3/endpoint.h"
#include "io/s3/errors.h"
#include "lance/io/s3/s3_options.h"
#include "lance/status.h"

namespace lance::io::s3::internal {

// One HTTP request as the operations describe it.
struct Request {
  const char* op = "";
  std::string method = "GET";
  std::string key;
  bool bucket_level = false;
  std::vector<std::pair<std::string, std::string>> query;
  std::vector<std::pair<std::string, std::string>> headers;  // sent and signed
  std::string_view body;
  ErrorContext context = ErrorContext::kDefault;
  std::string uri_for_messages;  // defaults to ObjectUri(key)

  // Sink of a successful body: into `out` (capacity `out_capacity`) when set, else into
  // Response::body. `skip` bytes of a full (200) answer to a ranged GET are dropped.
  uint8_t* out = nullptr;
  int64_t out_capacity = 0;
  bool ranged = false;
  int64_t range_offset = 0;
  int64_t range_length = -1;  // -1: to the end
};

struct Response {
  int status = 0;
  std::string body;     // success body (string sink) or error body
  int64_t written = 0;  // bytes delivered to the success sink
  std::string etag;
  std::string content_range;
  std::string last_modified;
  std::string content_length;
  std::string request_id;
  std::string error_code_header;  // x-amz-error-code (HEAD errors have no body)
};

/// \brief curl_global_init, once per process. \return IOError if it failed.
Status InitCurlOnce();

class CurlTransport {
 public:
  /// \brief Timeouts, TLS checks and the connection bound come from `options`.
  explicit CurlTransport(const S3Options& options);
  ~CurlTransport();
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  /// \brief One attempt of `req` to `target` with the signature headers
  /// `auth_headers`. Fills `response`; sets `overflow` when the server sent more than
  /// asked, and `curl_error` (a libcurl message, never a header value) on failure.
  /// \return the curl code (CURLE_OK when an HTTP answer, any status, arrived).
  CURLcode Perform(const Request& req, const RequestTarget& target,
                   const std::vector<std::pair<std::string, std::string>>& auth_headers,
                   Response* response, bool* overflow, std::string* curl_error);

 private:
  CURL* AcquireHandle();
  void ReleaseHandle(CURL* h, bool reusable);

  const S3Options options_;
  std::mutex pool_mutex_;
  std::vector<CURL*> pool_;
  std::unique_ptr<std::counting_semaphore<>> slots_;
};

}  // namespace lance::io::s3::internal
