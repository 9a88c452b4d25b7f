// SPDX-License-Identifier: Apache-2.0
// The S3 client's adapter over the HTTP layer (see transport.h).

#include "io/s3/transport.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "io/s3/responses.h"
#include "lance/macros.h"

namespace lance::io::s3::internal {

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
  http::HttpRequest hreq;
  hreq.method = req.method;
  hreq.url = target.url;
  hreq.body = req.body;
  // The signed Host; no default Accept or form Content-Type from libcurl.
  hreq.headers = {{"Host", target.host_header}, {"Accept", ""}, {"Content-Type", ""}};
  hreq.headers.insert(hreq.headers.end(), req.headers.begin(), req.headers.end());
  hreq.headers.insert(hreq.headers.end(), auth_headers.begin(), auth_headers.end());

  Response resp;
  static_cast<http::SliceAnswer&>(resp) =
      http::SendForSlice(*http_, std::move(hreq), req);
  resp.etag = std::string(resp.Header("etag"));
  resp.content_range = std::string(resp.Header("content-range"));
  resp.last_modified = std::string(resp.Header("last-modified"));
  resp.content_length = std::string(resp.Header("content-length"));
  resp.request_id = std::string(resp.Header("x-amz-request-id"));
  resp.error_code_header = std::string(resp.Header("x-amz-error-code"));
  return resp;
}

}  // namespace lance::io::s3::internal
