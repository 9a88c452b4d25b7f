// SPDX-License-Identifier: Apache-2.0
#include "lib/csv.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/testing/matchers.h"

namespace lance::cli {
namespace {

using ::lance::testing::IsErrorWith;

// Records as "line:field|field" with quoted fields marked by <>.
std::vector<std::string> ReadAll(const std::string& text) {
  CsvReader reader(text);
  std::vector<std::string> out;
  CsvRecord record;
  while (true) {
    auto more = reader.Next(&record);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    std::string r = std::to_string(record.line) + ":";
    for (size_t i = 0; i < record.fields.size(); ++i) {
      if (i > 0) r += "|";
      const auto& f = record.fields[i];
      r += f.quoted ? "<" + f.text + ">" : f.text;
    }
    out.push_back(r);
  }
  return out;
}

TEST(Csv, Rfc4180Quoting) {
  EXPECT_EQ(ReadAll("a,b\n1,2\n"), (std::vector<std::string>{"1:a|b", "2:1|2"}));
  EXPECT_EQ(ReadAll("a,b\r\n1,2"), (std::vector<std::string>{"1:a|b", "2:1|2"}));
  EXPECT_EQ(ReadAll("\"x,y\",\"say \"\"hi\"\"\"\n"),
            (std::vector<std::string>{"1:<x,y>|<say \"hi\">"}));
  // A quoted field may span lines; the next record's line number accounts for it.
  EXPECT_EQ(ReadAll("\"multi\nline\",1\nnext,2\n"),
            (std::vector<std::string>{"1:<multi\nline>|1", "3:next|2"}));
  // Empty unquoted vs empty quoted.
  EXPECT_EQ(ReadAll(",\"\",\n"), (std::vector<std::string>{"1:|<>|"}));
  // Blank lines are skipped, a BOM is dropped, a stray quote in a field is literal.
  EXPECT_EQ(ReadAll("\xEF\xBB\xBFh\n\n\r\nab\"c\n"),
            (std::vector<std::string>{"1:h", "4:ab\"c"}));
  EXPECT_EQ(ReadAll(""), (std::vector<std::string>{}));
}

TEST(Csv, Errors) {
  CsvRecord record;
  CsvReader unterminated("a\n\"open,\n\n");
  ASSERT_TRUE(*unterminated.Next(&record));
  EXPECT_THAT(unterminated.Next(&record),
              IsErrorWith(StatusCode::kInvalid, "line 2: unterminated quoted field"));
  CsvReader junk("a\n\"x\"y,1\n");
  ASSERT_TRUE(*junk.Next(&record));
  EXPECT_THAT(
      junk.Next(&record),
      IsErrorWith(StatusCode::kInvalid, "line 2: unexpected text after a closing quote"));
}

}  // namespace
}  // namespace lance::cli
