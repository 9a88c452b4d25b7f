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

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "bindings.h"
#include "lance/namespace/dataset_ops.h"
#include "lance/namespace/directory_namespace.h"
#include "lance/namespace/model_fields.h"
#include "lance/namespace/operations.h"
#include "lance/namespace/rest_namespace.h"
#include "lance/server/rest_adapter.h"
#include "py_callback.h"

namespace lance::python {

namespace {

// Field lists: ns::VisitFields (lance/namespace/model_fields.h), found by ADL.

using ns::IsOptional;
using ns::IsStringMap;
using ns::IsVector;

template <typename T>
py::object ToPy(const T& value);

/// A dict with every set field of a model, nested models and lists of them converted
/// recursively, JsonValue as the parsed JSON (json.loads); absent optionals are left
/// out, so that the lance_namespace model's own defaults apply. Keys are the spec's JSON
/// names (the models' aliases: `manifestSize`), which is what `Model.from_dict` reads.
template <typename T>
py::dict ToDict(const T& value) {
  py::dict d;
  ns::VisitFields(value, [&](const char* name, const auto& field) {
    using Field = std::decay_t<decltype(field)>;
    if constexpr (IsOptional<Field>::value) {
      if (!field.has_value()) return;
    }
    d[name] = ToPy(field);
  });
  return d;
}

template <typename T>
py::object ToPy(const T& value) {
  if constexpr (IsOptional<T>::value) {
    return value.has_value() ? ToPy(*value) : py::none();
  } else if constexpr (std::is_same_v<T, ns::JsonValue>) {
    return py::module_::import("json").attr("loads")(value.json);
  } else if constexpr (ns::kIsModel<T>) {
    return ToDict(value);
  } else if constexpr (IsVector<T>::value) {
    py::list out;
    for (const auto& item : value) out.append(ToPy(item));
    return out;
  } else if constexpr (IsStringMap<T>::value) {
    py::dict out;
    for (const auto& [key, item] : value) out[py::str(key)] = ToPy(item);
    return out;
  } else {
    return py::cast(value);
  }
}

std::string TypeName(py::handle obj) {
  return std::string(py::str(py::type::of(obj).attr("__name__")));
}

// TypeError "<expectation>; got <type>" for an `obj` without `method`.
void RequireMethod(py::handle obj, const char* method, const char* expectation) {
  if (!py::hasattr(obj, method)) {
    throw py::type_error(std::string(expectation) + "; got " + TypeName(obj));
  }
}

// `obj`, which must have `method` (RequireMethod), behind the C++ interface `Wrapper`
// implements by calling it.
template <typename Wrapper>
std::shared_ptr<Wrapper> WrapPythonObject(py::handle obj, const char* method,
                                          const char* expectation) {
  RequireMethod(obj, method, expectation);
  return std::make_shared<Wrapper>(py::reinterpret_borrow<py::object>(obj));
}

[[noreturn]] void WrongType(const std::string& path, const char* expected,
                            py::handle item) {
  throw py::type_error(path + ": expected " + expected + ", got " + TypeName(item));
}

/// The dict of a model object: lance_namespace models by their `to_dict()` (spec names,
/// aliases included, None left out), other pydantic models by `model_dump()`, dicts as
/// they are.
py::dict ModelDict(py::handle obj, const std::string& path) {
  if (py::isinstance<py::dict>(obj)) return py::reinterpret_borrow<py::dict>(obj);
  if (py::hasattr(obj, "to_dict")) {
    py::object d = obj.attr("to_dict")();
    if (py::isinstance<py::dict>(d)) return d;
  }
  if (py::hasattr(obj, "model_dump")) return obj.attr("model_dump")();
  WrongType(path, "a lance_namespace model or a dict", obj);
}

/// "manifestSize" -> "manifest_size": the Python attribute name of an aliased field
/// (a model_dump() without by_alias carries those).
std::string SnakeCase(const char* name) {
  std::string out;
  for (const char* c = name; *c != 0; ++c) {
    if (*c >= 'A' && *c <= 'Z') {
      out += '_';
      out += static_cast<char>(*c - 'A' + 'a');
    } else {
      out += *c;
    }
  }
  return out;
}

/// The C++ value of a Python value, recursively (models, lists, dicts, JSON values);
/// TypeError naming the field path for a value of the wrong type.
template <typename T>
T FromPy(py::handle obj, const std::string& path);

template <typename T>
T ModelFromPy(py::handle obj, const std::string& path) {
  T value;
  if (obj.is_none()) return value;
  py::dict d = ModelDict(obj, path);
  ns::VisitFields(value, [&](const char* name, auto& field) {
    py::object item;
    if (d.contains(name)) {
      item = d[name];
    } else {
      std::string snake = SnakeCase(name);
      if (snake == name || !d.contains(snake.c_str())) return;
      item = d[snake.c_str()];
    }
    if (item.is_none()) return;
    using Field = std::decay_t<decltype(field)>;
    field = FromPy<Field>(item, path + "." + name);
  });
  return value;
}

/// The compact JSON text of a JSON-able Python value (a model by its to_dict()).
ns::JsonValue JsonFromPy(py::handle obj, const std::string& path) {
  py::object plain = py::reinterpret_borrow<py::object>(obj);
  if (!py::isinstance<py::dict>(obj) && py::hasattr(obj, "to_dict")) {
    plain = obj.attr("to_dict")();
  }
  ns::JsonValue value;
  try {
    py::object text = py::module_::import("json").attr("dumps")(
        plain, py::arg("separators") = py::make_tuple(",", ":"));
    value.json = text.cast<std::string>();
  } catch (py::error_already_set&) {
    WrongType(path, "a JSON value", obj);
  }
  return value;
}

template <typename T>
T FromPy(py::handle obj, const std::string& path) {
  if constexpr (IsOptional<T>::value) {
    if (obj.is_none()) return std::nullopt;
    return FromPy<typename T::value_type>(obj, path);
  } else if constexpr (std::is_same_v<T, ns::JsonValue>) {
    return JsonFromPy(obj, path);
  } else if constexpr (ns::kIsModel<T>) {
    return ModelFromPy<T>(obj, path);
  } else if constexpr (IsVector<T>::value) {
    if (py::isinstance<py::str>(obj) || py::isinstance<py::bytes>(obj) ||
        !(py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj))) {
      WrongType(path, "a list", obj);
    }
    T out;
    size_t i = 0;
    for (py::handle item : obj) {
      out.push_back(
          FromPy<typename T::value_type>(item, path + "[" + std::to_string(i++) + "]"));
    }
    return out;
  } else if constexpr (IsStringMap<T>::value) {
    if (!py::isinstance<py::dict>(obj)) WrongType(path, "a dict", obj);
    T out;
    for (auto [key, item] : py::reinterpret_borrow<py::dict>(obj)) {
      if (!py::isinstance<py::str>(key)) WrongType(path + " key", "a str", key);
      std::string k = py::str(key).cast<std::string>();
      std::string sub = path;
      sub += ".";
      sub += k;
      out.emplace(k, FromPy<typename T::mapped_type>(item, sub));
    }
    return out;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!py::isinstance<py::str>(obj)) WrongType(path, "a str", obj);
    return obj.cast<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!py::isinstance<py::bool_>(obj)) WrongType(path, "a bool", obj);
    return obj.cast<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    if (py::isinstance<py::bool_>(obj) || !py::isinstance<py::int_>(obj)) {
      WrongType(path, "an int", obj);
    }
    try {
      return obj.cast<T>();
    } catch (py::cast_error&) {
      throw py::type_error(path + ": integer out of range");
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    if (py::isinstance<py::bool_>(obj) ||
        !(py::isinstance<py::int_>(obj) || py::isinstance<py::float_>(obj))) {
      WrongType(path, "a number", obj);
    }
    return obj.cast<T>();
  } else {
    static_assert(sizeof(T) == 0, "no conversion for this field type");
  }
}

/// The request of a call: a lance_namespace model, a dict (a model_dump()), or None.
template <typename T>
T FromDict(py::handle obj, std::string_view what) {
  return FromPy<T>(obj, std::string(what));
}

/// The bytes of a request's Arrow IPC payload (bytes, bytearray, memoryview, ...).
std::string BytesOf(py::handle data, std::string_view what) {
  if (py::isinstance<py::bytes>(data)) return data.cast<std::string>();
  if (PyObject_CheckBuffer(data.ptr()) != 0) {
    return py::module_::import("builtins").attr("bytes")(data).cast<std::string>();
  }
  throw py::type_error(std::string(what) +
                       ": request_data must be bytes (an Arrow IPC stream), got " +
                       TypeName(data));
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

// -- a Python namespace behind the C++ interface ----------------------------------------

class PyNamespace final : public ns::LanceNamespace {
 public:
  /// REQUIRES: the GIL is held.
  explicit PyNamespace(py::object obj) : obj_(std::move(obj)) {}
  ~PyNamespace() override { ReleasePyObject(std::move(obj_)); }

  std::string namespace_id() const override {
    py::gil_scoped_acquire gil;
    return NamespaceIdLocked();
  }

  // Every operation of operations.def: `obj.<wire name>(<lance_namespace model>[,
  // data])`, its answer converted as the operation's row says (Run).
#define LANCE_NS_OPERATION(Method, wire, Body, Reply, ...)                        \
  LANCE_NS_RESULT(Method, Reply) Method(LANCE_NS_PARAMS(Method, Body)) override { \
    return Run(LANCE_NS_ARGS(Body));                                              \
  }
#include "lance/namespace/operations.def"
#undef LANCE_NS_OPERATION

 private:
  std::string NamespaceIdLocked() const {
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

  /// `obj.<method>(<request model>[, data])`. REQUIRES: the GIL is held.
  template <typename Req>
  py::object Invoke(const char* method, const char* model, const Req& request,
                    std::optional<std::string_view> data) {
    auto module = py::module_::import("lance_namespace");
    py::dict fields = ToDict(request);
    if constexpr (std::is_same_v<Req, ns::QueryTableRequest>) {
      // The spec's model requires `vector`; a plain scan has none (an empty one).
      if (!fields.contains("vector")) fields["vector"] = py::dict();
    }
    py::object req_model = module.attr(model).attr("from_dict")(fields);
    if (data) {
      return obj_.attr(method)(req_model, py::bytes(data->data(), data->size()));
    }
    return obj_.attr(method)(req_model);
  }

  /// One operation on the Python object. Exists operations succeed when the call
  /// returns; a count may come as CountTableRowsResponse(count=...) (pylance 14) or an
  /// int (the lance_namespace base documents one); a query as
  /// QueryTableResponse(data=<Arrow IPC bytes>) or the bytes themselves.
  template <typename Req>
  typename ns::OperationOf<Req>::Result Run(const Req& request,
                                            std::optional<std::string_view> data = {}) {
    constexpr const ns::OperationInfo& op = ns::OperationOf<Req>::kInfo;
    using Out = typename ns::OperationOf<Req>::Result;
    const char* method = op.name.data();  // a string literal: NUL-terminated
    const std::string model = std::string(op.spec_model) + "Request";
    auto call = [&]() { return Invoke(method, model.c_str(), request, data); };
    if constexpr (op.reply_body == ns::ReplyBody::kStatus) {
      return Guard<bool>(method,
                         [&](const std::string&) -> Result<bool> {
                           call();
                           return true;
                         })
          .status();
    } else {
      using Value = typename Out::value_type;
      return Guard<Value>(method, [&](const std::string& context) -> Result<Value> {
        py::object out = call();
        if constexpr (op.reply_body == ns::ReplyBody::kCount) {
          if (!py::isinstance<py::int_>(out) && py::hasattr(out, "count")) {
            out = out.attr("count");
          }
        } else if constexpr (op.reply_body == ns::ReplyBody::kArrow) {
          if (!py::isinstance<py::bytes>(out) && py::hasattr(out, "data")) {
            out = out.attr("data");
          }
          return BytesOf(out, context + " response");
        }
        return FromPy<Value>(out, context + " response");
      });
    }
  }

  /// One Python call with the GIL taken: `fn(context)`. Errors: lance_namespace errors
  /// keep their spec code; a missing method and NotImplementedError are Unsupported (so
  /// declare_table falls back to create_empty_table); other exceptions map by class
  /// (StatusFromPythonError); nothing escapes into the core's threads.
  template <typename Out, typename Fn>
  Result<Out> Guard(const char* method, Fn&& fn) {
    py::gil_scoped_acquire gil;
    std::string context = std::string(method) + " of " + NamespaceIdLocked();
    try {
      if (!py::hasattr(obj_, method)) {
        return ns::NamespaceError(
            ns::ErrorCode::kUnsupported,
            std::string(method) + " is not supported by " + NamespaceIdLocked());
      }
      return fn(context);
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
      return ns::NamespaceError(ns::ErrorCode::kInternal, context + ": " + e.what());
    }
  }

  py::object obj_;
};

// -- a Python DynamicContextProvider behind the C++ interface ---------------------------

class PyContextProvider final : public ns::DynamicContextProvider {
 public:
  /// REQUIRES: the GIL is held.
  explicit PyContextProvider(py::object obj) : obj_(std::move(obj)) {}
  ~PyContextProvider() override { ReleasePyObject(std::move(obj_)); }

  /// `obj.provide_context(info)` with the GIL taken for the call; keys and values are
  /// turned into strings (str()).
  Result<ns::Properties> ProvideContext(const ns::Properties& info) override {
    py::gil_scoped_acquire gil;
    const std::string context = "the dynamic context provider's provide_context";
    try {
      py::object out = obj_.attr("provide_context")(ToPy(info));
      ns::Properties props;
      if (out.is_none()) return props;
      if (!py::isinstance<py::dict>(out)) {
        return Status::Invalid(context + " returned " + TypeName(out) +
                               ", expected a dict");
      }
      for (auto [key, value] : py::reinterpret_borrow<py::dict>(out)) {
        props[py::str(key).cast<std::string>()] = py::str(value).cast<std::string>();
      }
      return props;
    } catch (py::error_already_set& e) {
      return StatusFromPythonError(e, context);
    } catch (const std::exception& e) {
      return Status::Invalid(context + ": " + e.what());
    }
  }

 private:
  py::object obj_;
};

std::shared_ptr<ns::DynamicContextProvider> ContextProviderFromPython(py::handle obj) {
  if (!obj || obj.is_none()) return nullptr;
  return WrapPythonObject<PyContextProvider>(
      obj, "provide_context",
      "context_provider must have provide_context(info) -> dict (a "
      "lance_cpp.namespace.DynamicContextProvider)");
}

// -- the REST adapter
// ---------------------------------------------------------------------

/// A server::RestAdapter serving a namespace; stopped (without the GIL: its workers may
/// be waiting for it to call a Python namespace) when stopped or collected.
class PyRestAdapter {
 public:
  PyRestAdapter(std::unique_ptr<server::RestAdapter> adapter)
      : adapter_(std::move(adapter)) {}
  ~PyRestAdapter() {
    if (PyGILState_Check()) {
      WithoutGil([&] { adapter_.reset(); });
    } else {
      adapter_.reset();
    }
  }
  void Start() {
    Status st = WithoutGil([&] { return adapter_->Start(); });
    CheckStatus(st);
    started_ = true;
  }
  void Stop() {
    WithoutGil([&] { adapter_->Stop(); });
    started_ = false;
  }
  int port() const { return started_ ? adapter_->port() : 0; }
  std::map<std::string, int64_t> ops_metrics() const { return adapter_->ops_metrics(); }
  void reset_ops_metrics() { adapter_->reset_ops_metrics(); }

 private:
  std::unique_ptr<server::RestAdapter> adapter_;
  bool started_ = false;
};

}  // namespace

std::shared_ptr<ns::LanceNamespace> NamespaceFromPython(py::handle obj) {
  if (!obj || obj.is_none()) return nullptr;
  // Our native namespaces (exactly: a subclass may override methods) and the native
  // objects themselves are unwrapped: the core then calls C++ directly, without the GIL.
  // Not while they count calls (ops_metrics_enabled): the counting is in Python.
  if (py::isinstance<ns::LanceNamespace>(obj)) {
    return obj.cast<std::shared_ptr<ns::LanceNamespace>>();
  }
  auto module = py::module_::import("lance_cpp.namespace");
  py::handle type = py::type::of(obj);
  if ((type.is(module.attr("DirectoryNamespace")) ||
       type.is(module.attr("RestNamespace"))) &&
      obj.attr("_native_passthrough").cast<bool>()) {
    return obj.attr("_inner").cast<std::shared_ptr<ns::LanceNamespace>>();
  }
  return WrapPythonObject<PyNamespace>(
      obj, "namespace_id",
      "namespace must be a lance_namespace.LanceNamespace (with namespace_id() and the "
      "table operations)");
}

/// \brief `_NativeNamespace.<wire name>(request[, request_data])`: the request from a
/// lance_namespace model or dict, `fn(namespace, request, data)` run with the GIL
/// released, the answer as a dict (an int for a count, bytes for Arrow rows, None for
/// the exists operations).
template <typename Req, typename Fn>
void BindOperation(
    py::class_<ns::LanceNamespace, std::shared_ptr<ns::LanceNamespace>>& base, Fn fn) {
  constexpr const ns::OperationInfo& op = ns::OperationOf<Req>::kInfo;
  const char* name = op.name.data();  // a string literal: NUL-terminated
  auto run = [fn, name](ns::LanceNamespace& n, py::handle request,
                        std::string_view data) -> py::object {
    constexpr ns::ReplyBody reply = ns::OperationOf<Req>::kInfo.reply_body;
    Req req = FromDict<Req>(request, name);
    auto result = WithoutGil([&] { return fn(n, req, data); });
    if constexpr (reply == ns::ReplyBody::kStatus) {
      if (!result.ok()) RaiseNamespaceStatus(result);
      return py::none();
    } else if constexpr (reply == ns::ReplyBody::kArrow) {
      return py::bytes(NsValueOrRaise(std::move(result)));
    } else {
      return ToPy(NsValueOrRaise(std::move(result)));
    }
  };
  if constexpr (op.request_body == ns::RequestBody::kArrow) {
    base.def(
        name,
        [run, name](ns::LanceNamespace& n, py::handle request, py::handle data) {
          std::string bytes = BytesOf(data, name);
          return run(n, request, bytes);
        },
        py::arg("request"), py::arg("request_data"));
  } else {
    base.def(
        name,
        [run](ns::LanceNamespace& n, py::handle request) { return run(n, request, {}); },
        py::arg("request"));
  }
}

void BindNamespace(py::module_& m) {
  using Base = ns::LanceNamespace;
  // Every operation of the C++ interface, taking lance_namespace models (or dicts) and
  // returning dicts with the spec's names (lance_cpp/namespace.py makes models of them).
  py::class_<Base, std::shared_ptr<Base>> base(m, "_NativeNamespace");
  base.def("namespace_id", &Base::namespace_id);
#define LANCE_NS_OPERATION(Method, wire, Body, Reply, ...)                           \
  BindOperation<ns::Method##Request>(base,                                           \
                                     [](Base& n, const ns::Method##Request& request, \
                                        [[maybe_unused]] std::string_view data) {    \
                                       return n.Method(LANCE_NS_ARGS(Body));         \
                                     });
#include "lance/namespace/operations.def"
#undef LANCE_NS_OPERATION
  // The operation table, for lance_cpp/namespace.py: (name, request body, reply,
  // lance_namespace model prefix) of each backed operation.
  m.def("_operations", [] {
    py::list out;
    for (const ns::OperationInfo& op : ns::AllOperations()) {
      if (!op.backed) continue;
      static constexpr const char* kBodies[] = {"json", "query", "arrow"};
      static constexpr const char* kReplies[] = {"model", "status", "count", "arrow"};
      out.append(py::make_tuple(
          std::string(op.name), kBodies[static_cast<int>(op.request_body)],
          kReplies[static_cast<int>(op.reply_body)], std::string(op.spec_model)));
    }
    return out;
  });

  using DirNs = ns::DirectoryNamespace;
  py::class_<DirNs, Base, std::shared_ptr<DirNs>>(m, "_DirectoryNamespace")
      .def(py::init([](const std::map<std::string, std::string>& properties) {
             Result<std::shared_ptr<DirNs>> made =
                 WithoutGil([&] { return DirNs::FromProperties(properties); });
             return NsValueOrRaise(std::move(made));
           }),
           py::arg("properties"));

  using RestNs = ns::RestNamespace;
  py::class_<RestNs, Base, std::shared_ptr<RestNs>>(m, "_RestNamespace")
      .def(py::init([](const std::map<std::string, std::string>& properties,
                       py::handle context_provider) {
             auto provider = ContextProviderFromPython(context_provider);
             Result<std::shared_ptr<RestNs>> made =
                 WithoutGil([&] { return RestNs::FromProperties(properties, provider); });
             return NsValueOrRaise(std::move(made));
           }),
           py::arg("properties"), py::arg("context_provider") = py::none());

  // The adapter serves any namespace: a native one directly, a Python one through
  // PyNamespace (the GIL taken per call).
  py::class_<PyRestAdapter>(m, "_RestAdapter")
      .def(
          py::init([](py::handle namespace_obj, const std::string& host, int port,
                      const std::vector<std::string>& api_keys,
                      const std::string& tls_cert_file, const std::string& tls_key_file) {
            auto nsp = NamespaceFromPython(namespace_obj);
            if (!nsp) throw py::value_error("RestAdapter: the namespace is None");
            server::RestAdapterOptions options;
            options.host = host;
            options.port = port;
            // Each entry in the text form of server::ParseApiKeys ("KEY [read|write|
            // admin [NAMESPACE]]").
            std::string text;
            for (const std::string& entry : api_keys) text += entry + "\n";
            options.api_keys = ValueOrRaise(server::ParseApiKeys(text, "api_keys"));
            options.tls_cert_file = tls_cert_file;
            options.tls_key_file = tls_key_file;
            Result<std::unique_ptr<server::RestAdapter>> made = WithoutGil(
                [&] { return server::RestAdapter::Make(std::move(nsp), options); });
            return std::make_unique<PyRestAdapter>(ValueOrRaise(std::move(made)));
          }),
          py::arg("namespace"), py::arg("host"), py::arg("port"),
          py::arg("api_keys") = std::vector<std::string>{},
          py::arg("tls_cert_file") = std::string(),
          py::arg("tls_key_file") = std::string())
      .def("start", &PyRestAdapter::Start)
      .def("stop", &PyRestAdapter::Stop)
      .def_property_readonly("port", &PyRestAdapter::port)
      .def("ops_metrics", &PyRestAdapter::ops_metrics)
      .def("reset_ops_metrics", &PyRestAdapter::reset_ops_metrics);

  // The core's rule for a user's storage options next to a namespace's (the user's
  // first, vended credentials win): Python datasets opened through a namespace keep
  // the options the core used.
  m.def(
      "_merge_storage_options",
      [](const ns::Properties& user_options, const ns::Properties& namespace_options) {
        return ns::MergeStorageOptions(user_options, namespace_options);
      },
      py::arg("user_options"), py::arg("namespace_options"));

  // Test hook: the C++ LanceNamespace the core sees for `namespace` (any Python
  // namespace, through NamespaceFromPython), as a _NativeNamespace: calling its
  // operations goes through exactly the path the core takes (PyNamespace for a Python
  // namespace).
  m.def(
      "_as_core_namespace",
      [](py::handle obj) {
        auto nsp = NamespaceFromPython(obj);
        if (!nsp) throw py::value_error("namespace is None");
        return nsp;
      },
      py::arg("namespace"));

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
          pool.reserve(threads);
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
