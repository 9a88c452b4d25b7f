// SPDX-License-Identifier: Apache-2.0
// The ranged read of the remote stores (S3, Azure, GCS): a range read into one new
// buffer, as one request or, when longer than a chunk, as chunk-sized ranged requests run
// in parallel on the I/O executor, each writing its own slice of the buffer (no copy, no
// concatenation). Private to the io layer.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "lance/core/buffer.h"
#include "lance/io/object_store.h"
#include "lance/result.h"

namespace lance::io::internal {

/// \brief Reads `length` bytes at `offset` into `out` with one ranged request.
/// \return the bytes written: fewer than `length` at the end of the object.
using RangeFetch =
    std::function<Result<int64_t>(int64_t offset, int64_t length, uint8_t* out)>;

/// \brief How a store splits a read.
struct RangedReadOptions {
  /// \brief Reads longer than this are split into requests of this size.
  int64_t chunk_size = 8 << 20;
  /// \brief Most requests of one read outstanding at once.
  int max_connections = 32;
};

/// \brief [offset, offset + length) of the object `uri` (for messages) through `fetch`:
/// at most max_connections chunks outstanding, the calling thread running queued ones
/// while it waits, the first failure cancelling the chunks not yet started. The buffer
/// is cut at the first short chunk (an object shorter than the caller said).
/// REQUIRES: offset >= 0, length > 0.
/// \return the bytes; the first failing request's error; IOError when a chunk was lost.
Result<BufferPtr> ReadRangeInParallel(const RangeFetch& fetch, int64_t offset,
                                      int64_t length, const RangedReadOptions& options,
                                      std::string_view uri);

/// \brief A reader of `size` bytes whose reads are ReadRangeInParallel over `fetch`
/// (which owns what it needs, e.g. the client and the version it pins).
std::shared_ptr<RandomAccessReader> MakeRangedReader(std::string path, std::string uri,
                                                     int64_t size, RangeFetch fetch,
                                                     const RangedReadOptions& options);

}  // namespace lance::io::internal
