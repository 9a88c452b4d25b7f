// SPDX-License-Identifier: Apache-2.0
/// \file operations.h
/// \brief The Lance Namespace operations as data: OperationInfo for every spec operation
/// (operations.def holds the one table), OperationOf<Request> for the operation of a
/// request model, and the macros that spell an operation's C++ signature from its row.
///
/// Expanding the table (a consumer defines LANCE_NS_OPERATION, includes the .def and
/// undefines it):
///
///     #define LANCE_NS_OPERATION(Method, wire, Body, Reply, ...)
///       LANCE_NS_RESULT(Method, Reply) Method(LANCE_NS_PARAMS(Method, Body)) override;
///     #include "lance/namespace/operations.def"
///     #undef LANCE_NS_OPERATION

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lance/namespace/namespace.h"
#include "lance/namespace/operation_signature.h"

namespace lance::ns {

/// \brief The first path segment after /v1 (kTableGlobal: /v1/table without an id).
enum class OperationArea {
  kNamespace,
  kTable,
  kTransaction,
  kMaterializedView,
  kTableGlobal
};

/// \brief How a request travels (see operations.def).
enum class RequestBody { kJson, kQuery, kArrow };

/// \brief What an operation answers (see operations.def).
enum class ReplyBody { kModel, kStatus, kCount, kArrow };

/// \brief One row of operations.def.
struct OperationInfo {
  /// \brief The spec's name: "describe_table".
  std::string_view name;
  std::string_view http_method;
  OperationArea area = OperationArea::kTable;
  /// \brief The path after the id ("tags/list"); for kTableGlobal the path after
  /// /v1/table ("" or "batch-commit"). "*" matches one segment.
  std::string_view route;
  VendPermission permission = VendPermission::kWrite;
  bool idempotent = false;
  /// \brief A bare 404 (no spec error body) means NamespaceNotFound.
  bool namespace_not_found = false;
  RequestBody request_body = RequestBody::kJson;
  ReplyBody reply_body = ReplyBody::kModel;
  /// \brief lance_namespace's models are <spec_model>Request / <spec_model>Response.
  std::string_view spec_model;
  /// \brief Space-separated request fields carried in the query string.
  std::string_view query_fields;
  /// \brief False for spec routes no LanceNamespace method backs yet.
  bool backed = true;

  /// \brief True when `field` is one of query_fields.
  bool InQuery(std::string_view field) const;
};

/// \brief The first path segment after /v1 of an area: "namespace", "table",
/// "transaction", "materialized_view" (kTableGlobal: "table", without an id after it).
std::string_view AreaPathSegment(OperationArea area);

/// \brief Every operation of operations.def: the backed ones in the table's order, then
/// the unbacked ones.
const std::vector<OperationInfo>& AllOperations();

/// \brief The operation of a request model: OperationOf<DescribeTableRequest>::kInfo.
template <typename Request>
struct OperationOf;

#define LANCE_NS_AREA_(Area) ::lance::ns::OperationArea::k##Area
#define LANCE_NS_PERMISSION_(P) ::lance::ns::VendPermission::k##P
#define LANCE_NS_REQUEST_BODY_(B) ::lance::ns::RequestBody::k##B
#define LANCE_NS_REPLY_BODY_(R) ::lance::ns::ReplyBody::k##R

/// \brief An OperationInfo initializer from a row of operations.def.
#define LANCE_NS_OPERATION_INFO(Method, wire, Body, Reply, Http, Area, route,           \
                                Permission, idempotent, ns_not_found, SpecModel, query) \
  ::lance::ns::OperationInfo {                                                          \
#wire, #Http, LANCE_NS_AREA_(Area), route, LANCE_NS_PERMISSION_(Permission),        \
        idempotent, ns_not_found, LANCE_NS_REQUEST_BODY_(Body),                         \
        LANCE_NS_REPLY_BODY_(Reply), #SpecModel, query, true                            \
  }

#define LANCE_NS_OPERATION(Method, wire, Body, Reply, ...)                  \
  template <>                                                               \
  struct OperationOf<Method##Request> {                                     \
    static constexpr OperationInfo kInfo =                                  \
        LANCE_NS_OPERATION_INFO(Method, wire, Body, Reply, __VA_ARGS__);    \
    /* What the operation returns: Result<Method##Response>, Status, ... */ \
    using Result = LANCE_NS_RESULT(Method, Reply);                          \
  };
#include "lance/namespace/operations.def"
#undef LANCE_NS_OPERATION

}  // namespace lance::ns
