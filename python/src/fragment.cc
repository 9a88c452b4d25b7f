// SPDX-License-Identifier: Apache-2.0
// Distributed writes: write_fragments (data files, no commit) and FragmentMetadata in
// pylance's JSON shape, so that fragments travel between workers and the committing
// driver -- and between pylance and lance_cpp -- as JSON.
#include "lance/dataset/fragment.h"

#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "gil.h"
#include "lance/dataset/dataset.h"
#include "lance/io/storage_access.h"

namespace lance::python {

void BindFragment(py::module_& m) {
  py::class_<FragmentMetadata>(
      m, "_FragmentMetadata",
      "A fragment's manifest entry (use lance_cpp.FragmentMetadata).")
      .def_readonly("id", &FragmentMetadata::id)
      .def_readonly("physical_rows", &FragmentMetadata::physical_rows)
      .def_property_readonly("num_rows", &FragmentMetadata::num_rows)
      .def("to_json", &FragmentMetadata::ToJson)
      .def_static(
          "from_json",
          [](const std::string& json) {
            return ValueOrRaise(FragmentMetadata::FromJson(json));
          },
          py::arg("json"));

  m.def(
      "_write_fragments",
      [](py::handle data, const std::string& uri, const std::string& mode,
         int64_t max_rows_per_file, int64_t max_rows_per_group,
         const std::string& data_storage_version, py::handle storage_options,
         py::handle provider) {
        WriteParams params =
            WriteParamsFromPython(mode, max_rows_per_file, max_rows_per_group,
                                  data_storage_version, storage_options, provider);
        RecordBatchReaderPtr reader = FromPyArrowStream(data);
        Result<std::vector<FragmentMetadata>> fragments =
            WithoutGil([&] { return WriteFragments(*reader, uri, std::move(params)); });
        return ValueOrRaise(std::move(fragments));
      },
      py::arg("data"), py::arg("uri"), py::arg("mode"), py::arg("max_rows_per_file"),
      py::arg("max_rows_per_group"), py::arg("data_storage_version"),
      py::arg("storage_options"), py::arg("storage_options_provider"));
}

}  // namespace lance::python
