// SPDX-License-Identifier: Apache-2.0
// Azure Storage Shared Key authorization (private to the io layer): the string to sign of
// a Blob service request and its "SharedKey <account>:<signature>" header, plus the small
// encoding and crypto helpers the SAS signer shares (base64, HMAC-SHA256, URL encoding,
// dates).
//
// String to sign (Blob service, version 2009-09-19 and later; "Authorize with Shared
// Key"):
//   VERB, Content-Encoding, Content-Language, Content-Length (empty when 0), Content-MD5,
//   Content-Type, Date, If-Modified-Since, If-Match, If-None-Match, If-Unmodified-Since,
//   Range, each followed by "\n", then CanonicalizedHeaders and CanonicalizedResource.
// CanonicalizedHeaders: every x-ms-* header, name lower-cased, sorted, "name:value\n"
// with the value's runs of blanks collapsed and trimmed. CanonicalizedResource: "/"
// account then the request's encoded path (for the emulator's path-style URLs that path
// starts with the account again: "/devstoreaccount1/devstoreaccount1/container/blob"),
// then per query parameter, sorted by lower-cased name, "\n" name ":" decoded values
// (several values of one name sorted and joined by ',').
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lance/io/http/http_client.h"
#include "lance/result.h"

namespace lance::io::azure {

/// \brief Standard base64 (with padding) of `data`.
std::string Base64Encode(std::string_view data);
/// \brief Decodes standard base64 (padding required, blanks not allowed).
/// \return the bytes; Invalid("... is not valid base64") never quoting the input.
Result<std::string> Base64Decode(std::string_view text);
/// \brief The raw 32-byte HMAC-SHA256 of `data` under `key`.
std::string HmacSha256(std::string_view key, std::string_view data);
/// \brief The raw 16-byte MD5 of `data`.
std::string Md5(std::string_view data);

/// \brief Percent-encodes every byte but the RFC 3986 unreserved characters (and '/'
/// unless `encode_slash`), upper-case hex.
std::string UrlEncode(std::string_view data, bool encode_slash);
/// \brief Decodes %XY escapes (and '+' as a space when `plus_is_space`); a malformed
/// escape is kept as it is.
std::string UrlDecode(std::string_view data, bool plus_is_space = false);

/// \brief "Sun, 06 Nov 1994 08:49:37 GMT" (the x-ms-date header).
std::string FormatRfc1123(std::chrono::system_clock::time_point time);
/// \brief Parses an RFC 1123 date ("Last-Modified"). \return milliseconds since the
/// epoch; 0 when malformed.
int64_t ParseRfc1123Millis(std::string_view text);
/// \brief "2024-01-31T12:00:00Z" (SAS st/se, KeyInfo Start/Expiry).
std::string FormatIso8601(std::chrono::system_clock::time_point time);
/// \brief Parses "2024-01-31T12:00:00Z" (fractional seconds allowed). \return Invalid.
Result<std::chrono::system_clock::time_point> ParseIso8601(std::string_view text);

/// \brief What Shared Key signs of one request.
struct SharedKeyRequest {
  std::string method;
  /// \brief The account whose key signs ("devstoreaccount1").
  std::string account;
  /// \brief The encoded path as sent, from the first '/' ("/container/blob%20name").
  std::string path;
  /// \brief Query parameters, raw (not encoded).
  std::vector<std::pair<std::string, std::string>> query;
  /// \brief Every header sent (names in any case); x-ms-date among them.
  http::Headers headers;
  /// \brief Body bytes (Content-Length).
  int64_t content_length = 0;
};

/// \brief The string to sign of `request` (see the file comment).
std::string SharedKeyStringToSign(const SharedKeyRequest& request);

/// \brief The Authorization header value "SharedKey <account>:<base64 signature>".
/// \return Invalid when `account_key` is not base64 (naming no value).
Result<std::string> SharedKeyAuthorization(const SharedKeyRequest& request,
                                           std::string_view account_key);

}  // namespace lance::io::azure
