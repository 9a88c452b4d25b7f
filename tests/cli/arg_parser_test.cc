// SPDX-License-Identifier: Apache-2.0
// The argument parser shared by lance-cpp, lance-interop and lance-ns (cli/args).
#include "args/arg_parser.h"

#include <gtest/gtest.h>

#include "tests/testing/matchers.h"

namespace lance::cli {
namespace {

using ::lance::testing::IsErrorWith;

const std::vector<OptionSpec>& Specs() {
  static const std::vector<OptionSpec> kSpecs = {
      {"limit", true, false, "rows to read"},
      {"storage-option", true, true, "KEY=VALUE"},
      {"json", false, false, "JSON output"},
  };
  return kSpecs;
}

TEST(ArgParser, OptionsAndPositionalsInAnyOrder) {
  ASSERT_OK_AND_ASSIGN(
      Args args, ParseArgs({"a", "--limit", "5", "b", "--json", "--storage-option=k=v=w",
                            "--storage-option", "x=y", "c"},
                           Specs()));
  EXPECT_EQ(args.positionals, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(args.Get("limit"), "5");
  EXPECT_TRUE(args.Has("json"));
  EXPECT_TRUE(args.GetAll("json").empty());
  // "--name=value" splits at the first '=' only; repeated options keep their order.
  EXPECT_EQ(args.GetAll("storage-option"), (std::vector<std::string>{"k=v=w", "x=y"}));
  EXPECT_FALSE(args.Has("missing"));
  EXPECT_EQ(args.Get("missing"), std::nullopt);
  EXPECT_TRUE(args.GetAll("missing").empty());
}

TEST(ArgParser, DoubleDashEndsOptionsAndSingleDashIsPositional) {
  ASSERT_OK_AND_ASSIGN(Args args,
                       ParseArgs({"-", "-x", "--json", "--", "--limit", "--"}, Specs()));
  EXPECT_EQ(args.positionals, (std::vector<std::string>{"-", "-x", "--limit", "--"}));
  EXPECT_TRUE(args.Has("json"));
  EXPECT_FALSE(args.Has("limit"));
  // A value may itself start with dashes.
  ASSERT_OK_AND_ASSIGN(Args neg, ParseArgs({"--limit", "--json"}, Specs()));
  EXPECT_EQ(neg.Get("limit"), "--json");
  EXPECT_FALSE(neg.Has("json"));
  // An empty inline value is a value.
  ASSERT_OK_AND_ASSIGN(Args empty, ParseArgs({"--limit="}, Specs()));
  EXPECT_EQ(empty.Get("limit"), "");
}

TEST(ArgParser, ErrorsNameTheOption) {
  EXPECT_THAT(ParseArgs({"--bogus"}, Specs()),
              IsErrorWith(StatusCode::kInvalid, "unknown option '--bogus'"));
  EXPECT_THAT(ParseArgs({"--bogus=1"}, Specs()),
              IsErrorWith(StatusCode::kInvalid, "unknown option '--bogus'"));
  EXPECT_THAT(ParseArgs({"x", "--limit"}, Specs()),
              IsErrorWith(StatusCode::kInvalid, "option '--limit' needs a value"));
  EXPECT_THAT(ParseArgs({"--json=yes"}, Specs()),
              IsErrorWith(StatusCode::kInvalid, "option '--json' takes no value"));
  EXPECT_THAT(ParseArgs({"--limit", "1", "--limit=2"}, Specs()),
              IsErrorWith(StatusCode::kInvalid, "option '--limit' given more than once"));
}

TEST(ArgParser, GetInt) {
  ASSERT_OK_AND_ASSIGN(Args args, ParseArgs({"--limit", "12"}, Specs()));
  ASSERT_OK_AND_ASSIGN(auto limit, args.GetInt("limit", 1));
  EXPECT_EQ(limit, 12);
  ASSERT_OK_AND_ASSIGN(auto absent, args.GetInt("json", 0));
  EXPECT_EQ(absent, std::nullopt);
  for (const char* bad : {"", "x", "1.5", "12abc", "99999999999999999999"}) {
    ASSERT_OK_AND_ASSIGN(Args b, ParseArgs({"--limit", bad}, Specs()));
    EXPECT_THAT(b.GetInt("limit", 0),
                IsErrorWith(StatusCode::kInvalid, "--limit needs an integer"))
        << bad;
  }
  ASSERT_OK_AND_ASSIGN(Args low, ParseArgs({"--limit", "0"}, Specs()));
  EXPECT_THAT(low.GetInt("limit", 1),
              IsErrorWith(StatusCode::kInvalid, "--limit must be at least 1"));
}

TEST(ArgParser, SplitKeyValueNeverEchoesTheText) {
  ASSERT_OK_AND_ASSIGN(auto kv, SplitKeyValue("a=b=c", "--prop"));
  EXPECT_EQ(kv.first, "a");
  EXPECT_EQ(kv.second, "b=c");
  ASSERT_OK_AND_ASSIGN(auto empty_value, SplitKeyValue("a=", "--prop"));
  EXPECT_EQ(empty_value.second, "");
  for (const char* bad : {"s3cr3t", "=s3cr3t", ""}) {
    auto r = SplitKeyValue(bad, "--prop");
    EXPECT_THAT(r, IsErrorWith(StatusCode::kInvalid, "--prop needs KEY=VALUE")) << bad;
    if (!r.ok() && std::string(bad).size() > 0) {
      EXPECT_EQ(r.status().message().find("s3cr3t"), std::string::npos);
    }
  }
}

TEST(ArgParser, HelpLines) {
  EXPECT_EQ(FormatOptionHelp(Specs(), 20),
            "  --limit VALUE        rows to read\n"
            "  --storage-option VALUE KEY=VALUE (repeatable)\n"
            "  --json               JSON output\n");
}

}  // namespace
}  // namespace lance::cli
