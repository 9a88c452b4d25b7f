// SPDX-License-Identifier: Apache-2.0
// The structural page layouts of Lance file formats 2.1 and 2.2.
//
// Byte layouts (all little endian), as Lance 14 writes them:
//
// mini-block page buffers: [0] chunk metadata, [1] chunks, [2] dictionary (if the layout
// has one), [last] repetition index (if repetition_index_depth > 0).
//   chunk metadata: one word per chunk, u16 in 2.1 and u32 in 2.2 (has_large_chunk):
//     bits 0-3 log2(values in chunk) (0 in the last chunk: the rest of the page's items),
//     bits 4.. chunk bytes / 8 - 1.
//   chunk: u16 levels | [u16 rep bytes] | [u16 def bytes] | value buffer sizes (u16 each,
//     u32 with large chunks) | pad to 8 | rep | pad 8 | def | pad 8 | each value buffer,
//     padded to 8. Levels are block-compressed per chunk, values mini-block compressed.
//   repetition index: per chunk (depth + 1) u64: rows ending in the chunk, items left
//     over after the last row end (a row continuing into the next chunk).
// full-zip page buffers: [0] zipped values, [1] repetition index (variable width or
//   lists): rows + 1 offsets into [0] of 1, 2, 4 or 8 bytes each.
//   per item: control word (rep << bits_def | def, 1/2/4 bytes, absent without levels);
//   fixed width: the value if the item is visible; variable width: a length (of
//   bits_per_offset bits) and the bytes if the item is visible and valid.
// constant page buffers: none (inline value, or all null without levels), the scalar's
//   value buffer (u32 count, count x u32 lengths, the Arrow buffers of a length-1 array),
//   and/or rep and def levels (raw u16, or block-compressed in 2.2).

#include "format/structural/pages.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>

#include "format/codecs/codecs.h"
#include "format/structural/blocks.h"
#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/core/compute.h"
#include "lance/core/concatenate.h"
#include "lance/macros.h"

namespace lance::format::structural {

namespace {

using codecs::DataBlock;

constexpr size_t kMiniBlockAlignment = 8;
/// Values in one mini-block chunk: Lance writes at most 4096 by default and reads up
/// to 32768.
constexpr int64_t kMaxChunkValues = 32768;

inline size_t PadTo8(size_t n) { return (n + kMiniBlockAlignment - 1) & ~(kMiniBlockAlignment - 1); }

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

Result<ArrayDataPtr> EmptyValues(const DataTypePtr& type, int64_t count) {
  LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(type));
  LANCE_RETURN_NOT_OK(builder->AppendEmptyValues(count));
  return builder->FinishData();
}

Result<ArrayDataPtr> JoinPieces(std::vector<ArrayDataPtr> pieces, const DataTypePtr& type) {
  if (pieces.empty()) return EmptyValues(type, 0);
  if (pieces.size() == 1) return std::move(pieces[0]);
  std::vector<ArrayPtr> arrays;
  arrays.reserve(pieces.size());
  for (auto& p : pieces) arrays.push_back(MakeArray(std::move(p)));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr joined, Concatenate(arrays));
  return joined->data();
}

/// u16 levels from a decoded block.
Status AppendLevels(const DataBlock& block, int64_t expected, std::vector<uint16_t>* out) {
  if (block.kind != DataBlock::Kind::kFixed || block.bits_per_value != 16 ||
      block.num_values != expected || !block.data ||
      block.data->size() < 2 * expected) {
    return Status::Corrupt("levels did not decode to " + std::to_string(expected) +
                           " 16-bit values");
  }
  if (expected == 0) return Status::OK();  // memcpy into an empty vector's null data is UB
  const size_t at = out->size();
  out->resize(at + static_cast<size_t>(expected));
  std::memcpy(out->data() + at, block.data->data(), static_cast<size_t>(2 * expected));
  return Status::OK();
}

/// Indices of a dictionary page (any width) as int64 positions, nulls and damage aside:
/// an index outside the dictionary is allowed only on an item that is not valid.
Result<ArrayDataPtr> ApplyDictionary(const DataBlock& indices, const ArrayDataPtr& dictionary,
                                     const std::vector<uint16_t>& def, size_t def_begin,
                                     const Levels& levels) {
  if (indices.kind != DataBlock::Kind::kFixed ||
      (indices.bits_per_value != 8 && indices.bits_per_value != 16 &&
       indices.bits_per_value != 32 && indices.bits_per_value != 64) ||
      !indices.data || indices.data->size() * 8 < static_cast<int64_t>(indices.bits_per_value) *
                                                     indices.num_values) {
    return Status::Corrupt("dictionary indices are not 8/16/32/64-bit integers");
  }
  const int64_t n = indices.num_values;
  const int64_t size = dictionary->length;
  std::vector<int64_t> positions(static_cast<size_t>(n));
  const uint8_t* p = indices.data->data();
  // Which visible item is valid: walk the levels in step with the values.
  size_t level = def_begin;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t v = 0;
    switch (indices.bits_per_value) {
      case 8: v = p[i]; break;
      case 16: v = Load<uint16_t>(p + 2 * i); break;
      case 32: v = Load<uint32_t>(p + 4 * i); break;
      default: v = Load<uint64_t>(p + 8 * i); break;
    }
    bool valid = true;
    if (!def.empty()) {
      // Skip invisible items (no value slot).
      while (level < def.size() && def[level] > levels.max_visible_def) ++level;
      valid = level < def.size() && def[level] == 0;
      ++level;
    }
    if (v >= static_cast<uint64_t>(size)) {
      if (valid || size == 0) {
        if (valid) {
          return Status::Corrupt("dictionary index " + std::to_string(v) + " outside a " +
                                 std::to_string(size) + "-entry dictionary");
        }
      }
      v = 0;
    }
    positions[static_cast<size_t>(i)] = static_cast<int64_t>(v);
  }
  if (size == 0) {
    // Only null items: any values do.
    return EmptyValues(dictionary->type, n);
  }
  LANCE_ASSIGN_OR_RAISE(ArrayPtr gathered, compute::Take(*MakeArray(dictionary), positions));
  return gathered->data();
}

/// The rows of a run of chunks that may begin with the tail of an earlier row: the
/// items before the first row start are dropped, the rows counted from the levels.
Result<LeafRows> TrimPreamble(const Levels& levels, const LeafRows& segment) {
  const uint16_t max_rep = static_cast<uint16_t>(levels.max_rep);
  size_t skip = 0;
  int64_t skip_values = 0;
  while (skip < segment.rep.size() && segment.rep[skip] != max_rep) {
    if (segment.def.empty() || segment.def[skip] <= levels.max_visible_def) ++skip_values;
    ++skip;
  }
  LeafRows trimmed;
  trimmed.rep.assign(segment.rep.begin() + static_cast<std::ptrdiff_t>(skip), segment.rep.end());
  if (!segment.def.empty()) {
    trimmed.def.assign(segment.def.begin() + static_cast<std::ptrdiff_t>(skip),
                       segment.def.end());
  }
  if (skip_values > segment.values->length) return Status::Corrupt("too few values");
  trimmed.values = segment.values->Slice(skip_values,
                                         segment.values->length - skip_values);
  int64_t rows = 0;
  for (uint16_t r : trimmed.rep) rows += r == max_rep ? 1 : 0;
  trimmed.num_rows = rows;
  return trimmed;
}

/// A dictionary-typed leaf's chunk: its indices (any width) as the leaf's index type,
/// sharing the page dictionary. Indices of items that are not valid are set to 0.
Result<ArrayDataPtr> DictionaryArray(const DataBlock& indices, const ArrayDataPtr& dictionary,
                                     const std::vector<uint16_t>& def, size_t def_begin,
                                     const Levels& levels, const DataTypePtr& type) {
  const uint64_t bits = indices.bits_per_value;
  if (indices.kind != DataBlock::Kind::kFixed ||
      (bits != 8 && bits != 16 && bits != 32 && bits != 64) || !indices.data ||
      indices.data->size() * 8 < static_cast<int64_t>(bits) * indices.num_values) {
    return Status::Corrupt("dictionary indices are not 8/16/32/64-bit integers");
  }
  const DataType& index_type = *type->index_type();
  const int out_bytes = index_type.bit_width() / 8;
  if (out_bytes <= 0) return Status::Corrupt("dictionary type without an integer index");
  const int64_t n = indices.num_values;
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, Buffer::AllocateForOverwrite(n * out_bytes));
  const uint8_t* p = indices.data->data();
  size_t level = def_begin;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t v = 0;
    switch (bits) {
      case 8: v = p[i]; break;
      case 16: v = Load<uint16_t>(p + 2 * i); break;
      case 32: v = Load<uint32_t>(p + 4 * i); break;
      default: v = Load<uint64_t>(p + 8 * i); break;
    }
    bool valid = true;
    if (!def.empty()) {
      while (level < def.size() && def[level] > levels.max_visible_def) ++level;
      valid = level < def.size() && def[level] == 0;
      ++level;
    }
    if (!valid) v = 0;
    if (valid && v >= static_cast<uint64_t>(dictionary->length)) {
      return Status::Corrupt("dictionary index " + std::to_string(v) + " outside a " +
                             std::to_string(dictionary->length) + "-entry dictionary");
    }
    std::memcpy(out->mutable_data() + i * out_bytes, &v, static_cast<size_t>(out_bytes));
  }
  return ArrayData::Make(type, n, {nullptr, std::move(out)}, 0, 0, {}, dictionary);
}

// ---------------------------------------------------------------------------------------
// Mini-block

class MiniBlockPage : public PageReader {
 public:
  MiniBlockPage(std::string where, Levels levels, int64_t num_rows, DataTypePtr type,
                pb21::MiniBlockLayout layout, std::vector<ByteRange> buffers, bool large)
      : PageReader(std::move(where), std::move(levels), num_rows, std::move(type)),
        layout_(std::move(layout)),
        buffers_(std::move(buffers)),
        large_(large) {}

  Status Init() {
    has_dict_ = layout_.has_dictionary();
    has_rep_index_ = layout_.repetition_index_depth() > 0;
    const size_t expected = 2 + (has_dict_ ? 1 : 0) + (has_rep_index_ ? 1 : 0);
    if (buffers_.size() != expected) {
      return Corrupt("mini-block page has " + std::to_string(buffers_.size()) +
                     " buffers, expected " + std::to_string(expected));
    }
    if (layout_.num_buffers() == 0 || layout_.num_buffers() > 64) {
      return Corrupt("mini-block page with " + std::to_string(layout_.num_buffers()) +
                     " value buffers per chunk");
    }
    if (!layout_.has_value_compression()) return Corrupt("mini-block page without values");
    if (layout_.num_items() > internal::kMaxRows) return Corrupt("implausible item count");
    if (levels_.max_rep > 0 && !layout_.has_rep_compression()) {
      return Corrupt("a list page without repetition levels");
    }
    if (levels_.max_rep == 0 && static_cast<int64_t>(layout_.num_items()) != num_rows_) {
      return Corrupt("mini-block page has " + std::to_string(layout_.num_items()) +
                     " items for " + std::to_string(num_rows_) + " rows");
    }
    if (has_dict_ && layout_.num_dictionary_items() > internal::kMaxRows) {
      return Corrupt("implausible dictionary size");
    }
    return Status::OK();
  }

  std::vector<ByteRange> AllRanges() const override { return buffers_; }

  Result<LeafRows> DecodeAll(std::vector<BufferPtr> buffers) const override {
    LANCE_ASSIGN_OR_RAISE(std::vector<Chunk> chunks, ParseChunks(buffers[0]));
    ArrayDataPtr dictionary;
    if (has_dict_) {
      LANCE_ASSIGN_OR_RAISE(dictionary, DecodeDictionary(buffers[2]));
    }
    Decoded out;
    for (const Chunk& chunk : chunks) {
      LANCE_RETURN_NOT_OK(DecodeChunk(buffers[1], chunk.offset, chunk, dictionary, &out));
    }
    return Finish(std::move(out), num_rows_);
  }

  Result<std::unique_ptr<PageTake>> StartTake(std::vector<int64_t> rows) const override;
  Result<std::unique_ptr<PageCursor>> OpenCursor() const override;

 private:
  friend class MiniBlockTake;
  friend class MiniBlockCursor;

  struct Chunk {
    uint64_t offset = 0;  // within the chunks buffer
    uint64_t size = 0;
    int64_t num_values = 0;
    int64_t first_value = 0;
  };

  /// What random access and scans need before any chunk: the chunks, the dictionary,
  /// and row_starts[c] = the first row starting in chunk c (n + 1 entries).
  struct Meta {
    std::vector<Chunk> chunks;
    ArrayDataPtr dictionary;
    std::vector<int64_t> row_starts;
  };

  std::vector<ByteRange> MetadataRanges() const {
    std::vector<ByteRange> out = {buffers_[0]};
    if (has_dict_) out.push_back(buffers_[2]);
    if (has_rep_index_) out.push_back(buffers_.back());
    return out;
  }

  /// Parses the buffers of MetadataRanges().
  Result<Meta> ParseMetadata(const std::vector<BufferPtr>& metadata) const {
    Meta meta;
    LANCE_ASSIGN_OR_RAISE(meta.chunks, ParseChunks(metadata[0]));
    size_t next = 1;
    if (has_dict_) {
      LANCE_ASSIGN_OR_RAISE(meta.dictionary, DecodeDictionary(metadata[next++]));
    }
    const size_t n = meta.chunks.size();
    meta.row_starts.assign(n + 1, 0);
    if (has_rep_index_) {
      const BufferPtr& index = metadata[next];
      const size_t stride = static_cast<size_t>(layout_.repetition_index_depth()) + 1;
      if (static_cast<size_t>(index->size()) != n * stride * 8) {
        return Corrupt("repetition index of " + std::to_string(index->size()) +
                       " bytes for " + std::to_string(n) + " chunks");
      }
      // Per chunk: rows that end in it and items left over after the last row end (a
      // row that continues into the next chunk).
      bool preamble = false;
      int64_t acc = 0;
      for (size_t c = 0; c < n; ++c) {
        const uint64_t ends = Load<uint64_t>(index->data() + 8 * c * stride);
        const uint64_t partial = Load<uint64_t>(index->data() + 8 * (c * stride + 1));
        const bool trailer = partial > 0;
        const int64_t starts =
            static_cast<int64_t>(ends) + (trailer ? 1 : 0) - (preamble ? 1 : 0);
        if (ends > static_cast<uint64_t>(num_rows_) || starts < 0) {
          return Corrupt("repetition index entry out of range");
        }
        acc += starts;
        meta.row_starts[c + 1] = acc;
        preamble = trailer;
      }
      if (acc != num_rows_) {
        return Corrupt("repetition index counts " + std::to_string(acc) +
                       " rows, the page has " + std::to_string(num_rows_));
      }
    } else {
      for (size_t c = 0; c < n; ++c) {
        meta.row_starts[c + 1] = meta.row_starts[c] + meta.chunks[c].num_values;
      }
    }
    return meta;
  }

  /// The chunks [first, last] holding row r: from the one it starts in to the one the
  /// next row starts in (a row may continue into later chunks).
  Result<std::pair<size_t, size_t>> ChunksOfRow(const Meta& meta, int64_t r) const {
    const auto& rs = meta.row_starts;
    const size_t n = meta.chunks.size();
    const size_t first =
        static_cast<size_t>(std::upper_bound(rs.begin(), rs.end(), r) - rs.begin()) - 1;
    size_t last = first;
    if (has_rep_index_) {
      last = r + 1 < num_rows_
                 ? static_cast<size_t>(std::upper_bound(rs.begin(), rs.end(), r + 1) -
                                       rs.begin()) - 1
                 : n - 1;
    }
    if (first >= n || last >= n || last < first) return Corrupt("row outside chunks");
    return std::make_pair(first, last);
  }
  struct Decoded {
    std::vector<uint16_t> rep;
    std::vector<uint16_t> def;
    std::vector<ArrayDataPtr> values;
    int64_t num_values = 0;
    /// The values are only those DecodeChunk was asked to pick (the levels are all).
    bool picked = false;
  };

  Result<std::vector<Chunk>> ParseChunks(const BufferPtr& meta) const {
    const size_t word = large_ ? 4 : 2;
    if (meta->size() % static_cast<int64_t>(word) != 0) {
      return Corrupt("chunk metadata of " + std::to_string(meta->size()) + " bytes");
    }
    const size_t n = static_cast<size_t>(meta->size()) / word;
    std::vector<Chunk> chunks(n);
    const int64_t items = static_cast<int64_t>(layout_.num_items());
    uint64_t offset = 0;
    int64_t values = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t w = large_ ? Load<uint32_t>(meta->data() + 4 * i)
                                : Load<uint16_t>(meta->data() + 2 * i);
      const uint32_t log = w & 0x0F;
      Chunk& c = chunks[i];
      c.offset = offset;
      c.size = (static_cast<uint64_t>(w >> 4) + 1) * kMiniBlockAlignment;
      c.first_value = values;
      if (i + 1 < n) {
        if (log == 0) return Corrupt("chunk " + std::to_string(i) + " holds no values");
        c.num_values = int64_t{1} << log;
      } else {
        c.num_values = items - values;
        if (c.num_values < 0 || (log != 0 && c.num_values != (int64_t{1} << log))) {
          return Corrupt("chunk value counts do not add up to the page's " +
                         std::to_string(items) + " items");
        }
      }
      if (c.num_values > kMaxChunkValues) {
        return Corrupt("a chunk of " + std::to_string(c.num_values) + " values");
      }
      offset += c.size;
      values += c.num_values;
    }
    if (values != items || (n == 0 && items > 0)) {
      return Corrupt("chunk value counts do not add up to the page's " +
                     std::to_string(items) + " items");
    }
    if (offset > buffers_[1].size) {
      return Corrupt("chunks run past their buffer (" + std::to_string(offset) + " > " +
                     std::to_string(buffers_[1].size) + " bytes)");
    }
    return chunks;
  }

  Result<ArrayDataPtr> DecodeDictionary(const BufferPtr& buffer) const {
    const int64_t items = static_cast<int64_t>(layout_.num_dictionary_items());
    auto block = codecs::DecodeBlock(layout_.dictionary(), buffer, items);
    if (!block.ok()) return Here(block.status());
    auto array = BlockToArray(*block, DictionaryValueType());
    if (!array.ok()) return Here(array.status());
    if ((*array)->length != items) return Corrupt("dictionary size mismatch");
    return array;
  }

  /// The type of the dictionary's items: the values of a dictionary-typed leaf, else the
  /// leaf's own type (a page Lance chose to dictionary-encode).
  DataTypePtr DictionaryValueType() const {
    return type_->id() == TypeId::kDictionary ? type_->value_type() : type_;
  }

  /// Decodes the chunk at `base + chunk.offset` of `data` into `out`. With `pick` (item
  /// positions in the chunk; pages without a dictionary) the values may be only those
  /// items, if the value encoding can pick before decoding: then out->picked is set.
  Status DecodeChunk(const BufferPtr& data, uint64_t base, const Chunk& chunk,
                     const ArrayDataPtr& dictionary, Decoded* out,
                     const std::vector<int64_t>* pick = nullptr) const {
    if (base + chunk.size > static_cast<uint64_t>(data->size())) {
      return Corrupt("chunk outside its buffer");
    }
    const uint8_t* p = data->data() + base;
    const size_t size = static_cast<size_t>(chunk.size);
    size_t off = 0;
    auto need = [&](size_t bytes) -> Status {
      if (off + bytes > size) return Corrupt("truncated chunk header");
      return Status::OK();
    };
    LANCE_RETURN_NOT_OK(need(2));
    const uint16_t num_levels = Load<uint16_t>(p + off);
    off += 2;
    const bool has_rep = layout_.has_rep_compression();
    const bool has_def = layout_.has_def_compression();
    size_t rep_size = 0, def_size = 0;
    if (has_rep) {
      LANCE_RETURN_NOT_OK(need(2));
      rep_size = Load<uint16_t>(p + off);
      off += 2;
    }
    if (has_def) {
      LANCE_RETURN_NOT_OK(need(2));
      def_size = Load<uint16_t>(p + off);
      off += 2;
    }
    const size_t nb = static_cast<size_t>(layout_.num_buffers());
    std::vector<size_t> sizes(nb);
    for (size_t b = 0; b < nb; ++b) {
      LANCE_RETURN_NOT_OK(need(large_ ? 4 : 2));
      sizes[b] = large_ ? Load<uint32_t>(p + off) : Load<uint16_t>(p + off);
      off += large_ ? 4 : 2;
    }
    off = PadTo8(off);
    auto slice = [&](size_t len, BufferPtr* piece) -> Status {
      if (off > size || len > size - off) return Corrupt("chunk buffers run past the chunk");
      *piece = Buffer::Slice(data, static_cast<int64_t>(base + off), static_cast<int64_t>(len));
      off = PadTo8(off + len);
      return Status::OK();
    };
    BufferPtr rep_buf, def_buf;
    if (has_rep) LANCE_RETURN_NOT_OK(slice(rep_size, &rep_buf));
    if (has_def) LANCE_RETURN_NOT_OK(slice(def_size, &def_buf));
    std::vector<BufferPtr> value_buffers(nb);
    for (size_t b = 0; b < nb; ++b) LANCE_RETURN_NOT_OK(slice(sizes[b], &value_buffers[b]));

    const size_t def_begin = out->def.size();
    if (has_rep || has_def) {
      const int64_t levels = num_levels;
      if (!has_rep && levels != chunk.num_values) {
        return Corrupt("a chunk has " + std::to_string(levels) + " levels for " +
                       std::to_string(chunk.num_values) + " values");
      }
      if (has_rep) {
        auto block = codecs::DecodeBlock(layout_.rep_compression(), rep_buf, levels);
        if (!block.ok()) return Here(block.status());
        LANCE_RETURN_NOT_OK(Here(AppendLevels(*block, levels, &out->rep)));
      }
      if (has_def) {
        auto block = codecs::DecodeBlock(layout_.def_compression(), def_buf, levels);
        if (!block.ok()) return Here(block.status());
        LANCE_RETURN_NOT_OK(Here(AppendLevels(*block, levels, &out->def)));
      } else if (!out->def.empty()) {
        out->def.insert(out->def.end(), static_cast<size_t>(levels), 0);
      }
    }
    int64_t expected = chunk.num_values;
    Result<DataBlock> values = Status::OK();
    if (pick != nullptr && !dictionary && out->values.empty()) {
      auto picked = codecs::DecodeMiniBlockPicked(layout_.value_compression(), value_buffers,
                                                  chunk.num_values, *pick);
      if (!picked.ok()) return Here(picked.status());
      if (picked->has_value()) {
        values = std::move(**picked);
        expected = static_cast<int64_t>(pick->size());
        out->picked = true;
      }
    }
    if (!out->picked) {
      values = codecs::DecodeMiniBlock(layout_.value_compression(), value_buffers,
                                       chunk.num_values);
    }
    if (!values.ok()) return Here(values.status());
    if (values->num_values != expected) {
      return Corrupt("a chunk decoded " + std::to_string(values->num_values) +
                     " values, expected " + std::to_string(expected));
    }
    Result<ArrayDataPtr> array =
        !dictionary ? BlockToArray(*values, type_)
        : type_->id() == TypeId::kDictionary
            ? DictionaryArray(*values, dictionary, out->def, def_begin, levels_, type_)
            : ApplyDictionary(*values, dictionary, out->def, def_begin, levels_);
    if (!array.ok()) return Here(array.status());
    out->values.push_back(std::move(array).MoveValueUnsafe());
    out->num_values += expected;
    return Status::OK();
  }

  Result<LeafRows> Finish(Decoded decoded, int64_t num_rows) const {
    LeafRows rows;
    rows.num_rows = num_rows;
    rows.rep = std::move(decoded.rep);
    rows.def = std::move(decoded.def);
    auto values = JoinPieces(std::move(decoded.values), type_);
    if (!values.ok()) return Here(values.status());
    rows.values = std::move(values).MoveValueUnsafe();
    return rows;
  }

  pb21::MiniBlockLayout layout_;
  std::vector<ByteRange> buffers_;
  bool large_;
  bool has_dict_ = false;
  bool has_rep_index_ = false;
};

/// Take on a mini-block page: chunk metadata (+ dictionary, repetition index) first,
/// then only the chunks holding the rows, each group of adjacent chunks decoded once.
class MiniBlockTake : public PageTake {
 public:
  MiniBlockTake(const MiniBlockPage* page, std::vector<int64_t> rows)
      : page_(page), rows_(std::move(rows)) {}

  std::vector<ByteRange> MetadataRanges() override { return page_->MetadataRanges(); }

  Result<std::vector<ByteRange>> DataRanges(std::vector<BufferPtr> metadata) override {
    LANCE_ASSIGN_OR_RAISE(MiniBlockPage::Meta meta, page_->ParseMetadata(metadata));
    chunks_ = std::move(meta.chunks);
    dictionary_ = std::move(meta.dictionary);
    row_starts_ = std::move(meta.row_starts);
    const size_t n = chunks_.size();
    MiniBlockPage::Meta view;
    view.row_starts = row_starts_;
    view.chunks = chunks_;
    std::vector<char> needed(n, 0);
    for (int64_t r : rows_) {
      LANCE_ASSIGN_OR_RAISE(auto range, page_->ChunksOfRow(view, r));
      for (size_t c = range.first; c <= range.second; ++c) needed[c] = 1;
    }
    std::vector<ByteRange> out;
    for (size_t c = 0; c < n;) {
      if (!needed[c]) {
        ++c;
        continue;
      }
      Group g;
      g.first_chunk = c;
      while (c < n && needed[c]) ++c;
      g.end_chunk = c;
      groups_.push_back(g);
      const uint64_t begin = chunks_[g.first_chunk].offset;
      const uint64_t end = chunks_[g.end_chunk - 1].offset + chunks_[g.end_chunk - 1].size;
      out.push_back({page_->buffers_[1].offset + begin, end - begin});
    }
    return out;
  }

  Result<LeafRows> Decode(std::vector<BufferPtr> data) override {
    const Levels& levels = page_->levels_;
    RowsAppender out;
    size_t next_row = 0;
    // Without repetition every item is a row, so each chunk holds whole rows and the
    // rows are picked chunk by chunk, right after the chunk decodes: only the picked
    // values are copied (joining a group's decoded chunks first copied the whole group,
    // often the whole page, to keep a few rows of each chunk).
    const bool flat = !page_->layout_.has_rep_compression();
    std::vector<int64_t> wanted;
    for (size_t g = 0; g < groups_.size(); ++g) {
      const Group& group = groups_[g];
      const uint64_t base = chunks_[group.first_chunk].offset;
      if (flat) {
        for (size_t c = group.first_chunk; c < group.end_chunk; ++c) {
          const int64_t first_row = row_starts_[c];
          wanted.clear();
          while (next_row < rows_.size() && rows_[next_row] < row_starts_[c + 1]) {
            wanted.push_back(rows_[next_row++] - first_row);
          }
          if (wanted.empty()) continue;
          MiniBlockPage::Decoded decoded;
          LANCE_RETURN_NOT_OK(page_->DecodeChunk(data[g], chunks_[c].offset - base,
                                                 chunks_[c], dictionary_, &decoded, &wanted));
          if (decoded.picked) {
            // The values are the wanted items already; pick their levels.
            LeafRows picked;
            picked.num_rows = static_cast<int64_t>(wanted.size());
            if (!decoded.def.empty()) {
              picked.def.reserve(wanted.size());
              for (int64_t r : wanted) {
                if (r >= static_cast<int64_t>(decoded.def.size())) {
                  return page_->Corrupt("row outside the chunk");
                }
                picked.def.push_back(decoded.def[static_cast<size_t>(r)]);
              }
            }
            LANCE_ASSIGN_OR_RAISE(picked.values,
                                  JoinPieces(std::move(decoded.values), page_->type_));
            LANCE_RETURN_NOT_OK(out.Append(std::move(picked)));
            continue;
          }
          LeafRows chunk;
          chunk.def = std::move(decoded.def);
          LANCE_ASSIGN_OR_RAISE(chunk.values,
                                JoinPieces(std::move(decoded.values), page_->type_));
          chunk.num_rows = chunk.values->length;
          LANCE_ASSIGN_OR_RAISE(LeafRows picked, GatherRows(levels, chunk, wanted));
          LANCE_RETURN_NOT_OK(out.Append(std::move(picked)));
        }
        continue;
      }
      MiniBlockPage::Decoded decoded;
      for (size_t c = group.first_chunk; c < group.end_chunk; ++c) {
        LANCE_RETURN_NOT_OK(page_->DecodeChunk(data[g], chunks_[c].offset - base, chunks_[c],
                                               dictionary_, &decoded));
      }
      LANCE_ASSIGN_OR_RAISE(ArrayDataPtr values,
                            JoinPieces(std::move(decoded.values), page_->type_));
      // The rows of this group, from the first row starting in it.
      const int64_t first_row = row_starts_[group.first_chunk];
      LeafRows segment;
      segment.rep = std::move(decoded.rep);
      segment.def = std::move(decoded.def);
      segment.values = std::move(values);
      wanted.clear();
      while (next_row < rows_.size() && rows_[next_row] < row_starts_[group.end_chunk]) {
        wanted.push_back(rows_[next_row++] - first_row);
      }
      LANCE_ASSIGN_OR_RAISE(LeafRows picked, PickRows(levels, segment, wanted));
      LANCE_RETURN_NOT_OK(out.Append(std::move(picked)));
    }
    if (next_row != rows_.size()) return page_->Corrupt("rows outside the decoded chunks");
    return out.Finish(page_->type_);
  }

 private:
  struct Group {
    size_t first_chunk = 0;
    size_t end_chunk = 0;
  };

  /// Rows `wanted` (relative to the first row starting in the segment) of a run of
  /// chunks that may begin with the tail of an earlier row.
  Result<LeafRows> PickRows(const Levels& levels, LeafRows& segment,
                            const std::vector<int64_t>& wanted) {
    if (segment.rep.empty()) {
      // One item per row.
      segment.num_rows = segment.values->length;
      return GatherRows(levels, segment, wanted);
    }
    LANCE_ASSIGN_OR_RAISE(LeafRows trimmed, TrimPreamble(levels, segment));
    // Only rows complete in the segment may be picked; the last one may be cut short
    // only if it is the page's last (then it is complete).
    return GatherRows(levels, trimmed, wanted);
  }

  const MiniBlockPage* page_;
  std::vector<int64_t> rows_;
  std::vector<MiniBlockPage::Chunk> chunks_;
  std::vector<int64_t> row_starts_;
  ArrayDataPtr dictionary_;
  std::vector<Group> groups_;
};

Result<std::unique_ptr<PageTake>> MiniBlockPage::StartTake(std::vector<int64_t> rows) const {
  return std::unique_ptr<PageTake>(new MiniBlockTake(this, std::move(rows)));
}


/// Scan cursor of a mini-block page: the metadata once, then windows of chunks (at least
/// the chunks a range needs, plus read-ahead); each chunk decoded once, kept until the
/// scan moves past it.
class MiniBlockCursor : public PageCursor {
 public:
  explicit MiniBlockCursor(const MiniBlockPage* page) : page_(page) {}

  Result<std::vector<ByteRange>> Missing(int64_t begin, int64_t end) override {
    if (!meta_loaded_) {
      pending_meta_ = true;
      return page_->MetadataRanges();
    }
    LANCE_ASSIGN_OR_RAISE(auto range, ChunksFor(begin, end));
    const auto& chunks = meta_.chunks;
    size_t first = range.first;
    while (first <= range.second &&
           (decoded_.count(first) > 0 || (first >= win_first_ && first < win_end_))) {
      ++first;
    }
    if (first > range.second) return std::vector<ByteRange>();
    size_t last = range.second;
    uint64_t bytes = chunks[last].offset + chunks[last].size - chunks[first].offset;
    while (last + 1 < chunks.size() && bytes + chunks[last + 1].size <= kScanReadAhead) {
      ++last;
      bytes += chunks[last].size;
    }
    pending_meta_ = false;
    pending_first_ = first;
    pending_end_ = last + 1;
    return std::vector<ByteRange>{{page_->buffers_[1].offset + chunks[first].offset, bytes}};
  }

  Status Provide(std::vector<BufferPtr> buffers) override {
    if (pending_meta_) {
      LANCE_ASSIGN_OR_RAISE(meta_, page_->ParseMetadata(buffers));
      meta_loaded_ = true;
      return Status::OK();
    }
    window_ = std::move(buffers[0]);
    win_first_ = pending_first_;
    win_end_ = pending_end_;
    return Status::OK();
  }

  Result<LeafRows> Read(int64_t begin, int64_t end) override {
    LANCE_ASSIGN_OR_RAISE(auto range, ChunksFor(begin, end));
    // Chunks before this range are done with.
    decoded_.erase(decoded_.begin(), decoded_.lower_bound(range.first));
    LeafRows segment;
    std::vector<ArrayDataPtr> values;
    for (size_t c = range.first; c <= range.second; ++c) {
      auto it = decoded_.find(c);
      if (it == decoded_.end()) {
        if (c < win_first_ || c >= win_end_) {
          return Status::Invalid("internal: chunk " + std::to_string(c) + " was not fetched");
        }
        MiniBlockPage::Decoded d;
        LANCE_RETURN_NOT_OK(page_->DecodeChunk(
            window_, meta_.chunks[c].offset - meta_.chunks[win_first_].offset, meta_.chunks[c],
            meta_.dictionary, &d));
        LANCE_ASSIGN_OR_RAISE(ArrayDataPtr v, JoinPieces(std::move(d.values), page_->type_));
        Chunk chunk{std::move(d.rep), std::move(d.def), std::move(v)};
        it = decoded_.emplace(c, std::move(chunk)).first;
      }
      // Every chunk of a page has definition levels or none does (the layout says).
      const Chunk& chunk = it->second;
      segment.rep.insert(segment.rep.end(), chunk.rep.begin(), chunk.rep.end());
      segment.def.insert(segment.def.end(), chunk.def.begin(), chunk.def.end());
      values.push_back(chunk.values);
    }
    LANCE_ASSIGN_OR_RAISE(segment.values, JoinPieces(std::move(values), page_->type_));
    const Levels& levels = page_->levels_;
    const int64_t first_row = meta_.row_starts[range.first];
    if (levels.max_rep == 0) {
      // One item per row: the segment starts at the first chunk's first value.
      segment.num_rows = segment.values->length;
      return SliceRows(segment, nullptr, begin - first_row, end - first_row);
    }
    LANCE_ASSIGN_OR_RAISE(LeafRows trimmed, TrimPreamble(levels, segment));
    LANCE_ASSIGN_OR_RAISE(RowIndex index, IndexRows(levels, trimmed));
    if (end - first_row > trimmed.num_rows) {
      return page_->Corrupt("chunks hold fewer rows than the repetition index says");
    }
    return SliceRows(trimmed, &index, begin - first_row, end - first_row);
  }

 private:
  struct Chunk {
    std::vector<uint16_t> rep;
    std::vector<uint16_t> def;
    ArrayDataPtr values;
  };
  /// The chunks [first, last] holding rows [begin, end).
  Result<std::pair<size_t, size_t>> ChunksFor(int64_t begin, int64_t end) {
    LANCE_ASSIGN_OR_RAISE(auto first, page_->ChunksOfRow(meta_, begin));
    LANCE_ASSIGN_OR_RAISE(auto last, page_->ChunksOfRow(meta_, end - 1));
    return std::make_pair(first.first, last.second);
  }

  const MiniBlockPage* page_;
  bool meta_loaded_ = false;
  bool pending_meta_ = false;
  MiniBlockPage::Meta meta_;
  BufferPtr window_;
  size_t win_first_ = 0, win_end_ = 0;
  size_t pending_first_ = 0, pending_end_ = 0;
  std::map<size_t, Chunk> decoded_;
};

Result<std::unique_ptr<PageCursor>> MiniBlockPage::OpenCursor() const {
  return std::unique_ptr<PageCursor>(new MiniBlockCursor(this));
}

// ---------------------------------------------------------------------------------------
// Full-zip

class FullZipPage : public PageReader {
 public:
  FullZipPage(std::string where, Levels levels, int64_t num_rows, DataTypePtr type,
              pb21::FullZipLayout layout, std::vector<ByteRange> buffers)
      : PageReader(std::move(where), std::move(levels), num_rows, std::move(type)),
        layout_(std::move(layout)),
        buffers_(std::move(buffers)) {}

  Status Init() {
    if (buffers_.empty() || buffers_.size() > 2) {
      return Corrupt("full-zip page has " + std::to_string(buffers_.size()) + " buffers");
    }
    if (layout_.bits_rep() > 16 || layout_.bits_def() > 16) {
      return Corrupt("full-zip control word wider than 16 + 16 bits");
    }
    const uint32_t total = layout_.bits_rep() + layout_.bits_def();
    cw_bytes_ = total == 0 ? 0 : (total <= 8 ? 1 : (total <= 16 ? 2 : 4));
    if (!layout_.has_value_compression()) return Corrupt("full-zip page without values");
    if (layout_.details_case() == pb21::FullZipLayout::kBitsPerValue) {
      fixed_ = true;
      if (layout_.bits_per_value() == 0 || layout_.bits_per_value() % 8 != 0) {
        return Corrupt("full-zip value width of " + std::to_string(layout_.bits_per_value()) +
                       " bits");
      }
      value_bytes_ = layout_.bits_per_value() / 8;
    } else if (layout_.details_case() == pb21::FullZipLayout::kBitsPerOffset) {
      const uint32_t b = layout_.bits_per_offset();
      if (b != 8 && b != 16 && b != 32 && b != 64) {
        return Corrupt("full-zip length width of " + std::to_string(b) + " bits");
      }
      length_bytes_ = b / 8;
    } else {
      return Corrupt("full-zip page without a value width");
    }
    if (levels_.max_rep > 0 && layout_.bits_rep() == 0) {
      return Corrupt("a list page without repetition levels");
    }
    if (buffers_.size() == 2) {
      const uint64_t entries = static_cast<uint64_t>(num_rows_) + 1;
      const uint64_t size = buffers_[1].size;
      if (size % entries != 0) return Corrupt("repetition index size does not fit the rows");
      index_bytes_ = size / entries;
      if (index_bytes_ != 1 && index_bytes_ != 2 && index_bytes_ != 4 && index_bytes_ != 8) {
        return Corrupt("repetition index entries of " + std::to_string(index_bytes_) + " bytes");
      }
    }
    return Status::OK();
  }

  std::vector<ByteRange> AllRanges() const override { return {buffers_[0]}; }

  Result<LeafRows> DecodeAll(std::vector<BufferPtr> buffers) const override {
    Unzipped u;
    LANCE_RETURN_NOT_OK(Unzip(buffers[0], &u));
    if (u.rows != num_rows_) {
      return Corrupt("full-zip data holds " + std::to_string(u.rows) + " rows, the page " +
                     std::to_string(num_rows_));
    }
    return Finish(std::move(u));
  }

  Result<std::unique_ptr<PageTake>> StartTake(std::vector<int64_t> rows) const override;
  Result<std::unique_ptr<PageCursor>> OpenCursor() const override;

 private:
  friend class FullZipTake;
  friend class FullZipCursor;

  struct Unzipped {
    std::vector<uint16_t> rep;
    std::vector<uint16_t> def;
    BufferBuilder values;     // fixed: value bytes; variable: the bytes
    std::vector<uint64_t> offsets{0};  // variable: ends of the visible items
    int64_t visible = 0;
    int64_t rows = 0;
    BufferPtr whole;  // fixed without levels: the buffer itself
  };

  Status Unzip(const BufferPtr& buffer, Unzipped* u) const {
    const uint8_t* p = buffer->data();
    const size_t size = static_cast<size_t>(buffer->size());
    if (cw_bytes_ == 0 && fixed_) {
      if (size % value_bytes_ != 0) return Corrupt("full-zip data is not whole values");
      const int64_t n = static_cast<int64_t>(size / value_bytes_);
      if (u->visible == 0 && !u->whole) {
        u->whole = buffer;  // a single buffer (a whole page) stays zero-copy
      } else {
        if (u->whole) {
          LANCE_RETURN_NOT_OK(u->values.Append(u->whole->data(), u->whole->size()));
          u->whole.reset();
        }
        LANCE_RETURN_NOT_OK(u->values.Append(p, static_cast<int64_t>(size)));
      }
      u->visible += n;
      u->rows += n;
      return Status::OK();
    }
    if (u->whole) {
      LANCE_RETURN_NOT_OK(u->values.Append(u->whole->data(), u->whole->size()));
      u->whole.reset();
    }
    const uint32_t bits_def = layout_.bits_def();
    const uint32_t bits_rep = layout_.bits_rep();
    const uint32_t def_mask = bits_def == 0 ? 0 : ((1u << bits_def) - 1);
    const uint16_t max_rep = static_cast<uint16_t>(levels_.max_rep);
    size_t off = 0;
    while (off < size) {
      uint32_t word = 0;
      if (cw_bytes_ > 0) {
        if (off + cw_bytes_ > size) return Corrupt("truncated control word");
        word = cw_bytes_ == 1 ? p[off]
                              : (cw_bytes_ == 2 ? Load<uint16_t>(p + off) : Load<uint32_t>(p + off));
        off += cw_bytes_;
      }
      const uint16_t def = static_cast<uint16_t>(word & def_mask);
      const uint16_t rep = static_cast<uint16_t>(bits_rep == 0 ? 0 : (word >> bits_def));
      if (bits_rep > 0) {
        u->rep.push_back(rep);
        if (rep == max_rep) ++u->rows;
      } else {
        ++u->rows;
      }
      if (bits_def > 0) u->def.push_back(def);
      const bool visible = def <= levels_.max_visible_def;
      if (!visible) continue;
      ++u->visible;
      if (fixed_) {
        if (off + value_bytes_ > size) return Corrupt("truncated value");
        LANCE_RETURN_NOT_OK(u->values.Append(p + off, static_cast<int64_t>(value_bytes_)));
        off += value_bytes_;
      } else {
        if (def == 0) {
          if (off + length_bytes_ > size) return Corrupt("truncated value length");
          uint64_t len = 0;
          switch (length_bytes_) {
            case 1: len = p[off]; break;
            case 2: len = Load<uint16_t>(p + off); break;
            case 4: len = Load<uint32_t>(p + off); break;
            default: len = Load<uint64_t>(p + off); break;
          }
          off += length_bytes_;
          if (len > size - off) return Corrupt("value length past the end of the page");
          LANCE_RETURN_NOT_OK(u->values.Append(p + off, static_cast<int64_t>(len)));
          off += len;
        }
        u->offsets.push_back(static_cast<uint64_t>(u->values.length()));
      }
    }
    return Status::OK();
  }

  Result<LeafRows> Finish(Unzipped u) const {
    LeafRows rows;
    rows.num_rows = u.rows;
    rows.rep = std::move(u.rep);
    rows.def = std::move(u.def);
    Result<DataBlock> block = Status::OK();
    if (fixed_) {
      BufferPtr data = u.whole;
      if (!data) {
        LANCE_ASSIGN_OR_RAISE(data, u.values.Finish());
      }
      if (!data) data = Buffer::FromString("");
      block = codecs::DecodeFixedPerValue(layout_.value_compression(), data, u.visible);
    } else {
      LANCE_ASSIGN_OR_RAISE(BufferPtr data, u.values.Finish());
      if (!data) data = Buffer::FromString("");
      const bool wide = u.offsets.back() > std::numeric_limits<uint32_t>::max();
      BufferPtr offsets;
      const int64_t n = static_cast<int64_t>(u.offsets.size());
      if (wide) {
        LANCE_ASSIGN_OR_RAISE(offsets, Buffer::CopyFrom(u.offsets.data(), n * 8));
      } else {
        LANCE_ASSIGN_OR_RAISE(offsets, Buffer::AllocateForOverwrite(n * 4));
        for (int64_t i = 0; i < n; ++i) {
          offsets->mutable_data_as<uint32_t>()[i] = static_cast<uint32_t>(u.offsets[i]);
        }
      }
      DataBlock variable = DataBlock::Variable(wide ? 64 : 32, u.visible, offsets, data);
      block = codecs::DecodeVariablePerValue(layout_.value_compression(), variable);
    }
    if (!block.ok()) return Here(block.status());
    if (block->num_values != u.visible) {
      return Corrupt("decoded " + std::to_string(block->num_values) + " values for " +
                     std::to_string(u.visible) + " visible items");
    }
    auto array = BlockToArray(*block, type_);
    if (!array.ok()) return Here(array.status());
    rows.values = std::move(array).MoveValueUnsafe();
    return rows;
  }

  uint64_t IndexEntry(const uint8_t* p) const {
    switch (index_bytes_) {
      case 1: return p[0];
      case 2: return Load<uint16_t>(p);
      case 4: return Load<uint32_t>(p);
      default: return Load<uint64_t>(p);
    }
  }

  pb21::FullZipLayout layout_;
  std::vector<ByteRange> buffers_;
  size_t cw_bytes_ = 0;
  bool fixed_ = false;
  uint64_t value_bytes_ = 0;
  size_t length_bytes_ = 0;
  uint64_t index_bytes_ = 0;
};

/// Take on a full-zip page: the repetition index entries of the rows, then each row's
/// bytes. Fixed-width values without levels need no index: a row is at row x width.
class FullZipTake : public PageTake {
 public:
  FullZipTake(const FullZipPage* page, std::vector<int64_t> rows)
      : page_(page), rows_(std::move(rows)) {}

  std::vector<ByteRange> MetadataRanges() override {
    std::vector<ByteRange> out;
    if (page_->index_bytes_ == 0) return out;
    const ByteRange& index = page_->buffers_[1];
    for (int64_t r : rows_) {
      out.push_back({index.offset + static_cast<uint64_t>(r) * page_->index_bytes_,
                     2 * page_->index_bytes_});
    }
    return out;
  }

  Result<std::vector<ByteRange>> DataRanges(std::vector<BufferPtr> metadata) override {
    const ByteRange& data = page_->buffers_[0];
    std::vector<ByteRange> out;
    if (page_->index_bytes_ == 0) {
      if (!page_->fixed_ || (page_->cw_bytes_ > 0 && page_->levels_.max_rep > 0)) {
        return page_->Corrupt("a variable-width or list page without a repetition index");
      }
      const uint64_t stride = page_->value_bytes_ + page_->cw_bytes_;
      for (int64_t r : rows_) {
        const uint64_t begin = static_cast<uint64_t>(r) * stride;
        if (begin + stride > data.size) return page_->Corrupt("row outside the page data");
        out.push_back({data.offset + begin, stride});
      }
      return out;
    }
    for (size_t i = 0; i < rows_.size(); ++i) {
      const uint64_t begin = page_->IndexEntry(metadata[i]->data());
      const uint64_t end = page_->IndexEntry(metadata[i]->data() + page_->index_bytes_);
      if (end < begin || end > data.size) return page_->Corrupt("repetition index out of range");
      out.push_back({data.offset + begin, end - begin});
    }
    return out;
  }

  Result<LeafRows> Decode(std::vector<BufferPtr> data) override {
    FullZipPage::Unzipped u;
    for (const BufferPtr& row : data) {
      const int64_t before = u.rows;
      LANCE_RETURN_NOT_OK(page_->Unzip(row, &u));
      if (u.rows != before + 1) {
        return page_->Corrupt("a repetition index entry does not hold exactly one row");
      }
    }
    return page_->Finish(std::move(u));
  }

 private:
  const FullZipPage* page_;
  std::vector<int64_t> rows_;
};

Result<std::unique_ptr<PageTake>> FullZipPage::StartTake(std::vector<int64_t> rows) const {
  return std::unique_ptr<PageTake>(new FullZipTake(this, std::move(rows)));
}


/// Scan cursor of a full-zip page: windows of the repetition index (when there is one)
/// and of the zipped values, each at least what a range needs plus read-ahead.
class FullZipCursor : public PageCursor {
 public:
  explicit FullZipCursor(const FullZipPage* page) : page_(page) {}

  Result<std::vector<ByteRange>> Missing(int64_t begin, int64_t end) override {
    const ByteRange& data = page_->buffers_[0];
    const int64_t rows = page_->num_rows_;
    pending_index_ = false;
    if (page_->index_bytes_ > 0) {
      // Index entries begin..end (inclusive) must be at hand.
      if (!(index_ && begin >= index_first_ && end <= index_last_)) {
        const uint64_t w = page_->index_bytes_;
        const int64_t ahead = static_cast<int64_t>(kScanReadAhead / 4 / w);
        const int64_t last = std::min(rows, std::max(end, begin + ahead));
        pending_index_ = true;
        pending_first_ = begin;
        pending_last_ = last;
        return std::vector<ByteRange>{{page_->buffers_[1].offset + static_cast<uint64_t>(begin) * w,
                                       static_cast<uint64_t>(last - begin + 1) * w}};
      }
    }
    LANCE_ASSIGN_OR_RAISE(uint64_t start, Offset(begin));
    LANCE_ASSIGN_OR_RAISE(uint64_t stop, Offset(end));
    if (stop < start || stop > data.size) return page_->Corrupt("repetition index out of range");
    if (window_ && start >= win_start_ && stop <= win_start_ + window_->size()) {
      return std::vector<ByteRange>();
    }
    // Read ahead: more rows while they stay within the budget (and the index window).
    uint64_t want = stop;
    if (stop - start < kScanReadAhead) {
      if (page_->index_bytes_ == 0) {
        want = std::min<uint64_t>(data.size, start + std::max<uint64_t>(kScanReadAhead, stop - start));
        const uint64_t stride = page_->value_bytes_ + page_->cw_bytes_;
        want = want / stride * stride;
        want = std::max(want, stop);
      } else {
        // The last row end within the budget (offsets only grow): binary search.
        int64_t lo = end, hi = index_last_;
        while (lo < hi) {
          const int64_t mid = lo + (hi - lo + 1) / 2;
          LANCE_ASSIGN_OR_RAISE(uint64_t next, Offset(mid));
          if (next >= start && next - start <= kScanReadAhead && next <= data.size) {
            lo = mid;
          } else {
            hi = mid - 1;
          }
        }
        LANCE_ASSIGN_OR_RAISE(want, Offset(lo));
        if (want < stop || want > data.size) want = stop;
      }
    }
    pending_start_ = start;
    return std::vector<ByteRange>{{data.offset + start, want - start}};
  }

  Status Provide(std::vector<BufferPtr> buffers) override {
    if (pending_index_) {
      index_ = std::move(buffers[0]);
      index_first_ = pending_first_;
      index_last_ = pending_last_;
      return Status::OK();
    }
    window_ = std::move(buffers[0]);
    win_start_ = pending_start_;
    return Status::OK();
  }

  Result<LeafRows> Read(int64_t begin, int64_t end) override {
    LANCE_ASSIGN_OR_RAISE(uint64_t start, Offset(begin));
    LANCE_ASSIGN_OR_RAISE(uint64_t stop, Offset(end));
    if (!window_ || start < win_start_ || stop > win_start_ + window_->size() || stop < start) {
      return Status::Invalid("internal: full-zip rows were not fetched");
    }
    FullZipPage::Unzipped u;
    LANCE_RETURN_NOT_OK(page_->Unzip(
        Buffer::Slice(window_, static_cast<int64_t>(start - win_start_),
                      static_cast<int64_t>(stop - start)),
        &u));
    if (u.rows != end - begin) {
      return page_->Corrupt("full-zip rows " + std::to_string(begin) + ".." +
                            std::to_string(end) + " hold " + std::to_string(u.rows) + " rows");
    }
    return page_->Finish(std::move(u));
  }

 private:
  /// Byte offset of row r's first item in the zipped data.
  Result<uint64_t> Offset(int64_t r) const {
    if (page_->index_bytes_ == 0) {
      return static_cast<uint64_t>(r) * (page_->value_bytes_ + page_->cw_bytes_);
    }
    if (!index_ || r < index_first_ || r > index_last_) {
      return Status::Invalid("internal: repetition index entry not fetched");
    }
    return page_->IndexEntry(index_->data() +
                             static_cast<uint64_t>(r - index_first_) * page_->index_bytes_);
  }

  const FullZipPage* page_;
  BufferPtr index_;
  int64_t index_first_ = 0, index_last_ = -1;
  BufferPtr window_;
  uint64_t win_start_ = 0;
  bool pending_index_ = false;
  int64_t pending_first_ = 0, pending_last_ = 0;
  uint64_t pending_start_ = 0;
};

Result<std::unique_ptr<PageCursor>> FullZipPage::OpenCursor() const {
  return std::unique_ptr<PageCursor>(new FullZipCursor(this));
}

// ---------------------------------------------------------------------------------------
// Constant (and all-null)

/// A page whose layout this build cannot decode: it answers every read with `refusal`.
class UnreadablePage : public PageReader {
 public:
  UnreadablePage(std::string where, Levels levels, int64_t num_rows, DataTypePtr type,
                 Status refusal)
      : PageReader(std::move(where), std::move(levels), num_rows, std::move(type)),
        refusal_(std::move(refusal)) {}

  std::vector<ByteRange> AllRanges() const override { return {}; }
  Result<LeafRows> DecodeAll(std::vector<BufferPtr>) const override { return refusal_; }
  Result<std::unique_ptr<PageTake>> StartTake(std::vector<int64_t>) const override {
    return refusal_;
  }
  Result<std::unique_ptr<PageCursor>> OpenCursor() const override { return refusal_; }

 private:
  Status refusal_;
};

class ConstantPage : public PageReader {
 public:
  ConstantPage(std::string where, Levels levels, int64_t num_rows, DataTypePtr type,
               pb21::ConstantLayout layout, std::vector<ByteRange> buffers)
      : PageReader(std::move(where), std::move(levels), num_rows, std::move(type)),
        layout_(std::move(layout)),
        buffers_(std::move(buffers)) {}

  Status Init() {
    const size_t n = buffers_.size();
    const bool inline_value = layout_.has_inline_value();
    if (inline_value) {
      if (n != 0 && n != 2) return Corrupt("constant page with an inline value and " +
                                           std::to_string(n) + " buffers");
      levels_index_ = n == 2 ? 0 : -1;
    } else if (n == 1 || n == 3) {
      value_index_ = 0;
      levels_index_ = n == 3 ? 1 : -1;
    } else if (n == 0) {
      all_null_ = true;
      if (levels_.has_def() && !(levels_.layers.size() == 1 &&
                                 levels_.layers[0] == pb21::NULLABLE_ITEM)) {
        return Corrupt("an all-null page of nested data without levels");
      }
    } else if (n == 2) {
      all_null_ = true;
      levels_index_ = 0;
    } else {
      return Corrupt("constant page with " + std::to_string(n) + " buffers");
    }
    return Status::OK();
  }

  std::vector<ByteRange> AllRanges() const override { return buffers_; }

  Result<LeafRows> DecodeAll(std::vector<BufferPtr> buffers) const override {
    LeafRows rows;
    rows.num_rows = num_rows_;
    if (levels_index_ >= 0) {
      LANCE_RETURN_NOT_OK(ReadLevels(buffers[levels_index_], layout_.rep_compression(),
                                     layout_.has_rep_compression(), layout_.num_rep_values(),
                                     &rows.rep));
      LANCE_RETURN_NOT_OK(ReadLevels(buffers[levels_index_ + 1], layout_.def_compression(),
                                     layout_.has_def_compression(), layout_.num_def_values(),
                                     &rows.def));
    } else if (all_null_ && levels_.has_def()) {
      // An empty struct has no values, so Lance stores it as an "all-null" page even
      // when every row is valid (pylance reads it back valid and refuses to write one
      // with nulls): the page says nothing about its validity.
      const bool empty_struct = type_->id() == TypeId::kStruct && type_->num_fields() == 0;
      rows.def.assign(static_cast<size_t>(num_rows_), empty_struct ? 0 : 1);
    }
    int64_t visible = 0;
    std::vector<uint8_t> present;  // per visible slot: 1 where the leaf value is valid
    if (!rows.def.empty()) {
      for (uint16_t d : rows.def) visible += d <= levels_.max_visible_def ? 1 : 0;
      if (!all_null_ && static_cast<uint64_t>(visible) <= internal::kMaxRows) {
        present.reserve(static_cast<size_t>(visible));
        for (uint16_t d : rows.def) {
          if (d <= levels_.max_visible_def) present.push_back(d == 0 ? 1 : 0);
        }
      }
    } else if (!rows.rep.empty()) {
      visible = static_cast<int64_t>(rows.rep.size());
    } else {
      visible = num_rows_;
    }
    if (static_cast<uint64_t>(visible) > internal::kMaxRows) return Corrupt("implausible item count");
    Result<ArrayDataPtr> values = Status::OK();
    if (all_null_) {
      values = EmptyValues(type_, visible);
    } else {
      std::vector<BufferPtr> scalar;
      if (layout_.has_inline_value()) {
        scalar.push_back(Buffer::FromString(layout_.inline_value()));
      } else {
        LANCE_ASSIGN_OR_RAISE(scalar, ParseValueBuffer(buffers[value_index_]));
      }
      values = RepeatScalar(scalar, type_, visible, present.empty() ? nullptr : &present);
    }
    if (!values.ok()) return Here(values.status());
    rows.values = std::move(values).MoveValueUnsafe();
    return rows;
  }

 private:
  Status ReadLevels(const BufferPtr& buffer, const pb21::CompressiveEncoding& encoding,
                    bool compressed, uint64_t count, std::vector<uint16_t>* out) const {
    if (buffer->size() == 0) return Status::OK();
    if (compressed) {
      if (count > internal::kMaxRows) return Corrupt("implausible level count");
      auto block = codecs::DecodeBlock(encoding, buffer, static_cast<int64_t>(count));
      if (!block.ok()) return Here(block.status());
      return Here(AppendLevels(*block, static_cast<int64_t>(count), out));
    }
    if (buffer->size() % 2 != 0) return Corrupt("levels of an odd byte count");
    out->resize(static_cast<size_t>(buffer->size() / 2));
    std::memcpy(out->data(), buffer->data(), static_cast<size_t>(buffer->size()));
    return Status::OK();
  }

  Result<std::vector<BufferPtr>> ParseValueBuffer(const BufferPtr& buffer) const {
    const uint8_t* p = buffer->data();
    const uint64_t size = static_cast<uint64_t>(buffer->size());
    if (size < 4) return Corrupt("truncated constant value");
    const uint32_t count = Load<uint32_t>(p);
    if (count > 8 || 4 + uint64_t{4} * count > size) {
      return Corrupt("constant value with " + std::to_string(count) + " buffers");
    }
    std::vector<BufferPtr> out;
    uint64_t off = 4 + uint64_t{4} * count;
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t len = Load<uint32_t>(p + 4 + 4 * i);
      if (len > size - off) return Corrupt("constant value buffers past the end");
      out.push_back(Buffer::Slice(buffer, static_cast<int64_t>(off), len));
      off += len;
    }
    if (off != size) return Corrupt("trailing bytes after the constant value");
    return out;
  }

  pb21::ConstantLayout layout_;
  std::vector<ByteRange> buffers_;
  bool all_null_ = false;
  int value_index_ = -1;
  int levels_index_ = -1;
};

// ---------------------------------------------------------------------------------------
// The default Take: decode the page, pick the rows.

class WholePageTake : public PageTake {
 public:
  WholePageTake(const PageReader* page, std::vector<int64_t> rows)
      : page_(page), rows_(std::move(rows)) {}
  std::vector<ByteRange> MetadataRanges() override { return {}; }
  Result<std::vector<ByteRange>> DataRanges(std::vector<BufferPtr>) override {
    return page_->AllRanges();
  }
  Result<LeafRows> Decode(std::vector<BufferPtr> data) override {
    LANCE_ASSIGN_OR_RAISE(LeafRows all, page_->DecodeAll(std::move(data)));
    return GatherRows(page_->levels(), all, rows_);
  }

 private:
  const PageReader* page_;
  std::vector<int64_t> rows_;
};


/// The default cursor: the whole page, decoded once.
class WholePageCursor : public PageCursor {
 public:
  explicit WholePageCursor(const PageReader* page) : page_(page) {}
  Result<std::vector<ByteRange>> Missing(int64_t, int64_t) override {
    if (decoded_) return std::vector<ByteRange>();
    std::vector<ByteRange> ranges = page_->AllRanges();
    // A page without buffers (an all-null page) decodes right away.
    if (ranges.empty()) LANCE_RETURN_NOT_OK(Provide({}));
    return ranges;
  }
  Status Provide(std::vector<BufferPtr> buffers) override {
    LANCE_ASSIGN_OR_RAISE(rows_, page_->DecodeAll(std::move(buffers)));
    if (rows_.num_rows != page_->num_rows()) {
      return Status::Corrupt(page_->where() + ": decoded " + std::to_string(rows_.num_rows) +
                             " rows, expected " + std::to_string(page_->num_rows()));
    }
    LANCE_ASSIGN_OR_RAISE(index_, IndexRows(page_->levels(), rows_));
    decoded_ = true;
    return Status::OK();
  }
  Result<LeafRows> Read(int64_t begin, int64_t end) override {
    if (!decoded_) return Status::Invalid("internal: page read before it was fetched");
    return SliceRows(rows_, rows_.rep.empty() ? nullptr : &index_, begin, end);
  }

 private:
  const PageReader* page_;
  bool decoded_ = false;
  LeafRows rows_;
  RowIndex index_;
};
}  // namespace

Status PageReader::Here(const Status& st) const {
  if (st.ok()) return st;
  return Status(st.code(), where_ + ": " + st.message(), st.retryable());
}

Status PageReader::Corrupt(const std::string& message) const {
  return Status::Corrupt(where_ + ": " + message);
}

Result<std::unique_ptr<PageTake>> PageReader::StartTake(std::vector<int64_t> rows) const {
  return std::unique_ptr<PageTake>(new WholePageTake(this, std::move(rows)));
}

Result<std::unique_ptr<PageCursor>> PageReader::OpenCursor() const {
  return std::unique_ptr<PageCursor>(new WholePageCursor(this));
}

Result<LeafRows> GatherRows(const Levels& levels, const LeafRows& all,
                            const std::vector<int64_t>& rows) {
  LeafRows out;
  out.num_rows = static_cast<int64_t>(rows.size());
  std::vector<int64_t> value_positions;
  if (all.rep.empty()) {
    for (int64_t r : rows) {
      if (r < 0 || r >= all.num_rows) return Status::Corrupt("row outside the page");
      if (!all.def.empty()) out.def.push_back(all.def[static_cast<size_t>(r)]);
      value_positions.push_back(r);
    }
  } else {
    LANCE_ASSIGN_OR_RAISE(RowIndex index, IndexRows(levels, all));
    for (int64_t r : rows) {
      if (r < 0 || r >= all.num_rows) return Status::Corrupt("row outside the page");
      const int64_t lb = index.level_start[r], le = index.level_start[r + 1];
      out.rep.insert(out.rep.end(), all.rep.begin() + lb, all.rep.begin() + le);
      if (!all.def.empty()) out.def.insert(out.def.end(), all.def.begin() + lb, all.def.begin() + le);
      for (int64_t v = index.value_start[r]; v < index.value_start[r + 1]; ++v) {
        value_positions.push_back(v);
      }
    }
  }
  for (int64_t v : value_positions) {
    if (v >= all.values->length) return Status::Corrupt("fewer values than items");
  }
  LANCE_ASSIGN_OR_RAISE(ArrayPtr values, compute::Take(*MakeArray(all.values), value_positions));
  out.values = values->data();
  return out;
}

Result<std::unique_ptr<PageReader>> MakePageReader(const internal::PageMeta& page,
                                                   const DataTypePtr& leaf_type,
                                                   LanceFileVersion version,
                                                   std::string where) {
  if (page.encoding_url != "/lance.encodings21.PageLayout") {
    return Status::Corrupt(where + ": page encoding '" + page.encoding_url +
                           "' is not a 2.1/2.2 page layout");
  }
  pb21::PageLayout layout;
  if (!internal::ParseQuietly(&layout, page.encoding_value.data(),
                              page.encoding_value.size())) {
    return Status::Corrupt(where + ": the page layout does not parse");
  }
  std::vector<ByteRange> buffers;
  for (size_t b = 0; b < page.buffer_offsets.size(); ++b) {
    buffers.push_back({page.buffer_offsets[b], page.buffer_sizes[b]});
  }
  const bool v22 = version == LanceFileVersion::kV2_2;
  auto make_levels = [&](const google::protobuf::RepeatedField<int>& layers) -> Result<Levels> {
    auto levels = Levels::Make(layers);
    if (!levels.ok()) return Status::Corrupt(where + ": " + levels.status().message());
    return levels;
  };
  switch (layout.layout_case()) {
    case pb21::PageLayout::kMiniBlockLayout: {
      const auto& mb = layout.mini_block_layout();
      if (mb.has_large_chunk() != v22) {
        // Lance's grammar: 2.2 requires u32 chunk words, 2.1 forbids them.
        return Status::Corrupt(where + ": mini-block chunk word width does not match file "
                               "format " + std::string(FileVersionString(version)));
      }
      LANCE_ASSIGN_OR_RAISE(Levels levels, make_levels(mb.layers()));
      auto reader = std::make_unique<MiniBlockPage>(std::move(where), std::move(levels),
                                                    page.length, leaf_type, mb,
                                                    std::move(buffers), mb.has_large_chunk());
      LANCE_RETURN_NOT_OK(reader->Init());
      return std::unique_ptr<PageReader>(std::move(reader));
    }
    case pb21::PageLayout::kFullZipLayout: {
      const auto& fz = layout.full_zip_layout();
      LANCE_ASSIGN_OR_RAISE(Levels levels, make_levels(fz.layers()));
      auto reader = std::make_unique<FullZipPage>(std::move(where), std::move(levels),
                                                  page.length, leaf_type, fz, std::move(buffers));
      LANCE_RETURN_NOT_OK(reader->Init());
      return std::unique_ptr<PageReader>(std::move(reader));
    }
    case pb21::PageLayout::kConstantLayout: {
      const auto& cl = layout.constant_layout();
      if (!v22 && (cl.has_inline_value() || cl.has_rep_compression() ||
                   cl.has_def_compression())) {
        return Status::Corrupt(where + ": a 2.1 file has a 2.2 constant page");
      }
      LANCE_ASSIGN_OR_RAISE(Levels levels, make_levels(cl.layers()));
      auto reader = std::make_unique<ConstantPage>(std::move(where), std::move(levels),
                                                   page.length, leaf_type, cl, std::move(buffers));
      LANCE_RETURN_NOT_OK(reader->Init());
      return std::unique_ptr<PageReader>(std::move(reader));
    }
    case pb21::PageLayout::kBlobLayout: {
      // Refused only when read, so that the file's other columns stay readable.
      LANCE_ASSIGN_OR_RAISE(Levels levels, make_levels(layout.blob_layout().layers()));
      Status refusal = Status::NotImplemented(
          where + ": blob pages (lance-encoding:blob) are not supported by this build");
      return std::unique_ptr<PageReader>(std::make_unique<UnreadablePage>(
          std::move(where), std::move(levels), page.length, leaf_type, std::move(refusal)));
    }
    default:
      return Status::Corrupt(where + ": the page has no layout");
  }
}

}  // namespace lance::format::structural
