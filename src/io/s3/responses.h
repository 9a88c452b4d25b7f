// SPDX-License-Identifier: Apache-2.0
// S3 request and response bodies and headers (private): XML documents, dates, ranges,
// encodings. Pure functions, tested offline.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/s3/errors.h"
#include "io/s3/s3_client.h"
#include "lance/result.h"

namespace lance::io::s3::internal {

/// \brief `s` without leading blanks and trailing blanks or line ends (header values).
std::string_view Trim(std::string_view s);
/// \brief A non-negative decimal of at most 18 digits. \return false otherwise.
bool ParseInt64(std::string_view s, int64_t* out);

/// \brief Parses an <Error> document. \return nullopt when the body is not one.
std::optional<S3Error> ParseErrorBody(std::string_view body, int http_status);

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
