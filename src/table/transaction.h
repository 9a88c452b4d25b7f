// SPDX-License-Identifier: Apache-2.0
// Transactions: building the next manifest from a transaction, feature flags, and the
// rules that decide whether a transaction can be rebased over one committed
// concurrently. See docs/commit-protocol.md.
#pragma once

#include <cstdint>
#include <set>
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
/// \brief Data files of V2 versions other than the manifest's data_format version
/// (pylance 14 sets it, in both words, when it appends files of another version). Sticky:
/// once set it stays on every later version. Lance 8 refuses such datasets.
inline constexpr uint64_t kFlagMixedDataFileVersions = 256;
/// \brief The flags lance-cpp understands (any other bit is refused).
inline constexpr uint64_t kKnownReaderFlags =
    kFlagDeletionFiles | kFlagMixedDataFileVersions;
inline constexpr uint64_t kKnownWriterFlags =
    kFlagDeletionFiles | kFlagUseV2Format | kFlagTableConfig |
    kFlagInlineTransactionOnly | kFlagMixedDataFileVersions;

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
/// and `name` (the manifest file); Corrupt when only one of the reader and writer
/// words has the (paired) mixed-versions flag.
Status CheckReaderFlags(const pb::Manifest& manifest, std::string_view name);
/// \brief OK if we can commit on top of this manifest (writer flags).
Status CheckWriterFlags(const pb::Manifest& manifest, std::string_view name);

/// \brief "Append", "Delete", "Overwrite", "CreateIndex", ..., or for an operation of a
/// newer Lance (a oneof number this build lacks, left in the unknown fields) "an
/// operation unknown to lance-cpp (field N)"; "no operation" when there is none.
std::string OperationName(const pb::Transaction& txn);
/// \brief NotImplemented "lance-cpp cannot apply this transaction (<operation>)<why>",
/// for an operation that no Apply handles.
Status CannotApply(const pb::Transaction& txn, std::string_view why = "");

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
/// (Overwrite, which keeps the previous high-water mark in max_fragment_id); fragments
/// are sorted by id; feature flags, max_fragment_id, timestamp, writer_version and
/// transaction_file are set. Data files of another V2 version than the manifest's
/// data_format turn on kFlagMixedDataFileVersions (as Lance 14). \return Conflict when a
/// Delete names a fragment `previous` no longer has; NotImplemented for operations this
/// library does not apply; Invalid when legacy (0.x) and V2 data files would be mixed.
Result<pb::Manifest> BuildManifest(const pb::Manifest* previous,
                                   const pb::Transaction& txn, uint64_t version,
                                   const ManifestBuildOptions& options);

/// \brief OK when `mine` can be rebased over `theirs`, committed concurrently as
/// `their_version`; Conflict (naming both operations, the version and `uri`) otherwise.
///
/// Lance's rules (rust/lance/src/io/commit/conflict_resolver.rs) for the operations we
/// commit: an Append rebases over everything except Overwrite, Restore,
/// UpdateMemWalState, a Merge / Project that may change nullability and unknown
/// operations; a Delete over everything that does not touch (rewrite, replace, update,
/// delete) the fragments it changed, except Merge, Overwrite, Restore,
/// UpdateMemWalState and unknown operations. An Overwrite wins over everything
/// (Lance's check_overwrite_txn) except an Overwrite or UpdateConfig that sets or
/// deletes one of the config keys it sets, UpdateMemWalState and unknown operations
/// (incompatible) and another Overwrite (retryable, as pylance 14 reports it); the
/// rebased manifest is built from the latest one, so only its config and table
/// metadata survive.
Status CheckConflict(const pb::Transaction& mine, const pb::Transaction& theirs,
                     uint64_t their_version, std::string_view uri);

/// \brief Checks `mine` across versions `first`..`last` that a cleanup removed before
/// this commit could read their transactions, by comparing the manifests on either side
/// of the gap: `before` (the last version checked) and `after` (the next one still
/// there). Lance skips such versions silently; a transaction whose fragments, schema or
/// config keys changed across the gap could then overwrite what they did (a deletion
/// vector, a rewrite), so that is a retryable conflict here. An Append only needs the
/// schema unchanged; an Overwrite or Restore wins as over any version.
Status CheckUnseenVersions(const pb::Transaction& mine, const pb::Manifest& before,
                           const pb::Manifest& after, uint64_t first, uint64_t last,
                           std::string_view uri);

/// \brief The Conflict status CheckConflict returns: names both operations, the
/// version and `uri`; `why` (may be empty) says what clashed. `retryable`: planning the
/// same operation again on the latest version may succeed (Lance's "retryable"
/// conflicts, which pylance retries by itself); otherwise the operation is incompatible
/// with what was committed (Lance's "incompatible transaction").
Status ConflictError(const pb::Transaction& mine, const pb::Transaction& theirs,
                     uint64_t their_version, std::string_view uri, std::string_view why,
                     bool retryable);

/// \brief The largest fragment id ever used: max_fragment_id, or the largest id present
/// for manifests written before max_fragment_id existed. -1 when there never was one.
int64_t HighWaterMark(const pb::Manifest& m);
/// \brief Records `mark` as the manifest's max_fragment_id (nothing when -1).
/// \return Invalid when the ids have run past 32 bits.
Status SetHighWaterMark(pb::Manifest* m, int64_t mark);

struct ConflictCheck;

/// \brief One row of the conflict matrix: how an operation of ours meets each operation
/// committed concurrently. `cells` has one verdict per operation of theirs, by oneof
/// number 100 (Append) to 115 (DataOverlay), each after two spaces so that a row lines
/// up under this header:
///
///     // Ap De Ov CI Rw Me Rs RF Up Pr UC DR MW Cl UB DO
///
/// (Append, Delete, Overwrite, CreateIndex, Rewrite, Merge, Restore, ReserveFragments,
/// Update, Project, UpdateConfig, DataReplacement, UpdateMemWalState, Clone,
/// UpdateBases, DataOverlay). A verdict is '.' compatible, 'R' retryable
/// (`retryable_why`), 'I' incompatible (`incompatible_why`), '-' incompatible without a
/// reason, '?' decided by `check`. Operations without a column (none, or one this build
/// does not know) are incompatible without a reason.
struct ConflictRow {
  std::string_view cells;
  std::string_view retryable_why;
  std::string_view incompatible_why;
  Status (*check)(const ConflictCheck&) = nullptr;
};

/// \brief Existing fragments `txn` rewrote, replaced, updated, removed or overlaid (for
/// a Delete, Update, Rewrite, DataReplacement or DataOverlay; empty for the others).
std::set<uint64_t> ChangedFragments(const pb::Transaction& txn);

/// \brief The '?' check of rows whose operations clash only when both changed the same
/// fragment (ChangedFragments): retryable "both changed fragment <id>".
Status CheckFragmentOverlap(const ConflictCheck& c);

/// \brief Whether `row` is well formed: 16 cells of the known verdicts (for
/// static_assert). A '?' cell without a check answers incompatible
/// (ConflictCheck::Apply): whether a function pointer is null is not a constant
/// expression for every compiler configuration (GCC with AddressSanitizer refuses it).
constexpr bool IsValidConflictRow(const ConflictRow& row) {
  if (row.cells.size() != 3 * 16) return false;
  for (size_t i = 0; i < row.cells.size(); ++i) {
    const char c = row.cells[i];
    if (i % 3 != 2) {
      if (c != ' ') return false;
    } else if (c != '.' && c != 'R' && c != 'I' && c != '-' && c != '?') {
      return false;
    }
  }
  return true;
}

/// \brief One conflict check: `mine` rebased over `theirs`, committed concurrently as
/// `their_version` of `uri`. Builds the statuses the conflict rules of every operation
/// family return.
struct ConflictCheck {
  const pb::Transaction& mine;
  const pb::Transaction& theirs;
  uint64_t their_version;
  std::string_view uri;

  pb::Transaction::OperationCase their_op() const { return theirs.operation_case(); }
  /// \brief ConflictError(..., why, /*retryable=*/true).
  Status Retryable(std::string_view why) const;
  /// \brief ConflictError(..., why, /*retryable=*/false).
  Status Incompatible(std::string_view why) const;
  /// \brief Retryable "both changed fragment <id>" for the first of `ours` that is also
  /// in `changed`; OK when they share none.
  Status RetryIfShared(const std::set<uint64_t>& ours,
                       const std::set<uint64_t>& changed) const;
  /// \brief Incompatible "both set config key <k>" for the first config key `theirs`
  /// sets that `mine` sets too (ConfigKeys); OK when they share none.
  Status IncompatibleIfSameConfigKey() const;
  /// \brief The verdict of `row` (see ConflictRow) on their operation.
  Status Apply(const ConflictRow& row) const;
};

// ---- operation families owned by other files (issue 12) ------------------------------
// BuildManifest copies the previous manifest into `m` and calls the family's Apply; it
// then sorts fragments, sets version, timestamp, writer and flags as for every op.
// CheckConflict calls the family's Check when `mine` is of that family.

/// \brief Update, Merge, Project, DataReplacement (transaction_mutation.cc).
Status ApplyMutation(const pb::Transaction& txn, pb::Manifest* m);
Status CheckMutationConflict(const ConflictCheck& check);
/// \brief Rewrite, Restore, UpdateConfig, ReserveFragments (transaction_maintenance.cc).
Status ApplyMaintenance(const pb::Transaction& txn, pb::Manifest* m);
Status CheckMaintenanceConflict(const ConflictCheck& check);

/// \brief Config keys `txn` (an UpdateConfig or an Overwrite) sets or deletes; empty for
/// other operations. Two such transactions clash when they share a key (Lance's
/// upsert_key_conflict).
std::set<std::string> ConfigKeys(const pb::Transaction& txn);

/// \brief The transaction that produced `manifest`: its inline section, else its .txn
/// file. \return NotFound when it has neither; Corrupt naming the file.
Result<pb::Transaction> LoadTransaction(const DatasetDir& dir,
                                        const LoadedManifest& manifest);

/// \brief While alive on this thread, a Restore transaction being committed takes its
/// content from `source` (the restored version's manifest). BuildManifest only sees the
/// transaction and the previous manifest, while Lance's Restore replaces the whole
/// manifest by an old one; the commit runs on the calling thread, so the scope reaches
/// it without changing the commit protocol's signatures.
class RestoreSourceScope {
 public:
  explicit RestoreSourceScope(const pb::Manifest* source);
  ~RestoreSourceScope();
  RestoreSourceScope(const RestoreSourceScope&) = delete;
  RestoreSourceScope& operator=(const RestoreSourceScope&) = delete;
  /// \brief The manifest of the version being restored on this thread, or nullptr.
  static const pb::Manifest* Current();

 private:
  const pb::Manifest* previous_;
};

/// \brief Recomputes feature flags from the manifest's content (deletion files, config).
void ApplyFeatureFlags(pb::Manifest* manifest);

}  // namespace lance::table_internal
