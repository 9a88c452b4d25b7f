// SPDX-License-Identifier: Apache-2.0
// Helpers the decoding contexts share (codecs.cc, miniblock_decode.cc, block_decode.cc).
// Private to src/format/codecs: the rest of the format layer uses codecs.h.

#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "format/codecs/codecs.h"
#include "lance/result.h"

namespace lance::format::codecs {

/// Describe(*e), or "?" for a missing child.
std::string DescribeChild(const pb21::CompressiveEncoding* e);
/// NotImplemented: `e` is valid but Lance does not read it in `context`.
Status NotInContext(const pb21::CompressiveEncoding& e, const char* context);
/// Corrupt: `e` lacks its `what` child.
Status Missing(const pb21::CompressiveEncoding& e, const char* what);
/// The most bytes `compressed` bytes of `scheme` can plausibly decode to, at most `cap`.
int64_t DecompressCap(pb21::CompressionScheme scheme, int64_t compressed, int64_t cap);
/// Decompresses `in` (general compression) to `expected` bytes, refusing more than `cap`.
Result<BufferPtr> Decompress(const pb21::BufferCompression& c, const BufferPtr& in,
                             int64_t expected, int64_t cap);
bool IsFixedWordWidth(uint64_t bits);
/// Lance requires some children to be the plain form: flat without buffer compression.
bool IsPlainFlat(const pb21::CompressiveEncoding& e);
/// The first `bytes` of `buffer` (all of it when `exact`), or Corrupt naming `what`.
Result<BufferPtr> SliceExact(const BufferPtr& buffer, int64_t bytes,
                             const std::string& what, bool exact);

// --- fixed_size_list (codecs.cc)
// --------------------------------------------------------

struct FslLayer {
  uint64_t dimension = 0;
  bool has_validity = false;
  uint64_t cum_dim = 0;  // items of this layer per top-level value
};

struct FslPlan {
  std::vector<FslLayer> layers;  // outermost first
  uint64_t bits_per_item = 0;    // 0: the items are all null (constant leaf)
  uint64_t cum_dim = 1;
  uint64_t validity_bytes = 0;  // per top-level value, full-zip form
  uint64_t bits_per_value = 0;  // per top-level value, full-zip form
  int validity_layers = 0;
};

Result<FslPlan> ParseFsl(const pb21::CompressiveEncoding& top);
/// The full-zip form: each value is [validity bytes of each validity layer][item bytes].
Result<DataBlock> DecodeFslPerValue(const FslPlan& plan, const BufferPtr& data,
                                    int64_t num_values);
/// The mini-block form: buffers [validity of each validity layer..., items].
Result<DataBlock> DecodeFslMiniBlock(const FslPlan& plan,
                                     const std::vector<BufferPtr>& buffers,
                                     int64_t num_values);

// --- value layouts (miniblock_decode.cc)
// ------------------------------------------------

Result<DataBlock> DecodeInline(uint64_t bits, const BufferPtr& buffer, int64_t num_values,
                               bool single_chunk);
Result<DataBlock> DecodeOutOfLine(const pb21::CompressiveEncoding& e,
                                  const BufferPtr& buffer, int64_t num_values);
/// (value bytes, run-length bytes) of an RLE encoding, validated.
Result<std::pair<int, int>> RleWidths(const pb21::CompressiveEncoding& e);
Result<DataBlock> DecodeRle(const pb21::CompressiveEncoding& e, const uint8_t* values,
                            int64_t values_size, const uint8_t* lengths,
                            int64_t lengths_size, int64_t num_values, bool clamp);
/// Field widths (bits) of a packed_struct, validated.
Result<std::vector<uint64_t>> PackedWidths(const pb21::CompressiveEncoding& e);
/// Splits rows of concatenated fixed-width fields into one block per field.
Result<DataBlock> UnpackRows(const std::vector<uint64_t>& widths, const BufferPtr& rows,
                             int64_t num_values);
bool BlockHasPayload(const pb21::CompressiveEncoding& e);
Result<std::vector<uint64_t>> FixedAsU64(const DataBlock& b, const char* what);

}  // namespace lance::format::codecs
