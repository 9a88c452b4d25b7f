// SPDX-License-Identifier: Apache-2.0
// Status -> Python exception (with attributes `code`, the Status code name, and
// `retryable`). Every class derives from lance_cpp.LanceError and from the
// builtin exception pylance code catches for the same failure, so `except ValueError`
// written against pylance (which raises ValueError for a missing dataset) keeps working,
// and so does `except FileNotFoundError`.
#include <string>

#include "bindings.h"

namespace lance::python {
namespace {

// Created once by BindErrors, alive as long as the module (held by it as attributes too).
struct ErrorClasses {
  py::object base, not_found, already_exists, permission, invalid, not_implemented, other;
};
ErrorClasses* g_errors = nullptr;

py::object MakeClass(py::module_& m, const char* name, py::tuple bases, const char* doc) {
  py::dict ns;
  ns["__module__"] = "lance_cpp";
  ns["__doc__"] = doc;
  py::object cls = py::reinterpret_borrow<py::object>(
      reinterpret_cast<PyObject*>(&PyType_Type))(name, bases, ns);
  m.attr(name) = cls;
  return cls;
}

py::object Builtin(const char* name) {
  return py::module_::import("builtins").attr(name);
}

}  // namespace

void BindErrors(py::module_& m) {
  auto* e = new ErrorClasses();  // intentionally leaked: exception classes live forever
  e->base = MakeClass(m, "LanceError", py::make_tuple(Builtin("Exception")),
                      "Base class of every error raised by lance_cpp.");
  e->not_found = MakeClass(
      m, "LanceNotFoundError",
      py::make_tuple(e->base, Builtin("FileNotFoundError"), Builtin("ValueError")),
      "A dataset, version, file or table does not exist (also a ValueError, as "
      "pylance's).");
  e->already_exists = MakeClass(m, "LanceAlreadyExistsError",
                                py::make_tuple(e->base, Builtin("FileExistsError")),
                                "Create found a dataset, file or table already there.");
  e->permission = MakeClass(
      m, "LancePermissionError", py::make_tuple(e->base, Builtin("PermissionError")),
      "Credentials missing, rejected (401), expired or not allowed (403).");
  e->invalid = MakeClass(m, "LanceInvalidInputError",
                         py::make_tuple(e->base, Builtin("ValueError")),
                         "Bad argument, malformed input or schema mismatch.");
  e->not_implemented = MakeClass(
      m, "LanceNotImplementedError",
      py::make_tuple(e->base, Builtin("NotImplementedError")),
      "A valid request lance-cpp does not support (yet), e.g. file format 2.1.");
  e->other =
      MakeClass(m, "LanceIOError", py::make_tuple(e->base, Builtin("OSError")),
                "I/O failed, a commit conflicted, a file is corrupt, or another error.");
  g_errors = e;
}

void RaiseStatus(const Status& status) {
  if (g_errors == nullptr) throw std::runtime_error(status.ToString());
  py::object cls;
  switch (status.code()) {
    case StatusCode::kNotFound:
      cls = g_errors->not_found;
      break;
    case StatusCode::kAlreadyExists:
      cls = g_errors->already_exists;
      break;
    case StatusCode::kUnauthorized:
    case StatusCode::kForbidden:
    case StatusCode::kTokenExpired:
      cls = g_errors->permission;
      break;
    case StatusCode::kInvalid:
      cls = g_errors->invalid;
      break;
    case StatusCode::kNotImplemented:
      cls = g_errors->not_implemented;
      break;
    default:
      cls = g_errors->other;
      break;
  }
  // The message is the library's (never a secret); the code name helps when logged.
  std::string text = std::string(StatusCodeName(status.code())) + ": " + status.message();
  // PyErr_SetObject + error_already_set, so the Python class is raised as is. The
  // instance says whether trying again may succeed (e.g. a retryable commit conflict).
  py::gil_scoped_acquire gil;
  py::object error = cls(text);
  error.attr("retryable") = py::bool_(status.retryable());
  error.attr("code") = py::str(StatusCodeName(status.code()));
  PyErr_SetObject(cls.ptr(), error.ptr());
  throw py::error_already_set();
}

}  // namespace lance::python
