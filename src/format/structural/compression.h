// SPDX-License-Identifier: Apache-2.0
// Internal: the compression decisions of the 2.1 / 2.2 writer -- which compressive
// encoding stores a page's values, levels and dictionary -- behind one interface, so
// that the page layouts (encoder.cc) stay independent of the choice.
//
// The strategy mirrors Lance's (lance-encoding's compression.rs): per page and per
// context (mini-block chunks, blocks of levels or dictionary items, full-zip values),
// given the values and the field's `lance-encoding:*` metadata.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "format/codecs/codecs.h"
#include "lance/core/type.h"
#include "lance/format/file_version.h"
#include "lance/result.h"

namespace lance::format::structural {

namespace pb21 = lance::encodings21;

/// Values of a mini-block page cut into chunks: every chunk but the last holds a power
/// of two of values (at most 32768; Lance writes at most 4096).
struct MiniBlockValues {
  struct Chunk {
    std::vector<BufferPtr> buffers;  ///< the same number in every chunk
    int64_t num_values = 0;
  };
  std::vector<Chunk> chunks;
  pb21::CompressiveEncoding encoding;
};

/// One block: a buffer and how it was compressed.
struct CompressedBlock {
  BufferPtr data;
  pb21::CompressiveEncoding encoding;
};

/// Full-zip values, each compressed on its own: fixed width (`fixed`, back to back) or
/// variable width (a kVariable block: each value's stored bytes).
struct PerValueValues {
  codecs::DataBlock values;
  pb21::CompressiveEncoding encoding;
};

/// A page's values as a dictionary: 32-bit indices into `items`.
struct DictionaryEncoded {
  codecs::DataBlock indices;
  codecs::DataBlock items;
};

/// Compresses a stream of 16-bit levels chunk by chunk with one encoding (chosen once
/// per page, as Lance does).
class LevelCompressor {
 public:
  virtual ~LevelCompressor() = default;
  virtual Result<BufferPtr> Compress(const uint16_t* levels, int64_t count) = 0;
  virtual const pb21::CompressiveEncoding& encoding() const = 0;
};

/// The flat encoding of `bits`-bit values.
pb21::CompressiveEncoding Flat(uint64_t bits);
/// Levels stored as they are, 16 bits each (the flat encoding).
std::unique_ptr<LevelCompressor> MakePlainLevels();

class CompressionStrategy {
 public:
  virtual ~CompressionStrategy() = default;

  /// Values of a mini-block page (visible items, without validity; fixed_size_list
  /// blocks carry item validity).
  virtual Result<MiniBlockValues> MiniBlock(const codecs::DataBlock& values,
                                            const Field& field) = 0;
  /// The compressor for a page's rep or def levels; `levels` are all of the page's.
  virtual Result<std::unique_ptr<LevelCompressor>> Levels(
      const std::vector<uint16_t>& levels) = 0;
  /// Items of a page dictionary (block context).
  virtual Result<CompressedBlock> DictionaryItems(const codecs::DataBlock& items,
                                                  const Field& field) = 0;
  /// Values of a full-zip page.
  virtual Result<PerValueValues> FullZip(const codecs::DataBlock& values,
                                         const Field& field) = 0;
  /// The page's values dictionary encoded, when that pays (Lance: at least 100 values,
  /// a low sampled cardinality, dictionary + indices well below the plain size); none
  /// otherwise.
  virtual Result<std::optional<DictionaryEncoded>> TryDictionary(
      const codecs::DataBlock& values, const Field& field) = 0;
};

/// A packed struct (field metadata "lance-encoding:packed") of any children as full-zip
/// values, 2.2's VariablePackedStruct: each row the children back to back, a fixed-width
/// child as its bytes, a variable-width one as a length prefix and its bytes compressed
/// per value by `strategy`.
Result<PerValueValues> ZipPackedStruct(CompressionStrategy* strategy,
                                       const codecs::DataBlock& values,
                                       const Field& field);

/// The strategy for `version`.
std::unique_ptr<CompressionStrategy> MakeCompressionStrategy(LanceFileVersion version);

}  // namespace lance::format::structural
