// SPDX-License-Identifier: Apache-2.0
// Reading Lance file format v2.0: one column per Lance field in pre-order (struct header
// columns, list offsets columns whose item columns count items), pages encoded with
// lance.encodings.ArrayEncoding (decoder.cc).
//
// A read works out, for a range of rows, which pages of which columns hold them, fetches
// their buffers with as few (coalesced) reads as possible, decodes only the slots it
// needs; a stream drops pages it has moved past. Take groups the requested rows into
// runs and reads each run the same way, loading every page at most once.

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <utility>

#include "format/proto/encodings_v2_0.pb.h"
#include "format/reader_internal.h"
#include "format/v2_0/decoder.h"
#include "format/v2_container.h"
#include "lance/core/builder.h"
#include "lance/core/concatenate.h"
#include "lance/macros.h"

namespace lance::format::internal {

namespace {

namespace pb = lance::encodings;

/// A field and the column holding its data (the field's pre-order position).
struct FieldNode {
  FieldPtr field;
  int column = -1;
  std::vector<FieldNode> children;
};

/// v2.0 facts of one page beyond the container's: its parsed encoding, and for list
/// columns where its items start in the item column.
struct V20Page {
  pb::ArrayEncoding encoding;
  int64_t first_item = 0;
};

class V20Reader : public VersionReader, public std::enable_shared_from_this<V20Reader> {
 public:
  explicit V20Reader(std::shared_ptr<const FileContext> context)
      : context_(std::move(context)) {}

  Status Init();

  Result<RecordBatchReaderPtr> Read(std::vector<int> fields, SchemaPtr schema,
                                    int64_t begin, int64_t end,
                                    int64_t batch_size) const override;
  Result<std::vector<ArrayPtr>> Take(const std::vector<int>& fields,
                                     const std::vector<int64_t>& rows) const override;

  const FileContext& context() const { return *context_; }
  const std::vector<FieldNode>& top_level() const { return top_level_; }
  const PageMeta& page(int column, int page) const {
    return context_->columns[column].pages[page];
  }
  const V20Page& v20_page(int column, int page) const { return pages_[column][page]; }
  const std::vector<PageMeta>& pages(int column) const {
    return context_->columns[column].pages;
  }

 private:
  Status CheckColumn(const FieldNode& node, int64_t expected_total);

  std::shared_ptr<const FileContext> context_;
  std::vector<std::vector<V20Page>> pages_;  // [column][page]
  std::vector<FieldNode> top_level_;
};

/// Decodes ranges of rows of some fields, loading the pages it needs on demand and
/// keeping them until Forget. Not thread-safe: one per stream or Take call.
class RangeDecoder {
 public:
  explicit RangeDecoder(std::shared_ptr<const V20Reader> reader)
      : reader_(std::move(reader)) {}

  struct PageRef {
    int column;
    int page;
    bool operator<(const PageRef& o) const {
      return column != o.column ? column < o.column : page < o.page;
    }
  };

  /// Pages of `column` overlapping [start, start + count), as [first, last).
  std::pair<int, int> FindPages(int column, int64_t start, int64_t count) const {
    const auto& pages = reader_->pages(column);
    if (count <= 0) return {0, 0};
    auto first = std::partition_point(pages.begin(), pages.end(), [&](const PageMeta& p) {
      return p.first + p.length <= start;
    });
    auto last = first;
    while (last != pages.end() && last->first < start + count) ++last;
    return {static_cast<int>(first - pages.begin()),
            static_cast<int>(last - pages.begin())};
  }

  /// Collects the pages needed to read [start, start + count) of `node` and of its
  /// children up to (not into) list items.
  void Plan(const FieldNode& node, int64_t start, int64_t count,
            std::vector<PageRef>* needs) const {
    if (node.field->type()->id() == TypeId::kStruct) {
      // The struct header column has no buffers.
      for (const auto& child : node.children) Plan(child, start, count, needs);
      return;
    }
    auto [first, last] = FindPages(node.column, start, count);
    for (int p = first; p < last; ++p) needs->push_back({node.column, p});
  }

  /// Drops loaded pages of `node`'s columns that end before `start` (streams move
  /// forward only).
  void Forget(const FieldNode& node, int64_t start) {
    if (node.field->type()->id() == TypeId::kStruct) {
      for (const auto& child : node.children) Forget(child, start);
      return;
    }
    for (auto it = loaded_.lower_bound({node.column, 0});
         it != loaded_.end() && it->first.column == node.column;) {
      const PageMeta& page = reader_->page(node.column, it->first.page);
      it = page.first + page.length <= start ? loaded_.erase(it) : std::next(it);
    }
  }

  Status Load(const std::vector<PageRef>& needs) {
    std::vector<RangeRequest> requests;
    for (const PageRef& ref : needs) {
      if (loaded_.count(ref) > 0) continue;
      const PageMeta& page = reader_->page(ref.column, ref.page);
      PageBuffers& buffers = loaded_[ref];
      buffers.buffers.resize(page.buffer_offsets.size());
      for (size_t b = 0; b < page.buffer_offsets.size(); ++b) {
        requests.push_back(
            {page.buffer_offsets[b], page.buffer_sizes[b], &buffers.buffers[b]});
      }
    }
    Status st = FetchRanges(reader_->context(), std::move(requests));
    if (!st.ok()) loaded_.clear();
    return st;
  }

  void Clear() { loaded_.clear(); }

  Result<ArrayDataPtr> ReadField(const FieldNode& node, int64_t start, int64_t count);

 private:
  Result<ArrayDataPtr> ReadList(const FieldNode& node, int64_t start, int64_t count);
  std::string PageContext(int column, int page) const {
    return "Lance file '" + reader_->context().path + "', column " +
           std::to_string(column) + " page " + std::to_string(page);
  }

  std::shared_ptr<const V20Reader> reader_;
  std::map<PageRef, PageBuffers> loaded_;
};

Result<ArrayDataPtr> RangeDecoder::ReadField(const FieldNode& node, int64_t start,
                                             int64_t count) {
  const DataTypePtr& type = node.field->type();
  switch (type->id()) {
    case TypeId::kStruct: {
      std::vector<ArrayDataPtr> children;
      for (const auto& child : node.children) {
        LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data, ReadField(child, start, count));
        children.push_back(std::move(data));
      }
      // v2.0 stores no struct validity.
      return ArrayData::Make(type, count, {nullptr}, 0, 0, std::move(children));
    }
    case TypeId::kList:
    case TypeId::kLargeList:
      return ReadList(node, start, count);
    default:
      break;
  }
  const auto& pages = reader_->pages(node.column);
  auto [first, last] = FindPages(node.column, start, count);
  std::vector<ArrayPtr> pieces;
  int64_t produced = 0;
  for (int p = first; p < last; ++p) {
    const PageMeta& page = pages[p];
    const int64_t s = std::max(start, page.first) - page.first;
    const int64_t e = std::min(start + count, page.first + page.length) - page.first;
    auto it = loaded_.find({node.column, p});
    if (it == loaded_.end()) {
      return Status::Invalid("internal: page " + std::to_string(p) + " of column " +
                             std::to_string(node.column) + " was not loaded");
    }
    PageDecoder decoder(PageContext(node.column, p), &it->second);
    LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data,
                          decoder.DecodeLeaf(reader_->v20_page(node.column, p).encoding,
                                             type, page.length, s, e - s));
    produced += e - s;
    pieces.push_back(MakeArray(std::move(data)));
  }
  if (produced != count) {
    return CorruptFile(reader_->context().path, "column " + std::to_string(node.column) +
                                                    " has no data for rows " +
                                                    std::to_string(start) + "..+" +
                                                    std::to_string(count));
  }
  if (pieces.size() == 1) return pieces[0]->data();
  if (pieces.empty()) {
    LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(type));
    LANCE_ASSIGN_OR_RAISE(ArrayDataPtr empty, builder->FinishData());
    return empty;
  }
  LANCE_ASSIGN_OR_RAISE(ArrayPtr joined, Concatenate(pieces));
  return joined->data();
}

Result<ArrayDataPtr> RangeDecoder::ReadList(const FieldNode& node, int64_t start,
                                            int64_t count) {
  const std::string& path = reader_->context().path;
  const auto& pages = reader_->pages(node.column);
  auto [first, last] = FindPages(node.column, start, count);
  std::vector<int64_t> offsets;  // item positions within the item column
  offsets.reserve(static_cast<size_t>(count) + 1);
  BitmapBuilder validity;
  int64_t null_count = 0;
  for (int p = first; p < last; ++p) {
    const PageMeta& page = pages[p];
    const V20Page& v20 = reader_->v20_page(node.column, p);
    const int64_t s = std::max(start, page.first) - page.first;
    const int64_t e = std::min(start + count, page.first + page.length) - page.first;
    auto it = loaded_.find({node.column, p});
    if (it == loaded_.end()) return Status::Invalid("internal: list page not loaded");
    PageDecoder decoder(PageContext(node.column, p), &it->second);
    LANCE_ASSIGN_OR_RAISE(ListSlice slice,
                          decoder.DecodeListOffsets(v20.encoding, page.length, s, e - s));
    // Rows of consecutive pages must continue in the item column where the previous
    // page stopped.
    const int64_t slice_start = v20.first_item + slice.offsets[0];
    if (offsets.empty()) {
      offsets.push_back(slice_start);
    } else if (offsets.back() != slice_start) {
      return CorruptFile(path, "column " + std::to_string(node.column) +
                                   ": list items are not contiguous across pages");
    }
    for (size_t i = 1; i < slice.offsets.size(); ++i) {
      offsets.push_back(v20.first_item + slice.offsets[i]);
    }
    if (slice.validity) {
      LANCE_RETURN_NOT_OK(validity.AppendBits(slice.validity->data(), 0, e - s));
    } else {
      LANCE_RETURN_NOT_OK(validity.AppendN(e - s, true));
    }
    null_count += slice.null_count;
  }
  if (static_cast<int64_t>(offsets.size()) != count + 1 &&
      !(count == 0 && offsets.empty())) {
    return CorruptFile(path, "column " + std::to_string(node.column) +
                                 " has no data for some requested rows");
  }
  if (offsets.empty()) offsets.push_back(0);
  const int64_t item_start = offsets.front();
  const int64_t item_count = offsets.back() - item_start;
  const FieldNode& item = node.children[0];
  std::vector<PageRef> needs;
  Forget(item, item_start);
  Plan(item, item_start, item_count, &needs);
  LANCE_RETURN_NOT_OK(Load(needs));
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr items, ReadField(item, item_start, item_count));

  const bool large = node.field->type()->id() == TypeId::kLargeList;
  BufferPtr offsets_buffer;
  if (large) {
    LANCE_ASSIGN_OR_RAISE(offsets_buffer,
                          Buffer::Allocate(static_cast<int64_t>(offsets.size()) * 8));
    auto* o = offsets_buffer->mutable_data_as<int64_t>();
    for (size_t i = 0; i < offsets.size(); ++i) o[i] = offsets[i] - item_start;
  } else {
    if (item_count > std::numeric_limits<int32_t>::max()) {
      return Status::Invalid("Lance file '" + path + "': " + std::to_string(item_count) +
                             " list items do not fit 32-bit offsets; read with a smaller "
                             "batch_size");
    }
    LANCE_ASSIGN_OR_RAISE(offsets_buffer,
                          Buffer::Allocate(static_cast<int64_t>(offsets.size()) * 4));
    auto* o = offsets_buffer->mutable_data_as<int32_t>();
    for (size_t i = 0; i < offsets.size(); ++i)
      o[i] = static_cast<int32_t>(offsets[i] - item_start);
  }
  BufferPtr validity_buffer;
  if (null_count > 0) {
    LANCE_ASSIGN_OR_RAISE(validity_buffer, validity.Finish());
  }
  return ArrayData::Make(node.field->type(), count, {validity_buffer, offsets_buffer},
                         null_count, 0, {items});
}

/// One streaming read: its own pages, so concurrent streams share nothing mutable.
class V20Stream : public internal::BatchedStream {
 public:
  V20Stream(std::shared_ptr<const V20Reader> reader, std::vector<const FieldNode*> fields,
            SchemaPtr schema, int64_t begin, int64_t end, int64_t batch_size)
      : BatchedStream(std::move(schema), begin, end, batch_size),
        decoder_(std::move(reader)),
        fields_(std::move(fields)) {}

 protected:
  Result<RecordBatchPtr> ReadRows(int64_t begin, int64_t n) override {
    std::vector<RangeDecoder::PageRef> needs;
    for (const FieldNode* node : fields_) {
      decoder_.Forget(*node, begin);
      decoder_.Plan(*node, begin, n, &needs);
    }
    LANCE_RETURN_NOT_OK(decoder_.Load(needs));
    std::vector<ArrayPtr> columns;
    for (const FieldNode* node : fields_) {
      LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data, decoder_.ReadField(*node, begin, n));
      columns.push_back(MakeArray(std::move(data)));
    }
    return RecordBatch::Make(schema_, n, std::move(columns));
  }

  void Release() override { decoder_.Clear(); }

 private:
  RangeDecoder decoder_;
  std::vector<const FieldNode*> fields_;
};

Status V20Reader::Init() {
  const std::string& path = context_->path;
  pages_.resize(context_->columns.size());
  for (size_t c = 0; c < context_->columns.size(); ++c) {
    const auto& pages = context_->columns[c].pages;
    pages_[c].resize(pages.size());
    for (size_t p = 0; p < pages.size(); ++p) {
      const PageMeta& page = pages[p];
      if (page.encoding_url != kArrayEncodingUrl ||
          !ParseQuietly(&pages_[c][p].encoding, page.encoding_value.data(),
                        page.encoding_value.size())) {
        return CorruptFile(path, "column " + std::to_string(c) + " page " +
                                     std::to_string(p) + " has an unreadable encoding");
      }
    }
  }
  int next_column = 0;
  std::function<FieldNode(const FieldPtr&)> build = [&](const FieldPtr& f) {
    FieldNode node;
    node.field = f;
    node.column = next_column++;
    const TypeId id = f->type()->id();
    if (id == TypeId::kStruct || id == TypeId::kList || id == TypeId::kLargeList) {
      for (const auto& child : f->type()->fields()) node.children.push_back(build(child));
    }
    return node;
  };
  for (const auto& f : context_->schema.schema()->fields())
    top_level_.push_back(build(f));
  const int columns = static_cast<int>(context_->columns.size());
  if (next_column != columns) {
    if (next_column < columns) {
      // Lance 0.13-0.15 stored strings as list<u8> (two columns); we don't read that.
      return Status::NotImplemented(
          "Lance file '" + path + "' has " + std::to_string(columns) + " columns for " +
          std::to_string(next_column) +
          " fields (an early 0.3 layout this build cannot read)");
    }
    return CorruptFile(path, std::to_string(columns) + " columns for " +
                                 std::to_string(next_column) + " fields");
  }
  for (const auto& node : top_level_) {
    LANCE_RETURN_NOT_OK(CheckColumn(node, context_->num_rows));
  }
  return Status::OK();
}

// Every column must hold exactly the values its parent implies, so that no read can run
// past a column's pages, and lists must say how many items their pages hold.
Status V20Reader::CheckColumn(const FieldNode& node, int64_t expected_total) {
  const std::string& path = context_->path;
  const ColumnMeta& column = context_->columns[node.column];
  if (column.total != expected_total) {
    return CorruptFile(path, "column " + std::to_string(node.column) + " ('" +
                                 node.field->name() + "') holds " +
                                 std::to_string(column.total) + " values, expected " +
                                 std::to_string(expected_total));
  }
  const TypeId id = node.field->type()->id();
  if (id == TypeId::kList || id == TypeId::kLargeList) {
    uint64_t items = 0;
    for (V20Page& page : pages_[node.column]) {
      if (!page.encoding.has_list()) {
        return CorruptFile(path, "column " + std::to_string(node.column) + " ('" +
                                     node.field->name() +
                                     "') is a list without list offsets");
      }
      page.first_item = static_cast<int64_t>(items);
      items += page.encoding.list().num_items();
      if (page.encoding.list().num_items() > kMaxRows || items > kMaxRows) {
        return CorruptFile(path, "column " + std::to_string(node.column) +
                                     " has an implausible item count");
      }
    }
    return CheckColumn(node.children[0], static_cast<int64_t>(items));
  }
  for (const auto& child : node.children) {
    LANCE_RETURN_NOT_OK(CheckColumn(child, expected_total));
  }
  return Status::OK();
}

Result<RecordBatchReaderPtr> V20Reader::Read(std::vector<int> fields, SchemaPtr schema,
                                             int64_t begin, int64_t end,
                                             int64_t batch_size) const {
  std::vector<const FieldNode*> nodes;
  nodes.reserve(fields.size());
  for (int f : fields) nodes.push_back(&top_level_[f]);
  return RecordBatchReaderPtr(new V20Stream(shared_from_this(), std::move(nodes),
                                            std::move(schema), begin, end, batch_size));
}

Result<std::vector<ArrayPtr>> V20Reader::Take(const std::vector<int>& fields,
                                              const std::vector<int64_t>& rows) const {
  // Runs of consecutive rows are read as ranges; every page is fetched once (the top
  // level pages of all runs in one coalesced request).
  std::vector<std::pair<int64_t, int64_t>> runs;  // (start, count)
  for (int64_t row : rows) {
    if (!runs.empty() && runs.back().first + runs.back().second == row) {
      ++runs.back().second;
    } else {
      runs.push_back({row, 1});
    }
  }
  RangeDecoder decoder(shared_from_this());
  std::vector<RangeDecoder::PageRef> needs;
  for (int f : fields) {
    for (const auto& [start, count] : runs)
      decoder.Plan(top_level_[f], start, count, &needs);
  }
  LANCE_RETURN_NOT_OK(decoder.Load(needs));
  std::vector<ArrayPtr> out;
  for (int f : fields) {
    std::vector<ArrayPtr> pieces;
    for (const auto& [start, count] : runs) {
      LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data,
                            decoder.ReadField(top_level_[f], start, count));
      pieces.push_back(MakeArray(std::move(data)));
    }
    if (pieces.size() == 1) {
      out.push_back(std::move(pieces[0]));
    } else if (pieces.empty()) {
      LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(top_level_[f].field->type()));
      LANCE_ASSIGN_OR_RAISE(ArrayPtr empty, builder->Finish());
      out.push_back(std::move(empty));
    } else {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr joined, Concatenate(pieces));
      out.push_back(std::move(joined));
    }
  }
  return out;
}

}  // namespace

Result<std::shared_ptr<VersionReader>> MakeV20Reader(
    std::shared_ptr<const FileContext> context) {
  auto reader = std::make_shared<V20Reader>(std::move(context));
  LANCE_RETURN_NOT_OK(reader->Init());
  return std::shared_ptr<VersionReader>(std::move(reader));
}

}  // namespace lance::format::internal
