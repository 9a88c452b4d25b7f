// SPDX-License-Identifier: Apache-2.0
// Bindings of the Dataset surface operations (python/lance_cpp/_surface.py wraps them).
#include "bindings.h"

namespace lance::python {

void BindSurface(py::module_& /*m*/) {}

}  // namespace lance::python
