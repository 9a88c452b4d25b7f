// SPDX-License-Identifier: Apache-2.0
/// \file writer.h
/// \brief Writes record batches as Arrow IPC files ("ARROW1") or streams, in memory.
///
/// The output follows the Arrow columnar format specification, metadata version V5:
///
///   stream: <schema message> <record batch message>* <end-of-stream marker>
///   file:   "ARROW1\0\0" <stream> <Footer flatbuffer> <int32 footer length> "ARROW1"
///
/// Each message is framed as 0xFFFFFFFF, an int32 metadata length, the flatbuffer
/// Message padded to 8 bytes, then the body. Body buffers start at 8-byte aligned
/// offsets and are zero padded. Sliced input arrays (offset != 0) are written as if they
/// started at slot 0: bitmaps are re-packed and offsets rebased, so only the sliced
/// values reach the output.
///
/// Dictionary-encoded columns (lance dictionary types) are written as Arrow prescribes:
/// each dictionary-encoded field gets an id (its position in a depth-first walk of the
/// schema), and before a record batch the writer sends a DictionaryBatch for every
/// dictionary the reader does not have yet: all of them before the first batch; later a
/// delta batch when a dictionary grew by appending values, and (streams only) a
/// replacement when it changed otherwise. The file format cannot replace a dictionary,
/// so the file writer rejects such a batch with Invalid. Dictionaries whose values are
/// themselves dictionary-encoded cannot be described in IPC (NotImplemented).
///
/// With body compression (LZ4_FRAME or ZSTD) every non-empty buffer is stored as an
/// int64 uncompressed length followed by the compressed bytes, or -1 followed by the
/// raw bytes when compressing would not make the buffer smaller.
///
/// Example: a Lance deletion file.
/// \code
///   IpcWriteOptions options;
///   options.compression = IpcCompression::kZstd;
///   LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, WriteIpcFile(*batch, options));
/// \endcode

#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "lance/core/buffer.h"
#include "lance/core/record_batch.h"
#include "lance/core/type.h"
#include "lance/result.h"

namespace lance::ipc {

/// \brief Body compression codecs of the Arrow IPC format.
enum class IpcCompression : uint8_t {
  kNone,      ///< buffers stored as is
  kLz4Frame,  ///< LZ4 frame format (BodyCompression codec LZ4_FRAME)
  kZstd,      ///< Zstandard (BodyCompression codec ZSTD)
};

/// \brief "none", "lz4_frame" or "zstd".
const char* IpcCompressionName(IpcCompression compression);

/// \brief Options of the IPC writers.
struct IpcWriteOptions {
  /// \brief Compression applied to every body buffer of every record batch.
  IpcCompression compression = IpcCompression::kNone;
  /// \brief Zstandard level (1 is Arrow's default; higher is smaller and slower).
  int zstd_level = 1;
};

/// \brief Accumulates an Arrow IPC file or stream in memory, one batch at a time.
///
/// The schema message is written on creation; Finish() appends the end-of-stream
/// marker (and, for files, the footer) and hands over the bytes. Not thread-safe.
class IpcWriter {
 public:
  /// \brief A writer producing the IPC file format (random access, with footer).
  /// \return Invalid if the options are out of range.
  static Result<std::unique_ptr<IpcWriter>> MakeFileWriter(SchemaPtr schema,
                                                           IpcWriteOptions options = {});
  /// \brief A writer producing the IPC streaming format.
  /// \return Invalid if the options are out of range.
  static Result<std::unique_ptr<IpcWriter>> MakeStreamWriter(
      SchemaPtr schema, IpcWriteOptions options = {});

  ~IpcWriter();
  IpcWriter(const IpcWriter&) = delete;
  IpcWriter& operator=(const IpcWriter&) = delete;

  /// \brief Appends one record batch message.
  /// \return Invalid if the batch's columns do not match the writer's schema (count or
  /// types) or an array's buffers are too small for its offset and length; Invalid
  /// after Finish().
  Status WriteRecordBatch(const RecordBatch& batch);

  /// \brief Ends the stream or file and returns all bytes written.
  /// \return Invalid when called twice.
  Result<BufferPtr> Finish();

  /// \brief The schema every batch must follow.
  const SchemaPtr& schema() const;
  /// \brief Record batches written so far.
  int64_t num_record_batches() const;

 private:
  class Impl;
  explicit IpcWriter(std::unique_ptr<Impl> impl);
  static Result<std::unique_ptr<IpcWriter>> Make(SchemaPtr schema,
                                                 const IpcWriteOptions& options,
                                                 bool is_file);
  std::unique_ptr<Impl> impl_;
};

/// \brief An IPC file holding `batch` alone (schema taken from the batch).
Result<BufferPtr> WriteIpcFile(const RecordBatch& batch,
                               const IpcWriteOptions& options = {});
/// \brief An IPC file holding `batches` in order; zero batches gives a file with only
/// the schema.
/// \return Invalid if a batch does not match `schema`.
Result<BufferPtr> WriteIpcFile(const SchemaPtr& schema,
                               const std::vector<RecordBatchPtr>& batches,
                               const IpcWriteOptions& options = {});
/// \brief An IPC file holding the batches of `table`.
Result<BufferPtr> WriteIpcFile(const Table& table, const IpcWriteOptions& options = {});

/// \brief An IPC stream holding `batch` alone, ended by the end-of-stream marker.
Result<BufferPtr> WriteIpcStream(const RecordBatch& batch,
                                 const IpcWriteOptions& options = {});
/// \brief An IPC stream holding `batches` in order, ended by the end-of-stream marker.
/// \return Invalid if a batch does not match `schema`.
Result<BufferPtr> WriteIpcStream(const SchemaPtr& schema,
                                 const std::vector<RecordBatchPtr>& batches,
                                 const IpcWriteOptions& options = {});
/// \brief An IPC stream holding the batches of `table`.
Result<BufferPtr> WriteIpcStream(const Table& table, const IpcWriteOptions& options = {});

}  // namespace lance::ipc
