// SPDX-License-Identifier: Apache-2.0
// LanceFileReader, the container part: opens a Lance file of any version, parses and
// validates the footer, the file descriptor and every column's metadata, then hands
// reads to the reader of the file's version (v2_0/, structural/ for 2.1 and 2.2,
// legacy/ for 0.1/0.2 files, whose container differs).
//
// Open reads the file's tail (64 KiB) -- usually the whole metadata -- and at most one
// more range. No length or offset from the file is used before it is checked against
// the file size.

#include "lance/format/file_reader.h"

#include <google/protobuf/stubs/common.h>
#if GOOGLE_PROTOBUF_VERSION < 4022000
#include <google/protobuf/stubs/logging.h>
#define LANCE_PROTOBUF_HAS_LOG_SILENCER 1
#endif
#include <google/protobuf/any.pb.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <utility>

#include "format/legacy/legacy_reader.h"
#include "format/proto/file2.pb.h"
#include "format/reader_internal.h"
#include "format/schema_proto.h"
#include "format/v2_container.h"
#include "lance/core/compute.h"
#include "lance/io/executor.h"
#include "lance/macros.h"

namespace lance::format {

namespace internal {

Status CorruptFile(const std::string& path, const std::string& message) {
  return Status::Corrupt("Lance file '" + path + "': " + message);
}

Status InFile(const std::string& path, const Status& st) {
  if (st.ok() || st.message().find(path) != std::string::npos) return st;
  return Status(st.code(), "Lance file '" + path + "': " + st.message(), st.retryable());
}

bool ParseQuietly(google::protobuf::MessageLite* message, const void* data, size_t size) {
#ifdef LANCE_PROTOBUF_HAS_LOG_SILENCER
  google::protobuf::LogSilencer silence;
#endif
  if (size > static_cast<size_t>(std::numeric_limits<int>::max())) return false;
  return message->ParseFromArray(data, static_cast<int>(size));
}

namespace {

/// Buffers closer than this are fetched in one read (the gap is read and dropped).
constexpr uint64_t kCoalesceGap = 16 * 1024;
/// But a coalesced read never grows past this.
constexpr uint64_t kMaxCoalescedRead = uint64_t{64} << 20;
/// Concurrent reads on remote stores.
constexpr size_t kMaxConcurrentReads = 16;

}  // namespace

Result<int64_t> ResolveReadLength(const std::string& path, const FileReadOptions& options,
                                  int64_t rows) {
  if (options.batch_size <= 0) {
    return Status::Invalid("reading Lance file '", path,
                           "': batch_size must be positive");
  }
  if (options.offset < 0 || options.offset > rows) {
    return Status::Invalid("reading Lance file '", path, "': offset ", options.offset,
                           " outside its ", rows, " rows");
  }
  if (options.length < 0) return rows - options.offset;
  if (options.length > rows - options.offset) {
    return Status::Invalid("reading Lance file '", path, "': rows [", options.offset,
                           ", +", options.length, ") go past its ", rows, " rows");
  }
  return options.length;
}

Result<std::pair<std::vector<int>, SchemaPtr>> ResolveTopLevelFields(
    const FileContext& file, const std::vector<int32_t>& field_ids) {
  const Schema& schema = *file.schema.schema();
  std::vector<int> fields;
  if (field_ids.empty()) {
    fields.resize(static_cast<size_t>(schema.num_fields()));
    std::iota(fields.begin(), fields.end(), 0);
  } else {
    for (int32_t id : field_ids) {
      const int index = file.schema.TopLevelIndexOfId(id);
      if (index < 0) {
        return Status::Invalid("reading Lance file '", file.path, "': field id ", id,
                               " is not a top-level field of the file");
      }
      fields.push_back(index);
    }
  }
  std::vector<FieldPtr> out;
  out.reserve(fields.size());
  for (int f : fields) out.push_back(schema.field(f));
  return std::make_pair(std::move(fields),
                        lance::schema(std::move(out), schema.metadata()));
}

Result<RecordBatchPtr> TakeRows(const FileContext& file,
                                const std::vector<int64_t>& indices,
                                const std::vector<int32_t>& field_ids,
                                const ReadSortedRows& read) {
  for (int64_t i : indices) {
    if (i < 0 || i >= file.num_rows) {
      return Status::Invalid("taking rows of Lance file '" + file.path + "': row " +
                             std::to_string(i) + " is outside its " +
                             std::to_string(file.num_rows) + " rows");
    }
  }
  LANCE_ASSIGN_OR_RAISE(auto fields, ResolveTopLevelFields(file, field_ids));
  std::vector<int64_t> sorted = indices;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> columns, read(fields.first, sorted));
  // Back in the caller's order, with its repeats.
  LANCE_RETURN_NOT_OK(compute::ReorderRows(sorted, indices, &columns));
  return RecordBatch::Make(fields.second, static_cast<int64_t>(indices.size()),
                           std::move(columns));
}

Status FetchRanges(const FileContext& file, std::vector<RangeRequest> requests) {
  requests.erase(std::remove_if(requests.begin(), requests.end(),
                                [](const RangeRequest& r) {
                                  if (r.size == 0) *r.out = Buffer::FromString("");
                                  return r.size == 0;
                                }),
                 requests.end());
  if (requests.empty()) return Status::OK();
  std::sort(
      requests.begin(), requests.end(),
      [](const RangeRequest& a, const RangeRequest& b) { return a.offset < b.offset; });
  struct Range {
    uint64_t start;
    uint64_t end;
    size_t first;
    size_t stop;
    BufferPtr data;
  };
  std::vector<Range> ranges;
  for (size_t i = 0; i < requests.size(); ++i) {
    const uint64_t end = requests[i].offset + requests[i].size;
    if (!ranges.empty()) {
      Range& r = ranges.back();
      const uint64_t merged_end = std::max(r.end, end);
      if (requests[i].offset <= r.end + kCoalesceGap &&
          merged_end - r.start <= kMaxCoalescedRead) {
        r.end = merged_end;
        r.stop = i + 1;
        continue;
      }
    }
    ranges.push_back({requests[i].offset, end, i, i + 1, nullptr});
  }
  auto fetch = [&file](Range* r) -> Status {
    const int64_t length = static_cast<int64_t>(r->end - r->start);
    auto result = file.file->ReadAt(static_cast<int64_t>(r->start), length);
    if (!result.ok()) return InFile(file.path, result.status());
    if ((*result)->size() != length) {
      return CorruptFile(file.path, "short read of " + std::to_string(length) +
                                        " bytes at " + std::to_string(r->start) +
                                        " (file truncated?)");
    }
    r->data = std::move(result).MoveValueUnsafe();
    return Status::OK();
  };
  if (file.remote && ranges.size() > 1) {
    // Remote stores are latency-bound: keep several requests in flight, as one task
    // group on the process's I/O executor (a sliding window, not batches); the first
    // failure cancels the reads not started yet.
    io::TaskGroup group(io::Executor::Default(), static_cast<int>(kMaxConcurrentReads));
    const io::CancellationToken cancel = group.token();
    for (Range& r : ranges) {
      Status submitted = group.Submit([&fetch, &r, cancel] {
        if (cancel.cancelled()) return Status::Cancelled("range read cancelled");
        Status st = fetch(&r);
        if (!st.ok()) cancel.Cancel();
        return st;
      });
      if (!submitted.ok()) break;
    }
    LANCE_RETURN_NOT_OK(group.Wait());
  } else {
    for (Range& r : ranges) LANCE_RETURN_NOT_OK(fetch(&r));
  }
  for (const Range& r : ranges) {
    for (size_t i = r.first; i < r.stop; ++i) {
      *requests[i].out =
          Buffer::Slice(r.data, static_cast<int64_t>(requests[i].offset - r.start),
                        static_cast<int64_t>(requests[i].size));
    }
  }
  return Status::OK();
}

}  // namespace internal

namespace {

using internal::CorruptFile;
using internal::InFile;
using internal::kFooterSize;
using internal::ParseQuietly;
using internal::RangeInside;

constexpr int64_t kTailReadSize = 64 * 1024;
/// Metadata larger than this is taken as damage rather than read.
constexpr int64_t kMaxMetadataBytes = int64_t{256} << 20;

class FileReaderImpl : public LanceFileReader {
 public:
  FileReaderImpl(std::shared_ptr<const internal::FileContext> context,
                 std::shared_ptr<internal::VersionReader> reader)
      : context_(std::move(context)), reader_(std::move(reader)) {}

  const LanceSchema& schema() const override { return context_->schema; }
  int64_t num_rows() const override { return context_->num_rows; }
  LanceFileVersion version() const override { return context_->version; }
  const std::string& path() const override { return context_->path; }

  Result<RecordBatchReaderPtr> Read(const FileReadOptions& options) const override {
    LANCE_ASSIGN_OR_RAISE(
        int64_t length,
        internal::ResolveReadLength(context_->path, options, context_->num_rows));
    LANCE_ASSIGN_OR_RAISE(auto fields, ResolveFields(options.field_ids));
    return reader_->Read(std::move(fields.first), std::move(fields.second),
                         options.offset, options.offset + length, options.batch_size);
  }

  Result<RecordBatchPtr> Take(const std::vector<int64_t>& indices,
                              const std::vector<int32_t>& field_ids) const override {
    return internal::TakeRows(
        *context_, indices, field_ids,
        [this](const std::vector<int>& fields, const std::vector<int64_t>& sorted) {
          return reader_->Take(fields, sorted);
        });
  }

 private:
  Result<std::pair<std::vector<int>, SchemaPtr>> ResolveFields(
      const std::vector<int32_t>& field_ids) const {
    return internal::ResolveTopLevelFields(*context_, field_ids);
  }

  std::shared_ptr<const internal::FileContext> context_;
  std::shared_ptr<internal::VersionReader> reader_;
};

Result<BufferPtr> ReadExactly(io::RandomAccessReader& file, const std::string& path,
                              int64_t offset, int64_t length) {
  auto result = file.ReadAt(offset, length);
  if (!result.ok()) return InFile(path, result.status());
  if ((*result)->size() != length) {
    return CorruptFile(path, "short read of " + std::to_string(length) + " bytes at " +
                                 std::to_string(offset) + " (file truncated?)");
  }
  return std::move(result).MoveValueUnsafe();
}

Status ParseColumns(internal::FileContext* ctx,
                    const std::vector<std::pair<uint64_t, uint64_t>>& cmo,
                    const Buffer& region, uint64_t region_start) {
  const std::string& path = ctx->path;
  const uint64_t data_limit = static_cast<uint64_t>(ctx->file->size() - kFooterSize);
  ctx->columns.resize(cmo.size());
  for (size_t c = 0; c < cmo.size(); ++c) {
    lance::file::v2::ColumnMetadata meta;
    if (!ParseQuietly(&meta, region.data() + (cmo[c].first - region_start),
                      cmo[c].second)) {
      return CorruptFile(path,
                         "metadata of column " + std::to_string(c) + " does not parse");
    }
    internal::ColumnMeta& column = ctx->columns[c];
    if (meta.buffer_offsets_size() != meta.buffer_sizes_size()) {
      return CorruptFile(path,
                         "column " + std::to_string(c) + " has mismatched buffer tables");
    }
    for (int b = 0; b < meta.buffer_offsets_size(); ++b) {
      if (!RangeInside(meta.buffer_offsets(b), meta.buffer_sizes(b), data_limit)) {
        return CorruptFile(
            path, "column " + std::to_string(c) + " has a buffer outside the file");
      }
    }
    column.buffer_offsets.assign(meta.buffer_offsets().begin(),
                                 meta.buffer_offsets().end());
    column.buffer_sizes.assign(meta.buffer_sizes().begin(), meta.buffer_sizes().end());
    column.pages.resize(static_cast<size_t>(meta.pages_size()));
    uint64_t total = 0;
    for (int p = 0; p < meta.pages_size(); ++p) {
      const auto& page = meta.pages(p);
      internal::PageMeta& info = column.pages[p];
      const std::string where =
          "column " + std::to_string(c) + " page " + std::to_string(p);
      if (page.buffer_offsets_size() != page.buffer_sizes_size()) {
        return CorruptFile(path, where + " has mismatched buffer tables");
      }
      for (int b = 0; b < page.buffer_offsets_size(); ++b) {
        if (!RangeInside(page.buffer_offsets(b), page.buffer_sizes(b), data_limit)) {
          return CorruptFile(path, where + " has a buffer outside the file");
        }
      }
      info.buffer_offsets.assign(page.buffer_offsets().begin(),
                                 page.buffer_offsets().end());
      info.buffer_sizes.assign(page.buffer_sizes().begin(), page.buffer_sizes().end());
      if (page.length() > internal::kMaxRows ||
          total + page.length() > internal::kMaxRows) {
        return CorruptFile(path, where + " has an implausible length");
      }
      info.length = static_cast<int64_t>(page.length());
      info.first = static_cast<int64_t>(total);
      info.priority = page.priority();
      total += page.length();
      if (page.encoding().location_case() != lance::file::v2::Encoding::kDirect) {
        return Status::NotImplemented("Lance file '", path, "': ", where,
                                      " uses a deferred or empty encoding, which this "
                                      "build cannot read");
      }
      google::protobuf::Any any;
      const std::string& direct = page.encoding().direct().encoding();
      if (!ParseQuietly(&any, direct.data(), direct.size())) {
        return CorruptFile(path, where + " has an unreadable encoding");
      }
      info.encoding_url = any.type_url();
      info.encoding_value = any.value();
    }
    column.total = static_cast<int64_t>(total);
  }
  return Status::OK();
}

Result<std::shared_ptr<LanceFileReader>> OpenV2(
    std::string path, std::shared_ptr<io::RandomAccessReader> file, bool remote,
    LanceFileVersion version, BufferPtr tail, int64_t tail_start) {
  auto ctx = std::make_shared<internal::FileContext>();
  ctx->path = std::move(path);
  ctx->file = std::move(file);
  ctx->remote = remote;
  ctx->version = version;
  const std::string& p = ctx->path;
  const int64_t size = ctx->file->size();
  const internal::Footer footer =
      internal::DecodeFooter(tail->data() + tail->size() - kFooterSize);

  // Validate the footer against the file before trusting any position in it.
  const uint64_t meta_limit = static_cast<uint64_t>(size - kFooterSize);
  if (footer.num_global_buffers == 0) return CorruptFile(p, "no global buffers");
  if (!RangeInside(footer.gbo_table_start, uint64_t{16} * footer.num_global_buffers,
                   meta_limit) ||
      !RangeInside(footer.cmo_table_start, uint64_t{16} * footer.num_columns,
                   meta_limit) ||
      footer.column_meta_start > meta_limit) {
    return CorruptFile(p, "footer tables lie outside the file");
  }
  const uint64_t tables_start = std::min(footer.gbo_table_start, footer.cmo_table_start);
  if (meta_limit - tables_start > static_cast<uint64_t>(kMaxMetadataBytes)) {
    return CorruptFile(p, "metadata tables are implausibly large");
  }
  // The region we hold in memory, grown (with one more read) to cover what we need.
  BufferPtr region = tail;
  uint64_t region_start = static_cast<uint64_t>(tail_start);
  auto ensure = [&](uint64_t start) -> Status {
    if (start >= region_start) return Status::OK();
    if (static_cast<uint64_t>(size) - start > static_cast<uint64_t>(kMaxMetadataBytes)) {
      return CorruptFile(p, "metadata region is implausibly large");
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr head,
                          ReadExactly(*ctx->file, p, static_cast<int64_t>(start),
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
    const uint8_t* e = at(footer.gbo_table_start + 16 * uint64_t{i});
    gbo[i] = {LoadLE<uint64_t>(e), LoadLE<uint64_t>(e + 8)};
  }
  std::vector<std::pair<uint64_t, uint64_t>> cmo(footer.num_columns);
  uint64_t needed = gbo[0].first;
  for (uint32_t i = 0; i < footer.num_columns; ++i) {
    const uint8_t* e = at(footer.cmo_table_start + 16 * uint64_t{i});
    cmo[i] = {LoadLE<uint64_t>(e), LoadLE<uint64_t>(e + 8)};
    if (!RangeInside(cmo[i].first, cmo[i].second, meta_limit)) {
      return CorruptFile(
          p, "metadata of column " + std::to_string(i) + " lies outside the file");
    }
    needed = std::min(needed, cmo[i].first);
  }
  if (!RangeInside(gbo[0].first, gbo[0].second, meta_limit)) {
    return CorruptFile(p, "the file descriptor lies outside the file");
  }
  LANCE_RETURN_NOT_OK(ensure(needed));

  lance::file::v2::FileDescriptor descriptor;
  if (!ParseQuietly(&descriptor, at(gbo[0].first), gbo[0].second)) {
    return CorruptFile(p, "the file descriptor does not parse");
  }
  if (descriptor.length() > internal::kMaxRows) {
    return CorruptFile(p, "implausible row count " + std::to_string(descriptor.length()));
  }
  ctx->num_rows = static_cast<int64_t>(descriptor.length());
  auto schema = SchemaFromProto(descriptor.schema());
  if (!schema.ok()) return InFile(p, schema.status());
  ctx->schema = std::move(schema).MoveValueUnsafe();
  LANCE_RETURN_NOT_OK(ParseColumns(ctx.get(), cmo, *region, region_start));

  std::shared_ptr<internal::VersionReader> reader;
  if (version == LanceFileVersion::kV2_0) {
    LANCE_ASSIGN_OR_RAISE(reader, internal::MakeV20Reader(ctx));
  } else {
    LANCE_ASSIGN_OR_RAISE(reader, internal::MakeStructuralReader(ctx));
  }
  return std::shared_ptr<LanceFileReader>(
      std::make_shared<FileReaderImpl>(std::move(ctx), std::move(reader)));
}

Result<std::shared_ptr<LanceFileReader>> OpenAny(
    std::string path, std::shared_ptr<io::RandomAccessReader> file, bool remote) {
  const int64_t size = file->size();
  // Both containers end with u16 major, u16 minor, "LANC"; the legacy footer is 16
  // bytes, the v2 footer 40.
  if (size < 16) {
    return CorruptFile(path, "only " + std::to_string(size) +
                                 " bytes, too small for a Lance file footer");
  }
  const int64_t tail_len = std::min(size, kTailReadSize);
  const int64_t tail_start = size - tail_len;
  LANCE_ASSIGN_OR_RAISE(BufferPtr tail, ReadExactly(*file, path, tail_start, tail_len));
  const uint8_t* end = tail->data() + tail_len;
  if (std::memcmp(end - 4, internal::kMagic.data(), 4) != 0) {
    return CorruptFile(path, "no Lance magic at the end of the file");
  }
  const uint16_t major = LoadLE<uint16_t>(end - 8);
  const uint16_t minor = LoadLE<uint16_t>(end - 6);
  const std::string version_text = std::to_string(major) + "." + std::to_string(minor);
  if (major == 0 && (minor == 1 || minor == 2)) {
    return legacy::OpenLegacyFile(std::move(path), std::move(file), remote,
                                  std::move(tail), tail_start);
  }
  if (size < kFooterSize) {
    return CorruptFile(path, "only " + std::to_string(size) +
                                 " bytes, too small for a Lance v2 file footer");
  }
  LanceFileVersion version;
  if ((major == 0 && minor == 3) || (major == 2 && minor == 0)) {
    version = LanceFileVersion::kV2_0;
  } else if (major == 2 && minor == 1) {
    version = LanceFileVersion::kV2_1;
  } else if (major == 2 && minor == 2) {
    version = LanceFileVersion::kV2_2;
  } else {
    return Status::NotImplemented("Lance file '" + path + "' has file format version " +
                                  version_text + ", which this build cannot read");
  }
  return OpenV2(std::move(path), std::move(file), remote, version, std::move(tail),
                tail_start);
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
  // From here on the file is named as the user knows it (an absolute local path, a
  // full URI), not by its root-relative store key: that is the reader's path().
  std::string shown = store->DisplayPath(path);
  if (!file.ok()) return InFile(shown, file.status());
  if (options.file_size >= 0 && options.file_size != (*file)->size()) {
    return CorruptFile(shown, "expected " + std::to_string(options.file_size) +
                                  " bytes but the object has " +
                                  std::to_string((*file)->size()));
  }
  return OpenAny(std::move(shown), std::move(file).MoveValueUnsafe(), !store->is_local());
}

Result<std::shared_ptr<LanceFileReader>> LanceFileReader::OpenUri(
    std::string_view uri, const io::StorageAccess& access, FileReaderOptions options) {
  // A failed resolve is returned as is: its message already says what it can (the URI
  // itself may hold user info that must not be echoed).
  LANCE_ASSIGN_OR_RAISE(io::ResolvedLocation loc, io::ResolveObjectStore(uri, access));
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
