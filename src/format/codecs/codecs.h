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
//
// Which encoding Lance 14.0.2 accepts in which context (compression.rs,
// DefaultDecompressionStrategy; lance-file's v2_1/v2_2 readers additionally require
// `variable` offsets to be flat and `rle` to be flat values + flat u8 run lengths):
//
//   encoding                 mini-block  block  fixed per-value  variable per-value
//   flat                         x         x          x
//   variable                     x         x                            x
//   constant                               x          x
//   out_of_line_bitpacking                 x
//   inline_bitpacking            x         x
//   fsst                         x                                      x
//   dictionary                          (Lance 2.3 only; read here in blocks)
//   rle                          x         x
//   byte_stream_split            x
//   general                      x         x                            x
//   fixed_size_list              x         x          x
//   packed_struct                x                    x
//   variable_packed_struct                                              x (2.2)
//
// Anything else in a context gives NotImplemented naming the encoding and the context.
// Read here beyond what Lance 14.0.2 accepts (nothing in 2.1/2.2 writes these): inline
// bit-packing blocks of more than 1024 values (consecutive chunks), flat and variable
// blocks with buffer compression, rle with u16/u32 run lengths, and the block dictionary
// frame of Lance's 2.3 grammar.
// The byte layout of each encoding is documented in the header of its kernel (bitpack.h,
// variable.h, fsst.h, rle.h, byte_stream_split.h, general.h) and at its decoder in
// codecs.cc.

#pragma once

#include <cstdint>
#include <optional>
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
    /// `num_values` nulls and no buffers: a `constant` without a value, or the items of
    /// a fixed-size list whose items are all null (an FSL over `constant`).
    kAllNull,
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
  static DataBlock AllNull(int64_t num_values);

  /// kVariable: offset i (0 <= i <= num_values), whatever offset_bits.
  uint64_t Offset(int64_t i) const {
    return offset_bits == 64 ? offsets->data_as<uint64_t>()[i]
                             : offsets->data_as<uint32_t>()[i];
  }
  /// kVariable: the longest value, in bytes (0 without values).
  int64_t MaxValueLength() const;
};

// Buffers in DataBlocks may be views of the input buffers (flat values, variable
// offsets and bytes are not copied), so their data pointers are only as aligned as the
// input; read them with memcpy-style loads. kFixed data holds at least
// ceil(num_values * bits_per_value / 8) bytes; kVariable offsets at least
// num_values + 1 offsets, validated to be non-decreasing and inside `data`.

/// Values of one mini-block chunk: `buffers` are the chunk's value buffers (as many as
/// MiniBlockLayout.num_buffers), `num_values` the values (items, not levels) in it.
Result<DataBlock> DecodeMiniBlock(const pb21::CompressiveEncoding& encoding,
                                  const std::vector<BufferPtr>& buffers,
                                  int64_t num_values);

/// The values at `positions` (each below `num_values`, in that order) of one mini-block
/// chunk, when the encoding can pick values before decoding them: FSST strings, of which
/// only the picked ones are decompressed (a Take needs a few strings of each chunk).
/// \return std::nullopt, having done nothing, for every other encoding: decode the
/// chunk with DecodeMiniBlock and pick from that.
Result<std::optional<DataBlock>> DecodeMiniBlockPicked(
    const pb21::CompressiveEncoding& encoding, const std::vector<BufferPtr>& buffers,
    int64_t num_values, const std::vector<int64_t>& positions);

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

/// The values of a page dictionary (MiniBlockLayout.dictionary, decoded with DecodeBlock)
/// picked by `indices` (a chunk's values, decoded with DecodeMiniBlock: unsigned 8/16/32/
/// 64-bit integers): a kFixed (byte-wide values) or kVariable block like `dictionary`.
/// An index past the dictionary is Corrupt.
Result<DataBlock> TakeFromDictionary(const DataBlock& dictionary,
                                     const DataBlock& indices);

/// The number of value buffers one mini-block chunk of this value compression has (what
/// MiniBlockLayout.num_buffers should say): 1 for most, 2 for rle, 1 + the number of
/// validity layers for fixed_size_list, the inner count for general and fsst.
Result<int> MiniBlockBufferCount(const pb21::CompressiveEncoding& encoding);

/// A short description of an encoding for messages: "inline_bitpacking(32)",
/// "fsst(variable(flat(32)))", ...
std::string Describe(const pb21::CompressiveEncoding& encoding);

}  // namespace lance::format::codecs
