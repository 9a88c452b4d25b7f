// SPDX-License-Identifier: Apache-2.0
// A second writer process for the multi-process commit test:
//   dataset_append_helper <uri> <first_id> <appends> <rows_per_append>
// appends `appends` batches of ids first_id.. to the dataset (creating it if needed)
// and prints the version each append committed. Exit status 0 when all succeeded.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lance/dataset/dataset.h"
#include "table_rows.h"

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
    auto reader = lance::table_testing::ReaderOf(
        {lance::table_testing::MakeBatch(first + k * rows, rows)});
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
