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
#include "format/structural/pages_internal.h"
#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/core/compute.h"
#include "lance/core/concatenate.h"
#include "lance/macros.h"

namespace lance::format::structural {

using codecs::DataBlock;

using codecs::DataBlock;

Result<ArrayDataPtr> EmptyValues(const DataTypePtr& type, int64_t count) {
  LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(type));
  LANCE_RETURN_NOT_OK(builder->AppendEmptyValues(count));
  return builder->FinishData();
}

Result<ArrayDataPtr> JoinPieces(std::vector<ArrayDataPtr> pieces,
                                const DataTypePtr& type) {
  if (pieces.empty()) return EmptyValues(type, 0);
  if (pieces.size() == 1) return std::move(pieces[0]);
  std::vector<ArrayPtr> arrays;
  arrays.reserve(pieces.size());
  for (auto& p : pieces) arrays.push_back(MakeArray(std::move(p)));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr joined, Concatenate(arrays));
  return joined->data();
}

/// u16 levels from a decoded block.
Status AppendLevels(const DataBlock& block, int64_t expected,
                    std::vector<uint16_t>* out) {
  if (block.kind != DataBlock::Kind::kFixed || block.bits_per_value != 16 ||
      block.num_values != expected || !block.data || block.data->size() < 2 * expected) {
    return Status::Corrupt("levels did not decode to ", expected, " 16-bit values");
  }
  if (expected == 0)
    return Status::OK();  // memcpy into an empty vector's null data is UB
  const size_t at = out->size();
  out->resize(at + static_cast<size_t>(expected));
  std::memcpy(out->data() + at, block.data->data(), static_cast<size_t>(2 * expected));
  return Status::OK();
}

/// Indices of a dictionary page (any width) as int64 positions, nulls and damage aside:
/// an index outside the dictionary is allowed only on an item that is not valid.
Result<ArrayDataPtr> ApplyDictionary(const DataBlock& indices,
                                     const ArrayDataPtr& dictionary,
                                     const std::vector<uint16_t>& def, size_t def_begin,
                                     const Levels& levels) {
  if (indices.kind != DataBlock::Kind::kFixed ||
      (indices.bits_per_value != 8 && indices.bits_per_value != 16 &&
       indices.bits_per_value != 32 && indices.bits_per_value != 64) ||
      !indices.data ||
      indices.data->size() * 8 <
          static_cast<int64_t>(indices.bits_per_value) * indices.num_values) {
    return Status::Corrupt("dictionary indices are not 8/16/32/64-bit integers");
  }
  const int64_t n = indices.num_values;
  const int64_t size = dictionary->length;
  std::vector<int64_t> positions(static_cast<size_t>(n));
  const uint8_t* p = indices.data->data();
  // Which visible item is valid: walk the levels in step with the values.
  size_t level = def_begin;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t v = LoadIndex(p, indices.bits_per_value, i);
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
          return Status::Corrupt("dictionary index ", v, " outside a ", size,
                                 "-entry dictionary");
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
  LANCE_ASSIGN_OR_RAISE(ArrayPtr gathered,
                        compute::Take(*MakeArray(dictionary), positions));
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
  trimmed.rep.assign(segment.rep.begin() + static_cast<std::ptrdiff_t>(skip),
                     segment.rep.end());
  if (!segment.def.empty()) {
    trimmed.def.assign(segment.def.begin() + static_cast<std::ptrdiff_t>(skip),
                       segment.def.end());
  }
  if (skip_values > segment.values->length) return Status::Corrupt("too few values");
  trimmed.values =
      segment.values->Slice(skip_values, segment.values->length - skip_values);
  int64_t rows = 0;
  for (uint16_t r : trimmed.rep) rows += r == max_rep ? 1 : 0;
  trimmed.num_rows = rows;
  return trimmed;
}

/// A dictionary-typed leaf's chunk: its indices (any width) as the leaf's index type,
/// sharing the page dictionary. Indices of items that are not valid are set to 0.
Result<ArrayDataPtr> DictionaryArray(const DataBlock& indices,
                                     const ArrayDataPtr& dictionary,
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
    uint64_t v = LoadIndex(p, bits, i);
    bool valid = true;
    if (!def.empty()) {
      while (level < def.size() && def[level] > levels.max_visible_def) ++level;
      valid = level < def.size() && def[level] == 0;
      ++level;
    }
    if (!valid) v = 0;
    if (valid && v >= static_cast<uint64_t>(dictionary->length)) {
      return Status::Corrupt("dictionary index ", v, " outside a ",
                             std::to_string(dictionary->length), "-entry dictionary");
    }
    std::memcpy(out->mutable_data() + i * out_bytes, &v, static_cast<size_t>(out_bytes));
  }
  return ArrayData::Make(type, n, {nullptr, std::move(out)}, 0, 0, {}, dictionary);
}

namespace {

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

class ConstantPage : public LayoutPage<pb21::ConstantLayout> {
 public:
  using LayoutPage::LayoutPage;

  Status Init() {
    const size_t n = buffers_.size();
    const bool inline_value = layout_.has_inline_value();
    if (inline_value) {
      if (n != 0 && n != 2)
        return Corrupt("constant page with an inline value and " + std::to_string(n) +
                       " buffers");
      levels_index_ = n == 2 ? 0 : -1;
    } else if (n == 1 || n == 3) {
      value_index_ = 0;
      levels_index_ = n == 3 ? 1 : -1;
    } else if (n == 0) {
      all_null_ = true;
      if (levels_.has_def() &&
          !(levels_.layers.size() == 1 && levels_.layers[0] == pb21::NULLABLE_ITEM)) {
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
                                     layout_.has_rep_compression(),
                                     layout_.num_rep_values(), &rows.rep));
      LANCE_RETURN_NOT_OK(
          ReadLevels(buffers[levels_index_ + 1], layout_.def_compression(),
                     layout_.has_def_compression(), layout_.num_def_values(), &rows.def));
    } else if (all_null_ && levels_.has_def()) {
      // An empty struct has no values, so Lance stores it as an "all-null" page even
      // when every row is valid (pylance reads it back valid and refuses to write one
      // with nulls): the page says nothing about its validity.
      const bool empty_struct =
          type_->id() == TypeId::kStruct && type_->num_fields() == 0;
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
    if (static_cast<uint64_t>(visible) > internal::kMaxRows)
      return Corrupt("implausible item count");
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
    const uint32_t count = LoadLE<uint32_t>(p);
    if (count > 8 || 4 + uint64_t{4} * count > size) {
      return Corrupt("constant value with " + std::to_string(count) + " buffers");
    }
    std::vector<BufferPtr> out;
    uint64_t off = 4 + uint64_t{4} * count;
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t len = LoadLE<uint32_t>(p + 4 + 4 * i);
      if (len > size - off) return Corrupt("constant value buffers past the end");
      out.push_back(Buffer::Slice(buffer, static_cast<int64_t>(off), len));
      off += len;
    }
    if (off != size) return Corrupt("trailing bytes after the constant value");
    return out;
  }

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
      return Status::Corrupt(page_->where() + ": decoded " +
                             std::to_string(rows_.num_rows) + " rows, expected " +
                             std::to_string(page_->num_rows()));
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
  return Status::Corrupt(where_, ": ", message);
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
      if (!all.def.empty())
        out.def.insert(out.def.end(), all.def.begin() + lb, all.def.begin() + le);
      for (int64_t v = index.value_start[r]; v < index.value_start[r + 1]; ++v) {
        value_positions.push_back(v);
      }
    }
  }
  for (int64_t v : value_positions) {
    if (v >= all.values->length) return Status::Corrupt("fewer values than items");
  }
  LANCE_ASSIGN_OR_RAISE(ArrayPtr values,
                        compute::Take(*MakeArray(all.values), value_positions));
  out.values = values->data();
  return out;
}

Result<std::unique_ptr<PageReader>> MakePageReader(const internal::PageMeta& page,
                                                   const DataTypePtr& leaf_type,
                                                   LanceFileVersion version,
                                                   std::string where) {
  if (page.encoding_url != "/lance.encodings21.PageLayout") {
    return Status::Corrupt(where, ": page encoding '", page.encoding_url,
                           "' is not a 2.1/2.2 page layout");
  }
  pb21::PageLayout layout;
  if (!internal::ParseQuietly(&layout, page.encoding_value.data(),
                              page.encoding_value.size())) {
    return Status::Corrupt(where, ": the page layout does not parse");
  }
  std::vector<ByteRange> buffers;
  for (size_t b = 0; b < page.buffer_offsets.size(); ++b) {
    buffers.push_back({page.buffer_offsets[b], page.buffer_sizes[b]});
  }
  const bool v22 = version == LanceFileVersion::kV2_2;
  auto make_levels =
      [&](const google::protobuf::RepeatedField<int>& layers) -> Result<Levels> {
    auto levels = Levels::Make(layers);
    if (!levels.ok()) return Status::Corrupt(where, ": ", levels.status().message());
    return levels;
  };
  switch (layout.layout_case()) {
    case pb21::PageLayout::kMiniBlockLayout: {
      const auto& mb = layout.mini_block_layout();
      if (mb.has_large_chunk() != v22) {
        // Lance's grammar: 2.2 requires u32 chunk words, 2.1 forbids them.
        return Status::Corrupt(where,
                               ": mini-block chunk word width does not match file "
                               "format ",
                               FileVersionString(version));
      }
      LANCE_ASSIGN_OR_RAISE(Levels levels, make_levels(mb.layers()));
      return MakeMiniBlockPage(std::move(where), std::move(levels), page.length,
                               leaf_type, mb, std::move(buffers), mb.has_large_chunk());
    }
    case pb21::PageLayout::kFullZipLayout: {
      const auto& fz = layout.full_zip_layout();
      LANCE_ASSIGN_OR_RAISE(Levels levels, make_levels(fz.layers()));
      return MakeFullZipPage(std::move(where), std::move(levels), page.length, leaf_type,
                             fz, std::move(buffers));
    }
    case pb21::PageLayout::kConstantLayout: {
      const auto& cl = layout.constant_layout();
      if (!v22 && (cl.has_inline_value() || cl.has_rep_compression() ||
                   cl.has_def_compression())) {
        return Status::Corrupt(where, ": a 2.1 file has a 2.2 constant page");
      }
      LANCE_ASSIGN_OR_RAISE(Levels levels, make_levels(cl.layers()));
      auto reader =
          std::make_unique<ConstantPage>(std::move(where), std::move(levels), page.length,
                                         leaf_type, cl, std::move(buffers));
      LANCE_RETURN_NOT_OK(reader->Init());
      return std::unique_ptr<PageReader>(std::move(reader));
    }
    case pb21::PageLayout::kBlobLayout: {
      // Refused only when read, so that the file's other columns stay readable.
      LANCE_ASSIGN_OR_RAISE(Levels levels, make_levels(layout.blob_layout().layers()));
      Status refusal = Status::NotImplemented(
          where, ": blob pages (lance-encoding:blob) are not supported by this build");
      return std::unique_ptr<PageReader>(
          std::make_unique<UnreadablePage>(std::move(where), std::move(levels),
                                           page.length, leaf_type, std::move(refusal)));
    }
    default:
      return Status::Corrupt(where, ": the page has no layout");
  }
}

}  // namespace lance::format::structural
