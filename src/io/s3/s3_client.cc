// SPDX-License-Identifier: Apache-2.0
// S3Client over libcurl (see include/lance/io/s3/s3_client.h for the contract).
//
// Transport: a pool of curl easy handles. A handle keeps its own connection cache, so
// returning it to the pool after each request (curl_easy_reset keeps live connections)
// lets the next request reuse the keep-alive connection. A counting semaphore bounds
// the requests in flight to S3Options::max_connections.

#include "io/s3/s3_client.h"

#include <curl/curl.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <random>
#include <semaphore>
#include <thread>
#include <utility>

#include "lance/core/ascii.h"
#include "lance/core/logging.h"
#include "io/s3/sigv4.h"
#include "lance/macros.h"
#include "io/s3/s3_client_internal.h"
#include "io/s3/xml.h"

namespace lance::io::s3 {

namespace internal {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

// Days since 1970-01-01 of a civil date (proleptic Gregorian), without timegm's
// dependence on the process time zone.
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

}  // namespace

Result<ParsedEndpoint> ParseEndpoint(std::string_view endpoint) {
  ParsedEndpoint out;
  const size_t sep = endpoint.find("://");
  if (sep == std::string_view::npos) {
    return Status::Invalid("S3 endpoint must start with http:// or https://");
  }
  out.scheme = AsciiToLower(endpoint.substr(0, sep));
  if (out.scheme != "http" && out.scheme != "https") {
    return Status::Invalid("S3 endpoint scheme must be http or https, not '" +
                           out.scheme + "'");
  }
  std::string_view rest = endpoint.substr(sep + 3);
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  if (authority.empty()) return Status::Invalid("S3 endpoint has no host");
  if (authority.find('@') != std::string_view::npos) {
    // Never echo it: userinfo may hold a password.
    return Status::Invalid("S3 endpoint must not contain user information");
  }
  if (authority.find_first_of("?# \t\r\n") != std::string_view::npos ||
      path.find_first_of("?# \t\r\n") != std::string_view::npos) {
    return Status::Invalid(
        "S3 endpoint must not contain a query, fragment or whitespace");
  }
  // Split an optional port (IPv6 literals are bracketed).
  std::string_view host = authority;
  std::string_view port;
  if (authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos)
      return Status::Invalid("S3 endpoint: bad IPv6 host");
    host = authority.substr(0, close + 1);
    std::string_view tail = authority.substr(close + 1);
    if (!tail.empty()) {
      if (tail.front() != ':') return Status::Invalid("S3 endpoint: bad host");
      port = tail.substr(1);
    }
  } else {
    const size_t colon = authority.rfind(':');
    if (colon != std::string_view::npos) {
      host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
    }
  }
  if (host.empty() || host == "[]") return Status::Invalid("S3 endpoint has no host");
  if (authority.find(':') != std::string_view::npos && authority.front() != '[' &&
      port.empty()) {
    return Status::Invalid("S3 endpoint has an empty port");
  }
  int64_t port_number = 0;
  if (!port.empty() &&
      (!ParseInt64(port, &port_number) || port_number <= 0 || port_number > 65535)) {
    return Status::Invalid("S3 endpoint has an invalid port");
  }
  out.authority = std::string(authority);
  const bool default_port = port.empty() || (out.scheme == "http" && port_number == 80) ||
                            (out.scheme == "https" && port_number == 443);
  out.host_header = default_port ? std::string(host) : std::string(authority);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  out.base_path = std::string(path);
  return out;
}

Result<ParsedEndpoint> ResolveEndpoint(const S3Options& options,
                                       const std::string& bucket) {
  if (!options.endpoint.empty()) return ParseEndpoint(options.endpoint);
  const std::string region = options.region.empty() ? "us-east-1" : options.region;
  if (options.virtual_hosted_style) {
    return ParseEndpoint("https://" + bucket + ".s3." + region + ".amazonaws.com");
  }
  return ParseEndpoint("https://s3." + region + ".amazonaws.com");
}

RequestTarget BuildRequestTarget(
    const ParsedEndpoint& endpoint, bool virtual_hosted, const std::string& bucket,
    std::string_view key, bool bucket_level,
    const std::vector<std::pair<std::string, std::string>>& query) {
  RequestTarget t;
  t.raw_path = endpoint.base_path;
  if (!virtual_hosted) {
    t.raw_path += "/";
    t.raw_path += bucket;
  }
  if (!bucket_level) {
    t.raw_path += "/";
    t.raw_path += key;
  } else if (t.raw_path.empty()) {
    t.raw_path = "/";
  }
  t.host_header = endpoint.host_header;
  t.url = endpoint.scheme + "://" + endpoint.authority + S3CanonicalUri(t.raw_path);
  const std::string q = S3CanonicalQuery(query);
  if (!q.empty()) {
    t.url += "?";
    t.url += q;
  }
  return t;
}

std::optional<S3Error> ParseErrorBody(std::string_view body, int http_status) {
  // Skip leading whitespace: some servers send a newline before the declaration.
  auto parsed = ParseXml(body);
  if (!parsed.ok() || parsed->name != "Error") return std::nullopt;
  S3Error e;
  e.http_status = http_status;
  e.code = parsed->ChildText("Code");
  e.message = parsed->ChildText("Message");
  e.request_id = parsed->ChildText("RequestId");
  return e;
}

RetryClass ClassifyHttpError(int http_status, std::string_view code) {
  if (code == "ExpiredToken" || code == "InvalidToken" ||
      code == "TokenRefreshRequired" || code == "InvalidAccessKeyId") {
    return RetryClass::kRefreshCredentials;
  }
  if (code == "SlowDown" || code == "RequestTimeout" || code == "InternalError" ||
      code == "ServiceUnavailable" || code == "ConditionalRequestConflict") {
    return RetryClass::kRetry;
  }
  // RGW with STS enabled answers every credential failure (unknown key, wrong secret,
  // expired or revoked session) with a plain 403 AccessDenied, and HEAD errors carry no
  // code at all: give a refreshing source one chance there too.
  if (http_status == 403 && (code == "AccessDenied" || code.empty())) {
    return RetryClass::kMaybeRefreshCredentials;
  }
  if (http_status == 500 || http_status == 502 || http_status == 503 ||
      http_status == 504 || http_status == 429) {
    return RetryClass::kRetry;
  }
  return RetryClass::kFinal;
}

bool IsRetryableCurlCode(int curl_code) {
  switch (static_cast<CURLcode>(curl_code)) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:  // resets during the handshake
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

bool IsResolveFailure(int curl_code) {
  return curl_code == CURLE_COULDNT_RESOLVE_HOST ||
         curl_code == CURLE_COULDNT_RESOLVE_PROXY;
}

StatusCode MapS3ErrorCode(const S3Error& error, ErrorContext context) {
  const std::string& code = error.code;
  const int status = error.http_status;
  if (status == 412) {
    if (context == ErrorContext::kConditionalCreate) return StatusCode::kAlreadyExists;
    return StatusCode::kIOError;  // pinned read: "object changed"; else a failed
                                  // precondition
  }
  if (code == "ExpiredToken" || code == "TokenRefreshRequired")
    return StatusCode::kTokenExpired;
  if (status == 401 || code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch" ||
      code == "InvalidToken") {
    return StatusCode::kUnauthorized;
  }
  if (status == 404 || code == "NoSuchKey" || code == "NoSuchBucket" ||
      code == "NoSuchUpload") {
    return StatusCode::kNotFound;
  }
  if (code == "BucketAlreadyOwnedByYou" || code == "BucketAlreadyExists") {
    return StatusCode::kAlreadyExists;
  }
  if (status == 403) return StatusCode::kForbidden;
  if (status == 409) return StatusCode::kConflict;
  if (status == 501 || code == "NotImplemented") return StatusCode::kNotImplemented;
  if (ClassifyHttpError(status, code) == RetryClass::kRetry)
    return StatusCode::kUnavailable;
  if (status == 400 || status == 411 || status == 413 || status == 416) {
    return StatusCode::kInvalid;
  }
  return StatusCode::kIOError;
}

std::string FormatS3ErrorMessage(std::string_view op, std::string_view uri,
                                 const S3Error& error, int attempts, double elapsed_s) {
  std::string msg = "S3 ";
  msg += op;
  msg += " of ";
  msg += uri;
  msg += ": HTTP ";
  msg += std::to_string(error.http_status);
  if (!error.code.empty()) {
    msg += " ";
    msg += error.code;
  }
  msg += " (request id ";
  msg += error.request_id.empty() ? "none" : error.request_id;
  msg += ")";
  if (!error.message.empty()) {
    msg += ": ";
    msg += error.message;
  }
  if (attempts > 1) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), ", after %d attempts in %.1f s", attempts, elapsed_s);
    msg += buf;
  }
  return msg;
}

std::chrono::milliseconds BackoffCeiling(int retry, std::chrono::milliseconds initial,
                                         std::chrono::milliseconds max_backoff) {
  if (initial.count() <= 0) return std::chrono::milliseconds(0);
  // Double without overflowing: stop as soon as the cap is reached.
  int64_t ceiling = initial.count();
  for (int i = 0; i < retry && ceiling < max_backoff.count(); ++i) ceiling *= 2;
  return std::chrono::milliseconds(std::min<int64_t>(ceiling, max_backoff.count()));
}

std::chrono::milliseconds BackoffDelay(int retry, std::chrono::milliseconds initial,
                                       std::chrono::milliseconds max_backoff,
                                       double unit) {
  const auto ceiling = BackoffCeiling(retry, initial, max_backoff);
  unit = std::clamp(unit, 0.0, 1.0);
  auto ms = static_cast<int64_t>(std::floor(unit * static_cast<double>(ceiling.count())));
  return std::chrono::milliseconds(std::min<int64_t>(ms, ceiling.count()));
}

Result<std::string> UrlDecode(std::string_view encoded, bool plus_is_space) {
  std::string out;
  out.reserve(encoded.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < encoded.size(); ++i) {
    const char c = encoded[i];
    if (c == '%') {
      if (i + 2 >= encoded.size()) {
        return Status::Invalid("malformed percent-encoding in S3 listing");
      }
      const int hi = hex(encoded[i + 1]);
      const int lo = hex(encoded[i + 2]);
      if (hi < 0 || lo < 0)
        return Status::Invalid("malformed percent-encoding in S3 listing");
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Result<ListObjectsV2Response> ParseListObjectsV2(std::string_view body) {
  LANCE_ASSIGN_OR_RAISE(XmlElement root, ParseXml(body));
  if (root.name != "ListBucketResult") {
    return Status::IOError("S3 ListObjectsV2 answer is not a ListBucketResult");
  }
  const bool url = root.ChildText("EncodingType") == "url";
  auto decode = [&](const std::string& s) -> Result<std::string> {
    if (!url) return s;
    return UrlDecode(s, /*plus_is_space=*/true);
  };
  ListObjectsV2Response out;
  for (const XmlElement* c : root.Children("Contents")) {
    S3ListEntry e;
    const XmlElement* key = c->Child("Key");
    if (key == nullptr) return Status::IOError("S3 ListObjectsV2 entry without a Key");
    LANCE_ASSIGN_OR_RAISE(e.key, decode(key->text));
    const std::string size = std::string(Trim(c->ChildText("Size")));
    if (!ParseInt64(size, &e.size)) {
      return Status::IOError("S3 ListObjectsV2 entry with a malformed Size");
    }
    e.etag = c->ChildText("ETag");
    e.last_modified_ms = ParseIso8601Ms(Trim(c->ChildText("LastModified"))).value_or(0);
    out.objects.push_back(std::move(e));
  }
  for (const XmlElement* c : root.Children("CommonPrefixes")) {
    const XmlElement* p = c->Child("Prefix");
    if (p == nullptr)
      return Status::IOError("S3 ListObjectsV2 CommonPrefixes without a Prefix");
    LANCE_ASSIGN_OR_RAISE(std::string prefix, decode(p->text));
    out.common_prefixes.push_back(std::move(prefix));
  }
  const std::string truncated = std::string(Trim(root.ChildText("IsTruncated")));
  if (truncated == "true") {
    out.next_continuation_token = root.ChildText("NextContinuationToken");
    if (out.next_continuation_token.empty()) {
      return Status::IOError(
          "S3 ListObjectsV2 answer is truncated but has no continuation token");
    }
  } else if (!truncated.empty() && truncated != "false") {
    return Status::IOError("S3 ListObjectsV2 answer has a malformed IsTruncated");
  }
  return out;
}

Result<std::vector<DeleteFailure>> ParseDeleteResult(std::string_view body) {
  LANCE_ASSIGN_OR_RAISE(XmlElement root, ParseXml(body));
  if (root.name != "DeleteResult") {
    return Status::IOError("S3 DeleteObjects answer is not a DeleteResult");
  }
  std::vector<DeleteFailure> out;
  for (const XmlElement* e : root.Children("Error")) {
    DeleteFailure f{e->ChildText("Key"), e->ChildText("Code"), e->ChildText("Message")};
    if (f.code == "NoSuchKey") continue;
    out.push_back(std::move(f));
  }
  return out;
}

std::string BuildDeleteBody(const std::vector<std::string>& keys, size_t begin,
                            size_t end) {
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete><Quiet>true</Quiet>";
  for (size_t i = begin; i < end; ++i) {
    body += "<Object><Key>";
    body += XmlEscape(keys[i]);
    body += "</Key></Object>";
  }
  body += "</Delete>";
  return body;
}

std::string BuildCompleteBody(const std::vector<std::string>& part_etags) {
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><CompleteMultipartUpload>";
  for (size_t i = 0; i < part_etags.size(); ++i) {
    body += "<Part><PartNumber>";
    body += std::to_string(i + 1);
    body += "</PartNumber><ETag>";
    body += XmlEscape(part_etags[i]);
    body += "</ETag></Part>";
  }
  body += "</CompleteMultipartUpload>";
  return body;
}

std::string Md5Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_md5(), nullptr);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0xF]);
  }
  return out;
}

std::string ContentMd5(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_md5(), nullptr);
  unsigned char b64[64];
  const int n = EVP_EncodeBlock(b64, digest, static_cast<int>(len));
  return std::string(reinterpret_cast<char*>(b64), static_cast<size_t>(n));
}

std::optional<int64_t> ParseIso8601Ms(std::string_view t) {
  // YYYY-MM-DDTHH:MM:SS[.fff...]Z
  if (t.size() < 20) return std::nullopt;
  int64_t y, mo, d, h, mi, s;
  if (t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' || t[16] != ':') {
    return std::nullopt;
  }
  if (!ParseInt64(t.substr(0, 4), &y) || !ParseInt64(t.substr(5, 2), &mo) ||
      !ParseInt64(t.substr(8, 2), &d) || !ParseInt64(t.substr(11, 2), &h) ||
      !ParseInt64(t.substr(14, 2), &mi) || !ParseInt64(t.substr(17, 2), &s)) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
    return std::nullopt;
  int64_t ms = 0;
  size_t i = 19;
  if (i < t.size() && t[i] == '.') {
    ++i;
    int digits = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
      if (digits < 3) ms = ms * 10 + (t[i] - '0');
      ++digits;
      ++i;
    }
    if (digits == 0) return std::nullopt;
    for (int k = digits; k < 3; ++k) ms *= 10;
  }
  if (i + 1 != t.size() || t[i] != 'Z') return std::nullopt;
  const int64_t days = DaysFromCivil(y, mo, d);
  return ((days * 24 + h) * 60 + mi) * 60'000 + s * 1000 + ms;
}

std::optional<int64_t> ParseHttpDateMs(std::string_view text) {
  // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT" (what S3 and RGW send).
  static constexpr std::string_view kMonths[] = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::string_view t = Trim(text);
  const size_t comma = t.find(", ");
  if (comma == std::string_view::npos) return std::nullopt;
  t = t.substr(comma + 2);
  if (t.size() != 24 || t[2] != ' ' || t[6] != ' ' || t[11] != ' ' || t[14] != ':' ||
      t[17] != ':' || t.substr(20) != " GMT") {
    return std::nullopt;
  }
  int64_t d, y, h, mi, s;
  if (!ParseInt64(t.substr(0, 2), &d) || !ParseInt64(t.substr(7, 4), &y) ||
      !ParseInt64(t.substr(12, 2), &h) || !ParseInt64(t.substr(15, 2), &mi) ||
      !ParseInt64(t.substr(18, 2), &s)) {
    return std::nullopt;
  }
  int64_t mo = 0;
  for (int i = 0; i < 12; ++i) {
    if (t.substr(3, 3) == kMonths[i]) mo = i + 1;
  }
  if (mo == 0 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  return ((DaysFromCivil(y, mo, d) * 24 + h) * 60 + mi) * 60'000 + s * 1000;
}

std::optional<ContentRange> ParseContentRange(std::string_view value) {
  std::string_view v = Trim(value);
  if (v.substr(0, 6) != "bytes ") return std::nullopt;
  v = v.substr(6);
  const size_t dash = v.find('-');
  const size_t slash = v.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || dash > slash) {
    return std::nullopt;
  }
  ContentRange r;
  if (!ParseInt64(v.substr(0, dash), &r.first) ||
      !ParseInt64(v.substr(dash + 1, slash - dash - 1), &r.last) || r.last < r.first) {
    return std::nullopt;
  }
  const std::string_view total = v.substr(slash + 1);
  if (total == "*") {
    r.total = -1;
  } else if (!ParseInt64(total, &r.total) || r.total <= r.last) {
    return std::nullopt;
  }
  return r;
}

std::string RangeHeader(int64_t offset, int64_t length) {
  if (length < 0) {
    if (offset == 0) return "";
    return "bytes=" + std::to_string(offset) + "-";
  }
  return "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1);
}

}  // namespace internal

using internal::ErrorContext;
using internal::RetryClass;
using internal::S3Error;

namespace {

std::once_flag g_curl_init_once;
CURLcode g_curl_init_result = CURLE_OK;

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

// State shared with the curl callbacks of one attempt.
struct Transfer {
  const Request* request = nullptr;
  Response* response = nullptr;
  size_t upload_pos = 0;
  bool in_headers = true;
  // Success-sink bookkeeping, decided when the status line is seen.
  bool success = false;
  int64_t to_skip = 0;      // bytes to drop before the slice (200 answer to a range)
  int64_t limit = -1;       // bytes wanted (-1: no limit)
  bool done_early = false;  // we stopped a 200 full answer once the slice was complete
  bool overflow = false;    // the server sent more than asked
};

constexpr size_t kMaxErrorBody = 1 << 20;

size_t HeaderCallback(char* data, size_t size, size_t nitems, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  const size_t n = size * nitems;
  std::string_view line(data, n);
  if (line.substr(0, 5) == "HTTP/") {
    // A new status line (e.g. after "100 Continue"): start over.
    Response* r = t->response;
    r->etag.clear();
    r->content_range.clear();
    r->last_modified.clear();
    r->content_length.clear();
    r->request_id.clear();
    r->error_code_header.clear();
    const size_t sp = line.find(' ');
    int status = 0;
    if (sp != std::string_view::npos && sp + 4 <= line.size()) {
      for (size_t i = sp + 1; i < sp + 4; ++i) {
        if (line[i] < '0' || line[i] > '9') {
          status = 0;
          break;
        }
        status = status * 10 + (line[i] - '0');
      }
    }
    r->status = status;
    return n;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  const std::string_view name = internal::Trim(line.substr(0, colon));
  const std::string_view value = internal::Trim(line.substr(colon + 1));
  Response* r = t->response;
  if (EqualsIgnoreAsciiCase(name, "etag")) {
    r->etag = std::string(value);
  } else if (EqualsIgnoreAsciiCase(name, "content-range")) {
    r->content_range = std::string(value);
  } else if (EqualsIgnoreAsciiCase(name, "last-modified")) {
    r->last_modified = std::string(value);
  } else if (EqualsIgnoreAsciiCase(name, "content-length")) {
    r->content_length = std::string(value);
  } else if (EqualsIgnoreAsciiCase(name, "x-amz-request-id")) {
    r->request_id = std::string(value);
  } else if (EqualsIgnoreAsciiCase(name, "x-amz-error-code")) {
    r->error_code_header = std::string(value);
  }
  return n;
}

// Decides, at the first body byte, where a body goes.
void StartBody(Transfer* t) {
  t->in_headers = false;
  const Request& req = *t->request;
  Response& r = *t->response;
  t->success = r.status >= 200 && r.status < 300;
  if (!t->success) return;
  if (req.ranged && r.status == 200) {
    // The server ignored the Range: take the slice out of the full object.
    t->to_skip = req.range_offset;
    t->limit = req.range_length;
  } else {
    t->to_skip = 0;
    t->limit = req.range_length;
  }
  if (req.out != nullptr && (t->limit < 0 || t->limit > req.out_capacity)) {
    t->limit = req.out_capacity;
  }
}

size_t WriteCallback(char* data, size_t size, size_t nmemb, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  size_t n = size * nmemb;
  if (t->in_headers) StartBody(t);
  Response& r = *t->response;
  if (!t->success) {
    if (r.body.size() + n > kMaxErrorBody) return 0;  // absurd error body: abort
    r.body.append(data, n);
    return n;
  }
  const size_t total = n;
  if (t->to_skip > 0) {
    const size_t skip =
        static_cast<size_t>(std::min<int64_t>(t->to_skip, static_cast<int64_t>(n)));
    t->to_skip -= static_cast<int64_t>(skip);
    data += skip;
    n -= skip;
  }
  if (n == 0) return total;
  const Request& req = *t->request;
  int64_t room =
      t->limit < 0 ? std::numeric_limits<int64_t>::max() : t->limit - r.written;
  const bool full_answer_to_range = req.ranged && r.status == 200;
  if (static_cast<int64_t>(n) > room) {
    if (full_answer_to_range) {
      // We have the whole slice; the rest of the object is not wanted.
      n = static_cast<size_t>(room);
      t->done_early = true;
    } else {
      t->overflow = true;
      return 0;
    }
  }
  if (req.out != nullptr) {
    std::memcpy(req.out + r.written, data, n);
  } else {
    r.body.append(data, n);
  }
  r.written += static_cast<int64_t>(n);
  if (t->done_early) return 0;  // abort the transfer: CURLE_WRITE_ERROR, handled
  return total;
}

size_t ReadCallback(char* buffer, size_t size, size_t nitems, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  const std::string_view body = t->request->body;
  const size_t n = std::min(size * nitems, body.size() - t->upload_pos);
  std::memcpy(buffer, body.data() + t->upload_pos, n);
  t->upload_pos += n;
  return n;
}

int SeekCallback(void* userdata, curl_off_t offset, int origin) {
  auto* t = static_cast<Transfer*>(userdata);
  if (origin != SEEK_SET || offset < 0 ||
      static_cast<size_t>(offset) > t->request->body.size()) {
    return CURL_SEEKFUNC_CANTSEEK;
  }
  t->upload_pos = static_cast<size_t>(offset);
  return CURL_SEEKFUNC_OK;
}

class CurlSlist {
 public:
  ~CurlSlist() {
    if (list_ != nullptr) curl_slist_free_all(list_);
  }
  bool Append(const std::string& line) {
    curl_slist* next = curl_slist_append(list_, line.c_str());
    if (next == nullptr) return false;
    list_ = next;
    return true;
  }
  curl_slist* get() const { return list_; }

 private:
  curl_slist* list_ = nullptr;
};

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

struct S3Client::Impl {
  std::string bucket;
  S3Options options;
  std::shared_ptr<CredentialsSource> credentials;
  internal::ParsedEndpoint endpoint;
  S3ClientStats stats;

  std::mutex pool_mutex;
  std::vector<CURL*> pool;
  std::unique_ptr<std::counting_semaphore<>> slots;

  std::mutex rng_mutex;
  std::mt19937_64 rng{std::random_device{}()};

  ~Impl() {
    for (CURL* h : pool) curl_easy_cleanup(h);
  }

  std::string ObjectUri(std::string_view key) const {
    std::string uri = "s3://" + bucket + "/";
    uri += key;
    return uri;
  }

  CURL* AcquireHandle() {
    {
      std::lock_guard<std::mutex> lock(pool_mutex);
      if (!pool.empty()) {
        CURL* h = pool.back();
        pool.pop_back();
        return h;
      }
    }
    return curl_easy_init();
  }

  void ReleaseHandle(CURL* h, bool reusable) {
    if (!reusable) {
      curl_easy_cleanup(h);
      return;
    }
    // Reset drops options but keeps the live connection for the next request.
    curl_easy_reset(h);
    std::lock_guard<std::mutex> lock(pool_mutex);
    pool.push_back(h);
  }

  double RandomUnit() {
    std::lock_guard<std::mutex> lock(rng_mutex);
    return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  }

  // One attempt. Returns the curl code; fills `response`.
  CURLcode Perform(const Request& req, const internal::RequestTarget& target,
                   const std::vector<std::pair<std::string, std::string>>& auth_headers,
                   Response* response, bool* overflow, std::string* curl_error) {
    struct SlotGuard {
      std::counting_semaphore<>* s;
      explicit SlotGuard(std::counting_semaphore<>* sem) : s(sem) { s->acquire(); }
      ~SlotGuard() { s->release(); }
    } slot(slots.get());

    CURL* h = AcquireHandle();
    if (h == nullptr) {
      *curl_error = "curl_easy_init failed";
      return CURLE_FAILED_INIT;
    }
    Transfer t;
    t.request = &req;
    t.response = response;

    CurlSlist headers;
    bool ok = headers.Append("Host: " + target.host_header) &&
              headers.Append("Expect:") && headers.Append("Accept:") &&
              headers.Append("Content-Type:");
    for (const auto& [name, value] : req.headers)
      ok = ok && headers.Append(name + ": " + value);
    for (const auto& [name, value] : auth_headers)
      ok = ok && headers.Append(name + ": " + value);
    if (!ok) {
      ReleaseHandle(h, true);
      *curl_error = "out of memory building headers";
      return CURLE_OUT_OF_MEMORY;
    }

    char errbuf[CURL_ERROR_SIZE];
    errbuf[0] = '\0';
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_URL, target.url.c_str());
    curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "lance-cpp");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(
        h, CURLOPT_CONNECTTIMEOUT_MS,
        static_cast<long>(std::max<int64_t>(1, options.connect_timeout.count())));
    curl_easy_setopt(
        h, CURLOPT_TIMEOUT_MS,
        static_cast<long>(std::max<int64_t>(0, options.request_timeout.count())));
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(
        h, CURLOPT_LOW_SPEED_TIME,
        static_cast<long>(std::max<int64_t>(1, options.stall_timeout.count() / 1000)));
    if (options.allow_invalid_certificates) {
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, HeaderCallback);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, WriteCallback);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);

    if (req.method == "HEAD") {
      curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (req.method == "PUT") {
      curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(h, CURLOPT_READFUNCTION, ReadCallback);
      curl_easy_setopt(h, CURLOPT_READDATA, &t);
      curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, SeekCallback);
      curl_easy_setopt(h, CURLOPT_SEEKDATA, &t);
      curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE,
                       static_cast<curl_off_t>(req.body.size()));
    } else if (req.method == "POST") {
      curl_easy_setopt(h, CURLOPT_POST, 1L);
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(req.body.size()));
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.empty() ? "" : req.body.data());
    } else if (req.method != "GET") {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
    }

    CURLcode rc = curl_easy_perform(h);
    if (t.in_headers && rc == CURLE_OK) StartBody(&t);  // bodiless answer
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    if (code != 0) response->status = static_cast<int>(code);
    if (rc == CURLE_WRITE_ERROR && t.done_early) rc = CURLE_OK;
    *overflow = t.overflow;
    if (rc != CURLE_OK) {
      *curl_error = errbuf[0] != '\0' ? std::string(errbuf) : curl_easy_strerror(rc);
    }
    // A handle whose transfer failed mid-way may hold a broken connection; curl closes
    // those itself, so the handle stays reusable either way.
    ReleaseHandle(h, true);
    return rc;
  }

  // Runs `req` with retries, signing each attempt. On success returns the response
  // (2xx, or a status the caller declared acceptable through `accept`).
  Result<Response> Execute(
      const Request& req,
      const std::function<bool(int status, const S3Error&)>& accept = {},
      const std::function<std::optional<S3Error>(const Response&)>& body_error = {},
      int* attempts_out = nullptr) {
    const std::string uri =
        req.uri_for_messages.empty() ? ObjectUri(req.key) : req.uri_for_messages;
    const auto target =
        internal::BuildRequestTarget(endpoint, options.virtual_hosted_style, bucket,
                                     req.key, req.bucket_level, req.query);
    const bool is_body_method = req.method == "PUT" || req.method == "POST";
    std::string payload_hash;
    if (!is_body_method) {
      payload_hash = std::string(kEmptyPayloadSha256);
    } else if (options.unsigned_payload) {
      payload_hash = std::string(kUnsignedPayload);
    } else {
      payload_hash = Sha256Hex(req.body);
    }

    const auto start = std::chrono::steady_clock::now();
    int attempts = 0;
    int retries = 0;
    int resolve_failures = 0;
    bool refreshed = false;
    std::shared_ptr<const AwsCredentials> refreshed_creds;

    while (true) {
      std::shared_ptr<const AwsCredentials> creds;
      if (refreshed_creds != nullptr) {
        creds = std::move(refreshed_creds);
        refreshed_creds = nullptr;
      } else {
        auto current = credentials->Current();
        if (!current.ok()) {
          LANCE_LOG(Warn, "s3") << "S3 " << req.op << " of " << uri
                                << ": no credentials from " << credentials->ToString() << ": "
                                << current.status().ToString();
          return current.status().WithContext("S3 " + std::string(req.op) + " of " + uri +
                                              ": getting credentials");
        }
        creds = *current;
      }
      std::vector<std::pair<std::string, std::string>> auth_headers;
      if (!options.skip_signature && creds != nullptr && !creds->access_key_id.empty()) {
        SigV4Request sreq;
        sreq.method = req.method;
        sreq.host = target.host_header;
        sreq.path = target.raw_path;
        sreq.query = req.query;
        sreq.headers = req.headers;
        sreq.payload_sha256_hex = payload_hash;
        const std::string region = options.region.empty() ? "us-east-1" : options.region;
        auto signed_headers =
            SignRequest(sreq, *creds, region, "s3", std::chrono::system_clock::now());
        if (!signed_headers.ok()) {
          return signed_headers.status().WithContext("S3 " + std::string(req.op) +
                                                     " of " + uri + ": signing");
        }
        auth_headers = std::move(*signed_headers);
      }

      ++attempts;
      if (attempts_out != nullptr) *attempts_out = attempts;
      stats.requests.fetch_add(1, std::memory_order_relaxed);
      Response resp;
      bool overflow = false;
      std::string curl_error;
      const CURLcode rc =
          Perform(req, target, auth_headers, &resp, &overflow, &curl_error);
      // One line per attempt; the credentials only in their redacted form.
      LANCE_LOG(Debug, "s3") << req.method << " " << uri << ": "
                             << (rc == CURLE_OK ? "HTTP " + std::to_string(resp.status)
                                                : "curl error " + std::to_string(static_cast<int>(rc)))
                             << " (" << req.op << ", attempt " << attempts << ", "
                             << (creds != nullptr && !creds->access_key_id.empty()
                                     ? creds->ToString()
                                     : std::string("unsigned"))
                             << ")";

      bool retry = false;
      Status final_error;
      if (overflow) {
        return Status::IOError("S3 " + std::string(req.op) + " of " + uri +
                               ": the server sent more bytes than requested");
      }
      if (rc != CURLE_OK) {
        const bool resolve = internal::IsResolveFailure(rc);
        if (resolve) ++resolve_failures;
        retry = internal::IsRetryableCurlCode(rc) || (resolve && resolve_failures <= 1);
        std::string msg = "S3 " + std::string(req.op) + " of " + uri + ": " + curl_error +
                          " (curl error " + std::to_string(static_cast<int>(rc)) + ")";
        if (!retry) {
          if (attempts > 1) {
            char buf[64];
            std::snprintf(buf, sizeof(buf), ", after %d attempts in %.1f s", attempts,
                          SecondsSince(start));
            msg += buf;
          }
          LANCE_LOG(Warn, "s3") << msg;
          return resolve ? Status::Unavailable(std::move(msg), /*retryable=*/false)
                         : Status::IOError(std::move(msg));
        }
        final_error = Status::Unavailable(std::move(msg));
      } else {
        std::optional<S3Error> err;
        if (resp.status >= 200 && resp.status < 300) {
          if (body_error) err = body_error(resp);
          if (!err) {
            stats.bytes_received.fetch_add(resp.written, std::memory_order_relaxed);
            stats.bytes_sent.fetch_add(static_cast<int64_t>(req.body.size()),
                                       std::memory_order_relaxed);
            return resp;
          }
        } else {
          err = internal::ParseErrorBody(resp.body, resp.status);
          if (!err) {
            err = S3Error{};
            err->http_status = resp.status;
            err->code = resp.error_code_header;
          }
        }
        if (err->request_id.empty()) err->request_id = resp.request_id;
        if (accept && accept(err->http_status, *err)) {
          resp.status = err->http_status;
          return resp;
        }
        RetryClass cls = internal::ClassifyHttpError(err->http_status, err->code);
        if ((cls == RetryClass::kRefreshCredentials ||
             cls == RetryClass::kMaybeRefreshCredentials) &&
            !refreshed && creds != nullptr && !creds->access_key_id.empty()) {
          refreshed = true;
          stats.credential_refreshes.fetch_add(1, std::memory_order_relaxed);
          LANCE_LOG(Info, "s3") << req.op << " of " << uri << ": HTTP " << err->http_status
                                << (err->code.empty() ? "" : " ") << err->code << " with "
                                << creds->ToString()
                                << "; asking " << credentials->ToString()
                                << " for fresh credentials";
          auto fresh = credentials->OnRejected(*creds);
          if (!fresh.ok()) {
            Status original = MakeHttpError(req, uri, *err, attempts, start);
            LANCE_LOG(Warn, "s3") << original.message() << " with " << creds->ToString()
                                  << "; no fresh credentials: " << fresh.status().message();
            // A plain AccessDenied is most often a real permission problem: a source
            // that cannot refresh must not turn it into a credentials story.
            if (cls == RetryClass::kMaybeRefreshCredentials) return original;
            return Status(original.code(),
                          original.message() + "; refreshing credentials failed: " +
                              fresh.status().message(),
                          original.retryable());
          }
          refreshed_creds = *fresh;
          LANCE_LOG(Info, "s3") << req.op << " of " << uri << ": retrying with "
                                << refreshed_creds->ToString();
          ++retries;
          stats.retries.fetch_add(1, std::memory_order_relaxed);
          continue;  // no backoff: the cause was the credentials, not the load
        }
        if (cls != RetryClass::kRetry) {
          Status error = MakeHttpError(req, uri, *err, attempts, start);
          // Absent objects and lost create races are answers, not failures: debug only.
          if (error.IsNotFound() || error.IsAlreadyExists()) {
            LANCE_LOG(Debug, "s3") << error.message();
          } else {
            LANCE_LOG(Warn, "s3") << error.message() << " ("
                                  << (creds != nullptr && !creds->access_key_id.empty()
                                          ? creds->ToString()
                                          : std::string("unsigned"))
                                  << ")";
          }
          return error;
        }
        retry = true;
        final_error = MakeHttpError(req, uri, *err, attempts, start);
      }

      // Transient failure: back off, unless the budget is spent.
      const auto elapsed = std::chrono::steady_clock::now() - start;
      if (retries >= options.max_retries || elapsed >= options.retry_timeout) {
        std::string msg = final_error.message();
        if (rc != CURLE_OK && attempts > 1) {
          char buf[64];
          std::snprintf(buf, sizeof(buf), ", after %d attempts in %.1f s", attempts,
                        SecondsSince(start));
          msg += buf;
        }
        LANCE_LOG(Warn, "s3") << msg << " (retries exhausted)";
        return Status::Unavailable(std::move(msg), /*retryable=*/true);
      }
      auto delay = internal::BackoffDelay(retries, options.initial_backoff,
                                          options.max_backoff, RandomUnit());
      const auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
          options.retry_timeout - elapsed);
      delay = std::min(delay, remaining);
      LANCE_LOG(Info, "s3") << final_error.message() << "; retry " << (retries + 1) << " of "
                            << options.max_retries << " in " << delay.count() << " ms";
      if (delay.count() > 0) std::this_thread::sleep_for(delay);
      ++retries;
      stats.retries.fetch_add(1, std::memory_order_relaxed);
    }
  }

  Status MakeHttpError(const Request& req, const std::string& uri, const S3Error& err,
                       int attempts, std::chrono::steady_clock::time_point start) {
    StatusCode code = internal::MapS3ErrorCode(err, req.context);
    std::string msg =
        internal::FormatS3ErrorMessage(req.op, uri, err, attempts, SecondsSince(start));
    if (err.http_status == 412 && req.context == ErrorContext::kPinnedRead) {
      msg += ": object changed since it was opened";
    } else if (err.http_status == 404 && err.code.empty()) {
      msg += ": no such key or bucket";
    } else if (err.code == "NoSuchBucket") {
      msg += ": the bucket does not exist";
    } else if (err.code == "NoSuchKey") {
      msg += ": the object does not exist";
    }
    const bool retryable = code == StatusCode::kUnavailable;
    return Status(code, std::move(msg), retryable);
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
  std::call_once(g_curl_init_once,
                 [] { g_curl_init_result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (g_curl_init_result != CURLE_OK) {
    return Status::IOError("S3 client: curl_global_init failed");
  }
  auto impl = std::make_unique<Impl>();
  auto endpoint = internal::ResolveEndpoint(options, bucket);
  if (!endpoint.ok())
    return endpoint.status().WithContext("S3 client for bucket " + bucket);
  impl->endpoint = std::move(*endpoint);
  impl->bucket = std::move(bucket);
  impl->options = std::move(options);
  impl->credentials = std::move(credentials);
  impl->slots = std::make_unique<std::counting_semaphore<>>(
      std::max<ptrdiff_t>(1, impl->options.max_connections));
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
  Request req;
  req.op = "GetObject";
  req.method = "GET";
  req.key = key;
  req.out = out;
  // length -1: the caller promised room for the rest; we cannot check that bound,
  // so GetObject (which sizes its buffer) is the safe form.
  req.out_capacity = length < 0 ? std::numeric_limits<int64_t>::max() : length;
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
  // A range starting at or past the end is 416: that read returns no bytes.
  auto accept = [](int status, const S3Error&) { return status == 416; };
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req, accept));
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
  Request req;
  req.op = "GetObject";
  req.method = "GET";
  req.key = key;
  const std::string range = internal::RangeHeader(offset, -1);
  if (!range.empty()) {
    req.ranged = true;
    req.range_offset = offset;
    req.headers.emplace_back("range", range);
  }
  if (!if_match.empty()) {
    req.headers.emplace_back("if-match", if_match);
    req.context = ErrorContext::kPinnedRead;
  }
  auto accept = [](int status, const S3Error&) { return status == 416; };
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req, accept));
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
  int attempts = 0;
  auto resp = impl_->Execute(req, {}, {}, &attempts);
  if (resp.ok()) return resp->etag;
  if (if_none_match && attempts > 1 && resp.status().IsAlreadyExists()) {
    // An earlier attempt may have created the object and lost only its answer; then
    // the 412 is about our own write. A single-part PUT's ETag is the body's MD5, so a
    // matching ETag means the object holds exactly our bytes.
    auto info = HeadObject(key);
    if (info.ok() && info->etag == "\"" + internal::Md5Hex(body) + "\"")
      return info->etag;
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
  LANCE_ASSIGN_OR_RAISE(Response resp, impl_->Execute(req, {}, ErrorIn200));
  auto doc = ParseXml(resp.body);
  if (!doc.ok() || doc->name != "CompleteMultipartUploadResult") {
    return Status::IOError("S3 CompleteMultipartUpload of " + ObjectUri(key) +
                           ": malformed answer");
  }
  return Status::OK();
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
      std::string msg = "S3 DeleteObjects of " + ObjectUri(f.key) + ": " + f.code;
      if (!f.message.empty()) msg += ": " + f.message;
      first_error = Status(code, std::move(msg));
    }
  }
  if (failed > 0) {
    return Status(first_error.code(), first_error.message() + " (" +
                                          std::to_string(failed) + " of " +
                                          std::to_string(keys.size()) + " keys failed)");
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
    Request head;
    head.op = "CreateBucket";
    head.method = "HEAD";
    head.bucket_level = true;
    head.uri_for_messages = "s3://" + impl_->bucket;
    head.context = ErrorContext::kBucket;
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
  Request req;
  req.op = "CreateBucket";
  req.method = "PUT";
  req.bucket_level = true;
  req.uri_for_messages = "s3://" + impl_->bucket;
  req.context = ErrorContext::kBucket;
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
  Request req;
  req.op = "DeleteBucket";
  req.method = "DELETE";
  req.bucket_level = true;
  req.uri_for_messages = "s3://" + impl_->bucket;
  req.context = ErrorContext::kBucket;
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
