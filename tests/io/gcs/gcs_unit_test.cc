// SPDX-License-Identifier: Apache-2.0
// The GCS store's offline pieces: options from Lance's keys, gs:// URIs through the
// registry, credentials files and the service-account JWT (verified with the public key),
// redaction, JSON API answers and the error mapping. No server needed (tests/gcs has
// those).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "io/gcs/gcs_client.h"
#include "io/gcs/gcs_util.h"
#include "lance/io/gcs_credentials.h"
#include "lance/io/gcs_object_store.h"
#include "lance/io/http_error.h"
#include "lance/io/object_store_registry.h"
#include "tests/io/gcs/jwt_testing.h"
#include "tests/testing/fake_env.h"
#include "tests/testing/matchers.h"

namespace lance::io::gcs {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)

using ::lance::testing::FakeEnv;

TEST(GcsOptionsTest, LanceAndObjectStoreKeys) {
  ASSERT_OK_AND_ASSIGN(GcsOptions o, ParseGcsOptions({}));
  EXPECT_EQ(o.base_url, "https://storage.googleapis.com");
  EXPECT_FALSE(o.allow_http);
  EXPECT_EQ(o.upload_chunk_size, 8 << 20);

  ASSERT_OK_AND_ASSIGN(o, ParseGcsOptions({{"google_storage_token", " tok "},
                                           {"google_base_url", "http://127.0.0.1:4443/"},
                                           {"allow_http", "true"},
                                           {"google_service_account", "/keys/sa.json"},
                                           {"client_max_retries", "4"},
                                           {"timeout", "30s"},
                                           {"lance_cpp_upload_chunk_size", "524288"},
                                           {"lance_cpp_google_token_uri", "http://t/tok"},
                                           {"unrelated_key", "ignored"}}));
  EXPECT_EQ(o.bearer_token, "tok");
  EXPECT_EQ(o.base_url, "http://127.0.0.1:4443");
  EXPECT_TRUE(o.allow_http);
  EXPECT_EQ(o.service_account_path, "/keys/sa.json");
  EXPECT_EQ(o.max_retries, 4);
  EXPECT_EQ(o.request_timeout, std::chrono::seconds(30));
  EXPECT_EQ(o.upload_chunk_size, 524288);
  EXPECT_EQ(o.token_uri, "http://t/tok");

  // object_store's spellings, any case.
  ASSERT_OK_AND_ASSIGN(o, ParseGcsOptions({{"GOOGLE_BEARER_TOKEN", "t2"},
                                           {"service_account_key", "{}"},
                                           {"base_url", "https://gcs.example"},
                                           {"application_credentials", "/adc.json"},
                                           {"google_skip_signature", "yes"}}));
  EXPECT_EQ(o.bearer_token, "t2");
  EXPECT_EQ(o.service_account_key, "{}");
  EXPECT_EQ(o.base_url, "https://gcs.example");
  EXPECT_EQ(o.application_credentials, "/adc.json");
  EXPECT_TRUE(o.skip_signature);
  ASSERT_OK_AND_ASSIGN(o, ParseGcsOptions({{"service_account_path", "/p"}}));
  EXPECT_EQ(o.service_account_path, "/p");
}

TEST(GcsOptionsTest, EnvironmentFillsWhatOptionsLeaveOut) {
  ASSERT_OK_AND_ASSIGN(
      GcsOptions o,
      ParseGcsOptions({{"allow_http", "1"}},
                      FakeEnv({{"STORAGE_EMULATOR_HOST", "localhost:9023"},
                               {"GOOGLE_APPLICATION_CREDENTIALS", "/env/adc.json"},
                               {"GOOGLE_SERVICE_ACCOUNT", "/env/sa.json"}})));
  EXPECT_EQ(o.base_url, "http://localhost:9023");
  EXPECT_EQ(o.application_credentials, "/env/adc.json");
  EXPECT_EQ(o.service_account_path, "/env/sa.json");
  // Options win over the environment.
  ASSERT_OK_AND_ASSIGN(o, ParseGcsOptions({{"google_base_url", "https://a.example"}},
                                          FakeEnv({{"STORAGE_EMULATOR_HOST", "b:1"}})));
  EXPECT_EQ(o.base_url, "https://a.example");
}

TEST(GcsOptionsTest, MalformedValuesAreInvalidWithoutSecrets) {
  EXPECT_THAT(ParseGcsOptions({{"google_base_url", "http://127.0.0.1:4443"}}),
              IsErrorWith(StatusCode::kInvalid, "allow_http"));
  EXPECT_THAT(ParseGcsOptions({{"google_base_url", "ftp://x"}}),
              IsError(StatusCode::kInvalid));
  EXPECT_THAT(ParseGcsOptions({{"google_base_url", "https://user:pw@host"}}),
              IsErrorWith(StatusCode::kInvalid, "user info"));
  EXPECT_THAT(ParseGcsOptions({{"lance_cpp_upload_chunk_size", "300000"}}),
              IsErrorWith(StatusCode::kInvalid, "256 KiB"));
  EXPECT_THAT(ParseGcsOptions({{"client_max_retries", "many"}}),
              IsError(StatusCode::kInvalid));
  EXPECT_THAT(ParseGcsOptions({{"google_service_account", "/a"},
                               {"google_service_account_key", "{}"}}),
              IsErrorWith(StatusCode::kInvalid, "give one"));
  // Two spellings of the token with different values: named, never shown.
  auto conflict = ParseGcsOptions(
      {{"google_storage_token", "secret-one"}, {"google_bearer_token", "secret-two"}});
  ASSERT_THAT(conflict, IsError(StatusCode::kInvalid));
  EXPECT_THAT(conflict.status().message(), HasSubstr("google_storage_token"));
  EXPECT_THAT(conflict.status().message(), Not(HasSubstr("secret-one")));
  EXPECT_THAT(conflict.status().message(), Not(HasSubstr("secret-two")));
}

TEST(GcsOptionsTest, ToStringNeverShowsATokenOrKey) {
  ASSERT_OK_AND_ASSIGN(GcsOptions o,
                       ParseGcsOptions({{"google_storage_token", "ya29.SECRET-TOKEN"},
                                        {"google_service_account_key",
                                         R"({"private_key":"-----BEGIN SECRET"})"}}));
  const std::string text = o.ToString();
  EXPECT_THAT(text, HasSubstr("token=<redacted>"));
  EXPECT_THAT(text, HasSubstr("service_account_key=<redacted>"));
  EXPECT_THAT(text, Not(HasSubstr("SECRET")));
  // The storage-option keys are secret by the one rule (registry cache keys, CLI).
  for (const char* key :
       {"google_storage_token", "google_bearer_token", "google_service_account_key",
        "service_account_key", "google_application_credentials"}) {
    EXPECT_TRUE(IsSecretOptionKey(key)) << key;
  }
}

TEST(GcsUriTest, GsUrisResolveToAGcsStorePerBucket) {
  ObjectStoreRegistry registry;
  ASSERT_OK(RegisterBuiltinObjectStores(&registry));
  EXPECT_TRUE(registry.IsRegistered("gs"));
  const StorageOptions options = {{"google_base_url", "http://127.0.0.1:1"},
                                  {"allow_http", "true"},
                                  {"google_storage_token", "ya29.unit-token"}};
  ASSERT_OK_AND_ASSIGN(auto loc, registry.Resolve("gs://my-bucket/path/to/ds.lance",
                                                  StorageAccess{options}));
  EXPECT_EQ(loc.path, "path/to/ds.lance");
  EXPECT_EQ(loc.store->uri(), "gs://my-bucket");
  EXPECT_EQ(loc.store->root(), "my-bucket");
  EXPECT_EQ(loc.store->ObjectUri("a/b"), "gs://my-bucket/a/b");
  EXPECT_TRUE(loc.store->supports_conditional_put());
  EXPECT_FALSE(loc.store->has_directories());
  EXPECT_FALSE(loc.store->is_local());
  EXPECT_THAT(loc.store->ToString(), Not(HasSubstr("ya29.unit-token")));
  // Same bucket and options: the same store; another bucket: another.
  ASSERT_OK_AND_ASSIGN(auto again,
                       registry.Resolve("gs://my-bucket/other", StorageAccess{options}));
  EXPECT_EQ(again.store, loc.store);
  ASSERT_OK_AND_ASSIGN(auto other,
                       registry.Resolve("gs://bucket-2/x", StorageAccess{options}));
  EXPECT_NE(other.store, loc.store);
  // A malformed bucket name is refused before any request.
  EXPECT_THAT(registry.Resolve("gs://bad%bucket/x", StorageAccess{options}),
              IsError(StatusCode::kInvalid));
}

TEST(GcsUtilTest, PercentEncodingAndTimes) {
  EXPECT_EQ(internal::PercentEncode("a/b c.lance~_-"), "a%2Fb%20c.lance~_-");
  EXPECT_EQ(internal::PercentEncode("ü?&="), "%C3%BC%3F%26%3D");
  EXPECT_EQ(internal::ParseRfc3339Ms("1970-01-01T00:00:01.5Z"), 1500);
  EXPECT_EQ(internal::ParseRfc3339Ms("2026-12-06T09:35:33.770429Z"), 1796549733770);
  EXPECT_EQ(internal::ParseRfc3339Ms("1970-01-01T01:00:00+01:00"), 0);
  EXPECT_EQ(internal::ParseRfc3339Ms("2026-12-06 09:35:33"), std::nullopt);
  EXPECT_EQ(internal::ParseRfc3339Ms("garbage"), std::nullopt);
}

TEST(GcsUtilTest, ParsesObjectsListingsAndRewrites) {
  ASSERT_OK_AND_ASSIGN(auto obj, internal::ParseObjectResource(
                                     R"({"kind":"storage#object","name":"a/b","size":"42",
                                         "generation":"1700000000000001",
                                         "updated":"1970-01-01T00:00:02Z","md5Hash":"xyz"})"));
  EXPECT_EQ(obj.name, "a/b");
  EXPECT_EQ(obj.size, 42);
  EXPECT_EQ(obj.generation, 1700000000000001);
  EXPECT_EQ(obj.updated_ms, 2000);
  EXPECT_EQ(obj.md5_base64, "xyz");
  EXPECT_THAT(internal::ParseObjectResource(R"({"name":"x"})"),
              IsError(StatusCode::kInvalid));
  EXPECT_THAT(internal::ParseObjectResource("not json"), IsError(StatusCode::kInvalid));

  ASSERT_OK_AND_ASSIGN(auto page, internal::ParseListPage(
                                      R"({"items":[{"name":"p/a","size":"1"}],
                                          "prefixes":["p/b/"],"nextPageToken":"tok"})"));
  ASSERT_EQ(page.items.size(), 1u);
  EXPECT_EQ(page.items[0].name, "p/a");
  EXPECT_THAT(page.prefixes, ElementsAre("p/b/"));
  EXPECT_EQ(page.next_page_token, "tok");
  ASSERT_OK_AND_ASSIGN(page, internal::ParseListPage(R"({"kind":"storage#objects"})"));
  EXPECT_TRUE(page.items.empty());

  ASSERT_OK_AND_ASSIGN(auto done, internal::ParseRewriteProgress(R"({"done":true})"));
  EXPECT_TRUE(done.done);
  ASSERT_OK_AND_ASSIGN(
      auto more, internal::ParseRewriteProgress(R"({"done":false,"rewriteToken":"r"})"));
  EXPECT_EQ(more.rewrite_token, "r");
  EXPECT_THAT(internal::ParseRewriteProgress(R"({"done":false})"),
              IsError(StatusCode::kInvalid));

  ASSERT_OK_AND_ASSIGN(auto token, internal::ParseTokenAnswer(
                                       R"({"access_token":"ya29.x","expires_in":3599})"));
  EXPECT_EQ(token.access_token, "ya29.x");
  EXPECT_EQ(token.expires_in_s, 3599);
  auto no_token = internal::ParseTokenAnswer(R"({"secret_thing":"do-not-echo"})");
  EXPECT_THAT(no_token, IsError(StatusCode::kInvalid));
  EXPECT_THAT(no_token.status().message(), Not(HasSubstr("do-not-echo")));
}

TEST(GcsErrorTest, StatusesMapToCodesAndMessagesNameTheObject) {
  using internal::ErrorContext;
  const std::string body =
      R"({"error":{"code":404,"message":"No such object: b/k","errors":[{"reason":"notFound"}]}})";
  internal::GcsError err = internal::ParseErrorBody(body, 404);
  EXPECT_EQ(err.reason, "notFound");
  EXPECT_EQ(err.message, "No such object: b/k");
  err.request_id = "up-123";
  Status st = internal::MakeHttpError("GetObjectMedia", "gs://b/k",
                                      ErrorContext::kDefault, err, 1, 0.1);
  EXPECT_TRUE(st.IsNotFound());
  EXPECT_EQ(
      st.message(),
      "GCS GetObjectMedia of gs://b/k: HTTP 404 notFound (request id up-123): No such "
      "object: b/k");
  const auto* detail = st.detail_as<HttpErrorDetail>();
  ASSERT_NE(detail, nullptr);
  EXPECT_EQ(detail->http_status(), 404);
  EXPECT_EQ(detail->service_code(), "notFound");

  auto code = [](int status, ErrorContext ctx = ErrorContext::kDefault) {
    internal::GcsError e;
    e.http_status = status;
    return internal::MapErrorCode(e, ctx);
  };
  EXPECT_EQ(code(412, ErrorContext::kConditionalCreate), StatusCode::kAlreadyExists);
  EXPECT_EQ(code(412), StatusCode::kIOError);
  EXPECT_EQ(code(404, ErrorContext::kPinnedRead), StatusCode::kIOError);
  EXPECT_EQ(code(401), StatusCode::kUnauthorized);
  EXPECT_EQ(code(403), StatusCode::kForbidden);
  EXPECT_EQ(code(409), StatusCode::kConflict);
  EXPECT_EQ(code(400), StatusCode::kInvalid);
  for (int retryable : {408, 429, 500, 502, 503, 504}) {
    EXPECT_TRUE(internal::IsRetryableStatus(retryable)) << retryable;
    EXPECT_EQ(code(retryable), StatusCode::kUnavailable) << retryable;
  }
  EXPECT_FALSE(internal::IsRetryableStatus(401));
  EXPECT_FALSE(internal::IsRetryableStatus(412));

  Status retried =
      internal::MakeHttpError("InsertObject", "gs://b/k", ErrorContext::kDefault,
                              internal::ParseErrorBody("", 503), 4, 1.25);
  EXPECT_TRUE(retried.retryable());
  EXPECT_THAT(retried.message(), HasSubstr(", after 4 attempts in 1.2 s"));
  Status exists = internal::MakeHttpError("InsertObject", "gs://b/k",
                                          ErrorContext::kConditionalCreate,
                                          internal::ParseErrorBody("{}", 412), 1, 0);
  EXPECT_TRUE(exists.IsAlreadyExists());
  EXPECT_THAT(exists.message(), HasSubstr("already exists"));
  // OAuth endpoints' errors, and long bodies cut short.
  internal::GcsError oauth = internal::ParseErrorBody(
      R"({"error":"invalid_grant","error_description":"Invalid JWT Signature."})", 400);
  EXPECT_EQ(oauth.reason, "invalid_grant");
  EXPECT_EQ(oauth.message, "Invalid JWT Signature.");
  EXPECT_LE(internal::ParseErrorBody(std::string(5000, 'x'), 500).message.size(), 303u);
}

TEST(GoogleCredentialsTest, ParsesKeysAndRedactsThem) {
  const testing::RsaKeyPair key = testing::GenerateRsaKeyPair();
  ASSERT_FALSE(key.private_pem.empty());
  ASSERT_OK_AND_ASSIGN(
      GoogleCredentialsFile sa,
      ParseGoogleCredentialsFile(testing::ServiceAccountJson(
          key, "sa@p.iam.gserviceaccount.com", "http://127.0.0.1:1/token")));
  EXPECT_EQ(sa.type, GoogleCredentialsFile::Type::kServiceAccount);
  EXPECT_EQ(sa.client_email, "sa@p.iam.gserviceaccount.com");
  EXPECT_EQ(sa.token_uri, "http://127.0.0.1:1/token");
  const std::string text = sa.ToString();
  EXPECT_THAT(text, HasSubstr("sa@p.iam.gserviceaccount.com"));
  EXPECT_THAT(text, Not(HasSubstr("PRIVATE KEY")));
  EXPECT_THAT(text, Not(HasSubstr("test-key-id-0123")));  // shown as "test…"

  ASSERT_OK_AND_ASSIGN(
      GoogleCredentialsFile user,
      ParseGoogleCredentialsFile(R"({"type":"authorized_user","client_id":"cid",
                                     "client_secret":"SECRET-S","refresh_token":"SECRET-R"})"));
  EXPECT_EQ(user.type, GoogleCredentialsFile::Type::kAuthorizedUser);
  EXPECT_EQ(user.token_uri, "https://oauth2.googleapis.com/token");
  EXPECT_THAT(user.ToString(), Not(HasSubstr("SECRET")));

  // object_store's emulator key: no real key, a base URL and no OAuth.
  ASSERT_OK_AND_ASSIGN(
      GoogleCredentialsFile emulator,
      ParseGoogleCredentialsFile(
          R"({"gcs_base_url":"http://localhost:4443","disable_oauth":true,
                               "client_email":"","private_key":"","private_key_id":""})"));
  EXPECT_TRUE(emulator.disable_oauth);
  EXPECT_EQ(emulator.gcs_base_url, "http://localhost:4443");

  EXPECT_THAT(ParseGoogleCredentialsFile(R"({"type":"service_account"})"),
              IsErrorWith(StatusCode::kInvalid, "client_email and private_key"));
  EXPECT_THAT(ParseGoogleCredentialsFile(R"({"type":"external_account"})"),
              IsErrorWith(StatusCode::kInvalid, "not supported"));
  EXPECT_THAT(ParseGoogleCredentialsFile("[1,2"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(ReadGoogleCredentialsFile("/nonexistent/key.json"),
              IsErrorWith(StatusCode::kIOError, "/nonexistent/key.json"));
}

TEST(GoogleCredentialsTest, JwtIsSignedWithTheKeyAndCarriesTheClaims) {
  const testing::RsaKeyPair key = testing::GenerateRsaKeyPair();
  ASSERT_OK_AND_ASSIGN(
      GoogleCredentialsFile sa,
      ParseGoogleCredentialsFile(testing::ServiceAccountJson(
          key, "sa@p.iam.gserviceaccount.com", "https://tok.example/token")));
  const auto now =
      std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));
  ASSERT_OK_AND_ASSIGN(std::string jwt, BuildServiceAccountJwt(sa, kReadWriteScope, now));
  auto verified = testing::VerifyRs256Jwt(jwt, key.public_pem);
  ASSERT_TRUE(verified.has_value()) << "the signature does not verify";
  EXPECT_EQ(verified->header["alg"], "RS256");
  EXPECT_EQ(verified->header["typ"], "JWT");
  EXPECT_EQ(verified->header["kid"], "test-key-id-0123");
  EXPECT_EQ(verified->claims["iss"], "sa@p.iam.gserviceaccount.com");
  EXPECT_EQ(verified->claims["scope"],
            "https://www.googleapis.com/auth/devstorage.read_write");
  EXPECT_EQ(verified->claims["aud"], "https://tok.example/token");
  EXPECT_EQ(verified->claims["iat"], 1'800'000'000);
  EXPECT_EQ(verified->claims["exp"], 1'800'003'600);
  // Another key's public half does not verify it; a tampered claim does not either.
  const testing::RsaKeyPair other = testing::GenerateRsaKeyPair();
  EXPECT_FALSE(testing::VerifyRs256Jwt(jwt, other.public_pem).has_value());
  std::string tampered = jwt;
  tampered[jwt.find('.') + 5] ^= 1;
  EXPECT_FALSE(testing::VerifyRs256Jwt(tampered, key.public_pem).has_value());

  // A malformed key: Invalid, and the message does not echo it.
  sa.private_key =
      "-----BEGIN PRIVATE KEY-----\nNOT-A-KEY-SECRET\n-----END PRIVATE KEY-----\n";
  auto bad = BuildServiceAccountJwt(sa, kReadWriteScope, now);
  EXPECT_THAT(bad, IsError(StatusCode::kInvalid));
  EXPECT_THAT(bad.status().message(), Not(HasSubstr("NOT-A-KEY-SECRET")));
}

TEST(GoogleCredentialsTest, SourcesFromOptions) {
  ASSERT_OK_AND_ASSIGN(GcsOptions o,
                       ParseGcsOptions({{"google_storage_token", "ya29.static"}}));
  ASSERT_OK_AND_ASSIGN(auto source, MakeGcsCredentialsSource(o));
  ASSERT_OK_AND_ASSIGN(auto creds, source->Current());
  EXPECT_EQ(BearerTokenOf(*creds), "ya29.static");
  EXPECT_THAT(source->ToString(), Not(HasSubstr("ya29.static")));

  // skip_signature wins; an emulator key with disable_oauth sends no token.
  ASSERT_OK_AND_ASSIGN(o, ParseGcsOptions({{"google_storage_token", "ya29.static"},
                                           {"google_skip_signature", "true"}}));
  ASSERT_OK_AND_ASSIGN(source, MakeGcsCredentialsSource(o));
  ASSERT_OK_AND_ASSIGN(creds, source->Current());
  EXPECT_EQ(BearerTokenOf(*creds), "");
  ASSERT_OK_AND_ASSIGN(
      o, ParseGcsOptions({{"google_service_account_key", R"({"disable_oauth":true})"}}));
  ASSERT_OK_AND_ASSIGN(source, MakeGcsCredentialsSource(o));
  ASSERT_OK_AND_ASSIGN(creds, source->Current());
  EXPECT_EQ(BearerTokenOf(*creds), "");

  // A real key becomes an OAuth source; its http token endpoint needs allow_http.
  const testing::RsaKeyPair key = testing::GenerateRsaKeyPair();
  const std::string json = testing::ServiceAccountJson(
      key, "sa@p.iam.gserviceaccount.com", "http://127.0.0.1:1/t");
  ASSERT_OK_AND_ASSIGN(o, ParseGcsOptions({{"google_service_account_key", json}}));
  EXPECT_THAT(MakeGcsCredentialsSource(o),
              IsErrorWith(StatusCode::kInvalid, "allow_http"));
  ASSERT_OK_AND_ASSIGN(
      o, ParseGcsOptions({{"google_service_account_key", json}, {"allow_http", "true"}}));
  ASSERT_OK_AND_ASSIGN(source, MakeGcsCredentialsSource(o));
  EXPECT_THAT(source->ToString(), HasSubstr("sa@p.iam.gserviceaccount.com"));
  EXPECT_THAT(source->ToString(), Not(HasSubstr("PRIVATE")));
  EXPECT_THAT(source->id(), HasSubstr("google-oauth:sa@p.iam.gserviceaccount.com"));
  // Nothing listens on port 1: the fetch fails, naming the endpoint, not the key.
  auto failed = source->Current();
  EXPECT_THAT(failed, IsError(StatusCode::kUnavailable));
  EXPECT_THAT(failed.status().message(), HasSubstr("http://127.0.0.1:1/t"));
  EXPECT_THAT(failed.status().message(), Not(HasSubstr("PRIVATE")));
}

}  // namespace
}  // namespace lance::io::gcs
