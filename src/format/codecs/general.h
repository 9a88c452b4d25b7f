// SPDX-License-Identifier: Apache-2.0
// Internal: general-purpose compression (LZ4, ZSTD) framed as Lance 2.1/2.2 frames it
// (lance-encoding encodings/physical/block.rs, "BufferCompressor"):
//
//   * ZSTD: `u64 LE uncompressed length` + one zstd frame (with content size). Lance
//     compresses at the descriptor's level, default 0 (zstd's default, 3). On read, a
//     buffer that starts with the zstd magic 0xFD2FB528 whose frame-header-descriptor
//     byte (byte 4) has the reserved bit 0x10 clear, or that is shorter than 8 bytes, is
//     read as a bare zstd stream (older writers); anything else is length-prefixed. An
//     empty buffer decodes to nothing.
//   * LZ4: `u32 LE uncompressed length` + one raw LZ4 block (LZ4_compress_default; the
//     lz4 crate's "prepend size" block format).
//
// Where the codec is applied is the caller's business: per mini-block chunk to the
// chunk's first value buffer only (general mini-block), to a whole block (general block,
// e.g. a 2.2 dictionary with the default "lz4" dictionary compression), or to each
// full-zip value on its own (general per-value, for values over 32 KiB).

#pragma once

#include <cstdint>
#include <optional>

#include "format/proto/encodings_v2_1.pb.h"
#include "lance/core/buffer.h"
#include "lance/result.h"

namespace lance::format::codecs {

/// Appends `size` bytes at `data`, compressed and framed as above, to `out`. `level` is
/// the zstd level (absent or 0: zstd's default); LZ4 ignores it.
Status GeneralCompress(lance::encodings21::CompressionScheme scheme,
                       std::optional<int> level, const uint8_t* data, int64_t size,
                       BufferBuilder* out);

/// Decompresses one framed buffer. `expected` >= 0 demands exactly that many output bytes
/// (and a matching length prefix); otherwise the output may not exceed `max_bytes`.
Result<BufferPtr> GeneralDecompress(lance::encodings21::CompressionScheme scheme,
                                    const uint8_t* data, int64_t size, int64_t expected,
                                    int64_t max_bytes);

/// The number of bytes a framed buffer says it decompresses to, or -1 when the frame
/// does not say (a bare zstd stream without content size). Fails on a truncated header.
Result<int64_t> GeneralDeclaredSize(lance::encodings21::CompressionScheme scheme,
                                    const uint8_t* data, int64_t size);

/// "lz4", "zstd" or "scheme N".
const char* SchemeName(lance::encodings21::CompressionScheme scheme);

}  // namespace lance::format::codecs
