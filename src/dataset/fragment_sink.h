// SPDX-License-Identifier: Apache-2.0
// The one loop that turns batches into new data files and fragments: used by writes and
// appends (dataset.cc), compaction, update, merge-insert and add_columns.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "lance/core/record_batch.h"
#include "lance/format/file_writer.h"
#include "lance/format/lance_schema.h"
#include "lance/io/executor.h"
#include "lance/result.h"
#include "table/manifest.h"

namespace lance::table_internal {

/// \brief Writes batches (already in `schema`'s column order and types) into new data
/// files under `data/` of at most `max_rows_per_file` rows each, in row groups of
/// `max_rows_per_group`, one fragment per file (ids unassigned).
///
/// A file still open when the sink is destroyed without Finish() is aborted; files
/// already closed stay behind unreferenced, as with Lance (harmless until cleanup).
/// On an object store, files are closed (last part, footer, completing the upload) on the
/// I/O executor while the next one is encoded; local files close in place. Finish()
/// returns once every file is closed.
class FragmentSink {
 public:
  struct Sizes {
    int64_t max_rows_per_file = 1024 * 1024;
    int64_t max_rows_per_group = 1024;
  };

  FragmentSink(DatasetDir dir, format::LanceSchema schema,
               format::LanceFileVersion version, Sizes sizes);
  ~FragmentSink();
  FragmentSink(const FragmentSink&) = delete;
  FragmentSink& operator=(const FragmentSink&) = delete;

  /// \return Invalid for non-positive sizes; errors of the writer, naming the file.
  Status Write(const RecordBatch& batch);
  /// \brief Closes the open file. \return the fragments written.
  Result<std::vector<pb::DataFragment>> Finish();
  int64_t rows_written() const { return rows_written_; }

 private:
  Status CloseFile();
  Status CollectOldest();

  DatasetDir dir_;
  format::LanceSchema schema_;
  format::LanceFileVersion version_;
  Sizes sizes_;
  std::unique_ptr<format::LanceFileWriter> writer_;
  std::string name_;
  int64_t rows_in_file_ = 0;
  int64_t rows_written_ = 0;
  std::vector<pb::DataFragment> fragments_;
  /// Files being closed on the executor, oldest first (their fragments go to fragments_
  /// in this order). Destroying a Pending waits for a running close or drops an unstarted
  /// one, whose writer then aborts its file.
  std::deque<io::Pending<pb::DataFragment>> closing_;
};

}  // namespace lance::table_internal
