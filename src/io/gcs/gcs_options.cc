// SPDX-License-Identifier: Apache-2.0
// GcsOptions from Lance's (object_store's) storage-option keys; see gcs_object_store.h.

#include "lance/io/gcs_options.h"

#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/gcs/gcs_util.h"
#include "io/option_reader.h"
#include "lance/core/ascii.h"
#include "lance/core/text.h"
#include "lance/io/s3/s3_options.h"
#include "lance/io/storage_options.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::gcs {

namespace {

// object_store's GCS keys and aliases beyond RemoteTuning's.
constexpr io::internal::OptionAlias kGcsKeys[] = {
    {"google_base_url", "base_url"},
    {"base_url", "base_url"},
    {"allow_invalid_certificates", "allow_invalid_certificates"},
    {"google_skip_signature", "skip_signature"},
    {"skip_signature", "skip_signature"},
    // google_storage_token (Lance's) is read through the one list of credential keys
    // (CredentialSettings); object_store's own name for it is read here.
    {"google_bearer_token", "bearer_token"},
    {"google_service_account", "service_account_path"},
    {"service_account", "service_account_path"},
    {"google_service_account_path", "service_account_path"},
    {"service_account_path", "service_account_path"},
    {"google_service_account_key", "service_account_key"},
    {"service_account_key", "service_account_key"},
    {"google_application_credentials", "application_credentials"},
    {"application_credentials", "application_credentials"},
    {"lance_cpp_google_token_uri", "token_uri"},
    {"lance_cpp_upload_chunk_size", "upload_chunk_size"},
};

constexpr int64_t kChunkGranularity = 256 * 1024;

using ::lance::io::internal::OptionReader;

// "STORAGE_EMULATOR_HOST" names a host:port (the Google SDKs' convention) or a URL.
std::string EmulatorUrl(std::string value) {
  value = std::string(TrimAscii(value));
  if (value.find("://") == std::string::npos) value = "http://" + value;
  return value;
}

Status ReadConnection(const OptionReader& r, GcsOptions* o) {
  LANCE_RETURN_NOT_OK(r.Bool("allow_http", {"GOOGLE_ALLOW_HTTP"}, &o->allow_http));
  LANCE_RETURN_NOT_OK(
      r.Bool("allow_invalid_certificates", {}, &o->allow_invalid_certificates));
  LANCE_RETURN_NOT_OK(r.Bool("skip_signature", {}, &o->skip_signature));
  if (auto s = r.Lookup("base_url")) {
    o->base_url = std::string(TrimAscii(s->value));
  } else if (r.env()) {
    if (auto host = r.env()("STORAGE_EMULATOR_HOST"); host && !TrimAscii(*host).empty()) {
      o->base_url = EmulatorUrl(*host);
    }
  }
  return Status::OK();
}

Status ReadCredentials(const StorageOptions& options, const OptionReader& r,
                       GcsOptions* o) {
  LANCE_ASSIGN_OR_RAISE(auto parts, CredentialSettings(options));
  std::optional<OptionSetting> token = r.Lookup("bearer_token");
  if (auto it = parts.find(CredentialPart::kGoogleBearerToken); it != parts.end()) {
    if (token && TrimAscii(token->value) != TrimAscii(it->second.value)) {
      return ConflictingSettingsError(it->second, *token, "GCS setting");
    }
    token = it->second;
  }
  if (token) o->bearer_token = std::string(TrimAscii(token->value));
  LANCE_RETURN_NOT_OK(r.Text("service_account_path", {"GOOGLE_SERVICE_ACCOUNT"},
                             &o->service_account_path));
  LANCE_RETURN_NOT_OK(r.Text("service_account_key", {"GOOGLE_SERVICE_ACCOUNT_KEY"},
                             &o->service_account_key));
  LANCE_RETURN_NOT_OK(r.Text("application_credentials",
                             {"GOOGLE_APPLICATION_CREDENTIALS"},
                             &o->application_credentials));
  LANCE_RETURN_NOT_OK(r.Text("token_uri", {}, &o->token_uri));
  if (!o->service_account_path.empty() && !o->service_account_key.empty()) {
    return Status::Invalid(
        "storage options: both a service-account key path (google_service_account) and a "
        "service-account key (google_service_account_key) are set; give one");
  }
  return Status::OK();
}

Status ReadTuning(const OptionReader& r, GcsOptions* o) {
  LANCE_RETURN_NOT_OK(io::internal::ReadRemoteTuning(
      r, {.retry_env = false, .max_read_chunk = int64_t{1} << 32}, o));
  LANCE_ASSIGN_OR_RAISE(auto chunk, r.Integer("upload_chunk_size", {}, kChunkGranularity,
                                              int64_t{1} << 32));
  if (chunk) {
    if (*chunk % kChunkGranularity != 0) {
      return Status::Invalid("storage option 'lance_cpp_upload_chunk_size': ", *chunk,
                             " is not a multiple of 256 KiB (262144), as resumable "
                             "uploads require");
    }
    o->upload_chunk_size = *chunk;
  }
  return Status::OK();
}

}  // namespace

Result<GcsOptions> ParseGcsOptions(const StorageOptions& options, const EnvLookup& env) {
  LANCE_ASSIGN_OR_RAISE(const OptionReader reader,
                        OptionReader::Make(options, {kGcsKeys}, "GCS setting", {}, env));
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
  StrAppend(&out, ", ", RetryToString(), ", upload_chunk_size=", upload_chunk_size,
            ", read_chunk_size=", read_chunk_size, ", max_connections=", max_connections,
            ")");
  return out;
}

}  // namespace lance::io::gcs
