// SPDX-License-Identifier: Apache-2.0
#include "table/deletion.h"

#include <algorithm>
#include <iterator>

#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"
#include "lance/macros.h"
#include "table/ids.h"
#include "table/roaring.h"

namespace lance::table_internal {
namespace {

SchemaPtr DeletionSchema() {
  static const SchemaPtr kSchema =
      schema({field("row_id", uint32(), /*nullable=*/false)});
  return kSchema;
}

Result<DeletionVector> ParseArrowDeletions(std::string_view bytes, uint64_t limit,
                                           const std::string& name) {
  auto buffer = Buffer::CopyFrom(bytes.data(), static_cast<int64_t>(bytes.size()));
  if (!buffer.ok()) return buffer.status();
  auto reader = ipc::IpcFileReader::Open(*buffer);
  if (!reader.ok()) {
    return Status::Corrupt("Deletion file " + name + " is not a valid Arrow IPC file: " +
                           reader.status().message());
  }
  const SchemaPtr& schema = (*reader)->schema();
  // Lance checks the schema exactly; we accept a nullable flag as long as no value is
  // null, since the offsets are what matters.
  if (schema->num_fields() != 1 || schema->field(0)->name() != "row_id" ||
      schema->field(0)->type()->id() != TypeId::kUInt32) {
    return Status::Corrupt("Deletion file " + name + " has schema " + schema->ToString() +
                           "; expected {row_id: uint32 not null}");
  }
  DeletionVector out;
  for (int b = 0; b < (*reader)->num_record_batches(); ++b) {
    auto batch = (*reader)->ReadRecordBatch(b);
    if (!batch.ok()) {
      return Status::Corrupt("Deletion file " + name + ": " + batch.status().message());
    }
    const auto& column = (*batch)->column(0);
    if (column->null_count() != 0) {
      return Status::Corrupt("Deletion file " + name + " holds null row ids");
    }
    const auto& values = static_cast<const UInt32Array&>(*column);
    for (int64_t i = 0; i < values.length(); ++i) {
      const uint32_t v = values.Value(i);
      if (v >= limit) {
        return Status::Corrupt("Deletion file " + name + " deletes row " +
                               std::to_string(v) + " of a fragment with " +
                               std::to_string(limit) + " rows");
      }
      out.push_back(v);
    }
  }
  // Lance writes sorted offsets but does not promise it; normalise.
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::string DeletionFileRelativePath(uint64_t fragment_id, const pb::DeletionFile& file) {
  return "_deletions/" + std::to_string(fragment_id) + "-" +
         std::to_string(file.read_version()) + "-" + std::to_string(file.id()) +
         (file.file_type() == pb::DeletionFile::BITMAP ? ".bin" : ".arrow");
}

Result<DeletionVector> ParseDeletionFile(std::string_view bytes,
                                         pb::DeletionFile::DeletionFileType type,
                                         uint64_t physical_rows, std::string_view name) {
  const uint64_t limit = physical_rows == 0 ? (uint64_t{1} << 32) : physical_rows;
  const std::string file(name);
  switch (type) {
    case pb::DeletionFile::ARROW_ARRAY:
      return ParseArrowDeletions(bytes, limit, file);
    case pb::DeletionFile::BITMAP:
      return DeserializeRoaring(bytes, limit, "deletion file " + file);
    default:
      return Status::Corrupt("Deletion file " + file + " has unknown type " +
                             std::to_string(static_cast<int>(type)));
  }
}

Result<DeletionVector> ReadDeletionFile(const DatasetDir& dir, uint64_t fragment_id,
                                        const pb::DeletionFile& file,
                                        uint64_t physical_rows) {
  if (file.has_base_id()) {
    return Status::NotImplemented(
        "Deletion file of fragment " + std::to_string(fragment_id) + " of " + dir.Uri() +
        " lives in another base path (base_id), which lance-cpp "
        "does not support");
  }
  const std::string key = dir.Key(DeletionFileRelativePath(fragment_id, file));
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, dir.store()->Read(key));
  return ParseDeletionFile(bytes->ToStringView(), file.file_type(), physical_rows,
                           dir.store()->DisplayPath(key));
}

Result<std::string> EncodeDeletionFile(const DeletionVector& rows,
                                       pb::DeletionFile::DeletionFileType* type) {
  if (rows.size() > kBitmapThreshold) {
    *type = pb::DeletionFile::BITMAP;
    return SerializeRoaring(rows);
  }
  *type = pb::DeletionFile::ARROW_ARRAY;
  UInt32Builder builder;
  LANCE_RETURN_NOT_OK(builder.AppendValues(rows));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr array, builder.Finish());
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                        RecordBatch::Make(DeletionSchema(), array->length(), {array}));
  ipc::IpcWriteOptions options;
  options.compression = ipc::IpcCompression::kZstd;
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, ipc::WriteIpcFile(*batch, options));
  return std::string(bytes->ToStringView());
}

Result<pb::DeletionFile> WriteDeletionFile(const DatasetDir& dir, uint64_t fragment_id,
                                           uint64_t read_version,
                                           const DeletionVector& rows) {
  pb::DeletionFile file;
  pb::DeletionFile::DeletionFileType type;
  LANCE_ASSIGN_OR_RAISE(std::string bytes, EncodeDeletionFile(rows, &type));
  file.set_file_type(type);
  file.set_read_version(read_version);
  file.set_id(RandomU64());
  file.set_num_deleted_rows(rows.size());
  const std::string key = dir.Key(DeletionFileRelativePath(fragment_id, file));
  // A fresh random id makes the name unique; create-only guards against the
  // astronomically unlikely collision overwriting a committed file.
  LANCE_RETURN_NOT_OK(dir.store()->PutIfNotExists(key, bytes));
  return file;
}

DeletionVector MergeDeletions(const DeletionVector& a, const DeletionVector& b) {
  DeletionVector out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace lance::table_internal
