// SPDX-License-Identifier: Apache-2.0
// Internal: reading one page of one leaf column of a 2.1 / 2.2 file, for every
// structural page layout Lance writes:
//   * mini-block: values compressed in small chunks (plus chunk metadata, an optional
//     dictionary and an optional repetition index);
//   * full-zip: each value zipped with its control word (rep/def), for large values;
//   * constant: one value for every visible item, or all null (2.1's all-null layout);
//   * blob: not read (NotImplemented).
// A page decodes whole (scans) or by rows (Take: only the chunks / values holding them,
// in two rounds of I/O: metadata, then data).

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/reader_internal.h"
#include "format/structural/levels.h"
#include "lance/core/type.h"
#include "lance/format/file_version.h"
#include "lance/result.h"

namespace lance::format::structural {

struct ByteRange {
  uint64_t offset = 0;
  uint64_t size = 0;
};

/// The rows a Take asked of one page, in three steps; each step's buffers are the
/// ranges the previous step returned, fetched, in order.
class PageTake {
 public:
  virtual ~PageTake() = default;
  virtual std::vector<ByteRange> MetadataRanges() = 0;
  virtual Result<std::vector<ByteRange>> DataRanges(std::vector<BufferPtr> metadata) = 0;
  /// The requested rows, in ascending order.
  virtual Result<LeafRows> Decode(std::vector<BufferPtr> data) = 0;
};

/// Reads one page in ascending row ranges (a scan), fetching only the chunks / values
/// the ranges need plus some read-ahead, and keeping what the next range needs. Each
/// range takes rounds of Missing / Provide (metadata first, then data) until nothing is
/// missing, then Read. Memory is bounded by the read-ahead and the rows asked for, not
/// by the page. Not thread-safe; one per stream.
class PageCursor {
 public:
  virtual ~PageCursor() = default;
  /// The byte ranges still missing to return rows [begin, end); empty when Read can.
  virtual Result<std::vector<ByteRange>> Missing(int64_t begin, int64_t end) = 0;
  /// The buffers of the ranges the last Missing returned, in order.
  virtual Status Provide(std::vector<BufferPtr> buffers) = 0;
  /// Rows [begin, end) of the page. REQUIRES: Missing(begin, end) returned nothing.
  virtual Result<LeafRows> Read(int64_t begin, int64_t end) = 0;
};

/// One page of a leaf column. Immutable and thread-safe after Make.
class PageReader {
 public:
  virtual ~PageReader() = default;

  const Levels& levels() const { return levels_; }
  int64_t num_rows() const { return num_rows_; }
  const std::string& where() const { return where_; }

  /// The ranges a full decode needs, in the order DecodeAll takes them.
  virtual std::vector<ByteRange> AllRanges() const = 0;
  virtual Result<LeafRows> DecodeAll(std::vector<BufferPtr> buffers) const = 0;
  /// Random access to `rows` (ascending, unique, inside the page). The default reads
  /// the whole page.
  virtual Result<std::unique_ptr<PageTake>> StartTake(std::vector<int64_t> rows) const;
  /// A cursor for scanning the page. The default decodes the whole page once.
  virtual Result<std::unique_ptr<PageCursor>> OpenCursor() const;

 protected:
  PageReader(std::string where, Levels levels, int64_t num_rows, DataTypePtr type)
      : where_(std::move(where)),
        levels_(std::move(levels)),
        num_rows_(num_rows),
        type_(std::move(type)) {}
  /// Adds this page to an error.
  Status Here(const Status& st) const;
  Status Corrupt(const std::string& message) const;

  std::string where_;
  Levels levels_;
  int64_t num_rows_;
  /// The leaf's Arrow type.
  DataTypePtr type_;
};

/// Parses the page's layout. `where` names the file, column and page for messages.
/// \return Corrupt for a damaged layout; NotImplemented for layouts this build does not
/// read (blob) or a layout not allowed in `version`.
Result<std::unique_ptr<PageReader>> MakePageReader(const internal::PageMeta& page,
                                                   const DataTypePtr& leaf_type,
                                                   LanceFileVersion version,
                                                   std::string where);

/// Bytes a scan reads ahead of what a range needs, per column (so that small batches
/// do not turn into small reads).
inline constexpr uint64_t kScanReadAhead = 4 << 20;

/// The rows `rows` (ascending, unique) of `all` (a whole page), in order.
Result<LeafRows> GatherRows(const Levels& levels, const LeafRows& all,
                            const std::vector<int64_t>& rows);

}  // namespace lance::format::structural
