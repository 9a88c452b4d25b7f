// SPDX-License-Identifier: Apache-2.0
// RestNamespace: the Lance REST namespace client (see rest_namespace.h for the wire
// format). Every operation is one Call: a method, a route under /v1, the encoded id, the
// query parameters and a body; Execute adds the headers (static, then the dynamic
// context), sends it through the io::http layer (lance/io/http/http_client.h), retries
// idempotent calls on transient failures, and turns a non-2xx answer into the spec's
// error kind.

#include "lance/namespace/rest_namespace.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lance/core/ascii.h"
#include "lance/core/buffer.h"
#include "lance/core/record_batch.h"
#include "lance/io/http/http_client.h"
#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"
#include "lance/macros.h"
#include "lance/namespace/model_fields.h"
#include "lance/namespace/operations.h"
#include "lance/str_cat.h"
#include "namespace/json_codec_internal.h"

namespace lance::ns {

namespace {

using io::http::HttpClient;
using io::http::HttpRequest;
using io::http::HttpResponse;
using io::http::RedactUrl;
using QueryParams = std::vector<std::pair<std::string, std::string>>;

constexpr std::string_view kJson = "application/json";
constexpr std::string_view kArrowStream = "application/vnd.apache.arrow.stream";
constexpr size_t kExcerptBytes = 256;
constexpr std::chrono::milliseconds kMaxBackoff{10'000};
// Idle connections kept for reuse between calls.
constexpr size_t kMaxIdleHandles = 16;

bool FormKeeps(unsigned char c) {
  return std::isalnum(c) != 0 || c == '*' || c == '-' || c == '.' || c == '_';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Status InvalidProperty(std::string_view message) {
  return NamespaceError(ErrorCode::kInvalidInput,
                        StrCat("RestNamespace properties: ", message));
}

Result<int64_t> ParseNonNegative(const Properties& props, const std::string& key,
                                 int64_t fallback) {
  auto it = props.find(key);
  if (it == props.end()) return fallback;
  const std::string& text = it->second;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return InvalidProperty(
        StrCat("'", key, "' must be a non-negative integer, got '", text, "'"));
  }
  return value;
}

// One attempt through the HTTP layer. \return the answer of any status; when none
// arrived, the namespace error the retry loop understands: connection refused / reset,
// DNS failures and timeouts are ServiceUnavailable (retryable), TLS failures and
// anything else Internal. Messages name the method and the URL (user info removed),
// never a header value.
Result<HttpResponse> Send(const HttpClient& client, HttpRequest request) {
  // A fixed Accept as real Lance's client; a bodiless POST gets no form content type
  // from libcurl.
  const bool has_content_type = std::any_of(
      request.headers.begin(), request.headers.end(),
      [](const auto& h) { return EqualsIgnoreAsciiCase(h.first, "content-type"); });
  request.headers.insert(request.headers.begin(), {"Accept", "*/*"});
  if (!has_content_type) request.headers.emplace_back("Content-Type", "");
  HttpResponse response = client.Send(request);
  if (response.answered()) return response;
  const std::string where = StrCat(request.method, " ", RedactUrl(request.url));
  const std::string& detail = response.transport_message;
  if (io::http::IsTransientTransportError(response.error)) {
    return NamespaceError(
        ErrorCode::kServiceUnavailable,
        StrCat(where, ": no answer from the REST namespace server (", detail, ")"));
  }
  if (response.error == io::http::TransportError::kTlsHandshake ||
      response.error == io::http::TransportError::kTlsVerification) {
    return NamespaceError(
        ErrorCode::kInternal,
        StrCat(where, ": TLS with the REST namespace server failed (", detail, ")"));
  }
  return NamespaceError(
      ErrorCode::kInternal,
      StrCat(where, ": request to the REST namespace server failed (", detail, ")"));
}

// A header name is an HTTP token; a value must not break the header block.
bool ValidHeaderName(std::string_view name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) != 0 ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}
bool ValidHeaderValue(std::string_view value) {
  return value.find_first_of("\r\n") == std::string_view::npos &&
         value.find('\0') == std::string_view::npos;
}

// A printable, bounded excerpt of a body for messages.
std::string Excerpt(std::string_view body) {
  std::string out;
  for (char c : body.substr(0, kExcerptBytes)) {
    const auto u = static_cast<unsigned char>(c);
    out.push_back(u >= 0x20 && u < 0x7f ? c : '?');
  }
  if (body.size() > kExcerptBytes) out += "...";
  return out;
}

std::string BoolText(bool b) { return b ? "true" : "false"; }

std::string CompactJson(const Properties& props) {
  json_codec::Json j = json_codec::Json::object();
  for (const auto& [k, v] : props) j[k] = v;
  return j.dump();
}

// A request field as query parameters: strings as they are, booleans as true/false,
// maps as compact JSON objects (create_table's properties, as Lance's client sends
// them), lists as one parameter per element (merge_insert's composite `on` keys).
template <typename T>
void AppendQuery(const char* name, const T& field, QueryParams* query) {
  if constexpr (IsOptional<T>::value) {
    if (field.has_value()) AppendQuery(name, *field, query);
  } else if constexpr (std::is_same_v<T, std::string>) {
    query->emplace_back(name, field);
  } else if constexpr (std::is_same_v<T, bool>) {
    query->emplace_back(name, BoolText(field));
  } else if constexpr (std::is_integral_v<T>) {
    query->emplace_back(name, std::to_string(field));
  } else if constexpr (std::is_same_v<T, Properties>) {
    query->emplace_back(name, CompactJson(field));
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    for (const auto& element : field) query->emplace_back(name, element);
  } else {
    // Not a query type; operations_test checks that no row names such a field.
  }
}

}  // namespace

std::string FormEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (FormKeeps(u)) {
      out.push_back(c);
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 0x0f]);
    }
  }
  return out;
}

Result<std::string> FormDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%') {
      const int hi = i + 1 < text.size() ? HexValue(text[i + 1]) : -1;
      const int lo = i + 2 < text.size() ? HexValue(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        return NamespaceError(
            ErrorCode::kInvalidInput,
            StrCat("bad percent escape at byte ", i, " of '", Excerpt(text), "'"));
      }
      out.push_back(static_cast<char>((hi << 4) | lo));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// -- The transport of one operation
// ----------------------------------------------------------

class RestNamespace::Impl {
 public:
  struct Call {
    std::string_view op;    // the spec's operation name (context, messages)
    std::string method;     // "GET" / "POST"
    std::string path;       // "/v1/table/<encoded id>/describe"
    std::string object_id;  // the joined id (context)
    QueryParams query;      // after `delimiter`
    std::string body;
    std::string_view content_type;  // empty: no body
    bool idempotent = false;
    // The kind a 404 without a spec code means, when it can only mean one thing.
    std::optional<ErrorCode> not_found;
  };

  Impl(const RestNamespaceOptions& options, std::unique_ptr<HttpClient> http)
      : options_(options), http_(std::move(http)) {
    base_ = options_.uri;
    while (!base_.empty() && base_.back() == '/') base_.pop_back();
  }

  std::string Joined(const Identifier& id) const {
    return JoinIdentifier(id, options_.delimiter);
  }
  // The path segment of an id: the joined parts, form-encoded; the root is the
  // delimiter itself.
  std::string PathId(const Identifier& id) const {
    return FormEncode(id.empty() ? options_.delimiter : Joined(id));
  }

  // The call of an operation, from its row of operations.def: route, method, retry
  // and 404 rules, and the request as a JSON body or as query parameters.
  template <typename Req>
  Call CallFor(const Req& r) const {
    constexpr const OperationInfo& kOp = OperationOf<Req>::kInfo;
    Call call;
    call.op = kOp.name;
    call.method = std::string(kOp.http_method);
    call.idempotent = kOp.idempotent;
    if (kOp.namespace_not_found) call.not_found = ErrorCode::kNamespaceNotFound;
    if constexpr (requires { r.id; }) {
      call.path =
          StrCat("/v1/", AreaPathSegment(kOp.area), "/", PathId(r.id), "/", kOp.route);
      call.object_id = Joined(r.id);
    } else {
      call.path =
          kOp.route.empty() ? std::string("/v1/table") : StrCat("/v1/table/", kOp.route);
    }
    if constexpr (kOp.request_body == RequestBody::kJson) {
      call.body = json_codec::ToJson(r).dump();
      call.content_type = kJson;
    } else {
      VisitFields(r, [&](const char* name, const auto& field) {
        if (kOp.InQuery(name)) AppendQuery(name, field, &call.query);
      });
    }
    return call;
  }

  // One operation, as its row says; the few whose wire form the row cannot say have
  // overloads below.
  template <typename Req>
  typename OperationOf<Req>::Result Invoke(const Req& r,
                                           std::string_view data = {}) const {
    Call call = CallFor(r);
    if constexpr (OperationOf<Req>::kInfo.request_body == RequestBody::kArrow) {
      call.body = std::string(data);
      call.content_type = kArrowStream;
    }
    return Answer<Req>(call);
  }

  Result<CreateEmptyTableResponse> Invoke(const CreateEmptyTableRequest& r) const;
  Result<MergeInsertIntoTableResponse> Invoke(const MergeInsertIntoTableRequest& r,
                                              std::string_view data) const;
  Result<std::string> Invoke(const QueryTableRequest& r) const;
  Result<UpdateTableSchemaMetadataResponse> Invoke(
      const UpdateTableSchemaMetadataRequest& r) const;

  // The answer of a call, in the shape the operation's row gives.
  template <typename Req>
  typename OperationOf<Req>::Result Answer(const Call& call) const {
    constexpr ReplyBody kReply = OperationOf<Req>::kInfo.reply_body;
    if constexpr (kReply == ReplyBody::kModel) {
      return ExecuteJson<typename OperationOf<Req>::Result::value_type>(call);
    } else if constexpr (kReply == ReplyBody::kStatus) {
      return Execute(call).status();
    } else if constexpr (kReply == ReplyBody::kCount) {
      return ExecuteCount(call);
    } else {
      return ExecuteArrow(call);
    }
  }

  Result<std::string> Execute(const Call& call) const {
    std::string url =
        StrCat(base_, call.path, "?delimiter=", FormEncode(options_.delimiter));
    for (const auto& [key, value] : call.query) {
      url += StrCat("&", FormEncode(key), "=", FormEncode(value));
    }
    HttpRequest request;
    request.method = call.method;
    request.url = std::move(url);
    request.body = call.body;
    LANCE_ASSIGN_OR_RAISE(request.headers, Headers(call));
    const int attempts = 1 + (call.idempotent ? std::max(0, options_.max_retries) : 0);
    Status last;
    for (int attempt = 0; attempt < attempts; ++attempt) {
      if (attempt > 0) std::this_thread::sleep_for(Backoff(attempt));
      Result<HttpResponse> response = Send(*http_, request);
      if (!response.ok()) {
        // The message already names the method and the URL.
        last = response.status();
        if (last.retryable()) continue;
        return last;
      }
      if (response->status >= 200 && response->status < 300) {
        return std::move(response->body);
      }
      last = ErrorFromResponse(call, *response);
      if (!last.retryable()) return last;
    }
    if (attempts > 1) {
      // Keep the spec name first in the message (and the detail): no WithContext prefix.
      return Status(last.code(),
                    StrCat(last.message(), " (gave up after ", attempts, " attempts)"),
                    last.retryable(), last.detail());
    }
    return last;
  }

  template <typename Resp>
  Result<Resp> ExecuteJson(const Call& call) const {
    LANCE_ASSIGN_OR_RAISE(std::string body, Execute(call));
    Result<Resp> parsed = json_codec::Parse<Resp>(body, StrCat(call.op, " response"));
    if (!parsed.ok()) {
      // A malformed answer is the server's fault, not the caller's input.
      return NamespaceError(ErrorCode::kInternal,
                            StrCat(call.op, ": unexpected response from ",
                                   RedactUrl(base_), ": ", parsed.status().message()));
    }
    return parsed;
  }

  // The spec answers a count as a bare integer.
  Result<int64_t> ExecuteCount(const Call& call) const {
    LANCE_ASSIGN_OR_RAISE(std::string body, Execute(call));
    std::string_view text = body;
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
      text.remove_prefix(1);
    }
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
      text.remove_suffix(1);
    }
    int64_t count = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
      return NamespaceError(ErrorCode::kInternal,
                            StrCat(call.op, ": the answer of ", namespace_label(),
                                   " is not an integer: '", Excerpt(body), "'"));
    }
    return count;
  }

  // Rows as an Arrow IPC stream. Servers may answer with the IPC file format (real
  // Lance's RestAdapter does; the spec allows both): hand back the stream format the
  // interface promises.
  Result<std::string> ExecuteArrow(const Call& call) const {
    LANCE_ASSIGN_OR_RAISE(std::string bytes, Execute(call));
    constexpr std::string_view kFileMagic = "ARROW1";
    if (std::string_view(bytes).substr(0, kFileMagic.size()) != kFileMagic) return bytes;
    auto table = ipc::ReadIpcFile(Buffer::FromString(std::move(bytes)));
    if (!table.ok()) {
      return NamespaceError(
          ErrorCode::kInternal,
          StrCat(call.op, ": the Arrow IPC file from ", namespace_label(),
                 " does not decode: ", table.status().message()));
    }
    LANCE_ASSIGN_OR_RAISE(auto stream, ipc::WriteIpcStream(**table));
    return std::string(stream->ToStringView());
  }

  std::string namespace_label() const { return RedactUrl(base_); }

 private:
  std::chrono::milliseconds Backoff(int attempt) const {
    std::chrono::milliseconds wait = options_.retry_backoff;
    for (int i = 1; i < attempt && wait < kMaxBackoff; ++i) wait *= 2;
    return std::min(wait, kMaxBackoff);
  }

  Result<std::vector<std::pair<std::string, std::string>>> Headers(
      const Call& call) const {
    std::vector<std::pair<std::string, std::string>> headers;
    auto set = [&](const std::string& name, const std::string& value) {
      for (auto& [n, v] : headers) {
        if (EqualsIgnoreAsciiCase(n, name)) {
          v = value;
          return;
        }
      }
      headers.emplace_back(name, value);
    };
    for (const auto& [name, value] : options_.headers) set(name, value);
    if (!call.content_type.empty()) set("Content-Type", std::string(call.content_type));
    if (options_.context_provider) {
      Properties info = {{"operation", std::string(call.op)},
                         {"object_id", call.object_id}};
      Result<Properties> context = options_.context_provider->ProvideContext(info);
      if (!context.ok()) {
        return context.status().WithContext(
            StrCat("dynamic context provider for ", call.op));
      }
      for (const auto& [key, value] : *context) {
        std::string name =
            key.rfind("headers.", 0) == 0 ? key.substr(8) : "x-lance-ctx-" + key;
        if (!ValidHeaderName(name) || !ValidHeaderValue(value)) {
          return NamespaceError(
              ErrorCode::kInvalidInput,
              StrCat("dynamic context provider for ", call.op, ": key '", key,
                     "' does not make a valid HTTP header"));
        }
        set(name, value);
      }
    }
    return headers;
  }

  Status ErrorFromResponse(const Call& call, const HttpResponse& response) const {
    const int64_t status = response.status;
    const std::string where = StrCat(call.method, " ", RedactUrl(base_), call.path);
    json_codec::Json j =
        json_codec::Json::parse(response.body, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded() && j.is_object()) {
      auto code = j.find("code");
      if (code != j.end() && code->is_number_integer()) {
        std::string text;
        auto error = j.find("error");
        if (error != j.end() && error->is_string()) {
          text = error->get_ref<const std::string&>();
        } else {
          text = Excerpt(response.body);
        }
        const int64_t value = code->get<int64_t>();
        if (value >= 0 &&
            value <= static_cast<int64_t>(ErrorCode::kTableBranchAlreadyExists)) {
          return NamespaceError(static_cast<ErrorCode>(value), text);
        }
        return NamespaceError(ErrorCode::kInternal,
                              StrCat(text, " (unknown error code ", value, " from ",
                                     where, ", HTTP ", status, ")"));
      }
    }
    // No spec error body: decide on the status alone, and only where it is unambiguous.
    const std::string message =
        StrCat(call.op, ": HTTP ", status, " from ", where, ": ", Excerpt(response.body));
    if (status == 429) return NamespaceError(ErrorCode::kThrottling, message);
    if (status >= 500 && status != 501) {
      return NamespaceError(ErrorCode::kServiceUnavailable, message);
    }
    if (status == 401) return NamespaceError(ErrorCode::kUnauthenticated, message);
    if (status == 403) return NamespaceError(ErrorCode::kPermissionDenied, message);
    if (status == 405 || status == 501) {
      return NamespaceError(ErrorCode::kUnsupported, message);
    }
    if (status == 404 && call.not_found) return NamespaceError(*call.not_found, message);
    return NamespaceError(ErrorCode::kInternal, message);
  }

  RestNamespaceOptions options_;
  std::unique_ptr<HttpClient> http_;
  std::string base_;
};

// -- Construction
// --------------------------------------------------------------------------

RestNamespace::RestNamespace(std::unique_ptr<Impl> impl, RestNamespaceOptions options)
    : impl_(std::move(impl)), options_(std::move(options)) {}
RestNamespace::~RestNamespace() = default;

Result<std::shared_ptr<RestNamespace>> RestNamespace::FromProperties(
    const Properties& properties,
    std::shared_ptr<DynamicContextProvider> context_provider) {
  RestNamespaceOptions options;
  auto uri = properties.find("uri");
  if (uri == properties.end()) {
    return InvalidProperty("missing required property 'uri'");
  }
  options.uri = uri->second;
  if (auto it = properties.find("delimiter"); it != properties.end()) {
    options.delimiter = it->second;
  }
  for (const auto& [key, value] : properties) {
    if (key.rfind("header.", 0) == 0) options.headers[key.substr(7)] = value;
  }
  if (auto it = properties.find("tls.ssl_ca_cert"); it != properties.end()) {
    options.tls_ca_cert = it->second;
  }
  if (auto it = properties.find("tls.cert_file"); it != properties.end()) {
    options.tls_cert_file = it->second;
  }
  if (auto it = properties.find("tls.key_file"); it != properties.end()) {
    options.tls_key_file = it->second;
  }
  if (auto it = properties.find("tls.assert_hostname"); it != properties.end()) {
    if (EqualsIgnoreAsciiCase(it->second, "true")) {
      options.tls_assert_hostname = true;
    } else if (EqualsIgnoreAsciiCase(it->second, "false")) {
      options.tls_assert_hostname = false;
    } else {
      return InvalidProperty(
          StrCat("'tls.assert_hostname' must be true or false, got '", it->second, "'"));
    }
  }
  LANCE_ASSIGN_OR_RAISE(int64_t connect_ms,
                        ParseNonNegative(properties, "connect_timeout_ms",
                                         options.connect_timeout.count()));
  LANCE_ASSIGN_OR_RAISE(
      int64_t read_ms,
      ParseNonNegative(properties, "read_timeout_ms", options.request_timeout.count()));
  LANCE_ASSIGN_OR_RAISE(int64_t retries,
                        ParseNonNegative(properties, "max_retries", options.max_retries));
  LANCE_ASSIGN_OR_RAISE(
      int64_t backoff_ms,
      ParseNonNegative(properties, "retry_backoff_ms", options.retry_backoff.count()));
  if (retries > 100) return InvalidProperty("'max_retries' must be at most 100");
  options.connect_timeout = std::chrono::milliseconds(connect_ms);
  options.request_timeout = std::chrono::milliseconds(read_ms);
  options.max_retries = static_cast<int>(retries);
  options.retry_backoff = std::chrono::milliseconds(backoff_ms);
  options.context_provider = std::move(context_provider);
  return Make(std::move(options));
}

Result<std::shared_ptr<RestNamespace>> RestNamespace::Make(RestNamespaceOptions options) {
  const std::string& uri = options.uri;
  if (uri.rfind("http://", 0) != 0 && uri.rfind("https://", 0) != 0) {
    return InvalidProperty(
        StrCat("'uri' must be an http:// or https:// URL, got '", RedactUrl(uri), "'"));
  }
  if (uri.find_first_of("?# \r\n") != std::string::npos) {
    return InvalidProperty(StrCat("'uri' must not contain a query, fragment or space: '",
                                  RedactUrl(uri), "'"));
  }
  if (options.delimiter.empty()) return InvalidProperty("'delimiter' must not be empty");
  for (const auto& [name, value] : options.headers) {
    if (!ValidHeaderName(name) || !ValidHeaderValue(value)) {
      return InvalidProperty(StrCat("'header.", name, "' is not a valid HTTP header"));
    }
  }
  if (options.tls_cert_file.has_value() != options.tls_key_file.has_value()) {
    return InvalidProperty("'tls.cert_file' and 'tls.key_file' go together");
  }
  if (!options.tls_assert_hostname && !options.tls_ca_cert) {
    return InvalidProperty(
        "'tls.assert_hostname=false' requires 'tls.ssl_ca_cert' (it only relaxes the "
        "host name check for a CA you name)");
  }
  if (options.max_retries < 0) return InvalidProperty("'max_retries' must be >= 0");
  io::http::ClientOptions http;
  http.log_component = "rest";
  http.tls.ca_file = options.tls_ca_cert;
  http.tls.cert_file = options.tls_cert_file;
  http.tls.key_file = options.tls_key_file;
  http.tls.verify_host = options.tls_assert_hostname;
  http.connect_timeout = options.connect_timeout;
  http.request_timeout = options.request_timeout;
  http.max_idle_handles = kMaxIdleHandles;
  http.decode_content = true;  // any encoding libcurl decodes (gzip, ...)
  auto client = HttpClient::Make(std::move(http));
  if (!client.ok()) {
    return NamespaceError(ErrorCode::kInternal,
                          StrCat("REST namespace client: ", client.status().message()));
  }
  auto impl = std::make_unique<Impl>(options, std::move(*client));
  return std::make_shared<RestNamespace>(std::move(impl), std::move(options));
}

std::string RestNamespace::namespace_id() const {
  return "RestNamespace { endpoint: \"" + RedactUrl(options_.uri) + "\", delimiter: \"" +
         options_.delimiter + "\" }";
}

// -- The operations
// -------------------------------------------------------------------------

#define LANCE_NS_OPERATION(Method, wire, Body, Reply, ...)                              \
  LANCE_NS_RESULT(Method, Reply) RestNamespace::Method(LANCE_NS_PARAMS(Method, Body)) { \
    return impl_->Invoke(LANCE_NS_ARGS(Body));                                          \
  }
#include "lance/namespace/operations.def"
#undef LANCE_NS_OPERATION

// The spec (0.13.0) has no create-empty route any more: declare replaced it.
Result<CreateEmptyTableResponse> RestNamespace::Impl::Invoke(
    const CreateEmptyTableRequest& r) const {
  DeclareTableRequest declare;
  declare.id = r.id;
  declare.location = r.location;
  declare.vend_credentials = r.vend_credentials;
  declare.properties = r.properties;
  Call call = CallFor(declare);
  call.op = OperationOf<CreateEmptyTableRequest>::kInfo.name;
  LANCE_ASSIGN_OR_RAISE(auto declared, ExecuteJson<DeclareTableResponse>(call));
  CreateEmptyTableResponse out;
  out.transaction_id = std::move(declared.transaction_id);
  out.location = std::move(declared.location);
  out.storage_options = std::move(declared.storage_options);
  out.properties = std::move(declared.properties);
  return out;
}

Result<MergeInsertIntoTableResponse> RestNamespace::Impl::Invoke(
    const MergeInsertIntoTableRequest& r, std::string_view data) const {
  if (!r.on || r.on->empty()) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          "merge_insert_into_table: 'on' needs at least one column");
  }
  return Invoke<MergeInsertIntoTableRequest>(r, data);
}

Result<std::string> RestNamespace::Impl::Invoke(const QueryTableRequest& r) const {
  Call call = CallFor(r);
  if (!r.vector) {
    // Lance's model requires `vector` (its servers refuse a body without it); real
    // Lance sends `{}` for a plain scan.
    json_codec::Json body = json_codec::ToJson(r);
    body["vector"] = json_codec::Json::object();
    call.body = body.dump();
  }
  return ExecuteArrow(call);
}

Result<UpdateTableSchemaMetadataResponse> RestNamespace::Impl::Invoke(
    const UpdateTableSchemaMetadataRequest& r) const {
  // As real Lance: the body is the metadata map itself (the id is in the path).
  Call call = CallFor(r);
  call.body = CompactJson(r.metadata.value_or(Properties{}));
  LANCE_ASSIGN_OR_RAISE(std::string body, Execute(call));
  // The answer is the table's metadata map itself (as real Lance); a body in the
  // response model's shape ({"metadata": {...}}) is read as that.
  json_codec::Json j = json_codec::Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_discarded() && j.is_object() && !j.contains("metadata")) {
    UpdateTableSchemaMetadataResponse out;
    out.metadata = Properties{};
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.value().is_string()) {
        (*out.metadata)[it.key()] = it.value().get_ref<const std::string&>();
      }
    }
    return out;
  }
  Result<UpdateTableSchemaMetadataResponse> parsed =
      json_codec::Parse<UpdateTableSchemaMetadataResponse>(
          body, "update_table_schema_metadata response");
  if (!parsed.ok()) {
    return NamespaceError(
        ErrorCode::kInternal,
        StrCat("update_table_schema_metadata: unexpected response from ",
               namespace_label(), ": ", parsed.status().message()));
  }
  return parsed;
}

}  // namespace lance::ns
