// SPDX-License-Identifier: Apache-2.0
// The Azure client's request loop (see exchange.h): credentials -> authorize -> attempt
// -> classify, then refresh, back off or return.

#include "io/azure/exchange.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "io/azure/azure_client.h"
#include "io/azure/sas.h"
#include "io/azure/shared_key.h"
#include "lance/core/ascii.h"
#include "lance/core/logging.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::azure::internal {

namespace {

constexpr std::string_view kLog = "azure";

std::string EncodeQuery(const Query& query) {
  std::string out;
  for (const auto& [name, value] : query) {
    if (!out.empty()) out.push_back('&');
    StrAppend(&out, UrlEncode(name, true), "=", UrlEncode(value, true));
  }
  return out;
}

enum class AuthKind { kNone, kSharedKey, kSas, kBearer };

AuthKind KindOf(const AzureCredentials& c) {
  if (!c.account_key.empty()) return AuthKind::kSharedKey;
  if (!c.sas_token.empty()) return AuthKind::kSas;
  if (!c.bearer_token.empty()) return AuthKind::kBearer;
  return AuthKind::kNone;
}

std::string_view SasOf(const AzureCredentials& c) {
  std::string_view sas = c.sas_token;
  while (!sas.empty() && (sas.front() == '?' || sas.front() == '&')) sas.remove_prefix(1);
  return sas;
}

// One attempt as it goes on the wire.
struct Wire {
  std::string url;
  http::Headers headers;
};

AuthKind KindOf(const http::RetryLoop& loop) {
  return loop.creds() ? KindOf(loop.creds()->azure) : AuthKind::kNone;
}

}  // namespace

struct Dispatcher::Impl {
  std::string container;
  AzureOptions options;
  std::shared_ptr<CredentialsSource> credentials;
  http::ClientStats* stats = nullptr;
  std::unique_ptr<http::HttpClient> http;
  std::string origin;     // "http://127.0.0.1:10000"
  std::string base_path;  // "/devstoreaccount1" or ""
  http::RetryConfig retry{.component = kLog, .service = "Azure"};

  std::string BlobUri(std::string_view blob) const {
    std::string uri = StrCat("az://", container);
    if (!blob.empty()) StrAppend(&uri, "/", blob);
    return uri;
  }

  // The encoded path of `level` (and `blob`), from the first '/'.
  std::string PathOf(Level level, std::string_view blob) const {
    switch (level) {
      case Level::kService:
        return base_path + "/";
      case Level::kContainer:
        return StrCat(base_path, "/", container);
      case Level::kBlob:
        break;
    }
    return StrCat(base_path, "/", container, "/",
                  UrlEncode(blob, /*encode_slash=*/false));
  }

  Result<Response> Execute(const Request& req, const AcceptFn& accept,
                           AttemptTrace* trace);
  Result<Wire> Authorize(const Request& req, const http::RetryLoop& loop) const;
  Response Attempt(const Request& req, http::RetryLoop* loop, const Wire& wire);
  http::Verdict ClassifyAnswer(const Request& req, http::RetryLoop& loop,
                               const Response& resp, const AcceptFn& accept) const;
};

Result<Response> Dispatcher::Impl::Execute(const Request& req, const AcceptFn& accept,
                                           AttemptTrace* trace) {
  http::RetryLoop loop(
      retry, req.op, BlobUri(req.level == Level::kBlob ? std::string_view(req.blob) : ""),
      trace);
  Response resp;
  LANCE_RETURN_NOT_OK(loop.Run([&]() -> Result<http::Verdict> {
    LANCE_ASSIGN_OR_RAISE(Wire wire, Authorize(req, loop));
    resp = Attempt(req, &loop, wire);
    if (resp.overflow) {
      return http::Verdict::Fail(
          Status::IOError(loop.Subject(), ": the server sent more bytes than requested"));
    }
    if (!resp.answered()) {
      return loop.OnTransportFailure(resp.transport_error, resp.transport_code,
                                     RedactSas(resp.transport_message));
    }
    return ClassifyAnswer(req, loop, resp, accept);
  }));
  return resp;
}

Result<Wire> Dispatcher::Impl::Authorize(const Request& req,
                                         const http::RetryLoop& loop) const {
  const AuthKind kind = KindOf(loop);
  Wire wire;
  const std::string path = PathOf(req.level, req.blob);
  wire.headers = {{"x-ms-date", FormatRfc1123(std::chrono::system_clock::now())},
                  {"x-ms-version", std::string(kAzureApiVersion)}};
  if (!req.copy_source.empty()) {
    std::string source = StrCat(origin, PathOf(Level::kBlob, req.copy_source));
    if (kind == AuthKind::kSas) StrAppend(&source, "?", SasOf(loop.creds()->azure));
    wire.headers.emplace_back("x-ms-copy-source", std::move(source));
  }
  wire.headers.insert(wire.headers.end(), req.headers.begin(), req.headers.end());
  std::string query = EncodeQuery(req.query);
  if (kind == AuthKind::kSas) {
    StrAppend(&query, query.empty() ? "" : "&", SasOf(loop.creds()->azure));
  }
  wire.url = StrCat(origin, path, query.empty() ? "" : "?", query);
  if (kind == AuthKind::kSharedKey) {
    SharedKeyRequest sk{req.method,   options.account,
                        path,         req.query,
                        wire.headers, static_cast<int64_t>(req.body.size())};
    Result<std::string> auth =
        SharedKeyAuthorization(sk, loop.creds()->azure.account_key);
    if (!auth.ok()) {
      return auth.status().WithContext(loop.Subject());
    }
    wire.headers.emplace_back("Authorization", std::move(*auth));
  } else if (kind == AuthKind::kBearer) {
    wire.headers.emplace_back("Authorization",
                              "Bearer " + loop.creds()->azure.bearer_token);
  }
  // No default Accept or form Content-Type from libcurl (the signature covers them).
  wire.headers.emplace_back("Accept", "");
  wire.headers.emplace_back("Content-Type", "");
  return wire;
}

Response Dispatcher::Impl::Attempt(const Request& req, http::RetryLoop* loop,
                                   const Wire& wire) {
  loop->CountAttempt();
  http::HttpRequest hreq;
  hreq.method = req.method;
  hreq.url = wire.url;
  hreq.headers = wire.headers;
  hreq.body = req.body;
  Response resp = http::SendForSlice(*http, std::move(hreq), req);
  LANCE_LOG(Debug, kLog) << req.method << " " << loop->uri() << ": "
                         << (resp.answered() ? StrCat("HTTP ", resp.status)
                                             : StrCat("curl error ", resp.transport_code))
                         << (req.ranged ? StrCat(" [", req.range_offset, "+",
                                                 req.out_capacity, "]")
                                        : std::string())
                         << " (" << req.op << ", attempt " << loop->attempts() << ", "
                         << loop->CredentialsLabel() << ")";
  return resp;
}

http::Verdict Dispatcher::Impl::ClassifyAnswer(const Request& req, http::RetryLoop& loop,
                                               const Response& resp,
                                               const AcceptFn& accept) const {
  if (resp.status >= 200 && resp.status < 300) {
    stats->bytes_received.fetch_add(resp.written, std::memory_order_relaxed);
    stats->bytes_sent.fetch_add(static_cast<int64_t>(req.body.size()),
                                std::memory_order_relaxed);
    return http::Verdict::Succeed();
  }
  AzureError err = ParseErrorBody(resp.body, resp.status)
                       .value_or(AzureError{resp.status, "", "", ""});
  if (err.code.empty()) err.code = std::string(resp.Header("x-ms-error-code"));
  err.request_id = std::string(resp.Header("x-ms-request-id"));
  if (accept && accept(err)) return http::Verdict::Succeed();
  Status error = MakeAzureHttpError(req.op, loop.uri(), req.context, err, loop.attempts(),
                                    loop.ElapsedSeconds());
  return loop.OnErrorAnswer(std::move(error), ClassifyAzureError(err),
                            KindOf(loop) != AuthKind::kNone,
                            StrCat("HTTP ", err.http_status, " ", err.code));
}

Dispatcher::Dispatcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Dispatcher::~Dispatcher() = default;

Result<std::unique_ptr<Dispatcher>> Dispatcher::Make(
    std::string container, const AzureOptions& options,
    std::shared_ptr<CredentialsSource> credentials, AzureClientStats* stats) {
  if (credentials == nullptr) {
    return Status::Invalid("the Azure client needs a credentials source");
  }
  auto impl = std::make_unique<Impl>();
  impl->container = std::move(container);
  impl->options = options;
  impl->credentials = std::move(credentials);
  impl->stats = stats;
  impl->retry.tuning = &impl->options;
  impl->retry.credentials = impl->credentials.get();
  impl->retry.stats = stats;
  // "scheme://host[:port]" and the base path after it.
  const size_t host = options.endpoint.find("://");
  if (host == std::string::npos) {
    return Status::Invalid("malformed Azure endpoint '", options.endpoint, "'");
  }
  const size_t slash = options.endpoint.find('/', host + 3);
  impl->origin = options.endpoint.substr(0, slash);
  if (slash != std::string::npos) impl->base_path = options.endpoint.substr(slash);
  while (!impl->base_path.empty() && impl->base_path.back() == '/') {
    impl->base_path.pop_back();
  }
  LANCE_ASSIGN_OR_RAISE(impl->http,
                        http::HttpClient::Make(http::CloudClientOptions(
                            options, options.allow_invalid_certificates, "azure")));
  return std::unique_ptr<Dispatcher>(new Dispatcher(std::move(impl)));
}

Result<Response> Dispatcher::Execute(const Request& req, const AcceptFn& accept,
                                     AttemptTrace* trace) {
  return impl_->Execute(req, accept, trace);
}

std::string Dispatcher::BlobUri(std::string_view blob) const {
  return impl_->BlobUri(blob);
}

}  // namespace lance::io::azure::internal
