// SPDX-License-Identifier: Apache-2.0
// Arrow IPC. Byte 0, bit 0 picks the file format (IpcFileReader: magic, footer, schema,
// dictionaries, every record batch) or the stream format (IpcStreamReader: schema
// message, then batches until the end); the rest is the bytes. Every batch must
// validate. Streams also go through the metadata-only walk of ipc/limits.h, which must
// agree with the reader on the rows of a stream both accept.
#include <string>

#include "fuzz/fuzz_entries.h"
#include "lance/core/buffer.h"
#include "lance/ipc/limits.h"
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
  const std::string_view stream = data.substr(1);
  const auto stats = ipc::MeasureIpcStream(stream);
  // Unlimited caps leave only the walk's own verdict.
  const Status unlimited = ipc::CheckIpcStreamLimits(stream, ipc::IpcLimits::Unlimited());
  FUZZ_CHECK(unlimited.ok() == stats.ok(), "the limits check and the walk disagree");
  // Small caps, so that inputs of fuzzer size reach every refusal.
  ipc::IpcLimits small;
  small.max_decoded_bytes = 4096;
  small.max_rows = 64;
  small.max_array_length = 256;
  small.max_columns = 16;
  small.max_nesting_depth = 4;
  const Status capped = ipc::CheckIpcStreamLimits(stream, small);
  FUZZ_CHECK(!capped.IsInvalid() || capped.detail_as<ipc::IpcLimitDetail>() != nullptr,
             "a refusal by the limits check has no IpcLimitDetail");
  FUZZ_CHECK(capped.ok() || !stats.ok() || capped.IsInvalid(),
             "the limits check fails a stream the walk accepts");

  auto reader = ipc::IpcStreamReader::Open(bytes);
  if (!reader.ok()) return reader.status();
  int64_t rows = 0;
  while (true) {
    auto batch = (*reader)->Next();
    if (!batch.ok()) return batch.status();
    if (!*batch) break;
    CheckBatch(**batch);
    rows += (*batch)->num_rows();
  }
  // Both read every record batch message to the end of the stream.
  FUZZ_CHECK(!stats.ok() || stats->rows == rows,
             "the limits walk counts other rows than the reader returns");
  return Status::OK();
}

}  // namespace lance::fuzz
