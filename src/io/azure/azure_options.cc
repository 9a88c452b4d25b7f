// SPDX-License-Identifier: Apache-2.0
// Lance's Azure storage options to AzureOptions (see azure_options.h).

#include "lance/io/azure_options.h"

#include <cctype>
#include <charconv>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "io/option_reader.h"
#include "lance/core/ascii.h"
#include "lance/core/text.h"
#include "lance/io/s3/s3_options.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io {

namespace {

// object_store's Azure keys and aliases beyond RemoteTuning's. The credentials (account
// key, SAS, bearer token) are not here: CredentialsFromStorageOptions reads those.
constexpr internal::OptionAlias kAzureKeys[] = {
    {"azure_storage_account_name", "account"},
    {"account_name", "account"},
    {"azure_storage_endpoint", "endpoint"},
    {"azure_endpoint", "endpoint"},
    {"endpoint", "endpoint"},
    {"azure_storage_use_emulator", "use_emulator"},
    {"use_emulator", "use_emulator"},
    {"allow_invalid_certificates", "allow_invalid_certificates"},
    {"azure_client_id", "client_id"},
    {"azure_storage_client_id", "client_id"},
    {"client_id", "client_id"},
    {"azure_client_secret", "client_secret"},
    {"azure_storage_client_secret", "client_secret"},
    {"client_secret", "client_secret"},
    {"azure_tenant_id", "tenant_id"},
    {"azure_storage_tenant_id", "tenant_id"},
    {"azure_authority_id", "tenant_id"},
    {"azure_storage_authority_id", "tenant_id"},
    {"tenant_id", "tenant_id"},
    {"authority_id", "tenant_id"},
    {"azure_authority_host", "authority_host"},
    {"azure_storage_authority_host", "authority_host"},
    {"authority_host", "authority_host"},
    {"lance_cpp_block_size", "block_size"},
    {"lance_cpp_multipart_part_size", "block_size"},
    {"lance_cpp_block_concurrency", "block_concurrency"},
    {"lance_cpp_multipart_concurrency", "block_concurrency"},
};

using internal::OptionReader;

Status ReadTuning(const OptionReader& read, AzureOptions* out) {
  LANCE_RETURN_NOT_OK(internal::ReadRemoteTuning(read, {}, out));
  // Put Block takes up to 4000 MiB; blocks below 1 MiB would only multiply requests.
  LANCE_RETURN_NOT_OK(read.Integer("block_size", {}, int64_t{1} << 20,
                                   int64_t{4000} << 20, &out->block_size));
  LANCE_RETURN_NOT_OK(
      read.Integer("block_concurrency", {}, 1, 1024, &out->block_concurrency));
  return Status::OK();
}

// An endpoint as given, checked: http(s)://host[:port][/path], no user info, query or
// fragment; no trailing '/'.
Result<std::string> CheckEndpoint(const OptionSetting& setting, bool allow_http) {
  std::string endpoint(TrimAscii(setting.value));
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  const std::string lower = AsciiToLower(endpoint);
  const std::string where = StrCat("storage option '", setting.source, "'");
  const bool https = lower.rfind("https://", 0) == 0;
  if (!https && lower.rfind("http://", 0) != 0) {
    return Status::Invalid(where, ": endpoint '", endpoint,
                           "' must start with http:// or https://");
  }
  const std::string_view rest = std::string_view(endpoint).substr(https ? 8 : 7);
  const std::string_view authority = rest.substr(0, rest.find('/'));
  if (authority.find('@') != std::string_view::npos) {
    return Status::Invalid(where, ": the endpoint must not contain user info");
  }
  if (authority.empty() || authority.front() == ':' ||
      endpoint.find_first_of("?#") != std::string::npos) {
    return Status::Invalid(where, ": endpoint '", endpoint,
                           "' needs a host and no query or fragment");
  }
  if (!https && !allow_http) {
    return Status::Invalid(where, ": endpoint '", endpoint,
                           "' uses http:// but allow_http is not set; set the storage "
                           "option allow_http=true to permit it");
  }
  return endpoint;
}

// The account and the base URL.
Status ReadAccountAndEndpoint(const OptionReader& read, std::string_view location_account,
                              AzureOptions* out) {
  LANCE_RETURN_NOT_OK(
      read.Text("account", {"AZURE_STORAGE_ACCOUNT_NAME"}, &out->account));
  if (out->account.empty()) out->account = std::string(location_account);
  if (out->account.empty() && out->use_emulator) {
    out->account = std::string(kAzureEmulatorAccount);
  }
  if (out->account.empty()) {
    return Status::Invalid(
        "no Azure storage account: set the storage option azure_storage_account_name "
        "(or use an abfss://container@<account>.dfs.core.windows.net location)");
  }
  for (char c : out->account) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') {
      return Status::Invalid("the Azure storage account name '", out->account,
                             "' may only contain letters, digits and '-'");
    }
  }
  std::optional<OptionSetting> given =
      read.Lookup("endpoint", {"AZURE_STORAGE_ENDPOINT"});
  if (!given && out->use_emulator)
    given = read.Lookup("endpoint", {"AZURITE_BLOB_STORAGE_URL"});
  if (given) {
    LANCE_ASSIGN_OR_RAISE(out->endpoint, CheckEndpoint(*given, out->allow_http));
  } else if (out->use_emulator) {
    out->endpoint = std::string(kAzureEmulatorUrl);
  } else {
    out->endpoint = StrCat("https://", out->account, ".blob.core.windows.net");
  }
  // The emulator addresses the account in the path ("http://host:port/<account>").
  const std::string suffix = "/" + out->account;
  if (out->use_emulator && (out->endpoint.size() < suffix.size() ||
                            out->endpoint.compare(out->endpoint.size() - suffix.size(),
                                                  suffix.size(), suffix) != 0)) {
    out->endpoint += suffix;
  }
  return Status::OK();
}

Status ReadServicePrincipal(const OptionReader& read, AzureOptions* out) {
  LANCE_RETURN_NOT_OK(read.Text("client_id", {"AZURE_CLIENT_ID"}, &out->client_id));
  LANCE_RETURN_NOT_OK(
      read.Text("client_secret", {"AZURE_CLIENT_SECRET"}, &out->client_secret));
  LANCE_RETURN_NOT_OK(read.Text("tenant_id", {"AZURE_TENANT_ID"}, &out->tenant_id));
  // A secret with an id but no tenant (or the reverse) is a configuration mistake; an id
  // alone is not (managed identities name a client id without a secret).
  if (!out->client_secret.empty() && (out->client_id.empty() || out->tenant_id.empty())) {
    return Status::Invalid(
        "azure_client_secret is set but azure_client_id or azure_tenant_id is not; the "
        "client-credentials token needs all three");
  }
  if (auto host = read.Lookup("authority_host", {"AZURE_AUTHORITY_HOST"})) {
    LANCE_ASSIGN_OR_RAISE(out->authority_host, CheckEndpoint(*host, out->allow_http));
  }
  return Status::OK();
}

}  // namespace

std::string AzureOptions::ToString() const {
  std::string out = StrCat("AzureOptions(account=", account, ", endpoint=", endpoint);
  if (use_emulator) out += ", emulator";
  if (allow_http) out += ", allow_http";
  if (allow_invalid_certificates) out += ", allow_invalid_certificates";
  out += ", credentials=";
  if (!credentials.account_key.empty()) {
    out += "account-key";
  } else if (!credentials.sas_token.empty()) {
    out += "sas";
  } else if (!credentials.bearer_token.empty()) {
    out += "bearer-token";
  } else if (!client_secret.empty()) {
    StrAppend(&out, "client-secret(client_id=", client_id, ", tenant=", tenant_id, ")");
  } else {
    out += "<none>";
  }
  StrAppend(&out, ", ", RetryToString(), ", block_size=", block_size,
            ", block_concurrency=", block_concurrency,
            ", read_chunk_size=", read_chunk_size, ", max_connections=", max_connections,
            ")");
  return out;
}

Result<AzureOptions> ParseAzureOptions(const StorageOptions& options,
                                       const EnvLookup& env,
                                       std::string_view location_account) {
  LANCE_ASSIGN_OR_RAISE(
      const OptionReader read,
      OptionReader::Make(options, {kAzureKeys}, "Azure setting",
                         {internal::kAllowHttpSetting, "use_emulator"}, env));
  AzureOptions out;
  LANCE_RETURN_NOT_OK(
      read.Bool("use_emulator", {"AZURE_STORAGE_USE_EMULATOR"}, &out.use_emulator));
  LANCE_RETURN_NOT_OK(read.Bool("allow_http", {"AZURE_ALLOW_HTTP"}, &out.allow_http));
  if (out.use_emulator) out.allow_http = true;
  LANCE_RETURN_NOT_OK(
      read.Bool("allow_invalid_certificates", {}, &out.allow_invalid_certificates));
  LANCE_RETURN_NOT_OK(ReadTuning(read, &out));
  LANCE_RETURN_NOT_OK(ReadAccountAndEndpoint(read, location_account, &out));
  LANCE_RETURN_NOT_OK(ReadServicePrincipal(read, &out));
  LANCE_ASSIGN_OR_RAISE(Credentials credentials,
                        CredentialsFromStorageOptions(options, env));
  out.credentials = std::move(credentials.azure);
  // The emulator's well-known key when nothing else authorizes the requests.
  if (out.use_emulator && out.credentials.account_key.empty() &&
      out.credentials.sas_token.empty() && out.credentials.bearer_token.empty() &&
      out.client_secret.empty()) {
    out.credentials.account_key = std::string(kAzureEmulatorKey);
  }
  return out;
}

}  // namespace lance::io
