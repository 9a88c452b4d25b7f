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

#include "io/http/retry_loop.h"
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
using internal::S3Error;

namespace {

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

using http::AttemptTrace;

// What an S3 request's attempts share beyond the loop's own state.
struct Exchange {
  const Request& req;
  internal::RequestTarget target;
  std::string payload_hash;
};

using AcceptFn = std::function<bool(int status, const S3Error&)>;
using BodyErrorFn = std::function<std::optional<S3Error>(const Response&)>;

// The credentials of the attempt sign it (none: anonymous access).
bool Signed(const http::RetryLoop& loop) {
  return loop.creds() != nullptr && !loop.creds()->aws.empty();
}

}  // namespace

struct S3Client::Impl {
  std::string bucket;
  S3Options options;
  std::shared_ptr<CredentialsSource> credentials;
  internal::ParsedEndpoint endpoint;
  S3ClientStats stats;
  http::RetryConfig retry{.component = "s3", .service = "S3"};

  std::unique_ptr<internal::S3Transport> transport;

  std::string ObjectUri(std::string_view key) const {
    std::string uri = "s3://" + bucket + "/";
    uri += key;
    return uri;
  }

  // Runs `req` with retries, signing each attempt. On success returns the response
  // (2xx, or a status the caller declared acceptable through `accept`). Each round is
  // credentials -> sign -> attempt -> classify, then refresh or back off (RetryLoop).
  Result<Response> Execute(const Request& req, const AcceptFn& accept = {},
                           const BodyErrorFn& body_error = {},
                           AttemptTrace* trace = nullptr) {
    const Exchange x = BeginExchange(req);
    http::RetryLoop loop(
        retry, req.op,
        req.uri_for_messages.empty() ? ObjectUri(req.key) : req.uri_for_messages, trace);
    Response resp;
    LANCE_RETURN_NOT_OK(loop.Run([&]() -> Result<http::Verdict> {
      LANCE_ASSIGN_OR_RAISE(auto auth_headers, Sign(x, loop));
      resp = Attempt(x, &loop, auth_headers);
      if (resp.overflow) {
        return http::Verdict::Fail(Status::IOError(
            loop.Subject() + ": the server sent more bytes than requested"));
      }
      if (!resp.answered()) {
        return loop.OnTransportFailure(resp.transport_error, resp.transport_code,
                                       resp.transport_message);
      }
      return ClassifyAnswer(x, loop, &resp, accept, body_error);
    }));
    return resp;
  }

  Exchange BeginExchange(const Request& req) const {
    Exchange x{req,
               internal::BuildRequestTarget(endpoint, options.virtual_hosted_style,
                                            bucket, req.key, req.bucket_level, req.query),
               {}};
    if (req.method != "PUT" && req.method != "POST") {
      x.payload_hash = std::string(kEmptyPayloadSha256);
    } else if (options.unsigned_payload) {
      x.payload_hash = std::string(kUnsignedPayload);
    } else {
      x.payload_hash = Sha256Hex(req.body);
    }
    return x;
  }

  // The SigV4 headers of this attempt (none for anonymous access).
  Result<http::Headers> Sign(const Exchange& x, const http::RetryLoop& loop) const {
    if (options.skip_signature || !Signed(loop)) return http::Headers{};
    SigV4Request sreq;
    sreq.method = x.req.method;
    sreq.host = x.target.host_header;
    sreq.path = x.target.raw_path;
    sreq.query = x.req.query;
    sreq.headers = x.req.headers;
    sreq.payload_sha256_hex = x.payload_hash;
    const std::string region = options.region.empty() ? "us-east-1" : options.region;
    auto signed_headers = SignRequest(sreq, loop.creds()->aws, region, "s3",
                                      std::chrono::system_clock::now());
    if (!signed_headers.ok()) {
      return signed_headers.status().WithContext(loop.Subject() + ": signing");
    }
    return std::move(*signed_headers);
  }

  Response Attempt(const Exchange& x, http::RetryLoop* loop,
                   const http::Headers& auth_headers) {
    const Request& req = x.req;
    loop->CountAttempt();
    Response resp = transport->Perform(req, x.target, auth_headers);
    // One line per attempt; the credentials only in their redacted form.
    LANCE_LOG(Debug, "s3")
        << req.method << " " << loop->uri() << ": "
        << (resp.answered() ? "HTTP " + std::to_string(resp.status)
                            : "curl error " + std::to_string(resp.transport_code))
        << (req.ranged ? StrCat(" [", req.range_offset, "+", req.range_length, "]")
                       : std::string())
        << " (" << req.op << ", attempt " << loop->attempts() << ", "
        << (Signed(*loop) ? loop->creds()->aws.ToString() : std::string("unsigned"))
        << ")";
    return resp;
  }

  // An HTTP answer: success, an accepted status, or an S3 error to classify.
  http::Verdict ClassifyAnswer(const Exchange& x, http::RetryLoop& loop, Response* resp,
                               const AcceptFn& accept, const BodyErrorFn& body_error) {
    std::optional<S3Error> err;
    if (resp->status >= 200 && resp->status < 300) {
      if (body_error) err = body_error(*resp);
      if (!err) {
        stats.bytes_received.fetch_add(resp->written, std::memory_order_relaxed);
        stats.bytes_sent.fetch_add(static_cast<int64_t>(x.req.body.size()),
                                   std::memory_order_relaxed);
        return http::Verdict::Succeed();
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
      return http::Verdict::Succeed();
    }
    Status error = internal::MakeS3HttpError(x.req.op, loop.uri(), x.req.context, *err,
                                             loop.attempts(), loop.ElapsedSeconds());
    return loop.OnErrorAnswer(
        std::move(error), internal::ClassifyHttpError(err->http_status, err->code),
        Signed(loop),
        StrCat("HTTP ", err->http_status, err->code.empty() ? "" : " ", err->code));
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
  impl->retry.tuning = &impl->options;
  impl->retry.credentials = impl->credentials.get();
  impl->retry.stats = &impl->stats;
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
