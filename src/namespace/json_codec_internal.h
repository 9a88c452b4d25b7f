// SPDX-License-Identifier: Apache-2.0
/// \file json_codec_internal.h
/// \brief How the JSON codec of lance/namespace/json_codec.h works: templates over
/// nlohmann::json and VisitFields (model_fields.h), for the namespace area itself (the
/// REST client builds and inspects JSON around the models) and json_codec.cc, which
/// instantiates Parse / Dump for every model of the operation table. Kept out of
/// include/ so that the public API does not carry nlohmann.
///
/// Writing: every set field, absent optionals left out (the spec's "not sent"); JsonValue
/// members are embedded as parsed JSON. Reading: unknown keys are ignored (requests may
/// carry `identity`, `context`, ...), null and missing keys keep the member's default,
/// and a value of the wrong JSON type is InvalidInput naming its path
/// ("describe_table request: field 'id[1]': expected a string, got number"). Nothing
/// here throws: nlohmann is used only through its non-throwing accessors.

#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "lance/namespace/json_codec.h"
#include "lance/namespace/model_fields.h"
#include "lance/namespace/namespace.h"
#include "lance/result.h"
#include "lance/status.h"

namespace lance::ns::json_codec {

using Json = nlohmann::json;

template <typename T>
Json ToJson(const T& value);

namespace internal {

using ns::IsOptional;
using ns::IsStringMap;
using ns::IsVector;

std::string_view JsonTypeName(const Json& j);
Status TypeError(std::string_view what, const std::string& path,
                 std::string_view expected, const Json& got);

template <typename T>
Status Read(const Json& j, T* out, std::string_view what, const std::string& path);

template <typename T>
Status ReadModel(const Json& j, T* out, std::string_view what, const std::string& path) {
  if (!j.is_object()) return TypeError(what, path, "an object", j);
  Status st;
  VisitFields(*out, [&](const char* name, auto& field) {
    if (!st.ok()) return;
    auto it = j.find(name);
    if (it == j.end() || it->is_null()) return;
    std::string sub = path.empty() ? std::string(name) : path + "." + name;
    st = Read(*it, &field, what, sub);
  });
  return st;
}

template <typename T>
Status Read(const Json& j, T* out, std::string_view what, const std::string& path) {
  if constexpr (IsOptional<T>::value) {
    if (j.is_null()) return Status::OK();
    typename T::value_type v{};
    Status st = Read(j, &v, what, path);
    if (!st.ok()) return st;
    *out = std::move(v);
    return Status::OK();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) return TypeError(what, path, "a string", j);
    *out = j.get_ref<const std::string&>();
    return Status::OK();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) return TypeError(what, path, "a boolean", j);
    *out = j.get<bool>();
    return Status::OK();
  } else if constexpr (std::is_integral_v<T>) {
    if (!j.is_number_integer()) return TypeError(what, path, "an integer", j);
    if (j.is_number_unsigned()) {
      auto u = j.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
        return TypeError(what, path, "an integer in range", j);
      }
      *out = static_cast<T>(u);
      return Status::OK();
    }
    auto v = j.get<int64_t>();
    if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
        v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
      return TypeError(what, path, "an integer in range", j);
    }
    *out = static_cast<T>(v);
    return Status::OK();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!j.is_number()) return TypeError(what, path, "a number", j);
    *out = j.get<T>();
    return Status::OK();
  } else if constexpr (std::is_same_v<T, JsonValue>) {
    out->json = j.dump();
    return Status::OK();
  } else if constexpr (IsVector<T>::value) {
    if (!j.is_array()) return TypeError(what, path, "an array", j);
    out->clear();
    out->reserve(j.size());
    for (size_t i = 0; i < j.size(); ++i) {
      typename T::value_type v{};
      Status st = Read(j[i], &v, what, path + "[" + std::to_string(i) + "]");
      if (!st.ok()) return st;
      out->push_back(std::move(v));
    }
    return Status::OK();
  } else if constexpr (IsStringMap<T>::value) {
    if (!j.is_object()) return TypeError(what, path, "an object", j);
    out->clear();
    for (auto it = j.begin(); it != j.end(); ++it) {
      typename T::mapped_type v{};
      Status st = Read(it.value(), &v, what, path + "." + it.key());
      if (!st.ok()) return st;
      out->emplace(it.key(), std::move(v));
    }
    return Status::OK();
  } else {
    static_assert(kIsModel<T>, "json_codec: no reader for this type");
    return ReadModel(j, out, what, path);
  }
}

template <typename T>
Json Write(const T& value) {
  if constexpr (std::is_same_v<T, JsonValue>) {
    Json j = Json::parse(value.json, nullptr, /*allow_exceptions=*/false);
    return j.is_discarded() ? Json() : j;
  } else if constexpr (IsVector<T>::value) {
    Json j = Json::array();
    for (const auto& v : value) j.push_back(Write(v));
    return j;
  } else if constexpr (IsStringMap<T>::value) {
    Json j = Json::object();
    for (const auto& [k, v] : value) j[k] = Write(v);
    return j;
  } else if constexpr (kIsModel<T>) {
    return ToJson(value);
  } else {
    return Json(value);
  }
}

}  // namespace internal

/// \brief The model as a JSON object (absent optionals left out).
template <typename T>
Json ToJson(const T& value) {
  Json j = Json::object();
  VisitFields(value, [&](const char* name, const auto& field) {
    using Field = std::decay_t<decltype(field)>;
    if constexpr (internal::IsOptional<Field>::value) {
      if (field.has_value()) j[name] = internal::Write(*field);
    } else {
      j[name] = internal::Write(field);
    }
  });
  return j;
}

/// \brief Reads a model from parsed JSON. `what` names the message in errors
/// ("describe_table request"). \return InvalidInput (spec code InvalidInput) for a
/// non-object or a field of the wrong type.
template <typename T>
Result<T> FromJson(const Json& j, std::string_view what) {
  T value{};
  Status st = internal::ReadModel(j, &value, what, "");
  if (!st.ok()) return st;
  return value;
}

template <typename T>
Result<T> Parse(std::string_view text, std::string_view what) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return FromJson<T>(Json::object(), what);
  }
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          std::string(what) + ": body is not valid JSON");
  }
  return FromJson<T>(j, what);
}

template <typename T>
std::string Dump(const T& value) {
  // Invalid UTF-8 (an id from a %FF path) is replaced, never thrown on.
  return ToJson(value).dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace lance::ns::json_codec
