// SPDX-License-Identifier: Apache-2.0
// Reading Lance file formats 2.1 and 2.2 ("structural" formats).
//
// Only leaf fields have columns, in pre-order of the schema: a struct (unless packed)
// and a list / map contribute layers to their leaves' repetition and definition levels
// instead (levels.h). A read decodes, per leaf column, the pages holding the rows
// (pages.h), rebuilds each leaf's path with a PathBuilder, and assembles the top-level
// arrays: a struct's validity and a list's offsets come from the first leaf below it.
//
// Scans open a cursor per page that fetches only the chunks / values each batch needs
// (plus read-ahead, kScanReadAhead) and keeps what the next batch needs; every batch
// fetches what it misses across all its columns in one coalesced request. Take reads only
// the chunks / values holding the rows.

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <utility>

#include "format/reader_internal.h"
#include "format/structural/field_tree.h"
#include "format/structural/levels.h"
#include "format/structural/pages.h"
#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/macros.h"

namespace lance::format::internal {

namespace {

using structural::ByteRange;
using structural::LeafRows;
using structural::Levels;
using structural::NodeKind;
using structural::PageCursor;
using structural::PageReader;
using structural::PathBuilder;

using Node = structural::FieldNode;
using Leaf = structural::LeafInfo;

class StructuralReader : public VersionReader,
                         public std::enable_shared_from_this<StructuralReader> {
 public:
  explicit StructuralReader(std::shared_ptr<const FileContext> context)
      : context_(std::move(context)) {}

  Status Init();

  Result<RecordBatchReaderPtr> Read(std::vector<int> fields, SchemaPtr schema,
                                    int64_t begin, int64_t end,
                                    int64_t batch_size) const override;
  Result<std::vector<ArrayPtr>> Take(const std::vector<int>& fields,
                                     const std::vector<int64_t>& rows) const override;

  const FileContext& context() const { return *context_; }
  const Node& top(int field) const { return top_level_[field]; }
  const Leaf& leaf(int i) const { return leaves_[i]; }
  const PageMeta& page_meta(int leaf, size_t page) const {
    return context_->columns[leaf].pages[page];
  }
  const PageReader& page(int leaf, size_t page) const { return *pages_[leaf][page]; }
  size_t num_pages(int leaf) const { return pages_[leaf].size(); }
  size_t num_leaves() const { return leaves_.size(); }
  /// Leaves below top-level field `field`, in order.
  std::vector<int> LeavesOf(int field) const { return tree_.LeavesOf(field); }
  /// Pages [first, last) of a leaf overlapping rows [begin, end).
  std::pair<size_t, size_t> FindPages(int leaf, int64_t begin, int64_t end) const {
    const auto& pages = context_->columns[leaf].pages;
    auto first = std::partition_point(pages.begin(), pages.end(), [&](const PageMeta& p) {
      return p.first + p.length <= begin;
    });
    auto last = first;
    while (last != pages.end() && last->first < end) ++last;
    return {static_cast<size_t>(first - pages.begin()),
            static_cast<size_t>(last - pages.begin())};
  }
  Result<ArrayDataPtr> Assemble(const Node& node, std::vector<PathBuilder>& paths,
                                const std::vector<int>& leaf_slot) const;

 private:
  std::shared_ptr<const FileContext> context_;
  structural::FieldTree tree_;
  const std::vector<Node>& top_level_ = tree_.top_level;
  const std::vector<Leaf>& leaves_ = tree_.leaves;
  std::vector<std::vector<std::unique_ptr<PageReader>>> pages_;  // [leaf][page]
};

Status StructuralReader::Init() {
  const std::string& path = context_->path;
  LANCE_ASSIGN_OR_RAISE(structural::FieldTree tree,
                        structural::FieldTree::Make(*context_->schema.schema(),
                                                    "Lance file '" + path + "'"));
  tree_ = std::move(tree);
  if (leaves_.size() != context_->columns.size()) {
    return CorruptFile(path, std::to_string(context_->columns.size()) + " columns for " +
                                 std::to_string(leaves_.size()) + " leaf fields");
  }
  pages_.resize(leaves_.size());
  for (size_t l = 0; l < leaves_.size(); ++l) {
    const ColumnMeta& column = context_->columns[l];
    if (column.total != context_->num_rows) {
      return CorruptFile(path, "column " + std::to_string(l) + " ('" + leaves_[l].name +
                                   "') holds " + std::to_string(column.total) +
                                   " rows, expected " +
                                   std::to_string(context_->num_rows));
    }
    for (size_t p = 0; p < column.pages.size(); ++p) {
      std::string where = "Lance file '" + path + "', column " + std::to_string(l) +
                          " ('" + leaves_[l].name + "') page " + std::to_string(p);
      LANCE_ASSIGN_OR_RAISE(
          auto reader, structural::MakePageReader(column.pages[p], leaves_[l].type,
                                                  context_->version, std::move(where)));
      if (reader->levels().layers.size() != leaves_[l].path.size()) {
        return CorruptFile(path, "column " + std::to_string(l) + " ('" + leaves_[l].name +
                                     "') page " + std::to_string(p) + " has " +
                                     std::to_string(reader->levels().layers.size()) +
                                     " layers for a path of " +
                                     std::to_string(leaves_[l].path.size()) + " fields");
      }
      pages_[l].push_back(std::move(reader));
    }
  }
  return Status::OK();
}

/// Sets a leaf's validity on its values (which carry none), honouring their offset.
Result<ArrayDataPtr> WithValidity(const ArrayDataPtr& values,
                                  const PathBuilder::Node& node) {
  auto out = std::make_shared<ArrayData>(*values);
  if (out->type->id() == TypeId::kNull) {
    // Every slot of a null array is null; it has no validity bitmap.
    out->buffers.assign(1, nullptr);
    out->null_count = out->length;
    return out;
  }
  if (node.null_count == 0) {
    if (!out->buffers.empty()) out->buffers[0] = nullptr;
    out->null_count = 0;
    return out;
  }
  BufferPtr bitmap = node.validity;
  if (out->offset != 0) {
    LANCE_ASSIGN_OR_RAISE(
        bitmap, Buffer::Allocate(bit_util::BytesForBits(out->offset + out->length)));
    bit_util::CopyBits(node.validity->data(), 0, out->length, bitmap->mutable_data(),
                       out->offset);
  }
  if (out->buffers.empty()) out->buffers.resize(1);
  out->buffers[0] = std::move(bitmap);
  out->null_count = node.null_count;
  return out;
}

Result<ArrayDataPtr> StructuralReader::Assemble(const Node& node,
                                                std::vector<PathBuilder>& paths,
                                                const std::vector<int>& leaf_slot) const {
  PathBuilder& path = paths[leaf_slot[node.first_leaf]];
  const PathBuilder::Node& out = path.node(node.depth);
  const DataTypePtr& type = node.field->type();
  switch (node.kind) {
    case Node::Kind::kLeaf: {
      ArrayDataPtr values = path.values();
      if (!values && out.length == 0) {
        LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(type));
        LANCE_ASSIGN_OR_RAISE(values, builder->FinishData());
      }
      if (!values || values->length != out.length) {
        return CorruptFile(context_->path,
                           "field '" + leaves_[node.leaf].name + "' has " +
                               std::to_string(values ? values->length : 0) +
                               " values for " + std::to_string(out.length) + " slots");
      }
      LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data, WithValidity(values, out));
      data->type = type;
      return data;
    }
    case Node::Kind::kStruct: {
      std::vector<ArrayDataPtr> children;
      for (const Node& child : node.children) {
        LANCE_ASSIGN_OR_RAISE(ArrayDataPtr c, Assemble(child, paths, leaf_slot));
        if (c->length != out.length) {
          return CorruptFile(context_->path, "the children of struct '" +
                                                 node.field->name() +
                                                 "' disagree on their length");
        }
        children.push_back(std::move(c));
      }
      return ArrayData::Make(type, out.length, {out.validity}, out.null_count, 0,
                             std::move(children));
    }
    case Node::Kind::kList: {
      LANCE_ASSIGN_OR_RAISE(ArrayDataPtr items,
                            Assemble(node.children[0], paths, leaf_slot));
      const bool large = type->id() == TypeId::kLargeList;
      const int64_t n = out.length;
      if (static_cast<int64_t>(out.offsets.size()) != n + 1 ||
          out.offsets.back() != items->length) {
        return CorruptFile(context_->path, "list '" + node.field->name() +
                                               "' offsets do not match its items");
      }
      BufferPtr offsets;
      if (large) {
        LANCE_ASSIGN_OR_RAISE(offsets, Buffer::CopyFrom(out.offsets.data(), (n + 1) * 8));
      } else {
        if (items->length > std::numeric_limits<int32_t>::max()) {
          return Status::Invalid(
              "Lance file '" + context_->path + "': list '" + node.field->name() +
              "' has too many items for 32-bit offsets in one batch; read "
              "with a smaller batch_size");
        }
        LANCE_ASSIGN_OR_RAISE(offsets, Buffer::AllocateForOverwrite((n + 1) * 4));
        for (int64_t i = 0; i <= n; ++i) {
          offsets->mutable_data_as<int32_t>()[i] = static_cast<int32_t>(out.offsets[i]);
        }
      }
      return ArrayData::Make(type, n, {out.validity, std::move(offsets)}, out.null_count,
                             0, {std::move(items)});
    }
  }
  return Status::Invalid("unreachable");
}

class StructuralStream : public internal::BatchedStream {
 public:
  StructuralStream(std::shared_ptr<const StructuralReader> reader,
                   std::vector<int> fields, SchemaPtr schema, int64_t begin, int64_t end,
                   int64_t batch_size)
      : BatchedStream(std::move(schema), begin, end, batch_size),
        reader_(std::move(reader)),
        fields_(std::move(fields)) {
    for (int f : fields_) {
      for (int leaf : reader_->LeavesOf(f)) {
        if (std::find(leaves_.begin(), leaves_.end(), leaf) == leaves_.end()) {
          leaves_.push_back(leaf);
        }
      }
    }
  }

 protected:
  Result<RecordBatchPtr> ReadRows(int64_t begin, int64_t n) override {
    const int64_t end = begin + n;
    // Drop the cursors of pages the stream has passed; open those this batch needs.
    for (auto it = cursors_.begin(); it != cursors_.end();) {
      const PageMeta& meta = reader_->page_meta(it->first.first, it->first.second);
      it = meta.first + meta.length <= begin ? cursors_.erase(it) : std::next(it);
    }
    struct Need {
      std::pair<int, size_t> page;
      int64_t begin, end;  // rows within the page
    };
    std::vector<Need> needs;
    for (int leaf : leaves_) {
      auto [first, last] = reader_->FindPages(leaf, begin, end);
      for (size_t p = first; p < last; ++p) {
        const PageMeta& meta = reader_->page_meta(leaf, p);
        if (cursors_.count({leaf, p}) == 0) {
          LANCE_ASSIGN_OR_RAISE(cursors_[std::make_pair(leaf, p)],
                                reader_->page(leaf, p).OpenCursor());
        }
        needs.push_back({{leaf, p},
                         std::max(begin, meta.first) - meta.first,
                         std::min(end, meta.first + meta.length) - meta.first});
      }
    }
    // Rounds of I/O (metadata, then data) shared by all columns, until nothing is
    // missing.
    for (int round = 0; round < 4; ++round) {
      std::vector<std::vector<BufferPtr>> buffers(needs.size());
      std::vector<RangeRequest> requests;
      std::vector<size_t> asking;
      for (size_t i = 0; i < needs.size(); ++i) {
        PageCursor& cursor = *cursors_.at(needs[i].page);
        auto missing = cursor.Missing(needs[i].begin, needs[i].end);
        if (!missing.ok()) {
          return Where(reader_->page(needs[i].page.first, needs[i].page.second),
                       missing.status());
        }
        if (missing->empty()) continue;
        asking.push_back(i);
        buffers[i].resize(missing->size());
        for (size_t r = 0; r < missing->size(); ++r) {
          requests.push_back({(*missing)[r].offset, (*missing)[r].size, &buffers[i][r]});
        }
      }
      if (asking.empty()) break;
      LANCE_RETURN_NOT_OK(FetchRanges(reader_->context(), std::move(requests)));
      for (size_t i : asking) {
        Status st = cursors_.at(needs[i].page)->Provide(std::move(buffers[i]));
        if (!st.ok())
          return Where(reader_->page(needs[i].page.first, needs[i].page.second), st);
      }
    }
    // Rebuild every leaf's path over [begin, end).
    std::vector<PathBuilder> paths;
    std::vector<int> slot(reader_->num_leaves(), -1);
    for (int leaf : leaves_) {
      slot[leaf] = static_cast<int>(paths.size());
      paths.emplace_back(reader_->leaf(leaf).path);
      PathBuilder& path = paths.back();
      auto [first, last] = reader_->FindPages(leaf, begin, end);
      for (size_t p = first; p < last; ++p) {
        const PageMeta& meta = reader_->page_meta(leaf, p);
        const PageReader& page = reader_->page(leaf, p);
        const int64_t s = std::max(begin, meta.first) - meta.first;
        const int64_t e = std::min(end, meta.first + meta.length) - meta.first;
        auto rows = cursors_.at({leaf, p})->Read(s, e);
        if (!rows.ok()) return Where(page, rows.status());
        LANCE_RETURN_NOT_OK(Where(page, path.Append(page.levels(), *rows)));
      }
      LANCE_RETURN_NOT_OK(path.Finish());
    }
    std::vector<ArrayPtr> columns;
    for (int f : fields_) {
      LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data,
                            reader_->Assemble(reader_->top(f), paths, slot));
      if (data->length != end - begin) {
        return CorruptFile(reader_->context().path,
                           "field '" + reader_->top(f).field->name() + "' produced " +
                               std::to_string(data->length) + " rows for " +
                               std::to_string(end - begin));
      }
      columns.push_back(MakeArray(std::move(data)));
    }
    return RecordBatch::Make(schema_, end - begin, std::move(columns));
  }

  void Release() override { cursors_.clear(); }

 private:
  static Status Where(const PageReader& page, const Status& st) {
    if (st.ok() || st.message().find(page.where()) != std::string::npos) return st;
    return Status(st.code(), page.where() + ": " + st.message(), st.retryable());
  }

  std::shared_ptr<const StructuralReader> reader_;
  std::vector<int> fields_;
  std::vector<int> leaves_;
  std::map<std::pair<int, size_t>, std::unique_ptr<structural::PageCursor>> cursors_;
};

Result<RecordBatchReaderPtr> StructuralReader::Read(std::vector<int> fields,
                                                    SchemaPtr schema, int64_t begin,
                                                    int64_t end,
                                                    int64_t batch_size) const {
  return RecordBatchReaderPtr(new StructuralStream(
      shared_from_this(), std::move(fields), std::move(schema), begin, end, batch_size));
}

Result<std::vector<ArrayPtr>> StructuralReader::Take(
    const std::vector<int>& fields, const std::vector<int64_t>& rows) const {
  std::vector<int> leaves;
  for (int f : fields) {
    for (int leaf : LeavesOf(f)) {
      if (std::find(leaves.begin(), leaves.end(), leaf) == leaves.end())
        leaves.push_back(leaf);
    }
  }
  // One PageTake per (leaf, page) holding requested rows; three rounds of I/O shared by
  // all of them: metadata, data, decode.
  struct Job {
    int leaf;
    size_t page;
    std::unique_ptr<structural::PageTake> take;
    std::vector<BufferPtr> buffers;
  };
  std::vector<Job> jobs;
  for (int leaf : leaves) {
    const auto& pages = context_->columns[leaf].pages;
    size_t i = 0;
    for (size_t p = 0; p < pages.size() && i < rows.size(); ++p) {
      std::vector<int64_t> in_page;
      while (i < rows.size() && rows[i] < pages[p].first + pages[p].length) {
        in_page.push_back(rows[i++] - pages[p].first);
      }
      if (in_page.empty()) continue;
      LANCE_ASSIGN_OR_RAISE(auto take, pages_[leaf][p]->StartTake(std::move(in_page)));
      jobs.push_back({leaf, p, std::move(take), {}});
    }
  }
  auto fetch_round = [&](auto ranges_of) -> Status {
    std::vector<RangeRequest> requests;
    std::vector<std::vector<ByteRange>> all(jobs.size());
    for (size_t j = 0; j < jobs.size(); ++j) {
      LANCE_ASSIGN_OR_RAISE(all[j], ranges_of(jobs[j]));
      jobs[j].buffers.assign(all[j].size(), nullptr);
      for (size_t r = 0; r < all[j].size(); ++r) {
        requests.push_back({all[j][r].offset, all[j][r].size, &jobs[j].buffers[r]});
      }
    }
    return FetchRanges(*context_, std::move(requests));
  };
  LANCE_RETURN_NOT_OK(fetch_round([](Job& job) -> Result<std::vector<ByteRange>> {
    return job.take->MetadataRanges();
  }));
  LANCE_RETURN_NOT_OK(fetch_round([](Job& job) -> Result<std::vector<ByteRange>> {
    return job.take->DataRanges(std::move(job.buffers));
  }));
  std::vector<PathBuilder> paths;
  std::vector<int> slot(leaves_.size(), -1);
  for (int leaf : leaves) {
    slot[leaf] = static_cast<int>(paths.size());
    paths.emplace_back(leaves_[leaf].path);
  }
  for (Job& job : jobs) {
    const PageReader& page = *pages_[job.leaf][job.page];
    auto decoded = job.take->Decode(std::move(job.buffers));
    if (!decoded.ok()) {
      const Status& st = decoded.status();
      if (st.message().find(page.where()) != std::string::npos) return st;
      return Status(st.code(), page.where() + ": " + st.message(), st.retryable());
    }
    Status st = paths[slot[job.leaf]].Append(page.levels(), *decoded);
    if (!st.ok()) return Status(st.code(), page.where() + ": " + st.message());
  }
  for (PathBuilder& path : paths) LANCE_RETURN_NOT_OK(path.Finish());
  std::vector<ArrayPtr> out;
  for (int f : fields) {
    LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data, Assemble(top_level_[f], paths, slot));
    if (data->length != static_cast<int64_t>(rows.size())) {
      return CorruptFile(context_->path, "take of field '" + top_level_[f].field->name() +
                                             "' produced " +
                                             std::to_string(data->length) + " rows for " +
                                             std::to_string(rows.size()));
    }
    out.push_back(MakeArray(std::move(data)));
  }
  return out;
}

}  // namespace

Result<std::shared_ptr<VersionReader>> MakeStructuralReader(
    std::shared_ptr<const FileContext> context) {
  auto reader = std::make_shared<StructuralReader>(std::move(context));
  LANCE_RETURN_NOT_OK(reader->Init());
  return std::shared_ptr<VersionReader>(std::move(reader));
}

}  // namespace lance::format::internal
