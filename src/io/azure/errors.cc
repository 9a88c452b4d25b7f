// SPDX-License-Identifier: Apache-2.0
// Blob service errors to Status (see errors.h): the one place that decides on codes.

#include "io/azure/errors.h"

#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "lance/core/ascii.h"
#include "lance/io/http/http_client.h"
#include "lance/io/http_error.h"
#include "lance/str_cat.h"

namespace lance::io::azure {

namespace {

// The detail of an authentication failure that says the credentials ran out: real
// Azure's "Signature not valid in the specified time frame", "Signed expiry time [...]
// must be after signed start time", "Lifetime validation failed. The token is expired."
bool SaysExpired(const AzureError& error) {
  const std::string lower = AsciiToLower(error.message);
  return lower.find("expired") != std::string::npos ||
         lower.find("time frame") != std::string::npos ||
         lower.find("signed expiry") != std::string::npos;
}

}  // namespace

RetryClass ClassifyAzureError(const AzureError& error) {
  const std::string& code = error.code;
  const int status = error.http_status;
  if (code == "ServerBusy" || code == "OperationTimedOut" || code == "InternalError") {
    return RetryClass::kRetry;
  }
  if (status == 401) return RetryClass::kRefreshCredentials;
  if (status == 403) {
    if (code == "AuthenticationFailed" && SaysExpired(error)) {
      return RetryClass::kRefreshCredentials;
    }
    if (code == "AuthenticationFailed" || code == "AuthorizationFailure" ||
        code == "InvalidAuthenticationInfo" || code.empty()) {
      return RetryClass::kMaybeRefreshCredentials;
    }
    return RetryClass::kFinal;  // AuthorizationPermissionMismatch and the like
  }
  if (http::IsRetryableHttpStatus(status)) return RetryClass::kRetry;
  return RetryClass::kFinal;
}

StatusCode MapAzureError(const AzureError& error, ErrorContext context) {
  const std::string& code = error.code;
  const int status = error.http_status;
  if (context == ErrorContext::kConditionalCreate &&
      (status == 412 || (status == 409 && code == "BlobAlreadyExists"))) {
    return StatusCode::kAlreadyExists;
  }
  if (status == 412) return StatusCode::kIOError;
  if (status == 401 || code == "AuthenticationFailed" ||
      code == "InvalidAuthenticationInfo") {
    return SaysExpired(error) ? StatusCode::kTokenExpired : StatusCode::kUnauthorized;
  }
  if (status == 404) return StatusCode::kNotFound;
  if (status == 403) return StatusCode::kForbidden;
  if (code == "ContainerAlreadyExists" || code == "BlobAlreadyExists") {
    return StatusCode::kAlreadyExists;
  }
  if (status == 409) return StatusCode::kConflict;
  if (status == 501) return StatusCode::kNotImplemented;
  if (ClassifyAzureError(error) == RetryClass::kRetry) return StatusCode::kUnavailable;
  if (status == 400 || status == 411 || status == 413 || status == 416) {
    return StatusCode::kInvalid;
  }
  return StatusCode::kIOError;
}

Status MakeAzureHttpError(std::string_view op, std::string_view uri, ErrorContext context,
                          const AzureError& error, int attempts, double elapsed_s) {
  const StatusCode code = MapAzureError(error, context);
  std::string msg =
      http::HttpErrorHead(StrCat("Azure ", op, " of ", uri), error.http_status,
                          error.code, error.request_id, error.message);
  if (error.http_status == 412 && context == ErrorContext::kPinnedRead) {
    msg += ": object changed since it was opened";
  } else if (error.http_status == 404 && error.code.empty()) {
    msg += ": no such blob or container";
  } else if (error.code == "AuthorizationPermissionMismatch") {
    msg += " (the credentials do not grant this operation: a read-only SAS?)";
  }
  msg += http::AfterAttempts(attempts, elapsed_s);
  return http::HttpErrorStatus(code, std::move(msg), error.http_status, error.code,
                               error.request_id);
}

}  // namespace lance::io::azure
