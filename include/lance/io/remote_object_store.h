// SPDX-License-Identifier: Apache-2.0
/// \file remote_object_store.h
/// \brief RemoteObjectStore: the base of the stores of one cloud bucket or container
/// (S3ObjectStore, AzureObjectStore, GcsObjectStore).
///
/// The three map the ObjectStore contract onto their services the same way; this class
/// does it once, over a few primitives each store implements with its client:
/// - Head: the object's metadata (StatObject). OpenReader pins the version it saw (an
///   ETag, a GCS generation), so a replaced object fails the reads instead of mixing
///   two versions; OpenReaderWithSize skips the metadata request and pins nothing.
/// - Read: one GET (GetObject), one consistent version. ReadRange: ObjectStore's
///   default (OpenReader, then a ranged read: the size decides the short-read and
///   past-the-end rules, which a ranged GET past the end answers per server).
/// - Put / PutIfNotExists: one upload, create-only for the latter (PutObject).
/// - Copy: a server-side copy (CopyObject); a copy onto itself only checks the source
///   exists (S3 refuses one that changes nothing). Rename: ObjectStore's copy + delete.
/// Keys are validated first, and an invalid one is reported with the operation and URI.
/// Capabilities: conditional put yes, directories no, lexical listing yes, local no.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "lance/io/object_store.h"

namespace lance::io {

class RemoteObjectStore : public ObjectStore {
 public:
  Result<ObjectMeta> Head(const std::string& path) override;
  Result<std::shared_ptr<RandomAccessReader>> OpenReader(
      const std::string& path) override;
  Result<std::shared_ptr<RandomAccessReader>> OpenReaderWithSize(const std::string& path,
                                                                 int64_t size) override;
  Result<BufferPtr> Read(const std::string& path) override;
  Result<std::unique_ptr<OutputStream>> OpenWriter(const std::string& path) override;
  Status Put(const std::string& path, std::string_view data) override;
  Status PutIfNotExists(const std::string& path, std::string_view data) override;
  Status Delete(const std::string& path) override;
  Status Copy(const std::string& src, const std::string& dst) override;

  ObjectStoreCapabilities capabilities() const override { return {}; }
  /// \brief "<scheme>://<bucket>".
  const std::string& uri() const override { return uri_; }
  /// \brief The bucket (the container on Azure).
  const std::string& root() const override { return bucket_; }

 protected:
  /// \brief What a reader needs to know of an object.
  struct RemoteObject {
    ObjectMeta meta;
    /// \brief What a reader pins: the ETag, or the generation in decimal (GCS).
    std::string version;
  };

  RemoteObjectStore(std::string bucket, std::string uri)
      : bucket_(std::move(bucket)), uri_(std::move(uri)) {}

  /// \brief The metadata of `key`. REQUIRES (all primitives): the keys are valid.
  virtual Result<RemoteObject> StatObject(const std::string& key) = 0;
  /// \brief A reader of `key`, `size` bytes long, reading `version` (empty: any).
  virtual std::shared_ptr<RandomAccessReader> NewReader(const std::string& key,
                                                        int64_t size,
                                                        std::string version) = 0;
  /// \brief The whole object, with one request.
  virtual Result<BufferPtr> GetObject(const std::string& key) = 0;
  /// \brief A streaming writer of `key`.
  virtual std::unique_ptr<OutputStream> NewWriter(const std::string& key) = 0;
  /// \brief Uploads `data` as `key`; with `if_not_exists`, only if there is no object
  /// (else AlreadyExists).
  virtual Status PutObject(const std::string& key, std::string_view data,
                           bool if_not_exists) = 0;
  /// \brief Deletes `key`; a missing object is OK.
  virtual Status DeleteObject(const std::string& key) = 0;
  /// \brief Copies `src` to `dst` on the server. REQUIRES: src != dst.
  virtual Status CopyObject(const std::string& src, const std::string& dst) = 0;

  /// \brief ValidateObjectPath, naming `action` and the key's URI when it fails.
  Status CheckKey(const std::string& key, std::string_view action) const;

  /// \brief For a store opened under another scheme ("s3a", "abfss").
  void set_uri(std::string uri) { uri_ = std::move(uri); }

 private:
  std::string bucket_;
  std::string uri_;
};

}  // namespace lance::io
