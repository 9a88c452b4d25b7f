// SPDX-License-Identifier: Apache-2.0
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "io/s3/sigv4.h"
#include "tests/testing/matchers.h"

namespace lance::io::s3 {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using ::testing::Pair;

using Headers = std::vector<std::pair<std::string, std::string>>;

// Inputs shared by the examples of the AWS S3 documentation, "Authenticating Requests:
// Using the Authorization Header (AWS Signature Version 4)", section "Examples".
constexpr char kDocKeyId[] = "AKIAIOSFODNN7EXAMPLE";
constexpr char kDocSecret[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
constexpr char kDocHost[] = "examplebucket.s3.amazonaws.com";
constexpr char kDocRegion[] = "us-east-1";

AwsCredentials DocCredentials() { return {kDocKeyId, kDocSecret, ""}; }

// 2013-05-24T00:00:00Z.
std::chrono::system_clock::time_point DocTime() {
  return std::chrono::system_clock::time_point(std::chrono::seconds(1369353600));
}

SigV4Parts MustCompute(const SigV4Request& req,
                       const AwsCredentials& creds = DocCredentials(),
                       std::chrono::system_clock::time_point now = DocTime()) {
  auto parts = ComputeSigV4(req, creds, kDocRegion, "s3", now);
  EXPECT_TRUE(parts.ok()) << parts.status().ToString();
  return parts.ok() ? *parts : SigV4Parts{};
}

SigV4Request Get(std::string path) {
  SigV4Request req;
  req.method = "GET";
  req.host = kDocHost;
  req.path = std::move(path);
  req.payload_sha256_hex = std::string(kEmptyPayloadSha256);
  return req;
}

// ---------------------------------------------------------------------------------------
// Official vectors.

TEST(SigV4DocExamplesTest, GetObjectWithRange) {
  SigV4Request req = Get("/test.txt");
  req.headers = {{"Range", "bytes=0-9"}};
  SigV4Parts parts = MustCompute(req);

  EXPECT_EQ(parts.canonical_request,
            "GET\n"
            "/test.txt\n"
            "\n"
            "host:examplebucket.s3.amazonaws.com\n"
            "range:bytes=0-9\n"
            "x-amz-content-sha256:"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "x-amz-date:20130524T000000Z\n"
            "\n"
            "host;range;x-amz-content-sha256;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(parts.string_to_sign,
            "AWS4-HMAC-SHA256\n"
            "20130524T000000Z\n"
            "20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(parts.signature,
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");

  auto headers = SignRequest(req, DocCredentials(), kDocRegion, "s3", DocTime());
  ASSERT_TRUE(headers.ok()) << headers.status().ToString();
  EXPECT_THAT(
      *headers,
      ElementsAre(
          Pair("x-amz-date", "20130524T000000Z"),
          Pair("x-amz-content-sha256",
               "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
          Pair("Authorization",
               "AWS4-HMAC-SHA256 "
               "Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
               "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
               "Signature="
               "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")));
}

TEST(SigV4DocExamplesTest, PutObject) {
  SigV4Request req;
  req.method = "PUT";
  req.host = kDocHost;
  req.path = "/test$file.text";  // raw key: '$' is encoded by the signer
  req.headers = {{"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                 {"x-amz-storage-class", "REDUCED_REDUNDANCY"}};
  req.payload_sha256_hex = Sha256Hex("Welcome to Amazon S3.");
  ASSERT_EQ(req.payload_sha256_hex,
            "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  SigV4Parts parts = MustCompute(req);

  EXPECT_EQ(parts.canonical_request,
            "PUT\n"
            "/test%24file.text\n"
            "\n"
            "date:Fri, 24 May 2013 00:00:00 GMT\n"
            "host:examplebucket.s3.amazonaws.com\n"
            "x-amz-content-sha256:"
            "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072\n"
            "x-amz-date:20130524T000000Z\n"
            "x-amz-storage-class:REDUCED_REDUNDANCY\n"
            "\n"
            "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class\n"
            "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  EXPECT_EQ(parts.string_to_sign,
            "AWS4-HMAC-SHA256\n"
            "20130524T000000Z\n"
            "20130524/us-east-1/s3/aws4_request\n"
            "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d");
  EXPECT_EQ(parts.signature,
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
  EXPECT_EQ(parts.authorization,
            "AWS4-HMAC-SHA256 "
            "Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"
            "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4DocExamplesTest, GetBucketLifecycle) {
  SigV4Request req = Get("/");
  req.query = {{"lifecycle", ""}};
  SigV4Parts parts = MustCompute(req);
  EXPECT_EQ(parts.canonical_request,
            "GET\n"
            "/\n"
            "lifecycle=\n"
            "host:examplebucket.s3.amazonaws.com\n"
            "x-amz-content-sha256:"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "x-amz-date:20130524T000000Z\n"
            "\n"
            "host;x-amz-content-sha256;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(parts.string_to_sign,
            "AWS4-HMAC-SHA256\n"
            "20130524T000000Z\n"
            "20130524/us-east-1/s3/aws4_request\n"
            "9766c798316ff2757b517bc739a67f6213b4ab36dd5da2f94eaebf79c77395ca");
  EXPECT_EQ(parts.signature,
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(SigV4DocExamplesTest, ListObjectsQuerySorted) {
  SigV4Request req = Get("");                        // empty path canonicalises to "/"
  req.query = {{"prefix", "J"}, {"max-keys", "2"}};  // deliberately unsorted
  SigV4Parts parts = MustCompute(req);
  EXPECT_THAT(parts.canonical_request, HasSubstr("GET\n/\nmax-keys=2&prefix=J\n"));
  EXPECT_EQ(parts.signed_headers, "host;x-amz-content-sha256;x-amz-date");
  EXPECT_EQ(parts.signature,
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

// ---------------------------------------------------------------------------------------
// Helpers.

TEST(SigV4HelpersTest, Sha256Hex) {
  EXPECT_EQ(Sha256Hex(""), kEmptyPayloadSha256);
  EXPECT_EQ(Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(SigV4HelpersTest, UriEncode) {
  EXPECT_EQ(UriEncode("AZaz09-._~", true), "AZaz09-._~");
  EXPECT_EQ(UriEncode("a b", true), "a%20b");
  EXPECT_EQ(UriEncode("a+b=c&d", true), "a%2Bb%3Dc%26d");
  EXPECT_EQ(UriEncode("!'()*$", false), "%21%27%28%29%2A%24");
  EXPECT_EQ(UriEncode("100%", false), "100%25");
  EXPECT_EQ(UriEncode("a/b", false), "a/b");
  EXPECT_EQ(UriEncode("a/b", true), "a%2Fb");
  EXPECT_EQ(UriEncode("\xC3\xA9", true), "%C3%A9");  // UTF-8 bytes, upper-case hex
  EXPECT_EQ(UriEncode(std::string_view("\0\xff", 2), true), "%00%FF");
}

TEST(SigV4HelpersTest, CanonicalUriEncodesOnceAndKeepsSlashes) {
  EXPECT_EQ(S3CanonicalUri(""), "/");
  EXPECT_EQ(S3CanonicalUri("/"), "/");
  EXPECT_EQ(S3CanonicalUri("/bucket/dir/key with space.lance"),
            "/bucket/dir/key%20with%20space.lance");
  // No double encoding: a literal '%' in a key is just a byte to encode once; no
  // "."/".." or "//" normalisation either (S3 keys are opaque).
  EXPECT_EQ(S3CanonicalUri("/a%2Fb"), "/a%252Fb");
  EXPECT_EQ(S3CanonicalUri("/a//./../b"), "/a//./../b");
}

TEST(SigV4HelpersTest, CanonicalQuerySortsByEncodedKeyThenValue) {
  EXPECT_EQ(S3CanonicalQuery({}), "");
  EXPECT_EQ(S3CanonicalQuery({{"uploads", ""}}), "uploads=");
  EXPECT_EQ(
      S3CanonicalQuery({{"prefix", "a/b c"}, {"list-type", "2"}, {"delimiter", "/"}}),
      "delimiter=%2F&list-type=2&prefix=a%2Fb%20c");
  // Repeated keys: ordered by value.
  EXPECT_EQ(S3CanonicalQuery({{"k", "b"}, {"k", "a"}, {"j", "z"}}), "j=z&k=a&k=b");
  // Sorted on the encoded form ('%' 0x25 < 'A' 0x41; upper case before lower case).
  EXPECT_EQ(S3CanonicalQuery({{"a", "1"}, {"B", "2"}, {" ", "3"}}), "%20=3&B=2&a=1");
  EXPECT_EQ(S3CanonicalQuery({{"uploadId", "a/b+c=="}, {"partNumber", "2"}}),
            "partNumber=2&uploadId=a%2Fb%2Bc%3D%3D");
}

TEST(SigV4HelpersTest, FormatAmzDateTruncatesToSeconds) {
  EXPECT_EQ(FormatAmzDate(DocTime()), "20130524T000000Z");
  EXPECT_EQ(
      FormatAmzDate(DocTime() + std::chrono::milliseconds(999) + std::chrono::hours(23) +
                    std::chrono::minutes(59) + std::chrono::seconds(59)),
      "20130524T235959Z");
  EXPECT_EQ(FormatAmzDate(
                std::chrono::system_clock::time_point(std::chrono::seconds(951782400))),
            "20000229T000000Z");
}

// ---------------------------------------------------------------------------------------
// Canonicalisation details.

TEST(SigV4CanonicalTest, HeadersLowercasedTrimmedCollapsedSortedAndJoined) {
  SigV4Request req = Get("/k");
  req.headers = {{"X-Amz-Meta-Zed", "  a   b \t c  "},
                 {"Content-Type", "text/plain"},
                 {"x-amz-meta-list", "one"},
                 {"X-AMZ-META-LIST", " two "}};
  SigV4Parts parts = MustCompute(req);
  EXPECT_THAT(parts.canonical_request, HasSubstr("content-type:text/plain\n"
                                                 "host:examplebucket.s3.amazonaws.com\n"
                                                 "x-amz-content-sha256:" +
                                                 std::string(kEmptyPayloadSha256) +
                                                 "\n"
                                                 "x-amz-date:20130524T000000Z\n"
                                                 "x-amz-meta-list:one,two\n"
                                                 "x-amz-meta-zed:a b c\n\n"));
  EXPECT_EQ(
      parts.signed_headers,
      "content-type;host;x-amz-content-sha256;x-amz-date;x-amz-meta-list;x-amz-meta-zed");

  // Header-name case and whitespace do not change the signature.
  SigV4Request same = Get("/k");
  same.headers = {{"content-type", "text/plain"},
                  {"x-amz-meta-zed", "a b c"},
                  {"x-amz-meta-list", "one"},
                  {"x-amz-meta-list", "two"}};
  EXPECT_EQ(MustCompute(same).signature, parts.signature);
}

TEST(SigV4CanonicalTest, UnsignedPayload) {
  SigV4Request req = Get("/k");
  req.payload_sha256_hex = std::string(kUnsignedPayload);
  SigV4Parts parts = MustCompute(req);
  EXPECT_THAT(parts.canonical_request,
              HasSubstr("x-amz-content-sha256:UNSIGNED-PAYLOAD\n"));
  EXPECT_TRUE(parts.canonical_request.ends_with("\nUNSIGNED-PAYLOAD"));
}

TEST(SigV4CanonicalTest, EveryInputChangesTheSignature) {
  SigV4Request base = Get("/test.txt");
  base.headers = {{"Range", "bytes=0-9"}};
  const std::string sig = MustCompute(base).signature;

  SigV4Request r = base;
  r.method = "HEAD";
  EXPECT_NE(MustCompute(r).signature, sig);
  r = base;
  r.path = "/test.txu";
  EXPECT_NE(MustCompute(r).signature, sig);
  r = base;
  r.query = {{"versionId", "1"}};
  EXPECT_NE(MustCompute(r).signature, sig);
  r = base;
  r.headers = {{"Range", "bytes=0-8"}};
  EXPECT_NE(MustCompute(r).signature, sig);
  r = base;
  r.host = "otherbucket.s3.amazonaws.com";
  EXPECT_NE(MustCompute(r).signature, sig);
  r = base;
  r.payload_sha256_hex = std::string(kUnsignedPayload);
  EXPECT_NE(MustCompute(r).signature, sig);
  EXPECT_NE(
      MustCompute(base, DocCredentials(), DocTime() + std::chrono::seconds(1)).signature,
      sig);
  AwsCredentials other = DocCredentials();
  other.secret_access_key += "x";
  EXPECT_NE(MustCompute(base, other).signature, sig);
  auto other_region = ComputeSigV4(base, DocCredentials(), "eu-west-1", "s3", DocTime());
  ASSERT_TRUE(other_region.ok());
  EXPECT_NE(other_region->signature, sig);
  EXPECT_EQ(other_region->credential_scope, "20130524/eu-west-1/s3/aws4_request");
}

// ---------------------------------------------------------------------------------------
// Session token.

TEST(SigV4SessionTokenTest, TokenIsSentAndSigned) {
  AwsCredentials creds = DocCredentials();
  creds.session_token = "FQoGZXIvYXdzEXAMPLETOKEN//+=";
  SigV4Request req = Get("/test.txt");
  SigV4Parts parts = MustCompute(req, creds);
  EXPECT_EQ(parts.signed_headers,
            "host;x-amz-content-sha256;x-amz-date;x-amz-security-token");
  EXPECT_THAT(parts.canonical_request,
              HasSubstr("x-amz-security-token:FQoGZXIvYXdzEXAMPLETOKEN//+=\n"));
  EXPECT_NE(parts.signature, MustCompute(req).signature);

  auto headers = SignRequest(req, creds, kDocRegion, "s3", DocTime());
  ASSERT_TRUE(headers.ok());
  ASSERT_EQ(headers->size(), 4u);
  EXPECT_EQ((*headers)[0].first, "x-amz-date");
  EXPECT_EQ((*headers)[1].first, "x-amz-content-sha256");
  EXPECT_THAT((*headers)[2],
              Pair("x-amz-security-token", "FQoGZXIvYXdzEXAMPLETOKEN//+="));
  EXPECT_EQ((*headers)[3].first, "Authorization");
  EXPECT_THAT(
      (*headers)[3].second,
      HasSubstr(
          "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"));
  // The token is a header, never part of the Authorization value.
  EXPECT_THAT((*headers)[3].second, Not(HasSubstr(creds.session_token)));
}

TEST(SigV4SessionTokenTest, NoTokenNoHeader) {
  auto headers = SignRequest(Get("/k"), DocCredentials(), kDocRegion, "s3", DocTime());
  ASSERT_TRUE(headers.ok());
  for (const auto& [name, value] : *headers) EXPECT_NE(name, "x-amz-security-token");
}

// ---------------------------------------------------------------------------------------
// Secrets never leak; invalid input is rejected.

constexpr char kSecret[] = "SUPERSECRETvalue/+xyz";
constexpr char kToken[] = "SESSIONTOKENvalue123";

AwsCredentials LeakyCredentials() { return {"AKIDLEAKTEST", kSecret, kToken}; }

TEST(SigV4SecretsTest, ToStringRedacts) {
  const std::string s = LeakyCredentials().ToString();
  EXPECT_THAT(s, HasSubstr("AKID\u2026"));
  EXPECT_THAT(s, Not(HasSubstr("AKIDL")));
  EXPECT_THAT(s, Not(HasSubstr(kSecret)));
  EXPECT_THAT(s, Not(HasSubstr("SUPER")));
  EXPECT_THAT(s, Not(HasSubstr(kToken)));
  EXPECT_THAT(s, Not(HasSubstr("SESSION")));
  EXPECT_THAT(s, HasSubstr("session_token=<redacted>"));
  const AwsCredentials no_token{"AK", "s", ""};
  EXPECT_THAT(no_token.ToString(), HasSubstr("session_token=<none>"));
  EXPECT_THAT(AwsCredentials().ToString(), HasSubstr("access_key_id=\u2026"));
}

TEST(SigV4SecretsTest, ErrorsAreInvalidAndNeverContainSecrets) {
  std::vector<std::pair<std::string, SigV4Request>> bad;
  auto add = [&](std::string name, auto mutate) {
    SigV4Request r = Get("/k");
    mutate(r);
    bad.emplace_back(std::move(name), std::move(r));
  };
  add("empty method", [](SigV4Request& r) { r.method = ""; });
  add("method with space", [](SigV4Request& r) { r.method = "GET X"; });
  add("empty host", [](SigV4Request& r) { r.host = ""; });
  add("host with newline", [](SigV4Request& r) { r.host = "a\nb"; });
  add("relative path", [](SigV4Request& r) { r.path = "k"; });
  add("empty payload hash", [](SigV4Request& r) { r.payload_sha256_hex = ""; });
  add("upper-case payload hash", [](SigV4Request& r) {
    r.payload_sha256_hex =
        "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855";
  });
  add("header value with CRLF", [](SigV4Request& r) {
    r.headers = {{"x-amz-meta-a", std::string(kSecret) + "\r\nInjected: 1"}};
  });
  add("bad header name", [](SigV4Request& r) { r.headers = {{"bad name", "v"}}; });
  add("empty header name", [](SigV4Request& r) { r.headers = {{"", "v"}}; });
  add("authorization header", [](SigV4Request& r) {
    r.headers = {{"Authorization", kSecret}};
  });
  add("host header", [](SigV4Request& r) { r.headers = {{"Host", "evil"}}; });
  add("x-amz-date header", [](SigV4Request& r) { r.headers = {{"X-Amz-Date", "x"}}; });
  add("token header", [](SigV4Request& r) {
    r.headers = {{"x-amz-security-token", kToken}};
  });

  auto check = [](const std::string& name, const Status& st) {
    EXPECT_THAT(st, IsError(StatusCode::kInvalid)) << name;
    EXPECT_THAT(st.ToString(), Not(HasSubstr(kSecret))) << name;
    EXPECT_THAT(st.ToString(), Not(HasSubstr("SUPERSECRET"))) << name;
    EXPECT_THAT(st.ToString(), Not(HasSubstr(kToken))) << name;
  };
  for (const auto& [name, req] : bad) {
    check(name,
          ComputeSigV4(req, LeakyCredentials(), kDocRegion, "s3", DocTime()).status());
    check(name,
          SignRequest(req, LeakyCredentials(), kDocRegion, "s3", DocTime()).status());
  }

  const SigV4Request good = Get("/k");
  auto creds = LeakyCredentials();
  creds.access_key_id = "";
  check("empty key id", ComputeSigV4(good, creds, kDocRegion, "s3", DocTime()).status());
  creds = LeakyCredentials();
  creds.access_key_id = "AK/ID";
  check("key id with '/'",
        ComputeSigV4(good, creds, kDocRegion, "s3", DocTime()).status());
  creds = LeakyCredentials();
  creds.secret_access_key = "";
  check("empty secret", ComputeSigV4(good, creds, kDocRegion, "s3", DocTime()).status());
  creds = LeakyCredentials();
  creds.session_token = std::string(kToken) + "\n";
  check("token with newline",
        ComputeSigV4(good, creds, kDocRegion, "s3", DocTime()).status());
  check("empty region",
        ComputeSigV4(good, LeakyCredentials(), "", "s3", DocTime()).status());
  check("region with '/'",
        ComputeSigV4(good, LeakyCredentials(), "us-east-1/x", "s3", DocTime()).status());
  check("empty service",
        ComputeSigV4(good, LeakyCredentials(), kDocRegion, "", DocTime()).status());

  // The successful output carries the token only in its own header, never the secret.
  auto ok = SignRequest(good, LeakyCredentials(), kDocRegion, "s3", DocTime());
  ASSERT_TRUE(ok.ok());
  for (const auto& [name, value] : *ok) {
    EXPECT_THAT(value, Not(HasSubstr(kSecret))) << name;
    if (name != "x-amz-security-token") {
      EXPECT_THAT(value, Not(HasSubstr(kToken))) << name;
    }
  }
  auto parts = ComputeSigV4(good, LeakyCredentials(), kDocRegion, "s3", DocTime());
  ASSERT_TRUE(parts.ok());
  EXPECT_THAT(parts->canonical_request, Not(HasSubstr(kSecret)));
  EXPECT_THAT(parts->string_to_sign, Not(HasSubstr(kSecret)));
}

}  // namespace
}  // namespace lance::io::s3
