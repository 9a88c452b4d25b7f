// SPDX-License-Identifier: Apache-2.0
// Service and user-delegation SAS for Blob storage (see sas.h).

#include "io/azure/sas.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "io/azure/shared_key.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::azure {

namespace {

constexpr std::string_view kPermissionOrder = "racwdxyltmeopi";

// The signedResource letter of each SasResource, in the enum's order.
constexpr std::string_view kResourceCodes[] = {"c", "d", "b"};

std::string_view ResourceCode(SasResource resource) {
  return kResourceCodes[static_cast<size_t>(resource)];
}

// "/blob/<account>/<container>[/<path>]", after checking the scope.
Result<std::string> CanonicalResource(const SasOptions& o) {
  if (o.account.empty() || o.container.empty()) {
    return Status::Invalid("a SAS needs an account and a container");
  }
  const bool wants_path = o.resource != SasResource::kContainer;
  if (wants_path == o.path.empty()) {
    return Status::Invalid(wants_path
                               ? "a blob or directory SAS needs a path"
                               : "a container SAS is for the whole container: no path");
  }
  if (!o.path.empty() && (o.path.front() == '/' || o.path.back() == '/')) {
    return Status::Invalid(
        StrCat("the SAS path '", o.path, "' must not start or end with '/'"));
  }
  std::string out = StrCat("/blob/", o.account, "/", o.container);
  if (!o.path.empty()) StrAppend(&out, "/", o.path);
  return out;
}

// The fields every SAS shares, after the scope ("sip", "spr", "sv", "sr", snapshot, "ses"
// and the five response-header overrides, none of which we set).
std::string CommonTail(const SasOptions& o) {
  return StrCat(o.ip_range, "\n", o.protocol, "\n", o.version, "\n",
                ResourceCode(o.resource), "\n", /*snapshot*/ "", "\n", /*ses*/ "",
                "\n\n\n\n\n");
}

std::string Sign(std::string_view key, std::string_view string_to_sign) {
  return Base64Encode(HmacSha256(key, string_to_sign));
}

using Params = std::vector<std::pair<std::string, std::string>>;

std::string JoinQuery(const Params& params) {
  std::string out;
  for (const auto& [name, value] : params) {
    if (value.empty()) continue;
    if (!out.empty()) out.push_back('&');
    StrAppend(&out, name, "=", UrlEncode(value, /*encode_slash=*/true));
  }
  return out;
}

// The leading parameters ("sv", "st", "se"); AppendScopeParams adds "sr" and the rest.
Params HeadParams(const SasOptions& o) {
  return {{"sv", o.version},
          {"st", o.start ? FormatIso8601(*o.start) : std::string()},
          {"se", FormatIso8601(o.expiry)}};
}

void AppendScopeParams(const SasOptions& o, std::string_view permissions, Params* out) {
  out->emplace_back("sr", std::string(ResourceCode(o.resource)));
  out->emplace_back("sp", std::string(permissions));
  if (o.resource == SasResource::kDirectory) {
    const auto depth = std::count(o.path.begin(), o.path.end(), '/') + 1;
    out->emplace_back("sdd", std::to_string(depth));
  }
  out->emplace_back("sip", o.ip_range);
  out->emplace_back("spr", o.protocol);
}

}  // namespace

std::string UserDelegationKey::ToString() const {
  return StrCat("UserDelegationKey(oid=", signed_oid, ", tid=", signed_tid,
                ", start=", signed_start, ", expiry=", signed_expiry,
                ", value=", value.empty() ? "<none>" : "<redacted>", ")");
}

Result<std::string> NormalizeSasPermissions(std::string_view letters) {
  std::string out;
  for (char c : letters) {
    if (kPermissionOrder.find(c) == std::string_view::npos) {
      return Status::Invalid(StrCat("'", std::string(1, c),
                                    "' is not a Blob SAS permission (one of ",
                                    kPermissionOrder, ")"));
    }
  }
  for (char c : kPermissionOrder) {
    if (letters.find(c) != std::string_view::npos) out.push_back(c);
  }
  if (out.empty()) return Status::Invalid("a SAS needs at least one permission");
  return out;
}

Result<std::string> ServiceSasStringToSign(const SasOptions& o) {
  LANCE_ASSIGN_OR_RAISE(std::string resource, CanonicalResource(o));
  LANCE_ASSIGN_OR_RAISE(std::string permissions, NormalizeSasPermissions(o.permissions));
  return StrCat(permissions, "\n", o.start ? FormatIso8601(*o.start) : std::string(),
                "\n", FormatIso8601(o.expiry), "\n", resource, "\n", /*si*/ "", "\n",
                CommonTail(o));
}

Result<std::string> MakeServiceSas(const SasOptions& o, std::string_view account_key) {
  LANCE_ASSIGN_OR_RAISE(std::string string_to_sign, ServiceSasStringToSign(o));
  Result<std::string> key = Base64Decode(account_key);
  if (!key.ok()) {
    return Status::Invalid(StrCat("the account key signing a SAS for '", o.account,
                                  "' is not valid base64"));
  }
  const std::string sig = Sign(*key, string_to_sign);
  OPENSSL_cleanse(key->data(), key->size());
  Params params = HeadParams(o);
  AppendScopeParams(o, *NormalizeSasPermissions(o.permissions), &params);
  params.emplace_back("sig", sig);
  return JoinQuery(params);
}

Result<std::string> UserDelegationSasStringToSign(const SasOptions& o,
                                                  const UserDelegationKey& k) {
  LANCE_ASSIGN_OR_RAISE(std::string resource, CanonicalResource(o));
  LANCE_ASSIGN_OR_RAISE(std::string permissions, NormalizeSasPermissions(o.permissions));
  return StrCat(permissions, "\n", o.start ? FormatIso8601(*o.start) : std::string(),
                "\n", FormatIso8601(o.expiry), "\n", resource, "\n", k.signed_oid, "\n",
                k.signed_tid, "\n", k.signed_start, "\n", k.signed_expiry, "\n",
                k.signed_service, "\n", k.signed_version, "\n",
                /*saoid*/ "", "\n", /*suoid*/ "", "\n", /*scid*/ "", "\n", CommonTail(o));
}

Result<std::string> MakeUserDelegationSas(const SasOptions& o,
                                          const UserDelegationKey& k) {
  LANCE_ASSIGN_OR_RAISE(std::string string_to_sign, UserDelegationSasStringToSign(o, k));
  Result<std::string> key = Base64Decode(k.value);
  if (!key.ok()) {
    return Status::Invalid("the user delegation key's value is not valid base64");
  }
  const std::string sig = Sign(*key, string_to_sign);
  OPENSSL_cleanse(key->data(), key->size());
  Params params = HeadParams(o);
  for (auto& p : Params{{"skoid", k.signed_oid},
                        {"sktid", k.signed_tid},
                        {"skt", k.signed_start},
                        {"ske", k.signed_expiry},
                        {"sks", k.signed_service},
                        {"skv", k.signed_version}}) {
    params.push_back(std::move(p));
  }
  AppendScopeParams(o, *NormalizeSasPermissions(o.permissions), &params);
  params.emplace_back("sig", sig);
  return JoinQuery(params);
}

std::string RedactSas(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    // "sig=" at the start of a parameter (after '?', '&', a blank or the start).
    const bool at_param = i == 0 || text[i - 1] == '?' || text[i - 1] == '&' ||
                          text[i - 1] == ' ' || text[i - 1] == '\'' || text[i - 1] == '"';
    if (at_param && text.size() - i >= 4 &&
        (text.substr(i, 4) == "sig=" || text.substr(i, 4) == "SIG=")) {
      out.append(text.substr(i, 4));
      out.append("<redacted>");
      i += 4;
      while (i < text.size() && text[i] != '&' && text[i] != ' ' && text[i] != '\'' &&
             text[i] != '"' && text[i] != '\n') {
        ++i;
      }
      continue;
    }
    out.push_back(text[i]);
    ++i;
  }
  return out;
}

std::optional<std::chrono::system_clock::time_point> SasExpiry(std::string_view sas) {
  size_t pos = 0;
  while (pos < sas.size()) {
    size_t end = sas.find('&', pos);
    if (end == std::string_view::npos) end = sas.size();
    std::string_view param = sas.substr(pos, end - pos);
    if (param.substr(0, 3) == "se=") {
      auto time = ParseIso8601(UrlDecode(param.substr(3)));
      if (time.ok()) return *time;
      return std::nullopt;
    }
    pos = end + 1;
  }
  return std::nullopt;
}

}  // namespace lance::io::azure
