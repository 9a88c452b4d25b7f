// SPDX-License-Identifier: Apache-2.0
// The server's routes are built from the operation table (operations.def): one per row.

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace lance::ns
