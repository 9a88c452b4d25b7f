// SPDX-License-Identifier: Apache-2.0
// LanceFileWriter, the container part: feeds each batch to the encoder of the file's
// version in slices of whole top-level rows, flushes a column's page when it holds
// page_bytes, lays out page buffers (each padded to 64 bytes), the file descriptor,
// column metadata and the footer. The encodings live per version: v2_0/encoder.cc,
// structural/encoder.cc (2.1 and 2.2).

#include "lance/format/file_writer.h"

#include <google/protobuf/any.pb.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "format/proto/encodings_v2_0.pb.h"
#include "format/proto/file2.pb.h"
#include "format/schema_proto.h"
#include "format/v2_container.h"
#include "format/writer_internal.h"
#include "lance/macros.h"

namespace lance::format {

namespace internal {

std::string FileEncoder::ColumnEncoding(int /*column*/) const {
  google::protobuf::Any any;
  any.set_type_url(std::string(kColumnEncodingUrl));
  lance::encodings::ColumnEncoding values;
  values.mutable_values();
  any.set_value(values.SerializeAsString());
  return any.SerializeAsString();
}

std::vector<int32_t> FileEncoder::DataFileColumnIndices() const {
  std::vector<int32_t> out(static_cast<size_t>(num_columns()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int32_t>(i);
  return out;
}

}  // namespace internal

namespace {

using internal::kPadByte;
using internal::kPageAlignment;

class FileWriterImpl : public LanceFileWriter {
 public:
  FileWriterImpl(std::string path, LanceSchema schema, FileWriterOptions options,
                 std::unique_ptr<internal::FileEncoder> encoder,
                 std::unique_ptr<io::OutputStream> stream)
      : path_(std::move(path)),
        schema_(std::move(schema)),
        options_(options),
        encoder_(std::move(encoder)),
        stream_(std::move(stream)),
        columns_(static_cast<size_t>(encoder_->num_columns())),
        rows_per_slice_(static_cast<size_t>(schema_.schema()->num_fields()), 16) {}

  ~FileWriterImpl() override {
    if (stream_ && !closed_) (void)stream_->Abort();
  }

  Status WriteBatch(const RecordBatch& batch) override {
    LANCE_RETURN_NOT_OK(CheckUsable());
    const Schema& expected = *schema_.schema();
    if (batch.num_columns() != expected.num_fields()) {
      return Status::Invalid("writing Lance file '", path_, "': batch has ",
                             batch.num_columns(), " columns, the file ",
                             expected.num_fields());
    }
    for (int i = 0; i < batch.num_columns(); ++i) {
      if (!batch.column(i)->type()->Equals(*expected.field(i)->type())) {
        return Status::Invalid("writing Lance file '" + path_ + "': column '" +
                               expected.field(i)->name() + "' has type " +
                               batch.column(i)->type()->ToString() + ", the file " +
                               expected.field(i)->type()->ToString());
      }
    }
    Status st = DoWriteBatch(batch);
    if (!st.ok()) Fail(st);
    return st;
  }

  Result<WrittenFile> Close() override {
    LANCE_RETURN_NOT_OK(CheckUsable());
    auto result = DoClose();
    if (!result.ok()) Fail(result.status());
    return result;
  }

  Status Abort() override {
    if (closed_) return Status::OK();
    failure_ =
        Status::Invalid("writing Lance file '", path_, "': the writer was aborted");
    return stream_->Abort();
  }

  int64_t num_rows_written() const override { return rows_written_; }
  const LanceSchema& schema() const override { return schema_; }

 private:
  /// What the container keeps per column: where its current page starts and the pages
  /// written so far.
  struct ColumnState {
    int64_t page_start_row = 0;
    lance::file::v2::ColumnMetadata metadata;
  };

  Status CheckUsable() const {
    if (closed_) {
      return Status::Invalid("writing Lance file '", path_, "': the writer is closed");
    }
    return failure_;
  }

  void Fail(const Status& st) {
    if (failure_.ok()) failure_ = st;
    (void)stream_->Abort();
  }

  Status DoWriteBatch(const RecordBatch& batch) {
    const int64_t rows = batch.num_rows();
    const int64_t slice_target = std::max<int64_t>(1, options_.page_bytes / 4);
    for (int f = 0; f < batch.num_columns(); ++f) {
      const ArrayData& data = *batch.column(f)->data();
      const auto [first_column, end_column] = encoder_->columns_of(f);
      int64_t& rows_per_slice = rows_per_slice_[f];
      int64_t done = 0;
      while (done < rows) {
        const int64_t n = std::min(rows_per_slice, rows - done);
        const int64_t before = SubtreeBytes(first_column, end_column);
        LANCE_RETURN_NOT_OK(encoder_->Append(f, data, done, n));
        const int64_t added =
            std::max<int64_t>(1, SubtreeBytes(first_column, end_column) - before);
        done += n;
        // Size the next slice so that a page overshoots page_bytes by at most ~25%.
        const int64_t per_row = std::max<int64_t>(1, added / n);
        rows_per_slice = std::clamp<int64_t>(slice_target / per_row, 1, 1 << 20);
        for (int c = first_column; c < end_column; ++c) {
          if (encoder_->buffered_bytes(c) >= options_.page_bytes) {
            LANCE_RETURN_NOT_OK(FlushColumn(c, rows_written_ + done));
          }
        }
      }
    }
    rows_written_ += rows;
    return Status::OK();
  }

  int64_t SubtreeBytes(int first_column, int end_column) const {
    int64_t total = 0;
    for (int c = first_column; c < end_column; ++c) total += encoder_->buffered_bytes(c);
    return total;
  }

  Status WritePadded(const Buffer& buffer) {
    LANCE_RETURN_NOT_OK(stream_->Write(buffer));
    const int64_t pad =
        (kPageAlignment - stream_->position() % kPageAlignment) % kPageAlignment;
    if (pad > 0) {
      const std::string padding(static_cast<size_t>(pad), static_cast<char>(kPadByte));
      LANCE_RETURN_NOT_OK(stream_->Write(padding));
    }
    return Status::OK();
  }

  Status FlushColumn(int c, int64_t next_page_start_row) {
    ColumnState& column = columns_[c];
    LANCE_ASSIGN_OR_RAISE(internal::EncodedPage page, encoder_->FinishPage(c));
    auto* pb_page = column.metadata.add_pages();
    for (const BufferPtr& buffer : page.buffers) {
      pb_page->add_buffer_offsets(static_cast<uint64_t>(stream_->position()));
      pb_page->add_buffer_sizes(static_cast<uint64_t>(buffer->size()));
      LANCE_RETURN_NOT_OK(WritePadded(*buffer));
    }
    pb_page->set_length(static_cast<uint64_t>(page.length));
    pb_page->set_priority(static_cast<uint64_t>(column.page_start_row));
    google::protobuf::Any any;
    any.set_type_url(page.encoding_url);
    any.set_value(page.encoding_value);
    pb_page->mutable_encoding()->mutable_direct()->set_encoding(any.SerializeAsString());
    column.page_start_row = next_page_start_row;
    return Status::OK();
  }

  Result<WrittenFile> DoClose() {
    for (int c = 0; c < encoder_->num_columns(); ++c) {
      if (encoder_->has_buffered(c)) LANCE_RETURN_NOT_OK(FlushColumn(c, rows_written_));
    }
    // Global buffer 0: the FileDescriptor. It follows padded pages, so it starts on a
    // 64-byte boundary as v2.1 readers require of global buffers.
    lance::file::v2::FileDescriptor descriptor;
    LANCE_RETURN_NOT_OK(SchemaToProto(schema_, descriptor.mutable_schema()));
    descriptor.set_length(static_cast<uint64_t>(rows_written_));
    const std::string descriptor_bytes = descriptor.SerializeAsString();
    const uint64_t descriptor_pos = static_cast<uint64_t>(stream_->position());
    LANCE_RETURN_NOT_OK(stream_->Write(descriptor_bytes));

    internal::Footer footer;
    footer.column_meta_start = static_cast<uint64_t>(stream_->position());
    std::string cmo_table;
    for (int c = 0; c < encoder_->num_columns(); ++c) {
      ColumnState& column = columns_[c];
      column.metadata.mutable_encoding()->mutable_direct()->set_encoding(
          encoder_->ColumnEncoding(c));
      const std::string bytes = column.metadata.SerializeAsString();
      uint8_t entry[16];
      StoreLE<uint64_t>(entry, static_cast<uint64_t>(stream_->position()));
      StoreLE<uint64_t>(entry + 8, bytes.size());
      cmo_table.append(reinterpret_cast<const char*>(entry), 16);
      LANCE_RETURN_NOT_OK(stream_->Write(bytes));
    }
    footer.cmo_table_start = static_cast<uint64_t>(stream_->position());
    LANCE_RETURN_NOT_OK(stream_->Write(cmo_table));
    footer.gbo_table_start = static_cast<uint64_t>(stream_->position());
    uint8_t gbo[16];
    StoreLE<uint64_t>(gbo, descriptor_pos);
    StoreLE<uint64_t>(gbo + 8, descriptor_bytes.size());
    LANCE_RETURN_NOT_OK(stream_->Write(gbo, 16));
    footer.num_global_buffers = 1;
    footer.num_columns = static_cast<uint32_t>(columns_.size());
    std::tie(footer.major, footer.minor) = encoder_->FooterVersion();
    LANCE_RETURN_NOT_OK(stream_->Write(internal::EncodeFooter(footer)));
    const int64_t size = stream_->position();
    LANCE_RETURN_NOT_OK(stream_->Close());
    closed_ = true;

    WrittenFile written;
    written.path = path_;
    written.num_rows = rows_written_;
    written.size_bytes = size;
    written.field_ids = encoder_->DataFileFields();
    written.column_indices = encoder_->DataFileColumnIndices();
    std::tie(written.major_version, written.minor_version) = encoder_->DataFileVersion();
    return written;
  }

  std::string path_;
  LanceSchema schema_;
  FileWriterOptions options_;
  std::unique_ptr<internal::FileEncoder> encoder_;
  std::unique_ptr<io::OutputStream> stream_;
  std::vector<ColumnState> columns_;
  /// Rows fed to the encoder at a time, per top-level field: starts small and adapts to
  /// the field's bytes per row.
  std::vector<int64_t> rows_per_slice_;
  int64_t rows_written_ = 0;
  bool closed_ = false;
  Status failure_;
};

}  // namespace

Result<std::unique_ptr<LanceFileWriter>> LanceFileWriter::Open(
    std::shared_ptr<io::ObjectStore> store, std::string path, LanceSchema schema,
    FileWriterOptions options) {
  if (!store) return Status::Invalid("opening a Lance file writer: the store is null");
  if (!schema.schema()) {
    return Status::Invalid("opening Lance file writer '", path, "': the schema is empty");
  }
  if (options.version == LanceFileVersion::kLegacy) {
    return Status::NotImplemented("writing Lance file '", path,
                                  "': lance-cpp reads legacy (0.1) files but does not "
                                  "write them; use 2.0, 2.1 or 2.2");
  }
  if (options.page_bytes <= 0) {
    return Status::Invalid("opening Lance file writer '", path,
                           "': page_bytes must be positive");
  }
  if (static_cast<int64_t>(schema.field_ids().size()) != [&] {
        int64_t n = 0;
        for (const auto& f : schema.schema()->fields()) n += CountLanceFields(*f->type());
        return n;
      }()) {
    return Status::Invalid("opening Lance file writer '", path,
                           "': the schema's field ids do not match its fields");
  }
  auto encoder = options.version == LanceFileVersion::kV2_0
                     ? internal::MakeV20Encoder(schema, options)
                     : internal::MakeStructuralEncoder(schema, options);
  if (!encoder.ok()) {
    return encoder.status().WithContext("opening Lance file writer '" + path + "'");
  }
  LANCE_ASSIGN_OR_RAISE(auto stream, store->OpenWriter(path));
  return std::unique_ptr<LanceFileWriter>(std::make_unique<FileWriterImpl>(
      path, std::move(schema), options, std::move(encoder).MoveValueUnsafe(),
      std::move(stream)));
}

Result<std::unique_ptr<LanceFileWriter>> LanceFileWriter::OpenUri(
    std::string_view uri, LanceSchema schema, const io::StorageAccess& access,
    FileWriterOptions options) {
  // A failed resolve is returned as is: its message already says what it can (the URI
  // itself may hold user info that must not be echoed).
  LANCE_ASSIGN_OR_RAISE(io::ResolvedLocation loc, io::ResolveObjectStore(uri, access));
  if (loc.path.empty()) {
    return Status::Invalid("opening Lance file writer '", uri,
                           "': the URI names a store root, not a file");
  }
  auto writer =
      Open(std::move(loc.store), std::move(loc.path), std::move(schema), options);
  if (!writer.ok()) {
    return writer.status().WithContext("opening Lance file writer '" + std::string(uri) +
                                       "'");
  }
  return writer;
}

}  // namespace lance::format
