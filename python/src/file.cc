// SPDX-License-Identifier: Apache-2.0
// lance_cpp.file: the native halves of LanceFileWriter / LanceFileReader /
// LanceFileSession (lance_cpp/file.py adds pylance's Python surface on top).
//
// Every entry point resolves its store from (storage_options, storage_options_provider)
// with io::ResolveStorageAccess, so a provider means the same here as for datasets: one
// refreshing source per provider id, shared by every file of a session and by readers
// and writers opened separately. All I/O runs with the GIL released; a Python provider
// takes the GIL itself when the core calls it (io.cc).

#include <pybind11/stl.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "lance/format/file_reader.h"
#include "lance/format/file_session.h"
#include "lance/format/file_writer.h"
#include "lance/format/lance_schema.h"
#include "lance/io/storage_access.h"
#include "py_callback.h"

namespace lance::python {

namespace {

using StorageOptionsArg = std::optional<std::map<std::string, std::string>>;

/// Keeps the credentials sources of the last few providers alive after their readers and
/// writers are gone. ResolveStorageAccess shares one source per provider id only while
/// one is alive, and pylance code typically opens a writer, closes it, then opens a
/// reader with the same provider: without this the reader would start from the (possibly
/// expired) options it was given and fetch again, although the writer just refreshed.
/// Bounded, so at most kKeep providers (and the Python objects behind them) outlive
/// their last handle.
void KeepRecentSource(std::shared_ptr<io::CredentialsSource> source) {
  constexpr size_t kKeep = 16;
  // Never destroyed: a source may hold Python objects, which must not be released
  // during static destruction (after the interpreter is gone).
  static auto* mu = new std::mutex;
  static auto* recent = new std::deque<std::shared_ptr<io::CredentialsSource>>;
  std::shared_ptr<io::CredentialsSource> evicted;
  {
    std::lock_guard<std::mutex> lock(*mu);
    for (auto it = recent->begin(); it != recent->end(); ++it) {
      if (*it == source) {
        recent->erase(it);
        break;
      }
    }
    recent->push_back(std::move(source));
    if (recent->size() > kKeep) {
      evicted = std::move(recent->front());
      recent->pop_front();
    }
  }
  ResetWithoutGil(evicted);
}

io::StorageAccess AccessOf(const StorageOptionsArg& storage_options,
                           py::handle provider) {
  io::StorageOptions options;
  if (storage_options) options = *storage_options;
  auto access = ValueOrRaise(
      io::ResolveStorageAccess(io::StorageAccess(options, ProviderFromPython(provider))));
  if (access.credentials) KeepRecentSource(access.credentials);
  return access;
}

format::FileWriterOptions WriterOptions(const std::optional<std::string>& version,
                                        std::optional<int64_t> page_bytes) {
  format::FileWriterOptions options;
  if (version) options.version = ValueOrRaise(format::ParseWritableFileVersion(*version));
  if (page_bytes) {
    if (*page_bytes <= 0) throw py::value_error("page bytes must be positive");
    options.page_bytes = *page_bytes;
  }
  return options;
}

using WriterOpener =
    std::function<Result<std::unique_ptr<format::LanceFileWriter>>(format::LanceSchema)>;

/// A writer that opens on the first batch when no schema was given (pylance's "lazy
/// writer": the schema comes from the first batch).
class PyFileWriter {
 public:
  PyFileWriter(WriterOpener opener, py::handle schema) : opener_(std::move(opener)) {
    if (!schema.is_none()) Open(FromPyArrowSchema(schema));
  }
  ~PyFileWriter() {
    ResetWithoutGil(writer_);
    ResetWithoutGil(opener_);
  }

  void WriteBatches(py::handle data) {
    RecordBatchReaderPtr reader = FromPyArrowStream(data);
    if (!writer_) Open(reader->schema());
    while (true) {
      // The stream is pulled with the GIL (it may be backed by Python objects); only the
      // write runs without it.
      RecordBatchPtr batch = ValueOrRaise(reader->Next());
      if (!batch) break;
      CheckStatus(WithoutGil([&] { return writer_->WriteBatch(*batch); }));
    }
  }

  /// \return (num_rows, size_bytes).
  std::pair<int64_t, int64_t> Finish() {
    if (!writer_) {
      throw py::value_error(
          "LanceFileWriter: no schema was given and no batch was written, so the file's "
          "schema is unknown");
    }
    Result<format::WrittenFile> written = WithoutGil([&] { return writer_->Close(); });
    auto file = ValueOrRaise(std::move(written));
    return {file.num_rows, file.size_bytes};
  }

  void Abort() {
    if (!writer_) return;
    CheckStatus(WithoutGil([&] { return writer_->Abort(); }));
  }

  int64_t num_rows_written() const { return writer_ ? writer_->num_rows_written() : 0; }

 private:
  void Open(SchemaPtr schema) {
    auto lance_schema = ValueOrRaise(format::LanceSchema::Assign(std::move(schema), 0));
    Result<std::unique_ptr<format::LanceFileWriter>> opened =
        WithoutGil([&] { return opener_(std::move(lance_schema)); });
    writer_ = ValueOrRaise(std::move(opened));
  }

  WriterOpener opener_;
  std::unique_ptr<format::LanceFileWriter> writer_;
};

class PyFileReader {
 public:
  PyFileReader(std::shared_ptr<format::LanceFileReader> reader,
               const std::optional<std::vector<std::string>>& columns)
      : reader_(std::move(reader)) {
    if (columns) {
      auto projected = ValueOrRaise(reader_->schema().Project(*columns));
      for (int i = 0; i < static_cast<int>(columns->size()); ++i) {
        field_ids_.push_back(projected.SubtreeIds(i).front());
      }
    }
  }

  ~PyFileReader() { ResetWithoutGil(reader_); }

  /// Reads rows [offset, offset + length) (length -1: to the end) into a pyarrow.Table.
  /// The whole range is read with the GIL released before anything is handed to
  /// Python, so a refresh of the credentials during the read never waits for a GIL this
  /// thread holds.
  py::object Read(int64_t offset, int64_t length, int64_t batch_size) const {
    format::FileReadOptions options;
    options.field_ids = field_ids_;
    options.offset = offset;
    options.length = length;
    options.batch_size = batch_size;
    Result<TablePtr> table = WithoutGil([&] { return reader_->ReadTable(options); });
    return ToPyArrowTable(ValueOrRaise(std::move(table)));
  }

  py::object Schema() const {
    if (field_ids_.empty()) return ToPyArrowSchema(reader_->schema().schema());
    std::vector<std::string> names;
    for (int32_t id : field_ids_) {
      int i = reader_->schema().TopLevelIndexOfId(id);
      names.push_back(reader_->schema().schema()->field(i)->name());
    }
    return ToPyArrowSchema(ValueOrRaise(reader_->schema().Project(names)).schema());
  }

  int64_t num_rows() const { return reader_->num_rows(); }
  std::string version() const {
    return std::string(format::FileVersionString(reader_->version()));
  }
  const std::string& path() const { return reader_->path(); }

 private:
  std::shared_ptr<format::LanceFileReader> reader_;
  std::vector<int32_t> field_ids_;
};

}  // namespace

void BindFile(py::module_& m) {
  py::class_<PyFileWriter>(m, "_LanceFileWriter")
      .def(py::init([](const std::string& path, py::handle schema,
                       const StorageOptionsArg& storage_options, py::handle provider,
                       const std::optional<std::string>& version,
                       std::optional<int64_t> page_bytes) {
             auto access = AccessOf(storage_options, provider);
             auto options = WriterOptions(version, page_bytes);
             WriterOpener opener = [path, access, options](format::LanceSchema schema) {
               return format::LanceFileWriter::OpenUri(path, std::move(schema), access,
                                                       options);
             };
             return std::make_unique<PyFileWriter>(std::move(opener), schema);
           }),
           py::arg("path"), py::arg("schema") = py::none(),
           py::arg("storage_options") = py::none(),
           py::arg("storage_options_provider") = py::none(),
           py::arg("version") = py::none(), py::arg("page_bytes") = py::none())
      .def("write_batches", &PyFileWriter::WriteBatches, py::arg("data"))
      .def("finish", &PyFileWriter::Finish)
      .def("abort", &PyFileWriter::Abort)
      .def("num_rows_written", &PyFileWriter::num_rows_written);

  py::class_<PyFileReader>(m, "_LanceFileReader")
      .def(py::init([](const std::string& path, const StorageOptionsArg& storage_options,
                       py::handle provider,
                       const std::optional<std::vector<std::string>>& columns) {
             auto access = AccessOf(storage_options, provider);
             Result<std::shared_ptr<format::LanceFileReader>> opened = WithoutGil(
                 [&] { return format::LanceFileReader::OpenUri(path, access); });
             return std::make_unique<PyFileReader>(ValueOrRaise(std::move(opened)),
                                                   columns);
           }),
           py::arg("path"), py::arg("storage_options") = py::none(),
           py::arg("storage_options_provider") = py::none(),
           py::arg("columns") = py::none())
      .def("read", &PyFileReader::Read, py::arg("offset"), py::arg("length"),
           py::arg("batch_size"))
      .def("schema", &PyFileReader::Schema)
      .def("num_rows", &PyFileReader::num_rows)
      .def("version", &PyFileReader::version)
      .def("path", &PyFileReader::path);

  using Session = format::LanceFileSession;
  py::class_<Session, std::shared_ptr<Session>>(m, "_LanceFileSession")
      .def(py::init([](const std::string& base_path,
                       const StorageOptionsArg& storage_options, py::handle provider) {
             auto access = AccessOf(storage_options, provider);
             std::shared_ptr<Session> session =
                 ValueOrRaise(Session::Open(base_path, access));
             ResetWithoutGil(access.credentials);
             // Python drops its reference with the GIL held; the session's store (and
             // the credentials source in it) must be destroyed without it.
             Session* raw = session.get();
             return std::shared_ptr<Session>(
                 raw, [keep = std::move(session)](Session*) mutable {
                   ResetWithoutGil(keep);
                 });
           }),
           py::arg("base_path"), py::arg("storage_options") = py::none(),
           py::arg("storage_options_provider") = py::none())
      .def("contains",
           [](const Session& s, const std::string& path) {
             Result<bool> found = WithoutGil([&] { return s.Contains(path); });
             return ValueOrRaise(std::move(found));
           })
      .def(
          "list",
          [](const Session& s, const std::optional<std::string>& prefix) {
            Result<std::vector<std::string>> listed =
                WithoutGil([&] { return s.List(prefix.value_or("")); });
            return ValueOrRaise(std::move(listed));
          },
          py::arg("path") = py::none())
      .def(
          "open_writer",
          [](std::shared_ptr<Session> s, const std::string& path, py::handle schema,
             const std::optional<std::string>& version,
             std::optional<int64_t> page_bytes) {
            auto options = WriterOptions(version, page_bytes);
            WriterOpener opener = [s, path, options](format::LanceSchema schema) {
              return s->OpenWriter(path, std::move(schema), options);
            };
            return std::make_unique<PyFileWriter>(std::move(opener), schema);
          },
          py::arg("path"), py::arg("schema") = py::none(),
          py::arg("version") = py::none(), py::arg("page_bytes") = py::none())
      .def(
          "open_reader",
          [](const Session& s, const std::string& path,
             const std::optional<std::vector<std::string>>& columns) {
            Result<std::shared_ptr<format::LanceFileReader>> opened =
                WithoutGil([&] { return s.OpenReader(path); });
            return std::make_unique<PyFileReader>(ValueOrRaise(std::move(opened)),
                                                  columns);
          },
          py::arg("path"), py::arg("columns") = py::none())
      .def_property_readonly("base_uri", &Session::base_uri);
}

}  // namespace lance::python
