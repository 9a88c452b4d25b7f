// SPDX-License-Identifier: Apache-2.0
// Internal helpers shared by the codec sources: little-endian loads and stores, checked
// arithmetic, allocation caps and error constructors.

#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "lance/core/buffer.h"
#include "lance/core/byte_order.h"
#include "lance/result.h"
#include "lance/status.h"

namespace lance::format::codecs::internal {

/// Calls `fn(T{})` with T the unsigned integer type of `bits` bits (8, 16, 32; anything
/// else: 64) and returns its result: one switch instead of one per templated decoder.
template <typename Fn>
decltype(auto) DispatchUnsignedWidth(uint64_t bits, Fn&& fn) {
  switch (bits) {
    case 8:
      return fn(uint8_t{});
    case 16:
      return fn(uint16_t{});
    case 32:
      return fn(uint32_t{});
    default:
      return fn(uint64_t{});
  }
}

/// No count taken from a file may exceed this; keeps every count * width product far from
/// int64 overflow.
inline constexpr int64_t kMaxCount = int64_t{1} << 40;

/// Largest buffer any codec allocates for a whole block or a full-zip value run (lazily
/// committed memory; bounds what a lying length can ask for).
inline constexpr int64_t kMaxBlockBytes = int64_t{1} << 31;

/// Base allowance for one decoded mini-block chunk; a chunk may exceed it only by a few
/// KiB per value it claims to hold.
inline constexpr int64_t kMaxChunkBaseBytes = int64_t{16} << 20;

/// The most bytes one mini-block chunk of `num_values` values may decode to.
inline int64_t MaxChunkBytes(int64_t num_values) {
  const int64_t per_value = int64_t{64} << 10;
  if (num_values < 0) return kMaxChunkBaseBytes;
  if (num_values > (kMaxBlockBytes - kMaxChunkBaseBytes) / per_value)
    return kMaxBlockBytes;
  return kMaxChunkBaseBytes + num_values * per_value;
}

/// a * b, or false when it overflows int64 or exceeds kMaxBlockBytes * 8.
inline bool CheckedMul(int64_t a, int64_t b, int64_t* out) {
  if (a < 0 || b < 0) return false;
  return !__builtin_mul_overflow(a, b, out) && *out <= kMaxBlockBytes * 8;
}

/// Bytes that `n` values of `bits` bits occupy, or -1 when implausibly large.
inline int64_t BytesForBits(int64_t n, uint64_t bits) {
  if (n < 0 || bits > (uint64_t{1} << 32)) return -1;
  int64_t total_bits;
  if (!CheckedMul(n, static_cast<int64_t>(bits), &total_bits)) return -1;
  return (total_bits + 7) / 8;
}

/// A buffer of `size` bytes the caller overwrites completely (not zeroed).
inline Result<BufferPtr> AllocateOut(int64_t size) {
  if (size < 0 || size > kMaxBlockBytes) {
    return Status::Corrupt("a decoded buffer of ", size, " bytes is implausibly large");
  }
  return Buffer::AllocateForOverwrite(size);
}

/// A zero-length buffer (with a non-null data pointer, so memcpy of 0 bytes is defined).
inline BufferPtr EmptyBuffer() {
  static const uint8_t kNothing[8] = {};
  return std::make_shared<Buffer>(kNothing, 0);
}

}  // namespace lance::format::codecs::internal
