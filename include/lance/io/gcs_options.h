// SPDX-License-Identifier: Apache-2.0
/// \file gcs_options.h
/// \brief GcsOptions: the Google Cloud Storage store's configuration, parsed from Lance's
/// (object_store's) storage options.

#pragma once

#include <cstdint>
#include <string>

#include "lance/io/credentials.h"
#include "lance/io/remote_tuning.h"
#include "lance/io/storage_options.h"
#include "lance/result.h"

namespace lance::io::gcs {

/// \brief Everything the GCS client and store need, except the bucket. Parsed from
/// Lance's (object_store's) storage-option keys by ParseGcsOptions; never log it directly
/// (it holds secrets), use ToString(). Retries, timeouts, read chunks and connections:
/// RemoteTuning (without the OBJECT_STORE_CLIENT_* environment variables; reads of at
/// most 4 GiB).
struct GcsOptions : RemoteTuning {
  /// \brief Scheme + host [+ port] [+ path], no trailing '/' ("google_base_url" |
  /// "base_url", else a service-account key's "gcs_base_url", else
  /// STORAGE_EMULATOR_HOST). Default "https://storage.googleapis.com".
  std::string base_url = "https://storage.googleapis.com";
  /// \brief Permit http:// URLs ("allow_http", GOOGLE_ALLOW_HTTP). Default false.
  bool allow_http = false;
  /// \brief Skip TLS certificate checks ("allow_invalid_certificates").
  bool allow_invalid_certificates = false;
  /// \brief Send every request without a token ("google_skip_signature" |
  /// "skip_signature").
  bool skip_signature = false;

  /// \brief A static OAuth bearer token ("google_storage_token", Lance's key, read
  /// through the credential keys' list; "google_bearer_token", object_store's).
  std::string bearer_token;
  /// \brief Path of a service-account key file ("google_service_account" |
  /// "service_account" | "google_service_account_path" | "service_account_path";
  /// GOOGLE_SERVICE_ACCOUNT).
  std::string service_account_path;
  /// \brief A service-account key's JSON ("google_service_account_key" |
  /// "service_account_key"; GOOGLE_SERVICE_ACCOUNT_KEY).
  std::string service_account_key;
  /// \brief Application default credentials file ("google_application_credentials" |
  /// "application_credentials"; GOOGLE_APPLICATION_CREDENTIALS): a service account or an
  /// authorized user. Used only when neither of the two above is given.
  std::string application_credentials;
  /// \brief Overrides the token endpoint of the key (tests;
  /// "lance_cpp_google_token_uri").
  std::string token_uri;

  /// \brief Resumable-upload chunk, and the largest object written with one media
  /// upload ("lance_cpp_upload_chunk_size", bytes, a positive multiple of 256 KiB).
  /// Default 8 MiB.
  int64_t upload_chunk_size = 8 << 20;

  /// \brief "GcsOptions(base_url=..., token=<redacted>, service_account=<path>, ...)":
  /// never a token or key.
  std::string ToString() const;
};

/// \brief Parses Lance storage options for GCS. Keys are matched case-insensitively;
/// unknown keys are ignored. Values missing from `options` come from `env` where noted
/// above. Booleans, durations and integers as in s3::ParseS3Options.
/// \return Invalid naming the key (never a secret value) for a malformed value, an http
/// base URL without allow_http, both a key path and a key JSON, a bad chunk size.
Result<GcsOptions> ParseGcsOptions(const StorageOptions& options,
                                   const EnvLookup& env = nullptr);

}  // namespace lance::io::gcs
