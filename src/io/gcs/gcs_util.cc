// SPDX-License-Identifier: Apache-2.0
// The GCS client's pure pieces; see gcs_util.h.

#include "io/gcs/gcs_util.h"

#include <cctype>
#include <cstdio>
#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>

#include "io/http/canonical.h"
#include "io/http/retry_loop.h"
#include "lance/core/ascii.h"
#include "lance/io/http/http_client.h"
#include "lance/io/http_error.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::gcs::internal {

namespace {

using Json = nlohmann::json;

// A JSON document, or nullopt (never an exception) when the text is not one.
std::optional<Json> ParseJson(std::string_view text) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return std::nullopt;
  return doc;
}

// An int64 the API sends as a JSON string ("1234"), or as a number.
std::optional<int64_t> Int64Field(const Json& obj, const char* name) {
  auto it = obj.find(name);
  if (it == obj.end()) return std::nullopt;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (!it->is_string()) return std::nullopt;
  const std::string& s = it->get_ref<const std::string&>();
  if (s.empty() || s.size() > 19) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

std::string StringField(const Json& obj, const char* name) {
  auto it = obj.find(name);
  if (it == obj.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

Result<ObjectResource> ObjectFromJson(const Json& obj) {
  if (!obj.is_object() || !obj.contains("name") || !obj["name"].is_string()) {
    return Status::Invalid("not a storage#object resource (no name)");
  }
  ObjectResource out;
  out.name = obj["name"].get<std::string>();
  std::optional<int64_t> size = Int64Field(obj, "size");
  if (!size) return Status::Invalid("object resource '", out.name, "' without a size");
  out.size = *size;
  out.generation = Int64Field(obj, "generation").value_or(0);
  out.updated_ms = ParseRfc3339Ms(StringField(obj, "updated")).value_or(0);
  out.md5_base64 = StringField(obj, "md5Hash");
  return out;
}

bool ReadDigits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

}  // namespace

std::string PercentEncode(std::string_view s) { return http::PercentEncode(s); }

Status ValidateBaseUrl(const std::string& url, bool allow_http) {
  const std::string lower = AsciiToLower(url);
  const bool http = lower.rfind("http://", 0) == 0;
  if (!http && lower.rfind("https://", 0) != 0) {
    return Status::Invalid("GCS base URL '", url,
                           "' must start with http:// or https://");
  }
  const std::string rest = url.substr(http ? 7 : 8);
  const std::string authority = rest.substr(0, rest.find('/'));
  // User info could carry a password: refuse it without echoing the URL.
  if (authority.find('@') != std::string::npos) {
    return Status::Invalid("the GCS base URL must not contain user info ('user@host')");
  }
  if (authority.empty() || authority.front() == ':') {
    return Status::Invalid("GCS base URL '", url, "' has no host");
  }
  if (url.find_first_of("?#") != std::string::npos) {
    return Status::Invalid("GCS base URL '", url, "' must not have a query or fragment");
  }
  if (http && !allow_http) {
    return Status::Invalid("GCS base URL '", url,
                           "' uses http:// but allow_http is not set; set the storage "
                           "option allow_http=true to permit it");
  }
  return Status::OK();
}

std::optional<int64_t> ParseRfc3339Ms(std::string_view s) {
  int y, mo, d, h, mi, sec;
  if (!ReadDigits(s, 0, 4, &y) || s.size() < 19 || s[4] != '-' ||
      !ReadDigits(s, 5, 2, &mo) || s[7] != '-' || !ReadDigits(s, 8, 2, &d) ||
      (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !ReadDigits(s, 11, 2, &h) ||
      s[13] != ':' || !ReadDigits(s, 14, 2, &mi) || s[16] != ':' ||
      !ReadDigits(s, 17, 2, &sec)) {
    return std::nullopt;
  }
  size_t pos = 19;
  int64_t ms = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 3) ms = ms * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (int i = digits; i < 3; ++i) ms *= 10;
  }
  int64_t offset_s = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!ReadDigits(s, pos + 1, 2, &oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !ReadDigits(s, pos + 4, 2, &om)) {
      return std::nullopt;
    }
    offset_s = (s[pos] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size() || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
      sec > 60) {
    return std::nullopt;
  }
  const int64_t epoch_s = http::UtcSeconds(y, mo, d, h, mi, sec) - offset_s;
  return epoch_s * 1000 + ms;
}

Result<ObjectResource> ParseObjectResource(std::string_view json) {
  std::optional<Json> doc = ParseJson(json);
  if (!doc) return Status::Invalid("the object resource is not JSON");
  return ObjectFromJson(*doc);
}

Result<ListPage> ParseListPage(std::string_view json) {
  std::optional<Json> doc = ParseJson(json);
  if (!doc || !doc->is_object())
    return Status::Invalid("the listing is not a JSON object");
  ListPage page;
  if (auto items = doc->find("items"); items != doc->end()) {
    if (!items->is_array()) return Status::Invalid("the listing's items is not an array");
    for (const Json& item : *items) {
      LANCE_ASSIGN_OR_RAISE(ObjectResource obj, ObjectFromJson(item));
      page.items.push_back(std::move(obj));
    }
  }
  if (auto prefixes = doc->find("prefixes"); prefixes != doc->end()) {
    if (!prefixes->is_array())
      return Status::Invalid("the listing's prefixes is not an array");
    for (const Json& p : *prefixes) {
      if (!p.is_string()) return Status::Invalid("a listing prefix is not a string");
      page.prefixes.push_back(p.get<std::string>());
    }
  }
  page.next_page_token = StringField(*doc, "nextPageToken");
  return page;
}

Result<RewriteProgress> ParseRewriteProgress(std::string_view json) {
  std::optional<Json> doc = ParseJson(json);
  if (!doc || !doc->is_object()) return Status::Invalid("the rewrite answer is not JSON");
  RewriteProgress out;
  auto done = doc->find("done");
  out.done = done != doc->end() && done->is_boolean() && done->get<bool>();
  out.rewrite_token = StringField(*doc, "rewriteToken");
  if (!out.done && out.rewrite_token.empty()) {
    return Status::Invalid("the rewrite answer is neither done nor has a rewriteToken");
  }
  return out;
}

Result<TokenAnswer> ParseTokenAnswer(std::string_view json) {
  std::optional<Json> doc = ParseJson(json);
  if (!doc || !doc->is_object()) return Status::Invalid("the token answer is not JSON");
  TokenAnswer out;
  out.access_token = StringField(*doc, "access_token");
  if (out.access_token.empty()) {
    return Status::Invalid("the token answer has no access_token");
  }
  out.expires_in_s = Int64Field(*doc, "expires_in").value_or(3600);
  return out;
}

GcsError ParseErrorBody(std::string_view body, int http_status) {
  GcsError out;
  out.http_status = http_status;
  std::optional<Json> doc = ParseJson(body);
  const Json* error = nullptr;
  if (doc && doc->is_object()) {
    auto it = doc->find("error");
    if (it != doc->end() && it->is_object()) error = &*it;
  }
  if (error != nullptr) {
    out.message = StringField(*error, "message");
    auto errors = error->find("errors");
    if (errors != error->end() && errors->is_array() && !errors->empty() &&
        (*errors)[0].is_object()) {
      out.reason = StringField((*errors)[0], "reason");
    }
  } else if (doc && doc->is_object() && doc->contains("error") &&
             (*doc)["error"].is_string()) {
    // OAuth endpoints: {"error": "invalid_grant", "error_description": "..."}.
    out.reason = (*doc)["error"].get<std::string>();
    out.message = StringField(*doc, "error_description");
  } else if (body.size() <= 300 && body.find('{') == std::string_view::npos) {
    out.message = std::string(body);  // a short plain-text answer
  }
  while (!out.message.empty() &&
         (out.message.back() == '\n' || out.message.back() == '\r')) {
    out.message.pop_back();
  }
  if (out.message.size() > 300) out.message = out.message.substr(0, 300) + "...";
  return out;
}

bool IsRetryableStatus(int http_status) {
  return http_status == 408 || http::IsRetryableHttpStatus(http_status);
}

StatusCode MapErrorCode(const GcsError& error, ErrorContext context) {
  switch (error.http_status) {
    case 404:
      return context == ErrorContext::kPinnedRead ? StatusCode::kIOError
                                                  : StatusCode::kNotFound;
    case 412:
      return context == ErrorContext::kConditionalCreate ? StatusCode::kAlreadyExists
                                                         : StatusCode::kIOError;
    case 401:
      return StatusCode::kUnauthorized;
    case 403:
      return StatusCode::kForbidden;
    case 409:
      return StatusCode::kConflict;
    case 400:
    case 411:
    case 413:
    case 416:
      return StatusCode::kInvalid;
    case 501:
      return StatusCode::kNotImplemented;
    default:
      break;
  }
  if (IsRetryableStatus(error.http_status)) return StatusCode::kUnavailable;
  return StatusCode::kIOError;
}

Status MakeHttpError(std::string_view op, std::string_view uri, ErrorContext context,
                     const GcsError& error, int attempts, double elapsed_s) {
  const StatusCode code = MapErrorCode(error, context);
  std::string msg =
      http::HttpErrorHead(StrCat("GCS ", op, " of ", uri), error.http_status,
                          error.reason, error.request_id, error.message,
                          /*name_missing_id=*/false);
  if ((error.http_status == 412 || error.http_status == 404) &&
      context == ErrorContext::kPinnedRead) {
    msg += ": object changed or deleted since it was opened";
  } else if (error.http_status == 412 && context == ErrorContext::kConditionalCreate) {
    msg += ": the object already exists";
  } else if (error.http_status == 404 && error.message.empty()) {
    msg += ": no such object or bucket";
  }
  msg += http::AfterAttempts(attempts, elapsed_s);
  return http::HttpErrorStatus(code, std::move(msg), error.http_status, error.reason,
                               error.request_id);
}

}  // namespace lance::io::gcs::internal
