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
#include "lance/io/gcs_options.h"
#include "lance/io/object_store.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/remote_object_store.h"
#include "lance/io/storage_options.h"

namespace lance::io {

namespace gcs {

class GcsClient;  // the transport, private to the io layer (src/io/gcs/gcs_client.h)

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
