// SPDX-License-Identifier: Apache-2.0
// From a Blob service error answer to a Status (private): the retry classes of the Azure
// client (azure_client.h), the StatusCode mapping and the message.
#pragma once

#include <string_view>

#include "io/azure/responses.h"
#include "io/http/retry_loop.h"
#include "lance/status.h"

namespace lance::io::azure {

/// \brief The retry classes of the loop: kRefreshCredentials for credentials rejected as
/// expired (401 InvalidAuthenticationInfo, a 403 AuthenticationFailed whose detail says
/// the SAS or token expired); kMaybeRefreshCredentials for 403 AuthenticationFailed /
/// AuthorizationFailure (or a bodiless 403 of a HEAD): maybe expired credentials
/// (Azurite answers an expired SAS with AuthorizationFailure), maybe a wrong key.
using RetryClass = http::RetryClass;

/// \brief Classifies an error answer.
RetryClass ClassifyAzureError(const AzureError& error);

/// \brief What the caller was doing, which decides how some codes map.
enum class ErrorContext {
  kDefault,
  /// \brief If-None-Match: * (409 BlobAlreadyExists / 412 -> AlreadyExists).
  kConditionalCreate,
  kPinnedRead,  ///< If-Match: <etag> (412 -> IOError "object changed")
};

/// \brief The StatusCode of a final error answer: 404 NotFound; 409/412 AlreadyExists on
/// a conditional create; 412 of a pinned read IOError; 401 and AuthenticationFailed
/// Unauthorized (TokenExpired when the detail says expired); other 403 Forbidden; 409
/// Conflict; 400/416 Invalid; throttling and 5xx Unavailable; else IOError.
StatusCode MapAzureError(const AzureError& error, ErrorContext context);

/// \brief The Status of a final error answer: "Azure <op> of <uri>: HTTP <status> <code>
/// (request id <id>)[: <message>][, after <n> attempts in <t> s]" with an
/// HttpErrorDetail; retryable when Unavailable.
Status MakeAzureHttpError(std::string_view op, std::string_view uri, ErrorContext context,
                          const AzureError& error, int attempts, double elapsed_s);

}  // namespace lance::io::azure
