// SPDX-License-Identifier: Apache-2.0
/// \file mutation.h
/// \brief Option and result types of the Dataset mutation methods (see dataset.h):
/// Update, merge-insert (MergeInsertBuilder) and schema evolution (AddColumns,
/// DropColumns, AlterColumns). docs/mutations.md describes what each writes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lance/core/record_batch.h"
#include "lance/core/type.h"
#include "lance/result.h"

namespace lance {

class Dataset;

/// \brief How a mutation retries when a concurrent commit forces it to plan again
/// (Lance's retryable conflicts). Compatible concurrent commits are rebased over by the
/// commit loop and never count as a retry.
struct MutationRetry {
  /// \brief Attempts after the first (pylance's `conflict_retries`, default 10).
  int conflict_retries = 10;
  /// \brief No new attempt starts after this many seconds (pylance's `retry_timeout`,
  /// default 30 s); the first attempt always runs.
  double retry_timeout_seconds = 30.0;
};

/// \brief Sizes of the data files a mutation writes.
struct MutationWriteParams {
  int64_t max_rows_per_file = 1024 * 1024;
  int64_t max_rows_per_group = 1024;
};

// ---- Update ---------------------------------------------------------------------------

struct UpdateOptions {
  MutationRetry retry;
  MutationWriteParams write;
};

/// \brief pylance's `{"num_rows_updated": n}`.
struct UpdateResult {
  uint64_t num_rows_updated = 0;
  /// \brief Attempts made (1 without retryable conflicts).
  uint32_t num_attempts = 1;
};

// ---- Merge insert ---------------------------------------------------------------------

enum class WhenMatched : uint8_t {
  kDoNothing,  ///< matched target rows are kept as they are (the default)
  kUpdateAll,  ///< replaced by the source row (optionally only where a condition holds)
  kDelete,     ///< deleted
  kFail,       ///< the operation fails if any row matches
};

struct MergeInsertParams {
  /// \brief Key columns (at least one), present in the dataset and in the source.
  std::vector<std::string> on;
  WhenMatched when_matched = WhenMatched::kDoNothing;
  /// \brief For kUpdateAll: a predicate over `source.<col>` and `target.<col>`; only
  /// matched rows where it is TRUE are updated (empty: all).
  std::string matched_condition;
  /// \brief Insert source rows that match no target row (default false, as pylance's
  /// builder; Lance's Rust builder defaults to true).
  bool insert_not_matched = false;
  /// \brief Delete target rows that match no source row ...
  bool delete_not_matched_by_source = false;
  /// \brief ... and satisfy this predicate over the target's columns (empty: all).
  std::string not_matched_by_source_condition;
  MutationRetry retry;
  MutationWriteParams write;
};

/// \brief pylance's merge-insert statistics.
struct MergeInsertResult {
  uint64_t num_inserted_rows = 0;
  uint64_t num_updated_rows = 0;
  uint64_t num_deleted_rows = 0;
  uint32_t num_attempts = 1;
};

/// \brief Opens the source anew for each attempt (a retry must read it again).
using MergeSourceFactory = std::function<Result<RecordBatchReaderPtr>()>;

/// \brief pylance's MergeInsertBuilder: configure, then Execute. Returned by
/// Dataset::MergeInsert. Execute commits a new version (Lance's `Update` operation) and
/// moves the dataset it was created from to it.
///
/// Memory: the key columns of the target (plus one row address per target row) are
/// held in a hash table; the source is streamed batch by batch, never held whole. A
/// target row matched by two source rows is an error (as in Lance); source rows with
/// equal new keys are all inserted (as in Lance).
class MergeInsertBuilder {
 public:
  MergeInsertBuilder(std::shared_ptr<Dataset> dataset, std::vector<std::string> on);

  /// \brief Replace matched target rows by the source rows; with `condition` (over
  /// `source.col` / `target.col`) only where it holds.
  MergeInsertBuilder& WhenMatchedUpdateAll(std::string condition = "");
  MergeInsertBuilder& WhenMatchedDelete();
  MergeInsertBuilder& WhenMatchedFail();
  MergeInsertBuilder& WhenMatchedDoNothing();
  MergeInsertBuilder& WhenNotMatchedInsertAll();
  MergeInsertBuilder& WhenNotMatchedDoNothing();
  /// \brief Delete target rows no source row matches (only those satisfying `condition`
  /// when given).
  MergeInsertBuilder& WhenNotMatchedBySourceDelete(std::string condition = "");
  MergeInsertBuilder& ConflictRetries(int retries);
  MergeInsertBuilder& RetryTimeout(double seconds);
  MergeInsertBuilder& WriteParams(MutationWriteParams params);

  const MergeInsertParams& params() const { return params_; }

  /// \brief Runs the merge reading `source` once. A retryable conflict is returned
  /// (the source cannot be read again); compatible concurrent commits are rebased over.
  /// \return the statistics; Invalid (no key, key missing in the source or dataset,
  /// unknown source column, bad condition, a target row matched twice, WhenMatchedFail
  /// with a match); Conflict; errors of the reads and writes. Nothing is committed on
  /// error.
  Result<MergeInsertResult> Execute(RecordBatchReader& source);
  /// \brief As Execute, opening the source with `factory` for each attempt, so
  /// retryable conflicts are retried (params().retry).
  Result<MergeInsertResult> Execute(const MergeSourceFactory& factory);

 private:
  std::shared_ptr<Dataset> dataset_;
  MergeInsertParams params_;
};

// ---- Schema evolution -----------------------------------------------------------------

/// \brief Computes the new columns for one batch of existing rows (AddColumns with a
/// function): returns a batch of the same length with exactly the new columns.
using AddColumnsFunction = std::function<Result<RecordBatchPtr>(const RecordBatch&)>;

struct AddColumnsOptions {
  /// \brief Existing columns the function reads (empty: all).
  std::vector<std::string> read_columns;
  int64_t batch_size = 8192;
};

/// \brief One change of alter_columns (pylance's dict: path, name, nullable, data_type).
struct ColumnAlteration {
  /// \brief The column: a top-level name, or a dotted path to a struct's field (renames
  /// and nullability only).
  std::string path;
  std::optional<std::string> rename;
  std::optional<bool> nullable;
  /// \brief New type: the column's values are cast and rewritten into new data files;
  /// the column gets a new field id (as Lance).
  DataTypePtr data_type;
};

}  // namespace lance
