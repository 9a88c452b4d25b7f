// SPDX-License-Identifier: Apache-2.0
#include "lib/importer.h"

#include <gtest/gtest.h>

#include <string>

#include "lib/schema_spec.h"
#include "lib/value_format.h"
#include "tests/cli/invalid_inputs.h"
#include "tests/testing/matchers.h"

namespace lance::cli {
namespace {

using ::lance::testing::IsErrorWith;

std::string SchemaText(const Schema& s) { return FormatSchemaJson(s); }

SchemaPtr Parse(const std::string& json) {
  auto s = ParseSchemaJson(json);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : nullptr;
}

// The schema of `fields` (name, type as a schema spec writes it), every one nullable.
SchemaPtr SchemaOf(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string json = "[";
  for (const auto& [name, type] : fields) {
    if (json.size() > 1) json += ", ";
    json += R"({"name": ")" + name + R"(", "type": ")" + type + R"("})";
  }
  return Parse(json + "]");
}

// FormatSchemaJson of an inferred schema: `fields` (name, type), every one nullable.
std::string InferredJson(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string json = "[";
  for (const auto& [name, type] : fields) {
    if (json.size() > 1) json += ",";
    json += R"({"name":")" + name + R"(","type":")" + type + R"(","nullable":true})";
  }
  return json + "]";
}

// The table as JSON lines, as `scan --format jsonl` prints it.
std::string ToJsonLines(const Table& table) {
  std::string out;
  for (const auto& batch : table.batches()) {
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      AppendJsonRow(*batch, r, &out);
      out.push_back('\n');
    }
  }
  return out;
}

Result<TablePtr> Jsonl(const std::string& text, SchemaPtr schema = nullptr) {
  ImportOptions options;
  options.format = InputFormat::kJsonLines;
  options.schema = std::move(schema);
  return ImportText(text, options);
}

Result<TablePtr> Csv(const std::string& text, SchemaPtr schema = nullptr) {
  ImportOptions options;
  options.format = InputFormat::kCsv;
  options.schema = std::move(schema);
  return ImportText(text, options);
}

TEST(Formats, FromNameAndPath) {
  for (const auto& [name, format] : std::vector<std::pair<std::string, InputFormat>>{
           {"csv", InputFormat::kCsv},
           {"ndjson", InputFormat::kJsonLines},
           {"arrow-stream", InputFormat::kArrowStream}}) {
    EXPECT_EQ(*ParseInputFormat(name), format) << name;
  }
  // Parquet is recognized (so that import can say it cannot read it); .txt is not.
  for (const auto& [path, format] : std::vector<std::pair<std::string, InputFormat>>{
           {"/tmp/a.b/data.CSV", InputFormat::kCsv},
           {"x.jsonl", InputFormat::kJsonLines},
           {"x.json", InputFormat::kJsonLines},
           {"x.parquet", InputFormat::kParquet},
           {"x.arrow", InputFormat::kArrow},
           {"x.feather", InputFormat::kArrow},
           {"x.arrows", InputFormat::kArrowStream}}) {
    EXPECT_EQ(*InputFormatFromPath(path), format) << path;
  }
  ExpectInvalid([](const std::string& path) { return InputFormatFromPath(path); },
                {{"a.d/data", "--format"}, {"x.txt", "--format"}});
  EXPECT_THAT(ParseInputFormat("xml"),
              IsErrorWith(StatusCode::kInvalid, "unknown input format"));
}

TEST(InferJsonLines, Types) {
  ASSERT_OK_AND_ASSIGN(
      SchemaPtr s,
      InferSchema(R"({"i": 1, "f": 1.5, "b": true, "s": "x", "l": [1, 2], "o": {"p": 1}}
{"i": -2, "f": 2, "n": null, "l": [], "o": {"q": "y"}, "late": 1e3}

{"u": 18446744073709551615, "m": 1, "big": 99999999999999999999999}
{"m": 2.5, "u": 1, "nan": "NaN"}
{"nan": 1.25, "mixed_u": 18446744073709551615}
{"mixed_u": -1}
)",
                  InputFormat::kJsonLines));
  EXPECT_EQ(SchemaText(*s), InferredJson({{"i", "int64"},
                                          {"f", "float64"},
                                          {"b", "bool"},
                                          {"s", "utf8"},
                                          {"l", "list<int64>"},
                                          {"o", "struct<p: int64, q: utf8>"},
                                          {"n", "utf8"},
                                          {"late", "float64"},
                                          {"u", "uint64"},
                                          {"m", "float64"},
                                          {"big", "float64"},
                                          {"nan", "float64"},
                                          {"mixed_u", "float64"}}));
}

TEST(InferJsonLines, Errors) {
  ExpectInvalid(
      [&](const std::string& in) { return InferSchema(in, InputFormat::kJsonLines); },
      {{"{\"a\": 1}\n{\"a\": \"x\"}\n",
        "line 2, column 'a': has both integer and string values"},
       {"{\"a\": {\"b\": [1]}}\n{\"a\": {\"b\": [true]}}\n", "line 2, column 'a.b[0]'"},
       {"{\"a\": 1}\n[1]\n", "line 2: expected a JSON object (one per line), got array"},
       {"{\"a\": 1}\n{\"a\": }\n", "line 2: invalid JSON at column 7"},
       {"{\"a\": 1, \"a\": 2}\n", "duplicate key"},
       {"\n\n", "no rows"}});
}

TEST(InferCsv, Types) {
  ASSERT_OK_AND_ASSIGN(SchemaPtr s,
                       InferSchema("i,f,b,s,u,e,q\n"
                                   "1,1.5,true,x,18446744073709551615,,\"\"\n"
                                   " -2 ,2,FALSE,3,1,,\n"
                                   ",NaN,,y,,,\n",
                                   InputFormat::kCsv));
  EXPECT_EQ(SchemaText(*s), InferredJson({{"i", "int64"},
                                          {"f", "float64"},
                                          {"b", "bool"},
                                          {"s", "utf8"},
                                          {"u", "uint64"},
                                          {"e", "utf8"},
                                          {"q", "utf8"}}));
  ExpectInvalid([&](const std::string& in) { return InferSchema(in, InputFormat::kCsv); },
                {{"", "empty"},
                 {"a,a\n", "duplicate column \"a\""},
                 {"a,\n", "column 2 has no name"},
                 {"a,b\n1,2\n3\n", "line 3: expected 2 fields, got 1"}});
}

TEST(ImportJsonLines, InferredValues) {
  ASSERT_OK_AND_ASSIGN(TablePtr t, Jsonl("{\"a\": 1, \"b\": \"x\"}\r\n{\"b\": null}\n"
                                         "{\"a\": -9223372036854775808}\n"));
  EXPECT_EQ(t->num_rows(), 3);
  EXPECT_EQ(ToJsonLines(*t),
            "{\"a\":1,\"b\":\"x\"}\n{\"a\":null,\"b\":null}\n"
            "{\"a\":-9223372036854775808,\"b\":null}\n");
}

TEST(ImportJsonLines, EveryTypeWithSchema) {
  SchemaPtr s = SchemaOf({{"b", "bool"},
                          {"i8", "int8"},
                          {"i64", "int64"},
                          {"u64", "uint64"},
                          {"h", "float16"},
                          {"f", "float32"},
                          {"d", "float64"},
                          {"s", "large_utf8"},
                          {"bin", "binary"},
                          {"fsb", "fixed_size_binary[2]"},
                          {"day", "date32"},
                          {"ts", "timestamp[ms, UTC]"},
                          {"l", "large_list<int16>"},
                          {"fsl", "fixed_size_list<float64, 2>"},
                          {"st", "struct<x: uint8, y: list<utf8>>"}});
  ASSERT_OK_AND_ASSIGN(
      TablePtr t,
      Jsonl(R"({"b": true, "i8": -128, "i64": "9223372036854775807", )"
            R"("u64": 18446744073709551615, "h": 0.1, "f": 0.1, "d": "NaN", "s": "é", )"
            R"("bin": "AAE=", "fsb": "AAE", "day": "1969-12-31", )"
            R"("ts": "1970-01-01T01:00:00+01:00", "l": [1, null], )"
            R"("fsl": [1, "-Infinity"], )"
            R"("st": {"y": ["a"], "x": 255}})"
            "\n"
            R"({"day": -1, "ts": 1500, "st": {}})"
            "\n",
            s));
  EXPECT_EQ(
      ToJsonLines(*t),
      R"({"b":true,"i8":-128,"i64":9223372036854775807,"u64":18446744073709551615,)"
      R"("h":0.1,"f":0.1,"d":"NaN","s":"é","bin":"AAE=","fsb":"AAE=","day":"1969-12-31",)"
      R"("ts":"1970-01-01T00:00:00.000Z","l":[1,null],"fsl":[1,"-Infinity"],)"
      R"("st":{"x":255,"y":["a"]}})"
      "\n"
      R"({"b":null,"i8":null,"i64":null,"u64":null,"h":null,"f":null,"d":null,"s":null,)"
      R"("bin":null,"fsb":null,"day":"1969-12-31","ts":"1970-01-01T00:00:01.500Z",)"
      R"("l":null,"fsl":null,"st":{"x":null,"y":null}})"
      "\n");
}

TEST(ImportJsonLines, BadValuesNameLineAndColumn) {
  SchemaPtr s = Parse(R"([{"name": "id", "type": "int64", "nullable": false},
                          {"name": "n", "type": "int8"},
                          {"name": "st",
                           "type": "struct<xs: list<int32>, t: utf8 not null>"},
                          {"name": "v", "type": "fixed_size_list<int8, 2>"},
                          {"name": "day", "type": "date32"}])");
  const std::string ok = "{\"id\": 1}\n";
  ExpectInvalid(
      [&](const std::string& in) { return Jsonl(in, s); },
      {{ok + "{\"id\": 2, \"n\": 128}\n",
        "line 2, column 'n': \"128\" is out of range for int8"},
       {ok + "\n{\"id\": 2, \"n\": 1.5}\n",
        "line 3, column 'n': \"1.5\" is not a valid int8"},
       {ok + "{\"n\": 1}\n", "line 2, column 'id': null or missing value"},
       {"{\"id\": null}\n", "line 1, column 'id': null"},
       {ok + "{\"id\": 3, \"st\": {\"xs\": [1, \"x\"], \"t\": \"a\"}}\n",
        "line 2, column 'st.xs[1]': \"x\" is not a valid int32"},
       {ok + "{\"id\": 3, \"st\": {\"xs\": []}}\n",
        "line 2, column 'st.t': null or missing"},
       {ok + "{\"id\": 3, \"st\": {\"zz\": 1}}\n",
        "line 2, column 'st': unknown field \"zz\""},
       {ok + "{\"id\": 3, \"st\": [1]}\n",
        "line 2, column 'st': expected struct<xs: list<int32>, t: utf8 not "
        "null>, got array"},
       {ok + "{\"id\": 3, \"v\": [1, 2, 3]}\n",
        "line 2, column 'v': expected 2 items, got 3"},
       {ok + "{\"id\": 3, \"day\": \"2023-02-29\"}\n",
        "line 2, column 'day': \"2023-02-29\" is not a valid date"},
       {ok + "{\"id\": 3, \"extra\": 1}\n",
        "line 2: column \"extra\" is not in the schema"},
       {ok + "{\"id\": true}\n", "line 2, column 'id': expected int64, got true"}});
  SchemaPtr strings = SchemaOf({{"s", "utf8"}, {"b", "binary"}, {"u", "uint64"}});
  ExpectInvalid(
      [&](const std::string& in) { return Jsonl(in, strings); },
      {{"{\"s\": 5}\n", "line 1, column 's': expected utf8, got number 5"},
       {"{\"b\": \"***\"}\n", "line 1, column 'b': \"***\" is not valid base64"},
       {"{\"u\": 18446744073709551616}\n", "out of range for uint64"},
       {"{\"u\": -1}\n", "\"-1\" is out of range for uint64"}});
}

TEST(ImportCsv, NullsQuotingAndNestedCells) {
  SchemaPtr s = SchemaOf({{"s", "utf8"},
                          {"i", "int32"},
                          {"b", "binary"},
                          {"l", "list<int64>"},
                          {"t", "timestamp[s]"},
                          {"ok", "bool"}});
  ASSERT_OK_AND_ASSIGN(TablePtr t,
                       Csv("s,i,b,l,t,ok\n"
                           ",,,,,\n"
                           "\"\",\"\",\"\",\"[1, null]\",2000-01-01 00:00,TRUE\n"
                           "\"a,\"\"b\"\"\", 7 ,Zm9v,[],\"1970-01-01\",false\n",
                           s));
  EXPECT_EQ(
      ToJsonLines(*t),
      R"({"s":null,"i":null,"b":null,"l":null,"t":null,"ok":null})"
      "\n"
      R"({"s":"","i":null,"b":"","l":[1,null],"t":"2000-01-01T00:00:00","ok":true})"
      "\n"
      R"({"s":"a,\"b\"","i":7,"b":"Zm9v","l":[],"t":"1970-01-01T00:00:00","ok":false})"
      "\n");
  // Columns may come in any order and may be missing (nulls).
  ASSERT_OK_AND_ASSIGN(TablePtr reordered, Csv("ok,s\ntrue,x\n", s));
  EXPECT_EQ(ToJsonLines(*reordered),
            R"({"s":"x","i":null,"b":null,"l":null,"t":null,"ok":true})"
            "\n");
}

TEST(ImportCsv, Errors) {
  SchemaPtr s = Parse(R"([{"name": "a", "type": "int64", "nullable": false},
                          {"name": "l", "type": "list<int8>"}])");
  ExpectInvalid([&](const std::string& in) { return Csv(in, s); },
                {{"a\n1\nx\n", "line 3, column 'a': \"x\" is not a valid int64"},
                 {"a\n1\n\"\"\n", "line 3, column 'a': null or missing value"},
                 {"l\n[1]\n", "line 2, column 'a'"},
                 {"a,l\n1,\"[1,\"\n", "line 2, column 'l': invalid JSON"},
                 {"a,l\n1,[300]\n", "line 2, column 'l[0]': \"300\" is out of range"},
                 {"a,zz\n1,2\n", "column \"zz\" is not in the schema"},
                 {"a\n1\n2,3\n", "line 3: expected 1 fields, got 2"}});
  // Multi-line quoted fields: errors name the line where the record starts.
  SchemaPtr text = SchemaOf({{"s", "utf8"}, {"n", "int8"}});
  ExpectInvalid([&](const std::string& in) { return Csv(in, text); },
                {{"s,n\n\"a\nb\",1\n\"c\",x\n", "line 4, column 'n'"},
                 {"s,n\n\xFF,1\n", "line 2, column 's': the text is not valid UTF-8"}});
}

TEST(ImportReader, BatchesAndRowCount) {
  ImportOptions options;
  options.format = InputFormat::kCsv;
  options.batch_rows = 2;
  ASSERT_OK_AND_ASSIGN(auto reader, ImportReader::Make("x\n1\n2\n3\n4\n5\n", options));
  int batches = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, reader->Next());
    if (!batch) break;
    ++batches;
  }
  EXPECT_EQ(batches, 3);
  EXPECT_EQ(reader->rows_read(), 5);
  EXPECT_TRUE(reader->schema()->field(0)->type()->Equals(*int64()));
}

// What `scan --format jsonl` prints imports back, with the same schema, to an equal
// table.
TEST(RoundTrip, JsonLinesOutputReimportsEqual) {
  SchemaPtr s = SchemaOf({{"b", "bool"},
                          {"i8", "int8"},
                          {"i16", "int16"},
                          {"i32", "int32"},
                          {"i64", "int64"},
                          {"u8", "uint8"},
                          {"u16", "uint16"},
                          {"u32", "uint32"},
                          {"u64", "uint64"},
                          {"h", "float16"},
                          {"f", "float32"},
                          {"d", "float64"},
                          {"s", "utf8"},
                          {"ls", "large_utf8"},
                          {"bin", "binary"},
                          {"lbin", "large_binary"},
                          {"fsb", "fixed_size_binary[3]"},
                          {"day", "date32"},
                          {"ts_s", "timestamp[s]"},
                          {"ts_ms", "timestamp[ms, UTC]"},
                          {"ts_us", "timestamp[us, +05:30]"},
                          {"ts_ns", "timestamp[ns, America/New_York]"},
                          {"l", "list<struct<k: utf8, v: list<float32>>>"},
                          {"fsl", "fixed_size_list<float16, 2>"},
                          {"st", "struct<a: date32, b: large_list<uint64 not null>>"}});
  const std::string input =
      R"({"b": true, "i8": -128, "i16": 32767, "i32": -2147483648, )"
      R"("i64": -9223372036854775808, "u8": 255, "u16": 65535, "u32": 4294967295, )"
      R"("u64": 18446744073709551615, "h": 65504, "f": 3.4028235e38, )"
      R"("d": 2.2250738585072014e-308, "s": "tab\there \"q\" \u0001 é 😀", "ls": "", )"
      R"("bin": "AAEC/w==", "lbin": "", "fsb": "YWJj", "day": "-0044-03-15", )"
      R"("ts_s": "1900-01-01T00:00:00", "ts_ms": "1969-12-31T23:59:59.999Z", )"
      R"("ts_us": "2000-02-29T12:00:00.000001+05:30", )"
      R"("ts_ns": "2262-04-11T23:47:16.854775807Z", )"
      R"("l": [{"k": "x", "v": [0.1, "NaN", null]}, null], "fsl": [0.1, "-Infinity"], )"
      R"("st": {"a": "9999-12-31", "b": [0, 18446744073709551615]}})"
      "\n"
      R"({"d": -0.0, "f": 1e-45, "h": 6e-08, "l": [], "st": {"b": []}})"
      "\n"
      "{}\n";
  ASSERT_OK_AND_ASSIGN(TablePtr first, Jsonl(input, s));
  const std::string printed = ToJsonLines(*first);
  ASSERT_OK_AND_ASSIGN(TablePtr second, Jsonl(printed, s));
  EXPECT_TRUE(second->Equals(*first));
  EXPECT_EQ(ToJsonLines(*second), printed);
  // Inference keeps what the schema-less output can express.
  ASSERT_OK_AND_ASSIGN(TablePtr inferred, Jsonl(printed));
  EXPECT_EQ(inferred->num_rows(), 3);
}

}  // namespace
}  // namespace lance::cli
