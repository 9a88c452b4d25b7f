// SPDX-License-Identifier: Apache-2.0

#include "lance/io/credentials.h"

#include <utility>

#include "lance/core/text.h"
#include "lance/io/storage_options.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io {

namespace {

// The AWS parts and where else they may come from.
struct AwsPart {
  CredentialPart part;
  std::string_view option;       // the canonical option key, for messages
  std::string_view environment;  // the environment variable
};
constexpr AwsPart kAwsKeyId = {CredentialPart::kAccessKeyId, "aws_access_key_id",
                               "AWS_ACCESS_KEY_ID"};
constexpr AwsPart kAwsSecret = {CredentialPart::kSecretAccessKey, "aws_secret_access_key",
                                "AWS_SECRET_ACCESS_KEY"};
constexpr AwsPart kAwsToken = {CredentialPart::kSessionToken, "aws_session_token",
                               "AWS_SESSION_TOKEN"};

std::optional<OptionSetting> FromEnvironment(const EnvLookup& env, const AwsPart& part) {
  std::optional<std::string> value = env(part.environment);
  if (!value.has_value() || TrimAscii(*value).empty()) return std::nullopt;
  return OptionSetting{std::string(part.environment), std::move(*value)};
}

}  // namespace

Result<Credentials> CredentialsFromStorageOptions(const StorageOptions& options,
                                                  const EnvLookup& env) {
  LANCE_ASSIGN_OR_RAISE(auto given, CredentialSettings(options));
  auto from_options = [&](const AwsPart& part) -> std::optional<OptionSetting> {
    auto it = given.find(part.part);
    if (it == given.end()) return std::nullopt;
    return it->second;
  };
  std::optional<OptionSetting> key_id = from_options(kAwsKeyId);
  std::optional<OptionSetting> secret = from_options(kAwsSecret);
  std::optional<OptionSetting> token = from_options(kAwsToken);
  const bool in_options = key_id || secret || token;
  if (!in_options && env) {
    key_id = FromEnvironment(env, kAwsKeyId);
    secret = FromEnvironment(env, kAwsSecret);
    // A lone AWS_SESSION_TOKEN without keys is not a credential set; ignore it.
    if (key_id || secret) token = FromEnvironment(env, kAwsToken);
  }
  const std::string_view origin = in_options ? "storage option" : "environment variable";
  auto name = [&](const AwsPart& part) {
    return in_options ? part.option : part.environment;
  };
  if (key_id && !secret) {
    return Status::Invalid(origin, " '", key_id->source,
                           "' is set but no secret access key is (", name(kAwsSecret),
                           "); give both or neither");
  }
  if (secret && !key_id) {
    return Status::Invalid(origin, " '", secret->source,
                           "' is set but no access key id is (", name(kAwsKeyId),
                           "); give both or neither");
  }
  if (token && !key_id) {
    return Status::Invalid("storage option '", token->source,
                           "' (a session token) is set without aws_access_key_id and "
                           "aws_secret_access_key");
  }
  Credentials out;
  if (key_id) {
    out.aws.access_key_id = std::string(TrimAscii(key_id->value));
    out.aws.secret_access_key = std::string(TrimAscii(secret->value));
    if (token) out.aws.session_token = std::string(TrimAscii(token->value));
  }
  auto part_value = [&](CredentialPart part) {
    auto it = given.find(part);
    return it == given.end() ? std::string() : std::string(TrimAscii(it->second.value));
  };
  out.azure.account_key = part_value(CredentialPart::kAzureAccountKey);
  out.azure.sas_token = part_value(CredentialPart::kAzureSasToken);
  // A SAS copied from a portal or a URL often keeps its '?'.
  if (!out.azure.sas_token.empty() && out.azure.sas_token.front() == '?') {
    out.azure.sas_token.erase(0, 1);
  }
  out.azure.bearer_token = part_value(CredentialPart::kAzureBearerToken);
  out.google.bearer_token = part_value(CredentialPart::kGoogleBearerToken);
  return out;
}

std::string s3::AwsCredentials::ToString() const {
  std::string out = "AwsCredentials{access_key_id=";
  out += RedactOptionValue("aws_access_key_id", access_key_id);
  out += ", secret_access_key=<redacted>, session_token=";
  out += session_token.empty() ? "<none>" : "<redacted>";
  out += "}";
  return out;
}

std::string Credentials::ToString() const {
  std::string out;
  auto add = [&out](std::string_view part) {
    if (!out.empty()) out += ", ";
    out += part;
  };
  if (!aws.empty()) add(aws.ToString());
  if (!azure.empty()) {
    std::string parts;
    for (auto [name, value] : {std::pair<std::string_view, const std::string*>{
                                   "account_key", &azure.account_key},
                               {"sas_token", &azure.sas_token},
                               {"bearer_token", &azure.bearer_token}}) {
      if (value->empty()) continue;
      if (!parts.empty()) parts += ", ";
      parts += StrCat(name, "=", kRedactedValue);
    }
    add(StrCat("AzureCredentials{", parts, "}"));
  }
  if (!google.empty())
    add(StrCat("GoogleCredentials{bearer_token=", kRedactedValue, "}"));
  return out.empty() ? std::string("Credentials{anonymous}") : out;
}

Result<std::shared_ptr<const Credentials>> CredentialsSource::OnRejected(
    const Credentials& rejected) {
  return Status::Unauthorized("the server rejected the credentials " +
                              rejected.ToString() + " and " + ToString() +
                              " cannot refresh them");
}

StaticCredentialsSource::StaticCredentialsSource(Credentials credentials)
    : credentials_(std::make_shared<const Credentials>(std::move(credentials))) {}

Result<std::shared_ptr<const Credentials>> StaticCredentialsSource::Current() {
  return credentials_;
}

std::string StaticCredentialsSource::id() const { return "static"; }

std::string StaticCredentialsSource::ToString() const {
  if (credentials_->empty()) return "StaticCredentials(anonymous)";
  return "StaticCredentials(" + credentials_->ToString() + ")";
}

}  // namespace lance::io
