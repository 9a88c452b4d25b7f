// SPDX-License-Identifier: Apache-2.0
// The CLI and the Arrow types added for pylance 14 parity (null, decimals, date64,
// times, durations, dictionaries, maps): type strings, scan rendering (JSON lines and
// table text), the scalar codecs and import of every one of them, round-tripping what
// scan prints.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lance/core/builder.h"
#include "lib/importer.h"
#include "lib/scalar_codec.h"
#include "lib/schema_spec.h"
#include "lib/value_format.h"
#include "tests/testing/cli_helpers.h"
#include "tests/testing/matchers.h"

namespace lance::cli {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using ::lance::testing::ExpectTypeString;
using ::lance::testing::ExpectTypeStringError;

// ---- type strings -------------------------------------------------------------------

TEST(NewTypeStrings, Parse) {
  ExpectTypeString("null", null());
  ExpectTypeString("date64", date64());
  ExpectTypeString("decimal128(10, 2)", decimal128(10, 2));
  ExpectTypeString("decimal256( 40 ,-3 )", decimal256(40, -3));
  ExpectTypeString("decimal(38, 0)", decimal128(38, 0));
  ExpectTypeString("decimal(39, 0)", decimal256(39, 0));
  ExpectTypeString("time32[s]", time32(TimeUnit::kSecond));
  ExpectTypeString("time32[ms]", time32(TimeUnit::kMilli));
  ExpectTypeString("time64[us]", time64(TimeUnit::kMicro));
  ExpectTypeString("time64[ns]", time64(TimeUnit::kNano));
  ExpectTypeString("duration[s]", duration(TimeUnit::kSecond));
  ExpectTypeString("duration[ns]", duration(TimeUnit::kNano));
  ExpectTypeString("dictionary<values=utf8, indices=int8>", dictionary(int8(), utf8()));
  ExpectTypeString("dictionary<values=utf8>", dictionary(int32(), utf8()));
  // Arrow's own spelling (ToString) reads too.
  ExpectTypeString("dictionary<values=string, indices=int32, ordered=0>",
                   dictionary(int32(), utf8()));
  ExpectTypeString("dictionary<indices=uint16, values=int64, ordered>",
                   dictionary(uint16(), int64(), true));
  ExpectTypeString("map<utf8, int32>", map(utf8(), int32()));
  ExpectTypeString(
      "map<int64, list<utf8> not null, keys_sorted>",
      map(field("key", int64(), false), field("value", list(utf8()), false), true));
  ExpectTypeString(
      "struct<n: null, m: map<utf8, decimal128(5, 2)>>",
      struct_({field("n", null()), field("m", map(utf8(), decimal128(5, 2)))}));
  ExpectTypeString("list<dictionary<values=utf8, indices=int16>>",
                   list(dictionary(int16(), utf8())));
}

TEST(NewTypeStrings, ParseErrors) {
  ExpectTypeStringError("decimal128(39, 2)", "precision must be in [1, 38]");
  ExpectTypeStringError("decimal128(10)", "','");
  ExpectTypeStringError("decimal128(10, x)", "scale");
  ExpectTypeStringError("time32[us]", "time32 takes the unit s or ms");
  ExpectTypeStringError("time64[s]");
  ExpectTypeStringError("duration[d]", "time unit");
  ExpectTypeStringError("dictionary<indices=int8>", "values=");
  ExpectTypeStringError("dictionary<values=utf8, indices=utf8>", "integer");
  ExpectTypeStringError("dictionary<colour=red>");
  ExpectTypeStringError("map<utf8>", "','");
  ExpectTypeStringError("map<utf8, int32, sorted>", "keys_sorted");
}

TEST(NewTypeStrings, FormatReadsBack) {
  const std::vector<std::pair<DataTypePtr, std::string>> cases = {
      {null(), "null"},
      {date64(), "date64"},
      {decimal128(10, 2), "decimal128(10, 2)"},
      {decimal256(40, -3), "decimal256(40, -3)"},
      {time32(TimeUnit::kMilli), "time32[ms]"},
      {time64(TimeUnit::kNano), "time64[ns]"},
      {duration(TimeUnit::kMicro), "duration[us]"},
      {dictionary(int32(), utf8()), "dictionary<values=utf8, indices=int32>"},
      {dictionary(uint8(), float64(), true),
       "dictionary<values=float64, indices=uint8, ordered>"},
      {map(utf8(), int32()), "map<utf8, int32>"},
      {map(field("key", utf8(), false), field("value", list(int8()), false), true),
       "map<utf8, list<int8> not null, keys_sorted>"},
  };
  for (const auto& [type, text] : cases) {
    EXPECT_EQ(FormatTypeString(*type), text);
    ExpectTypeString(text, type);
  }
  // A schema file round trip.
  auto s =
      schema({field("d", decimal128(7, 3), false), field("m", map(utf8(), int64()))});
  ASSERT_OK_AND_ASSIGN(SchemaPtr back, ParseSchemaJson(FormatSchemaJson(*s)));
  EXPECT_TRUE(back->Equals(*s, true)) << back->ToString();
}

// ---- scalar codecs
// ---------------------------------------------------------------------

std::string FormatTimeOfDay(int64_t value, TimeUnit unit) {
  std::string out;
  AppendIsoTimeOfDay(value, unit, &out);
  return out;
}

TEST(NewScalarCodec, TimeOfDay) {
  EXPECT_EQ(FormatTimeOfDay(45296, TimeUnit::kSecond), "12:34:56");
  EXPECT_EQ(FormatTimeOfDay(45296789, TimeUnit::kMilli), "12:34:56.789");
  EXPECT_EQ(FormatTimeOfDay(1, TimeUnit::kMicro), "00:00:00.000001");
  EXPECT_EQ(FormatTimeOfDay(86399999999999, TimeUnit::kNano), "23:59:59.999999999");
  EXPECT_EQ(FormatTimeOfDay(86400, TimeUnit::kSecond), "86400");  // invalid: raw
  EXPECT_EQ(FormatTimeOfDay(-1, TimeUnit::kMilli), "-1");
  EXPECT_EQ(*ParseTimeOfDay("12:34:56.789", TimeUnit::kMilli), 45296789);
  EXPECT_EQ(*ParseTimeOfDay("12:34", TimeUnit::kSecond), 45240);
  EXPECT_EQ(*ParseTimeOfDay("00:00:00.5", TimeUnit::kNano), 500000000);
  EXPECT_EQ(*ParseTimeOfDay("23:59:59.999000", TimeUnit::kMilli), 86399999);
  EXPECT_THAT(ParseTimeOfDay("00:00:00.0001", TimeUnit::kMilli),
              IsErrorWith(StatusCode::kInvalid, "fractional digits"));
  EXPECT_THAT(ParseTimeOfDay("24:00:00", TimeUnit::kSecond),
              IsErrorWith(StatusCode::kInvalid, "out of range"));
  for (const char* bad : {"", "1:00", "12", "12:3", "12:34:5", "12:34:56Z", "ab:cd"}) {
    EXPECT_THAT(ParseTimeOfDay(bad, TimeUnit::kSecond), IsError(StatusCode::kInvalid))
        << bad;
  }
}

TEST(NewScalarCodec, Date64) {
  EXPECT_EQ(FormatDate64(0), "1970-01-01");
  EXPECT_EQ(FormatDate64(86'400'000LL * 19782), "2024-02-29");
  EXPECT_EQ(FormatDate64(-86'400'000), "1969-12-31");
  EXPECT_EQ(FormatDate64(1), "1970-01-01T00:00:00.001");
  EXPECT_EQ(*ParseDate64("2024-02-29"), 86'400'000LL * 19782);
  EXPECT_EQ(*ParseDate64("1970-01-01T00:00:00.001"), 1);
  EXPECT_THAT(ParseDate64("yesterday"),
              IsErrorWith(StatusCode::kInvalid, "not a valid date"));
}

// ---- rendering
// -------------------------------------------------------------------------

using ::lance::testing::Json;
using ::lance::testing::Text;

// Builds an array of `type` from JSON lines text through the importer: one value per
// line under key "v".
ArrayPtr FromJson(const DataTypePtr& type, const std::vector<std::string>& values) {
  std::string text;
  for (const std::string& v : values) text += "{\"v\": " + v + "}\n";
  ImportOptions options;
  options.format = InputFormat::kJsonLines;
  options.schema = schema({field("v", type)});
  auto table = ImportText(text, options);
  EXPECT_TRUE(table.ok()) << type->ToString() << ": " << table.status().ToString();
  if (!table.ok() || (*table)->batches().empty()) return nullptr;
  return (*table)->batches()[0]->column(0);
}

struct RenderCase {
  DataTypePtr type;
  std::vector<std::string> input;  // JSON values
  std::string json;                // what scan --format jsonl prints, space-joined
  std::string text;                // what the table shows, '|'-joined
};

std::vector<RenderCase> RenderCases() {
  return {
      {null(), {"null", "null"}, "null null", "null|null"},
      {decimal128(10, 2),
       {"123.45", "\"-0.01\"", "null", "1e2"},
       "\"123.45\" \"-0.01\" null \"100.00\"",
       "123.45|-0.01|null|100.00"},
      {decimal256(40, 0),
       {"\"-1234567890123456789012345678901234567890\""},
       "\"-1234567890123456789012345678901234567890\"",
       "-1234567890123456789012345678901234567890"},
      {decimal128(5, -2), {"12300", "\"-500\""}, "\"12300\" \"-500\"", "12300|-500"},
      {date64(),
       {"\"2024-02-29\"", "0", "null"},
       "\"2024-02-29\" \"1970-01-01\" null",
       "2024-02-29|1970-01-01|null"},
      {time32(TimeUnit::kSecond),
       {"\"12:34:56\"", "0", "\"23:59\""},
       "\"12:34:56\" \"00:00:00\" \"23:59:00\"",
       "12:34:56|00:00:00|23:59:00"},
      {time32(TimeUnit::kMilli),
       {"\"12:34:56.789\""},
       "\"12:34:56.789\"",
       "12:34:56.789"},
      {time64(TimeUnit::kMicro),
       {"\"00:00:00.000001\"", "45296789012"},
       "\"00:00:00.000001\" \"12:34:56.789012\"",
       "00:00:00.000001|12:34:56.789012"},
      {time64(TimeUnit::kNano),
       {"\"23:59:59.999999999\""},
       "\"23:59:59.999999999\"",
       "23:59:59.999999999"},
      {duration(TimeUnit::kMilli),
       {"1500", "-3", "\"7\"", "null"},
       "1500 -3 7 null",
       "1500|-3|7|null"},
      {duration(TimeUnit::kNano),
       {"-9223372036854775808"},
       "-9223372036854775808",
       "-9223372036854775808"},
      {dictionary(int8(), utf8()),
       {"\"b\"", "\"a\"", "null", "\"b\""},
       "\"b\" \"a\" null \"b\"",
       "b|a|null|b"},
      {dictionary(uint16(), decimal128(5, 1)),
       {"1.5", "\"-2.0\""},
       "\"1.5\" \"-2.0\"",
       "1.5|-2.0"},
      {map(utf8(), int32()),
       {"{\"a\": 1, \"b\": null}", "{}", "null", "[[\"c\", 3]]"},
       "{\"a\":1,\"b\":null} {} null {\"c\":3}",
       "{\"a\":1,\"b\":null}|{}|null|{\"c\":3}"},
      {map(int64(), utf8()),
       {"[[1, \"x\"], [2, null]]", "{\"3\": \"y\"}"},
       "[[1,\"x\"],[2,null]] [[3,\"y\"]]",
       "[[1,\"x\"],[2,null]]|[[3,\"y\"]]"},
      {map(boolean(), map(utf8(), date64())),
       {"{\"true\": {\"d\": \"1970-01-02\"}}"},
       "[[true,{\"d\":\"1970-01-02\"}]]",
       "[[true,{\"d\":\"1970-01-02\"}]]"},
      {list(dictionary(int32(), utf8())),
       {"[\"x\", \"y\", \"x\"]"},
       "[\"x\",\"y\",\"x\"]",
       "[\"x\",\"y\",\"x\"]"},
      {struct_({field("n", null()), field("t", time32(TimeUnit::kSecond)),
                field("d", decimal128(4, 1))}),
       {"{\"t\": \"00:00:01\", \"d\": 2.5}"},
       "{\"n\":null,\"t\":\"00:00:01\",\"d\":\"2.5\"}",
       "{\"n\":null,\"t\":\"00:00:01\",\"d\":\"2.5\"}"},
  };
}

TEST(NewTypesRender, JsonAndTableText) {
  for (const RenderCase& c : RenderCases()) {
    SCOPED_TRACE(c.type->ToString());
    ArrayPtr array = FromJson(c.type, c.input);
    ASSERT_NE(array, nullptr);
    EXPECT_TRUE(array->type()->Equals(*c.type));
    EXPECT_OK(array->Validate());
    EXPECT_EQ(Json(array), c.json);
    EXPECT_EQ(Text(array), c.text);
  }
}

TEST(NewTypesRender, ScanOutputImportsBackEqual) {
  // What scan --format jsonl prints reads back as the same values (the exact-decimal
  // strings, ISO dates and times, integer durations, map pairs).
  for (const RenderCase& c : RenderCases()) {
    SCOPED_TRACE(c.type->ToString());
    ArrayPtr array = FromJson(c.type, c.input);
    ASSERT_NE(array, nullptr);
    std::vector<std::string> printed;
    for (int64_t i = 0; i < array->length(); ++i) {
      std::string json;
      AppendJsonValue(*array, i, &json);
      printed.push_back(json);
    }
    ArrayPtr back = FromJson(c.type, printed);
    ASSERT_NE(back, nullptr);
    EXPECT_TRUE(back->Equals(*array)) << back->ToString() << " vs " << array->ToString();
  }
}

TEST(NewTypesImport, CsvCells) {
  ImportOptions options;
  options.format = InputFormat::kCsv;
  options.schema =
      schema({field("d", decimal128(6, 2)), field("t", time64(TimeUnit::kMicro)),
              field("dt", date64()), field("du", duration(TimeUnit::kSecond)),
              field("dict", dictionary(int16(), utf8())),
              field("m", map(utf8(), int32())), field("n", null())});
  ASSERT_OK_AND_ASSIGN(
      TablePtr table,
      ImportText("d,t,dt,du,dict,m,n\n"
                 "1234.5,12:00:00.25,2024-01-01,-30,red,\"{\"\"a\"\": 1}\",\n"
                 ",,,,,,\n"
                 "-0.01,00:00:00,1970-01-01,0,blue,{},\n",
                 options));
  ASSERT_EQ(table->batches().size(), 1u);
  const RecordBatch& b = *table->batches()[0];
  EXPECT_EQ(b.column(0)->ToString(), "[1234.50, null, -0.01]");
  EXPECT_EQ(b.column(1)->ToString(), "[12:00:00.250000, null, 00:00:00.000000]");
  EXPECT_EQ(b.column(2)->ToString(), "[2024-01-01, null, 1970-01-01]");
  EXPECT_EQ(b.column(3)->ToString(), "[-30s, null, 0s]");
  EXPECT_EQ(b.column(4)->ToString(), "[\"red\", null, \"blue\"]");
  EXPECT_EQ(static_cast<const DictionaryArray&>(*b.column(4)).dictionary()->length(), 2);
  EXPECT_EQ(b.column(5)->ToString(), "[{\"a\": 1}, null, {}]");
  EXPECT_EQ(b.column(6)->null_count(), 3);
  for (const auto& column : b.columns()) EXPECT_OK(column->Validate());
}

TEST(NewTypesImport, BadValuesNameLineAndColumn) {
  const auto import = [](const DataTypePtr& type, const std::string& value) {
    ImportOptions options;
    options.format = InputFormat::kJsonLines;
    options.schema = schema({field("c", type)});
    return ImportText("{\"c\": " + value + "}\n", options);
  };
  EXPECT_THAT(import(decimal128(5, 2), "1.234"),
              IsErrorWith(StatusCode::kInvalid, "line 1, column 'c'"));
  EXPECT_THAT(import(decimal128(5, 2), "1.234"),
              IsErrorWith(StatusCode::kInvalid, "fraction"));
  EXPECT_THAT(import(decimal128(5, 2), "12345.6"),
              IsErrorWith(StatusCode::kInvalid, "digits"));
  EXPECT_THAT(import(decimal128(5, 2), "true"),
              IsErrorWith(StatusCode::kInvalid, "expected"));
  EXPECT_THAT(import(null(), "1"), IsErrorWith(StatusCode::kInvalid, "expected null"));
  EXPECT_THAT(import(time32(TimeUnit::kSecond), "86400"),
              IsErrorWith(StatusCode::kInvalid, "time of day"));
  EXPECT_THAT(import(time32(TimeUnit::kSecond), "\"25:00\""),
              IsError(StatusCode::kInvalid));
  EXPECT_THAT(import(duration(TimeUnit::kSecond), "1.5"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(import(date64(), "\"soon\""), IsError(StatusCode::kInvalid));
  EXPECT_THAT(import(map(utf8(), int32()), "[[null, 1]]"),
              IsErrorWith(StatusCode::kInvalid, "a map key is null"));
  EXPECT_THAT(import(map(utf8(), int32()), "[[\"a\"]]"),
              IsErrorWith(StatusCode::kInvalid, "[key, value] pair"));
  EXPECT_THAT(import(map(utf8(), int32()), "{\"a\": \"x\"}"),
              IsErrorWith(StatusCode::kInvalid, "column 'c.a'"));
  EXPECT_THAT(import(map(int32(), int32()), "{\"x\": 1}"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(import(dictionary(int8(), int32()), "\"x\""),
              IsError(StatusCode::kInvalid));
}

}  // namespace
}  // namespace lance::cli
