// SPDX-License-Identifier: Apache-2.0
#include "lance/io/uri.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/testing/matchers.h"

namespace lance::io {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)

Uri MustParse(const std::string& text) {
  auto parsed = ParseUri(text);
  EXPECT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
  return parsed.ok() ? *parsed : Uri{};
}

std::string Cwd() {
  std::string cwd = std::filesystem::current_path().string();
  return cwd.substr(1);  // without the leading '/'
}

TEST(ParseUriTest, FileUris) {
  EXPECT_EQ(MustParse("file:///data/ds.lance"), (Uri{"file", "", "data/ds.lance"}));
  EXPECT_EQ(MustParse("file://localhost/data/ds.lance"),
            (Uri{"file", "", "data/ds.lance"}));
  EXPECT_EQ(MustParse("FILE:///data/"), (Uri{"file", "", "data"}));
  EXPECT_EQ(MustParse("file:/data/x"), (Uri{"file", "", "data/x"}));
  EXPECT_EQ(MustParse("file:///"), (Uri{"file", "", ""}));
  EXPECT_EQ(MustParse("file:///a//b/./c/../d"), (Uri{"file", "", "a/b/d"}));
  EXPECT_EQ(MustParse("file:///../.."), (Uri{"file", "", ""}));
}

TEST(ParseUriTest, PlainPaths) {
  EXPECT_EQ(MustParse("/data/ds.lance"), (Uri{"file", "", "data/ds.lance"}));
  EXPECT_EQ(MustParse("/"), (Uri{"file", "", ""}));
  EXPECT_EQ(MustParse("/with space/ü.lance/"), (Uri{"file", "", "with space/ü.lance"}));
  EXPECT_EQ(MustParse("rel/ds.lance"), (Uri{"file", "", Cwd() + "/rel/ds.lance"}));
  EXPECT_EQ(MustParse("./rel/../ds.lance"), (Uri{"file", "", Cwd() + "/ds.lance"}));
  EXPECT_EQ(MustParse("."), (Uri{"file", "", Cwd()}));
  // Something before "://" that contains a '/' is a path, not a scheme.
  EXPECT_EQ(MustParse("/odd/name://x"), (Uri{"file", "", "odd/name:/x"}));
}

TEST(ParseUriTest, OtherSchemes) {
  EXPECT_EQ(MustParse("memory://name/a/b"), (Uri{"memory", "name", "a/b"}));
  EXPECT_EQ(MustParse("memory://"), (Uri{"memory", "", ""}));
  EXPECT_EQ(MustParse("memory://name"), (Uri{"memory", "name", ""}));
  EXPECT_EQ(MustParse("s3://bucket/path/to/ds.lance/"),
            (Uri{"s3", "bucket", "path/to/ds.lance"}));
  EXPECT_EQ(MustParse("S3://Bucket/Key"), (Uri{"s3", "Bucket", "Key"}));
  EXPECT_EQ(MustParse("gs://b/k"), (Uri{"gs", "b", "k"}));
}

TEST(ParseUriTest, RejectsMalformedLocations) {
  EXPECT_THAT(ParseUri(""), IsError(StatusCode::kInvalid));
  EXPECT_THAT(ParseUri("1s3://bucket/key"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(ParseUri("s3://bucket/a/../b"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(ParseUri("s3://bucket//b"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(ParseUri("file://remote-host/data"), IsError(StatusCode::kInvalid));
}

TEST(ParseUriTest, CredentialsInTheAuthorityAreRejectedWithoutEchoingThem) {
  auto parsed = ParseUri("s3://AKIAXXX:hunter2@bucket/key");
  ASSERT_THAT(parsed, IsError(StatusCode::kInvalid));
  EXPECT_THAT(parsed.status().message(), Not(HasSubstr("hunter2")));
  EXPECT_THAT(parsed.status().message(), Not(HasSubstr("AKIAXXX")));
}

TEST(UriTest, PrintsAndFindsItsRoot) {
  EXPECT_EQ((Uri{"file", "", "data/x"}).ToString(), "file:///data/x");
  EXPECT_EQ((Uri{"file", "", ""}).ToString(), "file:///");
  EXPECT_EQ((Uri{"s3", "bucket", ""}).ToString(), "s3://bucket");
  EXPECT_EQ((Uri{"s3", "bucket", "a/b"}).ToString(), "s3://bucket/a/b");
  EXPECT_EQ((Uri{"s3", "bucket", "a/b"}).Root(), (Uri{"s3", "bucket", ""}));
  for (const std::string text : {"file:///data/x", "s3://bucket/a/b", "memory://m/k"}) {
    EXPECT_EQ(MustParse(text).ToString(), text);
  }
}

}  // namespace
}  // namespace lance::io
