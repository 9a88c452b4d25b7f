// SPDX-License-Identifier: Apache-2.0
/// \file gcs_object_store.h
/// \brief GcsObjectStore: the ObjectStore of one Google Cloud Storage bucket (gs://
/// URIs), over the JSON API.
///
/// Mapping of the ObjectStore contract onto the JSON API (base URL GcsOptions::base_url):
/// - Head: GET /storage/v1/b/<bucket>/o/<object> (metadata: size, updated, generation).
///   OpenReader pins the generation it saw: its reads ask for that generation, so a
///   replaced or deleted object fails them with IOError "object changed" (never mixed).
///   OpenReaderWithSize skips the metadata request (no pinning).
/// - ReadAt: GET ...?alt=media with a Range header; ranges above read_chunk_size are
/// split
///   into parallel ranged GETs of that size into one buffer (at most max_connections).
/// - Put: one media upload (POST /upload/storage/v1/b/<bucket>/o?uploadType=media&name=).
///   PutIfNotExists: the same with ifGenerationMatch=0 (412 -> AlreadyExists).
/// - OpenWriter: buffers one chunk (upload_chunk_size, a multiple of 256 KiB); an object
///   that fits is one media upload at Close, a larger one a resumable upload
///   (uploadType=resumable) sent chunk by chunk, cancelled (DELETE of the session) on
///   Abort or failure.
/// - List: GET /storage/v1/b/<bucket>/o with prefix, delimiter "/" (unless recursive),
///   startOffset and maxResults; pages are assembled here (see ListOptions), so objects
///   and common prefixes count together against max_keys whatever the server does.
/// - Delete: DELETE (404 is success). Copy: rewriteTo, repeated while the server says it
///   is not done. Rename: copy + delete (not atomic). RenameIfNotExists: a create-only
///   copy (ifGenerationMatch=0) then delete; objects up to upload_chunk_size are copied
///   by download + create-only media upload, larger ones by rewriteTo with
///   ifGenerationMatch=0.
/// Capabilities: conditional put yes, directories no, lexical listing yes, local no.
///
/// Every request asks the CredentialsSource for the current credentials (never cached
/// here) and sends their bearer token as "Authorization: Bearer"; none is sent when the
/// token is empty. Retries, error classes and messages: see src/io/gcs/gcs_client.h.

#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lance/io/credentials.h"
#include "lance/io/gcs_credentials.h"
#include "lance/io/object_store.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/remote_object_store.h"
#include "lance/io/storage_options.h"

namespace lance::io {

namespace gcs {

class GcsClient;  // the transport, private to the io layer (src/io/gcs/gcs_client.h)

/// \brief Everything the GCS client and store need, except the bucket. Parsed from
/// Lance's (object_store's) storage-option keys by ParseGcsOptions; never log it directly
/// (it holds secrets), use ToString().
struct GcsOptions {
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

  /// \brief Retries after the first attempt ("client_max_retries"). Default 10.
  int max_retries = 10;
  /// \brief Stop retrying after this long ("client_retry_timeout", seconds). 180 s.
  std::chrono::milliseconds retry_timeout{180'000};
  /// \brief Backoff: full jitter, doubling from initial to max
  /// ("lance_cpp_initial_backoff_ms", "lance_cpp_max_backoff_ms").
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{15'000};
  /// \brief Connect timeout ("connect_timeout"). Default 5 s.
  std::chrono::milliseconds connect_timeout{5'000};
  /// \brief Whole-request timeout ("timeout"), 0 for none.
  std::chrono::milliseconds request_timeout{0};
  /// \brief Abort a transfer stalled this long ("lance_cpp_stall_timeout"). 30 s.
  std::chrono::milliseconds stall_timeout{30'000};

  /// \brief Resumable-upload chunk, and the largest object written with one media
  /// upload ("lance_cpp_upload_chunk_size", bytes, a positive multiple of 256 KiB).
  /// Default 8 MiB.
  int64_t upload_chunk_size = 8 << 20;
  /// \brief Reads longer than this are split into parallel ranged GETs
  /// ("lance_cpp_read_chunk_size", bytes). Default 8 MiB.
  int64_t read_chunk_size = 8 << 20;
  /// \brief Most concurrent requests of one store ("lance_cpp_max_connections"). 32.
  int max_connections = 32;

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

/// \brief The CredentialsSource that `options` describe: the static bearer token; else a
/// GoogleOAuthCredentialsSource for the service-account key (file or JSON) or the
/// application credentials; else (also with skip_signature or a key with disable_oauth)
/// anonymous. No metadata-server probe. \return Invalid / IOError for an unreadable key.
Result<std::shared_ptr<CredentialsSource>> MakeGcsCredentialsSource(
    const GcsOptions& options);

}  // namespace gcs

class GcsObjectStore final : public RemoteObjectStore {
 public:
  /// \brief A store for `bucket`. `credentials` null: MakeGcsCredentialsSource(options).
  /// \return the store; Invalid for an empty or malformed bucket name.
  static Result<std::shared_ptr<GcsObjectStore>> Make(
      std::string bucket, gcs::GcsOptions options,
      std::shared_ptr<CredentialsSource> credentials = nullptr);

  /// \brief ParseGcsOptions(storage_options, process environment) then Make. A base URL
  /// that a service-account key names (gcs_base_url) applies when no option sets one.
  static Result<std::shared_ptr<GcsObjectStore>> FromStorageOptions(
      std::string bucket, const StorageOptions& storage_options,
      std::shared_ptr<CredentialsSource> credentials = nullptr);

  ~GcsObjectStore() override;

  /// \brief Pages assembled here from the server's (see the file comment).
  Result<ListResult> List(const std::string& prefix,
                          const ListOptions& options = {}) override;
  /// \brief A create-only copy, then a delete (see the file comment).
  Status RenameIfNotExists(const std::string& src, const std::string& dst) override;

  /// \brief "GcsObjectStore(gs://bucket, <GcsOptions::ToString>, <source ToString>)".
  std::string ToString() const override;

  /// \brief The client (tests include the private src/io/gcs/gcs_client.h to use it).
  const std::shared_ptr<gcs::GcsClient>& client() const { return client_; }

 private:
  GcsObjectStore(std::string bucket, std::shared_ptr<gcs::GcsClient> client);

  Result<RemoteObject> StatObject(const std::string& key) override;
  std::shared_ptr<RandomAccessReader> NewReader(const std::string& key, int64_t size,
                                                std::string version) override;
  Result<BufferPtr> GetObject(const std::string& key) override;
  std::unique_ptr<OutputStream> NewWriter(const std::string& key) override;
  Status PutObject(const std::string& key, std::string_view data,
                   bool if_not_exists) override;
  Status DeleteObject(const std::string& key) override;
  Status CopyObject(const std::string& src, const std::string& dst) override;

  std::shared_ptr<gcs::GcsClient> client_;
};

/// \brief MakeGcsObjectStore(bucket, options, credentials): GcsObjectStore::Make.
Result<std::shared_ptr<GcsObjectStore>> MakeGcsObjectStore(
    std::string bucket, gcs::GcsOptions options,
    std::shared_ptr<CredentialsSource> credentials = nullptr);

/// \brief Registers the "gs" scheme on `registry` (replacing any factory): stores built
/// from the storage options, with the registry's credentials source when one is given.
Status RegisterGcsObjectStore(ObjectStoreRegistry* registry);

}  // namespace lance::io
