// SPDX-License-Identifier: Apache-2.0
// What the page layouts share (pages.cc, miniblock_page.cc, fullzip_page.cc). Private to
// src/format/structural: the readers use pages.h.

#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "format/codecs/codecs.h"
#include "format/proto/encodings_v2_1.pb.h"
#include "format/structural/pages.h"
#include "lance/core/byte_order.h"

namespace lance::format::structural {

constexpr size_t kMiniBlockAlignment = 8;
/// Values in one mini-block chunk: Lance writes at most 4096 by default and reads up
/// to 32768.
constexpr int64_t kMaxChunkValues = 32768;

inline size_t PadTo8(size_t n) {
  return (n + kMiniBlockAlignment - 1) & ~(kMiniBlockAlignment - 1);
}

/// A page described by its `Layout` message, reading the byte ranges `buffers_`.
template <typename Layout>
class LayoutPage : public PageReader {
 public:
  LayoutPage(std::string where, Levels levels, int64_t num_rows, DataTypePtr type,
             Layout layout, std::vector<ByteRange> buffers)
      : PageReader(std::move(where), std::move(levels), num_rows, std::move(type)),
        layout_(std::move(layout)),
        buffers_(std::move(buffers)) {}

 protected:
  Layout layout_;
  std::vector<ByteRange> buffers_;
};

/// The `i`th unsigned index of `bits` (8, 16, 32 or 64) bits at `p`.
inline uint64_t LoadIndex(const uint8_t* p, uint64_t bits, int64_t i) {
  const int64_t width = static_cast<int64_t>(bits / 8);
  return LoadUIntLE(p + width * i, width);
}

/// `count` values of `type` that are all empty (zero, "", []).
Result<ArrayDataPtr> EmptyValues(const DataTypePtr& type, int64_t count);
/// The pieces concatenated (no copy for a single piece).
Result<ArrayDataPtr> JoinPieces(std::vector<ArrayDataPtr> pieces,
                                const DataTypePtr& type);
/// u16 levels from a decoded block.
Status AppendLevels(const codecs::DataBlock& block, int64_t expected,
                    std::vector<uint16_t>* out);
/// Indices of a dictionary page (any width) applied to `dictionary`: an index outside
/// the dictionary is allowed only on an item that is not valid.
Result<ArrayDataPtr> ApplyDictionary(const codecs::DataBlock& indices,
                                     const ArrayDataPtr& dictionary,
                                     const std::vector<uint16_t>& def, size_t def_begin,
                                     const Levels& levels);
/// The rows of a run of chunks that may begin with the tail of an earlier row: the
/// items before the first row start are dropped, the rows counted from the levels.
Result<LeafRows> TrimPreamble(const Levels& levels, const LeafRows& segment);
/// A dictionary-typed leaf's chunk: its indices (any width) as the leaf's index type,
/// sharing the page dictionary. Indices of items that are not valid are set to 0.
Result<ArrayDataPtr> DictionaryArray(const codecs::DataBlock& indices,
                                     const ArrayDataPtr& dictionary,
                                     const std::vector<uint16_t>& def, size_t def_begin,
                                     const Levels& levels, const DataTypePtr& type);

Result<std::unique_ptr<PageReader>> MakeMiniBlockPage(std::string where, Levels levels,
                                                      int64_t num_rows, DataTypePtr type,
                                                      const pb21::MiniBlockLayout& layout,
                                                      std::vector<ByteRange> buffers,
                                                      bool large_chunk);
Result<std::unique_ptr<PageReader>> MakeFullZipPage(std::string where, Levels levels,
                                                    int64_t num_rows, DataTypePtr type,
                                                    const pb21::FullZipLayout& layout,
                                                    std::vector<ByteRange> buffers);

}  // namespace lance::format::structural
