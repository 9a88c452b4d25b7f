// SPDX-License-Identifier: Apache-2.0
/// \file reader.h
/// \brief Reads Arrow IPC files ("ARROW1") and streams held in memory.
///
/// Supported: metadata versions V4 and V5 (little-endian), every type lance::DataType
/// has (null, bool, int8..uint64, float16/32/64, decimal128/256, utf8, large_utf8,
/// binary, large_binary, fixed_size_binary, date32/64, time32/64, timestamp, duration,
/// list, large_list, fixed_size_list, struct, map), dictionary-encoded fields (dictionary
/// batches, replacements and deltas; fields may share a dictionary id), validity bitmaps,
/// field and schema metadata, and body compression with LZ4_FRAME or ZSTD. Other Arrow
/// types (decimal32/64, intervals, unions, views, run-end encoded) give NotImplemented.
///
/// Uncompressed buffers are zero-copy slices of the input buffer, which the arrays keep
/// alive; a buffer whose address is not 8-byte aligned is copied instead.
///
/// Input is untrusted: every flatbuffer is verified before use, every buffer range is
/// checked against the message body, every decompressed size against its declaration,
/// and offsets, child lengths, bitmap sizes and dictionary indices against the array and
/// dictionary lengths, so a batch that is returned can be accessed without further
/// checks. (UTF-8 validity of utf8
/// values is not checked, as in Arrow; call Array::Validate() for that.) Malformed
/// input gives Corrupt naming what was being read.

#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "lance/core/buffer.h"
#include "lance/core/record_batch.h"
#include "lance/core/type.h"
#include "lance/ipc/limits.h"
#include "lance/result.h"

namespace lance::ipc {

/// \brief Random access to the record batches of an Arrow IPC file in memory.
///
/// Thread-safe: ReadRecordBatch() may be called concurrently.
class IpcFileReader {
 public:
  /// \brief Checks the magic bytes, decodes the footer, the schema and every dictionary
  /// batch (dictionaries apply to all record batches of a file).
  /// \return Corrupt if `file_bytes` is not a well-formed IPC file, NotImplemented for
  /// unsupported types, big-endian data or metadata older than V4.
  static Result<std::shared_ptr<IpcFileReader>> Open(BufferPtr file_bytes);

  ~IpcFileReader();
  IpcFileReader(const IpcFileReader&) = delete;
  IpcFileReader& operator=(const IpcFileReader&) = delete;

  /// \brief The schema from the footer, with field and schema metadata.
  const SchemaPtr& schema() const;
  /// \brief Number of record batches listed in the footer.
  int num_record_batches() const;
  /// \brief Decodes record batch `i` (0-based, in file order).
  /// \return Invalid if i is out of range; Corrupt if the batch does not decode.
  Result<RecordBatchPtr> ReadRecordBatch(int i) const;
  /// \brief All record batches as a table.
  Result<TablePtr> ReadTable() const;

 private:
  struct State;
  explicit IpcFileReader(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// \brief Reads the messages of an Arrow IPC stream in memory, one batch per Next().
///
/// The stream ends at the end-of-stream marker (0xFFFFFFFF 00000000), at a zero
/// metadata length (pre-1.0 writers) or at the end of the bytes. Not thread-safe.
class IpcStreamReader : public RecordBatchReader {
 public:
  /// \brief Reads the schema message at the start of `stream_bytes`.
  /// \return Corrupt if the stream does not begin with a valid schema message,
  /// NotImplemented as for IpcFileReader::Open().
  static Result<std::unique_ptr<IpcStreamReader>> Open(BufferPtr stream_bytes);
  /// \brief As Open(stream_bytes), after CheckIpcStreamLimits() over the whole stream:
  /// one that declares more than `limits` allow is refused before anything is decoded,
  /// and the batches Next() then returns stay within them.
  /// \return Invalid carrying an IpcLimitDetail when a cap is exceeded; Corrupt or
  /// NotImplemented as for Open() (also for damage past the schema message).
  static Result<std::unique_ptr<IpcStreamReader>> Open(BufferPtr stream_bytes,
                                                       const IpcLimits& limits);

  ~IpcStreamReader() override;

  SchemaPtr schema() const override;
  /// \brief The next record batch, or nullptr after the last one.
  /// Dictionary batches met on the way are applied (they replace or extend the
  /// dictionary of their id for the batches that follow).
  /// \return Corrupt if a message does not decode or a batch uses a dictionary that was
  /// not sent before it.
  Result<RecordBatchPtr> Next() override;

 private:
  struct State;
  explicit IpcStreamReader(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// \brief All record batches of an IPC file, as a table.
Result<TablePtr> ReadIpcFile(BufferPtr file_bytes);
/// \brief All record batches of an IPC stream, as a table.
Result<TablePtr> ReadIpcStream(BufferPtr stream_bytes);
/// \brief As ReadIpcStream(stream_bytes), for untrusted bytes: CheckIpcStreamLimits()
/// first, so that a stream declaring more than `limits` allow is refused before
/// anything is decompressed or built.
/// \return Invalid carrying an IpcLimitDetail when a cap is exceeded; otherwise as
/// ReadIpcStream().
Result<TablePtr> ReadIpcStream(BufferPtr stream_bytes, const IpcLimits& limits);

}  // namespace lance::ipc
