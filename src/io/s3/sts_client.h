// SPDX-License-Identifier: Apache-2.0
// STS AssumeRole (private to the library): temporary credentials from an S3 server's STS
// (AWS, or Ceph RGW with `rgw sts`), optionally narrowed by a session policy. Used by
// the directory namespace's credential vendor (src/namespace/credential_vendor.cc).
//
// The request is the Query API's form-encoded POST ("Action=AssumeRole&Version=
// 2011-06-15&..."), SigV4-signed for service "sts" with the hex SHA-256 of the body (STS
// refuses UNSIGNED-PAYLOAD). Form values are percent-encoded with %20 for spaces (RGW
// does not decode '+'); the session policy should be compact JSON.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lance/io/credentials.h"
#include "lance/result.h"

namespace lance::io::s3 {

struct AssumeRoleRequest {
  /// \brief "scheme://host[:port][/base]"; empty: https://sts.<region>.amazonaws.com.
  std::string endpoint;
  /// \brief Signing region.
  std::string region = "us-east-1";
  std::string role_arn;
  std::string role_session_name;
  /// \brief DurationSeconds (STS: 900 .. the role's maximum).
  int64_t duration_seconds = 3600;
  /// \brief Session policy JSON (sent as is; empty: none).
  std::string policy;
  std::optional<std::string> external_id;
  bool allow_invalid_certificates = false;
  std::chrono::milliseconds connect_timeout{5'000};
  std::chrono::milliseconds request_timeout{30'000};
  /// \brief Attempts for transient failures (connection errors, 5xx, throttling).
  int max_attempts = 3;
};

struct AssumeRoleResult {
  AwsCredentials credentials;
  /// \brief The answer's Expiration, epoch milliseconds.
  int64_t expiration_millis = 0;
};

/// \brief The form body of `request` (no secret in it: the caller's credentials only
/// sign). Parameters in a fixed order.
std::string AssumeRoleBody(const AssumeRoleRequest& request);

/// \brief Calls AssumeRole with `caller` credentials.
/// \return the credentials; for an STS error answer: Forbidden (403, AccessDenied,
/// InvalidClientTokenId, SignatureDoesNotMatch, ExpiredToken...), Invalid (other 4xx:
/// a malformed policy, a bad duration or ARN), Unavailable (5xx, throttling, transport
/// failure), each with an io::HttpErrorDetail carrying the STS code, and a message
/// naming the role and the endpoint, never a secret; Invalid for a malformed answer.
Result<AssumeRoleResult> AssumeRole(const AssumeRoleRequest& request,
                                    const AwsCredentials& caller);

/// \brief Parses an AssumeRole answer (HTTP status and body); `what` opens messages.
Result<AssumeRoleResult> ParseAssumeRoleResponse(int http_status, std::string_view body,
                                                 std::string_view request_id_header,
                                                 std::string_view what);

/// \brief "2026-12-02T04:15:00Z" (fractional seconds and a +hh:mm / -hh:mm offset
/// allowed) as epoch milliseconds. \return Invalid when malformed.
Result<int64_t> ParseIso8601Millis(std::string_view text);

}  // namespace lance::io::s3
