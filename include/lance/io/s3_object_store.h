// SPDX-License-Identifier: Apache-2.0
/// \file s3_object_store.h
/// \brief S3ObjectStore: the ObjectStore of one S3 bucket (s3:// and s3a:// URIs).
///
/// Mapping of the ObjectStore contract onto S3:
/// - Head/OpenReader: HEAD; a reader pins the ETag it saw and reads with If-Match, so it
///   never mixes two versions of an object (a replaced object fails the read with
///   IOError "object changed"). OpenReaderWithSize skips the HEAD (no pinning), which is
///   what the table layer uses: its files are immutable and their sizes are known.
/// - ReadAt: one ranged GET, or for ranges above S3Options::read_chunk_size parallel
///   ranged GETs of that size into one buffer.
/// - OpenWriter: buffers up to one part; objects smaller than
///   S3Options::multipart_part_size are one PUT at Close, larger ones a multipart upload
///   with at most multipart_concurrency parts in flight (memory bounded by
///   (concurrency + 1) * part size), aborted on any failure or on Abort().
/// - Put: single PUT. PutIfNotExists: single PUT with If-None-Match: * (never multipart:
///   RGW ignores the condition on CompleteMultipartUpload).
/// - List: ListObjectsV2 (delimiter "/" unless recursive), continuation tokens passed
///   through. DeleteMany/DeletePrefix: DeleteObjects in batches of 1000.
/// - Copy: CopyObject. Rename: copy + delete (not atomic). RenameIfNotExists: GET +
///   PutIfNotExists + delete (the create is atomic; for small objects only, up to 5 GiB).
/// Capabilities: conditional put yes, directories no, lexical listing yes, local no.

#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lance/io/credentials.h"
#include "lance/io/object_store.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/remote_object_store.h"
#include "lance/io/s3/s3_options.h"

namespace lance::io {

namespace s3 {
class S3Client;  // the transport, private to the io layer (src/io/s3/s3_client.h)
}  // namespace s3

class S3ObjectStore final : public RemoteObjectStore {
 public:
  /// \brief A store for `bucket` with parsed options. `credentials` null: a
  /// StaticCredentialsSource over options.credentials (anonymous when empty).
  /// \return the store; Invalid for an empty or malformed bucket name.
  static Result<std::shared_ptr<S3ObjectStore>> Make(
      std::string bucket, s3::S3Options options,
      std::shared_ptr<CredentialsSource> credentials = nullptr);

  /// \brief ParseS3Options(storage_options) then Make. `scheme` ("s3" or "s3a") only
  /// shapes uri().
  static Result<std::shared_ptr<S3ObjectStore>> FromStorageOptions(
      std::string bucket, const StorageOptions& storage_options,
      std::shared_ptr<CredentialsSource> credentials = nullptr,
      std::string scheme = "s3");

  ~S3ObjectStore() override;

  Result<ListResult> List(const std::string& prefix,
                          const ListOptions& options = {}) override;
  /// \brief DeleteObjects in batches of 1000, all keys validated first.
  Status DeleteMany(const std::vector<std::string>& paths) override;
  /// \brief Lists and deletes page by page.
  Status DeletePrefix(const std::string& prefix) override;

  /// \brief "S3ObjectStore(s3://bucket, <S3Options::ToString>, <source ToString>)".
  std::string ToString() const override;

  /// \brief The client (for stats in tests and benchmarks, which include the private
  /// src/io/s3/s3_client.h to use it).
  const std::shared_ptr<s3::S3Client>& client() const { return client_; }

 private:
  S3ObjectStore(std::string bucket, std::string uri,
                std::shared_ptr<s3::S3Client> client);

  Result<RemoteObject> StatObject(const std::string& key) override;
  std::shared_ptr<RandomAccessReader> NewReader(const std::string& key, int64_t size,
                                                std::string version) override;
  Result<BufferPtr> GetObject(const std::string& key) override;
  std::unique_ptr<OutputStream> NewWriter(const std::string& key) override;
  Status PutObject(const std::string& key, std::string_view data,
                   bool if_not_exists) override;
  Status DeleteObject(const std::string& key) override;
  Status CopyObject(const std::string& src, const std::string& dst) override;

  std::shared_ptr<s3::S3Client> client_;
};

/// \brief Registers the "s3" and "s3a" schemes on `registry` (replacing any factory):
/// stores built from the storage options, with the registry's credentials source when
/// one is given. \return OK.
Status RegisterS3ObjectStore(ObjectStoreRegistry* registry);

}  // namespace lance::io
