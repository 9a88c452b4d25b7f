// SPDX-License-Identifier: Apache-2.0
// The mini-block page layout of Lance file formats 2.1 and 2.2 (byte layout: pages.cc).

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>

#include "format/codecs/codecs.h"
#include "format/structural/blocks.h"
#include "format/structural/pages_internal.h"
#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/core/compute.h"
#include "lance/core/concatenate.h"
#include "lance/macros.h"

namespace lance::format::structural {

using codecs::DataBlock;

namespace {

// ---------------------------------------------------------------------------------------
// Mini-block

class MiniBlockPage : public LayoutPage<pb21::MiniBlockLayout> {
 public:
  MiniBlockPage(std::string where, Levels levels, int64_t num_rows, DataTypePtr type,
                pb21::MiniBlockLayout layout, std::vector<ByteRange> buffers, bool large)
      : LayoutPage(std::move(where), std::move(levels), num_rows, std::move(type),
                   std::move(layout), std::move(buffers)),
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
    if (!layout_.has_value_compression())
      return Corrupt("mini-block page without values");
    if (layout_.num_items() > internal::kMaxRows)
      return Corrupt("implausible item count");
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
        const uint64_t ends = LoadLE<uint64_t>(index->data() + 8 * c * stride);
        const uint64_t partial = LoadLE<uint64_t>(index->data() + 8 * (c * stride + 1));
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
                                       rs.begin()) -
                       1
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
      const uint32_t w = large_ ? LoadLE<uint32_t>(meta->data() + 4 * i)
                                : LoadLE<uint16_t>(meta->data() + 2 * i);
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
    const uint16_t num_levels = LoadLE<uint16_t>(p + off);
    off += 2;
    const bool has_rep = layout_.has_rep_compression();
    const bool has_def = layout_.has_def_compression();
    size_t rep_size = 0, def_size = 0;
    if (has_rep) {
      LANCE_RETURN_NOT_OK(need(2));
      rep_size = LoadLE<uint16_t>(p + off);
      off += 2;
    }
    if (has_def) {
      LANCE_RETURN_NOT_OK(need(2));
      def_size = LoadLE<uint16_t>(p + off);
      off += 2;
    }
    const size_t nb = static_cast<size_t>(layout_.num_buffers());
    std::vector<size_t> sizes(nb);
    for (size_t b = 0; b < nb; ++b) {
      LANCE_RETURN_NOT_OK(need(large_ ? 4 : 2));
      sizes[b] = large_ ? LoadLE<uint32_t>(p + off) : LoadLE<uint16_t>(p + off);
      off += large_ ? 4 : 2;
    }
    off = PadTo8(off);
    auto slice = [&](size_t len, BufferPtr* piece) -> Status {
      if (off > size || len > size - off)
        return Corrupt("chunk buffers run past the chunk");
      *piece = Buffer::Slice(data, static_cast<int64_t>(base + off),
                             static_cast<int64_t>(len));
      off = PadTo8(off + len);
      return Status::OK();
    };
    BufferPtr rep_buf, def_buf;
    if (has_rep) LANCE_RETURN_NOT_OK(slice(rep_size, &rep_buf));
    if (has_def) LANCE_RETURN_NOT_OK(slice(def_size, &def_buf));
    std::vector<BufferPtr> value_buffers(nb);
    for (size_t b = 0; b < nb; ++b)
      LANCE_RETURN_NOT_OK(slice(sizes[b], &value_buffers[b]));

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
      auto picked = codecs::DecodeMiniBlockPicked(layout_.value_compression(),
                                                  value_buffers, chunk.num_values, *pick);
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
      const uint64_t end =
          chunks_[g.end_chunk - 1].offset + chunks_[g.end_chunk - 1].size;
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
                                                 chunks_[c], dictionary_, &decoded,
                                                 &wanted));
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
        LANCE_RETURN_NOT_OK(page_->DecodeChunk(data[g], chunks_[c].offset - base,
                                               chunks_[c], dictionary_, &decoded));
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
    if (next_row != rows_.size())
      return page_->Corrupt("rows outside the decoded chunks");
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

Result<std::unique_ptr<PageTake>> MiniBlockPage::StartTake(
    std::vector<int64_t> rows) const {
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
    return std::vector<ByteRange>{
        {page_->buffers_[1].offset + chunks[first].offset, bytes}};
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
          return Status::Invalid("internal: chunk ", c, " was not fetched");
        }
        MiniBlockPage::Decoded d;
        LANCE_RETURN_NOT_OK(page_->DecodeChunk(
            window_, meta_.chunks[c].offset - meta_.chunks[win_first_].offset,
            meta_.chunks[c], meta_.dictionary, &d));
        LANCE_ASSIGN_OR_RAISE(ArrayDataPtr v,
                              JoinPieces(std::move(d.values), page_->type_));
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

}  // namespace

Result<std::unique_ptr<PageReader>> MakeMiniBlockPage(std::string where, Levels levels,
                                                      int64_t num_rows, DataTypePtr type,
                                                      const pb21::MiniBlockLayout& layout,
                                                      std::vector<ByteRange> buffers,
                                                      bool large_chunk) {
  auto reader = std::make_unique<MiniBlockPage>(std::move(where), std::move(levels),
                                                num_rows, std::move(type), layout,
                                                std::move(buffers), large_chunk);
  LANCE_RETURN_NOT_OK(reader->Init());
  return std::unique_ptr<PageReader>(std::move(reader));
}

}  // namespace lance::format::structural
