// SPDX-License-Identifier: Apache-2.0
// Internal: run-length encoding as Lance 2.1/2.2 writes it (encodings/physical/rle.rs).
//
// Values are cut into runs of equal values; the run values go to one buffer at their
// native width (1, 2, 4 or 8 bytes) and the run lengths to another, one unsigned
// little-endian integer of `length_bytes` each (1 = u8, the only width the stable 2.1/2.2
// grammar allows; 2 and 4 exist in newer Lance). A run longer than the largest length is
// split into maximal runs plus a remainder, e.g. 600 x 7 with u8 lengths is
// (7, 255), (7, 255), (7, 90). A zero run length is corrupt.
//
//   * mini-block: two value buffers per chunk, [run values][run lengths]. Lance's chunker
//     takes all remaining values (at most 4096) when they encode to at most 8186 bytes,
//     otherwise the largest power-of-two prefix that does. On read, runs that sum past
//     the chunk's value count are clamped (older writers overshot), runs that fall short
//     are corrupt.
//   * block (2.2 rep/def levels): one buffer `[u64 LE values_size][run values][run
//     lengths]`; runs must sum to exactly the expected count.

#pragma once

#include <cstdint>
#include <vector>

#include "lance/core/buffer.h"
#include "lance/result.h"

namespace lance::format::codecs {

/// Bytes RleEncode would produce (values + lengths) for `n` values of `value_bytes`.
int64_t RleEncodedSize(int value_bytes, const uint8_t* data, int64_t n,
                       int length_bytes = 1);

/// Appends the runs of `n` values of `value_bytes` bytes at `data` to `values` and their
/// lengths (`length_bytes` each) to `lengths`. REQUIRES: value_bytes in {1, 2, 4, 8},
/// length_bytes in {1, 2, 4}.
Status RleEncode(int value_bytes, const uint8_t* data, int64_t n, int length_bytes,
                 BufferBuilder* values, BufferBuilder* lengths);

/// Expands runs into exactly `num_values` values at `dst` (num_values * value_bytes
/// bytes). With `clamp_overflow` (mini-block) runs past num_values are cut off; without
/// (block) they are corrupt. Runs that end short of num_values are always corrupt.
Status RleDecode(int value_bytes, const uint8_t* values, int64_t values_size,
                 int length_bytes, const uint8_t* lengths, int64_t lengths_size,
                 int64_t num_values, bool clamp_overflow, uint8_t* dst);

/// One mini-block chunk cut by RleEncodeMiniBlock.
struct RleChunk {
  int64_t num_values = 0;
  /// log2(num_values), or 0 for the last chunk (the mini-block convention).
  int log_num_values = 0;
  int64_t values_bytes = 0;
  int64_t lengths_bytes = 0;
};

/// Lance's RLE mini-block encoder with u8 run lengths: cuts `n` values into chunks as
/// described above and appends every chunk's runs to the two page-wide buffers.
Status RleEncodeMiniBlock(int value_bytes, const uint8_t* data, int64_t n,
                          BufferBuilder* values, BufferBuilder* lengths,
                          std::vector<RleChunk>* chunks, int64_t max_chunk_values = 4096,
                          int64_t max_chunk_bytes = 8186);

/// Lance's RLE block buffer: `[u64 LE values_size][run values][run lengths]`.
Result<BufferPtr> RleEncodeBlock(int value_bytes, const uint8_t* data, int64_t n,
                                 int length_bytes = 1);

}  // namespace lance::format::codecs
