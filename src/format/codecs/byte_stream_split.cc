// SPDX-License-Identifier: Apache-2.0
// Byte stream split; see byte_stream_split.h.

#include "format/codecs/byte_stream_split.h"

namespace lance::format::codecs {

namespace {

// Moves byte j of value i between value order (i * width + j) and byte-plane order
// (j * n + i): to the planes when kSplit, back from them otherwise. The common widths get
// a constant width so that the compiler unrolls the inner loop.
template <bool kSplit, int W>
void Transpose(int width, const uint8_t* __restrict src, int64_t n,
               uint8_t* __restrict dst) {
  const int w = W > 0 ? W : width;
  for (int64_t i = 0; i < n; ++i) {
    for (int j = 0; j < w; ++j) {
      if constexpr (kSplit) {
        dst[j * n + i] = src[i * w + j];
      } else {
        dst[i * w + j] = src[j * n + i];
      }
    }
  }
}

template <bool kSplit>
void TransposeAnyWidth(int width, const uint8_t* src, int64_t n, uint8_t* dst) {
  switch (width) {
    case 2:
      return Transpose<kSplit, 2>(width, src, n, dst);
    case 4:
      return Transpose<kSplit, 4>(width, src, n, dst);
    case 8:
      return Transpose<kSplit, 8>(width, src, n, dst);
    default:
      return Transpose<kSplit, 0>(width, src, n, dst);
  }
}

}  // namespace

void ByteStreamSplitEncode(int width, const uint8_t* src, int64_t n, uint8_t* dst) {
  TransposeAnyWidth<true>(width, src, n, dst);
}

void ByteStreamSplitDecode(int width, const uint8_t* src, int64_t n, uint8_t* dst) {
  TransposeAnyWidth<false>(width, src, n, dst);
}

}  // namespace lance::format::codecs
