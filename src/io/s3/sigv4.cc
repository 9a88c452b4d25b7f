// SPDX-License-Identifier: Apache-2.0
#include "io/s3/sigv4.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <ctime>
#include <map>

#include "io/http/canonical.h"
#include "lance/core/ascii.h"
#include "lance/io/http/http_client.h"
#include "lance/macros.h"
#include "lance/status.h"
#include "lance/str_cat.h"

namespace lance::io::s3 {
namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";
constexpr char kHexLower[] = "0123456789abcdef";

using Digest = std::array<unsigned char, SHA256_DIGEST_LENGTH>;

std::string ToHex(const unsigned char* data, size_t size) {
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out.push_back(kHexLower[data[i] >> 4]);
    out.push_back(kHexLower[data[i] & 0xF]);
  }
  return out;
}

Digest HmacSha256(std::string_view key, std::string_view data) {
  Digest out{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(),
       &len);
  return out;
}

std::string_view AsView(const Digest& d) {
  return {reinterpret_cast<const char*>(d.data()), d.size()};
}

/// Wipes key material when leaving scope.
struct Wiper {
  void* data;
  size_t size;
  ~Wiper() { OPENSSL_cleanse(data, size); }
};

// RFC 7230 token characters.
bool IsTokenChar(unsigned char c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
    return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) !=
         std::string_view::npos;
}

bool IsLowerHex64(std::string_view s) {
  if (s.size() != 64) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

/// Trims leading/trailing spaces and tabs, and collapses inner runs of them to one space.
std::string CanonicalHeaderValue(std::string_view v) {
  return http::CollapseBlanks(v, " \t");
}

// Scope parts are joined with '/', so a '/' (or a control character) inside one would
// forge another scope.
bool IsValidScopePart(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u > 0x20 && u < 0x7F && c != '/';
  });
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  Digest d{};
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), d.data(), &len, EVP_sha256(), nullptr);
  return ToHex(d.data(), d.size());
}

std::string UriEncode(std::string_view data, bool encode_slash) {
  return http::PercentEncode(data, encode_slash);
}

std::string S3CanonicalUri(std::string_view raw_path) {
  if (raw_path.empty()) return "/";
  return UriEncode(raw_path, /*encode_slash=*/false);
}

std::string S3CanonicalQuery(
    const std::vector<std::pair<std::string, std::string>>& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [k, v] : query)
    encoded.emplace_back(UriEncode(k, true), UriEncode(v, true));
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [k, v] : encoded) {
    if (!out.empty()) out.push_back('&');
    out += k;
    out.push_back('=');
    out += v;
  }
  return out;
}

std::string FormatAmzDate(std::chrono::system_clock::time_point now) {
  const std::time_t t =
      std::chrono::system_clock::to_time_t(std::chrono::floor<std::chrono::seconds>(now));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

namespace {

// Messages name the offending field, never a value or credential.
Status ValidateSigV4Inputs(const SigV4Request& request, const AwsCredentials& credentials,
                           std::string_view region, std::string_view service) {
  if (credentials.access_key_id.empty())
    return Status::Invalid("SigV4: empty access key id");
  if (credentials.secret_access_key.empty()) {
    return Status::Invalid("SigV4: empty secret access key");
  }
  for (char c : credentials.access_key_id) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7F || c == '/' || c == ',') {
      return Status::Invalid("SigV4: access key id contains an invalid character");
    }
  }
  for (char c : credentials.session_token) {
    if (c == '\r' || c == '\n' || c == '\0') {
      return Status::Invalid("SigV4: session token contains a control character");
    }
  }
  if (request.method.empty() ||
      !std::all_of(request.method.begin(), request.method.end(),
                   [](char c) { return IsTokenChar(static_cast<unsigned char>(c)); })) {
    return Status::Invalid("SigV4: missing or invalid HTTP method");
  }
  if (request.host.empty() ||
      request.host.find_first_of(" \t\r\n/", 0) != std::string::npos ||
      request.host.find('\0') != std::string::npos) {
    return Status::Invalid("SigV4: missing or invalid host");
  }
  if (!request.path.empty() && request.path.front() != '/') {
    return Status::Invalid("SigV4: path must start with '/'");
  }
  if (!IsValidScopePart(region))
    return Status::Invalid("SigV4: missing or invalid region");
  if (!IsValidScopePart(service))
    return Status::Invalid("SigV4: missing or invalid service");
  if (request.payload_sha256_hex != kUnsignedPayload &&
      !IsLowerHex64(request.payload_sha256_hex)) {
    return Status::Invalid(
        "SigV4: payload hash must be 64 lower-case hex digits or UNSIGNED-PAYLOAD");
  }
  return Status::OK();
}

// The caller's headers: lower-case name -> canonical value; std::map keeps them sorted.
Result<std::map<std::string, std::string>> CallerHeaders(const SigV4Request& request) {
  std::map<std::string, std::string> headers;
  for (const auto& [name, value] : request.headers) {
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) {
          return IsTokenChar(static_cast<unsigned char>(c));
        })) {
      return Status::Invalid("SigV4: invalid header name");
    }
    std::string lower = AsciiToLower(name);
    if (lower == "authorization" || lower == "host" || lower == "x-amz-date" ||
        lower == "x-amz-content-sha256" || lower == "x-amz-security-token") {
      return Status::Invalid("SigV4: header '" + lower + "' is set by the signer");
    }
    if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
      return Status::Invalid("SigV4: value of header '" + lower +
                             "' contains a control character");
    }
    auto [it, inserted] = headers.emplace(lower, CanonicalHeaderValue(value));
    if (!inserted) {
      it->second.push_back(',');
      it->second += CanonicalHeaderValue(value);
    }
  }
  return headers;
}

// The signing key chain (each key wiped once used) and the hex signature.
std::string Signature(const std::string& secret_access_key, std::string_view date,
                      std::string_view region, std::string_view service,
                      std::string_view string_to_sign) {
  std::string secret = "AWS4" + secret_access_key;
  Wiper wipe_secret{secret.data(), secret.size()};
  Digest k_date = HmacSha256(secret, date);
  Wiper wipe_date{k_date.data(), k_date.size()};
  Digest k_region = HmacSha256(AsView(k_date), region);
  Wiper wipe_region{k_region.data(), k_region.size()};
  Digest k_service = HmacSha256(AsView(k_region), service);
  Wiper wipe_service{k_service.data(), k_service.size()};
  Digest k_signing = HmacSha256(AsView(k_service), "aws4_request");
  Wiper wipe_signing{k_signing.data(), k_signing.size()};
  Digest sig = HmacSha256(AsView(k_signing), string_to_sign);
  return ToHex(sig.data(), sig.size());
}

}  // namespace

Result<SigV4Parts> ComputeSigV4(const SigV4Request& request,
                                const AwsCredentials& credentials,
                                std::string_view region, std::string_view service,
                                std::chrono::system_clock::time_point now) {
  LANCE_RETURN_NOT_OK(ValidateSigV4Inputs(request, credentials, region, service));
  LANCE_ASSIGN_OR_RAISE(auto headers, CallerHeaders(request));

  SigV4Parts parts;
  parts.amz_date = FormatAmzDate(now);
  const std::string date = parts.amz_date.substr(0, 8);
  headers["host"] = CanonicalHeaderValue(request.host);
  headers["x-amz-content-sha256"] = request.payload_sha256_hex;
  headers["x-amz-date"] = parts.amz_date;
  if (!credentials.session_token.empty()) {
    headers["x-amz-security-token"] = CanonicalHeaderValue(credentials.session_token);
  }

  std::string canonical_headers;
  for (const auto& [name, value] : headers) {
    canonical_headers += name;
    canonical_headers.push_back(':');
    canonical_headers += value;
    canonical_headers.push_back('\n');
    if (!parts.signed_headers.empty()) parts.signed_headers.push_back(';');
    parts.signed_headers += name;
  }

  // --- Canonical request.
  parts.canonical_request =
      StrCat(request.method, '\n', S3CanonicalUri(request.path), '\n',
             S3CanonicalQuery(request.query), '\n', canonical_headers, '\n',
             parts.signed_headers, '\n', request.payload_sha256_hex);

  // --- String to sign.
  parts.credential_scope = StrCat(date, '/', region, '/', service, "/aws4_request");
  parts.string_to_sign =
      StrCat(kAlgorithm, '\n', parts.amz_date, '\n', parts.credential_scope, '\n',
             Sha256Hex(parts.canonical_request));

  parts.signature = Signature(credentials.secret_access_key, date, region, service,
                              parts.string_to_sign);
  parts.authorization = StrCat(
      kAlgorithm, " Credential=", credentials.access_key_id, '/', parts.credential_scope,
      ",SignedHeaders=", parts.signed_headers, ",Signature=", parts.signature);
  return parts;
}

Result<std::vector<std::pair<std::string, std::string>>> SignRequest(
    const SigV4Request& request, const AwsCredentials& credentials,
    std::string_view region, std::string_view service,
    std::chrono::system_clock::time_point now) {
  auto parts = ComputeSigV4(request, credentials, region, service, now);
  if (!parts.ok()) return parts.status();
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("x-amz-date", parts->amz_date);
  out.emplace_back("x-amz-content-sha256", request.payload_sha256_hex);
  if (!credentials.session_token.empty()) {
    out.emplace_back("x-amz-security-token", credentials.session_token);
  }
  out.emplace_back("Authorization", std::move(parts->authorization));
  return out;
}

}  // namespace lance::io::s3
