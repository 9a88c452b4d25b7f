// SPDX-License-Identifier: Apache-2.0
// LanceFileReader: opens Lance v2.x files and reads v2.0 data.
//
// Open reads the file's tail (64 KiB) -- usually the whole metadata -- and at most one
// more range, then validates every page against the file size and the row counts. A Read
// streams batches: for each batch it works out which pages of which columns hold the
// batch's rows, fetches their buffers with as few (coalesced) reads as possible, decodes
// only the slices it needs and drops pages the stream has moved past.

#include "lance/format/file_reader.h"

#include <google/protobuf/any.pb.h>
#include <google/protobuf/stubs/common.h>
#if GOOGLE_PROTOBUF_VERSION < 4022000
#include <google/protobuf/stubs/logging.h>
#define LANCE_PROTOBUF_HAS_LOG_SILENCER 1
#endif

#include <algorithm>
#include <cstring>
#include <functional>
#include <future>
#include <limits>
#include <map>
#include <utility>

#include "format/proto/encodings_v2_0.pb.h"
#include "format/proto/file2.pb.h"
#include "format/schema_proto.h"
#include "format/v20_decoder.h"
#include "format/v2_container.h"
#include "lance/core/builder.h"
#include "lance/core/concatenate.h"
#include "lance/macros.h"

namespace lance::format {

namespace {

namespace pb = lance::encodings;
using internal::kFooterSize;

constexpr int64_t kTailReadSize = 64 * 1024;
/// Metadata larger than this is taken as damage rather than read.
constexpr int64_t kMaxMetadataBytes = int64_t{256} << 20;
/// Row and value counts beyond this are taken as damage.
constexpr uint64_t kMaxRows = uint64_t{1} << 48;
/// Buffers closer than this are fetched in one read (the gap is read and dropped).
constexpr int64_t kCoalesceGap = 16 * 1024;
/// But a coalesced read never grows past this.
constexpr int64_t kMaxCoalescedRead = int64_t{64} << 20;
/// Concurrent reads per batch on remote stores.
constexpr size_t kMaxConcurrentReads = 16;

struct PageInfo {
  std::vector<uint64_t> buffer_offsets;
  std::vector<uint64_t> buffer_sizes;
  int64_t length = 0;
  /// Position (row or item) of the page's first value within its column.
  int64_t first = 0;
  /// Position of the page's first item in the list's item column (list columns only).
  int64_t first_item = 0;
  pb::ArrayEncoding encoding;
};

struct ColumnInfo {
  std::vector<PageInfo> pages;
  int64_t total = 0;
};

/// A field and the column holding its data (v2.0: the field's pre-order position).
struct FieldNode {
  FieldPtr field;
  int column = -1;
  std::vector<FieldNode> children;
};

Status CorruptFile(const std::string& path, const std::string& message) {
  return Status::Corrupt("Lance file '" + path + "': " + message);
}

/// Adds the file name to an error that does not carry it yet.
Status InFile(const std::string& path, const Status& st) {
  if (st.ok() || st.message().find(path) != std::string::npos) return st;
  return Status(st.code(), "Lance file '" + path + "': " + st.message(), st.retryable());
}

/// Parses a message from untrusted bytes without protobuf's own error logging (damaged
/// strings otherwise print "invalid UTF-8" lines); failures become Corrupt upstream.
bool ParseQuietly(google::protobuf::MessageLite* message, const void* data, size_t size) {
#ifdef LANCE_PROTOBUF_HAS_LOG_SILENCER
  google::protobuf::LogSilencer silence;
#endif
  return message->ParseFromArray(data, static_cast<int>(size));
}

bool RangeInside(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

class FileReaderImpl;

/// One streaming read: its own page cache, so concurrent streams share nothing mutable.
class FileStream : public RecordBatchReader {
 public:
  FileStream(std::shared_ptr<const FileReaderImpl> reader,
             std::vector<const FieldNode*> fields, SchemaPtr schema, int64_t begin,
             int64_t end, int64_t batch_size);

  SchemaPtr schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override;

 private:
  struct PageRef {
    int column;
    int page;
    bool operator<(const PageRef& o) const {
      return column != o.column ? column < o.column : page < o.page;
    }
  };

  /// Pages of `column` overlapping [start, start + count), as [first, last).
  std::pair<int, int> FindPages(int column, int64_t start, int64_t count) const;
  /// Collects the pages needed to read [start, start + count) of `node` and of its
  /// children up to (not into) list items, and forgets pages before `start`.
  void Plan(const FieldNode& node, int64_t start, int64_t count,
            std::vector<PageRef>* needs);
  Status Load(std::vector<PageRef> needs);
  Result<ArrayDataPtr> ReadField(const FieldNode& node, int64_t start, int64_t count);
  Result<ArrayDataPtr> ReadList(const FieldNode& node, int64_t start, int64_t count);
  std::string PageContext(int column, int page) const;

  std::shared_ptr<const FileReaderImpl> reader_;
  std::vector<const FieldNode*> fields_;
  SchemaPtr schema_;
  int64_t next_;
  int64_t end_;
  int64_t batch_size_;
  Status failure_;
  std::map<PageRef, internal::PageBuffers> loaded_;
};

class FileReaderImpl : public LanceFileReader,
                       public std::enable_shared_from_this<FileReaderImpl> {
 public:
  FileReaderImpl(std::string path, std::shared_ptr<io::RandomAccessReader> file,
                 bool remote)
      : path_(std::move(path)), file_(std::move(file)), remote_(remote) {}

  const LanceSchema& schema() const override { return schema_; }
  int64_t num_rows() const override { return num_rows_; }
  LanceFileVersion version() const override { return version_; }
  const std::string& path() const override { return path_; }

  Status Init();

  Result<RecordBatchReaderPtr> Read(const FileReadOptions& options) const override;

  // Shared with FileStream.
  const std::string& file_path() const { return path_; }
  const std::vector<ColumnInfo>& columns() const { return columns_; }
  io::RandomAccessReader& file() const { return *file_; }
  bool remote() const { return remote_; }

 private:
  Result<BufferPtr> ReadExactly(int64_t offset, int64_t length) const;
  Status ParseColumns(const std::vector<std::pair<uint64_t, uint64_t>>& cmo,
                      const Buffer& region, uint64_t region_start);
  Status BuildFields();
  Status CheckColumn(const FieldNode& node, int64_t expected_total);

  std::string path_;
  std::shared_ptr<io::RandomAccessReader> file_;
  bool remote_;
  LanceSchema schema_;
  int64_t num_rows_ = 0;
  LanceFileVersion version_ = LanceFileVersion::kV2_0;
  std::vector<ColumnInfo> columns_;
  std::vector<FieldNode> top_level_;
};

Result<BufferPtr> FileReaderImpl::ReadExactly(int64_t offset, int64_t length) const {
  auto result = file_->ReadAt(offset, length);
  if (!result.ok()) return InFile(path_, result.status());
  if ((*result)->size() != length) {
    return CorruptFile(path_, "short read of " + std::to_string(length) + " bytes at " +
                                  std::to_string(offset) + " (file truncated?)");
  }
  return std::move(result).MoveValueUnsafe();
}

Status FileReaderImpl::Init() {
  const int64_t size = file_->size();
  if (size < kFooterSize) {
    return CorruptFile(path_, "only " + std::to_string(size) +
                                  " bytes, too small for a Lance file footer");
  }
  const int64_t tail_len = std::min(size, kTailReadSize);
  const int64_t tail_start = size - tail_len;
  LANCE_ASSIGN_OR_RAISE(BufferPtr tail, ReadExactly(tail_start, tail_len));
  const uint8_t* footer_bytes = tail->data() + tail_len - kFooterSize;
  if (std::memcmp(footer_bytes + 36, internal::kMagic.data(), 4) != 0) {
    return CorruptFile(path_, "no Lance magic at the end of the file");
  }
  const internal::Footer footer = internal::DecodeFooter(footer_bytes);
  const std::string version_text =
      std::to_string(footer.major) + "." + std::to_string(footer.minor);
  if ((footer.major == 0 && footer.minor == 3) ||
      (footer.major == 2 && footer.minor == 0)) {
    version_ = LanceFileVersion::kV2_0;
  } else if (footer.major == 2 && footer.minor == 1) {
    version_ = LanceFileVersion::kV2_1;
  } else if (footer.major == 0 && (footer.minor == 1 || footer.minor == 2)) {
    return Status::NotImplemented("Lance file '" + path_ +
                                  "' uses the legacy file format " + version_text +
                                  ", which this build cannot read");
  } else {
    return Status::NotImplemented("Lance file '" + path_ + "' has file format version " +
                                  version_text + ", which this build cannot read");
  }

  // Validate the footer against the file before trusting any position in it.
  const uint64_t meta_limit = static_cast<uint64_t>(size - kFooterSize);
  if (footer.num_global_buffers == 0) return CorruptFile(path_, "no global buffers");
  if (!RangeInside(footer.gbo_table_start, uint64_t{16} * footer.num_global_buffers,
                   meta_limit) ||
      !RangeInside(footer.cmo_table_start, uint64_t{16} * footer.num_columns,
                   meta_limit) ||
      footer.column_meta_start > meta_limit) {
    return CorruptFile(path_, "footer tables lie outside the file");
  }
  const uint64_t tables_start = std::min(footer.gbo_table_start, footer.cmo_table_start);
  if (meta_limit - tables_start > static_cast<uint64_t>(kMaxMetadataBytes)) {
    return CorruptFile(path_, "metadata tables are implausibly large");
  }
  // The region we hold in memory, grown (with one more read) to cover what we need.
  BufferPtr region = tail;
  uint64_t region_start = static_cast<uint64_t>(tail_start);
  auto ensure = [&](uint64_t start) -> Status {
    if (start >= region_start) return Status::OK();
    if (static_cast<uint64_t>(size) - start > static_cast<uint64_t>(kMaxMetadataBytes)) {
      return CorruptFile(path_, "metadata region is implausibly large");
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr head,
                          ReadExactly(static_cast<int64_t>(start),
                                      static_cast<int64_t>(region_start - start)));
    LANCE_ASSIGN_OR_RAISE(BufferPtr joined,
                          Buffer::Allocate(size - static_cast<int64_t>(start)));
    std::memcpy(joined->mutable_data(), head->data(), static_cast<size_t>(head->size()));
    std::memcpy(joined->mutable_data() + head->size(), region->data(),
                static_cast<size_t>(region->size()));
    region = joined;
    region_start = start;
    return Status::OK();
  };
  LANCE_RETURN_NOT_OK(ensure(tables_start));
  auto at = [&](uint64_t pos) { return region->data() + (pos - region_start); };

  std::vector<std::pair<uint64_t, uint64_t>> gbo(footer.num_global_buffers);
  for (uint32_t i = 0; i < footer.num_global_buffers; ++i) {
    const uint8_t* p = at(footer.gbo_table_start + 16 * uint64_t{i});
    gbo[i] = {internal::LoadLE<uint64_t>(p), internal::LoadLE<uint64_t>(p + 8)};
  }
  std::vector<std::pair<uint64_t, uint64_t>> cmo(footer.num_columns);
  uint64_t needed = gbo[0].first;
  for (uint32_t i = 0; i < footer.num_columns; ++i) {
    const uint8_t* p = at(footer.cmo_table_start + 16 * uint64_t{i});
    cmo[i] = {internal::LoadLE<uint64_t>(p), internal::LoadLE<uint64_t>(p + 8)};
    if (!RangeInside(cmo[i].first, cmo[i].second, meta_limit)) {
      return CorruptFile(
          path_, "metadata of column " + std::to_string(i) + " lies outside the file");
    }
    needed = std::min(needed, cmo[i].first);
  }
  if (!RangeInside(gbo[0].first, gbo[0].second, meta_limit)) {
    return CorruptFile(path_, "the file descriptor lies outside the file");
  }
  LANCE_RETURN_NOT_OK(ensure(needed));

  lance::file::v2::FileDescriptor descriptor;
  if (!ParseQuietly(&descriptor, at(gbo[0].first), gbo[0].second)) {
    return CorruptFile(path_, "the file descriptor does not parse");
  }
  if (descriptor.length() > kMaxRows) {
    return CorruptFile(path_,
                       "implausible row count " + std::to_string(descriptor.length()));
  }
  num_rows_ = static_cast<int64_t>(descriptor.length());
  auto schema = SchemaFromProto(descriptor.schema());
  if (!schema.ok()) return InFile(path_, schema.status());
  schema_ = std::move(schema).MoveValueUnsafe();

  LANCE_RETURN_NOT_OK(ParseColumns(cmo, *region, region_start));
  if (version_ != LanceFileVersion::kV2_0) return Status::OK();
  return BuildFields();
}

Status FileReaderImpl::ParseColumns(const std::vector<std::pair<uint64_t, uint64_t>>& cmo,
                                    const Buffer& region, uint64_t region_start) {
  const uint64_t data_limit = static_cast<uint64_t>(file_->size() - kFooterSize);
  columns_.resize(cmo.size());
  for (size_t c = 0; c < cmo.size(); ++c) {
    lance::file::v2::ColumnMetadata meta;
    if (!ParseQuietly(&meta, region.data() + (cmo[c].first - region_start),
                      cmo[c].second)) {
      return CorruptFile(path_,
                         "metadata of column " + std::to_string(c) + " does not parse");
    }
    ColumnInfo& column = columns_[c];
    column.pages.resize(static_cast<size_t>(meta.pages_size()));
    uint64_t total = 0;
    for (int p = 0; p < meta.pages_size(); ++p) {
      const auto& page = meta.pages(p);
      PageInfo& info = column.pages[p];
      const std::string where =
          "column " + std::to_string(c) + " page " + std::to_string(p);
      if (page.buffer_offsets_size() != page.buffer_sizes_size()) {
        return CorruptFile(path_, where + " has mismatched buffer tables");
      }
      for (int b = 0; b < page.buffer_offsets_size(); ++b) {
        if (!RangeInside(page.buffer_offsets(b), page.buffer_sizes(b), data_limit)) {
          return CorruptFile(path_, where + " has a buffer outside the file");
        }
      }
      info.buffer_offsets.assign(page.buffer_offsets().begin(),
                                 page.buffer_offsets().end());
      info.buffer_sizes.assign(page.buffer_sizes().begin(), page.buffer_sizes().end());
      if (page.length() > kMaxRows || total + page.length() > kMaxRows) {
        return CorruptFile(path_, where + " has an implausible length");
      }
      info.length = static_cast<int64_t>(page.length());
      info.first = static_cast<int64_t>(total);
      total += page.length();
      if (version_ != LanceFileVersion::kV2_0) continue;
      if (page.encoding().location_case() != lance::file::v2::Encoding::kDirect) {
        return Status::NotImplemented("Lance file '" + path_ + "': " + where +
                                      " uses a deferred or empty encoding");
      }
      google::protobuf::Any any;
      const std::string& direct = page.encoding().direct().encoding();
      if (!ParseQuietly(&any, direct.data(), direct.size()) ||
          any.type_url() != internal::kArrayEncodingUrl ||
          !ParseQuietly(&info.encoding, any.value().data(), any.value().size())) {
        return CorruptFile(path_, where + " has an unreadable encoding");
      }
    }
    column.total = static_cast<int64_t>(total);
  }
  return Status::OK();
}

Status FileReaderImpl::BuildFields() {
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
  for (const auto& f : schema_.schema()->fields()) top_level_.push_back(build(f));
  if (next_column != static_cast<int>(columns_.size())) {
    if (next_column < static_cast<int>(columns_.size())) {
      // Lance 0.13-0.15 stored strings as list<u8> (two columns); we don't read that.
      return Status::NotImplemented(
          "Lance file '" + path_ + "' has " + std::to_string(columns_.size()) +
          " columns for " + std::to_string(next_column) +
          " fields (an early 0.3 layout this build cannot read)");
    }
    return CorruptFile(path_, std::to_string(columns_.size()) + " columns for " +
                                  std::to_string(next_column) + " fields");
  }
  for (const auto& node : top_level_) LANCE_RETURN_NOT_OK(CheckColumn(node, num_rows_));
  return Status::OK();
}

// Every column must hold exactly the values its parent implies, so that no read can run
// past a column's pages, and lists must say how many items their pages hold.
Status FileReaderImpl::CheckColumn(const FieldNode& node, int64_t expected_total) {
  ColumnInfo& column = columns_[node.column];
  if (column.total != expected_total) {
    return CorruptFile(path_, "column " + std::to_string(node.column) + " ('" +
                                  node.field->name() + "') holds " +
                                  std::to_string(column.total) + " values, expected " +
                                  std::to_string(expected_total));
  }
  const TypeId id = node.field->type()->id();
  if (id == TypeId::kList || id == TypeId::kLargeList) {
    uint64_t items = 0;
    for (PageInfo& page : column.pages) {
      if (!page.encoding.has_list()) {
        return CorruptFile(path_, "column " + std::to_string(node.column) + " ('" +
                                      node.field->name() +
                                      "') is a list without list offsets");
      }
      page.first_item = static_cast<int64_t>(items);
      items += page.encoding.list().num_items();
      if (page.encoding.list().num_items() > kMaxRows || items > kMaxRows) {
        return CorruptFile(path_, "column " + std::to_string(node.column) +
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

Result<RecordBatchReaderPtr> FileReaderImpl::Read(const FileReadOptions& options) const {
  if (version_ != LanceFileVersion::kV2_0) {
    return Status::NotImplemented("file '" + path_ + "' is Lance file format " +
                                  std::string(FileVersionString(version_)) +
                                  ", which this build cannot read yet");
  }
  if (options.batch_size <= 0) {
    return Status::Invalid("reading Lance file '" + path_ +
                           "': batch_size must be positive");
  }
  if (options.offset < 0 || options.offset > num_rows_) {
    return Status::Invalid("reading Lance file '" + path_ + "': offset " +
                           std::to_string(options.offset) + " outside its " +
                           std::to_string(num_rows_) + " rows");
  }
  int64_t length = options.length;
  if (length < 0) {
    length = num_rows_ - options.offset;
  } else if (length > num_rows_ - options.offset) {
    return Status::Invalid("reading Lance file '" + path_ + "': rows [" +
                           std::to_string(options.offset) + ", +" +
                           std::to_string(length) + ") go past its " +
                           std::to_string(num_rows_) + " rows");
  }
  std::vector<const FieldNode*> fields;
  std::vector<FieldPtr> schema_fields;
  if (options.field_ids.empty()) {
    for (const auto& node : top_level_) fields.push_back(&node);
  } else {
    for (int32_t id : options.field_ids) {
      const int index = schema_.TopLevelIndexOfId(id);
      if (index < 0) {
        return Status::Invalid("reading Lance file '" + path_ + "': field id " +
                               std::to_string(id) +
                               " is not a top-level field of the file");
      }
      fields.push_back(&top_level_[index]);
    }
  }
  for (const FieldNode* node : fields) schema_fields.push_back(node->field);
  auto out_schema = lance::schema(std::move(schema_fields), schema_.schema()->metadata());
  return RecordBatchReaderPtr(
      new FileStream(shared_from_this(), std::move(fields), std::move(out_schema),
                     options.offset, options.offset + length, options.batch_size));
}

// ---------------------------------------------------------------------------------------
// FileStream

FileStream::FileStream(std::shared_ptr<const FileReaderImpl> reader,
                       std::vector<const FieldNode*> fields, SchemaPtr schema,
                       int64_t begin, int64_t end, int64_t batch_size)
    : reader_(std::move(reader)),
      fields_(std::move(fields)),
      schema_(std::move(schema)),
      next_(begin),
      end_(end),
      batch_size_(batch_size) {}

std::string FileStream::PageContext(int column, int page) const {
  return "Lance file '" + reader_->file_path() + "', column " + std::to_string(column) +
         " page " + std::to_string(page);
}

std::pair<int, int> FileStream::FindPages(int column, int64_t start,
                                          int64_t count) const {
  const auto& pages = reader_->columns()[column].pages;
  if (count <= 0) return {0, 0};
  // First page whose end is past `start`.
  auto first = std::partition_point(pages.begin(), pages.end(), [&](const PageInfo& p) {
    return p.first + p.length <= start;
  });
  auto last = first;
  while (last != pages.end() && last->first < start + count) ++last;
  return {static_cast<int>(first - pages.begin()),
          static_cast<int>(last - pages.begin())};
}

void FileStream::Plan(const FieldNode& node, int64_t start, int64_t count,
                      std::vector<PageRef>* needs) {
  const TypeId id = node.field->type()->id();
  if (id == TypeId::kStruct) {
    // The struct header column has no buffers.
    for (const auto& child : node.children) Plan(child, start, count, needs);
    return;
  }
  // Streams move forward: pages that end before `start` are done with.
  for (auto it = loaded_.lower_bound({node.column, 0});
       it != loaded_.end() && it->first.column == node.column;) {
    const PageInfo& page = reader_->columns()[node.column].pages[it->first.page];
    it = page.first + page.length <= start ? loaded_.erase(it) : std::next(it);
  }
  auto [first, last] = FindPages(node.column, start, count);
  for (int p = first; p < last; ++p) needs->push_back({node.column, p});
}

Status FileStream::Load(std::vector<PageRef> needs) {
  struct Piece {
    uint64_t offset;
    uint64_t size;
    PageRef page;
    size_t index;
  };
  std::vector<Piece> pieces;
  for (const PageRef& ref : needs) {
    if (loaded_.count(ref) > 0) continue;
    const PageInfo& page = reader_->columns()[ref.column].pages[ref.page];
    internal::PageBuffers& buffers = loaded_[ref];
    buffers.buffers.resize(page.buffer_offsets.size());
    for (size_t b = 0; b < page.buffer_offsets.size(); ++b) {
      if (page.buffer_sizes[b] == 0) {
        buffers.buffers[b] = Buffer::FromString("");
      } else {
        pieces.push_back({page.buffer_offsets[b], page.buffer_sizes[b], ref, b});
      }
    }
  }
  if (pieces.empty()) return Status::OK();
  std::sort(pieces.begin(), pieces.end(),
            [](const Piece& a, const Piece& b) { return a.offset < b.offset; });
  struct Range {
    uint64_t start;
    uint64_t end;
    size_t first_piece;
    size_t end_piece;
    BufferPtr data;
  };
  std::vector<Range> ranges;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const uint64_t end = pieces[i].offset + pieces[i].size;
    if (!ranges.empty()) {
      Range& r = ranges.back();
      const bool close = pieces[i].offset <= r.end + kCoalesceGap;
      const uint64_t merged_end = std::max(r.end, end);
      if (close && merged_end - r.start <= static_cast<uint64_t>(kMaxCoalescedRead)) {
        r.end = merged_end;
        r.end_piece = i + 1;
        continue;
      }
    }
    ranges.push_back({pieces[i].offset, end, i, i + 1, nullptr});
  }
  auto fetch = [this](Range* r) -> Status {
    const int64_t length = static_cast<int64_t>(r->end - r->start);
    auto result = reader_->file().ReadAt(static_cast<int64_t>(r->start), length);
    if (!result.ok()) return InFile(reader_->file_path(), result.status());
    if ((*result)->size() != length) {
      return CorruptFile(reader_->file_path(),
                         "short read of page data (file truncated?)");
    }
    r->data = std::move(result).MoveValueUnsafe();
    return Status::OK();
  };
  if (reader_->remote() && ranges.size() > 1) {
    // Remote stores are latency-bound: keep several requests in flight.
    for (size_t begin = 0; begin < ranges.size(); begin += kMaxConcurrentReads) {
      const size_t stop = std::min(ranges.size(), begin + kMaxConcurrentReads);
      std::vector<std::future<Status>> inflight;
      for (size_t i = begin; i < stop; ++i) {
        inflight.push_back(std::async(std::launch::async, fetch, &ranges[i]));
      }
      Status first_error;
      for (auto& f : inflight) {
        Status st = f.get();
        if (first_error.ok() && !st.ok()) first_error = st;
      }
      LANCE_RETURN_NOT_OK(first_error);
    }
  } else {
    for (Range& r : ranges) LANCE_RETURN_NOT_OK(fetch(&r));
  }
  for (const Range& r : ranges) {
    for (size_t i = r.first_piece; i < r.end_piece; ++i) {
      const Piece& piece = pieces[i];
      loaded_[piece.page].buffers[piece.index] =
          Buffer::Slice(r.data, static_cast<int64_t>(piece.offset - r.start),
                        static_cast<int64_t>(piece.size));
    }
  }
  return Status::OK();
}

Result<ArrayDataPtr> FileStream::ReadField(const FieldNode& node, int64_t start,
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
  const auto& pages = reader_->columns()[node.column].pages;
  auto [first, last] = FindPages(node.column, start, count);
  std::vector<ArrayPtr> pieces;
  int64_t produced = 0;
  for (int p = first; p < last; ++p) {
    const PageInfo& page = pages[p];
    const int64_t s = std::max(start, page.first) - page.first;
    const int64_t e = std::min(start + count, page.first + page.length) - page.first;
    auto it = loaded_.find({node.column, p});
    if (it == loaded_.end()) {
      return Status::Invalid("internal: page " + std::to_string(p) + " of column " +
                             std::to_string(node.column) + " was not loaded");
    }
    internal::PageDecoder decoder(PageContext(node.column, p), &it->second);
    LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data,
                          decoder.DecodeLeaf(page.encoding, type, page.length, s, e - s));
    produced += e - s;
    pieces.push_back(MakeArray(std::move(data)));
  }
  if (produced != count) {
    return CorruptFile(reader_->file_path(), "column " + std::to_string(node.column) +
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

Result<ArrayDataPtr> FileStream::ReadList(const FieldNode& node, int64_t start,
                                          int64_t count) {
  const auto& pages = reader_->columns()[node.column].pages;
  auto [first, last] = FindPages(node.column, start, count);
  std::vector<int64_t> offsets;  // item positions within the item column
  offsets.reserve(static_cast<size_t>(count) + 1);
  BitmapBuilder validity;
  int64_t null_count = 0;
  for (int p = first; p < last; ++p) {
    const PageInfo& page = pages[p];
    const int64_t s = std::max(start, page.first) - page.first;
    const int64_t e = std::min(start + count, page.first + page.length) - page.first;
    auto it = loaded_.find({node.column, p});
    if (it == loaded_.end()) return Status::Invalid("internal: list page not loaded");
    internal::PageDecoder decoder(PageContext(node.column, p), &it->second);
    LANCE_ASSIGN_OR_RAISE(
        internal::ListSlice slice,
        decoder.DecodeListOffsets(page.encoding, page.length, s, e - s));
    // Rows of consecutive pages must continue in the item column where the previous
    // page stopped.
    const int64_t slice_start = page.first_item + slice.offsets[0];
    if (offsets.empty()) {
      offsets.push_back(slice_start);
    } else if (offsets.back() != slice_start) {
      return CorruptFile(reader_->file_path(),
                         "column " + std::to_string(node.column) +
                             ": list items are not contiguous across pages");
    }
    for (size_t i = 1; i < slice.offsets.size(); ++i) {
      offsets.push_back(page.first_item + slice.offsets[i]);
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
    return CorruptFile(reader_->file_path(), "column " + std::to_string(node.column) +
                                                 " has no data for some requested rows");
  }
  if (offsets.empty()) offsets.push_back(0);
  const int64_t item_start = offsets.front();
  const int64_t item_count = offsets.back() - item_start;
  const FieldNode& item = node.children[0];
  std::vector<PageRef> needs;
  Plan(item, item_start, item_count, &needs);
  LANCE_RETURN_NOT_OK(Load(std::move(needs)));
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
      return Status::Invalid("Lance file '" + reader_->file_path() +
                             "': " + std::to_string(item_count) +
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

Result<RecordBatchPtr> FileStream::Next() {
  LANCE_RETURN_NOT_OK(failure_);
  if (next_ >= end_) {
    loaded_.clear();
    return RecordBatchPtr();
  }
  const int64_t n = std::min(batch_size_, end_ - next_);
  auto run = [&]() -> Result<RecordBatchPtr> {
    std::vector<PageRef> needs;
    for (const FieldNode* node : fields_) Plan(*node, next_, n, &needs);
    LANCE_RETURN_NOT_OK(Load(std::move(needs)));
    std::vector<ArrayPtr> columns;
    for (const FieldNode* node : fields_) {
      LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data, ReadField(*node, next_, n));
      columns.push_back(MakeArray(std::move(data)));
    }
    return RecordBatch::Make(schema_, n, std::move(columns));
  };
  auto batch = run();
  if (!batch.ok()) {
    failure_ = batch.status();
    loaded_.clear();
    return failure_;
  }
  next_ += n;
  return batch;
}

}  // namespace

Result<std::shared_ptr<LanceFileReader>> LanceFileReader::Open(
    std::shared_ptr<io::ObjectStore> store, std::string path, FileReaderOptions options) {
  if (!store)
    return Status::Invalid("opening Lance file '" + path + "': the store is null");
  // A known size lets remote stores skip the HEAD; stores that look the size up anyway
  // return the object's real size, checked below.
  auto file = options.file_size >= 0 ? store->OpenReaderWithSize(path, options.file_size)
                                     : store->OpenReader(path);
  if (!file.ok()) return InFile(path, file.status());
  if (options.file_size >= 0 && options.file_size != (*file)->size()) {
    return CorruptFile(path, "expected " + std::to_string(options.file_size) +
                                 " bytes but the object has " +
                                 std::to_string((*file)->size()));
  }
  auto reader = std::make_shared<FileReaderImpl>(path, std::move(file).MoveValueUnsafe(),
                                                 !store->is_local());
  LANCE_RETURN_NOT_OK(reader->Init());
  return std::shared_ptr<LanceFileReader>(std::move(reader));
}

Result<std::shared_ptr<LanceFileReader>> LanceFileReader::OpenUri(
    std::string_view uri, const io::StorageOptions& storage_options,
    std::shared_ptr<io::CredentialsSource> credentials, FileReaderOptions options) {
  // A failed resolve is returned as is: its message already says what it can (the URI
  // itself may hold user info that must not be echoed).
  LANCE_ASSIGN_OR_RAISE(
      io::ResolvedLocation loc,
      io::ResolveObjectStore(uri, storage_options, std::move(credentials)));
  if (loc.path.empty()) {
    return Status::Invalid("opening Lance file '" + std::string(uri) +
                           "': the URI names a store root, not a file");
  }
  auto reader = Open(std::move(loc.store), std::move(loc.path), options);
  if (!reader.ok()) {
    return reader.status().WithContext("opening Lance file '" + std::string(uri) + "'");
  }
  return reader;
}

Result<TablePtr> LanceFileReader::ReadTable(const FileReadOptions& options) const {
  LANCE_ASSIGN_OR_RAISE(RecordBatchReaderPtr stream, Read(options));
  return stream->ToTable();
}

}  // namespace lance::format
