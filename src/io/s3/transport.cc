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
// Most a Content-Length may make us reserve up front (larger bodies grow as they come).
constexpr int64_t kMaxBodyReserve = int64_t{1} << 30;
// libcurl's receive buffer (default 16 KiB): larger means fewer write callbacks and
// recv() calls per ranged GET of several MiB.
constexpr int64_t kReceiveBufferSize = 512L * 1024;

// A successful body: the slice the request asked for, into the caller's buffer or the
// response's string.
class SliceSink : public http::ResponseSink {
 public:
  SliceSink(const Request& req, Response* resp) : req_(req), resp_(resp) {}

  void Start(const http::HttpResponse& head) override {
    full_answer_to_range_ = req_.ranged && head.status == 200;
    // A full answer to a range: the server ignored it, take the slice out of the object.
    to_skip_ = full_answer_to_range_ ? req_.range_offset : 0;
    limit_ = req_.range_length;
    if (req_.out != nullptr && (limit_ < 0 || limit_ > req_.out_capacity)) {
      limit_ = req_.out_capacity;
    }
    if (req_.out == nullptr) {
      // A whole-object GET into the string sink: size it once from Content-Length
      // instead of growing (and copying) it as the body arrives.
      int64_t announced = 0;
      if (ParseInt64(head.Header("content-length"), &announced) && announced > 0) {
        if (limit_ >= 0) announced = std::min(announced, limit_);
        resp_->body.reserve(static_cast<size_t>(std::min(announced, kMaxBodyReserve)));
      }
    }
  }

  Verdict Write(std::string_view data) override {
    if (to_skip_ > 0) {
      const auto skip = static_cast<size_t>(
          std::min<int64_t>(to_skip_, static_cast<int64_t>(data.size())));
      to_skip_ -= static_cast<int64_t>(skip);
      data.remove_prefix(skip);
    }
    if (data.empty()) return Verdict::kContinue;
    const int64_t room =
        limit_ < 0 ? std::numeric_limits<int64_t>::max() : limit_ - resp_->written;
    bool done = false;
    if (static_cast<int64_t>(data.size()) > room) {
      if (!full_answer_to_range_) {
        resp_->overflow = true;
        return Verdict::kAbort;
      }
      // We have the whole slice; the rest of the object is not wanted.
      data = data.substr(0, static_cast<size_t>(room));
      done = true;
    }
    if (req_.out != nullptr) {
      std::memcpy(req_.out + resp_->written, data.data(), data.size());
    } else {
      resp_->body.append(data);
    }
    resp_->written += static_cast<int64_t>(data.size());
    return done ? Verdict::kDone : Verdict::kContinue;
  }

 private:
  const Request& req_;
  Response* resp_;
  bool full_answer_to_range_ = false;
  int64_t to_skip_ = 0;
  int64_t limit_ = -1;
};

}  // namespace

http::ClientOptions S3HttpOptions(const S3Options& options, std::string log_component) {
  http::ClientOptions http;
  http.log_component = std::move(log_component);
  http.connect_timeout = options.connect_timeout;
  http.request_timeout = options.request_timeout;
  // Always on: a zero stall timeout has meant "one second", never "no check".
  http.stall_timeout = std::max(options.stall_timeout, std::chrono::milliseconds(1));
  http.tls.verify_peer = !options.allow_invalid_certificates;
  http.tls.verify_host = !options.allow_invalid_certificates;
  http.max_in_flight = std::max(1, options.max_connections);
  http.tcp_keepalive = true;
  http.receive_buffer_size = kReceiveBufferSize;
  return http;
}

Result<std::unique_ptr<S3Transport>> S3Transport::Make(const S3Options& options) {
  LANCE_ASSIGN_OR_RAISE(auto http, http::HttpClient::Make(S3HttpOptions(options, "s3")));
  return std::unique_ptr<S3Transport>(new S3Transport(std::move(http)));
}

Response S3Transport::Perform(
    const Request& req, const RequestTarget& target,
    const std::vector<std::pair<std::string, std::string>>& auth_headers) const {
  Response resp;
  SliceSink sink(req, &resp);
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
