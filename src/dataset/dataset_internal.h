// SPDX-License-Identifier: Apache-2.0
// Internals shared by dataset.cc (open, write, commit, delete), scan.cc (reads) and the
// rest of the dataset layer: the loaded dataset version (DatasetImpl).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/format/file_reader.h"
#include "lance/format/lance_schema.h"
#include "table/deletion.h"
#include "table/manifest.h"
#include "table/predicate/predicate.h"

namespace lance {

/// \brief One loaded version of a dataset. Immutable once built, so scans share it.
class DatasetImpl {
 public:
  std::string uri;
  /// \brief The access the store was resolved with (resolved: a provider's source is
  /// built), kept so that other versions opened from this one resolve the same way.
  io::StorageAccess access;
  table_internal::DatasetDir dir;
  table_internal::LoadedManifest manifest;
  format::LanceSchema schema;
  std::vector<FragmentMetadata> fragments;
  std::string data_storage_version;

  const table_internal::pb::Manifest& proto() const { return manifest.manifest; }
  /// \brief The manifest file's URI, for messages.
  std::string manifest_uri() const {
    return dir.store()->DisplayPath(manifest.location.key);
  }
};

/// \brief The state behind a Dataset, for the dataset layer's code and its tests (other
/// layers use the public API only).
struct DatasetImplAccess {
  static const std::shared_ptr<DatasetImpl>& Get(const Dataset& dataset) {
    return dataset.impl_;
  }
};

namespace table_internal {

/// \brief Builds the in-memory dataset from a decoded manifest: checks reader feature
/// flags and decodes the schema. Data files are not touched.
/// \return NotImplemented for unsupported reader flags; Corrupt naming the manifest.
Result<std::shared_ptr<DatasetImpl>> MakeDatasetImpl(std::string uri,
                                                     io::StorageAccess access,
                                                     DatasetDir dir,
                                                     LoadedManifest manifest);

/// \brief The streaming scan behind Dataset::Scan / CountRows.
/// `count_only` reads only the filter's columns and outputs zero-column batches.
Result<RecordBatchReaderPtr> MakeScanner(std::shared_ptr<const DatasetImpl> dataset,
                                         const ScanOptions& options, bool count_only);

/// \brief The rows at physical offsets `rows` (ascending, unique) of one fragment, with
/// the given top-level columns (and the row address column when `with_row_id`).
Result<RecordBatchPtr> TakeFromFragment(const DatasetImpl& dataset,
                                        const pb::DataFragment& fragment,
                                        const std::vector<int>& columns,
                                        const std::vector<int64_t>& rows,
                                        bool with_row_id);

}  // namespace table_internal
}  // namespace lance
