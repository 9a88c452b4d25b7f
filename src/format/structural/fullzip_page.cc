// SPDX-License-Identifier: Apache-2.0
// The full-zip page layout of Lance file formats 2.1 and 2.2 (byte layout: pages.cc).

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
// Full-zip

class FullZipPage : public LayoutPage<pb21::FullZipLayout> {
 public:
  using LayoutPage::LayoutPage;

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
        return Corrupt("full-zip value width of " +
                       std::to_string(layout_.bits_per_value()) + " bits");
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
      if (size % entries != 0)
        return Corrupt("repetition index size does not fit the rows");
      index_bytes_ = size / entries;
      if (index_bytes_ != 1 && index_bytes_ != 2 && index_bytes_ != 4 &&
          index_bytes_ != 8) {
        return Corrupt("repetition index entries of " + std::to_string(index_bytes_) +
                       " bytes");
      }
    }
    return Status::OK();
  }

  std::vector<ByteRange> AllRanges() const override { return {buffers_[0]}; }

  Result<LeafRows> DecodeAll(std::vector<BufferPtr> buffers) const override {
    Unzipped u;
    LANCE_RETURN_NOT_OK(Unzip(buffers[0], &u));
    if (u.rows != num_rows_) {
      return Corrupt("full-zip data holds " + std::to_string(u.rows) +
                     " rows, the page " + std::to_string(num_rows_));
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
    BufferBuilder values;              // fixed: value bytes; variable: the bytes
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
                              : (cw_bytes_ == 2 ? LoadLE<uint16_t>(p + off)
                                                : LoadLE<uint32_t>(p + off));
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
        LANCE_RETURN_NOT_OK(
            u->values.Append(p + off, static_cast<int64_t>(value_bytes_)));
        off += value_bytes_;
      } else {
        if (def == 0) {
          if (off + length_bytes_ > size) return Corrupt("truncated value length");
          const uint64_t len = LoadUIntLE(p + off, static_cast<int64_t>(length_bytes_));
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
    return LoadUIntLE(p, static_cast<int64_t>(index_bytes_));
  }

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
        if (begin + stride > data.size)
          return page_->Corrupt("row outside the page data");
        out.push_back({data.offset + begin, stride});
      }
      return out;
    }
    for (size_t i = 0; i < rows_.size(); ++i) {
      const uint64_t begin = page_->IndexEntry(metadata[i]->data());
      const uint64_t end = page_->IndexEntry(metadata[i]->data() + page_->index_bytes_);
      if (end < begin || end > data.size)
        return page_->Corrupt("repetition index out of range");
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

Result<std::unique_ptr<PageTake>> FullZipPage::StartTake(
    std::vector<int64_t> rows) const {
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
        return std::vector<ByteRange>{
            {page_->buffers_[1].offset + static_cast<uint64_t>(begin) * w,
             static_cast<uint64_t>(last - begin + 1) * w}};
      }
    }
    LANCE_ASSIGN_OR_RAISE(uint64_t start, Offset(begin));
    LANCE_ASSIGN_OR_RAISE(uint64_t stop, Offset(end));
    if (stop < start || stop > data.size)
      return page_->Corrupt("repetition index out of range");
    if (window_ && start >= win_start_ && stop <= win_start_ + window_->size()) {
      return std::vector<ByteRange>();
    }
    // Read ahead: more rows while they stay within the budget (and the index window).
    uint64_t want = stop;
    if (stop - start < kScanReadAhead) {
      if (page_->index_bytes_ == 0) {
        want = std::min<uint64_t>(
            data.size, start + std::max<uint64_t>(kScanReadAhead, stop - start));
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
    if (!window_ || start < win_start_ || stop > win_start_ + window_->size() ||
        stop < start) {
      return Status::Invalid("internal: full-zip rows were not fetched");
    }
    FullZipPage::Unzipped u;
    LANCE_RETURN_NOT_OK(
        page_->Unzip(Buffer::Slice(window_, static_cast<int64_t>(start - win_start_),
                                   static_cast<int64_t>(stop - start)),
                     &u));
    if (u.rows != end - begin) {
      return page_->Corrupt("full-zip rows " + std::to_string(begin) + ".." +
                            std::to_string(end) + " hold " + std::to_string(u.rows) +
                            " rows");
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
    return page_->IndexEntry(index_->data() + static_cast<uint64_t>(r - index_first_) *
                                                  page_->index_bytes_);
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

}  // namespace

Result<std::unique_ptr<PageReader>> MakeFullZipPage(std::string where, Levels levels,
                                                    int64_t num_rows, DataTypePtr type,
                                                    const pb21::FullZipLayout& layout,
                                                    std::vector<ByteRange> buffers) {
  auto reader =
      std::make_unique<FullZipPage>(std::move(where), std::move(levels), num_rows,
                                    std::move(type), layout, std::move(buffers));
  LANCE_RETURN_NOT_OK(reader->Init());
  return std::unique_ptr<PageReader>(std::move(reader));
}

}  // namespace lance::format::structural
