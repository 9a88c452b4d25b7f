// SPDX-License-Identifier: Apache-2.0
/// \file maintenance.h
/// \brief Option and result types of the Dataset maintenance methods (see dataset.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lance {

/// \brief Options of Dataset::CompactFiles (Lance's CompactionOptions, same defaults).
struct CompactionOptions {
  /// \brief Fragments with fewer physical rows are candidates; the rewritten data goes
  /// into fragments of at most this many rows.
  int64_t target_rows_per_fragment = 1024 * 1024;
  /// \brief Rows per row group (write batch) of the new files.
  int64_t max_rows_per_group = 1024;
  /// \brief Rewrite a fragment whose deleted fraction exceeds the threshold even with
  /// no neighbour to merge with.
  bool materialize_deletions = true;
  /// \brief Deleted fraction above which a fragment is rewritten by itself (>= 1.0
  /// turns materialization off, as in Lance).
  double materialize_deletions_threshold = 0.1;
  /// \brief Accepted for pylance's signature; tasks run one after another.
  std::optional<int64_t> num_threads;
  /// \brief Rows per read batch while rewriting.
  std::optional<int64_t> batch_size;
};

/// \brief pylance's CompactionMetrics.
struct CompactionMetrics {
  int64_t fragments_removed = 0;
  int64_t fragments_added = 0;
  /// \brief Data and deletion files of the removed fragments.
  int64_t files_removed = 0;
  int64_t files_added = 0;
};

/// \brief Options of Dataset::CleanupOldVersions (pylance's cleanup_old_versions).
struct CleanupOptions {
  /// \brief Versions committed before now minus this many milliseconds may be removed
  /// (pylance's default `older_than`: two weeks); absent: any age.
  std::optional<int64_t> older_than_ms = 14LL * 24 * 3600 * 1000;
  /// \brief Keep (at least) the newest this many versions: only versions older than
  /// the n-th newest may be removed (pylance's `retain_versions`); both criteria apply
  /// when both are given. Must be positive.
  std::optional<int64_t> retain_versions;
  /// \brief Delete unreferenced files younger than 7 days too (they may belong to a
  /// commit in progress, which is why Lance keeps them by default).
  bool delete_unverified = false;
  /// \brief Fail (Invalid naming the tags) when a tagged version is old enough to be
  /// removed; otherwise tagged versions are silently kept.
  bool error_if_tagged_old_versions = true;
  /// \brief Report what would be removed (CleanupStats, removed_paths) without deleting
  /// anything: the same selection as a real run at this moment.
  bool dry_run = false;
};

/// \brief pylance's CleanupStats.
struct CleanupStats {
  int64_t bytes_removed = 0;
  int64_t old_versions = 0;
  int64_t data_files_removed = 0;
  int64_t transaction_files_removed = 0;
  int64_t index_files_removed = 0;
  int64_t deletion_files_removed = 0;
  int64_t failed_deletes = 0;
  /// \brief The objects removed (by a dry run: that would be removed), relative to the
  /// dataset root ("_versions/1.manifest", "data/x.lance"), in the order of removal:
  /// old manifests first, then the files no kept version references.
  std::vector<std::string> removed_paths;
};

/// \brief One tag (`_refs/tags/<name>.json`), as pylance's `tags.list()` reports it.
struct TagInfo {
  uint64_t version = 0;
  std::optional<std::string> branch;
  /// \brief Bytes of the tagged version's manifest file.
  int64_t manifest_size = 0;
  /// \brief RFC 3339 times ("2026-01-02T03:04:05.123456789Z").
  std::string created_at;
  std::string updated_at;
  std::map<std::string, std::string> metadata;
};

}  // namespace lance
