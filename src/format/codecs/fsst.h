// SPDX-License-Identifier: Apache-2.0
// Internal: FSST ("Fast Static Symbol Table") string compression as Lance 2.1/2.2 stores
// it (encodings/physical/fsst.rs with the `fsst` crate 14.0.2).
//
// Symbol table: Lance serializes its own fixed 2312-byte table (not the C++ FSST export):
//
//     u64 LE header = ("FSST" = 0x46535354) << 32 | encoder_switch << 24
//                     | suffix_lim << 16 | terminator << 8 | n_symbols
//     n_symbols x u64 LE symbols (symbol bytes in the low bytes)
//     n_symbols x u8 symbol lengths (1..8)
//     zero padding to 2312 bytes (= 8 + 256 * 8 + 256)
//
// A reader checks that all magic bits are set, that the table is exactly 2312 bytes and
// that every declared length is 1..8. encoder_switch = 0 means the values were stored
// uncompressed (Lance's writer does that when the page's string bytes are under 32 KiB);
// suffix_lim and the terminator only matter to the compressor.
//
// Compressed bytes: code c < 255 expands to the first lengths[c] bytes of symbols[c]
// (codes >= n_symbols expand to nothing, as in Lance's decoder); code 255 is an escape
// and the next byte, which must lie in the same value, is a literal. Values are
// compressed one by one, so value boundaries (the offsets) are kept.
//
// Lance uses FSST for string (not binary) values whose page holds at least 32 KiB of
// bytes and a value of at least 5 bytes, then stores the compressed values with the
// `variable` layout (mini-block) or per value (full zip).

#pragma once

#include <cstdint>
#include <vector>

#include "format/codecs/codecs.h"

namespace lance::format::codecs {

inline constexpr int64_t kFsstSymbolTableBytes = 2312;
inline constexpr uint8_t kFsstEscape = 255;
inline constexpr uint64_t kFsstMagic = uint64_t{0x46535354} << 32;
/// Below this many bytes Lance stores the values uncompressed (encoder_switch = 0).
inline constexpr int64_t kFsstMinInputBytes = 32 * 1024;
/// Lance only considers FSST when some value is at least this long.
inline constexpr int64_t kFsstMinMaxLength = 5;

/// A parsed symbol table. Codes >= num_symbols have length 0.
struct FsstSymbolTable {
  bool encoder_switch = false;
  uint8_t suffix_lim = 0;
  uint8_t terminator = 0;
  int num_symbols = 0;
  uint64_t symbols[256] = {};
  uint8_t lengths[256] = {};
};

/// Parses and validates Lance's 2312-byte table.
Result<FsstSymbolTable> ParseFsstSymbolTable(const uint8_t* data, int64_t size);

/// Writes Lance's 2312-byte table.
void SerializeFsstSymbolTable(const FsstSymbolTable& table, uint8_t* out);

/// Decompresses the values of `compressed` (kVariable, offsets of any base into its
/// data). The result is kVariable with offsets of the same width starting at 0. With
/// encoder_switch = 0 the input is returned as is (after validating its offsets).
/// `max_bytes` caps the decoded size.
Result<DataBlock> FsstDecompress(const FsstSymbolTable& table,
                                 const DataBlock& compressed, int64_t max_bytes);

/// An FSST compressor: builds a symbol table from a sample of the input strings (the
/// FSST algorithm: five rounds of greedy parsing the sample, counting symbols and symbol
/// pairs and keeping the 255 candidates with the largest gain), then compresses values
/// greedily with the longest symbol that matches.
class FsstCompressor {
 public:
  /// Trains on `num_values` values (offsets of any base index `data`). The table is
  /// always switched on; callers following Lance switch FSST off (MakeUncompressedTable)
  /// below kFsstMinInputBytes.
  template <typename OffsetT>
  static FsstCompressor Train(const uint8_t* data, const OffsetT* offsets,
                              int64_t num_values);

  /// A table with encoder_switch = 0 and no symbols: values are stored as they are.
  static FsstSymbolTable MakeUncompressedTable();

  const FsstSymbolTable& table() const { return table_; }

  /// Appends the compressed form of one value to `out`; returns the bytes written.
  /// `out` must have room for 2 * size bytes at `out` (the worst case: every byte
  /// escaped).
  int64_t CompressValue(const uint8_t* in, int64_t size, uint8_t* out) const;

  /// Compresses all values: `out_offsets` (num_values + 1, from 0) and `out_data`.
  template <typename OffsetT>
  void Compress(const uint8_t* data, const OffsetT* offsets, int64_t num_values,
                std::vector<OffsetT>* out_offsets, std::vector<uint8_t>* out_data) const;

 private:
  static constexpr int kHashBits = 11;  // the same slots the trainer fills
  struct HashEntry {
    uint64_t val = 0;  // symbol bytes
    uint8_t len = 0;   // 0 = empty slot
    uint8_t code = 0;
  };
  void BuildLookup();

  FsstSymbolTable table_;
  // Per first byte: code of the 1-byte symbol, or -1.
  int16_t byte_code_[256];
  // Per first two bytes (little endian): code of the 2-byte symbol, or -1.
  std::vector<int16_t> short_code_;
  std::vector<HashEntry> hash_;
};

}  // namespace lance::format::codecs
