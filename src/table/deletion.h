// SPDX-License-Identifier: Apache-2.0
// Deletion files: which rows of a fragment are deleted.
//
//   _deletions/{fragment_id}-{read_version}-{id}.arrow   Arrow IPC file, one batch,
//       schema {row_id: uint32 not null}, ZSTD body compression; written when the
//       fragment has at most kBitmapThreshold deleted rows (as Lance does)
//   _deletions/{fragment_id}-{read_version}-{id}.bin     portable 32-bit Roaring bitmap
//       (roaring.h); written above the threshold
//
// Values are row offsets within the fragment (0-based, before deletions).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lance/result.h"
#include "table/manifest.h"

namespace lance::table_internal {

/// \brief Deleted row offsets of one fragment, strictly increasing.
using DeletionVector = std::vector<uint32_t>;

/// \brief Above this many deleted rows Lance writes a bitmap (.bin) instead of .arrow.
inline constexpr uint64_t kBitmapThreshold = 5000;

/// \brief "_deletions/{fragment_id}-{read_version}-{id}.{arrow|bin}".
std::string DeletionFileRelativePath(uint64_t fragment_id, const pb::DeletionFile& file);

/// \brief Reads the deletion vector of fragment `fragment_id`.
/// `physical_rows` bounds the offsets (0: unknown, then only 32-bit range is checked).
/// \return NotFound; Corrupt naming the file (bad IPC, wrong schema, nulls, unsorted
/// or out-of-range offsets, bad Roaring bytes); IOError.
Result<DeletionVector> ReadDeletionFile(const DatasetDir& dir, uint64_t fragment_id,
                                        const pb::DeletionFile& file,
                                        uint64_t physical_rows);

/// \brief Decodes deletion file bytes (either type). `name` is used in messages.
Result<DeletionVector> ParseDeletionFile(std::string_view bytes,
                                         pb::DeletionFile::DeletionFileType type,
                                         uint64_t physical_rows, std::string_view name);

/// \brief Encodes `rows` as Lance would for this count: an Arrow IPC file (ZSTD) up to
/// kBitmapThreshold rows, a Roaring bitmap above. Sets *type accordingly.
Result<std::string> EncodeDeletionFile(const DeletionVector& rows,
                                       pb::DeletionFile::DeletionFileType* type);

/// \brief Writes `rows` (non-empty) as a new deletion file for the fragment and
/// returns its manifest entry (random id, read_version, num_deleted_rows set).
Result<pb::DeletionFile> WriteDeletionFile(const DatasetDir& dir, uint64_t fragment_id,
                                           uint64_t read_version,
                                           const DeletionVector& rows);

/// \brief Sorted union of two deletion vectors.
DeletionVector MergeDeletions(const DeletionVector& a, const DeletionVector& b);

}  // namespace lance::table_internal
