// SPDX-License-Identifier: Apache-2.0
// Internal: FastLanes bit-packing as Lance 2.1/2.2 writes it (the lance-bitpacking crate,
// a port of spiraldb/fastlanes).
//
// A block is always 1024 values of an unsigned type T (8, 16, 32 or 64 bits) packed to W
// bits each (0 <= W <= T) into exactly 1024 * W / T words of T. The layout is
// "transposed": with LANES = 1024 / T, value number
//     idx(row, lane) = kFastLanesOrder[row / 8] * 16 + (row % 8) * 128 + lane
// (row in [0, T), lane in [0, LANES)) owns bits [row * W, row * W + W) of the bit stream
// of its lane; that stream is the words packed[LANES * k + lane], k = 0, 1, ... (bit b of
// the stream is bit b % T of word b / T, so a value may straddle two words).
// W = 0 stores nothing; W = T is a plain transposed copy. Packing keeps only the low W
// bits of each value, so signed values are packed as their raw bits.
//
// The kernels are specialised per (T, W) so that every shift is a compile-time constant
// and the lane loop vectorises.

#pragma once

#include <cstddef>
#include <cstdint>

#include "lance/core/buffer.h"
#include "lance/status.h"

namespace lance::format::codecs {

/// Values per FastLanes block.
inline constexpr int kFastLanesBlock = 1024;

/// The row permutation of the FastLanes "1024-bit transposed" layout.
inline constexpr int kFastLanesOrder[8] = {0, 4, 2, 6, 1, 5, 3, 7};

/// Words of T that one block of 1024 values packed to `width` bits occupies.
template <typename T>
constexpr int64_t PackedWords(int width) {
  return int64_t{kFastLanesBlock} * width / static_cast<int64_t>(sizeof(T) * 8);
}

/// Packs exactly 1024 values from `in` to `width` bits each into `out`, which must hold
/// PackedWords<T>(width) words. REQUIRES: 0 <= width <= bits of T.
template <typename T>
void FastLanesPack(int width, const T* in, T* out);

/// Unpacks one block of PackedWords<T>(width) words from `in` into exactly 1024 values
/// at `out`. REQUIRES: 0 <= width <= bits of T.
template <typename T>
void FastLanesUnpack(int width, const T* in, T* out);

/// The number of bits needed to hold the largest of `n` values (0 when all are zero),
/// i.e. the smallest W that packs them losslessly.
template <typename T>
int BitWidth(const T* values, int64_t n);

/// Appends one inline bit-packed chunk as Lance writes it (InlineBitpacking, the
/// mini-block form and the block form for at most 1024 values): a T holding the bit width
/// W (the width of the largest of the `n` values), then the values zero-padded to 1024
/// and packed: PackedWords<T>(W) words. REQUIRES: 0 < n <= 1024.
template <typename T>
Status AppendInlineBitpacked(const T* values, int64_t n, BufferBuilder* out);

/// Appends `n` values packed out of line at `width` bits (Lance's OutOfLineBitpacking,
/// used for rep/def level blocks of more than 1024 values): whole 1024-value blocks, then
/// a partial tail either zero-padded and packed (when the padding costs fewer bits than
/// packing saves: width * (1024 - tail) < (T - width) * tail) or appended raw.
template <typename T>
Status AppendOutOfLineBitpacked(const T* values, int64_t n, int width,
                                BufferBuilder* out);

extern template void FastLanesPack<uint8_t>(int, const uint8_t*, uint8_t*);
extern template void FastLanesPack<uint16_t>(int, const uint16_t*, uint16_t*);
extern template void FastLanesPack<uint32_t>(int, const uint32_t*, uint32_t*);
extern template void FastLanesPack<uint64_t>(int, const uint64_t*, uint64_t*);
extern template void FastLanesUnpack<uint8_t>(int, const uint8_t*, uint8_t*);
extern template void FastLanesUnpack<uint16_t>(int, const uint16_t*, uint16_t*);
extern template void FastLanesUnpack<uint32_t>(int, const uint32_t*, uint32_t*);
extern template void FastLanesUnpack<uint64_t>(int, const uint64_t*, uint64_t*);
extern template int BitWidth<uint8_t>(const uint8_t*, int64_t);
extern template int BitWidth<uint16_t>(const uint16_t*, int64_t);
extern template int BitWidth<uint32_t>(const uint32_t*, int64_t);
extern template int BitWidth<uint64_t>(const uint64_t*, int64_t);
extern template Status AppendInlineBitpacked<uint8_t>(const uint8_t*, int64_t,
                                                      BufferBuilder*);
extern template Status AppendInlineBitpacked<uint16_t>(const uint16_t*, int64_t,
                                                       BufferBuilder*);
extern template Status AppendInlineBitpacked<uint32_t>(const uint32_t*, int64_t,
                                                       BufferBuilder*);
extern template Status AppendInlineBitpacked<uint64_t>(const uint64_t*, int64_t,
                                                       BufferBuilder*);
extern template Status AppendOutOfLineBitpacked<uint8_t>(const uint8_t*, int64_t, int,
                                                         BufferBuilder*);
extern template Status AppendOutOfLineBitpacked<uint16_t>(const uint16_t*, int64_t, int,
                                                          BufferBuilder*);
extern template Status AppendOutOfLineBitpacked<uint32_t>(const uint32_t*, int64_t, int,
                                                          BufferBuilder*);
extern template Status AppendOutOfLineBitpacked<uint64_t>(const uint64_t*, int64_t, int,
                                                          BufferBuilder*);

}  // namespace lance::format::codecs
