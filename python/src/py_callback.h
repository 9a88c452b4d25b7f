// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the adapters that let the C++ core call Python objects (io.cc:
// storage options providers, namespace.cc: namespaces). Private to the extension.
#pragma once

#include <string>

#include "bindings.h"
#include "gil.h"

namespace lance::python {

/// Drops a reference held by a C++ object that may die on any thread: takes the GIL for
/// it, or leaks the reference when the interpreter is shutting down (taking the GIL
/// then would hang). Call it from destructors of adapters.
void ReleasePyObject(py::object obj);

/// The Status for a Python exception raised by a callback: "<context>: <Type>: <message>"
/// with a code from the exception's class (NotImplementedError -> NotImplemented,
/// FileNotFoundError -> NotFound, FileExistsError -> AlreadyExists, PermissionError ->
/// Forbidden, ValueError/TypeError/KeyError -> Invalid, TimeoutError/ConnectionError ->
/// Unavailable, others -> IOError). REQUIRES: the GIL is held.
Status StatusFromPythonError(py::error_already_set& e, const std::string& context);

}  // namespace lance::python
