// SPDX-License-Identifier: Apache-2.0
// The contract between the binding files of the `lance_cpp._lance_cpp` extension module
// (pybind11). One file per area registers its functions and classes; module.cc calls them
// in this order. Shared helpers (errors, Arrow hand-over) are declared here once.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/record_batch.h"
#include "lance/result.h"
#include "lance/status.h"

namespace lance {
struct TakeOptions;
struct WriteParams;
}  // namespace lance
namespace lance::io {
class StorageOptionsProvider;
struct StorageAccess;
}  // namespace lance::io
namespace lance::ns {
class LanceNamespace;
}  // namespace lance::ns

namespace lance::python {

namespace py = pybind11;

// -- registration (one per binding file) --------------------------------------------
void BindErrors(py::module_& m);  // errors.cc: LanceError and its subclasses
void BindDataset(
    py::module_& m);  // dataset.cc: write/open/scan/count/versions/delete/commit
void BindFragment(py::module_& m);  // fragment.cc: write_fragments, FragmentMetadata JSON
void BindFile(py::module_& m);      // file.cc: LanceFileWriter/Reader/Session
// Issue 12: the table operations, one file per family (each adds module functions
// taking the native Dataset; python/lance_cpp/_<family>.py wraps them as methods).
void BindMutation(py::module_& m);  // dataset_mutation.cc: update, merge_insert, columns
void BindMaintenance(py::module_& m);  // dataset_maintenance.cc: compact, cleanup, tags
void BindInspection(py::module_& m);  // dataset_inspect.cc: statistics, indices, validate
void BindIo(py::module_& m);          // io.cc: StorageOptionsProvider adapter
void BindNamespace(
    py::module_& m);  // namespace.cc: Python namespaces <-> C++ LanceNamespace

// -- errors (errors.cc) -------------------------------------------------------------
/// Raises the Python exception matching `status` (see errors.cc for the mapping; the
/// exception classes are created by BindErrors). REQUIRES: !status.ok(). Never returns.
[[noreturn]] void RaiseStatus(const Status& status);

/// Returns `result`'s value or raises.
template <typename T>
T ValueOrRaise(Result<T> result) {
  if (!result.ok()) RaiseStatus(result.status());
  return std::move(result).MoveValueUnsafe();
}

inline void CheckStatus(const Status& status) {
  if (!status.ok()) RaiseStatus(status);
}

// -- Arrow hand-over (arrow_interop.cc), zero-copy through the C Data/Stream interface
// ---
/// A pyarrow.RecordBatchReader over `reader` (the stream is exported, not copied).
py::object ToPyArrowReader(RecordBatchReaderPtr reader);
/// A pyarrow.Table of `table`.
py::object ToPyArrowTable(const TablePtr& table);
/// A pyarrow.Schema of `schema`.
py::object ToPyArrowSchema(const SchemaPtr& schema);
/// A RecordBatchReader over any object with __arrow_c_stream__ (callers convert pandas,
/// dicts, lists, __arrow_c_array__ objects to a pyarrow.Table/RecordBatchReader first, in
/// lance_cpp/_convert.py). Raises TypeError otherwise.
RecordBatchReaderPtr FromPyArrowStream(py::handle obj);
/// A Schema from an object with __arrow_c_schema__ (pyarrow.Schema).
SchemaPtr FromPyArrowSchema(py::handle obj);

// -- Python objects behind C++ interfaces -------------------------------------------
/// io.cc: a C++ StorageOptionsProvider calling `obj.fetch_storage_options()` (pylance's
/// StorageOptionsProvider interface) with the GIL taken per call, from any thread; null
/// for None. Raises TypeError for an object without that method.
std::shared_ptr<io::StorageOptionsProvider> ProviderFromPython(py::handle obj);
/// namespace.cc: a C++ LanceNamespace over a Python namespace (a lance_namespace
/// LanceNamespace subclass, or our DirectoryNamespace's native object); null for None.
std::shared_ptr<ns::LanceNamespace> NamespaceFromPython(py::handle obj);

/// dataset.cc: the storage access of a call's `storage_options` (dict or None) and
/// `storage_options_provider` (None or a provider), resolved (io::ResolveStorageAccess:
/// the options seed the provider's refreshing source; nothing is fetched here).
io::StorageAccess StorageAccessFromPython(py::handle storage_options,
                                          py::handle provider);

/// dataset.cc: the WriteParams both _write_dataset and _write_fragments take (`mode`:
/// "create", "append" or "overwrite"; the storage access as StorageAccessFromPython).
WriteParams WriteParamsFromPython(const std::string& mode, int64_t max_rows_per_file,
                                  int64_t max_rows_per_group,
                                  const std::string& data_storage_version,
                                  py::handle storage_options, py::handle provider);

/// dataset.cc: the TakeOptions of a take (by position or by row address).
TakeOptions TakeOptionsFromPython(const std::optional<std::vector<std::string>>& columns,
                                  bool with_row_id);

}  // namespace lance::python
