// SPDX-License-Identifier: Apache-2.0
// A second writer process for the multi-process commit test:
//   table_append_helper <uri> <first_id> <appends> <rows_per_append>
// appends `appends` batches of ids first_id.. to the dataset (creating it if needed)
// and prints the version each append committed. Exit status 0 when all succeeded.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lance/core/builder.h"
#include "lance/table/dataset.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s <uri> <first_id> <appends> <rows_per_append>\n",
                 argv[0]);
    return 2;
  }
  const std::string uri = argv[1];
  const int64_t first = std::atoll(argv[2]);
  const int appends = std::atoi(argv[3]);
  const int64_t rows = std::atoll(argv[4]);
  for (int k = 0; k < appends; ++k) {
    lance::Int64Builder ids;
    lance::StringBuilder names;
    lance::DoubleBuilder scores;
    for (int64_t i = first + k * rows; i < first + (k + 1) * rows; ++i) {
      (void)ids.Append(i);
      if (i % 7 == 3) {
        (void)names.AppendNull();
      } else {
        (void)names.Append("n" + std::to_string(i));
      }
      (void)scores.Append(static_cast<double>(i) / 2.0);
    }
    auto schema = lance::schema({lance::field("id", lance::int64(), false),
                                 lance::field("name", lance::utf8()),
                                 lance::field("score", lance::float64())});
    auto batch = lance::RecordBatch::Make(
        schema, rows, {*ids.Finish(), *names.Finish(), *scores.Finish()});
    if (!batch.ok()) {
      std::fprintf(stderr, "%s\n", batch.status().ToString().c_str());
      return 1;
    }
    auto reader = lance::RecordBatchReader::FromBatches(schema, {*batch});
    lance::WriteParams params;
    params.mode = lance::WriteMode::kAppend;
    params.commit_retries = 1000;
    auto ds = lance::Dataset::Write(*reader, uri, params);
    if (!ds.ok()) {
      std::fprintf(stderr, "append %d failed: %s\n", k, ds.status().ToString().c_str());
      return 1;
    }
    std::printf("%llu\n", static_cast<unsigned long long>((*ds)->version()));
  }
  return 0;
}
