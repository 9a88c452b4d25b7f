// SPDX-License-Identifier: Apache-2.0
// The one way the extension lets go of the GIL. Private to the extension.
#pragma once

#include <Python.h>

#include <utility>

#include "bindings.h"

namespace lance::python {

/// `fn()` with the GIL released (I/O and waits in the core); returns what it returns. The
/// result is built before the GIL is taken back, so it must not own Python objects. Call
/// it only with the GIL held.
template <typename Fn>
auto WithoutGil(Fn&& fn) {
  py::gil_scoped_release release;
  return fn();
}

/// The value of `fn()` (a Result, computed with the GIL released as by WithoutGil); its
/// error is raised as the Lance exception, with the GIL held again.
template <typename Fn>
auto ValueWithoutGil(Fn&& fn) {
  return ValueOrRaise(WithoutGil(std::forward<Fn>(fn)));
}

/// Resets `ptr` with the GIL released if this thread holds it. For native objects that
/// may own a credentials source over a Python provider: the source's destructor waits for
/// an in-flight fetch, and that fetch may be waiting for the GIL.
template <typename Ptr>
void ResetWithoutGil(Ptr& ptr) {
  if (PyGILState_Check()) {
    WithoutGil([&] { ptr = nullptr; });
  } else {
    ptr = nullptr;
  }
}

}  // namespace lance::python
