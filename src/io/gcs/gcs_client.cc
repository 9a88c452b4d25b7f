// SPDX-License-Identifier: Apache-2.0
// The JSON API operations over the HTTP layer (see gcs_client.h for the contract): each
// builds a Request, Execute() authorizes, sends, retries and maps errors, and the
// operation reads its answer.

#include "io/gcs/gcs_client.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "io/http/slice_sink.h"
#include "io/s3/responses.h"
#include "lance/core/logging.h"
#include "lance/io/http/http_client.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::gcs {

using internal::ErrorContext;
using internal::GcsError;
using internal::PercentEncode;

namespace {

// One HTTP request as the operations describe it.
struct Request : http::BodyTarget {
  const char* op = "";
  std::string method = "GET";
  std::string url;
  http::Headers headers;
  std::string_view body;
  ErrorContext context = ErrorContext::kDefault;
  std::string uri;  // for messages
  // Statuses other than 2xx that are answers, not errors (308, 404 of a delete, ...).
  std::vector<int> accept;
  // A media read: the successful body goes where BodyTarget says.
};

using Response = http::SliceAnswer;
using http::AttemptTrace;

}  // namespace

struct GcsClient::Impl {
  std::string bucket;
  GcsOptions options;
  std::shared_ptr<CredentialsSource> credentials;
  std::unique_ptr<http::HttpClient> http;
  GcsClientStats stats;
  http::RetryConfig retry{.component = "gcs",
                          .service = "GCS",
                          .fresh_what = "a fresh token",
                          .refresh_failed = "refreshing the token failed"};

  std::string ObjectUri(std::string_view key) const {
    return StrCat("gs://", bucket, "/", key);
  }
  std::string ObjectUrl(std::string_view key) const {
    return StrCat(options.base_url, "/storage/v1/b/", PercentEncode(bucket), "/o/",
                  PercentEncode(key));
  }
  // A POST to the upload endpoint (uploadType `type`) creating `key`, only if it does not
  // exist yet when `if_not_exists` (412 -> AlreadyExists).
  Request UploadRequest(const char* op, std::string_view type, const std::string& key,
                        bool if_not_exists) const {
    Request req;
    req.op = op;
    req.method = "POST";
    req.url = StrCat(options.base_url, "/upload/storage/v1/b/", PercentEncode(bucket),
                     "/o?uploadType=", type, "&name=", PercentEncode(key));
    if (if_not_exists) {
      req.url += "&ifGenerationMatch=0";
      req.context = ErrorContext::kConditionalCreate;
    }
    req.uri = ObjectUri(key);
    return req;
  }

  Result<Response> Execute(const Request& req, AttemptTrace* trace = nullptr);
  http::Verdict OnAnswer(const Request& req, http::RetryLoop& loop, const Response& resp);

  // One attempt with `token`.
  Response Send(const Request& req, const std::string& token) {
    http::HttpRequest h;
    h.method = req.method;
    h.url = req.url;
    h.body = req.body;
    h.headers = {{"Accept", ""}};
    if (req.method == "POST" || req.method == "PUT") {
      bool has_type = false;
      for (const auto& [k, v] : req.headers) has_type |= k == "Content-Type";
      if (!has_type) h.headers.emplace_back("Content-Type", "application/octet-stream");
    }
    h.headers.insert(h.headers.end(), req.headers.begin(), req.headers.end());
    if (!token.empty() && !options.skip_signature) {
      h.headers.emplace_back("Authorization", "Bearer " + token);
    }
    return http::SendForSlice(*http, std::move(h), req);
  }
};

http::Verdict GcsClient::Impl::OnAnswer(const Request& req, http::RetryLoop& loop,
                                        const Response& resp) {
  const int status = resp.status;
  if ((status >= 200 && status < 300) ||
      std::find(req.accept.begin(), req.accept.end(), status) != req.accept.end()) {
    return http::Verdict::Succeed();
  }
  GcsError err = internal::ParseErrorBody(resp.body, status);
  err.request_id = std::string(resp.Header("x-guploader-uploadid"));
  Status error = internal::MakeHttpError(req.op, req.uri, req.context, err,
                                         loop.attempts(), loop.ElapsedSeconds());
  const bool sent_token =
      !BearerTokenOf(*loop.creds()).empty() && !options.skip_signature;
  const http::RetryClass cls = status == 401 ? http::RetryClass::kRefreshCredentials
                               : internal::IsRetryableStatus(status)
                                   ? http::RetryClass::kRetry
                                   : http::RetryClass::kFinal;
  return loop.OnErrorAnswer(std::move(error), cls, sent_token, StrCat("HTTP ", status));
}

Result<Response> GcsClient::Impl::Execute(const Request& req, AttemptTrace* trace) {
  http::RetryLoop loop(retry, req.op, req.uri, trace);
  Response resp;
  LANCE_RETURN_NOT_OK(loop.Run([&]() -> Result<http::Verdict> {
    const std::string& token = BearerTokenOf(*loop.creds());
    loop.CountAttempt();
    resp = Send(req, token);
    // One line per attempt; whether a token went, never the token.
    LANCE_LOG(Debug, "gcs") << req.method << " " << req.uri << ": "
                            << (resp.answered()
                                    ? StrCat("HTTP ", resp.status)
                                    : StrCat("curl error ", resp.transport_code))
                            << " (" << req.op << ", attempt " << loop.attempts() << ", "
                            << (token.empty() ? "no token" : "bearer token") << ")";
    if (resp.overflow) {
      return http::Verdict::Fail(
          internal::IoError("GCS ", req.op, " of ", req.uri,
                            ": the server sent more bytes than requested"));
    }
    if (!resp.answered()) {
      return loop.OnTransportFailure(resp.transport_error, resp.transport_code,
                                     resp.transport_message);
    }
    return OnAnswer(req, loop, resp);
  }));
  return resp;
}

GcsClient::GcsClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GcsClient::~GcsClient() = default;

Result<std::shared_ptr<GcsClient>> GcsClient::Make(
    std::string bucket, GcsOptions options,
    std::shared_ptr<CredentialsSource> credentials) {
  if (bucket.empty()) return Status::Invalid("a gs:// location needs a bucket name");
  for (char c : bucket) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '-' && c != '.' && c != '_') {
      return Status::Invalid("the GCS bucket name '", bucket,
                             "' may only contain letters, digits, '-', '.' and '_'");
    }
  }
  if (credentials == nullptr) {
    return Status::Invalid("GCS client for ", bucket, ": null credentials source");
  }
  LANCE_RETURN_NOT_OK(internal::ValidateBaseUrl(options.base_url, options.allow_http));
  auto impl = std::make_unique<Impl>();
  LANCE_ASSIGN_OR_RAISE(impl->http,
                        http::HttpClient::Make(http::CloudClientOptions(
                            options, options.allow_invalid_certificates, "gcs")));
  impl->bucket = std::move(bucket);
  impl->options = std::move(options);
  impl->credentials = std::move(credentials);
  impl->retry.tuning = &impl->options;
  impl->retry.credentials = impl->credentials.get();
  impl->retry.stats = &impl->stats;
  return std::shared_ptr<GcsClient>(new GcsClient(std::move(impl)));
}

namespace {

Status CheckKey(const GcsClient& client, const std::string& key, const char* op) {
  if (key.empty()) {
    return Status::Invalid("GCS ", op, " of ", client.ObjectUri(key),
                           ": empty object key");
  }
  return Status::OK();
}

Result<ObjectResource> ParseResource(const GcsClient& client, const std::string& key,
                                     const char* op, const std::string& body) {
  auto parsed = internal::ParseObjectResource(body);
  if (!parsed.ok()) {
    return internal::IoError("GCS ", op, " of ", client.ObjectUri(key),
                             ": malformed answer: ", parsed.status().message());
  }
  return parsed;
}

}  // namespace

Result<ObjectResource> GcsClient::GetMetadata(const std::string& key) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, key, "GetObjectMetadata"));
  Request req;
  req.op = "GetObjectMetadata";
  req.url = impl_->ObjectUrl(key);
  req.uri = ObjectUri(key);
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req));
  return ParseResource(*this, key, req.op, resp.body);
}

Result<int64_t> GcsClient::ReadInto(const std::string& key, int64_t offset,
                                    int64_t length, uint8_t* out, int64_t generation) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, key, "GetObjectMedia"));
  if (offset < 0 || length < 0) {
    return Status::Invalid("GCS GetObjectMedia of ", ObjectUri(key), ": bad range ",
                           offset, "+", length);
  }
  if (length == 0) return 0;
  Request req;
  req.op = "GetObjectMedia";
  req.url = impl_->ObjectUrl(key) + "?alt=media";
  if (generation > 0) {
    // That generation only: once replaced or deleted it is gone (404), never mixed.
    StrAppend(&req.url, "&generation=", generation);
    req.context = ErrorContext::kPinnedRead;
  }
  req.uri = ObjectUri(key);
  req.headers.emplace_back("Range", StrCat("bytes=", offset, "-", offset + length - 1));
  req.ranged = true;
  req.range_offset = offset;
  req.out = out;
  req.out_capacity = length;
  // A range that starts at or past the end: no bytes.
  req.accept = {416};
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req));
  impl_->stats.media_reads.fetch_add(1, std::memory_order_relaxed);
  if (resp.status == 416) return 0;
  return resp.written;
}

Result<BufferPtr> GcsClient::ReadAll(const std::string& key) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, key, "GetObjectMedia"));
  Request req;
  req.op = "GetObjectMedia";
  req.url = impl_->ObjectUrl(key) + "?alt=media";
  req.uri = ObjectUri(key);
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req));
  impl_->stats.media_reads.fetch_add(1, std::memory_order_relaxed);
  return Buffer::FromString(std::move(resp.body));
}

Result<ObjectResource> GcsClient::Insert(const std::string& key, std::string_view body,
                                         bool if_not_exists) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, key, "InsertObject"));
  Request req = impl_->UploadRequest("InsertObject", "media", key, if_not_exists);
  req.body = body;
  AttemptTrace trace;
  Result<Response> resp = impl_->Execute(req, &trace);
  if (!resp.ok()) {
    // A create whose answer went missing and that a retry then found done: our own
    // object if it holds our bytes.
    if (resp.status().IsAlreadyExists() && trace.MayHaveTakenEffect()) {
      auto meta = GetMetadata(key);
      if (meta.ok() && !meta->md5_base64.empty() &&
          meta->md5_base64 == s3::internal::ContentMd5(body) &&
          meta->size == static_cast<int64_t>(body.size())) {
        LANCE_LOG(Info, "gcs") << "InsertObject of " << req.uri
                               << ": the create-only upload that met an existing object "
                                  "was our own earlier attempt";
        return *meta;
      }
    }
    return resp.status();
  }
  return ParseResource(*this, key, req.op, resp->body);
}

Result<std::string> GcsClient::StartResumable(const std::string& key,
                                              bool if_not_exists) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, key, "StartResumableUpload"));
  Request req =
      impl_->UploadRequest("StartResumableUpload", "resumable", key, if_not_exists);
  const std::string metadata = "{}";
  req.body = metadata;
  req.headers.emplace_back("Content-Type", "application/json; charset=UTF-8");
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req));
  std::string location(resp.Header("location"));
  if (location.empty()) {
    return internal::IoError("GCS StartResumableUpload of ", req.uri,
                             ": the answer has no Location (session URI)");
  }
  return location;
}

namespace {

// "bytes=0-<last>" of a 308 answer -> bytes held; no Range header: none.
int64_t PersistedBytes(std::string_view range) {
  const size_t dash = range.rfind('-');
  if (dash == std::string_view::npos) return 0;
  int64_t last = 0;
  if (!s3::internal::ParseInt64(range.substr(dash + 1), &last)) return 0;
  return last + 1;
}

// A request to the resumable upload session `session` of the object `uri`.
Request SessionRequest(const char* op, const char* method, const std::string& session,
                       std::string uri) {
  Request req;
  req.op = op;
  req.method = method;
  req.url = session;
  req.uri = std::move(uri);
  return req;
}

}  // namespace

Result<int64_t> GcsClient::UploadChunk(const std::string& key, const std::string& session,
                                       int64_t offset, std::string_view chunk,
                                       bool final) {
  const int64_t end = offset + static_cast<int64_t>(chunk.size());
  Request req = SessionRequest("UploadChunk", "PUT", session, ObjectUri(key));
  req.body = chunk;
  req.accept = {308};
  const std::string total = final ? std::to_string(end) : "*";
  req.headers.emplace_back("Content-Range", chunk.empty() ? StrCat("bytes */", total)
                                                          : StrCat("bytes ", offset, "-",
                                                                   end - 1, "/", total));
  impl_->stats.resumable_chunks.fetch_add(1, std::memory_order_relaxed);
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req));
  if (resp.status == 308) {
    const int64_t held = PersistedBytes(resp.Header("range"));
    if (final) {
      return internal::IoError("GCS UploadChunk of ", req.uri, ": the server holds ",
                               held, " of ", end, " bytes after the final chunk");
    }
    return held;
  }
  return end;
}

Status GcsClient::CancelResumable(const std::string& key, const std::string& session) {
  Request req =
      SessionRequest("CancelResumableUpload", "DELETE", session, ObjectUri(key));
  // GCS answers a cancelled session with 499; one already gone is 404 or 410.
  req.accept = {404, 410, 499};
  return impl_->Execute(req).status();
}

Result<ListPage> GcsClient::ListObjects(const ListRequest& request) {
  Request req;
  req.op = "ListObjects";
  req.url = StrCat(impl_->options.base_url, "/storage/v1/b/", PercentEncode(bucket()),
                   "/o?maxResults=", std::max<int64_t>(1, request.max_results));
  if (!request.prefix.empty())
    StrAppend(&req.url, "&prefix=", PercentEncode(request.prefix));
  if (!request.delimiter.empty()) {
    StrAppend(&req.url, "&delimiter=", PercentEncode(request.delimiter));
  }
  if (!request.start_offset.empty()) {
    StrAppend(&req.url, "&startOffset=", PercentEncode(request.start_offset));
  }
  if (!request.page_token.empty()) {
    StrAppend(&req.url, "&pageToken=", PercentEncode(request.page_token));
  }
  req.uri = ObjectUri(request.prefix);
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req));
  auto page = internal::ParseListPage(resp.body);
  if (!page.ok()) {
    return internal::IoError("GCS ListObjects of ", req.uri,
                             ": malformed answer: ", page.status().message());
  }
  return page;
}

Status GcsClient::Delete(const std::string& key) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, key, "DeleteObject"));
  Request req;
  req.op = "DeleteObject";
  req.method = "DELETE";
  req.url = impl_->ObjectUrl(key);
  req.uri = ObjectUri(key);
  req.accept = {404};
  return impl_->Execute(req).status();
}

Status GcsClient::Rewrite(const std::string& src, const std::string& dst,
                          bool if_not_exists) {
  LANCE_RETURN_NOT_OK(CheckKey(*this, src, "RewriteObject"));
  LANCE_RETURN_NOT_OK(CheckKey(*this, dst, "RewriteObject"));
  std::string token;
  // Large objects take several calls; each answer says how far it got.
  for (int round = 0; round < 10000; ++round) {
    Request req;
    req.op = "RewriteObject";
    req.method = "POST";
    req.url = StrCat(impl_->ObjectUrl(src), "/rewriteTo/b/", PercentEncode(bucket()),
                     "/o/", PercentEncode(dst), "?");
    if (if_not_exists) {
      req.url += "ifGenerationMatch=0&";
      req.context = ErrorContext::kConditionalCreate;
    }
    if (!token.empty()) StrAppend(&req.url, "rewriteToken=", PercentEncode(token));
    if (req.url.back() == '&' || req.url.back() == '?') req.url.pop_back();
    req.uri = StrCat(ObjectUri(src), " to ", ObjectUri(dst));
    const std::string empty = "{}";
    req.body = empty;
    req.headers.emplace_back("Content-Type", "application/json; charset=UTF-8");
    LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req));
    auto progress = internal::ParseRewriteProgress(resp.body);
    if (!progress.ok()) {
      return internal::IoError("GCS RewriteObject of ", req.uri,
                               ": malformed answer: ", progress.status().message());
    }
    if (progress->done) return Status::OK();
    token = progress->rewrite_token;
  }
  return internal::IoError("GCS RewriteObject of ", ObjectUri(src),
                           ": the rewrite did not finish");
}

Status GcsClient::CreateBucket() {
  Request req;
  req.op = "InsertBucket";
  req.method = "POST";
  req.url = impl_->options.base_url + "/storage/v1/b";
  req.uri = "gs://" + bucket();
  const std::string body = StrCat("{\"name\":\"", bucket(), "\"}");
  req.body = body;
  req.headers.emplace_back("Content-Type", "application/json; charset=UTF-8");
  req.context = ErrorContext::kDefault;
  Result<Response> resp = impl_->Execute(req);
  if (!resp.ok() && resp.status().code() == StatusCode::kConflict) {
    return Status::AlreadyExists("GCS bucket ", bucket(), " already exists");
  }
  return resp.status();
}

const std::string& GcsClient::bucket() const { return impl_->bucket; }
const GcsOptions& GcsClient::options() const { return impl_->options; }
const std::shared_ptr<CredentialsSource>& GcsClient::credentials() const {
  return impl_->credentials;
}
GcsClientStats& GcsClient::stats() { return impl_->stats; }
std::string GcsClient::ObjectUri(std::string_view key) const {
  return impl_->ObjectUri(key);
}

}  // namespace lance::io::gcs
