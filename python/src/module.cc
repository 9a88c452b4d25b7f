// SPDX-License-Identifier: Apache-2.0
// The `lance_cpp._lance_cpp` extension module: each binding file registers its area.
// Errors come first, since every other area raises them.
#include "bindings.h"

PYBIND11_MODULE(_lance_cpp, m) {
  m.doc() =
      "Native core of lance_cpp (pylance's API on lance-cpp); use the lance_cpp package.";
  lance::python::BindErrors(m);
  lance::python::BindIo(m);
  lance::python::BindNamespace(m);
  lance::python::BindDataset(m);
  lance::python::BindFragment(m);
  lance::python::BindFile(m);
  lance::python::BindMutation(m);
  lance::python::BindMaintenance(m);
  lance::python::BindInspection(m);
}
