// SPDX-License-Identifier: Apache-2.0
#include "lance/io/s3/s3_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/testing/fake_env.h"
#include "tests/testing/matchers.h"

namespace lance::io::s3 {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using namespace std::chrono_literals;

using Options = std::map<std::string, std::string>;

// A fake environment; the real one is never read by these tests.
using ::lance::testing::FakeEnv;

EnvLookup NoEnv() { return FakeEnv({}); }

constexpr const char* kSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
constexpr const char* kToken = "FQoGZXIvYXdzEXAMPLETOKENVALUE123";

// Each option, alone, is refused as Invalid with an error naming its key.
void ExpectRefused(const std::vector<std::pair<std::string, std::string>>& options) {
  for (const auto& [key, value] : options) {
    EXPECT_THAT(ParseS3Options({{key, value}}, NoEnv()),
                IsErrorWith(StatusCode::kInvalid, key))
        << key << "=" << value;
  }
}

TEST(S3OptionsTest, DefaultsWithoutAnything) {
  ASSERT_OK_AND_ASSIGN(S3Options o, ParseS3Options({}, NoEnv()));
  EXPECT_EQ(o.region, "us-west-2");
  EXPECT_EQ(o.endpoint, "");
  EXPECT_FALSE(o.virtual_hosted_style);
  EXPECT_FALSE(o.allow_http);
  EXPECT_FALSE(o.allow_invalid_certificates);
  EXPECT_FALSE(o.unsigned_payload);
  EXPECT_FALSE(o.skip_signature);
  EXPECT_TRUE(o.credentials.access_key_id.empty());
  EXPECT_TRUE(o.credentials.secret_access_key.empty());
  EXPECT_EQ(o.max_retries, 10);
  EXPECT_EQ(o.retry_timeout, 180s);
  EXPECT_EQ(o.connect_timeout, 5s);
  EXPECT_EQ(o.request_timeout, 0ms);
  EXPECT_EQ(o.stall_timeout, 30s);
  EXPECT_EQ(o.multipart_part_size, 16 << 20);
  EXPECT_EQ(o.multipart_concurrency, 4);
  EXPECT_EQ(o.read_chunk_size, 8 << 20);
  EXPECT_EQ(o.max_connections, 32);
}

TEST(S3OptionsTest, RegionDefaultsToUsEast1WithAnEndpoint) {
  ASSERT_OK_AND_ASSIGN(
      S3Options o,
      ParseS3Options({{"aws_endpoint", "https://rgw.example:7480"}}, NoEnv()));
  EXPECT_EQ(o.region, "us-east-1");
  EXPECT_EQ(o.endpoint, "https://rgw.example:7480");
}

TEST(S3OptionsTest, TheUpstreamIntegrationTestOptions) {
  // Exactly the keys Lance's own integration tests pass (LocalStack), here for RGW.
  ASSERT_OK_AND_ASSIGN(S3Options o,
                       ParseS3Options({{"allow_http", "true"},
                                       {"aws_access_key_id", "AKIDEXAMPLE"},
                                       {"aws_secret_access_key", kSecret},
                                       {"aws_endpoint", "http://127.0.0.1:7480"},
                                       {"aws_region", "eu-central-1"}},
                                      NoEnv()));
  EXPECT_TRUE(o.allow_http);
  EXPECT_EQ(o.endpoint, "http://127.0.0.1:7480");
  EXPECT_EQ(o.region, "eu-central-1");
  EXPECT_EQ(o.credentials.access_key_id, "AKIDEXAMPLE");
  EXPECT_EQ(o.credentials.secret_access_key, kSecret);
  EXPECT_EQ(o.credentials.session_token, "");
}

TEST(S3OptionsTest, EveryAliasOfTheCredentials) {
  for (const char* id_key : {"aws_access_key_id", "access_key_id", "AWS_ACCESS_KEY_ID"}) {
    for (const char* secret_key :
         {"aws_secret_access_key", "secret_access_key", "Secret_Access_Key"}) {
      for (const char* token_key :
           {"aws_session_token", "aws_token", "aws_security_token", "session_token",
            "token", "TOKEN"}) {
        SCOPED_TRACE(std::string(id_key) + " " + secret_key + " " + token_key);
        ASSERT_OK_AND_ASSIGN(S3Options o, ParseS3Options({{id_key, "AKIDEXAMPLE"},
                                                          {secret_key, kSecret},
                                                          {token_key, kToken}},
                                                         NoEnv()));
        EXPECT_EQ(o.credentials.access_key_id, "AKIDEXAMPLE");
        EXPECT_EQ(o.credentials.secret_access_key, kSecret);
        EXPECT_EQ(o.credentials.session_token, kToken);
      }
    }
  }
}

TEST(S3OptionsTest, RegionAliases) {
  for (const char* key : {"aws_region", "region", "AWS_REGION", "aws_default_region"}) {
    SCOPED_TRACE(key);
    ASSERT_OK_AND_ASSIGN(S3Options o, ParseS3Options({{key, "ap-south-1"}}, NoEnv()));
    EXPECT_EQ(o.region, "ap-south-1");
  }
  // aws_region wins over aws_default_region.
  ASSERT_OK_AND_ASSIGN(S3Options o, ParseS3Options({{"aws_region", "eu-west-1"},
                                                    {"aws_default_region", "ap-south-1"}},
                                                   NoEnv()));
  EXPECT_EQ(o.region, "eu-west-1");
}

TEST(S3OptionsTest, EndpointAliasesAndNormalisation) {
  for (const char* key : {"aws_endpoint", "aws_endpoint_url", "endpoint", "endpoint_url",
                          "AWS_ENDPOINT_URL"}) {
    SCOPED_TRACE(key);
    ASSERT_OK_AND_ASSIGN(S3Options o,
                         ParseS3Options({{key, "https://minio.local:9000/"}}, NoEnv()));
    EXPECT_EQ(o.endpoint, "https://minio.local:9000");
  }
  ASSERT_OK_AND_ASSIGN(
      S3Options o,
      ParseS3Options({{"aws_endpoint", "HTTPS://s3.example.com/base/path//"}}, NoEnv()));
  EXPECT_EQ(o.endpoint, "https://s3.example.com/base/path");
  ASSERT_OK_AND_ASSIGN(o,
                       ParseS3Options({{"aws_endpoint", "https://[::1]:7480"}}, NoEnv()));
  EXPECT_EQ(o.endpoint, "https://[::1]:7480");
}

TEST(S3OptionsTest, MalformedEndpointsAreInvalid) {
  for (const char* endpoint :
       {"127.0.0.1:7480", "ftp://host", "https://", "https:///path", "https://:80",
        "https://host:notaport", "https://host:0", "https://host/?x=1",
        "s3.amazonaws.com"}) {
    SCOPED_TRACE(endpoint);
    EXPECT_THAT(ParseS3Options({{"aws_endpoint", endpoint}}, NoEnv()),
                IsErrorWith(StatusCode::kInvalid, "aws_endpoint"));
  }
}

TEST(S3OptionsTest, EndpointUserInfoIsRefusedWithoutEchoingIt) {
  auto r = ParseS3Options({{"aws_endpoint", "https://user:hunter2@host"}}, NoEnv());
  ASSERT_THAT(r, IsErrorWith(StatusCode::kInvalid, "user info"));
  EXPECT_THAT(r.status().ToString(), Not(HasSubstr("hunter2")));
}

TEST(S3OptionsTest, HttpEndpointNeedsAllowHttp) {
  EXPECT_THAT(ParseS3Options({{"aws_endpoint", "http://127.0.0.1:7480"}}, NoEnv()),
              IsErrorWith(StatusCode::kInvalid, "allow_http"));
  EXPECT_THAT(
      ParseS3Options({{"aws_endpoint", "http://127.0.0.1:7480"}, {"allow_http", "false"}},
                     NoEnv()),
      IsErrorWith(StatusCode::kInvalid, "allow_http"));
  // Any key containing "allow_http" is the switch, in any case, any truthy spelling.
  for (const char* key :
       {"allow_http", "aws_allow_http", "ALLOW_HTTP", "client_allow_http"}) {
    for (const char* value : {"true", "TRUE", "1", "yes", "on"}) {
      SCOPED_TRACE(std::string(key) + "=" + value);
      ASSERT_OK_AND_ASSIGN(
          S3Options o,
          ParseS3Options({{"aws_endpoint", "http://127.0.0.1:7480"}, {key, value}},
                         NoEnv()));
      EXPECT_TRUE(o.allow_http);
      EXPECT_EQ(o.endpoint, "http://127.0.0.1:7480");
    }
  }
  // From the environment too.
  ASSERT_OK_AND_ASSIGN(S3Options o,
                       ParseS3Options({{"aws_endpoint", "http://127.0.0.1:7480"}},
                                      FakeEnv({{"AWS_ALLOW_HTTP", "true"}})));
  EXPECT_TRUE(o.allow_http);
}

TEST(S3OptionsTest, BooleanSwitches) {
  ASSERT_OK_AND_ASSIGN(S3Options o,
                       ParseS3Options({{"aws_virtual_hosted_style_request", "true"},
                                       {"allow_invalid_certificates", "yes"},
                                       {"aws_unsigned_payload", "1"},
                                       {"aws_skip_signature", "On"}},
                                      NoEnv()));
  EXPECT_TRUE(o.virtual_hosted_style);
  EXPECT_TRUE(o.allow_invalid_certificates);
  EXPECT_TRUE(o.unsigned_payload);
  EXPECT_TRUE(o.skip_signature);
  ASSERT_OK_AND_ASSIGN(o, ParseS3Options({{"aws_virtual_hosted_style_request", "off"},
                                          {"aws_unsigned_payload", "no"}},
                                         NoEnv()));
  EXPECT_FALSE(o.virtual_hosted_style);
  EXPECT_FALSE(o.unsigned_payload);
  EXPECT_THAT(ParseS3Options({{"aws_unsigned_payload", "maybe"}}, NoEnv()),
              IsErrorWith(StatusCode::kInvalid, "aws_unsigned_payload"));
}

TEST(S3OptionsTest, RetriesAndTimeouts) {
  ASSERT_OK_AND_ASSIGN(S3Options o, ParseS3Options({{"client_max_retries", "3"},
                                                    {"client_retry_timeout", "20"},
                                                    {"connect_timeout", "500ms"},
                                                    {"timeout", "2m"},
                                                    {"lance_cpp_stall_timeout", "0.5"},
                                                    {"lance_cpp_initial_backoff_ms", "7"},
                                                    {"lance_cpp_max_backoff_ms", "70"}},
                                                   NoEnv()));
  EXPECT_EQ(o.max_retries, 3);
  EXPECT_EQ(o.retry_timeout, 20s);
  EXPECT_EQ(o.connect_timeout, 500ms);
  EXPECT_EQ(o.request_timeout, 2min);
  EXPECT_EQ(o.stall_timeout, 500ms);
  EXPECT_EQ(o.initial_backoff, 7ms);
  EXPECT_EQ(o.max_backoff, 70ms);

  ExpectRefused({{"client_max_retries", "-1"},
                 {"client_max_retries", "three"},
                 {"client_retry_timeout", "soon"},
                 {"Connect_Timeout", "5 parsecs"}});
}

TEST(S3OptionsTest, TransferTuning) {
  ASSERT_OK_AND_ASSIGN(S3Options o,
                       ParseS3Options({{"lance_cpp_multipart_part_size", "5242880"},
                                       {"lance_cpp_multipart_concurrency", "2"},
                                       {"lance_cpp_read_chunk_size", "1048576"},
                                       {"lance_cpp_max_connections", "8"}},
                                      NoEnv()));
  EXPECT_EQ(o.multipart_part_size, 5 << 20);
  EXPECT_EQ(o.multipart_concurrency, 2);
  EXPECT_EQ(o.read_chunk_size, 1 << 20);
  EXPECT_EQ(o.max_connections, 8);
  ExpectRefused({{"lance_cpp_multipart_part_size", "5242879"},
                 {"lance_cpp_multipart_concurrency", "0"},
                 {"lance_cpp_max_connections", "0"}});
}

TEST(S3OptionsTest, UnknownAndLayerAboveKeysAreIgnored) {
  // Namespaces pass many unrelated keys; expiry keys belong to the credentials layer.
  ASSERT_OK_AND_ASSIGN(S3Options o,
                       ParseS3Options({{"expires_at_millis", "not a number"},
                                       {"refresh_offset_millis", "??"},
                                       {"azure_storage_account_name", "acct"},
                                       {"some_future_key", "x"}},
                                      NoEnv()));
  EXPECT_EQ(o.region, "us-west-2");
}

TEST(S3OptionsTest, EmptyValuesCountAsUnset) {
  ASSERT_OK_AND_ASSIGN(S3Options o, ParseS3Options({{"aws_region", ""},
                                                    {"aws_endpoint", ""},
                                                    {"aws_access_key_id", ""}},
                                                   NoEnv()));
  EXPECT_EQ(o.region, "us-west-2");
  EXPECT_EQ(o.endpoint, "");
  EXPECT_TRUE(o.credentials.access_key_id.empty());
}

TEST(S3OptionsTest, ConflictingAliasesAreInvalid) {
  EXPECT_THAT(
      ParseS3Options({{"aws_region", "eu-west-1"}, {"region", "us-east-2"}}, NoEnv()),
      IsErrorWith(StatusCode::kInvalid, "region"));
  // The same value twice is fine, as are two truthy spellings of allow_http.
  EXPECT_OK(
      ParseS3Options({{"aws_region", "eu-west-1"}, {"REGION", "eu-west-1"}}, NoEnv()));
  EXPECT_OK(ParseS3Options({{"allow_http", "1"}, {"aws_allow_http", "true"}}, NoEnv()));
  // Conflicting secrets: the message names the keys but never a value.
  auto r = ParseS3Options({{"aws_access_key_id", "AKIDEXAMPLE"},
                           {"aws_secret_access_key", kSecret},
                           {"secret_access_key", "otherSecretValue1234"}},
                          NoEnv());
  ASSERT_THAT(r, IsErrorWith(StatusCode::kInvalid, "secret_access_key"));
  EXPECT_THAT(r.status().ToString(),
              AllOf(Not(HasSubstr(kSecret)), Not(HasSubstr("otherSecretValue1234"))));
}

TEST(S3OptionsTest, IncompleteCredentialsNameTheKeyButNeverTheSecret) {
  auto r = ParseS3Options({{"aws_secret_access_key", kSecret}}, NoEnv());
  ASSERT_THAT(r, IsErrorWith(StatusCode::kInvalid, "aws_secret_access_key"));
  EXPECT_THAT(r.status().ToString(), Not(HasSubstr(kSecret)));

  r = ParseS3Options({{"aws_access_key_id", "AKIDEXAMPLE"}}, NoEnv());
  EXPECT_THAT(r, IsErrorWith(StatusCode::kInvalid, "aws_secret_access_key"));

  r = ParseS3Options({{"aws_session_token", kToken}}, NoEnv());
  ASSERT_THAT(r, IsErrorWith(StatusCode::kInvalid, "aws_session_token"));
  EXPECT_THAT(r.status().ToString(), Not(HasSubstr(kToken)));
}

TEST(S3OptionsTest, EnvironmentFillsWhatTheOptionsLack) {
  auto env = FakeEnv({{"AWS_ACCESS_KEY_ID", "AKIDENV"},
                      {"AWS_SECRET_ACCESS_KEY", "envSecret"},
                      {"AWS_SESSION_TOKEN", "envToken"},
                      {"AWS_REGION", "eu-north-1"},
                      {"AWS_DEFAULT_REGION", "ignored-1"},
                      {"AWS_ENDPOINT_URL", "https://env.example/"},
                      {"AWS_VIRTUAL_HOSTED_STYLE_REQUEST", "true"},
                      {"OBJECT_STORE_CLIENT_MAX_RETRIES", "4"},
                      {"OBJECT_STORE_CLIENT_RETRY_TIMEOUT", "9"}});
  ASSERT_OK_AND_ASSIGN(S3Options o, ParseS3Options({}, env));
  EXPECT_EQ(o.credentials.access_key_id, "AKIDENV");
  EXPECT_EQ(o.credentials.secret_access_key, "envSecret");
  EXPECT_EQ(o.credentials.session_token, "envToken");
  EXPECT_EQ(o.region, "eu-north-1");
  EXPECT_EQ(o.endpoint, "https://env.example");
  EXPECT_TRUE(o.virtual_hosted_style);
  EXPECT_EQ(o.max_retries, 4);
  EXPECT_EQ(o.retry_timeout, 9s);

  // AWS_DEFAULT_REGION when AWS_REGION is unset; AWS_ENDPOINT before AWS_ENDPOINT_URL.
  ASSERT_OK_AND_ASSIGN(
      o, ParseS3Options({}, FakeEnv({{"AWS_DEFAULT_REGION", "sa-east-1"},
                                     {"AWS_ENDPOINT", "https://a.example"},
                                     {"AWS_ENDPOINT_URL", "https://b.example"}})));
  EXPECT_EQ(o.region, "sa-east-1");
  EXPECT_EQ(o.endpoint, "https://a.example");
}

TEST(S3OptionsTest, OptionsBeatTheEnvironment) {
  auto env = FakeEnv({{"AWS_REGION", "eu-north-1"},
                      {"AWS_ENDPOINT", "https://env.example"},
                      {"AWS_ALLOW_HTTP", "true"},
                      {"OBJECT_STORE_CLIENT_MAX_RETRIES", "4"}});
  ASSERT_OK_AND_ASSIGN(S3Options o,
                       ParseS3Options({{"aws_default_region", "us-east-2"},
                                       {"aws_endpoint", "https://opt.example"},
                                       {"allow_http", "false"},
                                       {"client_max_retries", "0"}},
                                      env));
  EXPECT_EQ(o.region, "us-east-2");
  EXPECT_EQ(o.endpoint, "https://opt.example");
  EXPECT_FALSE(o.allow_http);
  EXPECT_EQ(o.max_retries, 0);
}

TEST(S3OptionsTest, CredentialsComeFromTheEnvironmentOnlyAsAWhole) {
  auto env = FakeEnv({{"AWS_ACCESS_KEY_ID", "AKIDENV"},
                      {"AWS_SECRET_ACCESS_KEY", "envSecret"},
                      {"AWS_SESSION_TOKEN", "envToken"}});
  // A full set in the options: nothing from the environment, not even its token.
  ASSERT_OK_AND_ASSIGN(S3Options o,
                       ParseS3Options({{"aws_access_key_id", "AKIDOPT"},
                                       {"aws_secret_access_key", "optSecret"}},
                                      env));
  EXPECT_EQ(o.credentials.access_key_id, "AKIDOPT");
  EXPECT_EQ(o.credentials.secret_access_key, "optSecret");
  EXPECT_EQ(o.credentials.session_token, "");
  // A key id in the options never pairs with the environment's secret.
  auto r = ParseS3Options({{"aws_access_key_id", "AKIDOPT"}}, env);
  ASSERT_THAT(r, IsError(StatusCode::kInvalid));
  EXPECT_THAT(r.status().ToString(), Not(HasSubstr("envSecret")));
  // An incomplete environment is reported by variable name, without its value.
  r = ParseS3Options({}, FakeEnv({{"AWS_SECRET_ACCESS_KEY", "envSecret"}}));
  ASSERT_THAT(r, IsErrorWith(StatusCode::kInvalid, "AWS_SECRET_ACCESS_KEY"));
  EXPECT_THAT(r.status().ToString(), Not(HasSubstr("envSecret")));
  // A lone session token in the environment is no credential set: anonymous.
  ASSERT_OK_AND_ASSIGN(o,
                       ParseS3Options({}, FakeEnv({{"AWS_SESSION_TOKEN", "envToken"}})));
  EXPECT_TRUE(o.credentials.access_key_id.empty());
  EXPECT_TRUE(o.credentials.session_token.empty());
}

TEST(S3OptionsTest, MalformedEnvironmentValuesNameTheVariable) {
  EXPECT_THAT(ParseS3Options({}, FakeEnv({{"AWS_ALLOW_HTTP", "perhaps"}})),
              IsErrorWith(StatusCode::kInvalid, "AWS_ALLOW_HTTP"));
  EXPECT_THAT(ParseS3Options({}, FakeEnv({{"OBJECT_STORE_CLIENT_MAX_RETRIES", "x"}})),
              IsErrorWith(StatusCode::kInvalid, "OBJECT_STORE_CLIENT_MAX_RETRIES"));
  EXPECT_THAT(ParseS3Options({}, FakeEnv({{"AWS_ENDPOINT", "http://h:1"}})),
              IsErrorWith(StatusCode::kInvalid, "allow_http"));
}

TEST(S3OptionsTest, ToStringRedacts) {
  ASSERT_OK_AND_ASSIGN(S3Options o,
                       ParseS3Options({{"aws_access_key_id", "AKIDEXAMPLE"},
                                       {"aws_secret_access_key", kSecret},
                                       {"aws_session_token", kToken},
                                       {"aws_endpoint", "http://127.0.0.1:7480"},
                                       {"allow_http", "true"}},
                                      NoEnv()));
  const std::string s = o.ToString();
  EXPECT_THAT(s, HasSubstr("region=us-east-1"));
  EXPECT_THAT(s, HasSubstr("endpoint=http://127.0.0.1:7480"));
  EXPECT_THAT(s, HasSubstr("path-style"));
  EXPECT_THAT(s, HasSubstr("credentials=AKID\u2026"));
  EXPECT_THAT(s, Not(HasSubstr("AKIDEXAMPLE")));
  EXPECT_THAT(s, Not(HasSubstr(kSecret)));
  EXPECT_THAT(s, Not(HasSubstr(kToken)));
  // Not even a fragment of the secret (e.g. its first characters) leaks.
  EXPECT_THAT(s, Not(HasSubstr("wJalr")));

  ASSERT_OK_AND_ASSIGN(o, ParseS3Options({}, NoEnv()));
  EXPECT_THAT(o.ToString(), HasSubstr("credentials=<none>"));
}

TEST(ParseDurationOptionTest, Forms) {
  EXPECT_EQ(*ParseDurationOption("k", "30"), 30s);
  EXPECT_EQ(*ParseDurationOption("k", "0.5"), 500ms);
  EXPECT_EQ(*ParseDurationOption("k", "500ms"), 500ms);
  EXPECT_EQ(*ParseDurationOption("k", "30s"), 30s);
  EXPECT_EQ(*ParseDurationOption("k", "2m"), 2min);
  EXPECT_EQ(*ParseDurationOption("k", "1h"), 1h);
  EXPECT_EQ(*ParseDurationOption("k", " 10 S "), 10s);
  EXPECT_EQ(*ParseDurationOption("k", "0"), 0ms);
  for (const char* bad :
       {"", "s", "-1", "1.2.3", "10 years", "1e3", "abc", ".", "1h30m"}) {
    SCOPED_TRACE(bad);
    EXPECT_THAT(ParseDurationOption("my_key", bad),
                IsErrorWith(StatusCode::kInvalid, "my_key"));
  }
}

TEST(ParseBoolOptionTest, Forms) {
  for (const char* t : {"true", "True", "1", "yes", "YES", "on"})
    EXPECT_TRUE(*ParseBoolOption("k", t));
  for (const char* f : {"false", "FALSE", "0", "no", "off"})
    EXPECT_FALSE(*ParseBoolOption("k", f));
  EXPECT_THAT(ParseBoolOption("flag", "2"), IsErrorWith(StatusCode::kInvalid, "flag"));
  EXPECT_THAT(ParseBoolOption("flag", ""), IsErrorWith(StatusCode::kInvalid, "flag"));
}

}  // namespace
}  // namespace lance::io::s3
