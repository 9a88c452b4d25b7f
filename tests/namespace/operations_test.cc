// SPDX-License-Identifier: Apache-2.0
// The operation table (operations.def) is the one list every layer expands: these tests
// keep its rows consistent with the models they name, and check that LanceNamespace's
// defaults hold every row (tests/server/routes_table_test.cc: the server's routes).

#include "lance/namespace/operations.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "lance/namespace/model_fields.h"

namespace lance::ns {
namespace {

template <typename T>
constexpr bool kQueryType = false;
template <>
constexpr bool kQueryType<std::optional<std::string>> = true;
template <>
constexpr bool kQueryType<std::optional<bool>> = true;
template <>
constexpr bool kQueryType<std::optional<int32_t>> = true;
template <>
constexpr bool kQueryType<std::optional<int64_t>> = true;
template <>
constexpr bool kQueryType<std::optional<Properties>> = true;
template <>
constexpr bool kQueryType<std::optional<std::vector<std::string>>> = true;

std::vector<std::string> Split(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Every query field a row names is a field of its request that the query string can
// carry; for Query and Arrow bodies every field but the id is one (else the REST client
// would drop it on the wire).
template <typename Req>
void CheckQueryFields() {
  const OperationInfo& op = OperationOf<Req>::kInfo;
  SCOPED_TRACE(std::string(op.name));
  std::map<std::string, bool> fields;  // name -> carried by a query string
  Req request{};
  VisitFields(request, [&](const char* name, const auto& field) {
    fields[name] = kQueryType<std::decay_t<decltype(field)>>;
  });
  for (const std::string& name : Split(op.query_fields)) {
    ASSERT_TRUE(fields.count(name)) << "query field '" << name << "' is not a field";
    EXPECT_TRUE(fields[name]) << "query field '" << name << "' has no query form";
    EXPECT_TRUE(op.InQuery(name));
  }
  if (op.request_body != RequestBody::kJson) {
    for (const auto& [name, carried] : fields) {
      EXPECT_TRUE(name == "id" || op.InQuery(name)) << name << " would be lost";
    }
  }
  EXPECT_FALSE(op.InQuery("id"));
}

TEST(OperationTableTest, QueryFieldsMatchTheModels) {
#define LANCE_NS_OPERATION(Method, ...) CheckQueryFields<Method##Request>();
#include "lance/namespace/operations.def"
#undef LANCE_NS_OPERATION
}

TEST(OperationTableTest, NamesAndRoutesAreUnique) {
  std::set<std::string> names;
  std::set<std::string> routes;
  int backed = 0;
  for (const OperationInfo& op : AllOperations()) {
    EXPECT_TRUE(names.insert(std::string(op.name)).second) << op.name;
    const std::string route = std::string(op.http_method) + " " +
                              std::to_string(static_cast<int>(op.area)) + " " +
                              std::string(op.route);
    EXPECT_TRUE(routes.insert(route).second) << op.name << ": " << route;
    if (op.backed) {
      ++backed;
      EXPECT_FALSE(op.spec_model.empty()) << op.name;
    }
  }
  EXPECT_EQ(backed, 37);
  EXPECT_EQ(AllOperations().size(), 37u + 18u);
  const OperationInfo& describe = OperationOf<DescribeTableRequest>::kInfo;
  EXPECT_EQ(describe.name, "describe_table");
  EXPECT_EQ(describe.http_method, "POST");
  EXPECT_EQ(describe.route, "describe");
  EXPECT_EQ(describe.permission, VendPermission::kRead);
  EXPECT_TRUE(describe.idempotent);
  EXPECT_TRUE(describe.InQuery("vend_credentials"));
  EXPECT_FALSE(describe.InQuery("vend"));
  EXPECT_EQ(OperationOf<ListAllTablesRequest>::kInfo.spec_model, "ListTables");
}

class BareNamespace final : public LanceNamespace {
 public:
  std::string namespace_id() const override { return "BareNamespace"; }
};

template <typename Out>
Status StatusOf(const Out& out) {
  if constexpr (std::is_same_v<Out, Status>) {
    return out;
  } else {
    return out.status();
  }
}

// Every operation a namespace does not implement answers Unsupported, named as the spec
// names it.
TEST(OperationTableTest, DefaultsAreUnsupportedWithTheSpecName) {
  BareNamespace bare;
  int checked = 0;
#define LANCE_NS_OPERATION(Method, wire, Body, ...)                            \
  {                                                                            \
    Method##Request request{};                                                 \
    [[maybe_unused]] std::string_view data;                                    \
    Status st = StatusOf(bare.Method(LANCE_NS_ARGS(Body)));                    \
    EXPECT_EQ(NamespaceErrorCode(st), ErrorCode::kUnsupported) << #wire;       \
    EXPECT_EQ(st.message().find(#wire " is not supported by BareNamespace") == \
                  std::string::npos,                                           \
              false)                                                           \
        << st.message();                                                       \
    ++checked;                                                                 \
  }
#include "lance/namespace/operations.def"
#undef LANCE_NS_OPERATION
  EXPECT_EQ(checked, 37);
}

}  // namespace
}  // namespace lance::ns
