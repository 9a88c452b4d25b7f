// SPDX-License-Identifier: Apache-2.0
// lance_cpp.io: Python StorageOptionsProvider objects seen by the C++ core as
// io::StorageOptionsProvider.
//
// The core calls a provider from whichever thread needs credentials (an I/O thread of a
// parallel scan, a background refresh), so every call into Python takes the GIL itself
// and never assumes the caller holds it; binding entry points release the GIL around I/O,
// so the thread that started the work is not holding the GIL while it waits.

#include <pybind11/stl.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bindings.h"
#include "lance/io/storage_access.h"
#include "lance/io/storage_options_provider.h"
#include "lance/namespace/storage_options_provider.h"
#include "py_callback.h"

namespace lance::python {

namespace {

/// A Python object with fetch_storage_options() / provider_id().
class PyStorageOptionsProvider final : public io::StorageOptionsProvider {
 public:
  /// REQUIRES: the GIL is held (the id is read once, here, so provider_id() needs no
  /// GIL).
  explicit PyStorageOptionsProvider(py::object obj) : obj_(std::move(obj)) {
    id_ = PythonProviderId(obj_);
  }

  ~PyStorageOptionsProvider() override { ReleasePyObject(std::move(obj_)); }

  Result<std::optional<io::StorageOptions>> FetchStorageOptions() override {
    py::gil_scoped_acquire gil;
    try {
      py::object result = obj_.attr("fetch_storage_options")();
      if (result.is_none()) return std::optional<io::StorageOptions>();
      if (!py::isinstance<py::dict>(result)) {
        return Status::Invalid(
            "storage options provider " + id_ + ": fetch_storage_options() returned " +
            std::string(py::str(py::type::of(result).attr("__name__"))) +
            ", expected a dict of str to str");
      }
      io::StorageOptions options;
      for (auto item : py::reinterpret_borrow<py::dict>(result)) {
        // Values are credentials: never echo one in a message, only the key.
        if (!py::isinstance<py::str>(item.first)) {
          return Status::Invalid("storage options provider " + id_ +
                                 ": fetch_storage_options() returned a non-str key");
        }
        std::string key = item.first.cast<std::string>();
        if (item.second.is_none()) continue;
        if (py::isinstance<py::str>(item.second)) {
          options[key] = item.second.cast<std::string>();
        } else if (py::isinstance<py::int_>(item.second) ||
                   py::isinstance<py::bool_>(item.second)) {
          options[key] = std::string(py::str(item.second));
        } else {
          return Status::Invalid("storage options provider " + id_ +
                                 ": fetch_storage_options() value of key '" + key +
                                 "' is not a str");
        }
      }
      return std::optional<io::StorageOptions>(std::move(options));
    } catch (py::error_already_set& e) {
      return StatusFromPythonError(
          e, "storage options provider " + id_ + " failed in fetch_storage_options()");
    } catch (const std::exception& e) {
      // Nothing may escape into the core's threads.
      return Status::IOError("storage options provider " + id_ +
                             " failed in fetch_storage_options(): " + e.what());
    }
  }

  std::string provider_id() const override { return id_; }

 private:
  static std::string PythonProviderId(const py::object& obj) {
    if (py::hasattr(obj, "provider_id")) {
      try {
        return py::str(obj.attr("provider_id")()).cast<std::string>();
      } catch (py::error_already_set&) {
        // Fall through: an id must exist; a broken provider_id() only loses sharing.
      }
    }
    // Unique for the object's lifetime, which is as long as this adapter holds it.
    return std::string(py::str(py::type::of(obj).attr("__qualname__"))) +
           " { object: " + std::to_string(reinterpret_cast<uintptr_t>(obj.ptr())) + " }";
  }

  py::object obj_;
  std::string id_;
};

}  // namespace

void ReleasePyObject(py::object obj) {
  if (!obj) return;
  // An adapter may be destroyed on a C++ thread after Python has begun shutting down;
  // taking the GIL then would hang or abort the thread, so the reference is leaked.
  if (!Py_IsInitialized() || _Py_IsFinalizing()) {
    obj.release();
    return;
  }
  py::gil_scoped_acquire gil;
  obj = py::object();
}

Status StatusFromPythonError(py::error_already_set& e, const std::string& context) {
  // Called with the GIL held. The message is the exception's own (written by the user's
  // provider or namespace); nothing from a returned options map is added to it.
  std::string type_name = py::str(e.type().attr("__name__")).cast<std::string>();
  std::string message = e.value() ? std::string(py::str(e.value())) : std::string();
  std::string text = context + ": " + type_name + (message.empty() ? "" : ": " + message);
  StatusCode code = StatusCode::kIOError;
  auto builtins = py::module_::import("builtins");
  if (e.matches(builtins.attr("NotImplementedError"))) {
    code = StatusCode::kNotImplemented;
  } else if (e.matches(builtins.attr("FileNotFoundError"))) {
    code = StatusCode::kNotFound;
  } else if (e.matches(builtins.attr("FileExistsError"))) {
    code = StatusCode::kAlreadyExists;
  } else if (e.matches(builtins.attr("PermissionError"))) {
    code = StatusCode::kForbidden;
  } else if (e.matches(builtins.attr("ValueError")) ||
             e.matches(builtins.attr("TypeError")) ||
             e.matches(builtins.attr("KeyError"))) {
    code = StatusCode::kInvalid;
  } else if (e.matches(builtins.attr("TimeoutError")) ||
             e.matches(builtins.attr("ConnectionError"))) {
    code = StatusCode::kUnavailable;
  }
  return Status(code, std::move(text));
}

std::shared_ptr<io::StorageOptionsProvider> ProviderFromPython(py::handle obj) {
  if (!obj || obj.is_none()) return nullptr;
  // Our own LanceNamespaceStorageOptionsProvider (exactly, not a subclass that may
  // override fetch) becomes the C++ one over the namespace, so a DirectoryNamespace of
  // ours is called without the GIL.
  auto ns_module = py::module_::import("lance_cpp.namespace");
  py::object ns_provider_cls = ns_module.attr("LanceNamespaceStorageOptionsProvider");
  if (py::type::of(obj).is(ns_provider_cls)) {
    auto ns = NamespaceFromPython(obj.attr("namespace"));
    auto table_id = obj.attr("table_id").cast<std::vector<std::string>>();
    return ValueOrRaise(ns::LanceNamespaceStorageOptionsProvider::Make(ns, table_id));
  }
  if (!py::hasattr(obj, "fetch_storage_options")) {
    throw py::type_error(
        "storage_options_provider must have fetch_storage_options() (a "
        "lance_cpp.io.StorageOptionsProvider); got " +
        std::string(py::str(py::type::of(obj).attr("__name__"))));
  }
  return std::make_shared<PyStorageOptionsProvider>(
      py::reinterpret_borrow<py::object>(obj));
}

void BindIo(py::module_& m) {
  // Test hook: `threads` C++ threads each ask one credentials source (built as every
  // entry point builds it, with ResolveStorageAccess) for credentials `calls` times, with
  // the GIL released, while Python may run other threads. Returns how many calls
  // succeeded; raises the first error. Lets tests prove that a Python provider called
  // from many C++ threads at once neither deadlocks nor fetches more than once per
  // expiry.
  m.def(
      "_hammer_provider",
      [](py::handle provider, py::dict initial, int threads, int calls) {
        io::StorageOptions options;
        for (auto item : initial) {
          options[item.first.cast<std::string>()] =
              py::str(item.second).cast<std::string>();
        }
        auto cpp_provider = ProviderFromPython(provider);
        auto access = ValueOrRaise(
            io::ResolveStorageAccess(io::StorageAccess(options, cpp_provider)));
        if (!access.credentials) throw py::value_error("no credentials source was built");
        std::vector<Status> first_error(threads);
        std::vector<int> ok(threads, 0);
        WithoutGil([&] {
          std::vector<std::thread> pool;
          for (int t = 0; t < threads; ++t) {
            pool.emplace_back([&, t] {
              for (int i = 0; i < calls; ++i) {
                auto creds = access.credentials->Current();
                if (creds.ok()) {
                  ++ok[t];
                } else if (first_error[t].ok()) {
                  first_error[t] = creds.status();
                }
              }
            });
          }
          for (auto& th : pool) th.join();
          access = {};
        });
        for (const auto& st : first_error) CheckStatus(st);
        int total = 0;
        for (int n : ok) total += n;
        return total;
      },
      py::arg("provider"), py::arg("initial"), py::arg("threads"), py::arg("calls"));
}

}  // namespace lance::python
