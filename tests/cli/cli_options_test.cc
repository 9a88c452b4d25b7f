// SPDX-License-Identifier: Apache-2.0
#include "lib/cli_options.h"

#include <gtest/gtest.h>

#include "lib/table_printer.h"
#include "tests/testing/matchers.h"

namespace lance::cli {
namespace {

using ::lance::testing::IsErrorWith;

TEST(Secrets, KeysThatAreSecrets) {
  for (const char* k : {"aws_secret_access_key", "AWS_SESSION_TOKEN", "token", "password",
                        "google_service_account_key", "azure_storage_account_key",
                        "account_key", "key", "client_secret", "sas_token", "credentials",
                        "azure_storage_sas_key", "session_token"}) {
    EXPECT_TRUE(IsSecretKey(k)) << k;
  }
  for (const char* k :
       {"aws_access_key_id", "access_key_id", "region", "aws_region", "endpoint",
        "allow_http", "client_id", "account_name", "aws_endpoint", "timeout"}) {
    EXPECT_FALSE(IsSecretKey(k)) << k;
  }
  EXPECT_EQ(RedactValue("aws_secret_access_key", "abc"), "<redacted>");
  EXPECT_EQ(RedactValue("region", "us-east-1"), "us-east-1");
}

TEST(Secrets, RedactUri) {
  EXPECT_EQ(RedactUri("/tmp/data.lance"), "/tmp/data.lance");
  EXPECT_EQ(RedactUri("s3://bucket/path"), "s3://bucket/path");
  EXPECT_EQ(RedactUri("http://user:hunter2@host:80/x"),
            "http://user:<redacted>@host:80/x");
  EXPECT_EQ(RedactUri("az://c/p?sig=1&token=abc&region=x#frag"),
            "az://c/p?sig=1&token=<redacted>&region=x#frag");
  EXPECT_EQ(RedactUri("s3://b/p?aws_secret_access_key=s3cr3t"),
            "s3://b/p?aws_secret_access_key=<redacted>");
}

TEST(StorageOptions, Parse) {
  ASSERT_OK_AND_ASSIGN(auto opts,
                       ParseStorageOptions({"region=us-east-1", "k=a=b", "e="}));
  EXPECT_EQ(opts.at("region"), "us-east-1");
  EXPECT_EQ(opts.at("k"), "a=b");
  EXPECT_EQ(opts.at("e"), "");
  auto bad = ParseStorageOptions({"region=x", "hunter2"});
  EXPECT_THAT(bad, IsErrorWith(StatusCode::kInvalid, "#2 must look like KEY=VALUE"));
  EXPECT_EQ(bad.status().message().find("hunter2"), std::string::npos);
  EXPECT_THAT(ParseStorageOptions({"=x"}),
              IsErrorWith(StatusCode::kInvalid, "KEY=VALUE"));
  auto dup = ParseStorageOptions({"token=a", "token=b"});
  EXPECT_THAT(dup, IsErrorWith(StatusCode::kInvalid, "\"token\" given more than once"));
  EXPECT_EQ(dup.status().message().find("=a"), std::string::npos);
}

TEST(Numbers, ParseCount) {
  EXPECT_EQ(*ParseCount("0", "limit"), 0);
  EXPECT_EQ(*ParseCount("9223372036854775807", "limit"), INT64_MAX);
  EXPECT_THAT(ParseCount("-1", "limit"),
              IsErrorWith(StatusCode::kInvalid, "--limit expects"));
  EXPECT_THAT(ParseCount("1x", "offset"), IsErrorWith(StatusCode::kInvalid, "--offset"));
  EXPECT_THAT(ParseCount("", "version"), IsErrorWith(StatusCode::kInvalid, "--version"));
}

TEST(Columns, ParseList) {
  ASSERT_OK_AND_ASSIGN(auto cols, ParseColumnList({"a, b", "c"}));
  EXPECT_EQ(cols, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_THAT(ParseColumnList({"a,,b"}),
              IsErrorWith(StatusCode::kInvalid, "empty column name"));
}

TEST(Table, AlignsAndTruncates) {
  TablePrinter t({"id", "name"}, {true, false}, 8);
  t.AddRow({"1", "alice"});
  t.AddRow({"1000", "\xC3\xA9t\xC3\xA9"});
  t.AddRow({"7", "a very long name"});
  EXPECT_EQ(t.Render(),
            "  id  name\n"
            "----  --------\n"
            "   1  alice\n"
            "1000  \xC3\xA9t\xC3\xA9\n"
            "   7  a ver...\n");
  EXPECT_EQ(DisplayWidth("\xC3\xA9t\xC3\xA9"), 3u);
  EXPECT_EQ(TruncateDisplay("abcdef", 5), "ab...");
}

}  // namespace
}  // namespace lance::cli
