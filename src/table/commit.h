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
/// \return the committed manifest; Conflict when another commit cannot be rebased over
/// (or its transaction is missing), or after max_retries; errors of the store.
Result<LoadedManifest> CommitTransaction(const DatasetDir& dir,
                                         const LoadedManifest* read, pb::Transaction txn,
                                         const CommitOptions& options);

}  // namespace lance::table_internal
