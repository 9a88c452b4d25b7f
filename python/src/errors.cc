// SPDX-License-Identifier: Apache-2.0
// Status -> Python exception (with attributes `code`, the Status code name, and
// `retryable`). Every class derives from lance_cpp.LanceError and from the
// builtin exception pylance code catches for the same failure, so `except ValueError`
// written against pylance (which raises ValueError for a missing dataset) keeps working,
// and so does `except FileNotFoundError`.
#include <string>
#include <vector>

#include "bindings.h"

namespace lance::python {
namespace {

// One row per exception class: its name, the builtins it derives from beside
// LanceError, its docstring and the Status codes raised as it. The last row, with no
// codes, takes every other code.
struct ErrorKind {
  const char* name;
  std::vector<const char*> builtins;
  const char* doc;
  std::vector<StatusCode> codes;
};

const std::vector<ErrorKind>& ErrorKinds() {
  static const std::vector<ErrorKind> kKinds = {
      {"LanceNotFoundError",
       {"FileNotFoundError", "ValueError"},
       "A dataset, version, file or table does not exist (also a ValueError, as "
       "pylance's).",
       {StatusCode::kNotFound}},
      {"LanceAlreadyExistsError",
       {"FileExistsError"},
       "Create found a dataset, file or table already there.",
       {StatusCode::kAlreadyExists}},
      {"LancePermissionError",
       {"PermissionError"},
       "Credentials missing, rejected (401), expired or not allowed (403).",
       {StatusCode::kUnauthorized, StatusCode::kForbidden, StatusCode::kTokenExpired}},
      {"LanceInvalidInputError",
       {"ValueError"},
       "Bad argument, malformed input or schema mismatch.",
       {StatusCode::kInvalid}},
      {"LanceNotImplementedError",
       {"NotImplementedError"},
       "A valid request lance-cpp does not support (yet), e.g. file format 2.1.",
       {StatusCode::kNotImplemented}},
      {"LanceIOError",
       {"OSError"},
       "I/O failed, a commit conflicted, a file is corrupt, or another error.",
       {}},
  };
  return kKinds;
}

// Created once by BindErrors, alive as long as the module (held by it as attributes too):
// one class per row of ErrorKinds(), in its order.
std::vector<py::object>* g_classes = nullptr;

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
  // Intentionally leaked: exception classes live forever.
  auto* classes = new std::vector<py::object>();
  const py::object base = MakeClass(m, "LanceError", py::make_tuple(Builtin("Exception")),
                                    "Base class of every error raised by lance_cpp.");
  for (const ErrorKind& kind : ErrorKinds()) {
    py::list bases;
    bases.append(base);
    for (const char* builtin : kind.builtins) bases.append(Builtin(builtin));
    classes->push_back(MakeClass(m, kind.name, py::tuple(bases), kind.doc));
  }
  g_classes = classes;
}

void RaiseStatus(const Status& status) {
  if (g_classes == nullptr) throw std::runtime_error(status.ToString());
  const std::vector<ErrorKind>& kinds = ErrorKinds();
  size_t kind = kinds.size() - 1;  // the last row takes every code no other row names
  for (size_t i = 0; i < kinds.size(); ++i) {
    for (StatusCode code : kinds[i].codes) {
      if (code == status.code()) kind = i;
    }
  }
  // The message is the library's (never a secret); the code name helps when logged.
  std::string text = std::string(StatusCodeName(status.code())) + ": " + status.message();
  // PyErr_SetObject + error_already_set, so the Python class is raised as is. The
  // instance says whether trying again may succeed (e.g. a retryable commit conflict).
  py::gil_scoped_acquire gil;
  const py::object& cls = (*g_classes)[kind];
  py::object error = cls(text);
  error.attr("retryable") = py::bool_(status.retryable());
  error.attr("code") = py::str(StatusCodeName(status.code()));
  PyErr_SetObject(cls.ptr(), error.ptr());
  throw py::error_already_set();
}

}  // namespace lance::python
