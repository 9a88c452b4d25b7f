// SPDX-License-Identifier: Apache-2.0
// The S3 client's adapter over the HTTP layer (see transport.h).

#include "io/s3/transport.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "io/s3/responses.h"
#include "lance/macros.h"

namespace lance::io::s3::internal {

namespace {

// An absurd error body aborts the transfer.
constexpr int64_t kMaxErrorBody = int64_t{1} << 20;
}  // namespace

http::ClientOptions S3HttpOptions(const S3Options& options, std::string log_component) {
  return http::CloudClientOptions(options, options.allow_invalid_certificates,
                                  std::move(log_component));
}

Result<std::unique_ptr<S3Transport>> S3Transport::Make(const S3Options& options) {
  LANCE_ASSIGN_OR_RAISE(auto http, http::HttpClient::Make(S3HttpOptions(options, "s3")));
  return std::unique_ptr<S3Transport>(new S3Transport(std::move(http)));
}

Response S3Transport::Perform(
    const Request& req, const RequestTarget& target,
    const std::vector<std::pair<std::string, std::string>>& auth_headers) const {
  Response resp;
  http::SliceSink sink(req, &resp);
  http::HttpRequest hreq;
  hreq.method = req.method;
  hreq.url = target.url;
  hreq.body = req.body;
  hreq.success_sink = &sink;
  hreq.max_buffered_body = kMaxErrorBody;
  // The signed Host; no default Accept or form Content-Type from libcurl.
  hreq.headers = {{"Host", target.host_header}, {"Accept", ""}, {"Content-Type", ""}};
  hreq.headers.insert(hreq.headers.end(), req.headers.begin(), req.headers.end());
  hreq.headers.insert(hreq.headers.end(), auth_headers.begin(), auth_headers.end());

  http::HttpResponse answer = http_->Send(hreq);
  resp.status = answer.status;
  resp.transport_error = answer.error;
  resp.transport_code = answer.transport_code;
  resp.transport_message = std::move(answer.transport_message);
  // An error body (the success body is the sink's).
  if (!answer.body.empty()) resp.body = std::move(answer.body);
  resp.etag = std::string(answer.Header("etag"));
  resp.content_range = std::string(answer.Header("content-range"));
  resp.last_modified = std::string(answer.Header("last-modified"));
  resp.content_length = std::string(answer.Header("content-length"));
  resp.request_id = std::string(answer.Header("x-amz-request-id"));
  resp.error_code_header = std::string(answer.Header("x-amz-error-code"));
  return resp;
}

}  // namespace lance::io::s3::internal
