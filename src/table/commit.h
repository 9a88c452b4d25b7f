// SPDX-License-Identifier: Apache-2.0
// The commit protocol: write `_transactions/{read_version}-{uuid}.txn`, then publish the
// manifest of read_version + 1 with a create-only put; on losing the race, check the
// transactions committed since, rebase and retry. See docs/commit-protocol.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lance/result.h"
#include "table/manifest.h"
#include "table/transaction.h"

namespace lance::table_internal {

struct CommitOptions {
  /// \brief Retries after the first attempt when other writers win the race.
  int max_retries = 20;
  /// \brief Naming scheme when creating a dataset (existing datasets keep theirs).
  NamingScheme new_dataset_scheme = NamingScheme::kV2;
  /// \brief Data storage version written by an Overwrite ("" = from the data files).
  std::string data_storage_version;
  /// \brief Write `_versions/latest_version_hint.json` after a commit on a local file
  /// system, as Lance 8 does. It is only a hint: readers here never trust it.
  bool write_version_hint = true;
  /// \brief The new manifest's index section instead of the base's (empty for an
  /// Overwrite): a Restore carries the restored version's indices, as Lance does.
  std::optional<std::string> index_section;
  /// \brief Also recognise this commit, already published, by its content (IsSameCommit
  /// with `by_content`): Dataset::Commit sets it, since a caller retrying it after an
  /// error builds a new transaction (new uuid) from the same fragments. Operations that
  /// write their own files under fresh names never need it.
  bool same_commit_by_content = false;
};

/// \brief Commits `txn` on top of `read`, the manifest of txn.read_version() (nullptr
/// iff read_version is 0, i.e. the dataset is being created).
///
/// The .txn file is written first (a committed manifest always names an existing
/// transaction), then the whole manifest file is built in memory and published with
/// ObjectStore::PutIfNotExists under its final name. If that name is taken, the
/// manifests committed since are read and their transactions checked with
/// CheckConflict; compatible ones are rebased over (fragment ids reassigned above the
/// new high-water mark) and the commit retried at the next version.
///
/// Lost acknowledgements: when the put fails in any way (AlreadyExists included), the
/// manifest under that name is read back; if it names our transaction file the commit
/// is done (a put whose answer was lost), if it is another writer's the race was lost
/// as above, if nothing is there the put's error is returned. A version committed since
/// `read` that holds this very commit (IsSameCommit, by content with
/// options.same_commit_by_content) ends the commit with that version instead of
/// applying it again.
/// \return the committed manifest (possibly an earlier publication of the same commit);
/// Conflict when another commit cannot be rebased over (or its transaction is missing),
/// or after max_retries; CommitStateUnknown when the put failed and the name cannot be
/// read back, so the commit may or may not be in; errors of the store.
Result<LoadedManifest> CommitTransaction(const DatasetDir& dir,
                                         const LoadedManifest* read, pb::Transaction txn,
                                         const CommitOptions& options);

/// \brief Whether `theirs`, found committed, is the commit `mine` is trying to make:
/// the same uuid (an earlier attempt of this very call), or, with `by_content`, for
/// transactions that publish files written for them alone (Append, Overwrite with data
/// files; Delete, Update with new deletion or data files), the same read version and
/// the same operation, byte for byte apart from the uuid (a retried Dataset::Commit of
/// the same fragments, which builds a new transaction). Anything else is another
/// commit.
bool IsSameCommit(const pb::Transaction& mine, const pb::Transaction& theirs,
                  bool by_content);

}  // namespace lance::table_internal
