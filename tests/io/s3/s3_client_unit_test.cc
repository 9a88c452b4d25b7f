// SPDX-License-Identifier: Apache-2.0
// Offline tests of the S3 client's pure parts: endpoint parsing and URL building
// (path style, virtual-hosted, AWS defaults, base paths), retry classification, error
// mapping and messages, backoff bounds, decoding and small parsers.
#include <arpa/inet.h>
#include <curl/curl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "io/s3/endpoint.h"
#include "io/s3/errors.h"
#include "io/s3/responses.h"
#include "io/s3/s3_client.h"
#include "io/s3/sigv4.h"
#include "lance/io/credentials.h"
#include "lance/io/http_error.h"
#include "tests/testing/loopback_http_server.h"
#include "tests/testing/matchers.h"

namespace lance::io::s3::internal {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using std::chrono::milliseconds;

// `t` addresses `url`, its path before encoding is `raw_path`, its Host `host`.
void ExpectTarget(const RequestTarget& t, const std::string& url,
                  const std::string& raw_path, const std::string& host) {
  EXPECT_EQ(t.url, url);
  EXPECT_EQ(t.raw_path, raw_path);
  EXPECT_EQ(t.host_header, host);
}

TEST(S3ClientUnitTest, ParseEndpoint) {
  ASSERT_OK_AND_ASSIGN(auto e, ParseEndpoint("http://127.0.0.1:7480"));
  EXPECT_EQ(e.scheme, "http");
  EXPECT_EQ(e.authority, "127.0.0.1:7480");
  EXPECT_EQ(e.host_header, "127.0.0.1:7480");
  EXPECT_EQ(e.base_path, "");
  ASSERT_OK_AND_ASSIGN(e, ParseEndpoint("HTTPS://minio.example.com:443/base/path/"));
  EXPECT_EQ(e.scheme, "https");
  EXPECT_EQ(e.host_header, "minio.example.com");  // default port not in Host
  EXPECT_EQ(e.authority, "minio.example.com:443");
  EXPECT_EQ(e.base_path, "/base/path");
  ASSERT_OK_AND_ASSIGN(e, ParseEndpoint("http://host:80"));
  EXPECT_EQ(e.host_header, "host");
  ASSERT_OK_AND_ASSIGN(e, ParseEndpoint("https://host:80"));
  EXPECT_EQ(e.host_header, "host:80");
  ASSERT_OK_AND_ASSIGN(e, ParseEndpoint("http://[::1]:9000"));
  EXPECT_EQ(e.host_header, "[::1]:9000");
  ASSERT_OK_AND_ASSIGN(e, ParseEndpoint("http://[::1]"));
  EXPECT_EQ(e.host_header, "[::1]");

  for (const char* bad :
       {"", "127.0.0.1:7480", "ftp://host", "http://", "http:///path",
        "http://host:", "http://host:0", "http://host:99999", "http://host:x",
        "http://host/p?q=1", "http://[::1", "http://host name"}) {
    EXPECT_THAT(ParseEndpoint(bad), IsError(StatusCode::kInvalid)) << bad;
  }
  // User info is refused without being echoed.
  auto r = ParseEndpoint("http://user:hunter2@host");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().find("hunter2"), std::string::npos);
}

TEST(S3ClientUnitTest, PathStyleUrls) {
  ASSERT_OK_AND_ASSIGN(auto e, ParseEndpoint("http://127.0.0.1:7480"));
  auto t = BuildRequestTarget(e, false, "bucket", "dir/a b+c%&=.txt", false, {});
  ExpectTarget(t, "http://127.0.0.1:7480/bucket/dir/a%20b%2Bc%25%26%3D.txt",
               "/bucket/dir/a b+c%&=.txt", "127.0.0.1:7480");
  // Bucket level with a sorted, fully encoded query; flags keep their '='.
  t = BuildRequestTarget(e, false, "bucket", "", true,
                         {{"prefix", "a/b c"}, {"list-type", "2"}, {"delete", ""}});
  EXPECT_EQ(t.url, "http://127.0.0.1:7480/bucket?delete=&list-type=2&prefix=a%2Fb%20c");
  EXPECT_EQ(t.raw_path, "/bucket");
  // Keys are never normalised.
  t = BuildRequestTarget(e, false, "b", "x/../y//z/./", false, {});
  EXPECT_EQ(t.url, "http://127.0.0.1:7480/b/x/../y//z/./");
  // A base path is kept in front.
  ASSERT_OK_AND_ASSIGN(e, ParseEndpoint("https://gw.example.com/s3/"));
  t = BuildRequestTarget(e, false, "b", "k", false, {{"uploads", ""}});
  ExpectTarget(t, "https://gw.example.com/s3/b/k?uploads=", "/s3/b/k", "gw.example.com");
}

TEST(S3ClientUnitTest, VirtualHostedUrls) {
  // A custom endpoint names the bucket already.
  ASSERT_OK_AND_ASSIGN(auto e, ParseEndpoint("http://lance-test.s3.localhost:7480"));
  auto t = BuildRequestTarget(e, true, "lance-test", "k 1", false, {});
  ExpectTarget(t, "http://lance-test.s3.localhost:7480/k%201", "/k 1",
               "lance-test.s3.localhost:7480");
  t = BuildRequestTarget(e, true, "lance-test", "", true, {{"list-type", "2"}});
  EXPECT_EQ(t.url, "http://lance-test.s3.localhost:7480/?list-type=2");
  EXPECT_EQ(t.raw_path, "/");

  // AWS defaults.
  S3Options o;
  o.region = "eu-west-1";
  ASSERT_OK_AND_ASSIGN(e, ResolveEndpoint(o, "my-bucket"));
  t = BuildRequestTarget(e, false, "my-bucket", "k", false, {});
  EXPECT_EQ(t.url, "https://s3.eu-west-1.amazonaws.com/my-bucket/k");
  EXPECT_EQ(t.host_header, "s3.eu-west-1.amazonaws.com");
  o.virtual_hosted_style = true;
  ASSERT_OK_AND_ASSIGN(e, ResolveEndpoint(o, "my-bucket"));
  t = BuildRequestTarget(e, true, "my-bucket", "k", false, {});
  EXPECT_EQ(t.url, "https://my-bucket.s3.eu-west-1.amazonaws.com/k");
  EXPECT_EQ(t.host_header, "my-bucket.s3.eu-west-1.amazonaws.com");
  o.endpoint = "http://localhost:9000";
  ASSERT_OK_AND_ASSIGN(e, ResolveEndpoint(o, "my-bucket"));
  EXPECT_EQ(e.host_header, "localhost:9000");
}

TEST(S3ClientUnitTest, RetryClassification) {
  struct Case {
    int status;
    const char* code;
    RetryClass expected;
  } cases[] = {
      {500, "InternalError", RetryClass::kRetry},
      {500, "", RetryClass::kRetry},
      {502, "", RetryClass::kRetry},
      {503, "SlowDown", RetryClass::kRetry},
      {503, "ServiceUnavailable", RetryClass::kRetry},
      {504, "", RetryClass::kRetry},
      {429, "", RetryClass::kRetry},
      {400, "RequestTimeout", RetryClass::kRetry},
      {409, "ConditionalRequestConflict", RetryClass::kRetry},
      {200, "InternalError", RetryClass::kRetry},  // 200-with-<Error>
      {400, "ExpiredToken", RetryClass::kRefreshCredentials},
      {403, "ExpiredToken", RetryClass::kRefreshCredentials},
      {400, "InvalidToken", RetryClass::kRefreshCredentials},
      {400, "TokenRefreshRequired", RetryClass::kRefreshCredentials},
      {403, "InvalidAccessKeyId", RetryClass::kRefreshCredentials},
      {403, "AccessDenied", RetryClass::kMaybeRefreshCredentials},
      {403, "", RetryClass::kMaybeRefreshCredentials},
      {403, "SignatureDoesNotMatch", RetryClass::kFinal},
      {403, "RequestTimeTooSkewed", RetryClass::kFinal},
      {404, "NoSuchKey", RetryClass::kFinal},
      {412, "PreconditionFailed", RetryClass::kFinal},
      {409, "BucketNotEmpty", RetryClass::kFinal},
      {400, "InvalidArgument", RetryClass::kFinal},
      {400, "EntityTooSmall", RetryClass::kFinal},
      {416, "InvalidRange", RetryClass::kFinal},
      {501, "NotImplemented", RetryClass::kFinal},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ClassifyHttpError(c.status, c.code), c.expected)
        << c.status << " " << c.code;
  }
}

TEST(S3ClientUnitTest, CurlCodeClassification) {
  for (CURLcode c : {CURLE_COULDNT_CONNECT, CURLE_SEND_ERROR, CURLE_RECV_ERROR,
                     CURLE_OPERATION_TIMEDOUT, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE}) {
    EXPECT_TRUE(IsRetryableCurlCode(c)) << c;
  }
  for (CURLcode c :
       {CURLE_COULDNT_RESOLVE_HOST, CURLE_URL_MALFORMAT, CURLE_PEER_FAILED_VERIFICATION,
        CURLE_WRITE_ERROR, CURLE_ABORTED_BY_CALLBACK, CURLE_OUT_OF_MEMORY}) {
    EXPECT_FALSE(IsRetryableCurlCode(c)) << c;
  }
  EXPECT_TRUE(IsResolveFailure(CURLE_COULDNT_RESOLVE_HOST));
  EXPECT_FALSE(IsResolveFailure(CURLE_COULDNT_CONNECT));
}

TEST(S3ClientUnitTest, ErrorMapping) {
  using C = ErrorContext;
  struct Case {
    int status;
    const char* code;
    C context;
    StatusCode expected;
  } cases[] = {
      {404, "NoSuchKey", C::kDefault, StatusCode::kNotFound},
      {404, "NoSuchBucket", C::kBucket, StatusCode::kNotFound},
      {404, "NoSuchUpload", C::kDefault, StatusCode::kNotFound},
      {404, "", C::kDefault, StatusCode::kNotFound},  // HEAD: no body
      {412, "PreconditionFailed", C::kConditionalCreate, StatusCode::kAlreadyExists},
      {412, "PreconditionFailed", C::kPinnedRead, StatusCode::kIOError},
      {412, "PreconditionFailed", C::kDefault, StatusCode::kIOError},
      {401, "", C::kDefault, StatusCode::kUnauthorized},
      {403, "InvalidAccessKeyId", C::kDefault, StatusCode::kUnauthorized},
      {403, "SignatureDoesNotMatch", C::kDefault, StatusCode::kUnauthorized},
      {400, "InvalidToken", C::kDefault, StatusCode::kUnauthorized},
      {400, "ExpiredToken", C::kDefault, StatusCode::kTokenExpired},
      {403, "ExpiredToken", C::kDefault, StatusCode::kTokenExpired},
      {403, "AccessDenied", C::kDefault, StatusCode::kForbidden},
      {403, "", C::kDefault, StatusCode::kForbidden},
      {403, "RequestTimeTooSkewed", C::kDefault, StatusCode::kForbidden},
      {409, "BucketAlreadyOwnedByYou", C::kBucket, StatusCode::kAlreadyExists},
      {409, "BucketAlreadyExists", C::kBucket, StatusCode::kAlreadyExists},
      {409, "BucketNotEmpty", C::kBucket, StatusCode::kConflict},
      {503, "SlowDown", C::kDefault, StatusCode::kUnavailable},
      {500, "InternalError", C::kDefault, StatusCode::kUnavailable},
      {429, "", C::kDefault, StatusCode::kUnavailable},
      {501, "NotImplemented", C::kDefault, StatusCode::kNotImplemented},
      {400, "InvalidArgument", C::kDefault, StatusCode::kInvalid},
      {400, "EntityTooSmall", C::kDefault, StatusCode::kInvalid},
      {400, "InvalidPart", C::kDefault, StatusCode::kInvalid},
      {416, "InvalidRange", C::kDefault, StatusCode::kInvalid},
      {405, "MethodNotAllowed", C::kDefault, StatusCode::kIOError},
  };
  for (const auto& c : cases) {
    S3Error e{c.status, c.code, "", ""};
    EXPECT_EQ(MapS3ErrorCode(e, c.context), c.expected) << c.status << " " << c.code;
  }
}

TEST(S3ClientUnitTest, ErrorMessageFormat) {
  S3Error e{404, "NoSuchKey", "The specified key does not exist.", "tx0001"};
  EXPECT_EQ(FormatS3ErrorMessage("GetObject", "s3://b/k", e, 1, 0.01),
            "S3 GetObject of s3://b/k: HTTP 404 NoSuchKey (request id tx0001): "
            "The specified key does not exist.");
  e = S3Error{503, "SlowDown", "", "tx2"};
  EXPECT_EQ(
      FormatS3ErrorMessage("PutObject", "s3://b/k", e, 4, 1.25),
      "S3 PutObject of s3://b/k: HTTP 503 SlowDown (request id tx2), after 4 attempts in "
      "1.2 s");
  e = S3Error{403, "", "", ""};
  EXPECT_EQ(FormatS3ErrorMessage("HeadObject", "s3://b/k", e, 1, 0),
            "S3 HeadObject of s3://b/k: HTTP 403 (request id none)");
}

TEST(S3ClientUnitTest, BackoffBounds) {
  EXPECT_EQ(BackoffCeiling(0, milliseconds(100), milliseconds(15000)), milliseconds(100));
  EXPECT_EQ(BackoffCeiling(1, milliseconds(100), milliseconds(15000)), milliseconds(200));
  EXPECT_EQ(BackoffCeiling(5, milliseconds(100), milliseconds(15000)),
            milliseconds(3200));
  EXPECT_EQ(BackoffCeiling(8, milliseconds(100), milliseconds(15000)),
            milliseconds(15000));
  EXPECT_EQ(BackoffCeiling(1000, milliseconds(100), milliseconds(15000)),
            milliseconds(15000));
  EXPECT_EQ(BackoffCeiling(3, milliseconds(0), milliseconds(15000)), milliseconds(0));
  EXPECT_EQ(BackoffCeiling(3, milliseconds(500), milliseconds(100)), milliseconds(100));

  // Full jitter: uniform in [0, ceiling], all of the range is used.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int retry = 0; retry < 12; ++retry) {
    const auto ceiling = BackoffCeiling(retry, milliseconds(100), milliseconds(15000));
    milliseconds lo(1 << 30), hi(0);
    for (int i = 0; i < 2000; ++i) {
      const auto d =
          BackoffDelay(retry, milliseconds(100), milliseconds(15000), unit(rng));
      ASSERT_GE(d.count(), 0);
      ASSERT_LE(d, ceiling);
      lo = std::min(lo, d);
      hi = std::max(hi, d);
    }
    EXPECT_LT(lo.count(), ceiling.count() / 10 + 1) << retry;
    EXPECT_GT(hi.count(), ceiling.count() * 9 / 10) << retry;
  }
  EXPECT_EQ(BackoffDelay(2, milliseconds(100), milliseconds(15000), 0.0),
            milliseconds(0));
  EXPECT_EQ(BackoffDelay(2, milliseconds(100), milliseconds(15000), 1.0),
            milliseconds(400));
  EXPECT_EQ(BackoffDelay(2, milliseconds(100), milliseconds(15000), 7.0),
            milliseconds(400));
}

TEST(S3ClientUnitTest, UrlDecode) {
  EXPECT_EQ(*UrlDecode("a+b%2Bc%20d%2fe%C3%A9", true), "a b+c d/e\xC3\xA9");
  EXPECT_EQ(*UrlDecode("a+b", false), "a+b");
  EXPECT_EQ(*UrlDecode("", true), "");
  for (const char* bad : {"%", "%2", "a%G0", "%0g", "abc%"}) {
    EXPECT_THAT(UrlDecode(bad, true), IsError(StatusCode::kInvalid)) << bad;
  }
}

TEST(S3ClientUnitTest, Dates) {
  EXPECT_EQ(ParseIso8601Ms("2015-10-21T07:28:00.000Z"), 1445412480000);
  EXPECT_EQ(ParseIso8601Ms("2015-10-21T07:28:00Z"), 1445412480000);
  EXPECT_EQ(ParseIso8601Ms("2015-10-21T07:28:00.5Z"), 1445412480500);
  EXPECT_EQ(ParseIso8601Ms("2015-10-21T07:28:00.123456Z"), 1445412480123);
  EXPECT_EQ(ParseIso8601Ms("1970-01-01T00:00:00.000Z"), 0);
  EXPECT_FALSE(ParseIso8601Ms("2015-10-21 07:28:00Z").has_value());
  EXPECT_FALSE(ParseIso8601Ms("2015-13-21T07:28:00Z").has_value());
  EXPECT_FALSE(ParseIso8601Ms("2015-10-21T07:28:00.Z").has_value());
  EXPECT_FALSE(ParseIso8601Ms("2015-10-21T07:28:00").has_value());
  EXPECT_EQ(ParseHttpDateMs("Wed, 21 Oct 2015 07:28:00 GMT"), 1445412480000);
  EXPECT_EQ(ParseHttpDateMs("Mon, 30 Nov 2026 10:16:22 GMT"), 1796033782000);
  EXPECT_FALSE(ParseHttpDateMs("Wed, 21 Foo 2015 07:28:00 GMT").has_value());
  EXPECT_FALSE(ParseHttpDateMs("Wed, 21 Oct 2015 07:28:00").has_value());
  EXPECT_FALSE(ParseHttpDateMs("").has_value());
}

TEST(S3ClientUnitTest, ContentRangeAndRangeHeader) {
  auto r = ParseContentRange("bytes 10-19/100");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->first, 10);
  EXPECT_EQ(r->last, 19);
  EXPECT_EQ(r->total, 100);
  r = ParseContentRange("bytes 0-0/*");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->total, -1);
  for (const char* bad : {"", "bytes", "bytes 10-9/100", "bytes 0-99/99", "items 0-1/2",
                          "bytes -1-2/3", "bytes 1-2", "bytes */100"}) {
    EXPECT_FALSE(ParseContentRange(bad).has_value()) << bad;
  }
  EXPECT_EQ(RangeHeader(0, -1), "");
  EXPECT_EQ(RangeHeader(5, -1), "bytes=5-");
  EXPECT_EQ(RangeHeader(10, 10), "bytes=10-19");
  EXPECT_EQ(RangeHeader(0, 1), "bytes=0-0");
}

TEST(S3ClientUnitTest, ContentMd5) {
  EXPECT_EQ(Md5Hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(ContentMd5(""), "1B2M2Y8AsgTpgAmY7PhCfg==");
  EXPECT_EQ(ContentMd5("The quick brown fox jumps over the lazy dog"),
            "nhB9nTcrtoJr2B01QqQZ1g==");
}

TEST(S3ClientUnitTest, MakeValidatesArguments) {
  S3Options o;
  o.endpoint = "http://127.0.0.1:1";
  auto src = std::make_shared<StaticCredentialsSource>(
      AwsCredentials{"AKIDEXAMPLE", "s3cr3t!", ""});
  EXPECT_THAT(S3Client::Make("", o, src), IsError(StatusCode::kInvalid));
  EXPECT_THAT(S3Client::Make("a/b", o, src), IsError(StatusCode::kInvalid));
  EXPECT_THAT(S3Client::Make("b", o, nullptr), IsError(StatusCode::kInvalid));
  o.endpoint = "gopher://x";
  EXPECT_THAT(S3Client::Make("b", o, src), IsErrorWith(StatusCode::kInvalid, "gopher"));
  o.endpoint = "http://127.0.0.1:1";
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("b", o, src));
  EXPECT_EQ(c->bucket(), "b");
  EXPECT_EQ(c->ObjectUri("k/x"), "s3://b/k/x");
  EXPECT_THAT(c->HeadObject(""), IsError(StatusCode::kInvalid));
  EXPECT_THAT(c->GetObject("k", -1, 1), IsError(StatusCode::kInvalid));
  EXPECT_THAT(c->UploadPart("k", "u", 10001, "x"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(c->CompleteMultipartUpload("k", "u", {}), IsError(StatusCode::kInvalid));
}

// A connection failure message names the operation and object and never a secret.
TEST(S3ClientUnitTest, TransportErrorsCarryNoSecret) {
  S3Options o;
  o.endpoint = "http://127.0.0.1:1";
  o.max_retries = 1;
  o.initial_backoff = milliseconds(1);
  const std::string secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  const std::string token = "FQoGZXIvYXdzEXAMPLETOKEN";
  auto src = std::make_shared<StaticCredentialsSource>(
      AwsCredentials{"AKIDEXAMPLE", secret, token});
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("b", o, src));
  for (const Status& st : {c->HeadObject("k").status(), c->PutObject("k", "x").status(),
                           c->ListObjectsV2({}).status(), c->DeleteObjects({"a"})}) {
    EXPECT_TRUE(st.IsUnavailable()) << st.ToString();
    EXPECT_THAT(st.message(), ::testing::HasSubstr("s3://b/"));
    EXPECT_EQ(st.message().find(secret), std::string::npos);
    EXPECT_EQ(st.message().find(token), std::string::npos);
    EXPECT_EQ(st.message().find("Signature="), std::string::npos);
    EXPECT_EQ(st.message().find("AKIDEXAMPLE"), std::string::npos);
  }
}

// A source that fails hands its error to the request.
class FailingSource : public CredentialsSource {
 public:
  Result<std::shared_ptr<const io::Credentials>> Current() override {
    return Status::TokenExpired("credentials expired and the refresh failed");
  }
  std::string id() const override { return "failing"; }
  std::string ToString() const override { return "FailingSource"; }
};

TEST(S3ClientUnitTest, CredentialsErrorFailsTheRequest) {
  S3Options o;
  o.endpoint = "http://127.0.0.1:1";
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("b", o, std::make_shared<FailingSource>()));
  auto st = c->GetObject("k").status();
  EXPECT_THAT(st, IsErrorWith(StatusCode::kTokenExpired, "refresh failed"));
  EXPECT_THAT(st, IsErrorWith(StatusCode::kTokenExpired, "s3://b/k"));
  EXPECT_EQ(c->stats().requests.load(), 0);
}

// ---------------------------------------------------------------------------------------
// A scripted HTTP/1.1 server on loopback, for the transport behaviour RGW cannot be made
// to show on demand: 5xx and throttling, 200-with-<Error>, a 200 answer to a ranged GET,
// a server sending more than asked, stalls, expired tokens.

using ::lance::testing::Reply;
using ::lance::testing::SeenRequest;
using FakeS3 = ::lance::testing::LoopbackHttpServer;

std::string HttpReply(int status, const std::string& body,
                      const std::vector<std::string>& extra_headers = {}) {
  std::string r = "HTTP/1.1 " + std::to_string(status) + " X\r\n";
  for (const auto& h : extra_headers) r += h + "\r\n";
  r += "x-amz-request-id: fake-" + std::to_string(status) + "\r\n";
  r += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  return r + body;
}

std::string ErrorXml(const std::string& code) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code +
         "</Code><Message>m</Message><RequestId>rid</RequestId></Error>";
}

S3Options FakeOptions(const FakeS3& server) {
  S3Options o;
  o.endpoint = server.endpoint();
  o.region = "us-east-1";
  o.allow_http = true;
  o.max_retries = 3;
  o.initial_backoff = milliseconds(1);
  o.max_backoff = milliseconds(5);
  return o;
}

std::shared_ptr<CredentialsSource> FakeCreds() {
  return std::make_shared<StaticCredentialsSource>(
      AwsCredentials{"AKIDFAKE", "fakesecret", ""});
}

TEST(S3ClientFakeServerTest, RequestShapeOnTheWire) {
  FakeS3 server([](const SeenRequest& r, int) {
    if (r.method == "PUT") return Reply{HttpReply(200, "", {"ETag: \"e1\""})};
    return Reply{HttpReply(
        200, "hello", {"ETag: \"e1\"", "Last-Modified: Wed, 21 Oct 2015 07:28:00 GMT"})};
  });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  ASSERT_OK_AND_ASSIGN(std::string etag, c->PutObject("a b/c+d", "", true));
  EXPECT_EQ(etag, "\"e1\"");
  ASSERT_OK_AND_ASSIGN(auto info, c->HeadObject("k"));
  EXPECT_EQ(info.size, 5);
  EXPECT_EQ(info.last_modified_ms, 1445412480000);
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 2u);
  const SeenRequest& put = seen[0];
  EXPECT_EQ(put.method, "PUT");
  EXPECT_EQ(put.target, "/bkt/a%20b/c%2Bd");
  EXPECT_EQ(put.Header("content-length"), "0");
  EXPECT_EQ(put.Header("expect"), "<absent>");
  EXPECT_EQ(put.Header("if-none-match"), "*");
  EXPECT_EQ(put.Header("host"), server.endpoint().substr(7));
  EXPECT_EQ(put.Header("x-amz-content-sha256"), std::string(kEmptyPayloadSha256));
  const std::string auth = put.Header("authorization");
  EXPECT_NE(auth.find("Credential=AKIDFAKE/"), std::string::npos) << auth;
  EXPECT_NE(auth.find("SignedHeaders=host;if-none-match;x-amz-content-sha256;x-amz-date"),
            std::string::npos)
      << auth;
  EXPECT_EQ(seen[1].method, "HEAD");
  // Both requests went over one keep-alive connection.
  EXPECT_EQ(server.connections(), 1);
}

TEST(S3ClientFakeServerTest, RetriesTransientErrorsThenSucceeds) {
  FakeS3 server([](const SeenRequest& r, int i) {
    // Dropped on a fresh connection (on a reused one curl itself would resend once).
    if (i == 0) return Reply{"", 0, /*close=*/true};
    if (i == 1) return Reply{HttpReply(503, ErrorXml("SlowDown"))};
    if (i == 2) return Reply{HttpReply(500, "")};
    return Reply{HttpReply(200, "payload")};
  });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  ASSERT_OK_AND_ASSIGN(auto buf, c->GetObject("k"));
  EXPECT_EQ(buf->ToStringView(), "payload");
  EXPECT_EQ(c->stats().requests.load(), 4);
  EXPECT_EQ(c->stats().retries.load(), 3);
  // Every attempt is signed afresh (same body hash, new headers each time).
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 4u);
  for (const auto& r : seen) EXPECT_NE(r.Header("authorization"), "<absent>");
}

TEST(S3ClientFakeServerTest, ExhaustedRetriesAreUnavailable) {
  FakeS3 server([](const SeenRequest&, int) {
    return Reply{HttpReply(503, ErrorXml("SlowDown"))};
  });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  auto st = c->PutObject("k", "body").status();
  EXPECT_THAT(
      st,
      IsErrorWith(StatusCode::kUnavailable,
                  "S3 PutObject of s3://bkt/k: HTTP 503 SlowDown (request id rid): m, "
                  "after 4 attempts in "));
  EXPECT_TRUE(st.retryable());
  EXPECT_EQ(c->stats().requests.load(), 4);
  EXPECT_EQ(c->stats().bytes_sent.load(), 0);  // nothing succeeded
}

TEST(S3ClientFakeServerTest, FinalErrorsAreNotRetried) {
  FakeS3 server([](const SeenRequest&, int) {
    return Reply{HttpReply(400, ErrorXml("InvalidArgument"))};
  });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  EXPECT_THAT(c->GetObject("k"),
              IsErrorWith(StatusCode::kInvalid, "HTTP 400 InvalidArgument"));
  EXPECT_EQ(c->stats().requests.load(), 1);
}

TEST(S3ClientFakeServerTest, FullAnswerToARangedGetIsSliced) {
  const std::string object = "0123456789abcdefghij";
  FakeS3 server([&](const SeenRequest&, int) { return Reply{HttpReply(200, object)}; });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  ASSERT_OK_AND_ASSIGN(auto mid, c->GetObject("k", 5, 4));
  EXPECT_EQ(mid->ToStringView(), "5678");
  ASSERT_OK_AND_ASSIGN(auto tail, c->GetObject("k", 15, -1));
  EXPECT_EQ(tail->ToStringView(), "fghij");
  char out[4];
  ASSERT_OK_AND_ASSIGN(int64_t n,
                       c->GetObjectInto("k", 18, 4, reinterpret_cast<uint8_t*>(out)));
  EXPECT_EQ(n, 2);
  EXPECT_EQ(std::string(out, 2), "ij");
  EXPECT_EQ(server.requests()[0].Header("range"), "bytes=5-8");
}

TEST(S3ClientFakeServerTest, ServerSendingMoreThanAskedIsAnError) {
  FakeS3 server([](const SeenRequest&, int) {
    return Reply{HttpReply(206, "0123456789", {"Content-Range: bytes 0-3/100"})};
  });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  std::vector<uint8_t> out(4 + 16, 0xEE);
  EXPECT_THAT(c->GetObjectInto("k", 0, 4, out.data()),
              IsErrorWith(StatusCode::kIOError, "more bytes than requested"));
  for (size_t i = 4; i < out.size(); ++i) EXPECT_EQ(out[i], 0xEE) << i;
}

TEST(S3ClientFakeServerTest, WrongContentRangeIsAnError) {
  FakeS3 server([](const SeenRequest&, int) {
    return Reply{HttpReply(206, "abcd", {"Content-Range: bytes 8-11/100"})};
  });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  EXPECT_THAT(c->GetObject("k", 4, 4),
              IsErrorWith(StatusCode::kIOError, "Content-Range"));
}

TEST(S3ClientFakeServerTest, CompleteWithErrorIn200IsRetried) {
  FakeS3 server([](const SeenRequest&, int i) {
    if (i == 0) return Reply{HttpReply(200, "\n  " + ErrorXml("InternalError"))};
    return Reply{HttpReply(200,
                           "<CompleteMultipartUploadResult><ETag></ETag>"
                           "</CompleteMultipartUploadResult>")};
  });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  ASSERT_OK(c->CompleteMultipartUpload("k", "up id", {"\"e1\"", "\"e2\""}));
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].target, "/bkt/k?uploadId=up%20id");
  EXPECT_NE(seen[0].body.find("<PartNumber>2</PartNumber><ETag>&quot;e2&quot;</ETag>"),
            std::string::npos);
  EXPECT_EQ(seen[0].Header("x-amz-content-sha256"), Sha256Hex(seen[0].body));
}

TEST(S3ClientFakeServerTest, CopyWithFinalErrorIn200) {
  FakeS3 server([](const SeenRequest&, int) {
    return Reply{HttpReply(200, ErrorXml("AccessDenied"))};
  });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  EXPECT_THAT(c->CopyObject("s rc", "dst"),
              IsErrorWith(StatusCode::kIOError, "AccessDenied"));
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].Header("x-amz-copy-source"), "/bkt/s%20rc");
}

TEST(S3ClientFakeServerTest, DeleteObjectsBatchesAndReportsFailures) {
  FakeS3 server([](const SeenRequest& r, int i) {
    if (i == 1) {
      return Reply{
          HttpReply(200,
                    "<DeleteResult><Error><Key>k1500</Key><Code>AccessDenied</Code>"
                    "<Message>no</Message></Error><Error><Key>k1501</Key><Code>"
                    "AccessDenied</Code></Error></DeleteResult>")};
    }
    return Reply{HttpReply(200, "<DeleteResult/>")};
  });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  std::vector<std::string> keys;
  for (int i = 0; i < 2001; ++i) keys.push_back("k" + std::to_string(i));
  auto st = c->DeleteObjects(keys);
  EXPECT_THAT(st, IsErrorWith(StatusCode::kForbidden, "s3://bkt/k1500"));
  EXPECT_THAT(st, IsErrorWith(StatusCode::kForbidden, "2 of 2001 keys failed"));
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 3u);
  for (const auto& r : seen) {
    EXPECT_EQ(r.target, "/bkt?delete=");
    EXPECT_EQ(r.Header("content-md5"), ContentMd5(r.body));
  }
  EXPECT_NE(seen[2].body.find("<Key>k2000</Key>"), std::string::npos);
  EXPECT_EQ(seen[2].body.find("<Key>k1999</Key>"), std::string::npos);
}

// Expired token -> OnRejected -> the retry is signed with the new key.
class RefreshingSource : public CredentialsSource {
 public:
  Result<std::shared_ptr<const io::Credentials>> Current() override {
    ++current;
    return std::make_shared<const io::Credentials>(AwsCredentials{"OLDKEY", "s", "tok1"});
  }
  Result<std::shared_ptr<const io::Credentials>> OnRejected(
      const io::Credentials& r) override {
    ++rejected;
    rejected_key = r.aws.access_key_id;
    return std::make_shared<const io::Credentials>(
        AwsCredentials{"NEWKEY", "s2", "tok2"});
  }
  std::string id() const override { return "refreshing"; }
  std::string ToString() const override { return "RefreshingSource"; }
  std::atomic<int> current{0}, rejected{0};
  std::string rejected_key;
};

TEST(S3ClientFakeServerTest, ExpiredTokenRefreshesOnce) {
  FakeS3 server([](const SeenRequest& r, int) {
    if (r.Header("authorization").find("Credential=OLDKEY/") != std::string::npos) {
      return Reply{HttpReply(400, ErrorXml("ExpiredToken"))};
    }
    return Reply{HttpReply(200, "ok")};
  });
  auto source = std::make_shared<RefreshingSource>();
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), source));
  ASSERT_OK_AND_ASSIGN(auto buf, c->GetObject("k"));
  EXPECT_EQ(buf->ToStringView(), "ok");
  EXPECT_EQ(source->rejected.load(), 1);
  EXPECT_EQ(source->rejected_key, "OLDKEY");
  EXPECT_EQ(c->stats().credential_refreshes.load(), 1);
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].Header("x-amz-security-token"), "tok1");
  EXPECT_EQ(seen[1].Header("x-amz-security-token"), "tok2");
}

TEST(S3ClientFakeServerTest, StillExpiredAfterRefreshIsTokenExpired) {
  FakeS3 server([](const SeenRequest&, int) {
    return Reply{HttpReply(400, ErrorXml("ExpiredToken"))};
  });
  auto source = std::make_shared<RefreshingSource>();
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), source));
  EXPECT_THAT(c->GetObject("k"), IsErrorWith(StatusCode::kTokenExpired, "ExpiredToken"));
  EXPECT_EQ(source->rejected.load(), 1);  // only once per request
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(S3ClientFakeServerTest, ExpiredTokenWithStaticSourceNamesTheRefreshFailure) {
  FakeS3 server([](const SeenRequest&, int) {
    return Reply{HttpReply(400, ErrorXml("ExpiredToken"))};
  });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  auto st = c->GetObject("k").status();
  EXPECT_THAT(st,
              IsErrorWith(StatusCode::kTokenExpired, "refreshing credentials failed"));
  EXPECT_EQ(st.message().find("fakesecret"), std::string::npos);
}

TEST(S3ClientFakeServerTest, StalledTransferIsRetried) {
  FakeS3 server([](const SeenRequest&, int i) {
    if (i == 0) {
      // Headers promise 10 bytes, then nothing comes: the stall timeout fires.
      return Reply{"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", 0, false};
    }
    return Reply{HttpReply(200, "0123456789")};
  });
  S3Options o = FakeOptions(server);
  o.stall_timeout = milliseconds(1000);
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", o, FakeCreds()));
  const auto start = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(auto buf, c->GetObject("k"));
  EXPECT_EQ(buf->ToStringView(), "0123456789");
  EXPECT_EQ(c->stats().retries.load(), 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(S3ClientFakeServerTest, RequestTimeoutIsRetriedThenUnavailable) {
  FakeS3 server([](const SeenRequest&, int) {
    return Reply{HttpReply(200, "late"), 400};
  });
  S3Options o = FakeOptions(server);
  o.request_timeout = milliseconds(100);
  o.max_retries = 1;
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", o, FakeCreds()));
  EXPECT_THAT(c->GetObject("k"),
              IsErrorWith(StatusCode::kUnavailable, "after 2 attempts"));
}

// The first attempt's answer is lost; the retry finds "our" object: success when the
// ETag is our body's MD5, AlreadyExists when somebody else's bytes are there.
TEST(S3ClientFakeServerTest, ConditionalCreateWhoseAnswerWasLost) {
  for (bool ours : {true, false}) {
    SCOPED_TRACE(ours);
    const std::string body = "manifest bytes";
    FakeS3 server([&](const SeenRequest& r, int i) {
      if (i == 0) return Reply{"", 0, /*close=*/true};
      if (r.method == "PUT") return Reply{HttpReply(412, ErrorXml("PreconditionFailed"))};
      const std::string etag = ours ? Md5Hex(body) : Md5Hex("other bytes");
      return Reply{HttpReply(200, std::string(14, 'x'), {"ETag: \"" + etag + "\""})};
    });
    ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
    auto r = c->PutObject("k", body, /*if_none_match=*/true);
    if (ours) {
      ASSERT_OK(r);
      EXPECT_EQ(*r, "\"" + Md5Hex(body) + "\"");
    } else {
      EXPECT_THAT(r, IsError(StatusCode::kAlreadyExists));
    }
    EXPECT_EQ(server.requests().size(), 3u);
  }
  // Without a retry, a 412 is AlreadyExists at once (no HEAD).
  FakeS3 server([](const SeenRequest&, int) {
    return Reply{HttpReply(412, ErrorXml("PreconditionFailed"))};
  });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  EXPECT_THAT(c->PutObject("k", "x", true), IsError(StatusCode::kAlreadyExists));
  EXPECT_EQ(server.requests().size(), 1u);
}

// Without a retry (or with every retry failing), a conditional PUT whose only answer was
// lost is checked with a HEAD too: the create happened when the ETag is our body's MD5.
TEST(S3ClientFakeServerTest, ConditionalCreateWhoseOnlyAnswerWasLost) {
  const std::string body = "manifest bytes";
  for (bool ours : {true, false}) {
    SCOPED_TRACE(ours);
    FakeS3 server([&](const SeenRequest& r, int) {
      if (r.method == "PUT") return Reply{"", 0, /*close=*/true};
      if (!ours) return Reply{HttpReply(404, "")};
      return Reply{
          HttpReply(200, std::string(14, 'x'), {"ETag: \"" + Md5Hex(body) + "\""})};
    });
    S3Options options = FakeOptions(server);
    options.max_retries = 0;
    ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", options, FakeCreds()));
    auto r = c->PutObject("k", body, /*if_none_match=*/true);
    if (ours) {
      ASSERT_OK(r);
    } else {
      EXPECT_THAT(r, IsError(StatusCode::kUnavailable));  // the put's own error
    }
    auto seen = server.requests();
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[1].method, "HEAD");
  }
  // A PUT that was refused (an HTTP answer, one attempt) is not checked.
  FakeS3 server([](const SeenRequest&, int) {
    return Reply{HttpReply(403, ErrorXml("AccessDenied"))};
  });
  S3Options options = FakeOptions(server);
  options.max_retries = 0;
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", options, FakeCreds()));
  EXPECT_FALSE(c->PutObject("k", body, true).ok());
  EXPECT_EQ(server.requests().size(), 1u);
}

std::string HexToBytes(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// The first CompleteMultipartUpload is carried out but its answer lost; the retry is
// answered NoSuchUpload (S3 once the finished upload is gone). The object decides: its
// ETag is MD5(part MD5s)-2 when it is our upload.
TEST(S3ClientFakeServerTest, CompleteWhoseAnswerWasLost) {
  const std::vector<std::string> parts = {"\"" + Md5Hex("part one") + "\"",
                                          "\"" + Md5Hex("part two") + "\""};
  const std::string ours =
      "\"" + Md5Hex(HexToBytes(Md5Hex("part one")) + HexToBytes(Md5Hex("part two"))) +
      "-2\"";
  enum class Head { kOurs, kOther, kMissing, kFailing };
  for (Head head : {Head::kOurs, Head::kOther, Head::kMissing, Head::kFailing}) {
    SCOPED_TRACE(static_cast<int>(head));
    FakeS3 server([&](const SeenRequest& r, int i) {
      if (r.method == "POST") {
        if (i == 0) return Reply{"", 0, /*close=*/true};
        return Reply{HttpReply(404, ErrorXml("NoSuchUpload"))};
      }
      switch (head) {
        case Head::kOurs:
          return Reply{HttpReply(200, std::string(16, 'x'), {"ETag: " + ours})};
        case Head::kOther:
          return Reply{HttpReply(200, std::string(16, 'x'), {"ETag: \"abc-2\""})};
        case Head::kMissing:
          return Reply{HttpReply(404, "")};
        case Head::kFailing:
          break;
      }
      return Reply{HttpReply(500, "")};
    });
    ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
    Status st = c->CompleteMultipartUpload("k", "up", parts);
    switch (head) {
      case Head::kOurs:
        EXPECT_OK(st);
        break;
      case Head::kOther:
      case Head::kMissing:
        EXPECT_THAT(st, IsError(StatusCode::kNotFound));
        EXPECT_EQ(st.message().find("may have"), std::string::npos) << st.message();
        break;
      case Head::kFailing:
        EXPECT_THAT(st, IsErrorWith(StatusCode::kNotFound,
                                    "the upload may have completed (an attempt's answer "
                                    "was lost) and checking the object failed"));
        ASSERT_NE(st.detail_as<HttpErrorDetail>(), nullptr);
        EXPECT_EQ(st.detail_as<HttpErrorDetail>()->service_code(), "NoSuchUpload");
        break;
    }
    auto seen = server.requests();
    ASSERT_GE(seen.size(), 3u);
    EXPECT_EQ(seen[2].method, "HEAD");
  }
  // A Complete refused on its only attempt is not checked.
  FakeS3 server([](const SeenRequest&, int) {
    return Reply{HttpReply(400, ErrorXml("InvalidPart"))};
  });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  EXPECT_FALSE(c->CompleteMultipartUpload("k", "up", parts).ok());
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(S3ClientFakeServerTest, MaxConnectionsBoundsRequestsInFlight) {
  std::atomic<int> in_flight{0}, peak{0};
  FakeS3 server([&](const SeenRequest&, int) {
    const int now = ++in_flight;
    int p = peak.load();
    while (now > p && !peak.compare_exchange_weak(p, now)) {
    }
    std::this_thread::sleep_for(milliseconds(30));
    --in_flight;
    return Reply{HttpReply(200, "x")};
  });
  S3Options o = FakeOptions(server);
  o.max_connections = 2;
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", o, FakeCreds()));
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 3; ++i) EXPECT_OK(c->GetObject("k"));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(peak.load(), 2);
  EXPECT_EQ(server.requests().size(), 18u);
  EXPECT_LE(server.connections(), 2);  // pooled handles keep their connections
}

TEST(S3ClientFakeServerTest, HttpErrorsCarryTypedDetail) {
  FakeS3 server([](const SeenRequest& r, int) {
    if (r.target == "/bkt/missing") return Reply{HttpReply(404, ErrorXml("NoSuchKey"))};
    if (r.target == "/bkt/denied") return Reply{HttpReply(403, ErrorXml("AccessDenied"))};
    if (r.method == "HEAD") return Reply{HttpReply(404, "")};
    return Reply{HttpReply(503, ErrorXml("SlowDown"))};
  });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  auto detail = [](const Status& st) {
    const auto* d = st.detail_as<HttpErrorDetail>();
    return d == nullptr ? std::string("<none>") : d->ToString();
  };
  Status missing = c->GetObject("missing").status();
  EXPECT_TRUE(missing.IsNotFound());
  EXPECT_EQ(detail(missing), "HTTP 404 NoSuchKey (request id rid)");
  Status denied = c->GetObject("denied").status();
  EXPECT_TRUE(denied.IsForbidden()) << denied.ToString();
  EXPECT_EQ(detail(denied), "HTTP 403 AccessDenied (request id rid)");
  // A bodiless HEAD answer: no code, the request id from the header.
  Status head = c->HeadObject("other").status();
  EXPECT_EQ(detail(head), "HTTP 404 (request id fake-404)");
  // Retries exhausted: Unavailable, still carrying the last answer's detail.
  Status slow = c->PutObject("other", "x").status();
  EXPECT_EQ(slow.code(), StatusCode::kUnavailable);
  EXPECT_EQ(detail(slow), "HTTP 503 SlowDown (request id rid)");
}

TEST(S3ClientFakeServerTest, HeadErrorsWithoutBody) {
  FakeS3 server(
      [](const SeenRequest&, int i) { return Reply{HttpReply(i == 0 ? 404 : 412, "")}; });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  EXPECT_THAT(c->HeadObject("k"),
              IsErrorWith(StatusCode::kNotFound, "HTTP 404 (request id fake-404)"));
  EXPECT_THAT(c->PutObject("k", "x", true), IsError(StatusCode::kAlreadyExists));
}

TEST(S3ClientFakeServerTest, ListDecodesAndSendsCanonicalQuery) {
  FakeS3 server([](const SeenRequest&, int) {
    return Reply{HttpReply(200,
                           "<ListBucketResult><EncodingType>url</EncodingType>"
                           "<IsTruncated>true</IsTruncated><NextContinuationToken>t/+=</"
                           "NextContinuationToken>"
                           "<Contents><Key>p%2Fa+b</Key><Size>3</Size></Contents>"
                           "</ListBucketResult>")};
  });
  ASSERT_OK_AND_ASSIGN(auto c, S3Client::Make("bkt", FakeOptions(server), FakeCreds()));
  ListObjectsV2Request req;
  req.prefix = "p/";
  req.delimiter = "/";
  req.continuation_token = "a+b/c=";
  req.max_keys = 7;
  ASSERT_OK_AND_ASSIGN(auto page, c->ListObjectsV2(req));
  ASSERT_EQ(page.objects.size(), 1u);
  EXPECT_EQ(page.objects[0].key, "p/a b");
  EXPECT_EQ(page.next_continuation_token, "t/+=");
  EXPECT_EQ(
      server.requests()[0].target,
      "/bkt?continuation-token=a%2Bb%2Fc%3D&delimiter=%2F&encoding-type=url&list-type=2&"
      "max-keys=7&prefix=p%2F");
}

}  // namespace
}  // namespace lance::io::s3::internal
