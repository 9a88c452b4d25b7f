// SPDX-License-Identifier: Apache-2.0
/// \file sigv4.h (private to the io layer)
/// \brief AWS Signature Version 4 (header-based, AWS4-HMAC-SHA256) for S3 requests.
///
/// Groundwork for the S3 object store: builds the canonical request, the string to
/// sign and the `Authorization` header as described in the AWS documentation
/// "Authenticating Requests: Using the Authorization Header (AWS Signature Version 4)".
/// The transport is not part of this file: the caller sends the request with the
/// headers it passed in SigV4Request, a `Host` header equal to SigV4Request::host,
/// the path encoded with S3CanonicalUri() and the query encoded with
/// S3CanonicalQuery() (any parameter order on the wire is fine), plus the headers
/// returned by SignRequest().

#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lance/io/credentials.h"
#include "lance/result.h"

namespace lance::io::s3 {

/// \brief The parts of an HTTP request that SigV4 signs.
struct SigV4Request {
  /// \brief HTTP method, e.g. "GET", "PUT" (used verbatim; must not be empty).
  std::string method;
  /// \brief Value of the Host header, e.g. "bucket.s3.us-east-1.amazonaws.com"
  /// (with ":port" when the transport sends a non-default port).
  std::string host;
  /// \brief The RAW (not percent-encoded) absolute path, e.g. "/test$file.text" or
  /// "/bucket/key with space". It must start with '/' (an empty path means "/").
  /// The signer percent-encodes each segment exactly once (S3 rules: no
  /// double-encoding, no "."/".." normalisation, '/' kept); send the same bytes
  /// on the wire, as produced by S3CanonicalUri().
  std::string path;
  /// \brief RAW (not percent-encoded) query parameters, in any order. A parameter
  /// without a value (`?lifecycle`) has an empty value. Repeated keys are allowed.
  std::vector<std::pair<std::string, std::string>> query;
  /// \brief Extra request headers to send AND sign (e.g. "Range", "Content-Type",
  /// "x-amz-storage-class"). Names are case-insensitive; repeated names are joined
  /// with ','. Must not contain Authorization, Host, X-Amz-Date,
  /// X-Amz-Content-Sha256 or X-Amz-Security-Token: the signer owns those.
  std::vector<std::pair<std::string, std::string>> headers;
  /// \brief Lower-case hex SHA-256 of the body (see Sha256Hex()), or the literal
  /// "UNSIGNED-PAYLOAD". Becomes the x-amz-content-sha256 header.
  std::string payload_sha256_hex;
};

/// \brief Intermediate values of a signature, for diagnostics and tests.
///
/// Contains no secret (the signing key is not exposed).
struct SigV4Parts {
  std::string amz_date;          ///< "YYYYMMDDTHHMMSSZ"
  std::string credential_scope;  ///< "<date>/<region>/<service>/aws4_request"
  std::string canonical_request;
  std::string string_to_sign;
  std::string signed_headers;  ///< "host;range;x-amz-content-sha256;x-amz-date"
  std::string signature;       ///< lower-case hex
  std::string authorization;   ///< value of the Authorization header
};

/// \brief Value of the empty body's SHA-256, the payload hash of bodiless requests.
inline constexpr std::string_view kEmptyPayloadSha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
/// \brief Payload hash that tells S3 the body is not signed.
inline constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";

/// \brief Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

/// \brief Percent-encodes `data` byte by byte as SigV4 requires: the RFC 3986
/// unreserved characters A-Z a-z 0-9 '-' '.' '_' '~' are kept, every other byte
/// becomes "%XY" with upper-case hex (space is "%20", never '+'). '/' is kept unless
/// `encode_slash` (true for query keys and values, false for paths).
std::string UriEncode(std::string_view data, bool encode_slash);

/// \brief The canonical (and on-the-wire) form of a raw S3 path: "/" when empty,
/// otherwise UriEncode(path, /*encode_slash=*/false).
std::string S3CanonicalUri(std::string_view raw_path);

/// \brief The canonical query string: keys and values UriEncode'd (with '/'),
/// sorted by encoded key then encoded value, joined as "k=v&k2=" (a parameter
/// without value keeps its '='). Empty when there is no parameter.
std::string S3CanonicalQuery(
    const std::vector<std::pair<std::string, std::string>>& query);

/// \brief Formats `now` (UTC, truncated to whole seconds) as "YYYYMMDDTHHMMSSZ".
std::string FormatAmzDate(std::chrono::system_clock::time_point now);

/// \brief Computes the signature and all its intermediate values.
///
/// Errors (Status::Invalid) on a missing method/host/credential, a malformed payload
/// hash, region or service, a path without leading '/', an invalid header name, a
/// header value containing CR/LF/NUL, or a header that the signer owns. Error
/// messages never contain a credential or a header value.
Result<SigV4Parts> ComputeSigV4(const SigV4Request& request,
                                const AwsCredentials& credentials,
                                std::string_view region, std::string_view service,
                                std::chrono::system_clock::time_point now);

/// \brief Signs `request` and returns the headers to add to it, in this order:
/// `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token` (only when
/// credentials.session_token is set) and `Authorization`.
///
/// Always signs host, x-amz-content-sha256, x-amz-date, x-amz-security-token (when
/// present) and every header of request.headers. `service` is "s3" for S3.
Result<std::vector<std::pair<std::string, std::string>>> SignRequest(
    const SigV4Request& request, const AwsCredentials& credentials,
    std::string_view region, std::string_view service,
    std::chrono::system_clock::time_point now);

}  // namespace lance::io::s3
