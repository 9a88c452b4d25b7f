// SPDX-License-Identifier: Apache-2.0
// From an S3/HTTP error answer to a Status (private): the retry policy of s3_client.h,
// the StatusCode mapping, the message and the typed HttpErrorDetail.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "io/http/retry_loop.h"
#include "lance/io/http/http_client.h"
#include "lance/status.h"

namespace lance::io::s3::internal {

/// \brief An S3 error answer (from the <Error> body, or synthesised for bodiless ones).
struct S3Error {
  int http_status = 0;
  std::string code;
  std::string message;
  std::string request_id;
};

using RetryClass = http::RetryClass;

/// \brief Classifies an HTTP error answer per the retry policy of s3_client.h.
RetryClass ClassifyHttpError(int http_status, std::string_view code);

/// \brief Whether a transport failure is worth retrying (the loop's rule).
using http::IsRetryableTransportError;
/// \brief The same two questions about a libcurl result code.
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

/// \brief The Status of a final S3 error answer: MapS3ErrorCode's code, the message of
/// FormatS3ErrorMessage with a hint for 404/412, retryable when Unavailable, and an
/// io::HttpErrorDetail (HTTP status, S3 code, request id).
Status MakeS3HttpError(std::string_view op, std::string_view uri, ErrorContext context,
                       const S3Error& error, int attempts, double elapsed_s);

/// \brief The backoff of the retry loop.
using http::BackoffCeiling;
using http::BackoffDelay;

}  // namespace lance::io::s3::internal
