// SPDX-License-Identifier: Apache-2.0
#include "table/fragment_sink.h"

#include <algorithm>

#include "lance/macros.h"
#include "table/ids.h"

namespace lance::table_internal {

FragmentSink::FragmentSink(DatasetDir dir, format::LanceSchema schema,
                           format::LanceFileVersion version, Sizes sizes)
    : dir_(std::move(dir)),
      schema_(std::move(schema)),
      version_(version),
      sizes_(sizes) {}

FragmentSink::~FragmentSink() {
  // Files already closed stay behind unreferenced, as with Lance; they are harmless.
  if (writer_) (void)writer_->Abort();
}

Status FragmentSink::CloseFile() {
  LANCE_ASSIGN_OR_RAISE(format::WrittenFile written, writer_->Close());
  writer_.reset();
  pb::DataFragment frag;
  pb::DataFile* file = frag.add_files();
  file->set_path(name_);
  for (int32_t id : written.field_ids) file->add_fields(id);
  for (int32_t c : written.column_indices) file->add_column_indices(c);
  file->set_file_major_version(written.major_version);
  file->set_file_minor_version(written.minor_version);
  file->set_file_size_bytes(static_cast<uint64_t>(written.size_bytes));
  frag.set_physical_rows(static_cast<uint64_t>(written.num_rows));
  fragments_.push_back(std::move(frag));
  rows_in_file_ = 0;
  return Status::OK();
}

Status FragmentSink::Write(const RecordBatch& batch) {
  if (sizes_.max_rows_per_file <= 0 || sizes_.max_rows_per_group <= 0) {
    return Status::Invalid("max_rows_per_file and max_rows_per_group must be positive");
  }
  int64_t offset = 0;
  while (offset < batch.num_rows()) {
    if (!writer_) {
      name_ = NewDataFileName();
      format::FileWriterOptions options;
      options.version = version_;
      LANCE_ASSIGN_OR_RAISE(
          writer_, format::LanceFileWriter::Open(dir_.store(), dir_.Key("data/" + name_),
                                                 schema_, options));
    }
    const int64_t n =
        std::min(batch.num_rows() - offset, sizes_.max_rows_per_file - rows_in_file_);
    for (int64_t g = 0; g < n; g += sizes_.max_rows_per_group) {
      const int64_t len = std::min(sizes_.max_rows_per_group, n - g);
      LANCE_RETURN_NOT_OK(writer_->WriteBatch(*batch.Slice(offset + g, len)));
    }
    offset += n;
    rows_in_file_ += n;
    rows_written_ += n;
    if (rows_in_file_ >= sizes_.max_rows_per_file) LANCE_RETURN_NOT_OK(CloseFile());
  }
  return Status::OK();
}

Result<std::vector<pb::DataFragment>> FragmentSink::Finish() {
  if (writer_) LANCE_RETURN_NOT_OK(CloseFile());
  return std::move(fragments_);
}

}  // namespace lance::table_internal
