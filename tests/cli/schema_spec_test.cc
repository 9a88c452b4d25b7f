// SPDX-License-Identifier: Apache-2.0
#include "lib/schema_spec.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/testing/cli_helpers.h"
#include "tests/testing/matchers.h"

namespace lance::cli {
namespace {

using ::lance::testing::ExpectTypeString;
using ::lance::testing::ExpectTypeStringError;
using ::lance::testing::IsErrorWith;

TEST(TypeString, Scalars) {
  ExpectTypeString("bool", boolean());
  ExpectTypeString("boolean", boolean());
  ExpectTypeString("int8", int8());
  ExpectTypeString("int16", int16());
  ExpectTypeString("int32", int32());
  ExpectTypeString("int64", int64());
  ExpectTypeString("uint8", uint8());
  ExpectTypeString("uint16", uint16());
  ExpectTypeString("uint32", uint32());
  ExpectTypeString("uint64", uint64());
  ExpectTypeString("float16", float16());
  ExpectTypeString("float32", float32());
  ExpectTypeString("float64", float64());
  ExpectTypeString("double", float64());
  ExpectTypeString("utf8", utf8());
  ExpectTypeString("string", utf8());
  ExpectTypeString("large_utf8", large_utf8());
  ExpectTypeString("binary", binary());
  ExpectTypeString("large_binary", large_binary());
  ExpectTypeString("date32", date32());
  ExpectTypeString("fixed_size_binary[16]", fixed_size_binary(16));
  ExpectTypeString(" fixed_size_binary [ 4 ] ", fixed_size_binary(4));
}

TEST(TypeString, Timestamps) {
  ExpectTypeString("timestamp[s]", timestamp(TimeUnit::kSecond));
  ExpectTypeString("timestamp[ms]", timestamp(TimeUnit::kMilli));
  ExpectTypeString("timestamp[us]", timestamp(TimeUnit::kMicro));
  ExpectTypeString("timestamp[ns]", timestamp(TimeUnit::kNano));
  ExpectTypeString("timestamp[us, UTC]", timestamp(TimeUnit::kMicro, "UTC"));
  ExpectTypeString("timestamp[ns,tz=America/New_York]",
                   timestamp(TimeUnit::kNano, "America/New_York"));
  ExpectTypeString("timestamp[ms, +05:30 ]", timestamp(TimeUnit::kMilli, "+05:30"));
}

TEST(TypeString, Nested) {
  ExpectTypeString("list<int64>", list(int64()));
  ExpectTypeString("large_list<utf8>", large_list(utf8()));
  ExpectTypeString("fixed_size_list<float32, 3>", fixed_size_list(float32(), 3));
  ExpectTypeString("list<int64 not null>", list(field("item", int64(), false)));
  ExpectTypeString("struct<x: int32, y: utf8>",
                   struct_({field("x", int32()), field("y", utf8())}));
  ExpectTypeString("struct<>", struct_({}));
  ExpectTypeString(
      " struct < a : list < struct < b : fixed_size_list < timestamp[ns, UTC] , 2 > "
      "not null > > , \"odd name, really\": large_binary > ",
      struct_({field("a", list(struct_({field(
                              "b", fixed_size_list(timestamp(TimeUnit::kNano, "UTC"), 2),
                              false)}))),
               field("odd name, really", large_binary())}));
  ExpectTypeString("list<list<list<bool>>>", list(list(list(boolean()))));
}

TEST(TypeString, FormatRoundTrips) {
  const DataTypePtr types[] = {
      boolean(),
      int8(),
      uint64(),
      float16(),
      large_utf8(),
      fixed_size_binary(3),
      date32(),
      timestamp(TimeUnit::kSecond),
      timestamp(TimeUnit::kNano, "Europe/Paris"),
      list(field("item", int16(), false)),
      large_list(binary()),
      fixed_size_list(float64(), 128),
      struct_({field("a", int64(), false), field("b c", list(utf8())),
               field("null", utf8())}),
  };
  for (const auto& t : types) {
    const std::string text = FormatTypeString(*t);
    ExpectTypeString(text, t);
  }
  EXPECT_EQ(FormatTypeString(*timestamp(TimeUnit::kMicro, "UTC")), "timestamp[us, UTC]");
  EXPECT_EQ(FormatTypeString(
                *struct_({field("x", list(int64())), field("y", float32(), false)})),
            "struct<x: list<int64>, y: float32 not null>");
  EXPECT_EQ(FormatTypeString(*fixed_size_list(int8(), 4)), "fixed_size_list<int8, 4>");
}

TEST(TypeString, Errors) {
  ExpectTypeStringError("", "expected a type name");
  ExpectTypeStringError("int128", "unknown type 'int128'");
  ExpectTypeStringError("list<int64", "expected '>'");
  ExpectTypeStringError("list<>", "expected a type");
  ExpectTypeStringError("int64 extra", "unexpected text");
  ExpectTypeStringError("fixed_size_binary[0]", "positive byte width");
  ExpectTypeStringError("fixed_size_list<int8>", "','");
  ExpectTypeStringError("fixed_size_list<int8, -1>", "positive list size");
  ExpectTypeStringError("timestamp[hours]", "time unit");
  ExpectTypeStringError("timestamp[s, ]", "timezone");
  ExpectTypeStringError("struct<a int8>", "':'");
  ExpectTypeStringError("struct<a: int8, a: int16>", "duplicate field name");
  ExpectTypeStringError("struct<a: int8,>", "expected a field name");
  ExpectTypeStringError("list<int8> not null", "unexpected text");
  std::string deep;
  for (int i = 0; i < 80; ++i) deep += "list<";
  ExpectTypeStringError(deep, "deeper");
}

TEST(SchemaJson, ParseAndFormat) {
  ASSERT_OK_AND_ASSIGN(SchemaPtr s, ParseSchemaJson(R"([
      {"name": "id", "type": "int64", "nullable": false},
      {"name": "tags", "type": "list<utf8>"},
      {"name": "ts", "type": "timestamp[us, UTC]", "nullable": true}])"));
  ASSERT_EQ(s->num_fields(), 3);
  EXPECT_FALSE(s->field(0)->nullable());
  EXPECT_TRUE(s->field(1)->nullable());
  EXPECT_TRUE(s->field(1)->type()->Equals(*list(utf8())));
  const std::string json = FormatSchemaJson(*s);
  EXPECT_EQ(json, R"([{"name":"id","type":"int64","nullable":false},)"
                  R"({"name":"tags","type":"list<utf8>","nullable":true},)"
                  R"({"name":"ts","type":"timestamp[us, UTC]","nullable":true}])");
  ASSERT_OK_AND_ASSIGN(SchemaPtr back, ParseSchemaJson(json));
  EXPECT_TRUE(back->Equals(*s));
  // The shape of `info --json` works too.
  ASSERT_OK_AND_ASSIGN(SchemaPtr from_info,
                       ParseSchemaJson(R"({"uri": "x", "schema": )" + json + "}"));
  EXPECT_TRUE(from_info->Equals(*s));
}

TEST(SchemaJson, Errors) {
  EXPECT_THAT(ParseSchemaJson("{"), IsErrorWith(StatusCode::kInvalid, "invalid JSON"));
  EXPECT_THAT(ParseSchemaJson("[]"), IsErrorWith(StatusCode::kInvalid, "no fields"));
  EXPECT_THAT(ParseSchemaJson("{\"a\": 1}"),
              IsErrorWith(StatusCode::kInvalid, "list of fields"));
  EXPECT_THAT(ParseSchemaJson("[1]"),
              IsErrorWith(StatusCode::kInvalid, "field #1 is not an object"));
  EXPECT_THAT(ParseSchemaJson(R"([{"type": "int8"}])"),
              IsErrorWith(StatusCode::kInvalid, "name"));
  EXPECT_THAT(ParseSchemaJson(R"([{"name": "a"}])"),
              IsErrorWith(StatusCode::kInvalid, "\"type\""));
  EXPECT_THAT(ParseSchemaJson(R"([{"name": "a", "type": "int8", "nullable": "yes"}])"),
              IsErrorWith(StatusCode::kInvalid, "nullable"));
  EXPECT_THAT(ParseSchemaJson(R"([{"name": "a", "type": "int8", "typo": 1}])"),
              IsErrorWith(StatusCode::kInvalid, "unknown key \"typo\""));
  EXPECT_THAT(ParseSchemaJson(
                  R"([{"name": "a", "type": "int8"}, {"name": "a", "type": "int8"}])"),
              IsErrorWith(StatusCode::kInvalid, "duplicate field name \"a\""));
  EXPECT_THAT(ParseSchemaJson(R"([{"name": "a", "type": "list<nope>"}])"),
              IsErrorWith(StatusCode::kInvalid, "field \"a\""));
}

}  // namespace
}  // namespace lance::cli
