// SPDX-License-Identifier: Apache-2.0
// The GCS client's pure pieces (private): URL encoding, JSON API answers (object
// resources, listings, error bodies), and the mapping of an error answer to a Status.
// Tested offline (tests/io/gcs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/result.h"
#include "lance/status.h"
#include "lance/str_cat.h"

namespace lance::io::gcs::internal {

/// \brief Status::IOError of the pieces StrCat joins.
template <typename... Args>
Status IoError(const Args&... args) {
  return Status::IOError(StrCat(args...));
}

/// \brief Percent-encodes everything but RFC 3986 unreserved characters (A-Z a-z 0-9 - .
/// _ ~), so an object name ('/' included) is one path segment or one query value.
std::string PercentEncode(std::string_view s);

/// \brief Checks a base URL: http(s)://host[:port][/path], no user info, query or
/// fragment, http only with `allow_http`. \return Invalid naming the URL.
Status ValidateBaseUrl(const std::string& url, bool allow_http);

/// \brief "2026-12-06T09:35:33.770429Z" (RFC 3339, any fraction, Z or +hh:mm) -> ms since
/// the epoch. \return nullopt if malformed.
std::optional<int64_t> ParseRfc3339Ms(std::string_view text);

/// \brief What a storage#object resource says that the store uses.
struct ObjectResource {
  std::string name;
  int64_t size = 0;
  int64_t generation = 0;
  int64_t updated_ms = 0;
  std::string md5_base64;  ///< md5Hash (absent for composite objects)
};

/// \brief Parses one object resource (size and generation are JSON strings in the API;
/// numbers are accepted too). \return Invalid when it is not one.
Result<ObjectResource> ParseObjectResource(std::string_view json);

/// \brief One page of objects.list.
struct ListPage {
  std::vector<ObjectResource> items;
  std::vector<std::string> prefixes;
  std::string next_page_token;
};
Result<ListPage> ParseListPage(std::string_view json);

/// \brief The answer of objects.rewrite: done, or the token to call again with.
struct RewriteProgress {
  bool done = false;
  std::string rewrite_token;
};
Result<RewriteProgress> ParseRewriteProgress(std::string_view json);

/// \brief An OAuth token endpoint's answer.
struct TokenAnswer {
  std::string access_token;
  int64_t expires_in_s = 0;
};
/// \return Invalid when it has no access_token (message without the body: it may hold
/// secrets).
Result<TokenAnswer> ParseTokenAnswer(std::string_view json);

/// \brief An error answer of the JSON API ({"error": {"code", "message", "errors":
/// [{"reason"}]}}), or a synthesised one for a body that is not.
struct GcsError {
  int http_status = 0;
  std::string reason;   ///< "notFound", "conditionNotMet", ...; may be empty
  std::string message;  ///< the server's message, cut to 300 bytes
  std::string request_id;
};
GcsError ParseErrorBody(std::string_view body, int http_status);

/// \brief What the caller was doing, which decides how a 412 maps.
enum class ErrorContext {
  kDefault,
  kConditionalCreate,  ///< ifGenerationMatch=0: 412 -> AlreadyExists
  kPinnedRead,         ///< generation=<g>: 404 (or 412) -> IOError "object changed"
};

/// \brief 408, 429, 500, 502, 503, 504: back off and retry.
bool IsRetryableStatus(int http_status);

/// \brief The StatusCode of a final error answer: 404 NotFound (IOError on a pinned
/// read); 412 AlreadyExists on a conditional create, else IOError; 401 Unauthorized; 403
/// Forbidden; 409 Conflict; retryable statuses Unavailable; 400/411/413/416 Invalid; else
/// IOError.
StatusCode MapErrorCode(const GcsError& error, ErrorContext context);

/// \brief The Status of a final error answer: "GCS <op> of <uri>: HTTP <status>
/// [<reason>][ (request id <id>)][: <message>][: <hint>][, after <n> attempts in <t> s]",
/// MapErrorCode's code, retryable when Unavailable, and an io::HttpErrorDetail.
Status MakeHttpError(std::string_view op, std::string_view uri, ErrorContext context,
                     const GcsError& error, int attempts, double elapsed_s);

}  // namespace lance::io::gcs::internal
