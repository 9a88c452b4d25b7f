// SPDX-License-Identifier: Apache-2.0
// Internal: the interface between the container part of LanceFileWriter
// (file_writer.cc: slicing batches into whole rows, deciding when a column's page is
// full, laying out buffers, metadata and footer) and the encoder of one file version
// (v2_0/encoder.cc, structural/encoder.cc for 2.1 and 2.2).

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lance/core/array_data.h"
#include "lance/format/file_writer.h"
#include "lance/format/lance_schema.h"
#include "lance/result.h"

namespace lance::format::internal {

/// One page ready to be written.
struct EncodedPage {
  std::vector<BufferPtr> buffers;
  /// The page encoding: a google.protobuf.Any's type URL and serialized value.
  std::string encoding_url;
  std::string encoding_value;
  /// Rows (2.1+) or values (2.0) in the page.
  int64_t length = 0;
};

/// The encoding half of one file version, for one file.
class FileEncoder {
 public:
  virtual ~FileEncoder() = default;

  virtual int num_columns() const = 0;
  /// The columns [first, end) that top-level field `field` feeds.
  virtual std::pair<int, int> columns_of(int field) const = 0;
  /// Appends rows [offset, offset + length) (relative to data.offset) of top-level
  /// field `field`. The container only ever passes whole top-level rows.
  virtual Status Append(int field, const ArrayData& data, int64_t offset,
                        int64_t length) = 0;
  /// Encoded (or to be encoded) bytes buffered for the column's current page.
  virtual int64_t buffered_bytes(int column) const = 0;
  /// Whether the column's current page holds anything.
  virtual bool has_buffered(int column) const = 0;
  /// Encodes the column's buffered page and starts a new one.
  virtual Result<EncodedPage> FinishPage(int column) = 0;

  /// The column encoding recorded in ColumnMetadata (an Any, serialized): `values` in
  /// every version, the pages carry the real encodings (file_writer.cc).
  std::string ColumnEncoding(int column) const;
  /// DataFile.fields and DataFile.column_indices of the file; the columns are all the
  /// file's, 0 .. num_columns() - 1.
  virtual std::vector<int32_t> DataFileFields() const = 0;
  std::vector<int32_t> DataFileColumnIndices() const;
  /// Footer version (major, minor) and the DataFile's (major, minor).
  virtual std::pair<uint16_t, uint16_t> FooterVersion() const = 0;
  virtual std::pair<uint32_t, uint32_t> DataFileVersion() const = 0;
};

/// v2.0 (v2_0/encoder.cc).
Result<std::unique_ptr<FileEncoder>> MakeV20Encoder(const LanceSchema& schema,
                                                    const FileWriterOptions& options);
/// 2.1 and 2.2 (structural/encoder.cc).
Result<std::unique_ptr<FileEncoder>> MakeStructuralEncoder(
    const LanceSchema& schema, const FileWriterOptions& options);

}  // namespace lance::format::internal
