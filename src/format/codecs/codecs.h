// SPDX-License-Identifier: Apache-2.0
// Internal: the compressive encodings of Lance file formats 2.1 and 2.2
// (lance.encodings21.CompressiveEncoding): how values are stored inside the structural
// page layouts (structural/), decoded into DataBlocks.
//
// A layout hands values to a codec in one of four contexts, as Lance does:
//   * mini-block: the value buffers of one chunk (at most a few KiB, <= 4096 values
//     by default, up to 32768);
//   * block: one whole buffer (a chunk's rep or def levels, a page dictionary, the
//     levels of a constant page);
//   * fixed per-value: full-zip values of a fixed width, already unzipped from their
//     control words;
//   * variable per-value: full-zip values of variable width, already unzipped (each
//     value compressed on its own).
// Every decoder validates every count, length and offset it reads against the bytes it
// was given before allocating or copying; damage gives Corrupt (the caller adds the
// file and page), an encoding this build does not know gives NotImplemented naming it.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/proto/encodings_v2_1.pb.h"
#include "lance/core/buffer.h"
#include "lance/result.h"

namespace lance::format::codecs {

namespace pb21 = lance::encodings21;

/// Decoded values in Lance's physical shapes (what Lance calls a DataBlock).
struct DataBlock {
  enum class Kind : uint8_t {
    /// `num_values` values of `bits_per_value` bits each in `data`: 1 = an LSB bitmap
    /// (booleans), otherwise a multiple of 8, little endian.
    kFixed,
    /// `num_values` values: `offsets` holds num_values + 1 unsigned offsets of
    /// `offset_bits` (32 or 64) bits into `data`; the first need not be 0.
    kVariable,
    /// `num_values` lists of `dimension` items each; `children[0]` holds the
    /// num_values * dimension items; `validity` (LSB bitmap over the items, 1 = valid)
    /// is set when the items have nulls.
    kFixedSizeList,
    /// `num_values` structs; `children` holds one block per field, each num_values long.
    kStruct,
  };

  Kind kind = Kind::kFixed;
  int64_t num_values = 0;
  uint64_t bits_per_value = 0;  ///< kFixed
  int offset_bits = 32;         ///< kVariable
  uint64_t dimension = 0;       ///< kFixedSizeList
  BufferPtr data;               ///< kFixed, kVariable
  BufferPtr offsets;            ///< kVariable
  BufferPtr validity;           ///< kFixedSizeList (items), may be null
  std::vector<DataBlock> children;

  static DataBlock Fixed(uint64_t bits_per_value, int64_t num_values, BufferPtr data);
  static DataBlock Variable(int offset_bits, int64_t num_values, BufferPtr offsets,
                            BufferPtr data);
};

/// Values of one mini-block chunk: `buffers` are the chunk's value buffers (as many as
/// MiniBlockLayout.num_buffers), `num_values` the values (items, not levels) in it.
Result<DataBlock> DecodeMiniBlock(const pb21::CompressiveEncoding& encoding,
                                  const std::vector<BufferPtr>& buffers,
                                  int64_t num_values);

/// Values stored as one block: `num_values` values in `buffer`.
Result<DataBlock> DecodeBlock(const pb21::CompressiveEncoding& encoding,
                              const BufferPtr& buffer, int64_t num_values);

/// Width in bits of one stored value of a fixed-width full-zip page with this value
/// compression (FullZipLayout.bits_per_value says the same; the two are checked).
Result<uint64_t> FixedPerValueBits(const pb21::CompressiveEncoding& encoding);

/// Fixed-width full-zip values: `num_values` stored values of FixedPerValueBits bits
/// each, back to back in `data`.
Result<DataBlock> DecodeFixedPerValue(const pb21::CompressiveEncoding& encoding,
                                      const BufferPtr& data, int64_t num_values);

/// Variable-width full-zip values: `values` (kind kVariable) holds each stored value
/// as it was written (compressed on its own by the encoding).
Result<DataBlock> DecodeVariablePerValue(const pb21::CompressiveEncoding& encoding,
                                         const DataBlock& values);

/// A short description of an encoding for messages: "inline_bitpacking(32)",
/// "fsst(variable(flat(32)))", ...
std::string Describe(const pb21::CompressiveEncoding& encoding);

}  // namespace lance::format::codecs
