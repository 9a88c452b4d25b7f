// SPDX-License-Identifier: Apache-2.0
#include "lib/json.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/cli/invalid_inputs.h"
#include "tests/testing/matchers.h"

namespace lance::cli {
namespace {

using ::lance::testing::IsErrorWith;

TEST(JsonParse, ValuesKeepNumberText) {
  ASSERT_OK_AND_ASSIGN(
      JsonValue v,
      ParseJson(
          R"( {"a": -9223372036854775808, "b": 18446744073709551615, "c": 1.5e-3,
          "d": [true, false, null], "e": {"x": "y"}, "f": ""} )"));
  ASSERT_TRUE(v.is_object());
  ASSERT_EQ(v.members.size(), 6u);
  EXPECT_EQ(v.members[0].first, "a");
  EXPECT_EQ(v.Find("a")->text, "-9223372036854775808");
  EXPECT_TRUE(v.Find("a")->is_integer_literal());
  EXPECT_EQ(v.Find("b")->text, "18446744073709551615");
  EXPECT_EQ(v.Find("c")->text, "1.5e-3");
  EXPECT_FALSE(v.Find("c")->is_integer_literal());
  EXPECT_EQ(v.Find("d")->items.size(), 3u);
  EXPECT_EQ(v.Find("d")->items[2].kind, JsonValue::Kind::kNull);
  EXPECT_EQ(v.Find("e")->Find("x")->text, "y");
  EXPECT_EQ(v.Find("f")->text, "");
  EXPECT_EQ(v.Find("zz"), nullptr);
}

TEST(JsonParse, NumberTextIsTheSourceText) {
  // Integers are rebuilt from nlohmann's values, floats keep nlohmann's token text; a
  // float column must still see "-0" (negative zero) and "0.1" (not
  // 0.1000000000000000055).
  ASSERT_OK_AND_ASSIGN(JsonValue v,
                       ParseJson("[-0, 0, -1, 0.1, -0.0, 1E+2, 18446744073709551616, "
                                 "-9223372036854775809, 3.4028234663852886e38]"));
  ASSERT_EQ(v.items.size(), 9u);
  const std::vector<std::string> want = {"-0",
                                         "0",
                                         "-1",
                                         "0.1",
                                         "-0.0",
                                         "1E+2",
                                         "18446744073709551616",
                                         "-9223372036854775809",
                                         "3.4028234663852886e38"};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_TRUE(v.items[i].is_number()) << i;
    EXPECT_EQ(v.items[i].text, want[i]) << i;
  }
  EXPECT_TRUE(v.items[0].is_integer_literal());
  EXPECT_TRUE(
      v.items[6].is_integer_literal());  // beyond uint64: still an integer literal
  EXPECT_FALSE(v.items[3].is_integer_literal());
}

TEST(JsonParse, MembersKeepSourceOrderAndDuplicates) {
  ASSERT_OK_AND_ASSIGN(JsonValue v,
                       ParseJson(R"({"b": 1, "a": [{"z": {}}, []], "b": 2})"));
  ASSERT_EQ(v.members.size(), 3u);
  EXPECT_EQ(v.members[0].first, "b");
  EXPECT_EQ(v.members[1].first, "a");
  EXPECT_EQ(v.members[2].first, "b");
  EXPECT_EQ(v.Find("b")->text, "1");  // the first match
  EXPECT_EQ(ToJsonText(v), R"({"b":1,"a":[{"z":{}},[]],"b":2})");
  // 256 levels are fine, 257 are not.
  EXPECT_TRUE(ParseJson(std::string(256, '[') + std::string(256, ']')).ok());
  EXPECT_THAT(ParseJson(std::string(257, '[') + std::string(257, ']')),
              IsErrorWith(StatusCode::kInvalid, "deeper than 256"));
  // A scalar document.
  ASSERT_OK_AND_ASSIGN(JsonValue s, ParseJson(" \"x\" "));
  EXPECT_EQ(s.text, "x");
}

TEST(JsonParse, StringEscapes) {
  ASSERT_OK_AND_ASSIGN(JsonValue v,
                       ParseJson(R"("a\"b\\c\/d\n\t\u00e9\ud83d\ude00\u0000")"));
  EXPECT_EQ(v.text, std::string("a\"b\\c/d\n\t\xC3\xA9\xF0\x9F\x98\x80\0", 16));
  // A lone surrogate escape is an error (nlohmann_json's rule; RFC 8259 leaves it open).
  EXPECT_THAT(ParseJson(R"("\ud800x")"), IsErrorWith(StatusCode::kInvalid, "surrogate"));
  EXPECT_THAT(ParseJson(R"("\udc00")"), IsErrorWith(StatusCode::kInvalid, "surrogate"));
  // Raw UTF-8 passes through.
  ASSERT_OK_AND_ASSIGN(JsonValue raw, ParseJson("\"h\xC3\xA9llo\""));
  EXPECT_EQ(raw.text, "h\xC3\xA9llo");
}

TEST(JsonParse, Errors) {
  ExpectInvalid([](const std::string& text) { return ParseJson(text); },
                {{"{\"a\": 1,}", "column 9"},
                 {"[1 2]", "column 4: syntax error while parsing array"},
                 {"01", "expected end of input"},
                 {"1.", "invalid number"},
                 {"-", "invalid number"},
                 {"1e999", "number overflow"},
                 {"NaN", "column 1: syntax error while parsing value"},
                 {"\"abc", "missing closing quote"},
                 {"\"a\nb\"", "control character"},
                 {"\"\\x\"", "after backslash"},
                 {"\"\xC3\"", "UTF-8"},
                 {"\"\xED\xA0\x80\"", "UTF-8"},
                 {"", "end of input"},
                 {std::string(300, '[') + std::string(300, ']'), "deeper"}});
}

TEST(JsonWrite, EscapingAndInvalidUtf8) {
  EXPECT_EQ(JsonQuote("plain"), "\"plain\"");
  EXPECT_EQ(JsonQuote("q\"b\\"), R"("q\"b\\")");
  EXPECT_EQ(JsonQuote("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(JsonQuote(std::string("\x01\x1f\0", 3)), R"("\u0001\u001f\u0000")");
  EXPECT_EQ(JsonQuote("\x7f"), "\"\x7f\"");
  EXPECT_EQ(JsonQuote("caf\xC3\xA9 \xF0\x9F\x98\x80"),
            "\"caf\xC3\xA9 \xF0\x9F\x98\x80\"");
  // Bytes that are not UTF-8 become \ufffd, one per byte.
  EXPECT_EQ(JsonQuote("a\xFF"
                      "b"),
            R"("a\ufffdb")");
  EXPECT_EQ(JsonQuote("\xC3"), R"("\ufffd")");
  EXPECT_EQ(JsonQuote("\xC0\xAF"), R"("\ufffd\ufffd")");            // overlong
  EXPECT_EQ(JsonQuote("\xED\xA0\x80"), R"("\ufffd\ufffd\ufffd")");  // surrogate
  EXPECT_TRUE(IsValidUtf8("h\xC3\xA9"));
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_EQ(FindInvalidUtf8("ab\xFF"), 2u);
  // Written text parses back to the same bytes.
  const std::string tricky = std::string("x\0y\"\\\x1b\xE2\x82\xAC", 10);
  ASSERT_OK_AND_ASSIGN(JsonValue back, ParseJson(JsonQuote(tricky)));
  EXPECT_EQ(back.text, tricky);
}

TEST(JsonWrite, DumpJsonKeepsOrderAndTheEscapingRule) {
  JsonDoc doc = JsonDoc::object();
  doc["z"] = 1;
  doc["a"] = JsonDoc::array({"x\n", nullptr, true, -2, 18446744073709551615ull});
  doc["bad \xFF"] = "caf\xC3\xA9 \xC3";
  doc["o"] = JsonDoc::object();
  EXPECT_EQ(DumpJson(doc),
            "{\"z\":1,\"a\":[\"x\\n\",null,true,-2,18446744073709551615],"
            "\"bad \\ufffd\":\"caf\xC3\xA9 \\ufffd\",\"o\":{}}");
  EXPECT_EQ(DumpJson(JsonDoc::array()), "[]");
  EXPECT_EQ(DumpJson(JsonDoc("s")), "\"s\"");
}

TEST(JsonWrite, ToJsonText) {
  ASSERT_OK_AND_ASSIGN(JsonValue v, ParseJson(R"({ "a" : [1, 2.50, "x"], "b": null })"));
  EXPECT_EQ(ToJsonText(v), R"({"a":[1,2.50,"x"],"b":null})");
}

}  // namespace
}  // namespace lance::cli
