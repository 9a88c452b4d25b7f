// SPDX-License-Identifier: Apache-2.0
// STS AssumeRole over the io::http layer, signed with the S3 client's SigV4 signer
// (sts_client.h).

#include "lance/io/s3/sts_client.h"

#include <algorithm>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "io/s3/endpoint.h"
#include "io/s3/sigv4.h"
#include "io/s3/xml.h"
#include "lance/io/http/http_client.h"
#include "lance/io/http_error.h"
#include "lance/macros.h"

namespace lance::io::s3 {

namespace {

// An AssumeRole answer is a few KiB; refuse to buffer anything absurd.
constexpr int64_t kMaxAnswerBytes = int64_t{1} << 20;

Result<std::unique_ptr<http::HttpClient>> MakeStsHttpClient(
    const AssumeRoleRequest& request) {
  return http::HttpClient::Make(
      http::MakeClientOptions("sts", request.connect_timeout, request.request_timeout,
                              request.allow_invalid_certificates));
}

bool IsForbiddenCode(std::string_view code) {
  for (std::string_view c :
       {"AccessDenied", "AccessDeniedException", "InvalidClientTokenId",
        "SignatureDoesNotMatch", "ExpiredToken", "ExpiredTokenException",
        "InvalidAccessKeyId", "RequestTimeTooSkewed", "MissingAuthenticationToken"}) {
    if (code == c) return true;
  }
  return false;
}

bool IsThrottlingCode(std::string_view code) {
  return code == "Throttling" || code == "ThrottlingException" ||
         code == "RequestLimitExceeded" || code == "SlowDown" ||
         code == "ServiceUnavailable" || code == "InternalFailure" ||
         code == "InternalError";
}

// Digits of `text` from `pos`, exactly `n` of them.
bool ReadDigits(std::string_view text, size_t* pos, size_t n, int* out) {
  if (*pos + n > text.size()) return false;
  int value = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = text[*pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *pos += n;
  *out = value;
  return true;
}

bool Expect(std::string_view text, size_t* pos, char c) {
  if (*pos >= text.size() || text[*pos] != c) return false;
  ++*pos;
  return true;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

}  // namespace

Result<int64_t> ParseIso8601Millis(std::string_view text) {
  auto bad = [&]() {
    return Status::Invalid("malformed ISO 8601 time '", std::string(text.substr(0, 64)),
                           "'");
  };
  size_t pos = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!ReadDigits(text, &pos, 4, &year) || !Expect(text, &pos, '-') ||
      !ReadDigits(text, &pos, 2, &month) || !Expect(text, &pos, '-') ||
      !ReadDigits(text, &pos, 2, &day) ||
      !(Expect(text, &pos, 'T') || Expect(text, &pos, 't') || Expect(text, &pos, ' ')) ||
      !ReadDigits(text, &pos, 2, &hour) || !Expect(text, &pos, ':') ||
      !ReadDigits(text, &pos, 2, &minute) || !Expect(text, &pos, ':') ||
      !ReadDigits(text, &pos, 2, &second)) {
    return bad();
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 ||
      second > 60) {
    return bad();
  }
  int64_t millis = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int64_t scale = 100;
    size_t digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      millis += (text[pos] - '0') * scale;
      scale /= 10;
      ++pos;
      ++digits;
    }
    if (digits == 0) return bad();
  }
  int64_t offset_minutes = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int oh = 0, om = 0;
    if (!ReadDigits(text, &pos, 2, &oh)) return bad();
    (void)Expect(text, &pos, ':');
    if (!ReadDigits(text, &pos, 2, &om)) return bad();
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return bad();
  }
  if (pos != text.size()) return bad();
  const int64_t days =
      DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const int64_t seconds =
      days * 86400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
  return seconds * 1000 + millis;
}

std::string AssumeRoleBody(const AssumeRoleRequest& request) {
  std::string body = "Action=AssumeRole&Version=2011-06-15";
  body += "&RoleArn=" + UriEncode(request.role_arn, true);
  body += "&RoleSessionName=" + UriEncode(request.role_session_name, true);
  body += "&DurationSeconds=" + std::to_string(request.duration_seconds);
  if (!request.policy.empty()) body += "&Policy=" + UriEncode(request.policy, true);
  if (request.external_id) body += "&ExternalId=" + UriEncode(*request.external_id, true);
  return body;
}

Result<AssumeRoleResult> ParseAssumeRoleResponse(int http_status, std::string_view body,
                                                 std::string_view request_id_header,
                                                 std::string_view what) {
  Result<XmlElement> parsed = ParseXml(body);
  if (http_status != 200) {
    std::string code;
    std::string message;
    std::string request_id(request_id_header);
    if (parsed.ok()) {
      // AWS: <ErrorResponse><Error><Code/>..</Error><RequestId/></ErrorResponse>;
      // RGW: <Error><Code/>..<RequestId/></Error>.
      const XmlElement* error =
          parsed->name == "Error" ? &*parsed : parsed->Child("Error");
      if (error != nullptr) {
        code = error->ChildText("Code");
        message = error->ChildText("Message");
        if (request_id.empty()) request_id = error->ChildText("RequestId");
      }
      if (request_id.empty()) request_id = parsed->ChildText("RequestId");
    }
    std::string text = std::string(what) + ": HTTP " + std::to_string(http_status);
    if (!code.empty()) text += " " + code;
    if (!request_id.empty()) text += " (request id " + request_id + ")";
    // STS messages name the role or the policy problem; keep them short.
    if (!message.empty()) text += ": " + message.substr(0, 300);
    StatusCode status_code = StatusCode::kInvalid;
    bool retryable = false;
    if (http_status >= 500 || IsThrottlingCode(code) || http_status == 429) {
      status_code = StatusCode::kUnavailable;
      retryable = true;
    } else if (http_status == 403 || http_status == 401 || IsForbiddenCode(code)) {
      status_code = StatusCode::kForbidden;
    }
    return Status(status_code, std::move(text), retryable,
                  std::make_shared<HttpErrorDetail>(http_status, code, request_id));
  }
  if (!parsed.ok()) return parsed.status().WithContext(std::string(what));
  const XmlElement* result = parsed->Child("AssumeRoleResult");
  const XmlElement* credentials =
      result == nullptr ? nullptr : result->Child("Credentials");
  if (credentials == nullptr) {
    return Status::Invalid(std::string(what),
                           ": the answer has no AssumeRoleResult/Credentials");
  }
  AssumeRoleResult out;
  out.credentials.access_key_id = credentials->ChildText("AccessKeyId");
  out.credentials.secret_access_key = credentials->ChildText("SecretAccessKey");
  out.credentials.session_token = credentials->ChildText("SessionToken");
  if (out.credentials.access_key_id.empty() ||
      out.credentials.secret_access_key.empty() ||
      out.credentials.session_token.empty()) {
    return Status::Invalid(
        std::string(what),
        ": the answer lacks an access key id, secret or session token");
  }
  Result<int64_t> expiration = ParseIso8601Millis(credentials->ChildText("Expiration"));
  if (!expiration.ok()) return expiration.status().WithContext(std::string(what));
  out.expiration_millis = *expiration;
  return out;
}

Result<AssumeRoleResult> AssumeRole(const AssumeRoleRequest& request,
                                    const AwsCredentials& caller) {
  const std::string endpoint = request.endpoint.empty()
                                   ? "https://sts." + request.region + ".amazonaws.com"
                                   : request.endpoint;
  const std::string what = "STS AssumeRole of " + request.role_arn + " at " + endpoint;
  if (request.role_arn.empty()) return Status::Invalid(what, ": no role ARN");
  if (caller.access_key_id.empty() || caller.secret_access_key.empty()) {
    return Status::Invalid(what, ": no credentials to sign the request with");
  }
  LANCE_ASSIGN_OR_RAISE(auto client, MakeStsHttpClient(request));
  LANCE_ASSIGN_OR_RAISE(internal::ParsedEndpoint parsed,
                        internal::ParseEndpoint(endpoint));
  const std::string body = AssumeRoleBody(request);
  const std::string path = parsed.base_path.empty() ? "/" : parsed.base_path + "/";
  const std::string url = parsed.scheme + "://" + parsed.authority + S3CanonicalUri(path);

  Status last;
  const int attempts = std::max(1, request.max_attempts);
  for (int attempt = 0; attempt < attempts; ++attempt) {
    if (attempt > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200 << attempt));
    }
    SigV4Request sig;
    sig.method = "POST";
    sig.host = parsed.host_header;
    sig.path = path;
    sig.headers = {{"content-type", "application/x-www-form-urlencoded; charset=utf-8"}};
    sig.payload_sha256_hex = Sha256Hex(body);
    LANCE_ASSIGN_OR_RAISE(auto auth, SignRequest(sig, caller, request.region, "sts",
                                                 std::chrono::system_clock::now()));
    std::vector<std::pair<std::string, std::string>> headers = sig.headers;
    headers.emplace_back("host", parsed.host_header);
    for (auto& header : auth) headers.push_back(std::move(header));

    http::HttpRequest post;
    post.method = "POST";
    post.url = url;
    post.headers = std::move(headers);
    post.body = body;
    post.max_buffered_body = kMaxAnswerBytes;
    const http::HttpResponse answer = client->Send(post);
    if (!answer.answered()) {
      last = Status::Unavailable(what + ": " + answer.transport_message);
      continue;
    }
    std::string_view request_id = answer.Header("x-amzn-requestid");
    if (request_id.empty()) request_id = answer.Header("x-amz-request-id");
    Result<AssumeRoleResult> result =
        ParseAssumeRoleResponse(answer.status, answer.body, request_id, what);
    if (result.ok() || !result.status().retryable()) return result;
    last = result.status();
  }
  if (attempts > 1) {
    return last.WithContext("after " + std::to_string(attempts) + " attempts");
  }
  return last;
}

}  // namespace lance::io::s3
