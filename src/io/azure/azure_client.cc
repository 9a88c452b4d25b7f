// SPDX-License-Identifier: Apache-2.0
// The Blob service operations (see azure_client.h): each builds a Request, the
// Dispatcher (exchange.h) authorizes, sends, retries and maps errors, and the operation
// reads its answer.

#include "io/azure/azure_client.h"

#include <algorithm>
#include <charconv>
#include <mutex>
#include <random>
#include <thread>
#include <utility>

#include "io/azure/exchange.h"
#include "io/azure/shared_key.h"
#include "lance/core/logging.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::azure {

using internal::AttemptTrace;
using internal::Level;
using internal::Request;
using internal::Response;

namespace {

int64_t ParseLength(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && end == text.data() + text.size() ? v : -1;
}

BlobProperties PropertiesOf(const Response& resp) {
  BlobProperties p;
  p.size = std::max<int64_t>(ParseLength(resp.Header("Content-Length")), 0);
  p.etag = std::string(resp.Header("ETag"));
  p.last_modified_ms = ParseRfc1123Millis(resp.Header("Last-Modified"));
  p.copy_status = std::string(resp.Header("x-ms-copy-status"));
  p.write_id = std::string(resp.Header("x-ms-meta-lancewriteid"));
  return p;
}

std::string RandomHex(size_t n) {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(n, '0');
  std::lock_guard<std::mutex> lock(mu);
  for (char& c : out) c = kHex[rng() & 0xF];
  return out;
}

}  // namespace

struct AzureClient::Impl {
  std::string container;
  AzureOptions options;
  std::shared_ptr<CredentialsSource> credentials;
  AzureClientStats stats;
  std::unique_ptr<internal::Dispatcher> dispatcher;

  Result<Response> Run(const Request& req, const internal::AcceptFn& accept = {},
                       AttemptTrace* trace = nullptr) {
    return dispatcher->Execute(req, accept, trace);
  }
};

AzureClient::AzureClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AzureClient::~AzureClient() = default;

Result<std::shared_ptr<AzureClient>> AzureClient::Make(
    std::string container, AzureOptions options,
    std::shared_ptr<CredentialsSource> credentials) {
  auto impl = std::make_unique<Impl>();
  impl->container = std::move(container);
  impl->options = std::move(options);
  impl->credentials = credentials;
  LANCE_ASSIGN_OR_RAISE(impl->dispatcher,
                        internal::Dispatcher::Make(impl->container, impl->options,
                                                   std::move(credentials), &impl->stats));
  return std::shared_ptr<AzureClient>(new AzureClient(std::move(impl)));
}

Result<BlobProperties> AzureClient::GetBlobProperties(const std::string& blob) {
  Request req;
  req.op = "GetBlobProperties";
  req.method = "HEAD";
  req.blob = blob;
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Run(req));
  return PropertiesOf(resp);
}

Result<int64_t> AzureClient::GetBlobInto(const std::string& blob, int64_t offset,
                                         int64_t length, uint8_t* out,
                                         const std::string& if_match) {
  if (length <= 0) return 0;
  Request req;
  req.op = "GetBlob";
  req.blob = blob;
  req.headers.emplace_back("x-ms-range",
                           StrCat("bytes=", offset, "-", offset + length - 1));
  if (!if_match.empty()) {
    req.headers.emplace_back("If-Match", if_match);
    req.context = ErrorContext::kPinnedRead;
  }
  req.out = out;
  req.out_capacity = length;
  req.ranged = true;
  req.range_offset = offset;
  bool past_end = false;
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Run(req, [&](const AzureError& e) {
    // A range starting at or past the end: nothing to read.
    past_end = e.http_status == 416;
    return past_end;
  }));
  return past_end ? 0 : resp.written;
}

Result<BufferPtr> AzureClient::GetBlob(const std::string& blob) {
  Request req;
  req.op = "GetBlob";
  req.blob = blob;
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Run(req));
  return Buffer::FromString(std::move(resp.body));
}

Result<std::string> AzureClient::PutBlob(const std::string& blob, std::string_view body,
                                         bool if_none_match) {
  Request req;
  req.op = if_none_match ? "PutBlob (create only)" : "PutBlob";
  req.method = "PUT";
  req.blob = blob;
  req.body = body;
  req.headers.emplace_back("x-ms-blob-type", "BlockBlob");
  std::string write_id;
  if (if_none_match) {
    // Tags this write, so that a create whose answer was lost can be recognised.
    write_id = RandomHex(32);
    req.headers.emplace_back("If-None-Match", "*");
    req.headers.emplace_back("x-ms-meta-lancewriteid", write_id);
    req.context = ErrorContext::kConditionalCreate;
  }
  AttemptTrace trace;
  Result<Response> resp = impl_->Run(req, {}, &trace);
  if (resp.ok()) return std::string(resp->Header("ETag"));
  if (if_none_match && resp.status().IsAlreadyExists() && trace.MayHaveTakenEffect()) {
    Result<BlobProperties> props = GetBlobProperties(blob);
    if (props.ok() && props->write_id == write_id) {
      LANCE_LOG(Info, "azure") << "PutBlob of " << BlobUri(blob)
                               << ": the create whose answer was lost took effect";
      return props->etag;
    }
  }
  return resp.status();
}

Status AzureClient::PutBlock(const std::string& blob, const std::string& block_id,
                             std::string_view body) {
  Request req;
  req.op = "PutBlock";
  req.method = "PUT";
  req.blob = blob;
  req.body = body;
  req.query = {{"comp", "block"}, {"blockid", block_id}};
  return impl_->Run(req).status();
}

Status AzureClient::PutBlockList(const std::string& blob,
                                 const std::vector<std::string>& block_ids) {
  const std::string body = BlockListXml(block_ids);
  Request req;
  req.op = "PutBlockList";
  req.method = "PUT";
  req.blob = blob;
  req.body = body;
  req.query = {{"comp", "blocklist"}};
  return impl_->Run(req).status();
}

Result<ListBlobsPage> AzureClient::ListBlobs(const ListBlobsRequest& request) {
  Request req;
  req.op = "ListBlobs";
  req.level = Level::kContainer;
  req.query = {{"restype", "container"}, {"comp", "list"}};
  if (!request.prefix.empty()) req.query.emplace_back("prefix", request.prefix);
  if (!request.delimiter.empty()) req.query.emplace_back("delimiter", request.delimiter);
  if (!request.marker.empty()) req.query.emplace_back("marker", request.marker);
  req.query.emplace_back("maxresults",
                         std::to_string(std::clamp(request.max_results, 1, 5000)));
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Run(req));
  Result<ListBlobsPage> page = ParseListBlobs(resp.body);
  if (!page.ok()) {
    return page.status().WithContext(
        StrCat("Azure ListBlobs of ", BlobUri(request.prefix)));
  }
  return page;
}

Status AzureClient::DeleteBlob(const std::string& blob, const std::string& if_match) {
  Request req;
  req.op = "DeleteBlob";
  req.method = "DELETE";
  req.blob = blob;
  req.headers.emplace_back("x-ms-delete-snapshots", "include");
  if (!if_match.empty()) req.headers.emplace_back("If-Match", if_match);
  return impl_
      ->Run(req,
            [](const AzureError& e) {
              return e.http_status == 404 || e.http_status == 412;
            })
      .status();
}

Status AzureClient::CopyBlob(const std::string& src, const std::string& dst,
                             bool if_none_match, const std::string& source_if_match) {
  Request req;
  req.op = if_none_match ? "CopyBlob (create only)" : "CopyBlob";
  req.method = "PUT";
  req.blob = dst;
  req.copy_source = src;
  if (if_none_match) {
    req.headers.emplace_back("If-None-Match", "*");
    req.context = ErrorContext::kConditionalCreate;
  }
  if (!source_if_match.empty()) {
    req.headers.emplace_back("x-ms-source-if-match", source_if_match);
  }
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Run(req));
  std::string status(resp.Header("x-ms-copy-status"));
  // Same-account copies are usually done at once; a pending one is polled.
  const auto start = std::chrono::steady_clock::now();
  auto delay = std::chrono::milliseconds(50);
  while (status == "pending") {
    if (std::chrono::steady_clock::now() - start > impl_->options.retry_timeout) {
      return Status::Unavailable(StrCat("Azure CopyBlob of ", BlobUri(src), " to ",
                                        BlobUri(dst),
                                        ": still pending after the retry timeout"));
    }
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(2000));
    LANCE_ASSIGN_OR_RAISE(BlobProperties props, GetBlobProperties(dst));
    status = props.copy_status;
  }
  if (!status.empty() && status != "success") {
    return Status::IOError(StrCat("Azure CopyBlob of ", BlobUri(src), " to ",
                                  BlobUri(dst), ": the copy ended with status '", status,
                                  "'"));
  }
  return Status::OK();
}

namespace {
// Create Container and Delete Container: `method` on the container itself.
Request ContainerRequest(const char* op, const char* method) {
  Request req;
  req.op = op;
  req.method = method;
  req.level = Level::kContainer;
  req.query = {{"restype", "container"}};
  return req;
}
}  // namespace

Status AzureClient::CreateContainer() {
  return impl_->Run(ContainerRequest("CreateContainer", "PUT")).status();
}

Status AzureClient::DeleteContainer() {
  return impl_->Run(ContainerRequest("DeleteContainer", "DELETE")).status();
}

Result<UserDelegationKey> AzureClient::GetUserDelegationKey(
    std::chrono::system_clock::time_point start,
    std::chrono::system_clock::time_point expiry) {
  const std::string body = KeyInfoXml(FormatIso8601(start), FormatIso8601(expiry));
  Request req;
  req.op = "GetUserDelegationKey";
  req.method = "POST";
  req.level = Level::kService;
  req.query = {{"restype", "service"}, {"comp", "userdelegationkey"}};
  req.body = body;
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Run(req));
  Result<UserDelegationKey> key = ParseUserDelegationKey(resp.body);
  if (!key.ok()) {
    return key.status().WithContext(
        StrCat("Azure GetUserDelegationKey of account ", impl_->options.account));
  }
  return key;
}

Result<bool> AzureClient::IsHierarchicalNamespace() {
  Request req;
  req.op = "GetAccountInformation";
  req.method = "HEAD";
  req.level = Level::kService;
  req.query = {{"restype", "account"}, {"comp", "properties"}};
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Run(req));
  return resp.Header("x-ms-is-hns-enabled") == "true";
}

const std::string& AzureClient::container() const { return impl_->container; }
const AzureOptions& AzureClient::options() const { return impl_->options; }
const std::shared_ptr<CredentialsSource>& AzureClient::credentials() const {
  return impl_->credentials;
}
AzureClientStats& AzureClient::stats() { return impl_->stats; }
std::string AzureClient::BlobUri(std::string_view blob) const {
  return impl_->dispatcher->BlobUri(blob);
}

}  // namespace lance::io::azure
