// SPDX-License-Identifier: Apache-2.0
/// \file statistics.h
/// \brief Option and result types of the Dataset inspection methods (see dataset.h):
/// data statistics, dataset statistics, sampling and index summaries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lance {

/// \brief Bytes one field takes in the data files (Lance's `FieldStatistics`).
struct FieldStatistics {
  /// \brief The field's id (any field of the schema, nested ones included).
  int32_t id = 0;
  /// \brief Sum of the sizes of the page buffers of the field's columns across the
  /// data files of the version, compressed sizes as stored. 0 for datasets of legacy
  /// (0.1) files, as in Lance.
  uint64_t bytes_on_disk = 0;

  bool operator==(const FieldStatistics&) const = default;
};

/// \brief Lance's `DataStatistics`: one entry per field of the schema, in the schema's
/// pre-order (the order of LanceSchema::field_ids()).
struct DataStatistics {
  std::vector<FieldStatistics> fields;

  bool operator==(const DataStatistics&) const = default;
};

/// \brief pylance's `LanceStats.dataset_stats()`.
struct DatasetStatistics {
  /// \brief Rows marked deleted (in deletion files) across the fragments.
  uint64_t num_deleted_rows = 0;
  uint64_t num_fragments = 0;
  /// \brief Fragments with fewer physical rows than the `max_rows_per_group` asked for.
  uint64_t num_small_files = 0;

  bool operator==(const DatasetStatistics&) const = default;
};

struct SampleOptions {
  /// \brief Columns to read, as TakeOptions::columns; empty means all.
  std::vector<std::string> columns;
  /// \brief Seed of the row choice; absent: a random seed.
  std::optional<uint64_t> seed;
  /// \brief False returns the chosen rows in scan order (cheaper reads), true in the
  /// random order they were drawn, as pylance's `sample(randomize_order=)`.
  bool randomize_order = true;
};

/// \brief What a manifest records about one index (its IndexMetadata), read only: the
/// library neither builds nor uses indices, but reports those that real Lance built.
struct IndexSummary {
  std::string name;
  /// \brief The index's UUID, "8-4-4-4-12" lower-case hex.
  std::string uuid;
  /// \brief Ids of the indexed fields.
  std::vector<int32_t> fields;
  /// \brief The indexed fields by dotted path ("a", "s.x"), parallel to `fields`; the id
  /// in decimal for a field the schema no longer has.
  std::vector<std::string> field_names;
  /// \brief The dataset version the index was last updated at.
  uint64_t dataset_version = 0;
  /// \brief Fragments the index covers (absent when the manifest has no bitmap).
  std::optional<std::vector<uint32_t>> fragment_ids;
  /// \brief The type URL of the index details ("...BTreeIndexDetails"), empty if none.
  std::string details_type_url;
};

}  // namespace lance
