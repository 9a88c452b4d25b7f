// SPDX-License-Identifier: Apache-2.0
// From an S3/HTTP error answer to a Status: the retry classification, the StatusCode
// mapping and the message. The one place that decides on codes, so that upper layers
// never look at HTTP.

#include "io/s3/errors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <utility>

#include "lance/io/http_error.h"
#include "lance/str_cat.h"

namespace lance::io::s3::internal {

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
  if (http::IsRetryableHttpStatus(http_status)) return RetryClass::kRetry;
  return RetryClass::kFinal;
}

bool IsRetryableCurlCode(int curl_code) {
  return IsRetryableTransportError(http::ClassifyTransportCode(curl_code));
}

bool IsResolveFailure(int curl_code) {
  return http::ClassifyTransportCode(curl_code) == http::TransportError::kResolve;
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
  return http::HttpErrorHead(StrCat("S3 ", op, " of ", uri), error.http_status,
                             error.code, error.request_id, error.message) +
         http::AfterAttempts(attempts, elapsed_s);
}

Status MakeS3HttpError(std::string_view op, std::string_view uri, ErrorContext context,
                       const S3Error& error, int attempts, double elapsed_s) {
  const StatusCode code = MapS3ErrorCode(error, context);
  std::string msg = FormatS3ErrorMessage(op, uri, error, attempts, elapsed_s);
  if (error.http_status == 412 && context == ErrorContext::kPinnedRead) {
    msg += ": object changed since it was opened";
  } else if (error.http_status == 404 && error.code.empty()) {
    msg += ": no such key or bucket";
  } else if (error.code == "NoSuchBucket") {
    msg += ": the bucket does not exist";
  } else if (error.code == "NoSuchKey") {
    msg += ": the object does not exist";
  }
  return http::HttpErrorStatus(code, std::move(msg), error.http_status, error.code,
                               error.request_id);
}

}  // namespace lance::io::s3::internal
