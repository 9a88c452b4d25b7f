// SPDX-License-Identifier: Apache-2.0
// Body buffer compression of the Arrow IPC format (BodyCompression method BUFFER).
//
// A compressed body buffer is an int64 little-endian uncompressed length followed by
// the compressed bytes of one LZ4 frame or Zstandard frame; a length of -1 means the
// bytes that follow are stored uncompressed. Empty buffers stay empty (no prefix).

#pragma once

#include <cstdint>

#include "lance/core/buffer.h"
#include "lance/ipc/writer.h"
#include "lance/result.h"

namespace lance::ipc::internal {

/// \brief Checks that `level` is a valid Zstandard compression level.
Status ValidateZstdLevel(int level);

/// \brief Prefix + compressed bytes of `data`, or -1 + `data` when compressing does not
/// make it smaller. REQUIRES: codec != kNone, data.size() > 0.
Result<BufferPtr> CompressBodyBuffer(IpcCompression codec, int zstd_level,
                                     const Buffer& data);

/// \brief The uncompressed bytes of a body buffer as stored (prefix included).
///
/// Stored-uncompressed buffers (-1) are returned as zero-copy slices of `stored`.
/// \return Corrupt if the prefix is missing or negative, the declared length is more
/// than the codec can produce from the stored bytes, or the bytes do not decompress to
/// exactly the declared length.
Result<BufferPtr> DecompressBodyBuffer(IpcCompression codec, const BufferPtr& stored);

}  // namespace lance::ipc::internal
