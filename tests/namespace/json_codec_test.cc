// SPDX-License-Identifier: Apache-2.0
// The namespace models <-> JSON codec shared by the REST client and server.

#include <gtest/gtest.h>

#include "lance/namespace/namespace.h"
#include "namespace/json_codec_internal.h"
#include "tests/testing/matchers.h"

namespace lance::ns {
namespace {

using json_codec::Json;

TEST(JsonCodecTest, WritesSpecNamesAndLeavesAbsentOptionalsOut) {
  DescribeTableResponse response;
  response.location = "s3://b/t.lance";
  response.namespace_ = Identifier{"a", "b"};
  response.storage_options = Properties{{"expires_at_millis", "123"}};
  Json j = json_codec::ToJson(response);
  EXPECT_EQ(j.dump(), R"({"location":"s3://b/t.lance","namespace":["a","b"],)"
                      R"("storage_options":{"expires_at_millis":"123"}})");
}

TEST(JsonCodecTest, NestedModelsRoundTrip) {
  ListTableTagsResponse tags;
  tags.tags["v1"] = TagContents{std::nullopt, 3, 512};
  Json j = json_codec::ToJson(tags);
  EXPECT_EQ(j["tags"]["v1"]["manifestSize"], 512);
  ASSERT_OK_AND_ASSIGN(auto back, json_codec::FromJson<ListTableTagsResponse>(j, "tags"));
  EXPECT_EQ(back.tags.at("v1").version, 3);
  EXPECT_EQ(back.tags.at("v1").manifest_size, 512);
}

TEST(JsonCodecTest, JsonValuePassesThrough) {
  ASSERT_OK_AND_ASSIGN(
      auto req,
      json_codec::Parse<AlterTableAlterColumnsRequest>(
          R"({"id":["t"],"alterations":[{"path":"x","data_type":{"type":"int64"}}]})",
          "alter_table_alter_columns request"));
  ASSERT_EQ(req.alterations.size(), 1u);
  EXPECT_EQ(req.alterations[0].data_type->json, R"({"type":"int64"})");
}

TEST(JsonCodecTest, WrongTypesAndMalformedJsonAreInvalidInputNamingTheField) {
  auto bad =
      json_codec::Parse<DescribeTableRequest>(R"({"id":["a",7]})", "describe_table");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(NamespaceErrorCode(bad.status()), ErrorCode::kInvalidInput);
  EXPECT_NE(bad.status().message().find("field 'id[1]': expected a string, got number"),
            std::string::npos)
      << bad.status().ToString();

  auto malformed = json_codec::Parse<DescribeTableRequest>("{\"id\":", "describe_table");
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(NamespaceErrorCode(malformed.status()), ErrorCode::kInvalidInput);

  auto range = json_codec::Parse<ListTablesRequest>(R"({"limit":99999999999})", "list");
  ASSERT_FALSE(range.ok());

  // Unknown keys (identity, context) are ignored; an empty body reads as {}.
  ASSERT_OK_AND_ASSIGN(auto ok, json_codec::Parse<DescribeTableRequest>(
                                    R"({"id":["t"],"identity":{"api_key":"k"}})", "d"));
  EXPECT_EQ(ok.id, Identifier{"t"});
  ASSERT_OK(json_codec::Parse<DescribeTableRequest>("", "d").status());
}

}  // namespace
}  // namespace lance::ns
