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

#include "lance/core/ascii.h"
#include "lance/core/text.h"
#include "lance/io/s3/s3_options.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io {

namespace {

enum class Field {
  kAccount,
  kEndpoint,
  kUseEmulator,
  kAllowHttp,
  kAllowInvalidCertificates,
  kClientId,
  kClientSecret,
  kTenantId,
  kAuthorityHost,
  kMaxRetries,
  kRetryTimeout,
  kInitialBackoff,
  kMaxBackoff,
  kConnectTimeout,
  kRequestTimeout,
  kStallTimeout,
  kBlockSize,
  kBlockConcurrency,
  kReadChunkSize,
  kMaxConnections,
};

// Lower-case key -> field: object_store's Azure keys and aliases, and the tuning keys
// the S3 store reads. The credentials (account key, SAS, bearer token) are not here:
// CredentialsFromStorageOptions reads those.
std::optional<Field> FieldOfKey(const std::string& key) {
  static const std::map<std::string, Field, std::less<>> kKeys = {
      {"azure_storage_account_name", Field::kAccount},
      {"account_name", Field::kAccount},
      {"azure_storage_endpoint", Field::kEndpoint},
      {"azure_endpoint", Field::kEndpoint},
      {"endpoint", Field::kEndpoint},
      {"azure_storage_use_emulator", Field::kUseEmulator},
      {"use_emulator", Field::kUseEmulator},
      {"allow_invalid_certificates", Field::kAllowInvalidCertificates},
      {"azure_client_id", Field::kClientId},
      {"azure_storage_client_id", Field::kClientId},
      {"client_id", Field::kClientId},
      {"azure_client_secret", Field::kClientSecret},
      {"azure_storage_client_secret", Field::kClientSecret},
      {"client_secret", Field::kClientSecret},
      {"azure_tenant_id", Field::kTenantId},
      {"azure_storage_tenant_id", Field::kTenantId},
      {"azure_authority_id", Field::kTenantId},
      {"azure_storage_authority_id", Field::kTenantId},
      {"tenant_id", Field::kTenantId},
      {"authority_id", Field::kTenantId},
      {"azure_authority_host", Field::kAuthorityHost},
      {"azure_storage_authority_host", Field::kAuthorityHost},
      {"authority_host", Field::kAuthorityHost},
      {"client_max_retries", Field::kMaxRetries},
      {"client_retry_timeout", Field::kRetryTimeout},
      {"connect_timeout", Field::kConnectTimeout},
      {"timeout", Field::kRequestTimeout},
      {"lance_cpp_initial_backoff_ms", Field::kInitialBackoff},
      {"lance_cpp_max_backoff_ms", Field::kMaxBackoff},
      {"lance_cpp_stall_timeout", Field::kStallTimeout},
      {"lance_cpp_block_size", Field::kBlockSize},
      {"lance_cpp_multipart_part_size", Field::kBlockSize},
      {"lance_cpp_block_concurrency", Field::kBlockConcurrency},
      {"lance_cpp_multipart_concurrency", Field::kBlockConcurrency},
      {"lance_cpp_read_chunk_size", Field::kReadChunkSize},
      {"lance_cpp_max_connections", Field::kMaxConnections},
  };
  auto it = kKeys.find(key);
  if (it != kKeys.end()) return it->second;
  if (key.find("allow_http") != std::string::npos) return Field::kAllowHttp;
  return std::nullopt;
}

using Given = std::map<Field, std::vector<OptionSetting>>;

Result<Given> GroupOptions(const StorageOptions& options) {
  Given given;
  for (const auto& [key, value] : options) {
    if (TrimAscii(value).empty()) continue;
    if (auto field = FieldOfKey(AsciiToLower(TrimAscii(key)))) {
      given[*field].push_back(OptionSetting{key, value});
    }
  }
  for (const auto& [field, settings] : given) {
    for (size_t i = 1; i < settings.size(); ++i) {
      bool same = TrimAscii(settings[i].value) == TrimAscii(settings[0].value);
      if (!same && (field == Field::kAllowHttp || field == Field::kUseEmulator)) {
        auto a = s3::ParseBoolOption(settings[0].source, settings[0].value);
        auto b = s3::ParseBoolOption(settings[i].source, settings[i].value);
        same = a.ok() && b.ok() && *a == *b;
      }
      if (!same)
        return ConflictingSettingsError(settings[0], settings[i], "Azure setting");
    }
  }
  return given;
}

struct Reader {
  const Given& given;
  const EnvLookup& env;

  std::optional<OptionSetting> Lookup(Field field, std::string_view env_name = {}) const {
    if (auto it = given.find(field); it != given.end()) return it->second.front();
    if (env && !env_name.empty()) {
      if (auto v = env(env_name); v.has_value() && !TrimAscii(*v).empty()) {
        return OptionSetting{std::string(env_name), *v};
      }
    }
    return std::nullopt;
  }
  Status String(Field field, std::string_view env_name, std::string* out) const {
    if (auto s = Lookup(field, env_name)) *out = std::string(TrimAscii(s->value));
    return Status::OK();
  }
  Status Bool(Field field, std::string_view env_name, bool* out) const {
    if (auto s = Lookup(field, env_name)) {
      LANCE_ASSIGN_OR_RAISE(*out, s3::ParseBoolOption(s->source, s->value));
    }
    return Status::OK();
  }
  Status Duration(Field field, std::string_view env_name,
                  std::chrono::milliseconds* out) const {
    if (auto s = Lookup(field, env_name)) {
      LANCE_ASSIGN_OR_RAISE(*out, s3::ParseDurationOption(s->source, s->value));
    }
    return Status::OK();
  }
  template <typename Int>
  Status Integer(Field field, std::string_view env_name, int64_t min, int64_t max,
                 Int* out) const {
    auto s = Lookup(field, env_name);
    if (!s) return Status::OK();
    const std::string_view v = TrimAscii(s->value);
    int64_t value = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size()) {
      return Status::Invalid("storage option '", s->source, "': '", s->value,
                             "' is not a decimal integer");
    }
    if (value < min || value > max) {
      return Status::Invalid("storage option '", s->source, "': ", value,
                             " is out of range [", min, ", ", max, "]");
    }
    *out = static_cast<Int>(value);
    return Status::OK();
  }
  Status Millis(Field field, std::chrono::milliseconds* out) const {
    int64_t ms = out->count();
    LANCE_RETURN_NOT_OK(Integer(field, {}, 0, 3'600'000, &ms));
    *out = std::chrono::milliseconds(ms);
    return Status::OK();
  }
};

Status ReadTuning(const Reader& read, AzureOptions* out) {
  LANCE_RETURN_NOT_OK(read.Integer(Field::kMaxRetries, "OBJECT_STORE_CLIENT_MAX_RETRIES",
                                   0, 1000, &out->max_retries));
  LANCE_RETURN_NOT_OK(read.Duration(
      Field::kRetryTimeout, "OBJECT_STORE_CLIENT_RETRY_TIMEOUT", &out->retry_timeout));
  LANCE_RETURN_NOT_OK(read.Millis(Field::kInitialBackoff, &out->initial_backoff));
  LANCE_RETURN_NOT_OK(read.Millis(Field::kMaxBackoff, &out->max_backoff));
  LANCE_RETURN_NOT_OK(read.Duration(Field::kConnectTimeout, {}, &out->connect_timeout));
  LANCE_RETURN_NOT_OK(read.Duration(Field::kRequestTimeout, {}, &out->request_timeout));
  LANCE_RETURN_NOT_OK(read.Duration(Field::kStallTimeout, {}, &out->stall_timeout));
  // Put Block takes up to 4000 MiB; blocks below 1 MiB would only multiply requests.
  LANCE_RETURN_NOT_OK(read.Integer(Field::kBlockSize, {}, int64_t{1} << 20,
                                   int64_t{4000} << 20, &out->block_size));
  LANCE_RETURN_NOT_OK(
      read.Integer(Field::kBlockConcurrency, {}, 1, 1024, &out->block_concurrency));
  LANCE_RETURN_NOT_OK(read.Integer(Field::kReadChunkSize, {}, 1,
                                   std::numeric_limits<int64_t>::max(),
                                   &out->read_chunk_size));
  LANCE_RETURN_NOT_OK(
      read.Integer(Field::kMaxConnections, {}, 1, 1024, &out->max_connections));
  if (out->max_backoff < out->initial_backoff) out->max_backoff = out->initial_backoff;
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
Status ReadAccountAndEndpoint(const Reader& read, std::string_view location_account,
                              AzureOptions* out) {
  LANCE_RETURN_NOT_OK(
      read.String(Field::kAccount, "AZURE_STORAGE_ACCOUNT_NAME", &out->account));
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
      read.Lookup(Field::kEndpoint, "AZURE_STORAGE_ENDPOINT");
  if (!given && out->use_emulator)
    given = read.Lookup(Field::kEndpoint, "AZURITE_BLOB_STORAGE_URL");
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

Status ReadServicePrincipal(const Reader& read, AzureOptions* out) {
  LANCE_RETURN_NOT_OK(read.String(Field::kClientId, "AZURE_CLIENT_ID", &out->client_id));
  LANCE_RETURN_NOT_OK(
      read.String(Field::kClientSecret, "AZURE_CLIENT_SECRET", &out->client_secret));
  LANCE_RETURN_NOT_OK(read.String(Field::kTenantId, "AZURE_TENANT_ID", &out->tenant_id));
  // A secret with an id but no tenant (or the reverse) is a configuration mistake; an id
  // alone is not (managed identities name a client id without a secret).
  if (!out->client_secret.empty() && (out->client_id.empty() || out->tenant_id.empty())) {
    return Status::Invalid(
        "azure_client_secret is set but azure_client_id or azure_tenant_id is not; the "
        "client-credentials token needs all three");
  }
  if (auto host = read.Lookup(Field::kAuthorityHost, "AZURE_AUTHORITY_HOST")) {
    LANCE_ASSIGN_OR_RAISE(out->authority_host, CheckEndpoint(*host, out->allow_http));
  }
  return Status::OK();
}

std::string FormatDuration(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return StrCat(d.count() / 1000, "s");
  return StrCat(d.count(), "ms");
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
  StrAppend(&out, ", max_retries=", max_retries,
            ", retry_timeout=", FormatDuration(retry_timeout),
            ", connect_timeout=", FormatDuration(connect_timeout), ", timeout=",
            request_timeout.count() == 0 ? std::string("none")
                                         : FormatDuration(request_timeout),
            ", block_size=", block_size, ", block_concurrency=", block_concurrency,
            ", read_chunk_size=", read_chunk_size, ", max_connections=", max_connections,
            ")");
  return out;
}

Result<AzureOptions> ParseAzureOptions(const StorageOptions& options,
                                       const EnvLookup& env,
                                       std::string_view location_account) {
  LANCE_ASSIGN_OR_RAISE(Given given, GroupOptions(options));
  const Reader read{given, env};
  AzureOptions out;
  LANCE_RETURN_NOT_OK(
      read.Bool(Field::kUseEmulator, "AZURE_STORAGE_USE_EMULATOR", &out.use_emulator));
  LANCE_RETURN_NOT_OK(read.Bool(Field::kAllowHttp, "AZURE_ALLOW_HTTP", &out.allow_http));
  if (out.use_emulator) out.allow_http = true;
  LANCE_RETURN_NOT_OK(
      read.Bool(Field::kAllowInvalidCertificates, {}, &out.allow_invalid_certificates));
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
