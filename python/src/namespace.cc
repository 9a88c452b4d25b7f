// SPDX-License-Identifier: Apache-2.0
// lance_cpp.namespace: namespaces crossing the language boundary both ways.
//
// - `_DirectoryNamespace`: the C++ ns::DirectoryNamespace for Python, taking and
// returning
//   plain dicts (the `model_dump()` of lance_namespace request models, as pylance's
//   PyDirectoryNamespace does); lance_cpp/namespace.py wraps it into the LanceNamespace
//   subclass `DirectoryNamespace` that speaks lance_namespace models. Failures raise the
//   lance_namespace error of the spec code (TableNotFoundError, ...), as pylance does.
// - NamespaceFromPython: any Python LanceNamespace seen by the core as
// ns::LanceNamespace.
//   Each call takes the GIL (the core calls from any thread), builds the lance_namespace
//   request model, calls the method and converts the returned model back. Our own
//   DirectoryNamespace is unwrapped to the C++ object so the core never takes the GIL
//   for it.

#include "lance/namespace/namespace.h"

#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "bindings.h"
#include "lance/namespace/directory_namespace.h"
#include "lance/namespace/model_fields.h"
#include "py_callback.h"

namespace lance::python {

namespace {

// Field lists: ns::VisitFields (lance/namespace/model_fields.h), found by ADL.

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

/// A dict with every set field (absent optionals are left out, so that the model's own
/// defaults apply on the Python side).
template <typename T>
py::dict ToDict(const T& value) {
  py::dict d;
  VisitFields(value, [&](const char* name, const auto& field) {
    using Field = std::decay_t<decltype(field)>;
    if constexpr (IsOptional<Field>::value) {
      if (!field.has_value()) return;
    }
    d[name] = py::cast(field);
  });
  return d;
}

/// The fields of `d` (a model_dump() or a plain dict); None and missing keys keep the
/// field's default. Raises TypeError naming the field for a value of the wrong type.
template <typename T>
T FromDict(py::handle obj, std::string_view what) {
  T value;
  if (obj.is_none()) return value;
  py::dict d;
  if (py::isinstance<py::dict>(obj)) {
    d = py::reinterpret_borrow<py::dict>(obj);
  } else if (py::hasattr(obj, "model_dump")) {
    d = obj.attr("model_dump")();
  } else {
    throw py::type_error(std::string(what) +
                         ": expected a lance_namespace model or a dict, got " +
                         std::string(py::str(py::type::of(obj).attr("__name__"))));
  }
  VisitFields(value, [&](const char* name, auto& field) {
    if (!d.contains(name)) return;
    py::object item = d[name];
    if (item.is_none()) return;
    using Field = std::decay_t<decltype(field)>;
    try {
      field = item.cast<Field>();
    } catch (py::cast_error&) {
      throw py::type_error(std::string(what) + ": field '" + name + "' has type " +
                           std::string(py::str(py::type::of(item).attr("__name__"))));
    }
  });
  return value;
}

/// The message of a namespace Status without its "<SpecName>: " prefix (the Python
/// exception class carries the kind).
std::string StripSpecPrefix(const Status& status, ns::ErrorCode code) {
  std::string prefix = std::string(ns::ErrorCodeName(code)) + ": ";
  const std::string& m = status.message();
  if (m.rfind(prefix, 0) == 0) return m.substr(prefix.size());
  return m;
}

/// Raises the lance_namespace exception of `status`'s spec code (TableNotFoundError,
/// ...), which is what pylance's namespaces raise.
[[noreturn]] void RaiseNamespaceStatus(const Status& status) {
  ns::ErrorCode code = ns::NamespaceErrorCode(status);
  py::object exc =
      py::module_::import("lance_namespace")
          .attr("from_error_code")(static_cast<int>(code), StripSpecPrefix(status, code));
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  throw py::error_already_set();
}

template <typename T>
T NsValueOrRaise(Result<T> result) {
  if (!result.ok()) RaiseNamespaceStatus(result.status());
  return std::move(result).MoveValueUnsafe();
}

/// Calls `op` on the C++ namespace with the GIL released.
template <typename Req, typename Fn>
py::dict CallNative(py::handle request, std::string_view what, Fn&& op) {
  Req req = FromDict<Req>(request, what);
  auto result = WithoutGil([&] { return op(req); });
  return ToDict(NsValueOrRaise(std::move(result)));
}

template <typename Req, typename Fn>
void CheckNative(py::handle request, std::string_view what, Fn&& op) {
  Req req = FromDict<Req>(request, what);
  Status st = WithoutGil([&] { return op(req); });
  if (!st.ok()) RaiseNamespaceStatus(st);
}

// -- a Python namespace behind the C++ interface ----------------------------------------

class PyNamespace final : public ns::LanceNamespace {
 public:
  /// REQUIRES: the GIL is held.
  explicit PyNamespace(py::object obj) : obj_(std::move(obj)) {}
  ~PyNamespace() override { ReleasePyObject(std::move(obj_)); }

  std::string namespace_id() const override {
    py::gil_scoped_acquire gil;
    try {
      return py::str(obj_.attr("namespace_id")()).cast<std::string>();
    } catch (py::error_already_set&) {
      // namespace_id() is abstract in lance_namespace; a namespace without one still
      // needs an identity for messages and cache keys.
      return std::string(py::str(py::type::of(obj_).attr("__qualname__"))) +
             " { object: " + std::to_string(reinterpret_cast<uintptr_t>(obj_.ptr())) +
             " }";
    }
  }

  Result<ns::ListNamespacesResponse> ListNamespaces(
      const ns::ListNamespacesRequest& r) override {
    return Call<ns::ListNamespacesResponse>("list_namespaces", "ListNamespacesRequest",
                                            r);
  }
  Result<ns::DescribeNamespaceResponse> DescribeNamespace(
      const ns::DescribeNamespaceRequest& r) override {
    return Call<ns::DescribeNamespaceResponse>("describe_namespace",
                                               "DescribeNamespaceRequest", r);
  }
  Result<ns::CreateNamespaceResponse> CreateNamespace(
      const ns::CreateNamespaceRequest& r) override {
    return Call<ns::CreateNamespaceResponse>("create_namespace", "CreateNamespaceRequest",
                                             r);
  }
  Result<ns::DropNamespaceResponse> DropNamespace(
      const ns::DropNamespaceRequest& r) override {
    return Call<ns::DropNamespaceResponse>("drop_namespace", "DropNamespaceRequest", r);
  }
  Status NamespaceExists(const ns::NamespaceExistsRequest& r) override {
    return Call<ns::NamespaceExistsRequest>("namespace_exists", "NamespaceExistsRequest",
                                            r)
        .status();
  }
  Result<ns::ListTablesResponse> ListTables(const ns::ListTablesRequest& r) override {
    return Call<ns::ListTablesResponse>("list_tables", "ListTablesRequest", r);
  }
  Result<ns::DescribeTableResponse> DescribeTable(
      const ns::DescribeTableRequest& r) override {
    return Call<ns::DescribeTableResponse>("describe_table", "DescribeTableRequest", r);
  }
  Result<ns::DeclareTableResponse> DeclareTable(
      const ns::DeclareTableRequest& r) override {
    return Call<ns::DeclareTableResponse>("declare_table", "DeclareTableRequest", r);
  }
  Result<ns::CreateEmptyTableResponse> CreateEmptyTable(
      const ns::CreateEmptyTableRequest& r) override {
    return Call<ns::CreateEmptyTableResponse>("create_empty_table",
                                              "CreateEmptyTableRequest", r);
  }
  Result<ns::RegisterTableResponse> RegisterTable(
      const ns::RegisterTableRequest& r) override {
    return Call<ns::RegisterTableResponse>("register_table", "RegisterTableRequest", r);
  }
  Result<ns::DeregisterTableResponse> DeregisterTable(
      const ns::DeregisterTableRequest& r) override {
    return Call<ns::DeregisterTableResponse>("deregister_table", "DeregisterTableRequest",
                                             r);
  }
  Status TableExists(const ns::TableExistsRequest& r) override {
    return Call<ns::TableExistsRequest>("table_exists", "TableExistsRequest", r).status();
  }
  Result<ns::DropTableResponse> DropTable(const ns::DropTableRequest& r) override {
    return Call<ns::DropTableResponse>("drop_table", "DropTableRequest", r);
  }

 private:
  /// One Python call: request model from `request`, `obj.<method>(model)`, response model
  /// (or dict) back to Resp. Errors: lance_namespace errors keep their spec code; a
  /// missing method and NotImplementedError are Unsupported (so declare_table falls back
  /// to create_empty_table); other exceptions map by class (StatusFromPythonError).
  template <typename Resp, typename Req>
  Result<Resp> Call(const char* method, const char* model, const Req& request) {
    py::gil_scoped_acquire gil;
    std::string context = std::string(method) + " of " + namespace_id();
    try {
      if (!py::hasattr(obj_, method)) {
        return ns::NamespaceError(
            ns::ErrorCode::kUnsupported,
            std::string(method) + " is not supported by " + namespace_id());
      }
      auto module = py::module_::import("lance_namespace");
      py::object req_model = module.attr(model).attr("from_dict")(ToDict(request));
      py::object response = obj_.attr(method)(req_model);
      if constexpr (std::is_same_v<Resp, Req>) {
        return Resp{};  // *_exists: success is the answer; the response is empty
      } else {
        return FromDict<Resp>(response, context);
      }
    } catch (py::error_already_set& e) {
      auto errors = py::module_::import("lance_namespace.errors");
      if (e.matches(errors.attr("LanceNamespaceError"))) {
        int code = py::int_(e.value().attr("code")).cast<int>();
        if (code >= 0 &&
            code <= static_cast<int>(ns::ErrorCode::kTableBranchAlreadyExists)) {
          return ns::NamespaceError(static_cast<ns::ErrorCode>(code),
                                    context + ": " + std::string(py::str(e.value())));
        }
      }
      if (e.matches(PyExc_NotImplementedError)) {
        return ns::NamespaceError(ns::ErrorCode::kUnsupported,
                                  context + ": " + std::string(py::str(e.value())));
      }
      return StatusFromPythonError(e, context);
    } catch (py::type_error& e) {
      return ns::NamespaceError(ns::ErrorCode::kInvalidInput, context + ": " + e.what());
    } catch (py::cast_error& e) {
      return ns::NamespaceError(ns::ErrorCode::kInvalidInput, context + ": " + e.what());
    } catch (const std::exception& e) {
      // Nothing may escape into the core's threads.
      return ns::NamespaceError(ns::ErrorCode::kInternal, context + ": " + e.what());
    }
  }

  py::object obj_;
};

}  // namespace

std::shared_ptr<ns::LanceNamespace> NamespaceFromPython(py::handle obj) {
  if (!obj || obj.is_none()) return nullptr;
  // Our DirectoryNamespace (exactly: a subclass may override methods) and the native
  // object itself are unwrapped: the core then calls C++ directly, without the GIL.
  // Not while it counts calls (ops_metrics_enabled): the counting is in Python.
  if (py::isinstance<ns::DirectoryNamespace>(obj)) {
    return obj.cast<std::shared_ptr<ns::DirectoryNamespace>>();
  }
  auto dir_cls = py::module_::import("lance_cpp.namespace").attr("DirectoryNamespace");
  if (py::type::of(obj).is(dir_cls) && obj.attr("_native_passthrough").cast<bool>()) {
    return obj.attr("_inner").cast<std::shared_ptr<ns::DirectoryNamespace>>();
  }
  if (!py::hasattr(obj, "namespace_id")) {
    throw py::type_error(
        "namespace must be a lance_namespace.LanceNamespace (with namespace_id() and the "
        "table operations); got " +
        std::string(py::str(py::type::of(obj).attr("__name__"))));
  }
  return std::make_shared<PyNamespace>(py::reinterpret_borrow<py::object>(obj));
}

void BindNamespace(py::module_& m) {
  using DirNs = ns::DirectoryNamespace;
  py::class_<DirNs, std::shared_ptr<DirNs>>(m, "_DirectoryNamespace")
      .def(py::init([](const std::map<std::string, std::string>& properties) {
             Result<std::shared_ptr<DirNs>> made =
                 WithoutGil([&] { return DirNs::FromProperties(properties); });
             return NsValueOrRaise(std::move(made));
           }),
           py::arg("properties"))
      .def("namespace_id", &DirNs::namespace_id)
      .def("list_namespaces",
           [](DirNs& n, py::handle r) {
             return CallNative<ns::ListNamespacesRequest>(
                 r, "list_namespaces",
                 [&](const auto& q) { return n.ListNamespaces(q); });
           })
      .def("describe_namespace",
           [](DirNs& n, py::handle r) {
             return CallNative<ns::DescribeNamespaceRequest>(
                 r, "describe_namespace",
                 [&](const auto& q) { return n.DescribeNamespace(q); });
           })
      .def("create_namespace",
           [](DirNs& n, py::handle r) {
             return CallNative<ns::CreateNamespaceRequest>(
                 r, "create_namespace",
                 [&](const auto& q) { return n.CreateNamespace(q); });
           })
      .def("drop_namespace",
           [](DirNs& n, py::handle r) {
             return CallNative<ns::DropNamespaceRequest>(
                 r, "drop_namespace", [&](const auto& q) { return n.DropNamespace(q); });
           })
      .def("namespace_exists",
           [](DirNs& n, py::handle r) {
             CheckNative<ns::NamespaceExistsRequest>(
                 r, "namespace_exists",
                 [&](const auto& q) { return n.NamespaceExists(q); });
           })
      .def("list_tables",
           [](DirNs& n, py::handle r) {
             return CallNative<ns::ListTablesRequest>(
                 r, "list_tables", [&](const auto& q) { return n.ListTables(q); });
           })
      .def("describe_table",
           [](DirNs& n, py::handle r) {
             return CallNative<ns::DescribeTableRequest>(
                 r, "describe_table", [&](const auto& q) { return n.DescribeTable(q); });
           })
      .def("declare_table",
           [](DirNs& n, py::handle r) {
             return CallNative<ns::DeclareTableRequest>(
                 r, "declare_table", [&](const auto& q) { return n.DeclareTable(q); });
           })
      .def("create_empty_table",
           [](DirNs& n, py::handle r) {
             return CallNative<ns::CreateEmptyTableRequest>(
                 r, "create_empty_table",
                 [&](const auto& q) { return n.CreateEmptyTable(q); });
           })
      .def("register_table",
           [](DirNs& n, py::handle r) {
             return CallNative<ns::RegisterTableRequest>(
                 r, "register_table", [&](const auto& q) { return n.RegisterTable(q); });
           })
      .def("deregister_table",
           [](DirNs& n, py::handle r) {
             return CallNative<ns::DeregisterTableRequest>(
                 r, "deregister_table",
                 [&](const auto& q) { return n.DeregisterTable(q); });
           })
      .def("table_exists",
           [](DirNs& n, py::handle r) {
             CheckNative<ns::TableExistsRequest>(
                 r, "table_exists", [&](const auto& q) { return n.TableExists(q); });
           })
      .def("drop_table", [](DirNs& n, py::handle r) {
        return CallNative<ns::DropTableRequest>(
            r, "drop_table", [&](const auto& q) { return n.DropTable(q); });
      });

  // Test hook: calls operation `op` of `namespace` (any Python namespace, through
  // NamespaceFromPython) the way the core does -- from `threads` C++ threads at once,
  // with the GIL released by the caller -- and returns each call's response dict (or the
  // raised error, as for the core: the exception of the Status).
  m.def(
      "_call_namespace",
      [](py::handle obj, const std::string& op, py::handle request, int threads) {
        auto nsp = NamespaceFromPython(obj);
        if (!nsp) throw py::value_error("namespace is None");
        // Requests are converted here, with the GIL; responses after the threads joined.
        ns::ListNamespacesRequest ln = FromDict<ns::ListNamespacesRequest>(request, op);
        ns::DescribeNamespaceRequest dn =
            FromDict<ns::DescribeNamespaceRequest>(request, op);
        ns::ListTablesRequest lt = FromDict<ns::ListTablesRequest>(request, op);
        ns::DescribeTableRequest dt = FromDict<ns::DescribeTableRequest>(request, op);
        ns::DeclareTableRequest de = FromDict<ns::DeclareTableRequest>(request, op);
        ns::TableExistsRequest te = FromDict<ns::TableExistsRequest>(request, op);
        std::vector<Status> statuses(threads);
        std::vector<std::optional<ns::ListNamespacesResponse>> r_ln(threads);
        std::vector<std::optional<ns::DescribeNamespaceResponse>> r_dn(threads);
        std::vector<std::optional<ns::ListTablesResponse>> r_lt(threads);
        std::vector<std::optional<ns::DescribeTableResponse>> r_dt(threads);
        std::vector<std::optional<ns::DeclareTableResponse>> r_de(threads);
        std::string id;
        WithoutGil([&] {
          std::vector<std::thread> pool;
          for (int t = 0; t < threads; ++t) {
            pool.emplace_back([&, t] {
              auto keep = [&](auto result, auto& slot) {
                if (result.ok()) {
                  slot[t] = std::move(result).MoveValueUnsafe();
                } else {
                  statuses[t] = result.status();
                }
              };
              if (op == "list_namespaces") {
                keep(nsp->ListNamespaces(ln), r_ln);
              } else if (op == "describe_namespace") {
                keep(nsp->DescribeNamespace(dn), r_dn);
              } else if (op == "list_tables") {
                keep(nsp->ListTables(lt), r_lt);
              } else if (op == "describe_table") {
                keep(nsp->DescribeTable(dt), r_dt);
              } else if (op == "declare_table") {
                keep(nsp->DeclareTable(de), r_de);
              } else if (op == "table_exists") {
                statuses[t] = nsp->TableExists(te);
              } else {
                statuses[t] = Status::Invalid("unknown op " + op);
              }
            });
          }
          for (auto& th : pool) th.join();
          id = nsp->namespace_id();
          nsp.reset();
        });
        py::list results;
        for (int t = 0; t < threads; ++t) {
          if (!statuses[t].ok()) {
            results.append(
                py::make_tuple(static_cast<int>(ns::NamespaceErrorCode(statuses[t])),
                               statuses[t].message()));
          } else if (r_ln[t]) {
            results.append(ToDict(*r_ln[t]));
          } else if (r_dn[t]) {
            results.append(ToDict(*r_dn[t]));
          } else if (r_lt[t]) {
            results.append(ToDict(*r_lt[t]));
          } else if (r_dt[t]) {
            results.append(ToDict(*r_dt[t]));
          } else if (r_de[t]) {
            results.append(ToDict(*r_de[t]));
          } else {
            results.append(py::dict());
          }
        }
        return py::make_tuple(id, results);
      },
      py::arg("namespace"), py::arg("op"), py::arg("request"), py::arg("threads") = 1);
}

}  // namespace lance::python
