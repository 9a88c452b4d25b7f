// SPDX-License-Identifier: Apache-2.0
// The rows the table tests write (and the second writer process of the multi-process
// commit test, dataset_append_helper, which links no gtest).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lance/core/builder.h"
#include "lance/core/record_batch.h"

namespace lance::table_testing {

/// Rows id = start..start+n-1 (int64 not null), name = "n<id>" (null when id % 7 == 3),
/// score = id / 2.0.
inline RecordBatchPtr MakeBatch(int64_t start, int64_t n) {
  Int64Builder ids;
  StringBuilder names;
  DoubleBuilder scores;
  for (int64_t i = start; i < start + n; ++i) {
    (void)ids.Append(i);
    if (i % 7 == 3) {
      (void)names.AppendNull();
    } else {
      (void)names.Append("n" + std::to_string(i));
    }
    (void)scores.Append(static_cast<double>(i) / 2.0);
  }
  auto s = schema(
      {field("id", int64(), false), field("name", utf8()), field("score", float64())});
  return *RecordBatch::Make(s, n, {*ids.Finish(), *names.Finish(), *scores.Finish()});
}

inline std::unique_ptr<RecordBatchReader> ReaderOf(std::vector<RecordBatchPtr> batches) {
  SchemaPtr s = batches.front()->schema();
  return RecordBatchReader::FromBatches(s, std::move(batches));
}

}  // namespace lance::table_testing
