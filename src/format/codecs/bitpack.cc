// SPDX-License-Identifier: Apache-2.0
// FastLanes pack/unpack kernels, one instantiation per (T, W); see bitpack.h for the
// layout.

#include "format/codecs/bitpack.h"

#include <array>
#include <bit>
#include <cstring>
#include <string>
#include <utility>

namespace lance::format::codecs {

namespace {

template <typename T>
constexpr int kBits = static_cast<int>(sizeof(T) * 8);
template <typename T>
constexpr int kLanes = kFastLanesBlock / kBits<T>;

template <typename T, int W>
constexpr T LowMask() {
  if constexpr (W >= kBits<T>) {
    return static_cast<T>(~T{0});
  } else {
    return static_cast<T>((uint64_t{1} << W) - 1);
  }
}

// Where row `Row` of W-bit values lives: the word and shift of its bits in each lane's
// stream (bit Row * W), and the block position of its first value (FastLanes order).
template <typename T, int W, int Row>
struct RowLayout {
  static constexpr int kT = kBits<T>;
  static constexpr int kWord = Row * W / kT;
  static constexpr int kShift = Row * W % kT;
  static constexpr int kBase = kFastLanesOrder[Row / 8] * 16 + (Row % 8) * 128;
  static constexpr T kMask = LowMask<T, W>();
  // Whether the row's bits lie within one word (else they straddle into the next).
  static constexpr bool kOneWord = kShift + W <= kT;
};

// Row `Row` of every lane: the row's W bits start at bit Row * W of the lane's stream.
// With every quantity constant the lane loop is a plain vector shift-and-mask.
template <typename T, int W, int Row>
inline void UnpackRow(const T* __restrict in, T* __restrict out) {
  using L = RowLayout<T, W, Row>;
  const T* lo = in + kLanes<T> * L::kWord;
  T* o = out + L::kBase;
  if constexpr (L::kOneWord) {
    for (int lane = 0; lane < kLanes<T>; ++lane) {
      o[lane] = static_cast<T>(static_cast<T>(lo[lane] >> L::kShift) & L::kMask);
    }
  } else {
    // The value straddles two words: its high bits are the low bits of the next word.
    const T* hi = lo + kLanes<T>;
    for (int lane = 0; lane < kLanes<T>; ++lane) {
      o[lane] =
          static_cast<T>(static_cast<T>((lo[lane] >> L::kShift) |
                                        static_cast<T>(hi[lane] << (L::kT - L::kShift))) &
                         L::kMask);
    }
  }
}

template <typename T, int W, int Row>
inline void PackRow(const T* __restrict in, T* __restrict out) {
  using L = RowLayout<T, W, Row>;
  const T* src = in + L::kBase;
  T* lo = out + kLanes<T> * L::kWord;
  if constexpr (L::kOneWord) {
    for (int lane = 0; lane < kLanes<T>; ++lane) {
      lo[lane] =
          static_cast<T>(lo[lane] | static_cast<T>((src[lane] & L::kMask) << L::kShift));
    }
  } else {
    T* hi = lo + kLanes<T>;
    for (int lane = 0; lane < kLanes<T>; ++lane) {
      const T v = static_cast<T>(src[lane] & L::kMask);
      lo[lane] = static_cast<T>(lo[lane] | static_cast<T>(v << L::kShift));
      hi[lane] = static_cast<T>(hi[lane] | static_cast<T>(v >> (L::kT - L::kShift)));
    }
  }
}

template <typename T, int W, int... Rows>
void UnpackRows(const T* __restrict in, T* __restrict out,
                std::integer_sequence<int, Rows...>) {
  (UnpackRow<T, W, Rows>(in, out), ...);
}

template <typename T, int W, int... Rows>
void PackRows(const T* __restrict in, T* __restrict out,
              std::integer_sequence<int, Rows...>) {
  (PackRow<T, W, Rows>(in, out), ...);
}

template <typename T, int W>
void UnpackWidth(const T* __restrict in, T* __restrict out) {
  if constexpr (W == 0) {
    std::memset(out, 0, sizeof(T) * kFastLanesBlock);
  } else if constexpr (W == kBits<T>) {
    // A transposed copy: row r of lane l is word LANES * r + l.
    for (int row = 0; row < kBits<T>; ++row) {
      const int base = kFastLanesOrder[row / 8] * 16 + (row % 8) * 128;
      std::memcpy(out + base, in + kLanes<T> * row, sizeof(T) * kLanes<T>);
    }
  } else {
    UnpackRows<T, W>(in, out, std::make_integer_sequence<int, kBits<T>>{});
  }
}

template <typename T, int W>
void PackWidth(const T* __restrict in, T* __restrict out) {
  if constexpr (W == 0) {
    // Nothing is stored.
  } else if constexpr (W == kBits<T>) {
    for (int row = 0; row < kBits<T>; ++row) {
      const int base = kFastLanesOrder[row / 8] * 16 + (row % 8) * 128;
      std::memcpy(out + kLanes<T> * row, in + base, sizeof(T) * kLanes<T>);
    }
  } else {
    std::memset(out, 0, sizeof(T) * static_cast<size_t>(PackedWords<T>(W)));
    PackRows<T, W>(in, out, std::make_integer_sequence<int, kBits<T>>{});
  }
}

template <typename T>
using Kernel = void (*)(const T*, T*);

template <typename T, int... Ws>
constexpr std::array<Kernel<T>, sizeof...(Ws)> UnpackTable(
    std::integer_sequence<int, Ws...>) {
  return {&UnpackWidth<T, Ws>...};
}

template <typename T, int... Ws>
constexpr std::array<Kernel<T>, sizeof...(Ws)> PackTable(
    std::integer_sequence<int, Ws...>) {
  return {&PackWidth<T, Ws>...};
}

template <typename T>
constexpr auto kUnpackKernels =
    UnpackTable<T>(std::make_integer_sequence<int, kBits<T> + 1>{});
template <typename T>
constexpr auto kPackKernels =
    PackTable<T>(std::make_integer_sequence<int, kBits<T> + 1>{});

}  // namespace

template <typename T>
void FastLanesPack(int width, const T* in, T* out) {
  kPackKernels<T>[static_cast<size_t>(width)](in, out);
}

template <typename T>
void FastLanesUnpack(int width, const T* in, T* out) {
  kUnpackKernels<T>[static_cast<size_t>(width)](in, out);
}

template <typename T>
int BitWidth(const T* values, int64_t n) {
  T acc = 0;
  for (int64_t i = 0; i < n; ++i) acc = static_cast<T>(acc | values[i]);
  return acc == 0 ? 0 : kBits<T> - std::countl_zero(acc);
}

template <typename T>
Status AppendInlineBitpacked(const T* values, int64_t n, BufferBuilder* out) {
  if (n <= 0 || n > kFastLanesBlock) {
    return Status::Invalid("an inline bit-packed chunk holds 1 to 1024 values, not ", n);
  }
  alignas(64) T block[kFastLanesBlock] = {};
  std::memcpy(block, values, sizeof(T) * static_cast<size_t>(n));
  const int width = BitWidth(block, kFastLanesBlock);
  alignas(64) T packed[kFastLanesBlock + 1];
  packed[0] = static_cast<T>(width);
  FastLanesPack<T>(width, block, packed + 1);
  return out->Append(packed,
                     static_cast<int64_t>(sizeof(T)) * (1 + PackedWords<T>(width)));
}

template <typename T>
Status AppendOutOfLineBitpacked(const T* values, int64_t n, int width,
                                BufferBuilder* out) {
  if (width < 0 || width > kBits<T> || n < 0) {
    return Status::Invalid("out-of-line bit-packing to ", width, " bits");
  }
  alignas(64) T packed[kFastLanesBlock];
  const int64_t words = PackedWords<T>(width);
  const int64_t whole = n / kFastLanesBlock;
  for (int64_t b = 0; b < whole; ++b) {
    FastLanesPack<T>(width, values + b * kFastLanesBlock, packed);
    Status st = out->Append(packed, static_cast<int64_t>(sizeof(T)) * words);
    if (!st.ok()) return st;
  }
  const int64_t tail = n - whole * kFastLanesBlock;
  if (tail == 0) return Status::OK();
  const int64_t padding_cost = int64_t{width} * (kFastLanesBlock - tail);
  const int64_t savings = int64_t{kBits<T> - width} * tail;
  if (padding_cost < savings) {
    alignas(64) T block[kFastLanesBlock] = {};
    std::memcpy(block, values + whole * kFastLanesBlock,
                sizeof(T) * static_cast<size_t>(tail));
    FastLanesPack<T>(width, block, packed);
    return out->Append(packed, static_cast<int64_t>(sizeof(T)) * words);
  }
  return out->Append(values + whole * kFastLanesBlock,
                     static_cast<int64_t>(sizeof(T)) * tail);
}

template Status AppendInlineBitpacked<uint8_t>(const uint8_t*, int64_t, BufferBuilder*);
template Status AppendInlineBitpacked<uint16_t>(const uint16_t*, int64_t, BufferBuilder*);
template Status AppendInlineBitpacked<uint32_t>(const uint32_t*, int64_t, BufferBuilder*);
template Status AppendInlineBitpacked<uint64_t>(const uint64_t*, int64_t, BufferBuilder*);
template Status AppendOutOfLineBitpacked<uint8_t>(const uint8_t*, int64_t, int,
                                                  BufferBuilder*);
template Status AppendOutOfLineBitpacked<uint16_t>(const uint16_t*, int64_t, int,
                                                   BufferBuilder*);
template Status AppendOutOfLineBitpacked<uint32_t>(const uint32_t*, int64_t, int,
                                                   BufferBuilder*);
template Status AppendOutOfLineBitpacked<uint64_t>(const uint64_t*, int64_t, int,
                                                   BufferBuilder*);
template void FastLanesPack<uint8_t>(int, const uint8_t*, uint8_t*);
template void FastLanesPack<uint16_t>(int, const uint16_t*, uint16_t*);
template void FastLanesPack<uint32_t>(int, const uint32_t*, uint32_t*);
template void FastLanesPack<uint64_t>(int, const uint64_t*, uint64_t*);
template void FastLanesUnpack<uint8_t>(int, const uint8_t*, uint8_t*);
template void FastLanesUnpack<uint16_t>(int, const uint16_t*, uint16_t*);
template void FastLanesUnpack<uint32_t>(int, const uint32_t*, uint32_t*);
template void FastLanesUnpack<uint64_t>(int, const uint64_t*, uint64_t*);
template int BitWidth<uint8_t>(const uint8_t*, int64_t);
template int BitWidth<uint16_t>(const uint16_t*, int64_t);
template int BitWidth<uint32_t>(const uint32_t*, int64_t);
template int BitWidth<uint64_t>(const uint64_t*, int64_t);

}  // namespace lance::format::codecs
