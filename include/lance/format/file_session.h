// SPDX-License-Identifier: Apache-2.0
/// \file file_session.h
/// \brief LanceFileSession: Lance files under one base path that share one store (and so
/// one set of credentials and one refresh), like pylance's
/// `LanceFileSession(base_path, storage_options=, storage_options_provider=)`.

#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/format/file_reader.h"
#include "lance/format/file_writer.h"
#include "lance/format/lance_schema.h"
#include "lance/io/object_store.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/storage_access.h"
#include "lance/result.h"

namespace lance::format {

/// \brief A base location (a path, file://, memory://, s3://...) whose store is resolved
/// once, at Open; every file opened through the session uses that store.
///
/// Paths given to the methods are relative to the base: non-empty, '/'-separated, with
/// no empty, "." or ".." component and no leading '/'.
///
/// Credentials: with a provider (a refreshing source, io::ResolveStorageAccess), the
/// session makes no provider call while the credentials are valid and one per expiry,
/// however many files it opens (they all ask the one source). Local and memory bases
/// never call it.
///
/// Thread-safe: the methods may be called concurrently; each returned writer is used by
/// one thread.
class LanceFileSession {
 public:
  /// \brief Resolves the store of `base_uri` with io::ResolveObjectStore(base_uri,
  /// access) (options, and a provider or credentials source). No request is sent.
  /// \return the session; Invalid for a malformed URI or bad storage options;
  /// NotImplemented for an unknown scheme.
  static Result<std::shared_ptr<LanceFileSession>> Open(
      std::string_view base_uri, const io::StorageAccess& access = {});

  /// \brief True if a file exists at `path`.
  /// \return the answer; Invalid for a bad path; IOError.
  Result<bool> Contains(const std::string& path) const;

  /// \brief Every file below the directory `prefix` (empty: the whole base), recursively,
  /// as paths relative to the base, sorted.
  /// \return the paths; Invalid for a bad prefix; IOError.
  Result<std::vector<std::string>> List(const std::string& prefix = "") const;

  /// \brief A writer of the Lance file at `path` (visible once Close succeeds).
  /// \return as LanceFileWriter::Open; Invalid for a bad path.
  Result<std::unique_ptr<LanceFileWriter>> OpenWriter(
      const std::string& path, LanceSchema schema, FileWriterOptions options = {}) const;

  /// \brief A reader of the Lance file at `path`.
  /// \return as LanceFileReader::Open; Invalid for a bad path.
  Result<std::shared_ptr<LanceFileReader>> OpenReader(
      const std::string& path, FileReaderOptions options = {}) const;

  /// \brief The base URI as given.
  const std::string& base_uri() const { return base_uri_; }
  /// \brief The store every file of the session uses.
  const std::shared_ptr<io::ObjectStore>& store() const { return store_; }

  LanceFileSession(std::string base_uri, std::shared_ptr<io::ObjectStore> store,
                   std::string base_path);

 private:
  /// \brief The store key of `path`, or Invalid naming the path.
  Result<std::string> KeyOf(const std::string& path, std::string_view what) const;

  std::string base_uri_;
  std::shared_ptr<io::ObjectStore> store_;
  /// \brief The base's path inside the store, without trailing '/' (empty: store root).
  std::string base_path_;
};

}  // namespace lance::format
