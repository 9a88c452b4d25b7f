// SPDX-License-Identifier: Apache-2.0
// GcsOptions from Lance's (object_store's) storage-option keys; see gcs_object_store.h.

#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/gcs/gcs_util.h"
#include "lance/core/ascii.h"
#include "lance/core/text.h"
#include "lance/io/gcs_object_store.h"
#include "lance/io/s3/s3_options.h"
#include "lance/io/storage_options.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::gcs {

namespace {

enum class Field {
  kBaseUrl,
  kAllowHttp,
  kAllowInvalidCertificates,
  kSkipSignature,
  kBearerToken,
  kServiceAccountPath,
  kServiceAccountKey,
  kApplicationCredentials,
  kTokenUri,
  kMaxRetries,
  kRetryTimeout,
  kInitialBackoff,
  kMaxBackoff,
  kConnectTimeout,
  kRequestTimeout,
  kStallTimeout,
  kUploadChunkSize,
  kReadChunkSize,
  kMaxConnections,
};

std::optional<Field> FieldOfKey(const std::string& key) {
  static const std::map<std::string, Field, std::less<>> kKeys = {
      {"google_base_url", Field::kBaseUrl},
      {"base_url", Field::kBaseUrl},
      {"allow_invalid_certificates", Field::kAllowInvalidCertificates},
      {"google_skip_signature", Field::kSkipSignature},
      {"skip_signature", Field::kSkipSignature},
      // google_storage_token (Lance's) is read through the one list of credential keys
      // (CredentialSettings); object_store's own name for it is read here.
      {"google_bearer_token", Field::kBearerToken},
      {"google_service_account", Field::kServiceAccountPath},
      {"service_account", Field::kServiceAccountPath},
      {"google_service_account_path", Field::kServiceAccountPath},
      {"service_account_path", Field::kServiceAccountPath},
      {"google_service_account_key", Field::kServiceAccountKey},
      {"service_account_key", Field::kServiceAccountKey},
      {"google_application_credentials", Field::kApplicationCredentials},
      {"application_credentials", Field::kApplicationCredentials},
      {"lance_cpp_google_token_uri", Field::kTokenUri},
      {"client_max_retries", Field::kMaxRetries},
      {"client_retry_timeout", Field::kRetryTimeout},
      {"connect_timeout", Field::kConnectTimeout},
      {"timeout", Field::kRequestTimeout},
      {"lance_cpp_initial_backoff_ms", Field::kInitialBackoff},
      {"lance_cpp_max_backoff_ms", Field::kMaxBackoff},
      {"lance_cpp_stall_timeout", Field::kStallTimeout},
      {"lance_cpp_upload_chunk_size", Field::kUploadChunkSize},
      {"lance_cpp_read_chunk_size", Field::kReadChunkSize},
      {"lance_cpp_max_connections", Field::kMaxConnections},
  };
  auto it = kKeys.find(key);
  if (it != kKeys.end()) return it->second;
  // As for S3: Lance treats every key containing "allow_http" as the switch.
  if (key.find("allow_http") != std::string::npos) return Field::kAllowHttp;
  return std::nullopt;
}

constexpr int64_t kChunkGranularity = 256 * 1024;

using Given = std::map<Field, OptionSetting>;

// One setting per field; two spellings with different values are ambiguous.
Result<Given> GroupOptions(const StorageOptions& options) {
  Given given;
  for (const auto& [key, value] : options) {
    if (TrimAscii(value).empty()) continue;
    std::optional<Field> field = FieldOfKey(AsciiToLower(TrimAscii(key)));
    if (!field) continue;
    auto [it, inserted] = given.try_emplace(*field, OptionSetting{key, value});
    if (!inserted && TrimAscii(it->second.value) != TrimAscii(value)) {
      return ConflictingSettingsError(it->second, OptionSetting{key, value},
                                      "GCS setting");
    }
  }
  return given;
}

struct Reader {
  const Given& given;
  const EnvLookup& env;

  std::optional<OptionSetting> Lookup(Field field, std::string_view env_name = {}) const {
    if (auto it = given.find(field); it != given.end()) return it->second;
    if (env && !env_name.empty()) {
      if (auto v = env(env_name); v.has_value() && !TrimAscii(*v).empty()) {
        return OptionSetting{std::string(env_name), *v};
      }
    }
    return std::nullopt;
  }
  Status Text(Field field, std::string_view env_name, std::string* target) const {
    if (auto s = Lookup(field, env_name)) *target = std::string(TrimAscii(s->value));
    return Status::OK();
  }
  Status Bool(Field field, std::string_view env_name, bool* target) const {
    if (auto s = Lookup(field, env_name)) {
      LANCE_ASSIGN_OR_RAISE(*target, s3::ParseBoolOption(s->source, s->value));
    }
    return Status::OK();
  }
  Status Duration(Field field, std::chrono::milliseconds* target) const {
    if (auto s = Lookup(field)) {
      LANCE_ASSIGN_OR_RAISE(*target, s3::ParseDurationOption(s->source, s->value));
    }
    return Status::OK();
  }
  Result<std::optional<int64_t>> Integer(Field field, int64_t min, int64_t max) const {
    auto s = Lookup(field);
    if (!s) return std::optional<int64_t>();
    std::string_view v = TrimAscii(s->value);
    int64_t out = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size()) {
      return Status::Invalid("storage option '", s->source, "': '", s->value,
                             "' is not a decimal integer");
    }
    if (out < min || out > max) {
      return Status::Invalid("storage option '", s->source, "': ", out,
                             " is out of range [", min, ", ", max, "]");
    }
    return std::optional<int64_t>(out);
  }
  Status Millis(Field field, std::chrono::milliseconds* target) const {
    LANCE_ASSIGN_OR_RAISE(auto ms, Integer(field, 0, 3'600'000));
    if (ms) *target = std::chrono::milliseconds(*ms);
    return Status::OK();
  }
};

// "STORAGE_EMULATOR_HOST" names a host:port (the Google SDKs' convention) or a URL.
std::string EmulatorUrl(std::string value) {
  value = std::string(TrimAscii(value));
  if (value.find("://") == std::string::npos) value = "http://" + value;
  return value;
}

Status ReadConnection(const Reader& r, GcsOptions* o) {
  LANCE_RETURN_NOT_OK(r.Bool(Field::kAllowHttp, "GOOGLE_ALLOW_HTTP", &o->allow_http));
  LANCE_RETURN_NOT_OK(
      r.Bool(Field::kAllowInvalidCertificates, {}, &o->allow_invalid_certificates));
  LANCE_RETURN_NOT_OK(r.Bool(Field::kSkipSignature, {}, &o->skip_signature));
  if (auto s = r.Lookup(Field::kBaseUrl)) {
    o->base_url = std::string(TrimAscii(s->value));
  } else if (r.env) {
    if (auto host = r.env("STORAGE_EMULATOR_HOST"); host && !TrimAscii(*host).empty()) {
      o->base_url = EmulatorUrl(*host);
    }
  }
  return Status::OK();
}

Status ReadCredentials(const StorageOptions& options, const Reader& r, GcsOptions* o) {
  LANCE_ASSIGN_OR_RAISE(auto parts, CredentialSettings(options));
  std::optional<OptionSetting> token = r.Lookup(Field::kBearerToken);
  if (auto it = parts.find(CredentialPart::kGoogleBearerToken); it != parts.end()) {
    if (token && TrimAscii(token->value) != TrimAscii(it->second.value)) {
      return ConflictingSettingsError(it->second, *token, "GCS setting");
    }
    token = it->second;
  }
  if (token) o->bearer_token = std::string(TrimAscii(token->value));
  LANCE_RETURN_NOT_OK(r.Text(Field::kServiceAccountPath, "GOOGLE_SERVICE_ACCOUNT",
                             &o->service_account_path));
  LANCE_RETURN_NOT_OK(r.Text(Field::kServiceAccountKey, "GOOGLE_SERVICE_ACCOUNT_KEY",
                             &o->service_account_key));
  LANCE_RETURN_NOT_OK(r.Text(Field::kApplicationCredentials,
                             "GOOGLE_APPLICATION_CREDENTIALS",
                             &o->application_credentials));
  LANCE_RETURN_NOT_OK(r.Text(Field::kTokenUri, {}, &o->token_uri));
  if (!o->service_account_path.empty() && !o->service_account_key.empty()) {
    return Status::Invalid(
        "storage options: both a service-account key path (google_service_account) and a "
        "service-account key (google_service_account_key) are set; give one");
  }
  return Status::OK();
}

Status ReadTuning(const Reader& r, GcsOptions* o) {
  LANCE_ASSIGN_OR_RAISE(auto retries, r.Integer(Field::kMaxRetries, 0, 1000));
  if (retries) o->max_retries = static_cast<int>(*retries);
  LANCE_RETURN_NOT_OK(r.Duration(Field::kRetryTimeout, &o->retry_timeout));
  LANCE_RETURN_NOT_OK(r.Millis(Field::kInitialBackoff, &o->initial_backoff));
  LANCE_RETURN_NOT_OK(r.Millis(Field::kMaxBackoff, &o->max_backoff));
  LANCE_RETURN_NOT_OK(r.Duration(Field::kConnectTimeout, &o->connect_timeout));
  LANCE_RETURN_NOT_OK(r.Duration(Field::kRequestTimeout, &o->request_timeout));
  LANCE_RETURN_NOT_OK(r.Duration(Field::kStallTimeout, &o->stall_timeout));
  LANCE_ASSIGN_OR_RAISE(auto chunk, r.Integer(Field::kUploadChunkSize, kChunkGranularity,
                                              int64_t{1} << 32));
  if (chunk) {
    if (*chunk % kChunkGranularity != 0) {
      return Status::Invalid("storage option 'lance_cpp_upload_chunk_size': ", *chunk,
                             " is not a multiple of 256 KiB (262144), as resumable "
                             "uploads require");
    }
    o->upload_chunk_size = *chunk;
  }
  LANCE_ASSIGN_OR_RAISE(auto read_chunk,
                        r.Integer(Field::kReadChunkSize, 1, int64_t{1} << 32));
  if (read_chunk) o->read_chunk_size = *read_chunk;
  LANCE_ASSIGN_OR_RAISE(auto connections, r.Integer(Field::kMaxConnections, 1, 1024));
  if (connections) o->max_connections = static_cast<int>(*connections);
  return Status::OK();
}

std::string FormatDuration(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + "s";
  return std::to_string(d.count()) + "ms";
}

}  // namespace

Result<GcsOptions> ParseGcsOptions(const StorageOptions& options, const EnvLookup& env) {
  LANCE_ASSIGN_OR_RAISE(Given given, GroupOptions(options));
  const Reader reader{given, env};
  GcsOptions out;
  LANCE_RETURN_NOT_OK(ReadConnection(reader, &out));
  LANCE_RETURN_NOT_OK(ReadCredentials(options, reader, &out));
  LANCE_RETURN_NOT_OK(ReadTuning(reader, &out));
  while (!out.base_url.empty() && out.base_url.back() == '/') out.base_url.pop_back();
  LANCE_RETURN_NOT_OK(internal::ValidateBaseUrl(out.base_url, out.allow_http));
  return out;
}

std::string GcsOptions::ToString() const {
  std::string out = StrCat("GcsOptions(base_url=", base_url);
  if (allow_http) out += ", allow_http";
  if (allow_invalid_certificates) out += ", allow_invalid_certificates";
  if (skip_signature) out += ", skip_signature";
  if (!bearer_token.empty()) StrAppend(&out, ", token=", kRedactedValue);
  // A path names where a key is, not the key.
  if (!service_account_path.empty())
    StrAppend(&out, ", service_account=", service_account_path);
  if (!service_account_key.empty())
    StrAppend(&out, ", service_account_key=", kRedactedValue);
  if (!application_credentials.empty()) {
    StrAppend(&out, ", application_credentials=", application_credentials);
  }
  if (!token_uri.empty()) StrAppend(&out, ", token_uri=", token_uri);
  StrAppend(&out, ", max_retries=", max_retries,
            ", retry_timeout=", FormatDuration(retry_timeout),
            ", connect_timeout=", FormatDuration(connect_timeout), ", timeout=",
            request_timeout.count() == 0 ? std::string("none")
                                         : FormatDuration(request_timeout),
            ", stall_timeout=", FormatDuration(stall_timeout),
            ", upload_chunk_size=", upload_chunk_size,
            ", read_chunk_size=", read_chunk_size, ", max_connections=", max_connections,
            ")");
  return out;
}

}  // namespace lance::io::gcs
