// SPDX-License-Identifier: Apache-2.0
// Deletion files. Byte 0: bit 0 picks the form (0: Arrow IPC file of one UInt32 column,
// 1: portable Roaring bitmap), bit 1 whether the fragment's physical row count is known
// (bounding the offsets); the rest is the file. The bitmap bytes are also decoded
// directly, and a vector that decodes is encoded and decoded again.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_entries.h"
#include "table/deletion.h"
#include "table/roaring.h"

namespace lance::fuzz {

namespace ti = lance::table_internal;

Status FuzzDeletion(std::string_view data) {
  if (data.empty()) return Status::Invalid("empty input");
  const uint8_t mode = static_cast<uint8_t>(data[0]);
  const std::string_view bytes = data.substr(1);
  const auto type =
      (mode & 1) ? table::DeletionFile::BITMAP : table::DeletionFile::ARROW_ARRAY;
  const uint64_t physical_rows = (mode & 2) ? 100000 : 0;
  if (type == table::DeletionFile::BITMAP) {
    (void)ti::DeserializeRoaring(bytes, uint64_t{1} << 32, "fuzz roaring");
  }
  auto rows = ti::ParseDeletionFile(bytes, type, physical_rows, "fuzz/_deletions/0-1-2");
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return Status::OK();
  table::DeletionFile::DeletionFileType out_type;
  auto encoded = ti::EncodeDeletionFile(*rows, &out_type);
  if (!encoded.ok()) return encoded.status();
  auto again = ti::ParseDeletionFile(*encoded, out_type, physical_rows, "re-encoded");
  FUZZ_CHECK(again.ok(), again.status().ToString());
  FUZZ_CHECK(*again == *rows,
             "the deletion vector changed in an encode/decode round trip");
  return Status::OK();
}

}  // namespace lance::fuzz
