// SPDX-License-Identifier: Apache-2.0
// Arrow IPC. Byte 0, bit 0 picks the file format (IpcFileReader: magic, footer, schema,
// dictionaries, every record batch) or the stream format (IpcStreamReader: schema
// message, then batches until the end); the rest is the bytes. Every batch must
// validate.
#include <string>

#include "fuzz/fuzz_entries.h"
#include "lance/core/buffer.h"
#include "lance/ipc/reader.h"

namespace lance::fuzz {

Status FuzzArrowIpc(std::string_view data) {
  if (data.empty()) return Status::Invalid("empty input");
  const bool file_format = (static_cast<uint8_t>(data[0]) & 1) == 0;
  BufferPtr bytes = Buffer::FromString(std::string(data.substr(1)));
  if (file_format) {
    auto reader = ipc::IpcFileReader::Open(bytes);
    if (!reader.ok()) return reader.status();
    Status first;
    for (int i = 0; i < (*reader)->num_record_batches(); ++i) {
      auto batch = (*reader)->ReadRecordBatch(i);
      if (!batch.ok()) {
        if (first.ok()) first = batch.status();
        continue;
      }
      CheckBatch(**batch);
    }
    return first;
  }
  auto reader = ipc::IpcStreamReader::Open(bytes);
  if (!reader.ok()) return reader.status();
  return DrainChecked(**reader);
}

}  // namespace lance::fuzz
