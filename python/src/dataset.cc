// SPDX-License-Identifier: Apache-2.0
// Datasets: write (to a URI or a namespace table), open, scan, count, versions, checkout,
// delete and commit. The pure-Python layer (lance_cpp/dataset.py) gives these pylance's
// names and argument handling; here every call releases the GIL around its I/O.
#include "lance/dataset/dataset.h"

#include <pybind11/stl.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "gil.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/io/storage_access.h"
#include "lance/namespace/dataset_ops.h"

namespace lance::python {
namespace {

using DatasetPtr = std::shared_ptr<Dataset>;

// None -> {}; a mapping of str -> str (values given as other types are str()-ed, as
// pylance accepts e.g. booleans in storage options).
io::StorageOptions OptionsFromPython(py::handle obj) {
  io::StorageOptions out;
  if (obj.is_none()) return out;
  if (!py::isinstance<py::dict>(obj)) {
    throw py::type_error("storage_options must be a dict of str to str");
  }
  for (auto [key, value] : py::reinterpret_borrow<py::dict>(obj)) {
    out[py::str(key).cast<std::string>()] = py::str(value).cast<std::string>();
  }
  return out;
}

ns::Identifier TableIdFromPython(py::handle obj) {
  if (obj.is_none()) throw py::value_error("table_id is required with a namespace");
  if (py::isinstance<py::str>(obj)) {
    throw py::type_error("table_id must be a list of str (e.g. [\"ns\", \"table\"])");
  }
  return obj.cast<ns::Identifier>();
}

ScanOptions MakeScanOptions(
    const std::optional<std::vector<std::string>>& columns,
    const std::optional<std::string>& filter, std::optional<int64_t> limit,
    std::optional<int64_t> offset, bool with_row_id, std::optional<int64_t> batch_size,
    std::optional<std::vector<uint64_t>> fragment_ids = std::nullopt,
    std::optional<std::vector<std::pair<std::string, std::string>>> projections =
        std::nullopt,
    std::optional<int> fragment_readahead = std::nullopt,
    std::optional<int> batch_readahead = std::nullopt) {
  ScanOptions options;
  if (fragment_readahead) options.fragment_readahead = *fragment_readahead;
  if (batch_readahead) options.batch_readahead = *batch_readahead;
  if (projections) options.projections = std::move(*projections);
  options.fragment_ids = std::move(fragment_ids);
  if (columns) options.columns = *columns;
  if (filter) options.filter = *filter;
  options.limit = limit;
  if (offset) options.offset = *offset;
  options.with_row_id = with_row_id;
  if (batch_size) options.batch_size = *batch_size;
  return options;
}

DatasetPtr WriteDatasetPy(py::handle data, const std::optional<std::string>& uri,
                          const std::string& mode, int64_t max_rows_per_file,
                          int64_t max_rows_per_group,
                          const std::string& data_storage_version,
                          bool enable_v2_manifest_paths, py::handle storage_options,
                          py::handle provider, py::handle namespace_obj,
                          py::handle table_id) {
  WriteParams params =
      WriteParamsFromPython(mode, max_rows_per_file, max_rows_per_group,
                            data_storage_version, storage_options, provider);
  params.enable_v2_manifest_paths = enable_v2_manifest_paths;
  RecordBatchReaderPtr reader = FromPyArrowStream(data);
  if (!namespace_obj.is_none()) {
    std::shared_ptr<ns::LanceNamespace> ns = NamespaceFromPython(namespace_obj);
    ns::Identifier id = TableIdFromPython(table_id);
    Result<DatasetPtr> result = WithoutGil(
        [&] { return ns::WriteDataset(*reader, std::move(ns), id, std::move(params)); });
    return ValueOrRaise(std::move(result));
  }
  if (!uri)
    throw py::value_error("write_dataset needs a uri, or namespace_client and table_id");
  Result<DatasetPtr> result =
      WithoutGil([&] { return Dataset::Write(*reader, *uri, std::move(params)); });
  return ValueOrRaise(std::move(result));
}

DatasetPtr OpenDatasetPy(const std::optional<std::string>& uri,
                         std::optional<uint64_t> version, py::handle storage_options,
                         py::handle provider, py::handle namespace_obj,
                         py::handle table_id) {
  OpenOptions options;
  options.version = version;
  options.access = StorageAccessFromPython(storage_options, provider);
  if (!namespace_obj.is_none()) {
    std::shared_ptr<ns::LanceNamespace> ns = NamespaceFromPython(namespace_obj);
    ns::Identifier id = TableIdFromPython(table_id);
    Result<DatasetPtr> result = WithoutGil(
        [&] { return ns::OpenDataset(std::move(ns), id, std::move(options)); });
    return ValueOrRaise(std::move(result));
  }
  if (!uri)
    throw py::value_error("dataset needs a uri, or namespace_client and table_id");
  Result<DatasetPtr> result =
      WithoutGil([&] { return Dataset::Open(*uri, std::move(options)); });
  return ValueOrRaise(std::move(result));
}

DatasetPtr CommitPy(const std::string& uri, const std::string& kind, py::handle schema,
                    std::vector<FragmentMetadata> fragments,
                    std::optional<uint64_t> read_version, py::handle storage_options,
                    py::handle provider) {
  Operation op;
  if (kind == "overwrite") {
    OverwriteOp overwrite;
    overwrite.schema = FromPyArrowSchema(schema);
    overwrite.fragments = std::move(fragments);
    op = std::move(overwrite);
  } else if (kind == "append") {
    op = AppendOp{std::move(fragments)};
  } else {
    throw py::value_error("unknown operation '" + kind +
                          "' (Overwrite and Append are supported)");
  }
  io::StorageAccess access = StorageAccessFromPython(storage_options, provider);
  Result<DatasetPtr> result =
      WithoutGil([&] { return Dataset::Commit(uri, op, read_version, access); });
  return ValueOrRaise(std::move(result));
}

}  // namespace

io::StorageAccess StorageAccessFromPython(py::handle storage_options,
                                          py::handle provider) {
  // Resolved here, with the GIL held, so that malformed initial options raise at the
  // call (the entry points would resolve an unresolved access the same way).
  return ValueOrRaise(io::ResolveStorageAccess(io::StorageAccess(
      OptionsFromPython(storage_options), ProviderFromPython(provider))));
}

WriteParams WriteParamsFromPython(const std::string& mode, int64_t max_rows_per_file,
                                  int64_t max_rows_per_group,
                                  const std::string& data_storage_version,
                                  py::handle storage_options, py::handle provider) {
  WriteParams params;
  params.mode = ValueOrRaise(ParseWriteMode(mode));
  params.max_rows_per_file = max_rows_per_file;
  params.max_rows_per_group = max_rows_per_group;
  params.data_storage_version = data_storage_version;
  params.access = StorageAccessFromPython(storage_options, provider);
  return params;
}

TakeOptions TakeOptionsFromPython(const std::optional<std::vector<std::string>>& columns,
                                  bool with_row_id) {
  TakeOptions options;
  if (columns) options.columns = *columns;
  options.with_row_id = with_row_id;
  return options;
}

// {name: int} of one provider's refresh counters (io::RefreshStatsFields).
py::dict RefreshStatsToPython(const io::ProviderRefreshStats& entry) {
  py::dict out;
  for (const auto& [name, value] : io::RefreshStatsFields(entry))
    out[name.c_str()] = value;
  return out;
}

void BindDataset(py::module_& m) {
  // The scan options, bound once: scan() and to_table() take one (lance_cpp/dataset.py
  // builds it from a Scanner's settings).
  py::class_<ScanOptions>(m, "_ScanOptions")
      .def(py::init(&MakeScanOptions), py::arg("columns") = py::none(),
           py::arg("filter") = py::none(), py::arg("limit") = py::none(),
           py::arg("offset") = py::none(), py::arg("with_row_id") = false,
           py::arg("batch_size") = py::none(), py::arg("fragment_ids") = py::none(),
           py::arg("projections") = py::none(),
           py::arg("fragment_readahead") = py::none(),
           py::arg("batch_readahead") = py::none());
  py::class_<Dataset, DatasetPtr>(
      m, "_Dataset", "One version of a Lance dataset (use lance_cpp.LanceDataset).")
      .def_property_readonly("uri", &Dataset::uri)
      .def_property_readonly("version", &Dataset::version)
      .def_property_readonly("data_storage_version", &Dataset::data_storage_version)
      .def_property_readonly(
          "schema", [](const Dataset& ds) { return ToPyArrowSchema(ds.schema()); })
      .def("latest_version",
           [](const Dataset& ds) {
             Result<uint64_t> v = WithoutGil([&] { return ds.LatestVersion(); });
             return ValueOrRaise(std::move(v));
           })
      .def("fragments", [](const Dataset& ds) { return ds.fragments(); })
      .def("credential_stats",
           [](const Dataset& ds) -> py::object {
             auto entry = ds.credential_stats();
             if (!entry) return py::none();
             return RefreshStatsToPython(*entry);
           })
      .def(
          "count_rows",
          [](const Dataset& ds, const std::optional<std::string>& filter) {
            Result<int64_t> n =
                WithoutGil([&] { return ds.CountRows(filter.value_or("")); });
            return ValueOrRaise(std::move(n));
          },
          py::arg("filter") = py::none())
      .def(
          "scan",
          [](const Dataset& ds, const ScanOptions& options) {
            Result<RecordBatchReaderPtr> reader =
                WithoutGil([&] { return ds.Scan(options); });
            return ToPyArrowReader(ValueOrRaise(std::move(reader)));
          },
          py::arg("options"))
      .def(
          "to_table",
          [](const Dataset& ds, const ScanOptions& options) {
            Result<TablePtr> table = WithoutGil([&] { return ds.ToTable(options); });
            return ToPyArrowTable(ValueOrRaise(std::move(table)));
          },
          py::arg("options"))
      .def(
          "take",
          [](const Dataset& ds, std::vector<int64_t> indices,
             std::optional<std::vector<std::string>> columns, bool with_row_id) {
            const TakeOptions options = TakeOptionsFromPython(columns, with_row_id);
            Result<TablePtr> table =
                WithoutGil([&] { return ds.Take(indices, options); });
            return ToPyArrowTable(ValueOrRaise(std::move(table)));
          },
          py::arg("indices"), py::arg("columns") = py::none(),
          py::arg("with_row_id") = false)
      .def(
          "take_fragment",
          [](const Dataset& ds, uint64_t fragment_id, std::vector<int64_t> indices,
             std::optional<std::vector<std::string>> columns, bool with_row_id) {
            TakeOptions options;
            if (columns) options.columns = *columns;
            options.with_row_id = with_row_id;
            Result<TablePtr> table = WithoutGil(
                [&] { return ds.TakeFromFragment(fragment_id, indices, options); });
            return ToPyArrowTable(ValueOrRaise(std::move(table)));
          },
          py::arg("fragment_id"), py::arg("indices"), py::arg("columns") = py::none(),
          py::arg("with_row_id") = false)
      .def("versions",
           [](const Dataset& ds) {
             Result<std::vector<VersionInfo>> versions =
                 WithoutGil([&] { return ds.Versions(); });
             py::list out;
             for (const VersionInfo& v : ValueOrRaise(std::move(versions))) {
               out.append(py::make_tuple(v.version, v.timestamp_ms, v.metadata));
             }
             return out;
           })
      .def(
          "checkout_version",
          [](const Dataset& ds, uint64_t version) {
            Result<DatasetPtr> other =
                WithoutGil([&] { return ds.CheckoutVersion(version); });
            return ValueOrRaise(std::move(other));
          },
          py::arg("version"))
      .def(
          "delete",
          [](Dataset& ds, const std::string& predicate) {
            Status status = WithoutGil([&] { return ds.Delete(predicate); });
            CheckStatus(status);
          },
          py::arg("predicate"));

  m.def("_write_dataset", &WriteDatasetPy, py::arg("data"), py::arg("uri"),
        py::arg("mode"), py::arg("max_rows_per_file"), py::arg("max_rows_per_group"),
        py::arg("data_storage_version"), py::arg("enable_v2_manifest_paths"),
        py::arg("storage_options"), py::arg("storage_options_provider"),
        py::arg("namespace_client"), py::arg("table_id"));
  m.def("_open_dataset", &OpenDatasetPy, py::arg("uri"), py::arg("version"),
        py::arg("storage_options"), py::arg("storage_options_provider"),
        py::arg("namespace_client"), py::arg("table_id"));
  m.def("_credential_stats", [] {
    py::dict out;
    for (const auto& entry : io::CredentialRefreshStats()) {
      out[entry.provider_id.c_str()] = RefreshStatsToPython(entry);
    }
    return out;
  });
  m.def("_commit", &CommitPy, py::arg("uri"), py::arg("kind"), py::arg("schema"),
        py::arg("fragments"), py::arg("read_version"), py::arg("storage_options"),
        py::arg("storage_options_provider"));
}

}  // namespace lance::python
