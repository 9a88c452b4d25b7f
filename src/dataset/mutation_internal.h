// SPDX-License-Identifier: Apache-2.0
// Helpers shared by update.cc, merge_insert.cc and schema_evolution.cc.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dataset/dataset_internal.h"
#include "dataset/fragment_sink.h"
#include "lance/dataset/dataset.h"
#include "lance/format/file_writer.h"
#include "lance/format/lance_schema.h"
#include "table/transaction.h"

namespace lance::table_internal {

/// \brief The data file sizes of a mutation's writes.
inline FragmentSink::Sizes SinkSizes(const MutationWriteParams& p) {
  return {p.max_rows_per_file, p.max_rows_per_group};
}

/// \brief The file version new data files of `ds` use (its own, as an append).
/// \return NotImplemented for legacy datasets.
Result<format::LanceFileVersion> WritableVersion(const DatasetImpl& ds,
                                                 std::string_view what);

/// \brief Top-level indices of `names` in the dataset schema. \return Invalid naming an
/// unknown column and `what`.
Result<std::vector<int>> ColumnIndices(const DatasetImpl& ds,
                                       const std::vector<std::string>& names,
                                       std::string_view what);

/// \brief `values` as a column of `field`: relabelled when the shapes agree, else cast
/// (compute::Cast); nulls in a non-nullable field are Invalid naming the column.
Result<ArrayPtr> ConformColumn(const ArrayPtr& values, const Field& field,
                               std::string_view what);

/// \brief Commits `txn` (read_version set) on top of `ds`. \return the new version.
Result<std::shared_ptr<DatasetImpl>> CommitMutation(const DatasetImpl& ds,
                                                    pb::Transaction txn);

/// \brief The latest version of the dataset `ds` belongs to.
Result<std::shared_ptr<DatasetImpl>> LoadLatest(const DatasetImpl& ds);

/// \brief Runs `attempt` (which plans on the latest version and commits) until it
/// succeeds, fails with something other than a retryable Conflict, or the retry budget
/// is spent. `attempt` receives the attempt number (1-based).
Status RunWithRetries(const MutationRetry& retry,
                      const std::function<Status(uint32_t)>& attempt);

/// \brief The largest field id the dataset has ever used that we can see: the schema's
/// and every data file's (dropped columns stay in the data files).
int32_t MaxFieldIdInUse(const DatasetImpl& ds);

/// \brief The row offsets of `mask` (boolean, TRUE only) plus `start_row`.
Result<std::vector<uint32_t>> MatchedRows(const Array& mask, int64_t start_row);

/// \brief Records the deletion of `deleted` (new rows, not yet in the fragment's
/// deletion vector) of `frag` in an Update: a new deletion file (updated_fragments) or,
/// when no row is left, removed_fragment_ids.
Status AddDeletionToUpdate(const DatasetImpl& ds, const pb::DataFragment& frag,
                           const DeletionVector& deleted, pb::Transaction::Update* op);

}  // namespace lance::table_internal
