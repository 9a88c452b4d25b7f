// SPDX-License-Identifier: Apache-2.0
/// \file operation_signature.h
/// \brief The C++ signature of a Lance Namespace operation, spelled from its row of
/// operations.def (macros only: namespace.h declares LanceNamespace with them, so this
/// header cannot include namespace.h).

#pragma once

// The suffixes are the .def's column values (Json, Model, ...), pasted: not UPPER_CASE.
// NOLINTBEGIN(cppcoreguidelines-macro-usage, readability-identifier-naming)

/// \brief The return type of an operation: LANCE_NS_RESULT(DescribeTable, Model).
#define LANCE_NS_RESULT(Method, Reply) LANCE_NS_RESULT_##Reply(Method)
#define LANCE_NS_RESULT_Model(Method) ::lance::Result<::lance::ns::Method##Response>
#define LANCE_NS_RESULT_Status(Method) ::lance::Status
#define LANCE_NS_RESULT_Count(Method) ::lance::Result<int64_t>
#define LANCE_NS_RESULT_Arrow(Method) ::lance::Result<std::string>

/// \brief The parameters of an operation, named `request` (and `data`, the Arrow IPC
/// stream of an Arrow body).
#define LANCE_NS_PARAMS(Method, Body) LANCE_NS_PARAMS_##Body(Method)
#define LANCE_NS_PARAMS_Json(Method) \
  [[maybe_unused]] const ::lance::ns::Method##Request& request
#define LANCE_NS_PARAMS_Query(Method) LANCE_NS_PARAMS_Json(Method)
#define LANCE_NS_PARAMS_Arrow(Method)                           \
  [[maybe_unused]] const ::lance::ns::Method##Request &request, \
      [[maybe_unused]] std::string_view data
/// \brief The arguments matching LANCE_NS_PARAMS: `request` or `request, data`.
#define LANCE_NS_ARGS(Body) LANCE_NS_ARGS_##Body()
#define LANCE_NS_ARGS_Json() request
#define LANCE_NS_ARGS_Query() request
#define LANCE_NS_ARGS_Arrow() request, data

// NOLINTEND(cppcoreguidelines-macro-usage, readability-identifier-naming)
