// SPDX-License-Identifier: Apache-2.0
// Pure pieces of the S3 client, separated from the transport so they can be tested
// offline: endpoint parsing and URL building, error classification and mapping,
// backoff, response-body parsing and small encodings.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/s3/s3_client.h"
#include "lance/io/s3/s3_options.h"
#include "lance/result.h"
#include "lance/status.h"

namespace lance::io::s3::internal {

/// \brief The parts of an endpoint URL.
struct ParsedEndpoint {
  std::string scheme;     ///< "http" or "https" (lower case)
  std::string authority;  ///< host[:port] as written (IPv6 in brackets)
  /// \brief Value of the Host header: the authority without a default port.
  std::string host_header;
  std::string base_path;  ///< "" or "/base" (no trailing '/')
};

/// \brief Parses "scheme://host[:port][/base/path]". \return Invalid (without
/// quoting the endpoint's userinfo, if any) when malformed.
Result<ParsedEndpoint> ParseEndpoint(std::string_view endpoint);

/// \brief Where one request goes.
struct RequestTarget {
  std::string url;  ///< what curl is given: scheme://authority + wire path [+ ?query]
  std::string host_header;  ///< the signed and sent Host
  std::string raw_path;     ///< the unencoded path, for the signer
};

/// \brief Builds the target of a request on `key` (or on the bucket itself when
/// `bucket_level`): path style "<endpoint>/<bucket>/<key>", virtual-hosted with custom
/// endpoint "<endpoint>/<key>", AWS defaults without one.
RequestTarget BuildRequestTarget(
    const ParsedEndpoint& endpoint, bool virtual_hosted, const std::string& bucket,
    std::string_view key, bool bucket_level,
    const std::vector<std::pair<std::string, std::string>>& query);

/// \brief The endpoint to use for `options` and `bucket` (the AWS default when
/// options.endpoint is empty: https://s3.<region>.amazonaws.com, or
/// https://<bucket>.s3.<region>.amazonaws.com when virtual-hosted).
Result<ParsedEndpoint> ResolveEndpoint(const S3Options& options,
                                       const std::string& bucket);

/// \brief An S3 error answer (from the <Error> body, or synthesised for bodiless ones).
struct S3Error {
  int http_status = 0;
  std::string code;
  std::string message;
  std::string request_id;
};

/// \brief Parses an <Error> document. \return nullopt when the body is not one.
std::optional<S3Error> ParseErrorBody(std::string_view body, int http_status);

enum class RetryClass {
  kFinal,               ///< return the mapped error
  kRetry,               ///< transient: back off and retry
  kRefreshCredentials,  ///< ask CredentialsSource::OnRejected, retry once
  /// \brief 403 AccessDenied (or a bodiless 403): maybe the credentials, maybe a real
  /// denial. Ask OnRejected once; if it cannot refresh, the original error stands as is.
  kMaybeRefreshCredentials,
};

/// \brief Classifies an HTTP error answer per the retry policy of s3_client.h.
RetryClass ClassifyHttpError(int http_status, std::string_view code);

/// \brief Whether a libcurl result code is a transient transport failure worth
/// retrying. Resolve failures (CURLE_COULDNT_RESOLVE_HOST/PROXY) are NOT in this set:
/// the client retries them at most once (see IsResolveFailure), since a name that does
/// not resolve is almost always a configuration error and 10 retries with backoff would
/// only delay the report.
bool IsRetryableCurlCode(int curl_code);
bool IsResolveFailure(int curl_code);

/// \brief What the caller was doing, which decides how some codes map.
enum class ErrorContext {
  kDefault,
  kConditionalCreate,  ///< PUT If-None-Match: *   (412 -> AlreadyExists)
  kPinnedRead,         ///< GET If-Match: <etag>   (412 -> IOError "object changed")
  kBucket,             ///< bucket-level operation
};

/// \brief Maps a final S3 error answer to a StatusCode.
StatusCode MapS3ErrorCode(const S3Error& error, ErrorContext context);

/// \brief "S3 <op> of <uri>: HTTP <status> <code> (request id <id>)[: <message>]
/// [, after <n> attempts in <t> s]". `attempts` <= 1 omits the tail.
std::string FormatS3ErrorMessage(std::string_view op, std::string_view uri,
                                 const S3Error& error, int attempts, double elapsed_s);

/// \brief The full jitter bound for retry number `retry` (0-based):
/// min(max_backoff, initial * 2^retry).
std::chrono::milliseconds BackoffCeiling(int retry, std::chrono::milliseconds initial,
                                         std::chrono::milliseconds max_backoff);
/// \brief A delay uniformly chosen in [0, BackoffCeiling] from `unit` in [0, 1).
std::chrono::milliseconds BackoffDelay(int retry, std::chrono::milliseconds initial,
                                       std::chrono::milliseconds max_backoff,
                                       double unit);

/// \brief Percent-decodes a value of a ListObjectsV2 answer with encoding-type=url
/// ('+' is a space, as in form encoding; a literal '+' arrives as %2B).
/// \return Invalid on a malformed escape.
Result<std::string> UrlDecode(std::string_view encoded, bool plus_is_space);

/// \brief Parses a ListBucketResult (decoding keys when it says EncodingType url).
Result<ListObjectsV2Response> ParseListObjectsV2(std::string_view body);

/// \brief Parses a DeleteResult: the keys that failed with their codes (NoSuchKey
/// entries are dropped: a missing key counts as deleted).
struct DeleteFailure {
  std::string key;
  std::string code;
  std::string message;
};
Result<std::vector<DeleteFailure>> ParseDeleteResult(std::string_view body);

/// \brief The <Delete> request body (Quiet) for `keys`.
std::string BuildDeleteBody(const std::vector<std::string>& keys, size_t begin,
                            size_t end);

/// \brief The <CompleteMultipartUpload> request body.
std::string BuildCompleteBody(const std::vector<std::string>& part_etags);

/// \brief Lower-case hex MD5 of `data` (a single-part PUT's ETag, unquoted).
std::string Md5Hex(std::string_view data);
/// \brief Base64 of the MD5 of `data` (the Content-MD5 header value).
std::string ContentMd5(std::string_view data);

/// \brief "2009-10-12T17:50:30.000Z" -> ms since the epoch. \return nullopt if malformed.
std::optional<int64_t> ParseIso8601Ms(std::string_view text);
/// \brief "Wed, 21 Oct 2015 07:28:00 GMT" -> ms since the epoch. nullopt if malformed.
std::optional<int64_t> ParseHttpDateMs(std::string_view text);

/// \brief Parses "bytes <first>-<last>/<total|*>". \return nullopt if malformed.
struct ContentRange {
  int64_t first = 0;
  int64_t last = 0;
  int64_t total = -1;  ///< -1 for '*'
};
std::optional<ContentRange> ParseContentRange(std::string_view value);

/// \brief The Range header value for [offset, offset + length) (length -1: to the end);
/// empty when no Range is needed (offset 0, length -1).
std::string RangeHeader(int64_t offset, int64_t length);

}  // namespace lance::io::s3::internal
