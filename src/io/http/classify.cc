// SPDX-License-Identifier: Apache-2.0
// What the HTTP layer tells its protocols about a failure (retry classification) and
// what it lets into a log line (redaction). See lance/io/http/http_client.h.

#include <curl/curl.h>

#include <array>
#include <string>
#include <string_view>

#include "io/http/slice_sink.h"
#include "lance/core/ascii.h"
#include "lance/io/http/http_client.h"
#include "lance/str_cat.h"

namespace lance::io::http {

namespace {

struct CodeKind {
  CURLcode code;
  TransportError kind;
};

// Every libcurl code with a kind of its own; any other is kOther.
constexpr std::array<CodeKind, 20> kCodeKinds = {{
    {CURLE_OK, TransportError::kNone},
    {CURLE_COULDNT_CONNECT, TransportError::kConnect},
    {CURLE_COULDNT_RESOLVE_HOST, TransportError::kResolve},
    {CURLE_COULDNT_RESOLVE_PROXY, TransportError::kResolve},
    {CURLE_OPERATION_TIMEDOUT, TransportError::kTimeout},
    {CURLE_SEND_ERROR, TransportError::kConnectionLost},
    {CURLE_RECV_ERROR, TransportError::kConnectionLost},
    {CURLE_GOT_NOTHING, TransportError::kConnectionLost},
    {CURLE_PARTIAL_FILE, TransportError::kConnectionLost},
    {CURLE_HTTP2, TransportError::kConnectionLost},
    {CURLE_HTTP2_STREAM, TransportError::kConnectionLost},
    {CURLE_SSL_CONNECT_ERROR, TransportError::kTlsHandshake},
    {CURLE_PEER_FAILED_VERIFICATION, TransportError::kTlsVerification},
    {CURLE_SSL_CERTPROBLEM, TransportError::kTlsVerification},
    {CURLE_SSL_CIPHER, TransportError::kTlsVerification},
    {CURLE_SSL_CACERT_BADFILE, TransportError::kTlsVerification},
    {CURLE_SSL_ISSUER_ERROR, TransportError::kTlsVerification},
    {CURLE_SSL_CRL_BADFILE, TransportError::kTlsVerification},
    {CURLE_SSL_PINNEDPUBKEYNOTMATCH, TransportError::kTlsVerification},
    {CURLE_SSL_INVALIDCERTSTATUS, TransportError::kTlsVerification},
}};

}  // namespace

TransportError ClassifyTransportCode(int curl_code) {
  for (const CodeKind& entry : kCodeKinds) {
    if (static_cast<int>(entry.code) == curl_code) return entry.kind;
  }
  return TransportError::kOther;
}

bool IsTransientTransportError(TransportError error) {
  return error == TransportError::kConnect || error == TransportError::kResolve ||
         error == TransportError::kTimeout || error == TransportError::kConnectionLost;
}

bool IsRetryableHttpStatus(int status) {
  return status == 429 || status == 500 || status == 502 || status == 503 ||
         status == 504;
}

bool IsSecretHeader(std::string_view name) {
  const std::string lower = AsciiToLower(name);
  static constexpr std::array<std::string_view, 4> kExact = {
      "authorization", "proxy-authorization", "cookie", "set-cookie"};
  for (std::string_view exact : kExact) {
    if (lower == exact) return true;
  }
  // x-amz-security-token, x-api-key, x-ms-...-key, x-goog-...-signature, ...: a name
  // that says what it carries is treated as carrying it.
  static constexpr std::array<std::string_view, 7> kParts = {
      "token", "secret", "password", "signature", "key", "credential", "authorization"};
  for (std::string_view part : kParts) {
    if (lower.find(part) != std::string::npos) return true;
  }
  return false;
}

bool IsSecretQueryParameter(std::string_view name) {
  // Azure's SAS signature ("sig"); the rest as for headers (X-Amz-Signature,
  // X-Amz-Security-Token, X-Amz-Credential, access_token, ...).
  return EqualsIgnoreAsciiCase(name, "sig") || IsSecretHeader(name);
}

namespace {

// `query` (without '?', up to any '#') with the values of secret parameters redacted.
std::string RedactQuery(std::string_view query) {
  std::string out;
  size_t pos = 0;
  while (pos <= query.size()) {
    size_t end = query.find('&', pos);
    if (end == std::string_view::npos) end = query.size();
    const std::string_view param = query.substr(pos, end - pos);
    const size_t eq = param.find('=');
    if (pos > 0) out.push_back('&');
    if (eq != std::string_view::npos && IsSecretQueryParameter(param.substr(0, eq))) {
      StrAppend(&out, param.substr(0, eq + 1), "<redacted>");
    } else {
      out.append(param);
    }
    pos = end + 1;
  }
  return out;
}

}  // namespace

std::string RedactUrl(std::string_view url) {
  std::string out(url);
  const size_t scheme = url.find("://");
  if (scheme != std::string_view::npos) {
    const size_t host_start = scheme + 3;
    const size_t host_end = url.find_first_of("/?#", host_start);
    const size_t at =
        url.rfind('@', host_end == std::string_view::npos ? url.size() : host_end);
    if (at != std::string_view::npos && at >= host_start) {
      out = StrCat(url.substr(0, host_start), "***@", url.substr(at + 1));
    }
  }
  const size_t question = out.find('?');
  if (question == std::string::npos) return out;
  const size_t hash = out.find('#', question);
  const std::string tail = hash == std::string::npos ? "" : out.substr(hash);
  return StrCat(out.substr(0, question + 1),
                RedactQuery(std::string_view(out).substr(
                    question + 1,
                    hash == std::string::npos ? std::string::npos : hash - question - 1)),
                tail);
}

std::string DescribeHeaders(const Headers& headers) {
  std::string out;
  for (const auto& [name, value] : headers) {
    if (!out.empty()) out += ", ";
    // A URL in a header (x-ms-copy-source) may carry a SAS.
    StrAppend(&out, name, ": ",
              IsSecretHeader(name)                     ? std::string("<redacted>")
              : value.find("://") != std::string::npos ? RedactUrl(value)
                                                       : value);
  }
  return out;
}

std::string_view HttpResponse::Header(std::string_view name) const {
  return HeaderValue(headers, name);
}

}  // namespace lance::io::http
