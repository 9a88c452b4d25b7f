// SPDX-License-Identifier: Apache-2.0
// Bindings of the Dataset mutation operations (python/lance_cpp/_mutation.py wraps them).
#include "bindings.h"

namespace lance::python {

void BindMutation(py::module_& /*m*/) {}

}  // namespace lance::python
