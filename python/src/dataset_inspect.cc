// SPDX-License-Identifier: Apache-2.0
// Bindings that inspect a Dataset without changing it (python/lance_cpp/_reads.py wraps
// them): data statistics, dataset statistics, take by row address, validate,
// max_field_id, indices.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "gil.h"
#include "lance/dataset/dataset.h"

namespace lance::python {

void BindInspection(py::module_& m) {
  m.def(
      "_data_stats",
      [](const Dataset& ds) {
        const DataStatistics stats = ValueWithoutGil([&] { return ds.DataStats(); });
        py::list out;
        for (const FieldStatistics& f : stats.fields) {
          out.append(py::make_tuple(f.id, f.bytes_on_disk));
        }
        return out;
      },
      py::arg("dataset"));
  m.def(
      "_dataset_stats",
      [](const Dataset& ds, int64_t max_rows_per_group) {
        DatasetStatistics s =
            ValueWithoutGil([&] { return ds.Stats(max_rows_per_group); });
        py::dict out;
        out["num_deleted_rows"] = s.num_deleted_rows;
        out["num_fragments"] = s.num_fragments;
        out["num_small_files"] = s.num_small_files;
        return out;
      },
      py::arg("dataset"), py::arg("max_rows_per_group"));
  m.def(
      "_take_rows",
      [](const Dataset& ds, const std::vector<uint64_t>& row_addresses,
         const std::optional<std::vector<std::string>>& columns, bool with_row_id) {
        const TakeOptions options = TakeOptionsFromPython(columns, with_row_id);
        return ToPyArrowTable(
            ValueWithoutGil([&] { return ds.TakeRowAddresses(row_addresses, options); }));
      },
      py::arg("dataset"), py::arg("row_addresses"), py::arg("columns") = py::none(),
      py::arg("with_row_id") = false);
  m.def(
      "_validate",
      [](const Dataset& ds, std::optional<uint64_t> fragment_id) {
        Status status = WithoutGil([&] { return ds.Validate(fragment_id); });
        CheckStatus(status);
      },
      py::arg("dataset"), py::arg("fragment_id") = py::none());
  m.def(
      "_max_field_id", [](const Dataset& ds) { return ds.max_field_id(); },
      py::arg("dataset"));
  m.def(
      "_indices",
      [](const Dataset& ds) {
        const std::vector<IndexSummary> indices =
            ValueWithoutGil([&] { return ds.Indices(); });
        py::list out;
        for (const IndexSummary& index : indices) {
          py::dict d;
          d["name"] = index.name;
          d["uuid"] = index.uuid;
          d["fields"] = index.fields;
          d["field_names"] = index.field_names;
          d["dataset_version"] = index.dataset_version;
          d["fragment_ids"] =
              index.fragment_ids ? py::cast(*index.fragment_ids) : py::object(py::none());
          d["details_type_url"] = index.details_type_url;
          out.append(std::move(d));
        }
        return out;
      },
      py::arg("dataset"));
}

}  // namespace lance::python
