// SPDX-License-Identifier: Apache-2.0
// Reading one fragment of a dataset version (fragment_reader.cc): the data files that
// hold its columns stitched side by side, its row counts and its deletion vector. The
// building block of scans, takes and the mutations that rewrite fragments.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/record_batch.h"
#include "lance/core/type.h"
#include "lance/format/file_reader.h"
#include "lance/result.h"
#include "table/deletion.h"
#include "table/manifest.h"

namespace lance {

class DatasetImpl;

namespace table_internal {

/// \brief One batch of a fragment before deletions are applied.
struct FragmentBatch {
  RecordBatchPtr batch;
  int64_t start_row = 0;  ///< offset of the batch's first row within the fragment
};

/// \brief Streams the given top-level columns of one fragment, stitching the data
/// files that hold them side by side; columns no data file holds read as nulls.
class FragmentReader {
 public:
  /// \param columns top-level field indices of the dataset schema, in output order.
  static Result<std::unique_ptr<FragmentReader>> Open(const DatasetImpl& dataset,
                                                      const pb::DataFragment& fragment,
                                                      const std::vector<int>& columns,
                                                      int64_t batch_size);
  ~FragmentReader();

  /// \brief The next batch (with the projected dataset schema), nullopt at the end.
  /// \return Corrupt naming the data file when files disagree with each other or with
  /// the manifest; errors of the format layer.
  Result<std::optional<FragmentBatch>> Next();
  int64_t physical_rows() const { return physical_rows_; }
  const SchemaPtr& schema() const { return schema_; }

 private:
  struct Source;
  FragmentReader() = default;

  SchemaPtr schema_;
  std::vector<std::unique_ptr<Source>> sources_;
  std::vector<int> null_positions_;
  int64_t physical_rows_ = 0;
  int64_t row_ = 0;
  int64_t batch_size_ = 8192;
  std::string fragment_name_;
};

/// \brief Rows of the fragment: physical_rows, or (when the manifest lacks it) the
/// row count of its first data file.
Result<int64_t> FragmentPhysicalRows(const DatasetImpl& dataset,
                                     const pb::DataFragment& fragment);

/// \brief The fragment's deletion vector (empty without a deletion file).
Result<DeletionVector> LoadDeletions(const DatasetImpl& dataset,
                                     const pb::DataFragment& fragment);

/// \brief Live rows of the fragment (physical minus deleted), reading deletion and
/// data files only when the manifest lacks the counts.
Result<int64_t> FragmentLiveRows(const DatasetImpl& dataset,
                                 const pb::DataFragment& fragment);

/// \brief Where the columns of a fragment live: for each data file, (output position,
/// top-level field id) of the columns it holds; columns no file holds read as nulls.
struct ColumnPlacement {
  std::vector<std::vector<std::pair<int, int32_t>>> per_file;
  std::vector<int> null_positions;
};
/// \param columns top-level field indices of the dataset schema, in output order.
Result<ColumnPlacement> PlaceColumns(const DatasetImpl& dataset,
                                     const pb::DataFragment& fragment,
                                     const std::vector<int>& columns);

/// \brief Opens one data file of a fragment (its size from the manifest when known).
/// \return errors naming the data file.
Result<std::shared_ptr<format::LanceFileReader>> OpenDataFile(
    const DatasetImpl& dataset, const pb::DataFragment& fragment,
    const pb::DataFile& file);

/// \brief `column` as the dataset schema types it: relabelled when only names or
/// nullability differ. \return Corrupt naming `path` when the shapes differ.
Result<ArrayPtr> MatchColumnType(ArrayPtr column, const Field& expected,
                                 const std::string& path);

/// \brief An all-null array of `type` and `length`.
Result<ArrayPtr> MakeNullArray(const DataTypePtr& type, int64_t length);

/// \brief True if `actual` has the shape of `expected`: the same type ids, sizes, units,
/// time zones and struct member names, ignoring list item names and nullability.
bool TypesCompatible(const DataType& actual, const DataType& expected);

/// \brief `array` relabelled with `type` (buffers shared). REQUIRES: TypesCompatible.
ArrayPtr Relabel(const ArrayPtr& array, const DataTypePtr& type);

}  // namespace table_internal
}  // namespace lance
