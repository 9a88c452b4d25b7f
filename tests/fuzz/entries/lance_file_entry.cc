// SPDX-License-Identifier: Apache-2.0
// Lance data files of every version (legacy 0.1 / 0.2, 2.0, 2.1, 2.2): the bytes are put
// in a memory object store and opened with LanceFileReader (footer, metadata, schema,
// page table), then every column is read (in small batches, over at most the first
// kMaxRows rows: a lying row count must not make the target allocate gigabytes of
// legitimately-encoded constants) and a few rows are taken.
#include <algorithm>
#include <memory>
#include <vector>

#include "fuzz/fuzz_entries.h"
#include "lance/core/record_batch.h"
#include "lance/format/file_reader.h"
#include "lance/io/memory_object_store.h"
#include "lance/macros.h"

namespace lance::fuzz {

namespace {
constexpr int64_t kMaxRows = 1 << 16;
}  // namespace

Status FuzzLanceFile(std::string_view data) {
  auto store = std::make_shared<io::MemoryObjectStore>("fuzz");
  LANCE_RETURN_NOT_OK(store->Put("f.lance", data));
  auto reader = format::LanceFileReader::Open(store, "f.lance");
  if (!reader.ok()) return reader.status();
  const auto& file = **reader;
  (void)file.schema();
  const int64_t rows = file.num_rows();
  format::FileReadOptions options;
  options.length = std::min<int64_t>(rows, kMaxRows);
  options.batch_size = 1000;
  auto stream = file.Read(options);
  if (!stream.ok()) return stream.status();
  LANCE_RETURN_NOT_OK(DrainChecked(**stream));
  if (rows > 0) {
    std::vector<int64_t> indices = {rows - 1, 0, rows / 2, 0};
    auto taken = file.Take(indices);
    if (!taken.ok()) return taken.status();
    FUZZ_CHECK((*taken)->num_rows() == 4, "Take returned another number of rows");
    CheckBatch(**taken);
  }
  return Status::OK();
}

}  // namespace lance::fuzz
