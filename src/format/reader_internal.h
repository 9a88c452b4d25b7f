// SPDX-License-Identifier: Apache-2.0
// Internal: what the container part of LanceFileReader (file_reader.cc) hands to the
// reader of one file version, and the interface each version implements.
//
// The container reads the footer, the file descriptor (schema, rows) and every column's
// metadata, validating positions against the file. It knows nothing of encodings: page
// encodings stay serialized (type URL + bytes) until a version's reader parses them.
// v2.0 lives in v2_0/, 2.1 and 2.2 (the "structural" versions) in structural/.

#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/record_batch.h"
#include "lance/format/file_reader.h"
#include "lance/format/file_version.h"
#include "lance/format/lance_schema.h"
#include "lance/io/object_store.h"
#include "lance/macros.h"
#include "lance/result.h"

namespace google::protobuf {
class MessageLite;
}

namespace lance::format::internal {

/// Row and value counts beyond this are taken as damage.
inline constexpr uint64_t kMaxRows = uint64_t{1} << 48;

struct PageMeta {
  std::vector<uint64_t> buffer_offsets;  ///< absolute, checked against the file
  std::vector<uint64_t> buffer_sizes;
  /// Rows of the page (2.1+), or values of the column (2.0: items under a list).
  int64_t length = 0;
  /// Position (row or value) of the page's first entry within its column.
  int64_t first = 0;
  uint64_t priority = 0;
  /// The page encoding as written: a google.protobuf.Any's type URL and value.
  std::string encoding_url;
  std::string encoding_value;
};

struct ColumnMeta {
  std::vector<PageMeta> pages;
  /// Sum of the pages' lengths.
  int64_t total = 0;
  /// Column-level buffers (2.1+ may use them for dictionaries shared by pages).
  std::vector<uint64_t> buffer_offsets;
  std::vector<uint64_t> buffer_sizes;
};

/// The parsed metadata of one file plus the handle to read its data. Immutable once
/// built; shared by every read of the file.
struct FileContext {
  std::string path;
  std::shared_ptr<io::RandomAccessReader> file;
  /// Remote stores are latency-bound: reads are issued concurrently there.
  bool remote = false;
  LanceSchema schema;
  int64_t num_rows = 0;
  LanceFileVersion version = LanceFileVersion::kV2_0;
  std::vector<ColumnMeta> columns;
};

/// The reading half of one file version.
class VersionReader {
 public:
  virtual ~VersionReader() = default;

  /// Streams rows [begin, end) of the top-level fields `fields` (indices into the
  /// file schema's top-level fields) in batches of at most `batch_size` rows, with
  /// `schema` as the output schema. REQUIRES: arguments validated by the container.
  virtual Result<RecordBatchReaderPtr> Read(std::vector<int> fields, SchemaPtr schema,
                                            int64_t begin, int64_t end,
                                            int64_t batch_size) const = 0;

  /// The rows `rows` (strictly ascending, inside the file) of the top-level fields
  /// `fields`, one array per field. Reads only what holds those rows.
  virtual Result<std::vector<ArrayPtr>> Take(const std::vector<int>& fields,
                                             const std::vector<int64_t>& rows) const = 0;
};

/// v2.0 (v2_0/reader.cc). Validates the columns against the schema.
Result<std::shared_ptr<VersionReader>> MakeV20Reader(
    std::shared_ptr<const FileContext> context);
/// 2.1 and 2.2 (structural/reader.cc). Validates the columns against the schema.
Result<std::shared_ptr<VersionReader>> MakeStructuralReader(
    std::shared_ptr<const FileContext> context);

/// The batching the streams of every version's reader share: rows [begin, end) in batches
/// of at most `batch_size`. The first failure is returned again by every later Next(): a
/// stream cannot resume in the middle of a batch.
class BatchedStream : public RecordBatchReader {
 public:
  BatchedStream(SchemaPtr schema, int64_t begin, int64_t end, int64_t batch_size)
      : schema_(std::move(schema)), next_(begin), end_(end), batch_size_(batch_size) {}

  SchemaPtr schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    LANCE_RETURN_NOT_OK(failure_);
    if (next_ >= end_) {
      Release();
      return RecordBatchPtr();
    }
    const int64_t n = std::min(batch_size_, end_ - next_);
    auto batch = ReadRows(next_, n);
    if (!batch.ok()) {
      failure_ = batch.status();
      Release();
      return failure_;
    }
    next_ += n;
    return batch;
  }

 protected:
  /// Rows [begin, begin + n) as a batch of schema_.
  virtual Result<RecordBatchPtr> ReadRows(int64_t begin, int64_t n) = 0;
  /// Drops what the stream keeps between batches, once it has ended or failed.
  virtual void Release() {}

  const SchemaPtr schema_;

 private:
  int64_t next_;
  const int64_t end_;
  const int64_t batch_size_;
  Status failure_;
};

// ---------------------------------------------------------------------------------------
// Helpers shared by the readers

Status CorruptFile(const std::string& path, const std::string& message);
/// Adds the file name to an error that does not carry it yet.
Status InFile(const std::string& path, const Status& st);
/// Parses a message from untrusted bytes without protobuf's own error logging (damaged
/// strings otherwise print "invalid UTF-8" lines).
bool ParseQuietly(google::protobuf::MessageLite* message, const void* data, size_t size);
inline bool RangeInside(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

/// One byte range of the file to fetch; `out` receives exactly `size` bytes.
struct RangeRequest {
  uint64_t offset = 0;
  uint64_t size = 0;
  BufferPtr* out = nullptr;
};

/// Fetches every request, coalescing ranges closer than a small gap into one read and,
/// on remote stores, keeping several reads in flight. A short read is Corrupt (the file
/// is truncated); errors name the file.
Status FetchRanges(const FileContext& file, std::vector<RangeRequest> requests);

/// The number of rows a read of `options` covers in a file of `rows` rows (length -1:
/// to the end), or Invalid naming the file for a bad batch size or a range outside it.
Result<int64_t> ResolveReadLength(const std::string& path, const FileReadOptions& options,
                                  int64_t rows);

/// Top-level field positions and the output schema for `field_ids` (empty: every
/// field), or Invalid naming the file for an id that is not a top-level field.
Result<std::pair<std::vector<int>, SchemaPtr>> ResolveTopLevelFields(
    const FileContext& file, const std::vector<int32_t>& field_ids);

/// Reads the rows `sorted` (ascending, distinct) of the top-level fields `fields`, one
/// column per field.
using ReadSortedRows = std::function<Result<std::vector<ArrayPtr>>(
    const std::vector<int>& fields, const std::vector<int64_t>& sorted)>;

/// LanceFileReader::Take over `file`: checks `indices`, resolves `field_ids`, has `read`
/// read the distinct rows in ascending order, and puts them back in the order, with the
/// repeats, of `indices`.
Result<RecordBatchPtr> TakeRows(const FileContext& file,
                                const std::vector<int64_t>& indices,
                                const std::vector<int32_t>& field_ids,
                                const ReadSortedRows& read);

}  // namespace lance::format::internal
