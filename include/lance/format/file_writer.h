// SPDX-License-Identifier: Apache-2.0
/// \file file_writer.h
/// \brief LanceFileWriter: writes one Lance data file (file format 2.0, 2.1 or 2.2).

#pragma once

#include <cstdint>
#include <map>
#include <memory>
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

struct FileWriterOptions {
  /// \brief The file format: 2.0, 2.1 or 2.2 (default: what pylance 14 writes, 2.2).
  LanceFileVersion version = kDefaultFileVersion;
  /// \brief Bytes buffered per column before a page is flushed (real Lance: ~8 MiB).
  /// Pages are cut only between top-level rows, so one huge row can exceed it.
  int64_t page_bytes = 8 << 20;
  static FileWriterOptions Defaults() { return {}; }
};

/// \brief What a closed file holds: what a manifest's DataFile entry needs.
struct WrittenFile {
  std::string path;  ///< key in the store
  int64_t num_rows = 0;
  int64_t size_bytes = 0;
  std::vector<int32_t> field_ids;       ///< DataFile.fields
  std::vector<int32_t> column_indices;  ///< DataFile.column_indices
  uint32_t major_version = 2;           ///< DataFile.file_major_version
  uint32_t minor_version = 0;           ///< DataFile.file_minor_version
};

/// \brief Streams record batches into one Lance file.
///
/// Memory is bounded by page_bytes per column plus one batch. The file becomes visible
/// only when Close() succeeds. Not thread-safe; owned by the caller.
class LanceFileWriter {
 public:
  virtual ~LanceFileWriter() = default;

  /// \brief Opens a writer of `path` in `store`. Field ids come from `schema`.
  /// \return NotImplemented for file versions this build cannot write; IOError.
  static Result<std::unique_ptr<LanceFileWriter>> Open(
      std::shared_ptr<io::ObjectStore> store, std::string path, LanceSchema schema,
      FileWriterOptions options = {});

  /// \brief Opens a writer of the file at `uri` (a path, file://, memory://, s3://, or
  /// any scheme the object store registry knows), like pylance's
  /// `LanceFileWriter(path, schema, storage_options=, storage_options_provider=)`:
  /// resolves the store with io::ResolveObjectStore(uri, access) (options, and a provider
  /// or credentials source), then Open. For an Arrow schema without field ids, pass
  /// LanceSchema::Assign(schema, 0).
  /// \return as Open; Invalid for a malformed URI, bad storage options or a URI that
  /// names no file (a store root); NotImplemented for an unknown scheme. Errors name
  /// the URI.
  static Result<std::unique_ptr<LanceFileWriter>> OpenUri(
      std::string_view uri, LanceSchema schema, const io::StorageAccess& access = {},
      FileWriterOptions options = {});

  /// \brief Appends a batch (any slice of a larger batch works).
  ///
  /// v2.0 cannot store struct validity: a null struct slot is written as nulls in its
  /// (nullable) children, so it reads back as a struct of nulls, like real Lance.
  /// Arrow values under null list/string slots are not stored.
  /// \return Invalid if its column types do not match the file's, or after Close/Abort
  /// or an earlier failure; IOError.
  virtual Status WriteBatch(const RecordBatch& batch) = 0;
  /// \brief Flushes pages, writes metadata and footer, publishes the file.
  /// \return the file's DataFile facts; Invalid when already closed or aborted; the
  /// first error of an earlier call; IOError.
  virtual Result<WrittenFile> Close() = 0;
  /// \brief Discards everything; nothing becomes visible.
  virtual Status Abort() = 0;
  virtual int64_t num_rows_written() const = 0;
  virtual const LanceSchema& schema() const = 0;
};

}  // namespace lance::format
