// SPDX-License-Identifier: Apache-2.0
#include "lib/importer.h"

#include <gtest/gtest.h>

#include <string>

#include "lib/schema_spec.h"
#include "lib/value_format.h"
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
  EXPECT_EQ(*ParseInputFormat("csv"), InputFormat::kCsv);
  EXPECT_EQ(*ParseInputFormat("ndjson"), InputFormat::kJsonLines);
  EXPECT_EQ(*InputFormatFromPath("/tmp/a.b/data.CSV"), InputFormat::kCsv);
  EXPECT_EQ(*InputFormatFromPath("x.jsonl"), InputFormat::kJsonLines);
  EXPECT_EQ(*InputFormatFromPath("x.json"), InputFormat::kJsonLines);
  EXPECT_THAT(InputFormatFromPath("a.d/data"),
              IsErrorWith(StatusCode::kInvalid, "--format"));
  // Parquet is recognized (so that import can say it cannot read it); .txt is not.
  EXPECT_EQ(*InputFormatFromPath("x.parquet"), InputFormat::kParquet);
  EXPECT_EQ(*InputFormatFromPath("x.arrow"), InputFormat::kArrow);
  EXPECT_EQ(*InputFormatFromPath("x.feather"), InputFormat::kArrow);
  EXPECT_EQ(*InputFormatFromPath("x.arrows"), InputFormat::kArrowStream);
  EXPECT_EQ(*ParseInputFormat("arrow-stream"), InputFormat::kArrowStream);
  EXPECT_THAT(InputFormatFromPath("x.txt"),
              IsErrorWith(StatusCode::kInvalid, "--format"));
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
  EXPECT_EQ(SchemaText(*s),
            R"([{"name":"i","type":"int64","nullable":true},)"
            R"({"name":"f","type":"float64","nullable":true},)"
            R"({"name":"b","type":"bool","nullable":true},)"
            R"({"name":"s","type":"utf8","nullable":true},)"
            R"({"name":"l","type":"list<int64>","nullable":true},)"
            R"({"name":"o","type":"struct<p: int64, q: utf8>","nullable":true},)"
            R"({"name":"n","type":"utf8","nullable":true},)"
            R"({"name":"late","type":"float64","nullable":true},)"
            R"({"name":"u","type":"uint64","nullable":true},)"
            R"({"name":"m","type":"float64","nullable":true},)"
            R"({"name":"big","type":"float64","nullable":true},)"
            R"({"name":"nan","type":"float64","nullable":true},)"
            R"({"name":"mixed_u","type":"float64","nullable":true}])");
}

TEST(InferJsonLines, Errors) {
  EXPECT_THAT(InferSchema("{\"a\": 1}\n{\"a\": \"x\"}\n", InputFormat::kJsonLines),
              IsErrorWith(StatusCode::kInvalid,
                          "line 2, column 'a': has both integer and string values"));
  EXPECT_THAT(InferSchema("{\"a\": {\"b\": [1]}}\n{\"a\": {\"b\": [true]}}\n",
                          InputFormat::kJsonLines),
              IsErrorWith(StatusCode::kInvalid, "line 2, column 'a.b[0]'"));
  EXPECT_THAT(InferSchema("{\"a\": 1}\n[1]\n", InputFormat::kJsonLines),
              IsErrorWith(StatusCode::kInvalid,
                          "line 2: expected a JSON object (one per line), got array"));
  EXPECT_THAT(InferSchema("{\"a\": 1}\n{\"a\": }\n", InputFormat::kJsonLines),
              IsErrorWith(StatusCode::kInvalid, "line 2: invalid JSON at column 7"));
  EXPECT_THAT(InferSchema("{\"a\": 1, \"a\": 2}\n", InputFormat::kJsonLines),
              IsErrorWith(StatusCode::kInvalid, "duplicate key"));
  EXPECT_THAT(InferSchema("\n\n", InputFormat::kJsonLines),
              IsErrorWith(StatusCode::kInvalid, "no rows"));
}

TEST(InferCsv, Types) {
  ASSERT_OK_AND_ASSIGN(SchemaPtr s,
                       InferSchema("i,f,b,s,u,e,q\n"
                                   "1,1.5,true,x,18446744073709551615,,\"\"\n"
                                   " -2 ,2,FALSE,3,1,,\n"
                                   ",NaN,,y,,,\n",
                                   InputFormat::kCsv));
  EXPECT_EQ(SchemaText(*s), R"([{"name":"i","type":"int64","nullable":true},)"
                            R"({"name":"f","type":"float64","nullable":true},)"
                            R"({"name":"b","type":"bool","nullable":true},)"
                            R"({"name":"s","type":"utf8","nullable":true},)"
                            R"({"name":"u","type":"uint64","nullable":true},)"
                            R"({"name":"e","type":"utf8","nullable":true},)"
                            R"({"name":"q","type":"utf8","nullable":true}])");
  EXPECT_THAT(InferSchema("", InputFormat::kCsv),
              IsErrorWith(StatusCode::kInvalid, "empty"));
  EXPECT_THAT(InferSchema("a,a\n", InputFormat::kCsv),
              IsErrorWith(StatusCode::kInvalid, "duplicate column \"a\""));
  EXPECT_THAT(InferSchema("a,\n", InputFormat::kCsv),
              IsErrorWith(StatusCode::kInvalid, "column 2 has no name"));
  EXPECT_THAT(InferSchema("a,b\n1,2\n3\n", InputFormat::kCsv),
              IsErrorWith(StatusCode::kInvalid, "line 3: expected 2 fields, got 1"));
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
  SchemaPtr s = Parse(R"([
    {"name": "b", "type": "bool"}, {"name": "i8", "type": "int8"},
    {"name": "i64", "type": "int64"}, {"name": "u64", "type": "uint64"},
    {"name": "h", "type": "float16"}, {"name": "f", "type": "float32"},
    {"name": "d", "type": "float64"}, {"name": "s", "type": "large_utf8"},
    {"name": "bin", "type": "binary"}, {"name": "fsb", "type": "fixed_size_binary[2]"},
    {"name": "day", "type": "date32"}, {"name": "ts", "type": "timestamp[ms, UTC]"},
    {"name": "l", "type": "large_list<int16>"},
    {"name": "fsl", "type": "fixed_size_list<float64, 2>"},
    {"name": "st", "type": "struct<x: uint8, y: list<utf8>>"}])");
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
  EXPECT_THAT(Jsonl(ok + "{\"id\": 2, \"n\": 128}\n", s),
              IsErrorWith(StatusCode::kInvalid,
                          "line 2, column 'n': \"128\" is out of range for int8"));
  EXPECT_THAT(Jsonl(ok + "\n{\"id\": 2, \"n\": 1.5}\n", s),
              IsErrorWith(StatusCode::kInvalid,
                          "line 3, column 'n': \"1.5\" is not a valid int8"));
  EXPECT_THAT(
      Jsonl(ok + "{\"n\": 1}\n", s),
      IsErrorWith(StatusCode::kInvalid, "line 2, column 'id': null or missing value"));
  EXPECT_THAT(Jsonl("{\"id\": null}\n", s),
              IsErrorWith(StatusCode::kInvalid, "line 1, column 'id': null"));
  EXPECT_THAT(Jsonl(ok + "{\"id\": 3, \"st\": {\"xs\": [1, \"x\"], \"t\": \"a\"}}\n", s),
              IsErrorWith(StatusCode::kInvalid,
                          "line 2, column 'st.xs[1]': \"x\" is not a valid int32"));
  EXPECT_THAT(
      Jsonl(ok + "{\"id\": 3, \"st\": {\"xs\": []}}\n", s),
      IsErrorWith(StatusCode::kInvalid, "line 2, column 'st.t': null or missing"));
  EXPECT_THAT(
      Jsonl(ok + "{\"id\": 3, \"st\": {\"zz\": 1}}\n", s),
      IsErrorWith(StatusCode::kInvalid, "line 2, column 'st': unknown field \"zz\""));
  EXPECT_THAT(
      Jsonl(ok + "{\"id\": 3, \"st\": [1]}\n", s),
      IsErrorWith(StatusCode::kInvalid,
                  "line 2, column 'st': expected struct<xs: list<int32>, t: utf8 not "
                  "null>, got array"));
  EXPECT_THAT(
      Jsonl(ok + "{\"id\": 3, \"v\": [1, 2, 3]}\n", s),
      IsErrorWith(StatusCode::kInvalid, "line 2, column 'v': expected 2 items, got 3"));
  EXPECT_THAT(Jsonl(ok + "{\"id\": 3, \"day\": \"2023-02-29\"}\n", s),
              IsErrorWith(StatusCode::kInvalid,
                          "line 2, column 'day': \"2023-02-29\" is not a valid date"));
  EXPECT_THAT(
      Jsonl(ok + "{\"id\": 3, \"extra\": 1}\n", s),
      IsErrorWith(StatusCode::kInvalid, "line 2: column \"extra\" is not in the schema"));
  EXPECT_THAT(
      Jsonl(ok + "{\"id\": true}\n", s),
      IsErrorWith(StatusCode::kInvalid, "line 2, column 'id': expected int64, got true"));
  SchemaPtr strings =
      Parse(R"([{"name": "s", "type": "utf8"}, {"name": "b", "type": "binary"},
                                {"name": "u", "type": "uint64"}])");
  EXPECT_THAT(Jsonl("{\"s\": 5}\n", strings),
              IsErrorWith(StatusCode::kInvalid,
                          "line 1, column 's': expected utf8, got number 5"));
  EXPECT_THAT(Jsonl("{\"b\": \"***\"}\n", strings),
              IsErrorWith(StatusCode::kInvalid,
                          "line 1, column 'b': \"***\" is not valid base64"));
  EXPECT_THAT(Jsonl("{\"u\": 18446744073709551616}\n", strings),
              IsErrorWith(StatusCode::kInvalid, "out of range for uint64"));
  EXPECT_THAT(Jsonl("{\"u\": -1}\n", strings),
              IsErrorWith(StatusCode::kInvalid, "\"-1\" is out of range for uint64"));
}

TEST(ImportCsv, NullsQuotingAndNestedCells) {
  SchemaPtr s = Parse(R"([{"name": "s", "type": "utf8"}, {"name": "i", "type": "int32"},
      {"name": "b", "type": "binary"}, {"name": "l", "type": "list<int64>"},
      {"name": "t", "type": "timestamp[s]"}, {"name": "ok", "type": "bool"}])");
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
  EXPECT_THAT(Csv("a\n1\nx\n", s),
              IsErrorWith(StatusCode::kInvalid,
                          "line 3, column 'a': \"x\" is not a valid int64"));
  EXPECT_THAT(
      Csv("a\n1\n\"\"\n", s),
      IsErrorWith(StatusCode::kInvalid, "line 3, column 'a': null or missing value"));
  EXPECT_THAT(Csv("l\n[1]\n", s),
              IsErrorWith(StatusCode::kInvalid, "line 2, column 'a'"));
  EXPECT_THAT(Csv("a,l\n1,\"[1,\"\n", s),
              IsErrorWith(StatusCode::kInvalid, "line 2, column 'l': invalid JSON"));
  EXPECT_THAT(Csv("a,l\n1,[300]\n", s),
              IsErrorWith(StatusCode::kInvalid,
                          "line 2, column 'l[0]': \"300\" is out of range"));
  EXPECT_THAT(Csv("a,zz\n1,2\n", s),
              IsErrorWith(StatusCode::kInvalid, "column \"zz\" is not in the schema"));
  EXPECT_THAT(Csv("a\n1\n2,3\n", s),
              IsErrorWith(StatusCode::kInvalid, "line 3: expected 1 fields, got 2"));
  // Multi-line quoted fields: errors name the line where the record starts.
  SchemaPtr text =
      Parse(R"([{"name": "s", "type": "utf8"}, {"name": "n", "type": "int8"}])");
  EXPECT_THAT(Csv("s,n\n\"a\nb\",1\n\"c\",x\n", text),
              IsErrorWith(StatusCode::kInvalid, "line 4, column 'n'"));
  EXPECT_THAT(Csv("s,n\n\xFF,1\n", text),
              IsErrorWith(StatusCode::kInvalid,
                          "line 2, column 's': the text is not valid UTF-8"));
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
  SchemaPtr s = Parse(R"([
    {"name": "b", "type": "bool"}, {"name": "i8", "type": "int8"},
    {"name": "i16", "type": "int16"}, {"name": "i32", "type": "int32"},
    {"name": "i64", "type": "int64"}, {"name": "u8", "type": "uint8"},
    {"name": "u16", "type": "uint16"}, {"name": "u32", "type": "uint32"},
    {"name": "u64", "type": "uint64"}, {"name": "h", "type": "float16"},
    {"name": "f", "type": "float32"}, {"name": "d", "type": "float64"},
    {"name": "s", "type": "utf8"}, {"name": "ls", "type": "large_utf8"},
    {"name": "bin", "type": "binary"}, {"name": "lbin", "type": "large_binary"},
    {"name": "fsb", "type": "fixed_size_binary[3]"}, {"name": "day", "type": "date32"},
    {"name": "ts_s", "type": "timestamp[s]"},
    {"name": "ts_ms", "type": "timestamp[ms, UTC]"},
    {"name": "ts_us", "type": "timestamp[us, +05:30]"},
    {"name": "ts_ns", "type": "timestamp[ns, America/New_York]"},
    {"name": "l", "type": "list<struct<k: utf8, v: list<float32>>>"},
    {"name": "fsl", "type": "fixed_size_list<float16, 2>"},
    {"name": "st", "type": "struct<a: date32, b: large_list<uint64 not null>>"}])");
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
