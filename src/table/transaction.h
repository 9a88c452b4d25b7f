// SPDX-License-Identifier: Apache-2.0
// Transactions: building the next manifest from a transaction, feature flags, and the
// rules that decide whether a transaction can be rebased over one committed
// concurrently. See docs/commit-protocol.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lance/result.h"
#include "table/manifest.h"

namespace lance::table_internal {

/// \brief Feature flag bits (Manifest.reader_feature_flags / writer_feature_flags).
inline constexpr uint64_t kFlagDeletionFiles = 1;
inline constexpr uint64_t kFlagStableRowIds = 2;
inline constexpr uint64_t kFlagUseV2Format = 4;  // deprecated, writer only
inline constexpr uint64_t kFlagTableConfig = 8;  // writer only
inline constexpr uint64_t kFlagBasePaths = 16;
inline constexpr uint64_t kFlagInlineTransactionOnly = 32;  // writer only
/// \brief Any flag at or above this bit is unknown to every Lance we know of.
inline constexpr uint64_t kFlagFirstUnknown = 64;

/// \brief What we claim in Manifest.writer_version (see docs/commit-protocol.md):
/// library "lance" and the Lance release whose on-disk output we match and test
/// against, so that Lance applies none of its workarounds for old writers' bugs; the
/// semver build metadata ("lance-cpp.<version>", ignored in version comparisons) says
/// who really wrote the manifest.
inline constexpr std::string_view kWriterLibrary = "lance";
inline constexpr std::string_view kWriterVersion = "8.0.0";
/// \brief "lance-cpp.<lance-cpp version>".
std::string WriterBuildMetadata();

/// \brief OK if we can read a dataset whose manifest has these reader flags.
/// \return NotImplemented naming the flag (stable row ids, base paths, unknown bits)
/// and `name` (the manifest file).
Status CheckReaderFlags(const pb::Manifest& manifest, std::string_view name);
/// \brief OK if we can commit on top of this manifest (writer flags).
Status CheckWriterFlags(const pb::Manifest& manifest, std::string_view name);

/// \brief "Append", "Delete", "Overwrite", "CreateIndex", ... or "(none)".
std::string_view OperationName(const pb::Transaction& txn);

struct ManifestBuildOptions {
  /// \brief Data storage version for an Overwrite ("2.0", "2.1"); empty: taken from the
  /// first data file, else "2.0".
  std::string data_storage_version;
  /// \brief Manifest.transaction_file: the .txn name relative to `_transactions/`.
  std::string transaction_file;
};

/// \brief The manifest of `version` obtained by applying `txn` to `previous` (nullptr
/// when there is no dataset yet; only Overwrite may then apply).
///
/// Append and Delete start from a copy of `previous`, so fields this library does not
/// know survive. New fragments get ids above the high-water mark (Append) or 0..n-1
/// (Overwrite); fragments are sorted by id; feature flags, max_fragment_id, timestamp,
/// writer_version and transaction_file are set.
/// \return Conflict when a Delete names a fragment `previous` no longer has;
/// NotImplemented for operations this library does not apply; Invalid.
Result<pb::Manifest> BuildManifest(const pb::Manifest* previous,
                                   const pb::Transaction& txn, uint64_t version,
                                   const ManifestBuildOptions& options);

/// \brief OK when `mine` can be rebased over `theirs`, committed concurrently as
/// `their_version`; Conflict (naming both operations, the version and `uri`) otherwise.
Status CheckConflict(const pb::Transaction& mine, const pb::Transaction& theirs,
                     uint64_t their_version, std::string_view uri);

/// \brief The transaction that produced `manifest`: its inline section, else its .txn
/// file. \return NotFound when it has neither; Corrupt naming the file.
Result<pb::Transaction> LoadTransaction(const DatasetDir& dir,
                                        const LoadedManifest& manifest);

/// \brief Recomputes feature flags from the manifest's content (deletion files, config).
void ApplyFeatureFlags(pb::Manifest* manifest);

}  // namespace lance::table_internal
