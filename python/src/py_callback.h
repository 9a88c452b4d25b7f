// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the adapters that let the C++ core call Python objects (io.cc:
// storage options providers, namespace.cc: namespaces). Private to the extension.
#pragma once

#include <string>

#include "bindings.h"

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

namespace lance::python {

/// `fn()` with the GIL released (for I/O); returns what it returns.
template <typename Fn>
auto WithoutGil(Fn&& fn) {
  py::gil_scoped_release release;
  return fn();
}

}  // namespace lance::python

namespace lance::python {

/// Resets `ptr` with the GIL released if this thread holds it. For native objects that
/// may own a credentials source over a Python provider: the source's destructor waits for
/// an in-flight fetch, and that fetch may be waiting for the GIL.
template <typename Ptr>
void ResetWithoutGil(Ptr& ptr) {
  if (PyGILState_Check()) {
    py::gil_scoped_release release;
    ptr = nullptr;
  } else {
    ptr = nullptr;
  }
}

}  // namespace lance::python
