// SPDX-License-Identifier: Apache-2.0
// The S3 operations over the transport (see s3_client.h for the contract): each builds a
// Request, Execute() signs, sends, retries and maps errors, and the operation reads its
// answer. The transport is transport.h (over the io::http layer); addressing
// endpoint.h; error mapping errors.h; bodies responses.h.

#include "io/s3/s3_client.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <utility>

#include "io/s3/endpoint.h"
#include "io/s3/errors.h"
#include "io/s3/responses.h"
#include "io/s3/sigv4.h"
#include "io/s3/transport.h"
#include "io/s3/xml.h"
#include "lance/core/logging.h"
#include "lance/io/http_error.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::s3 {

using internal::ErrorContext;
using internal::Request;
using internal::Response;
using internal::RetryClass;
using internal::S3Error;

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What the attempts of one request did, for the writes whose effect must be checked when
// an answer went missing.
struct AttemptTrace {
  int attempts = 0;
  // An attempt ended without an HTTP answer after the request may have reached the
  // server (reset, empty or cut answer, timeout): the server may have carried it out.
  // Failures to connect or resolve never sent anything and do not count.
  bool unanswered = false;

  // The request may have taken effect although the outcome we hold is an error: an
  // attempt went unanswered, or a later attempt met the state an earlier one left.
  bool MayHaveTakenEffect() const { return unanswered || attempts > 1; }
};

// "\"<32 hex>\"" -> the 16 bytes; empty for any other form (SSE-KMS and some servers use
// ETags that are not the body's MD5).
std::string EtagDigest(std::string_view etag) {
  if (etag.size() == 34 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, 32);
  }
  if (etag.size() != 32) return "";
  std::string out;
  for (size_t i = 0; i < 32; i += 2) {
    int v = 0;
    for (size_t j = i; j < i + 2; ++j) {
      const char c = etag[j];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= c - '0';
      } else if (c >= 'a' && c <= 'f') {
        v |= c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        v |= c - 'A' + 10;
      } else {
        return "";
      }
    }
    out.push_back(static_cast<char>(v));
  }
  return out;
}

// The ETag S3 (and RGW) give an object completed from these parts: the MD5 of the
// concatenated binary MD5s of the parts, then "-<number of parts>". Empty when a part's
// ETag is not an MD5.
std::string MultipartEtag(const std::vector<std::string>& part_etags) {
  std::string digests;
  for (const std::string& etag : part_etags) {
    std::string digest = EtagDigest(etag);
    if (digest.empty()) return "";
    digests += digest;
  }
  return "\"" + internal::Md5Hex(digests) + "-" + std::to_string(part_etags.size()) +
         "\"";
}

// The attempts of one request: what Execute's steps share.
struct Exchange {
  explicit Exchange(const Request& r) : req(r) {}

  const Request& req;
  std::string uri;
  internal::RequestTarget target;
  std::string payload_hash;
  AttemptTrace* trace = nullptr;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  int attempts = 0;
  int retries = 0;
  int resolve_failures = 0;
  bool refreshed = false;
  // The credentials of the current attempt, and those OnRejected gave for the next.
  std::shared_ptr<const Credentials> creds;
  std::shared_ptr<const Credentials> fresh;

  bool Signed() const { return creds != nullptr && !creds->aws.empty(); }
  // The credentials in their redacted form, for log lines.
  std::string CredentialsLabel() const {
    return Signed() ? creds->aws.ToString() : std::string("unsigned");
  }
  // ", after <n> attempts in <t> s" once there was more than one attempt.
  std::string AfterAttempts() const {
    if (attempts <= 1) return "";
    char buf[64];
    std::snprintf(buf, sizeof(buf), ", after %d attempts in %.1f s", attempts,
                  SecondsSince(start));
    return buf;
  }
};

// What Execute does after an attempt.
struct Verdict {
  enum Kind {
    kSucceed,  // return the response
    kFail,     // return `status`
    kRefresh,  // the credentials were rejected (`error`, `cls`): refresh, then retry
    kRetry,    // transient: back off and retry; `status` if the budget is spent
  };
  Kind kind = kSucceed;
  Status status;
  S3Error error;
  RetryClass cls = RetryClass::kFinal;

  static Verdict Succeed() { return Verdict(); }
  static Verdict Fail(Status status) { return Verdict(kFail, std::move(status)); }
  static Verdict Retry(Status status) { return Verdict(kRetry, std::move(status)); }
  static Verdict Refresh(S3Error error, RetryClass cls) {
    Verdict v(kRefresh, Status::OK());
    v.error = std::move(error);
    v.cls = cls;
    return v;
  }

 private:
  Verdict() = default;
  Verdict(Kind k, Status s) : kind(k), status(std::move(s)) {}
};

using AcceptFn = std::function<bool(int status, const S3Error&)>;
using BodyErrorFn = std::function<std::optional<S3Error>(const Response&)>;

}  // namespace

struct S3Client::Impl {
  std::string bucket;
  S3Options options;
  std::shared_ptr<CredentialsSource> credentials;
  internal::ParsedEndpoint endpoint;
  S3ClientStats stats;

  std::unique_ptr<internal::S3Transport> transport;

  std::mutex rng_mutex;
  std::mt19937_64 rng{std::random_device{}()};

  std::string ObjectUri(std::string_view key) const {
    std::string uri = "s3://" + bucket + "/";
    uri += key;
    return uri;
  }

  double RandomUnit() {
    std::lock_guard<std::mutex> lock(rng_mutex);
    return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  }

  // Runs `req` with retries, signing each attempt. On success returns the response
  // (2xx, or a status the caller declared acceptable through `accept`). Each round is
  // credentials -> sign -> attempt -> classify, then refresh or back off.
  Result<Response> Execute(const Request& req, const AcceptFn& accept = {},
                           const BodyErrorFn& body_error = {},
                           AttemptTrace* trace = nullptr) {
    Exchange x = BeginExchange(req, trace);
    while (true) {
      LANCE_RETURN_NOT_OK(TakeCredentials(&x));
      LANCE_ASSIGN_OR_RAISE(auto auth_headers, Sign(x));
      Response resp = Attempt(&x, auth_headers);
      Verdict verdict = resp.answered() && !resp.overflow
                            ? ClassifyAnswer(x, &resp, accept, body_error)
                            : ClassifyTransportFailure(&x, resp);
      switch (verdict.kind) {
        case Verdict::kSucceed:
          return resp;
        case Verdict::kFail:
          return verdict.status;
        case Verdict::kRefresh:
          // No backoff: the cause was the credentials, not the load.
          LANCE_RETURN_NOT_OK(Refresh(&x, verdict));
          break;
        case Verdict::kRetry:
          LANCE_RETURN_NOT_OK(BackOff(&x, verdict.status, resp.answered()));
          break;
      }
    }
  }

  Exchange BeginExchange(const Request& req, AttemptTrace* trace) const {
    Exchange x(req);
    x.trace = trace;
    x.uri = req.uri_for_messages.empty() ? ObjectUri(req.key) : req.uri_for_messages;
    x.target = internal::BuildRequestTarget(endpoint, options.virtual_hosted_style,
                                            bucket, req.key, req.bucket_level, req.query);
    if (req.method != "PUT" && req.method != "POST") {
      x.payload_hash = std::string(kEmptyPayloadSha256);
    } else if (options.unsigned_payload) {
      x.payload_hash = std::string(kUnsignedPayload);
    } else {
      x.payload_hash = Sha256Hex(req.body);
    }
    return x;
  }

  // The credentials of the next attempt: those a refresh just gave, else the source's
  // current ones (never cached here).
  Status TakeCredentials(Exchange* x) const {
    if (x->fresh != nullptr) {
      x->creds = std::move(x->fresh);
      x->fresh = nullptr;
      return Status::OK();
    }
    auto current = credentials->Current();
    if (!current.ok()) {
      LANCE_LOG(Warn, "s3") << "S3 " << x->req.op << " of " << x->uri
                            << ": no credentials from " << credentials->ToString() << ": "
                            << current.status().ToString();
      return current.status().WithContext("S3 " + std::string(x->req.op) + " of " +
                                          x->uri + ": getting credentials");
    }
    x->creds = *current;
    return Status::OK();
  }

  // The SigV4 headers of this attempt (none for anonymous access).
  Result<http::Headers> Sign(const Exchange& x) const {
    if (options.skip_signature || !x.Signed()) return http::Headers{};
    SigV4Request sreq;
    sreq.method = x.req.method;
    sreq.host = x.target.host_header;
    sreq.path = x.target.raw_path;
    sreq.query = x.req.query;
    sreq.headers = x.req.headers;
    sreq.payload_sha256_hex = x.payload_hash;
    const std::string region = options.region.empty() ? "us-east-1" : options.region;
    auto signed_headers =
        SignRequest(sreq, x.creds->aws, region, "s3", std::chrono::system_clock::now());
    if (!signed_headers.ok()) {
      return signed_headers.status().WithContext("S3 " + std::string(x.req.op) + " of " +
                                                 x.uri + ": signing");
    }
    return std::move(*signed_headers);
  }

  Response Attempt(Exchange* x, const http::Headers& auth_headers) {
    const Request& req = x->req;
    ++x->attempts;
    if (x->trace != nullptr) x->trace->attempts = x->attempts;
    stats.requests.fetch_add(1, std::memory_order_relaxed);
    Response resp = transport->Perform(req, x->target, auth_headers);
    // One line per attempt; the credentials only in their redacted form.
    LANCE_LOG(Debug, "s3") << req.method << " " << x->uri << ": "
                           << (resp.answered()
                                   ? "HTTP " + std::to_string(resp.status)
                                   : "curl error " + std::to_string(resp.transport_code))
                           << (req.ranged ? StrCat(" [", req.range_offset, "+",
                                                   req.range_length, "]")
                                          : std::string())
                           << " (" << req.op << ", attempt " << x->attempts << ", "
                           << x->CredentialsLabel() << ")";
    return resp;
  }

  // An attempt without a usable answer: no connection, a broken exchange, or more bytes
  // than asked.
  Verdict ClassifyTransportFailure(Exchange* x, const Response& resp) const {
    const Request& req = x->req;
    if (resp.overflow) {
      return Verdict::Fail(
          Status::IOError("S3 " + std::string(req.op) + " of " + x->uri +
                          ": the server sent more bytes than requested"));
    }
    const bool resolve = resp.transport_error == http::TransportError::kResolve;
    // Only a failure to resolve or connect proves the request never left.
    if (x->trace != nullptr && !resolve &&
        resp.transport_error != http::TransportError::kConnect) {
      x->trace->unanswered = true;
    }
    if (resolve) ++x->resolve_failures;
    const bool retry = internal::IsRetryableTransportError(resp.transport_error) ||
                       (resolve && x->resolve_failures <= 1);
    std::string msg = StrCat("S3 ", req.op, " of ", x->uri, ": ", resp.transport_message,
                             " (curl error ", resp.transport_code, ")");
    if (retry) return Verdict::Retry(Status::Unavailable(std::move(msg)));
    msg += x->AfterAttempts();
    LANCE_LOG(Warn, "s3") << msg;
    return Verdict::Fail(resolve ? Status::Unavailable(std::move(msg),
                                                       /*retryable=*/false)
                                 : Status::IOError(std::move(msg)));
  }

  // An HTTP answer: success, an accepted status, or an S3 error to classify.
  Verdict ClassifyAnswer(const Exchange& x, Response* resp, const AcceptFn& accept,
                         const BodyErrorFn& body_error) {
    std::optional<S3Error> err;
    if (resp->status >= 200 && resp->status < 300) {
      if (body_error) err = body_error(*resp);
      if (!err) {
        stats.bytes_received.fetch_add(resp->written, std::memory_order_relaxed);
        stats.bytes_sent.fetch_add(static_cast<int64_t>(x.req.body.size()),
                                   std::memory_order_relaxed);
        return Verdict::Succeed();
      }
    } else {
      err = internal::ParseErrorBody(resp->body, resp->status);
      if (!err) {
        err = S3Error{};
        err->http_status = resp->status;
        err->code = resp->error_code_header;
      }
    }
    if (err->request_id.empty()) err->request_id = resp->request_id;
    if (accept && accept(err->http_status, *err)) {
      resp->status = err->http_status;
      return Verdict::Succeed();
    }
    const RetryClass cls = internal::ClassifyHttpError(err->http_status, err->code);
    if ((cls == RetryClass::kRefreshCredentials ||
         cls == RetryClass::kMaybeRefreshCredentials) &&
        !x.refreshed && x.Signed()) {
      return Verdict::Refresh(std::move(*err), cls);
    }
    Status error = MakeHttpError(x, *err);
    if (cls == RetryClass::kRetry) return Verdict::Retry(std::move(error));
    // Absent objects and lost create races are answers, not failures: debug only.
    if (error.IsNotFound() || error.IsAlreadyExists()) {
      LANCE_LOG(Debug, "s3") << error.message();
    } else {
      LANCE_LOG(Warn, "s3") << error.message() << " (" << x.CredentialsLabel() << ")";
    }
    return Verdict::Fail(std::move(error));
  }

  // The credentials were rejected: asks the source once for fresh ones. \return OK to
  // retry with them, else the error to return.
  Status Refresh(Exchange* x, const Verdict& rejected) {
    const S3Error& err = rejected.error;
    x->refreshed = true;
    stats.credential_refreshes.fetch_add(1, std::memory_order_relaxed);
    LANCE_LOG(Info, "s3") << x->req.op << " of " << x->uri << ": HTTP " << err.http_status
                          << (err.code.empty() ? "" : " ") << err.code << " with "
                          << x->creds->aws.ToString() << "; asking "
                          << credentials->ToString() << " for fresh credentials";
    auto fresh = credentials->OnRejected(*x->creds);
    if (!fresh.ok()) {
      Status original = MakeHttpError(*x, err);
      LANCE_LOG(Warn, "s3") << original.message() << " with " << x->creds->aws.ToString()
                            << "; no fresh credentials: " << fresh.status().message();
      // A plain AccessDenied is most often a real permission problem: a source that
      // cannot refresh must not turn it into a credentials story.
      if (rejected.cls == RetryClass::kMaybeRefreshCredentials) return original;
      return Status(original.code(),
                    StrCat(original.message(),
                           "; refreshing credentials failed: ", fresh.status().message()),
                    original.retryable(), original.detail());
    }
    x->fresh = *fresh;
    LANCE_LOG(Info, "s3") << x->req.op << " of " << x->uri << ": retrying with "
                          << x->fresh->ToString();
    ++x->retries;
    stats.retries.fetch_add(1, std::memory_order_relaxed);
    return Status::OK();
  }

  // A transient failure (`failure`): waits before the next attempt. \return OK to
  // retry, or Unavailable (retryable) when the retry budget is spent.
  Status BackOff(Exchange* x, const Status& failure, bool answered) {
    const auto elapsed = std::chrono::steady_clock::now() - x->start;
    if (x->retries >= options.max_retries || elapsed >= options.retry_timeout) {
      // An HTTP answer's message already counts the attempts.
      std::string msg = failure.message() + (answered ? "" : x->AfterAttempts());
      LANCE_LOG(Warn, "s3") << msg << " (retries exhausted)";
      // The last HTTP answer's detail (none after a transport failure) stays on.
      return Status::Unavailable(std::move(msg), /*retryable=*/true)
          .WithDetail(failure.detail());
    }
    auto delay = internal::BackoffDelay(x->retries, options.initial_backoff,
                                        options.max_backoff, RandomUnit());
    // Rounded up: truncated, the last fraction of a millisecond before the timeout read
    // as 0 and the loop retried without pausing until the clock passed it.
    const auto remaining =
        std::chrono::ceil<std::chrono::milliseconds>(options.retry_timeout - elapsed);
    delay = std::min(delay, remaining);
    LANCE_LOG(Info, "s3") << failure.message() << "; retry " << (x->retries + 1) << " of "
                          << options.max_retries << " in " << delay.count() << " ms";
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
    ++x->retries;
    stats.retries.fetch_add(1, std::memory_order_relaxed);
    return Status::OK();
  }

  Status MakeHttpError(const Exchange& x, const S3Error& err) const {
    return internal::MakeS3HttpError(x.req.op, x.uri, x.req.context, err, x.attempts,
                                     SecondsSince(x.start));
  }
};

S3Client::S3Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
S3Client::~S3Client() = default;

Result<std::shared_ptr<S3Client>> S3Client::Make(
    std::string bucket, S3Options options,
    std::shared_ptr<CredentialsSource> credentials) {
  if (bucket.empty()) return Status::Invalid("S3 client: empty bucket name");
  if (bucket.find('/') != std::string::npos) {
    return Status::Invalid("S3 client: bucket name '" + bucket + "' contains '/'");
  }
  if (credentials == nullptr)
    return Status::Invalid("S3 client for " + bucket + ": null credentials source");
  auto impl = std::make_unique<Impl>();
  auto endpoint = internal::ResolveEndpoint(options, bucket);
  if (!endpoint.ok())
    return endpoint.status().WithContext("S3 client for bucket " + bucket);
  impl->endpoint = std::move(*endpoint);
  impl->bucket = std::move(bucket);
  impl->options = std::move(options);
  impl->credentials = std::move(credentials);
  LANCE_ASSIGN_OR_RAISE(impl->transport, internal::S3Transport::Make(impl->options));
  return std::shared_ptr<S3Client>(new S3Client(std::move(impl)));
}

namespace {
Status CheckKey(const S3Client& client, const std::string& key, const char* op) {
  if (key.empty()) {
    return Status::Invalid("S3 " + std::string(op) + " of " + client.ObjectUri(key) +
                           ": empty object key");
  }
  return Status::OK();
}

// A GetObject of [offset, offset + length) (length -1: to the end), pinned to the
// version `if_match` names when it is set.
Request GetObjectRequest(const std::string& key, int64_t offset, int64_t length,
                         const std::string& if_match) {
  Request req;
  req.op = "GetObject";
  req.method = "GET";
  req.key = key;
  const std::string range = internal::RangeHeader(offset, length);
  if (!range.empty()) {
    req.ranged = true;
    req.range_offset = offset;
    req.range_length = length;
    req.headers.emplace_back("range", range);
  }
  if (!if_match.empty()) {
    req.headers.emplace_back("if-match", if_match);
    req.context = ErrorContext::kPinnedRead;
  }
  return req;
}

// A request on the bucket itself (create, delete), named by its s3:// URI in messages.
Request BucketRequest(const char* op, const char* method, const std::string& bucket) {
  Request req;
  req.op = op;
  req.method = method;
  req.bucket_level = true;
  req.uri_for_messages = "s3://" + bucket;
  req.context = ErrorContext::kBucket;
  return req;
}

// A range starting at or past the end is 416: that read returns no bytes.
bool AcceptRangeNotSatisfiable(int status, const S3Error&) { return status == 416; }
}  // namespace

Result<S3ObjectInfo> S3Client::HeadObject(const std::string& key) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, key, "HeadObject"));
  Request req;
  req.op = "HeadObject";
  req.method = "HEAD";
  req.key = key;
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req));
  S3ObjectInfo info;
  if (!internal::ParseInt64(resp.content_length, &info.size)) {
    return Status::IOError("S3 HeadObject of " + ObjectUri(key) +
                           ": answer without a valid Content-Length");
  }
  info.etag = resp.etag;
  info.last_modified_ms = internal::ParseHttpDateMs(resp.last_modified).value_or(0);
  return info;
}

Result<int64_t> S3Client::GetObjectInto(const std::string& key, int64_t offset,
                                        int64_t length, uint8_t* out,
                                        const std::string& if_match) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, key, "GetObject"));
  if (offset < 0 || length < -1) {
    return Status::Invalid("S3 GetObject of " + ObjectUri(key) +
                           ": negative offset or length");
  }
  if (length == 0) return 0;
  if (out == nullptr) {
    return Status::Invalid("S3 GetObject of " + ObjectUri(key) + ": null output buffer");
  }
  Request req = GetObjectRequest(key, offset, length, if_match);
  req.out = out;
  // length -1: the caller promised room for the rest; we cannot check that bound,
  // so GetObject (which sizes its buffer) is the safe form.
  req.out_capacity = length < 0 ? std::numeric_limits<int64_t>::max() : length;
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req, AcceptRangeNotSatisfiable));
  if (resp.status == 416) return 0;
  if (resp.status == 206 && req.ranged) {
    auto cr = internal::ParseContentRange(resp.content_range);
    if (!cr || cr->first != offset) {
      return Status::IOError("S3 GetObject of " + ObjectUri(key) +
                             ": the answer's Content-Range does not match the request");
    }
    if (resp.written != cr->last - cr->first + 1) {
      return Status::IOError("S3 GetObject of " + ObjectUri(key) + ": short body");
    }
  }
  return resp.written;
}

Result<BufferPtr> S3Client::GetObject(const std::string& key, int64_t offset,
                                      int64_t length, const std::string& if_match) {
  if (length >= 0) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr buf, Buffer::AllocateForOverwrite(length));
    LANCE_ASSIGN_OR_RAISE(
        int64_t n, GetObjectInto(key, offset, length, buf->mutable_data(), if_match));
    buf->Resize(n);
    return buf;
  }
  LANCE_RETURN_NOT_OK(CheckKey(*this, key, "GetObject"));
  if (offset < 0) {
    return Status::Invalid("S3 GetObject of " + ObjectUri(key) + ": negative offset");
  }
  const Request req = GetObjectRequest(key, offset, -1, if_match);
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req, AcceptRangeNotSatisfiable));
  if (resp.status == 416) return Buffer::FromString(std::string());
  if (resp.status == 206) {
    auto cr = internal::ParseContentRange(resp.content_range);
    if (!cr || cr->first != offset || resp.written != cr->last - cr->first + 1) {
      return Status::IOError("S3 GetObject of " + ObjectUri(key) +
                             ": the answer's Content-Range does not match the body");
    }
  } else if (!resp.content_length.empty()) {
    int64_t expected = 0;
    if (internal::ParseInt64(resp.content_length, &expected) &&
        resp.written != std::max<int64_t>(0, expected - offset)) {
      return Status::IOError("S3 GetObject of " + ObjectUri(key) + ": short body");
    }
  }
  return Buffer::FromString(std::move(resp.body));
}

Result<std::string> S3Client::PutObject(const std::string& key, std::string_view body,
                                        bool if_none_match) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, key, "PutObject"));
  Request req;
  req.op = "PutObject";
  req.method = "PUT";
  req.key = key;
  req.body = body;
  if (if_none_match) {
    req.headers.emplace_back("if-none-match", "*");
    req.context = ErrorContext::kConditionalCreate;
  }
  AttemptTrace trace;
  auto resp = impl_->Execute(req, {}, {}, &trace);
  if (resp.ok()) return resp->etag;
  if (if_none_match && trace.MayHaveTakenEffect()) {
    // An attempt may have created the object and lost only its answer: then a retry's
    // 412 is about our own write, and without a retry (or with every retry failing)
    // the error hides a create that happened. A single-part PUT's ETag is the body's
    // MD5, so a matching ETag means the object holds exactly our bytes. When the HEAD
    // cannot tell (it fails, or the server's ETags are not MD5s) the error stands; the
    // commit protocol reads the manifest back and decides (docs/commit-protocol.md).
    auto info = HeadObject(key);
    if (info.ok() && info->etag == "\"" + internal::Md5Hex(body) + "\"") {
      LANCE_LOG(Info, "s3") << "S3 PutObject of " << ObjectUri(key)
                            << ": the answer was lost, the object holds our bytes ("
                            << resp.status().ToString() << ")";
      return info->etag;
    }
  }
  return resp.status();
}

Result<std::string> S3Client::CreateMultipartUpload(const std::string& key) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, key, "CreateMultipartUpload"));
  Request req;
  req.op = "CreateMultipartUpload";
  req.method = "POST";
  req.key = key;
  req.query = {{"uploads", ""}};
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req));
  auto doc = ParseXml(resp.body);
  if (!doc.ok() || doc->name != "InitiateMultipartUploadResult" ||
      doc->ChildText("UploadId").empty()) {
    return Status::IOError("S3 CreateMultipartUpload of " + ObjectUri(key) +
                           ": malformed answer (no UploadId)");
  }
  return doc->ChildText("UploadId");
}

Result<std::string> S3Client::UploadPart(const std::string& key,
                                         const std::string& upload_id, int part_number,
                                         std::string_view body) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, key, "UploadPart"));
  if (part_number < 1 || part_number > 10000) {
    return Status::Invalid("S3 UploadPart of " + ObjectUri(key) + ": part number " +
                           std::to_string(part_number) + " outside 1..10000");
  }
  Request req;
  req.op = "UploadPart";
  req.method = "PUT";
  req.key = key;
  req.body = body;
  req.query = {{"partNumber", std::to_string(part_number)}, {"uploadId", upload_id}};
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req));
  if (resp.etag.empty()) {
    return Status::IOError("S3 UploadPart of " + ObjectUri(key) +
                           ": answer without an ETag");
  }
  return resp.etag;
}

namespace {
// CompleteMultipartUpload and CopyObject may answer 200 with an <Error> document (the
// failure happened after the status line was sent).
std::optional<S3Error> ErrorIn200(const Response& resp) {
  std::string_view body = resp.body;
  if (body.find("<Error>") == std::string_view::npos) return std::nullopt;
  auto err = internal::ParseErrorBody(body, resp.status);
  if (err && err->code.empty()) err->code = "InternalError";
  return err;
}
}  // namespace

Status S3Client::CompleteMultipartUpload(const std::string& key,
                                         const std::string& upload_id,
                                         const std::vector<std::string>& part_etags) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, key, "CompleteMultipartUpload"));
  if (part_etags.empty()) {
    return Status::Invalid("S3 CompleteMultipartUpload of " + ObjectUri(key) +
                           ": no parts");
  }
  Request req;
  req.op = "CompleteMultipartUpload";
  req.method = "POST";
  req.key = key;
  req.query = {{"uploadId", upload_id}};
  const std::string body = internal::BuildCompleteBody(part_etags);
  req.body = body;
  AttemptTrace trace;
  Result<Response> answer = impl_->Execute(req, {}, ErrorIn200, &trace);
  if (!answer.ok()) {
    if (!trace.MayHaveTakenEffect()) return answer.status();
    return CheckCompleted(key, part_etags, answer.status());
  }
  const Response& resp = *answer;
  auto doc = ParseXml(resp.body);
  if (!doc.ok() || doc->name != "CompleteMultipartUploadResult") {
    return Status::IOError("S3 CompleteMultipartUpload of " + ObjectUri(key) +
                           ": malformed answer");
  }
  return Status::OK();
}

Status S3Client::CheckCompleted(const std::string& key,
                                const std::vector<std::string>& part_etags,
                                const Status& failed) {
  // An attempt may have completed the upload and lost its answer; a retry then finds
  // the upload gone (NoSuchUpload) or succeeds (RGW, like S3, answers a repeated
  // Complete of a finished upload), and without a retry there is only the lost
  // answer. The object tells: completed from exactly our parts, its ETag is
  // MultipartEtag's.
  const std::string expected = MultipartEtag(part_etags);
  auto info = HeadObject(key);
  if (info.ok() && !expected.empty() && info->etag == expected) {
    LANCE_LOG(Info, "s3") << "S3 CompleteMultipartUpload of " << ObjectUri(key)
                          << ": the answer was lost, the object is the completed upload ("
                          << failed.ToString() << ")";
    return Status::OK();
  }
  if (info.ok() && !expected.empty()) return failed;  // another object: not ours
  if (!info.ok() && info.status().IsNotFound()) return failed;  // not completed
  // The outcome is unknown: say so, keeping the code (and HTTP detail) of the failure.
  const std::string why = info.ok()
                              ? "the server's ETags are not MD5s, so the object " +
                                    info->etag + " cannot be matched to the parts"
                              : "checking the object failed: " + info.status().message();
  return Status(
      failed.code(),
      failed.message() +
          "; the upload may have completed (an attempt's answer was lost) and " + why,
      failed.retryable(), failed.detail());
}

Status S3Client::AbortMultipartUpload(const std::string& key,
                                      const std::string& upload_id) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, key, "AbortMultipartUpload"));
  Request req;
  req.op = "AbortMultipartUpload";
  req.method = "DELETE";
  req.key = key;
  req.query = {{"uploadId", upload_id}};
  auto accept = [](int status, const S3Error& e) {
    return status == 404 && (e.code == "NoSuchUpload" || e.code.empty());
  };
  return impl_->Execute(req, accept).status();
}

Result<ListObjectsV2Response> S3Client::ListObjectsV2(
    const ListObjectsV2Request& request) {
  if (request.max_keys < 1 || request.max_keys > 1000) {
    return Status::Invalid("S3 ListObjectsV2 of " + ObjectUri(request.prefix) +
                           ": max_keys must be in 1..1000");
  }
  Request req;
  req.op = "ListObjectsV2";
  req.method = "GET";
  req.bucket_level = true;
  req.uri_for_messages = ObjectUri(request.prefix);
  req.context = ErrorContext::kBucket;
  req.query = {{"list-type", "2"},
               {"encoding-type", "url"},
               {"max-keys", std::to_string(request.max_keys)}};
  if (!request.prefix.empty()) req.query.emplace_back("prefix", request.prefix);
  if (!request.delimiter.empty()) req.query.emplace_back("delimiter", request.delimiter);
  if (!request.start_after.empty())
    req.query.emplace_back("start-after", request.start_after);
  if (!request.continuation_token.empty()) {
    req.query.emplace_back("continuation-token", request.continuation_token);
  }
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req));
  auto parsed = internal::ParseListObjectsV2(resp.body);
  if (!parsed.ok()) {
    return Status::IOError("S3 ListObjectsV2 of " + req.uri_for_messages +
                           ": malformed answer: " + parsed.status().message());
  }
  return parsed;
}

Status S3Client::DeleteObject(const std::string& key) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, key, "DeleteObject"));
  Request req;
  req.op = "DeleteObject";
  req.method = "DELETE";
  req.key = key;
  // S3 answers 204 for a missing key; some servers say 404 NoSuchKey. Both are OK.
  auto accept = [](int status, const S3Error& e) {
    return status == 404 && e.code != "NoSuchBucket";
  };
  return impl_->Execute(req, accept).status();
}

Status S3Client::DeleteObjects(const std::vector<std::string>& keys) {
  constexpr size_t kBatch = 1000;
  size_t failed = 0;
  Status first_error;
  for (size_t begin = 0; begin < keys.size(); begin += kBatch) {
    const size_t end = std::min(keys.size(), begin + kBatch);
    for (size_t i = begin; i < end; ++i)
      LANCE_RETURN_NOT_OK(CheckKey(*this, keys[i], "DeleteObjects"));
    const std::string body = internal::BuildDeleteBody(keys, begin, end);
    Request req;
    req.op = "DeleteObjects";
    req.method = "POST";
    req.bucket_level = true;
    req.uri_for_messages = ObjectUri(keys[begin]);
    req.query = {{"delete", ""}};
    req.body = body;
    req.headers.emplace_back("content-md5", internal::ContentMd5(body));
    LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req));
    auto failures = internal::ParseDeleteResult(resp.body);
    if (!failures.ok()) {
      return Status::IOError("S3 DeleteObjects of " + req.uri_for_messages +
                             ": malformed answer: " + failures.status().message());
    }
    failed += failures->size();
    if (!failures->empty() && first_error.ok()) {
      const auto& f = failures->front();
      const StatusCode code =
          f.code == "AccessDenied" ? StatusCode::kForbidden : StatusCode::kIOError;
      std::string msg = StrCat("S3 DeleteObjects of ", ObjectUri(f.key), ": ", f.code);
      if (!f.message.empty()) msg += StrCat(": ", f.message);
      // The per-key code comes in a 200 answer: the detail carries that status.
      first_error =
          Status(code, std::move(msg), /*retryable=*/false,
                 std::make_shared<HttpErrorDetail>(resp.status, f.code, resp.request_id));
    }
  }
  if (failed > 0) {
    return Status(
        first_error.code(),
        StrCat(first_error.message(), " (", failed, " of ", keys.size(), " keys failed)"),
        /*retryable=*/false, first_error.detail());
  }
  return Status::OK();
}

Status S3Client::CopyObject(const std::string& src_key, const std::string& dst_key) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, src_key, "CopyObject"));
  LANCE_RETURN_NOT_OK(CheckKey(*this, dst_key, "CopyObject"));
  Request req;
  req.op = "CopyObject";
  req.method = "PUT";
  req.key = dst_key;
  req.uri_for_messages = ObjectUri(src_key) + " to " + ObjectUri(dst_key);
  req.headers.emplace_back("x-amz-copy-source",
                           UriEncode("/" + impl_->bucket + "/" + src_key, false));
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req, {}, ErrorIn200));
  auto doc = ParseXml(resp.body);
  if (!doc.ok() || doc->name != "CopyObjectResult") {
    return Status::IOError("S3 CopyObject of " + req.uri_for_messages +
                           ": malformed answer");
  }
  return Status::OK();
}

Status S3Client::CreateBucket() {
  // S3 in us-east-1 and RGW answer 200 to a re-create by the owner, so "already exists"
  // is detected with a HEAD first (racy, but this is for tests and benchmarks).
  {
    const Request head = BucketRequest("CreateBucket", "HEAD", impl_->bucket);
    auto accept = [](int status, const S3Error&) {
      return status == 404 || status == 403;
    };
    LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(head, accept));
    if (resp.status >= 200 && resp.status < 300) {
      return Status::AlreadyExists(
          "S3 CreateBucket of s3://" + impl_->bucket +
          ": the bucket already exists (BucketAlreadyOwnedByYou)");
    }
  }
  Request req = BucketRequest("CreateBucket", "PUT", impl_->bucket);
  std::string body;
  const std::string& region = impl_->options.region;
  if (!region.empty() && region != "us-east-1") {
    body = "<CreateBucketConfiguration><LocationConstraint>" + XmlEscape(region) +
           "</LocationConstraint></CreateBucketConfiguration>";
  }
  req.body = body;
  return impl_->Execute(req).status();
}

Status S3Client::DeleteBucket() {
  const Request req = BucketRequest("DeleteBucket", "DELETE", impl_->bucket);
  Status st = impl_->Execute(req).status();
  return st;
}

const std::string& S3Client::bucket() const { return impl_->bucket; }
const S3Options& S3Client::options() const { return impl_->options; }
const std::shared_ptr<CredentialsSource>& S3Client::credentials() const {
  return impl_->credentials;
}
S3ClientStats& S3Client::stats() { return impl_->stats; }
std::string S3Client::ObjectUri(std::string_view key) const {
  return impl_->ObjectUri(key);
}

}  // namespace lance::io::s3
