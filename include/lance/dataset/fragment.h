// SPDX-License-Identifier: Apache-2.0
/// \file fragment.h
/// \brief FragmentMetadata: what a manifest records about one fragment, with pylance's
/// JSON shape so that fragments written by either implementation can be committed by the
/// other (`write_fragments` on workers, `commit` on the driver).

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lance/result.h"

namespace lance {

/// \brief One data file of a fragment (manifest DataFile).
struct DataFileMeta {
  std::string path;  ///< file name under data/
  std::vector<int32_t> fields;
  std::vector<int32_t> column_indices;
  uint32_t file_major_version = 2;
  uint32_t file_minor_version = 0;
  uint64_t file_size_bytes = 0;  ///< 0: unknown
  std::optional<uint32_t> base_id;

  bool operator==(const DataFileMeta&) const = default;
};

/// \brief A fragment's deletion vector file (manifest DeletionFile).
struct DeletionFileMeta {
  enum class Type : uint8_t { kArrowArray = 0, kBitmap = 1 };
  Type file_type = Type::kArrowArray;
  uint64_t read_version = 0;
  uint64_t id = 0;
  uint64_t num_deleted_rows = 0;  ///< 0: unknown
  std::optional<uint32_t> base_id;

  /// \brief "_deletions/{fragment_id}-{read_version}-{id}.{arrow|bin}".
  std::string RelativePath(uint64_t fragment_id) const;
  bool operator==(const DeletionFileMeta&) const = default;
};

/// \brief A fragment: rows stored across one or more data files (one per column group).
struct FragmentMetadata {
  uint64_t id = 0;  ///< 0 until a commit assigns ids to new fragments
  std::vector<DataFileMeta> files;
  std::optional<DeletionFileMeta> deletion_file;
  uint64_t physical_rows = 0;  ///< rows in the files, deleted ones included

  /// \brief Live rows: physical_rows minus deleted rows.
  uint64_t num_rows() const;
  /// \brief pylance's `FragmentMetadata.to_json()` shape (checked against pylance 14):
  /// {"id", "files": [{"fields", "column_indices", "file_major_version",
  /// "file_minor_version", "file_size_bytes" (null when 0), "base_id", "path"}],
  /// "overlays": [], "physical_rows", "deletion_file": null | {"read_version", "id",
  /// "file_type": "array" | "bitmap", "num_deleted_rows", "base_id"}, "row_id_meta",
  /// "created_at_version_meta", "last_updated_at_version_meta"}.
  std::string ToJson() const;
  /// \brief Parses ToJson() output, or pylance's (absent keys take their defaults).
  /// \return Invalid naming the bad field; NotImplemented for stable-row-id or row
  /// lineage metadata and overlays, which this library cannot carry.
  static Result<FragmentMetadata> FromJson(const std::string& json);

  bool operator==(const FragmentMetadata&) const = default;
};

}  // namespace lance
