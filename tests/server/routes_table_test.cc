// SPDX-License-Identifier: Apache-2.0
// The server's routes are built from the operation table (operations.def): one per row.

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "lance/namespace/operations.h"
#include "server/routes.h"

namespace lance::ns {
namespace {

// The server has one route per row, with the row's method, path and permission.
TEST(OperationTableTest, ServerRoutesFollowTheTable) {
  std::vector<server::internal::Route> routes = server::internal::MakeRoutes();
  ASSERT_EQ(routes.size(), AllOperations().size());
  for (size_t i = 0; i < routes.size(); ++i) {
    const OperationInfo& op = AllOperations()[i];
    const auto& route = routes[i];
    EXPECT_EQ(route.op, op.name);
    EXPECT_EQ(route.method, op.http_method);
    EXPECT_EQ(route.area, op.area);
    EXPECT_EQ(route.suffix, op.route);
    EXPECT_EQ(route.needs, op.permission);
    EXPECT_EQ(route.handler != nullptr, op.backed) << op.name;
  }
}

// Every spec error code answers with its HTTP status (the REST spec's table): pinned per
// code, since the server derives it from the code's generic kind.
TEST(OperationTableTest, ErrorCodesMapToHttpStatuses) {
  const std::vector<std::pair<ErrorCode, int>> expected = {
      {ErrorCode::kUnsupported, 501},
      {ErrorCode::kNamespaceNotFound, 404},
      {ErrorCode::kNamespaceAlreadyExists, 409},
      {ErrorCode::kNamespaceNotEmpty, 409},
      {ErrorCode::kTableNotFound, 404},
      {ErrorCode::kTableAlreadyExists, 409},
      {ErrorCode::kTableIndexNotFound, 404},
      {ErrorCode::kTableIndexAlreadyExists, 409},
      {ErrorCode::kTableTagNotFound, 404},
      {ErrorCode::kTableTagAlreadyExists, 409},
      {ErrorCode::kTransactionNotFound, 404},
      {ErrorCode::kTableVersionNotFound, 404},
      {ErrorCode::kTableColumnNotFound, 404},
      {ErrorCode::kInvalidInput, 400},
      {ErrorCode::kConcurrentModification, 409},
      {ErrorCode::kPermissionDenied, 403},
      {ErrorCode::kUnauthenticated, 401},
      {ErrorCode::kServiceUnavailable, 503},
      {ErrorCode::kInternal, 500},
      {ErrorCode::kInvalidTableState, 409},
      {ErrorCode::kTableSchemaValidationError, 400},
      {ErrorCode::kThrottling, 429},
      {ErrorCode::kTableBranchNotFound, 404},
      {ErrorCode::kTableBranchAlreadyExists, 409},
      {static_cast<ErrorCode>(999), 500},
  };
  for (const auto& [code, http] : expected) {
    EXPECT_EQ(server::internal::HttpStatusFor(code), http) << static_cast<int>(code);
  }
}

}  // namespace
}  // namespace lance::ns
