// SPDX-License-Identifier: Apache-2.0
// The GCP credential vendor (credential_vendor.h): the namespace's own Google token,
// exchanged at Google's Security Token Service for a downscoped token whose Credential
// Access Boundary limits it to one table's objects and listings.
//
// Facts (Google's "Downscoping with Credential Access Boundaries" and the STS token
// endpoint, as Lance's GCP vendor uses them): POST application/x-www-form-urlencoded to
// https://sts.googleapis.com/v1/token with grant_type token-exchange, the source access
// token as subject_token, and `options` = the URL-encoded JSON
// {"accessBoundary":{"accessBoundaryRules":[{availableResource, availablePermissions,
// availabilityCondition:{expression}}]}}; the answer is JSON with access_token and
// expires_in (seconds; absent: the source token's lifetime, taken as one hour here).

#include <cctype>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "lance/core/clock.h"
#include "lance/io/http/http_client.h"
#include "lance/io/uri.h"
#include "lance/macros.h"
#include "lance/namespace/credential_vendor.h"
#include "lance/str_cat.h"

namespace lance::ns {

namespace {

constexpr int64_t kDefaultTokenLifetimeSeconds = 3600;

// The predefined roles a boundary may grant ("inRole:"), by permission: read lists and
// gets; write also creates (as the AWS vendor's write adds PutObject, never delete);
// admin also deletes and overwrites.
std::vector<std::string> GcsBoundaryRoles(VendPermission permission) {
  switch (permission) {
    case VendPermission::kRead:
      return {"inRole:roles/storage.objectViewer"};
    case VendPermission::kWrite:
      return {"inRole:roles/storage.objectViewer", "inRole:roles/storage.objectCreator"};
    case VendPermission::kAdmin:
      break;
  }
  return {"inRole:roles/storage.objectAdmin"};
}

struct GcsLocation {
  std::string bucket;
  std::string prefix;  // no leading or trailing '/'
};

Result<GcsLocation> ParseGcsLocation(const std::string& location) {
  Result<io::Uri> uri = io::ParseUri(location);
  if (!uri.ok() || uri->scheme != "gs" || uri->authority.empty()) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          StrCat("cannot vend Google credentials for '", location,
                                 "': not a gs:// location"));
  }
  GcsLocation out{uri->authority, uri->path};
  while (!out.prefix.empty() && out.prefix.back() == '/') out.prefix.pop_back();
  return out;
}

class GcpCredentialVendor final : public CredentialVendor {
 public:
  GcpCredentialVendor(GcpCredentialVendorOptions options,
                      std::unique_ptr<io::http::HttpClient> http)
      : options_(std::move(options)), http_(std::move(http)) {}

  Result<VendedCredentials> Vend(const std::string& location,
                                 VendPermission permission) override {
    LANCE_ASSIGN_OR_RAISE(GcsLocation where, ParseGcsLocation(location));
    if (where.prefix.empty()) {
      return NamespaceError(ErrorCode::kInvalidInput,
                            StrCat("cannot vend credentials for ", location,
                                   ": it is a whole bucket, not a table's prefix"));
    }
    // Checked again here (the namespace refuses such names first): a quote would end
    // the CEL string literal and let the rest of the name widen the condition.
    LANCE_RETURN_NOT_OK(CheckPolicySafeName(where.prefix, "the location " + location)
                            .WithContext("vending credentials"));
    const std::string context =
        StrCat("vending ", VendPermissionName(permission), " credentials for ", location);
    auto current = options_.caller->Current();
    if (!current.ok()) {
      return current.status().WithContext(context +
                                          ": getting the namespace's own Google token");
    }
    std::shared_ptr<const io::Credentials> caller = *current;
    if (caller->google.bearer_token.empty()) {
      return NamespaceError(ErrorCode::kInvalidInput,
                            StrCat(context,
                                   ": the namespace has no Google token to "
                                   "downscope (google_storage_token or a "
                                   "service-account key in the root's options)"));
    }
    const std::string boundary =
        GcsCredentialAccessBoundary(where.bucket, where.prefix, permission);
    int64_t sent_at = RealClock::Instance()->NowMillis();
    io::http::HttpResponse response = Exchange(caller->google.bearer_token, boundary);
    if (RefusedSubject(response)) {
      // The namespace's own token expired or was revoked: a refreshing source (a
      // service-account key) fetches a new one, and the exchange is tried once more.
      auto fresh = options_.caller->OnRejected(*caller);
      if (fresh.ok() && !(*fresh)->google.bearer_token.empty() &&
          (*fresh)->google.bearer_token != caller->google.bearer_token) {
        sent_at = RealClock::Instance()->NowMillis();
        response = Exchange((*fresh)->google.bearer_token, boundary);
      }
    }
    return Answer(response, sent_at, context);
  }

  std::string ToString() const override {
    return StrCat("GcpCredentialVendor { sts_endpoint: \"",
                  io::http::RedactUrl(options_.sts_endpoint),
                  "\", caller: ", options_.caller->ToString(), " }");
  }

 private:
  // One RFC 8693 token exchange of `subject` with the access boundary `boundary`.
  io::http::HttpResponse Exchange(const std::string& subject,
                                  const std::string& boundary) const {
    io::http::HttpRequest request;
    request.method = "POST";
    request.url = options_.sts_endpoint;
    request.headers = {{"Content-Type", "application/x-www-form-urlencoded"}};
    // HttpRequest::body is a view: the form must outlive the Send.
    const std::string form =
        StrCat("grant_type=",
               io::http::PercentEncode("urn:ietf:params:oauth:grant-type:token-exchange"),
               "&subject_token_type=",
               io::http::PercentEncode("urn:ietf:params:oauth:token-type:access_token"),
               "&requested_token_type=",
               io::http::PercentEncode("urn:ietf:params:oauth:token-type:access_token"),
               "&subject_token=", io::http::PercentEncode(subject),
               "&options=", io::http::PercentEncode(boundary));
    request.body = form;
    return http_->Send(request);
  }

  // The token service refused the subject token itself (RFC 6749: 400 invalid_grant;
  // some front ends answer 401).
  static bool RefusedSubject(const io::http::HttpResponse& response) {
    if (!response.answered()) return false;
    if (response.status == 401) return true;
    if (response.status != 400) return false;
    auto body = nlohmann::json::parse(response.body, nullptr, false);
    return body.is_object() && body.value("error", "") == "invalid_grant";
  }

  Result<VendedCredentials> Answer(const io::http::HttpResponse& response,
                                   int64_t sent_at, const std::string& context) const {
    if (!response.answered()) {
      return Status::Unavailable(StrCat(
          context, ": the token service ", io::http::RedactUrl(options_.sts_endpoint),
          " did not answer (", response.transport_message, ")"));
    }
    if (response.status != 200) {
      // The answer names the problem (invalid_grant, ...); it holds no token.
      ErrorCode code = ErrorCode::kInternal;  // a request the service cannot read
      if (response.status == 401 || response.status == 403 || RefusedSubject(response)) {
        code = ErrorCode::kPermissionDenied;
      } else if (response.status == 429) {
        code = ErrorCode::kThrottling;
      } else if (response.status >= 500) {
        code = ErrorCode::kServiceUnavailable;
      }
      return NamespaceError(
          code, StrCat(context, ": the token service answered HTTP ", response.status,
                       ": ", response.body.substr(0, 300)));
    }
    auto answer = nlohmann::json::parse(response.body, nullptr, false);
    if (answer.is_discarded() || !answer.is_object() ||
        !answer.contains("access_token") || !answer["access_token"].is_string() ||
        answer["access_token"].get<std::string>().empty()) {
      return Status::IOError(context, ": the token service's answer has no access_token");
    }
    int64_t lifetime_seconds = kDefaultTokenLifetimeSeconds;
    if (answer.contains("expires_in") && answer["expires_in"].is_number_integer()) {
      lifetime_seconds = answer["expires_in"].get<int64_t>();
    }
    int64_t expires = sent_at + lifetime_seconds * 1000;
    if (options_.reported_lifetime_millis) {
      expires = std::min(expires, sent_at + *options_.reported_lifetime_millis);
    }
    VendedCredentials out;
    out.expires_at_millis = expires;
    Properties& so = out.storage_options;
    so["google_storage_token"] = answer["access_token"].get<std::string>();
    so["expires_at_millis"] = std::to_string(expires);
    so["refresh_offset_millis"] = std::to_string(options_.refresh_offset_millis);
    return out;
  }

  const GcpCredentialVendorOptions options_;
  const std::unique_ptr<io::http::HttpClient> http_;
};

}  // namespace

std::string GcsCredentialAccessBoundary(const std::string& bucket,
                                        const std::string& prefix,
                                        VendPermission permission) {
  using nlohmann::json;
  const std::string objects =
      StrCat("projects/_/buckets/", bucket, "/objects/", prefix, "/");
  // Objects under "P/" and listings whose prefix starts with "P/" (never the bare "P",
  // which would reach a sibling "P2/"). The prefix sits in single quotes: callers refuse
  // quotes and backslashes in it (CheckPolicySafeName).
  const std::string expression =
      StrCat("resource.name.startsWith('", objects,
             "') || api.getAttribute('storage.googleapis.com/objectListPrefix', '')"
             ".startsWith('",
             prefix, "/')");
  json rule = {{"availableResource",
                StrCat("//storage.googleapis.com/projects/_/buckets/", bucket)},
               {"availablePermissions", GcsBoundaryRoles(permission)},
               {"availabilityCondition",
                {{"title", "lance-table-prefix"}, {"expression", expression}}}};
  json boundary = {{"accessBoundary", {{"accessBoundaryRules", json::array({rule})}}}};
  return boundary.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<std::shared_ptr<CredentialVendor>> MakeGcpCredentialVendor(
    GcpCredentialVendorOptions options) {
  if (options.caller == nullptr) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          "GCP credential vending needs the namespace's own Google "
                          "credentials (google_storage_token or a service-account key)");
  }
  if (options.reported_lifetime_millis && *options.reported_lifetime_millis <= 0) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          "credential_vendor.reported_lifetime_millis must be positive");
  }
  io::http::ClientOptions http_options;
  http_options.log_component = "gcp-vendor";
  LANCE_ASSIGN_OR_RAISE(auto http, io::http::HttpClient::Make(http_options));
  return std::shared_ptr<CredentialVendor>(
      std::make_shared<GcpCredentialVendor>(std::move(options), std::move(http)));
}

}  // namespace lance::ns
