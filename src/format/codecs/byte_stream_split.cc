// SPDX-License-Identifier: Apache-2.0
// Byte stream split; see byte_stream_split.h.

#include "format/codecs/byte_stream_split.h"

namespace lance::format::codecs {

namespace {

template <int W>
void Encode(const uint8_t* __restrict src, int64_t n, uint8_t* __restrict dst) {
  for (int64_t i = 0; i < n; ++i) {
    for (int j = 0; j < W; ++j) dst[j * n + i] = src[i * W + j];
  }
}

template <int W>
void Decode(const uint8_t* __restrict src, int64_t n, uint8_t* __restrict dst) {
  for (int64_t i = 0; i < n; ++i) {
    for (int j = 0; j < W; ++j) dst[i * W + j] = src[j * n + i];
  }
}

}  // namespace

void ByteStreamSplitEncode(int width, const uint8_t* src, int64_t n, uint8_t* dst) {
  switch (width) {
    case 2:
      return Encode<2>(src, n, dst);
    case 4:
      return Encode<4>(src, n, dst);
    case 8:
      return Encode<8>(src, n, dst);
    default:
      for (int64_t i = 0; i < n; ++i) {
        for (int j = 0; j < width; ++j) dst[j * n + i] = src[i * width + j];
      }
  }
}

void ByteStreamSplitDecode(int width, const uint8_t* src, int64_t n, uint8_t* dst) {
  switch (width) {
    case 2:
      return Decode<2>(src, n, dst);
    case 4:
      return Decode<4>(src, n, dst);
    case 8:
      return Decode<8>(src, n, dst);
    default:
      for (int64_t i = 0; i < n; ++i) {
        for (int j = 0; j < width; ++j) dst[i * width + j] = src[j * n + i];
      }
  }
}

}  // namespace lance::format::codecs
