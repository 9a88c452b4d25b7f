// SPDX-License-Identifier: Apache-2.0
/// \file file_reader.h
/// \brief LanceFileReader: reads one Lance data file of any version (legacy 0.1/0.2,
/// 2.0, 2.1, 2.2): streams of rows and random access (Take).

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/record_batch.h"
#include "lance/format/lance_schema.h"
#include "lance/io/object_store.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/storage_access.h"
#include "lance/result.h"

namespace lance::format {

struct FileReaderOptions {
  /// \brief The file size if known (manifests record it), -1 if not. When given, the
  /// file is opened with ObjectStore::OpenReaderWithSize, so remote stores skip the
  /// metadata request (HEAD). Stores that still look the size up compare it: a
  /// mismatch fails Open with Corrupt. Stores that trust it find a wrong size when the
  /// footer does not decode or a read comes back short (Corrupt too).
  int64_t file_size = -1;
};

struct FileReadOptions {
  /// \brief Top-level field ids to read, in output order; empty means all columns.
  std::vector<int32_t> field_ids;
  /// \brief First row and number of rows (-1: to the end).
  int64_t offset = 0;
  int64_t length = -1;
  /// \brief Rows per output batch.
  int64_t batch_size = 8192;
};

/// \brief Reads a Lance file's metadata once, then any columns and row ranges.
///
/// Thread-safe after Open: concurrent Read calls are allowed; each returned
/// RecordBatchReader is used by one thread. Memory of a streaming read is bounded by
/// the pages it touches for one batch.
class LanceFileReader {
 public:
  virtual ~LanceFileReader() = default;

  /// \brief Opens `path`: reads the footer and metadata (one read of the file's last
  /// 64 KiB, plus one more when the metadata is larger) and validates every page
  /// position and row count against the file.
  /// \return NotFound; Corrupt (bad magic, truncated or inconsistent metadata -- the
  /// message names the file); NotImplemented for unknown
  /// versions and unsupported logical types (the message names the file).
  static Result<std::shared_ptr<LanceFileReader>> Open(
      std::shared_ptr<io::ObjectStore> store, std::string path,
      FileReaderOptions options = {});

  /// \brief Opens the file at `uri` (a path, file://, memory://, s3://, or any scheme
  /// the object store registry knows), like pylance's
  /// `LanceFileReader(path, storage_options=, storage_options_provider=)`: resolves the
  /// store with io::ResolveObjectStore(uri, access) (options, and a provider or
  /// credentials source), then Open.
  /// \return as Open; Invalid for a malformed URI, bad storage options or a URI that
  /// names no file (a store root); NotImplemented for an unknown scheme. Errors name
  /// the URI.
  static Result<std::shared_ptr<LanceFileReader>> OpenUri(
      std::string_view uri, const io::StorageAccess& access = {},
      FileReaderOptions options = {});

  /// \brief The file's schema with the ids of the fields it stores.
  virtual const LanceSchema& schema() const = 0;
  virtual int64_t num_rows() const = 0;
  virtual LanceFileVersion version() const = 0;
  /// \brief The file as messages name it: ObjectStore::DisplayPath of its key (an
  /// absolute local path, or a full URI).
  virtual const std::string& path() const = 0;

  /// \brief Streams the requested columns and rows.
  ///
  /// Each batch reads only the pages holding its rows (adjacent buffers coalesced into
  /// one read, reads issued concurrently on remote stores) and decodes only the slots it
  /// returns. Structs come back without validity (v2.0 stores none); fixed_size_list
  /// items come back as a nullable field named "item".
  /// \return NotImplemented (from Next()) naming the file and an encoding this build
  /// lacks; Invalid for unknown or non-top-level field ids, out-of-range rows or
  /// batch_size <= 0; Corrupt (naming the file); IOError.
  virtual Result<RecordBatchReaderPtr> Read(const FileReadOptions& options) const = 0;
  /// \brief The rows at `indices` (any order, repeats allowed), in that order, of the
  /// top-level fields `field_ids` (empty: all).
  ///
  /// Reads only what holds those rows: the mini-block chunks or full-zip values (2.1,
  /// 2.2), the pages (2.0) -- each at most once, in coalesced requests.
  /// \return Invalid for a row outside the file or an unknown field id; the errors of
  /// Read.
  virtual Result<RecordBatchPtr> Take(
      const std::vector<int64_t>& indices,
      const std::vector<int32_t>& field_ids = {}) const = 0;
  /// \brief Reads the requested columns and rows into one table.
  Result<TablePtr> ReadTable(const FileReadOptions& options = {}) const;
};

}  // namespace lance::format
