// SPDX-License-Identifier: Apache-2.0
// Bindings of the Dataset maintenance operations (python/lance_cpp/_maintenance.py wraps
// them).
#include "bindings.h"

namespace lance::python {

void BindMaintenance(py::module_& /*m*/) {}

}  // namespace lance::python
