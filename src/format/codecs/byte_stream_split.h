// SPDX-License-Identifier: Apache-2.0
// Internal: byte stream split as Lance 2.1/2.2 writes it (encodings/physical/
// byte_stream_split.rs). Within one mini-block chunk of n values of w bytes, byte j of
// value i is stored at j * n + i: all first bytes, then all second bytes, ... Lance
// splits 32- and 64-bit values only, in chunks of 1024 (32-bit) or 512 (64-bit) values,
// and only when general compression wraps the chunks (opt-in with "lance-encoding:bss").

#pragma once

#include <cstdint>

namespace lance::format::codecs {

/// Splits `n` values of `width` bytes from `src` into `width` streams at `dst`
/// (n * width bytes). REQUIRES: the ranges do not overlap.
void ByteStreamSplitEncode(int width, const uint8_t* src, int64_t n, uint8_t* dst);

/// The inverse: joins `width` streams of `n` bytes at `src` into `n` values at `dst`.
void ByteStreamSplitDecode(int width, const uint8_t* src, int64_t n, uint8_t* dst);

}  // namespace lance::format::codecs
