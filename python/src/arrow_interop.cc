// SPDX-License-Identifier: Apache-2.0
// Arrow hand-over between lance and pyarrow (or any Arrow PyCapsule producer), zero-copy
// through the C Data / C Stream interfaces wrapped in the PyCapsules of the Arrow
// PyCapsule protocol ("arrow_array_stream", "arrow_schema").
#include <memory>
#include <string>
#include <utility>

#include "bindings.h"
#include "lance/core/c_data.h"

namespace lance::python {
namespace {

constexpr const char* kStreamCapsule = "arrow_array_stream";
constexpr const char* kSchemaCapsule = "arrow_schema";

// Capsule destructors per the protocol: release what the consumer has not taken over.
void DeleteStreamCapsule(PyObject* capsule) {
  auto* stream =
      static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, kStreamCapsule));
  if (stream == nullptr) {
    PyErr_Clear();
    return;
  }
  if (stream->release != nullptr) stream->release(stream);
  delete stream;
}

void DeleteSchemaCapsule(PyObject* capsule) {
  auto* schema = static_cast<ArrowSchema*>(PyCapsule_GetPointer(capsule, kSchemaCapsule));
  if (schema == nullptr) {
    PyErr_Clear();
    return;
  }
  if (schema->release != nullptr) schema->release(schema);
  delete schema;
}

py::object PyArrow() { return py::module_::import("pyarrow"); }

// A capsule owning `stream` (moved in): pyarrow imports it and marks it released.
py::capsule StreamCapsule(std::unique_ptr<ArrowArrayStream> stream) {
  PyObject* cap = PyCapsule_New(stream.get(), kStreamCapsule, DeleteStreamCapsule);
  if (cap == nullptr) throw py::error_already_set();
  stream.release();
  return py::reinterpret_steal<py::capsule>(cap);
}

// Calls obj.<method>() and checks that it returned a capsule with `name`.
// The PyCapsule `obj.<method>()` returns (an Arrow PyCapsule interface export);
// TypeError naming `expected` when `obj` has no such method or the capsule is not `name`.
template <typename T>
std::pair<py::object, T*> ExportedCapsule(py::handle obj, const char* method,
                                          const char* name, const char* expected) {
  if (!py::hasattr(obj, method)) {
    throw py::type_error(std::string("expected ") + expected + ", got " +
                         std::string(py::str(py::type::of(obj).attr("__name__"))));
  }
  py::object cap = obj.attr(method)();
  if (!PyCapsule_IsValid(cap.ptr(), name)) {
    throw py::type_error(std::string(method) + "() did not return a PyCapsule named '" +
                         name + "'");
  }
  auto* exported = static_cast<T*>(PyCapsule_GetPointer(cap.ptr(), name));
  return {std::move(cap), exported};
}

}  // namespace

py::object ToPyArrowReader(RecordBatchReaderPtr reader) {
  auto stream = std::make_unique<ArrowArrayStream>();
  CheckStatus(ExportRecordBatchReader(
      std::shared_ptr<RecordBatchReader>(std::move(reader)), stream.get()));
  py::capsule cap = StreamCapsule(std::move(stream));
  return PyArrow().attr("RecordBatchReader").attr("_import_from_c_capsule")(cap);
}

py::object ToPyArrowTable(const TablePtr& table) {
  // A reader over the table's batches (shared, not copied), read back by pyarrow.
  py::object reader =
      ToPyArrowReader(RecordBatchReader::FromBatches(table->schema(), table->batches()));
  return reader.attr("read_all")();
}

py::object ToPyArrowSchema(const SchemaPtr& schema) {
  auto c_schema = std::make_unique<ArrowSchema>();
  CheckStatus(ExportSchema(*schema, c_schema.get()));
  PyObject* cap = PyCapsule_New(c_schema.get(), kSchemaCapsule, DeleteSchemaCapsule);
  if (cap == nullptr) {
    c_schema->release(c_schema.get());
    throw py::error_already_set();
  }
  c_schema.release();
  py::object capsule = py::reinterpret_steal<py::object>(cap);
  return PyArrow().attr("Schema").attr("_import_from_c_capsule")(capsule);
}

RecordBatchReaderPtr FromPyArrowStream(py::handle obj) {
  auto [cap, stream] = ExportedCapsule<ArrowArrayStream>(
      obj, "__arrow_c_stream__", kStreamCapsule,
      "an object with __arrow_c_stream__ (a pyarrow Table or RecordBatchReader)");
  // Takes the stream over (its release is set to NULL), so the capsule's destructor,
  // run whenever `cap` goes, finds nothing left to release.
  return ValueOrRaise(ImportRecordBatchReader(stream));
}

SchemaPtr FromPyArrowSchema(py::handle obj) {
  auto [cap, schema] =
      ExportedCapsule<ArrowSchema>(obj, "__arrow_c_schema__", kSchemaCapsule,
                                   "a schema with __arrow_c_schema__ (a pyarrow.Schema)");
  return ValueOrRaise(ImportSchema(schema));
}

}  // namespace lance::python
