// SPDX-License-Identifier: Apache-2.0
// The typed detail of S3 errors: every Status built from an HTTP error answer carries an
// io::HttpErrorDetail with the HTTP status, the S3 code and the request id.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "io/s3/errors.h"
#include "io/s3/responses.h"
#include "lance/io/http_error.h"
#include "tests/testing/matchers.h"

namespace lance::io::s3::internal {
namespace {

using ::testing::HasSubstr;

TEST(HttpErrorDetailTest, ToStringHasStatusCodeAndRequestIdOnly) {
  HttpErrorDetail d(404, "NoSuchKey", "tx000abc");
  EXPECT_EQ(d.http_status(), 404);
  EXPECT_EQ(d.service_code(), "NoSuchKey");
  EXPECT_EQ(d.request_id(), "tx000abc");
  EXPECT_EQ(d.type_id(), "lance::io::HttpErrorDetail");
  EXPECT_EQ(d.ToString(), "HTTP 404 NoSuchKey (request id tx000abc)");
  EXPECT_EQ(HttpErrorDetail(403, "", "").ToString(), "HTTP 403 (request id none)");

  Status st = WithHttpErrorDetail(Status::IOError("x"), 503, "SlowDown", "r1");
  ASSERT_NE(st.detail_as<HttpErrorDetail>(), nullptr);
  EXPECT_EQ(st.detail_as<HttpErrorDetail>()->service_code(), "SlowDown");
  EXPECT_EQ(st.detail_as<ErrnoDetail>(), nullptr);
  EXPECT_TRUE(WithHttpErrorDetail(Status::OK(), 404, "", "").ok());
}

struct Case {
  int http_status;
  const char* code;
  ErrorContext context;
  StatusCode expected;
};

TEST(HttpErrorDetailTest, EveryMappedErrorCarriesTheDetail) {
  const Case cases[] = {
      {404, "NoSuchKey", ErrorContext::kDefault, StatusCode::kNotFound},
      {404, "", ErrorContext::kDefault, StatusCode::kNotFound},
      {403, "AccessDenied", ErrorContext::kDefault, StatusCode::kForbidden},
      {403, "SignatureDoesNotMatch", ErrorContext::kDefault, StatusCode::kUnauthorized},
      {400, "ExpiredToken", ErrorContext::kDefault, StatusCode::kTokenExpired},
      {412, "PreconditionFailed", ErrorContext::kConditionalCreate,
       StatusCode::kAlreadyExists},
      {412, "PreconditionFailed", ErrorContext::kPinnedRead, StatusCode::kIOError},
      {503, "SlowDown", ErrorContext::kDefault, StatusCode::kUnavailable},
      {409, "BucketNotEmpty", ErrorContext::kBucket, StatusCode::kConflict},
  };
  for (const Case& c : cases) {
    S3Error e{c.http_status, c.code, "server text", "req-42"};
    Status st = MakeS3HttpError("GetObject", "s3://b/k", c.context, e, 1, 0.0);
    EXPECT_EQ(st.code(), c.expected) << c.http_status << " " << c.code;
    EXPECT_EQ(st.retryable(), c.expected == StatusCode::kUnavailable);
    const auto* d = st.detail_as<HttpErrorDetail>();
    ASSERT_NE(d, nullptr) << st.ToString();
    EXPECT_EQ(d->http_status(), c.http_status);
    EXPECT_EQ(d->service_code(), c.code);
    EXPECT_EQ(d->request_id(), "req-42");
    EXPECT_THAT(st.message(), HasSubstr("S3 GetObject of s3://b/k: HTTP "));
  }
}

TEST(HttpErrorDetailTest, DetailFromAnErrorBody) {
  auto e = ParseErrorBody(
      "<?xml version=\"1.0\"?><Error><Code>NoSuchBucket</Code><Message>gone</Message>"
      "<RequestId>tx9</RequestId></Error>",
      404);
  ASSERT_TRUE(e.has_value());
  Status st =
      MakeS3HttpError("HeadObject", "s3://nb/k", ErrorContext::kDefault, *e, 3, 1.5);
  EXPECT_TRUE(st.IsNotFound());
  EXPECT_THAT(st.message(), HasSubstr("after 3 attempts"));
  ASSERT_NE(st.detail_as<HttpErrorDetail>(), nullptr);
  EXPECT_EQ(st.detail_as<HttpErrorDetail>()->ToString(),
            "HTTP 404 NoSuchBucket (request id tx9)");
}

}  // namespace
}  // namespace lance::io::s3::internal
