// SPDX-License-Identifier: Apache-2.0
// Internal: the layouts of `variable{offsets: flat(32|64)}` values in Lance 2.1/2.2
// (encodings/physical/binary.rs).
//
// Mini-block chunk (one value buffer per chunk), with w = offset width in bytes:
//
//     [(n + 1) offsets, u32 or u64 LE][value bytes][pad with 0x48 to a multiple of w]
//
// The offsets are relative to the start of the chunk, so the first is (n + 1) * w. The
// writer (BinaryMiniBlockEncoder) cuts chunks of 2, 4, 8, ... values while the chunk
// (offsets + bytes, before padding) stays within 4 KiB, at most 2048 values per chunk
// except a final chunk that takes everything left when it fits, and at least 2 values
// for every chunk but the last (one huge value still makes a chunk of 2).
//
// Block (a page dictionary, a 2.2 general-compressed dictionary after decompression):
//
//     [u32 32][u32 bytes_start][(n + 1) u32 offsets, first 0][value bytes]   (32-bit)
//     [u64 64][u64 bytes_start][(n + 1) u64 offsets, first 0][value bytes]   (64-bit)
//
// with bytes_start = header + offsets size, and offsets relative to the value bytes. An
// older, pre-stable layout is still read: `u8 bits (32|64)` then the value count (u32 or
// u64) then bytes_start (u32 or u64); Lance tells them apart by bytes 1..3 being
// non-zero.

#pragma once

#include <cstdint>
#include <vector>

#include "format/codecs/codecs.h"

namespace lance::format::codecs {

/// Lance's default chunk budget for variable-width mini-blocks (offsets + bytes).
inline constexpr int64_t kVariableChunkAimBytes = 4096;

/// One chunk chosen by PlanVariableChunks: values [first, first + num_values).
struct VariableChunk {
  int64_t first = 0;
  int64_t num_values = 0;
  /// log2(num_values), or 0 for the last chunk (the mini-block convention).
  int log_num_values = 0;
  /// Bytes of the chunk's value buffer including its padding.
  int64_t padded_bytes = 0;
};

/// Cuts `num_values` values (offsets[0..num_values], any base) into chunks as Lance's
/// BinaryMiniBlockEncoder does; `offset_bytes` is 4 or 8.
template <typename OffsetT>
std::vector<VariableChunk> PlanVariableChunks(const OffsetT* offsets, int64_t num_values,
                                              int64_t aim_bytes = kVariableChunkAimBytes,
                                              int64_t max_values = 4096);

/// Appends the chunk of values [first, first + n) (offsets index `data`) in the
/// mini-block layout above, padding included.
template <typename OffsetT>
Status WriteVariableChunk(const OffsetT* offsets, const uint8_t* data, int64_t first,
                          int64_t n, BufferBuilder* out);

/// Reads a mini-block chunk of `num_values` values: a kVariable block whose offsets and
/// data are views into `chunk` (offsets not rebased; the first is the chunk-relative
/// start of the values).
Result<DataBlock> ReadVariableChunk(const BufferPtr& chunk, int offset_bits,
                                    int64_t num_values);

/// The block layout above, from offsets of any base (rebased to 0).
template <typename OffsetT>
Result<BufferPtr> WriteVariableBlock(const OffsetT* offsets, const uint8_t* data,
                                     int64_t num_values);

/// Reads a block (either layout) of `num_values` values as a kVariable block of views.
Result<DataBlock> ReadVariableBlock(const BufferPtr& block, int64_t num_values);

}  // namespace lance::format::codecs
