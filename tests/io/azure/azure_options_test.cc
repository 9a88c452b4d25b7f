// SPDX-License-Identifier: Apache-2.0
// Azure option parsing, location forms, error mapping and response bodies, offline.
#include "lance/io/azure_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "io/azure/errors.h"
#include "io/azure/responses.h"
#include "io/azure/sas.h"
#include "lance/io/azure_object_store.h"
#include "lance/io/http/http_client.h"
#include "lance/io/http_error.h"
#include "lance/io/uri.h"
#include "tests/testing/fake_env.h"
#include "tests/testing/matchers.h"

namespace lance::io {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)

using ::lance::testing::FakeEnv;

TEST(AzureOptionsTest, AccountKeyAndDefaults) {
  ASSERT_OK_AND_ASSIGN(AzureOptions o,
                       ParseAzureOptions({{"azure_storage_account_name", "acct"},
                                          {"azure_storage_account_key", "a2V5"}}));
  EXPECT_EQ(o.account, "acct");
  EXPECT_EQ(o.endpoint, "https://acct.blob.core.windows.net");
  EXPECT_EQ(o.credentials.account_key, "a2V5");
  EXPECT_FALSE(o.use_emulator);
  EXPECT_FALSE(o.allow_http);
  EXPECT_EQ(o.max_retries, 10);
  EXPECT_EQ(o.block_size, 16 << 20);
  // Lance's short aliases.
  ASSERT_OK_AND_ASSIGN(o, ParseAzureOptions({{"account_name", "acct"},
                                             {"sas_token", "sv=1&sig=x"},
                                             {"timeout", "30s"},
                                             {"client_max_retries", "3"}}));
  EXPECT_EQ(o.credentials.sas_token, "sv=1&sig=x");
  EXPECT_EQ(o.request_timeout, std::chrono::seconds(30));
  EXPECT_EQ(o.max_retries, 3);
  ASSERT_OK_AND_ASSIGN(o, ParseAzureOptions({{"account_name", "acct"},
                                             {"azure_storage_token", "bearer"}}));
  EXPECT_EQ(o.credentials.bearer_token, "bearer");
}

TEST(AzureOptionsTest, Emulator) {
  ASSERT_OK_AND_ASSIGN(AzureOptions o,
                       ParseAzureOptions({{"azure_storage_use_emulator", "true"}}));
  EXPECT_EQ(o.account, "devstoreaccount1");
  EXPECT_EQ(o.endpoint, "http://127.0.0.1:10000/devstoreaccount1");
  EXPECT_EQ(o.credentials.account_key, kAzureEmulatorKey);
  EXPECT_TRUE(o.allow_http);
  // object_store's environment variable moves it; an explicit endpoint wins.
  ASSERT_OK_AND_ASSIGN(
      o, ParseAzureOptions(
             {{"use_emulator", "1"}},
             FakeEnv({{"AZURITE_BLOB_STORAGE_URL", "http://127.0.0.1:10999"}})));
  EXPECT_EQ(o.endpoint, "http://127.0.0.1:10999/devstoreaccount1");
  ASSERT_OK_AND_ASSIGN(
      o, ParseAzureOptions(
             {{"azure_storage_use_emulator", "true"},
              {"azure_storage_endpoint", "http://127.0.0.1:10123/devstoreaccount1/"}}));
  EXPECT_EQ(o.endpoint, "http://127.0.0.1:10123/devstoreaccount1");
  // A SAS replaces the well-known key.
  ASSERT_OK_AND_ASSIGN(o, ParseAzureOptions({{"azure_storage_use_emulator", "true"},
                                             {"azure_storage_sas_key", "sv=1&sig=x"}}));
  EXPECT_TRUE(o.credentials.account_key.empty());
}

TEST(AzureOptionsTest, Mistakes) {
  // No account.
  EXPECT_THAT(ParseAzureOptions({{"azure_storage_account_key", "a2V5"}}),
              IsError(StatusCode::kInvalid));
  // http without allow_http.
  auto http = ParseAzureOptions(
      {{"account_name", "a"}, {"azure_storage_endpoint", "http://127.0.0.1:1/a"}});
  ASSERT_THAT(http, IsError(StatusCode::kInvalid));
  EXPECT_THAT(http.status().message(), HasSubstr("allow_http"));
  EXPECT_OK(ParseAzureOptions({{"account_name", "a"},
                               {"azure_endpoint", "http://127.0.0.1:1/a"},
                               {"allow_http", "true"}})
                .status());
  // Aliases that disagree; the message never shows a secret value.
  auto conflict =
      ParseAzureOptions({{"account_name", "a"}, {"azure_storage_account_name", "b"}});
  EXPECT_THAT(conflict, IsError(StatusCode::kInvalid));
  auto secrets = ParseAzureOptions(
      {{"account_name", "a"}, {"azure_client_secret", "very-secret-value"}});
  ASSERT_THAT(secrets, IsError(StatusCode::kInvalid));
  EXPECT_THAT(secrets.status().message(), Not(HasSubstr("very-secret-value")));
  EXPECT_THAT(ParseAzureOptions({{"account_name", "a"}, {"lance_cpp_block_size", "10"}}),
              IsError(StatusCode::kInvalid));
  EXPECT_THAT(ParseAzureOptions({{"account_name", "bad_name!"}}),
              IsError(StatusCode::kInvalid));
}

TEST(AzureOptionsTest, ServicePrincipalAndToString) {
  ASSERT_OK_AND_ASSIGN(
      AzureOptions o,
      ParseAzureOptions({{"azure_storage_account_name", "acct"},
                         {"azure_client_id", "cid"},
                         {"azure_client_secret", "s3cr3t-value"},
                         {"azure_tenant_id", "tid"},
                         {"azure_authority_host", "https://login.example.test/"}}));
  EXPECT_EQ(o.authority_host, "https://login.example.test");
  const std::string shown = o.ToString();
  EXPECT_THAT(shown, HasSubstr("client-secret(client_id=cid, tenant=tid)"));
  EXPECT_THAT(shown, Not(HasSubstr("s3cr3t-value")));
  o.credentials.sas_token = "sv=1&sig=SECRETSIG";
  EXPECT_THAT(o.ToString(), Not(HasSubstr("SECRETSIG")));
  // Environment fills in what the options leave out.
  ASSERT_OK_AND_ASSIGN(
      o, ParseAzureOptions({}, FakeEnv({{"AZURE_STORAGE_ACCOUNT_NAME", "envacct"}})));
  EXPECT_EQ(o.account, "envacct");
  // The location's account (abfss) when nothing else names one.
  ASSERT_OK_AND_ASSIGN(o, ParseAzureOptions({}, nullptr, "fromuri"));
  EXPECT_EQ(o.endpoint, "https://fromuri.blob.core.windows.net");
}

TEST(AzureUriTest, LocationForms) {
  ASSERT_OK_AND_ASSIGN(Uri az, ParseUri("az://container/a/b.lance"));
  EXPECT_EQ(az.scheme, "az");
  EXPECT_EQ(az.authority, "container");
  EXPECT_EQ(az.path, "a/b.lance");
  ASSERT_OK_AND_ASSIGN(Uri abfss,
                       ParseUri("abfss://container@acct.dfs.core.windows.net/a/b.lance"));
  EXPECT_EQ(abfss.scheme, "abfss");
  EXPECT_EQ(abfss.authority, "container@acct.dfs.core.windows.net");
  EXPECT_EQ(abfss.path, "a/b.lance");
  EXPECT_EQ(abfss.ToString(), "abfss://container@acct.dfs.core.windows.net/a/b.lance");
  // user:password@ stays refused, for abfss too, without echoing it.
  for (const char* bad : {"abfss://user:pw@acct.dfs.core.windows.net/x",
                          "az://user@container/x", "s3://key:secret@bucket/x"}) {
    auto parsed = ParseUri(bad);
    ASSERT_THAT(parsed, IsError(StatusCode::kInvalid)) << bad;
    EXPECT_THAT(parsed.status().message(), Not(HasSubstr("pw@"))) << bad;
  }
  ObjectStoreRegistry registry;
  ASSERT_OK(RegisterBuiltinObjectStores(&registry));
  for (const char* scheme : {"az", "azure", "abfs", "abfss"}) {
    EXPECT_TRUE(registry.IsRegistered(scheme)) << scheme;
  }
}

TEST(AzureErrorsTest, ClassificationAndMapping) {
  using azure::AzureError;
  using azure::ErrorContext;
  using azure::RetryClass;
  auto err = [](int status, std::string code, std::string message = "") {
    return AzureError{status, std::move(code), std::move(message), "req-1"};
  };
  EXPECT_EQ(ClassifyAzureError(err(503, "ServerBusy")), RetryClass::kRetry);
  EXPECT_EQ(ClassifyAzureError(err(500, "InternalError")), RetryClass::kRetry);
  EXPECT_EQ(ClassifyAzureError(err(429, "")), RetryClass::kRetry);
  EXPECT_EQ(ClassifyAzureError(err(401, "InvalidAuthenticationInfo",
                                   "Lifetime validation failed. The token is expired.")),
            RetryClass::kRefreshCredentials);
  EXPECT_EQ(ClassifyAzureError(err(403, "AuthenticationFailed",
                                   "Signature not valid in the specified time frame")),
            RetryClass::kRefreshCredentials);
  EXPECT_EQ(ClassifyAzureError(err(403, "AuthorizationFailure")),
            RetryClass::kMaybeRefreshCredentials);
  EXPECT_EQ(ClassifyAzureError(err(403, "")), RetryClass::kMaybeRefreshCredentials);
  EXPECT_EQ(ClassifyAzureError(err(403, "AuthorizationPermissionMismatch")),
            RetryClass::kFinal);
  EXPECT_EQ(ClassifyAzureError(err(404, "BlobNotFound")), RetryClass::kFinal);

  EXPECT_EQ(MapAzureError(err(404, "BlobNotFound"), ErrorContext::kDefault),
            StatusCode::kNotFound);
  EXPECT_EQ(
      MapAzureError(err(409, "BlobAlreadyExists"), ErrorContext::kConditionalCreate),
      StatusCode::kAlreadyExists);
  EXPECT_EQ(MapAzureError(err(412, "ConditionNotMet"), ErrorContext::kConditionalCreate),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(MapAzureError(err(412, "ConditionNotMet"), ErrorContext::kPinnedRead),
            StatusCode::kIOError);
  EXPECT_EQ(
      MapAzureError(err(403, "AuthorizationPermissionMismatch"), ErrorContext::kDefault),
      StatusCode::kForbidden);
  EXPECT_EQ(MapAzureError(err(403, "AuthenticationFailed"), ErrorContext::kDefault),
            StatusCode::kUnauthorized);
  EXPECT_EQ(MapAzureError(err(401, "InvalidAuthenticationInfo", "token is expired"),
                          ErrorContext::kDefault),
            StatusCode::kTokenExpired);
  EXPECT_EQ(MapAzureError(err(503, "ServerBusy"), ErrorContext::kDefault),
            StatusCode::kUnavailable);
  EXPECT_EQ(MapAzureError(err(409, "LeaseIdMissing"), ErrorContext::kDefault),
            StatusCode::kConflict);

  Status st = MakeAzureHttpError(
      "GetBlob", "az://c/k", ErrorContext::kDefault,
      err(404, "BlobNotFound", "The specified blob does not exist."), 3, 1.5);
  EXPECT_EQ(st.message(),
            "Azure GetBlob of az://c/k: HTTP 404 BlobNotFound (request id req-1): The "
            "specified blob does not exist., after 3 attempts in 1.5 s");
  const auto* detail = st.detail_as<HttpErrorDetail>();
  ASSERT_NE(detail, nullptr);
  EXPECT_EQ(detail->service_code(), "BlobNotFound");
}

TEST(AzureResponsesTest, ErrorBodiesAreShortAndRedacted) {
  const std::string body =
      "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"utf-8\"?><Error>"
      "<Code>AuthenticationFailed</Code><Message>Server failed to authenticate the "
      "request."
      "\nRequestId:abc\nTime:2024-01-01T00:00:00Z</Message><AuthenticationErrorDetail>"
      "Signature did not match. String to sign used was rl\n2024\n/blob/a/c?sig=LEAKED"
      "</AuthenticationErrorDetail></Error>";
  auto parsed = azure::ParseErrorBody(body, 403);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->code, "AuthenticationFailed");
  EXPECT_EQ(parsed->message,
            "Server failed to authenticate the request. Signature did not match.");
  auto mac = azure::ParseErrorBody(
      "<Error><Code>AuthenticationFailed</Code><Message>m</Message>"
      "<AuthenticationErrorDetail>The MAC signature found in the HTTP request "
      "'c2lnbmF0dXJlLXZhbHVlLWZyb20tdGhlLXJlcXVlc3Q=' is not the same as any computed "
      "signature.</AuthenticationErrorDetail></Error>",
      403);
  ASSERT_TRUE(mac.has_value());
  EXPECT_THAT(mac->message, Not(HasSubstr("c2lnbmF0dXJl")));
  EXPECT_FALSE(azure::ParseErrorBody("not xml", 500).has_value());
}

TEST(AzureResponsesTest, ListBlobs) {
  const std::string body =
      "<?xml version=\"1.0\" encoding=\"utf-8\"?><EnumerationResults "
      "ServiceEndpoint=\"http://h/\" ContainerName=\"c\"><Prefix>d/</Prefix><Blobs>"
      "<Blob><Name>d/a.txt</Name><Properties><Last-Modified>Sun, 06 Nov 1994 08:49:37 "
      "GMT</Last-Modified><Etag>0x1</Etag><Content-Length>12</Content-Length>"
      "</Properties></Blob><BlobPrefix><Name>d/sub/</Name></BlobPrefix>"
      "<Blob><Name Encoded=\"true\">d/%EF%BF%BEodd</Name><Properties><Content-Length>0"
      "</Content-Length></Properties></Blob></Blobs><NextMarker>m2</NextMarker>"
      "</EnumerationResults>";
  ASSERT_OK_AND_ASSIGN(azure::ListBlobsPage page, azure::ParseListBlobs(body));
  ASSERT_EQ(page.blobs.size(), 2u);
  EXPECT_EQ(page.blobs[0].name, "d/a.txt");
  EXPECT_EQ(page.blobs[0].size, 12);
  EXPECT_EQ(page.blobs[0].last_modified_ms, 784111777000);
  EXPECT_EQ(page.blobs[1].name, "d/\xEF\xBF\xBEodd");
  EXPECT_THAT(page.prefixes, ::testing::ElementsAre("d/sub/"));
  EXPECT_EQ(page.next_marker, "m2");
  EXPECT_THAT(azure::ParseListBlobs("<Other/>"), IsError(StatusCode::kIOError));
  EXPECT_THAT(azure::ParseListBlobs("<EnumerationResults><Blobs><Blob><Name>x</Name>"
                                    "<Properties><Content-Length>-1</Content-Length>"
                                    "</Properties></Blob></Blobs></EnumerationResults>"),
              IsError(StatusCode::kIOError));
}

TEST(AzureRedactionTest, UrlsAndHeadersHideTheSas) {
  const std::string url =
      "http://127.0.0.1:10000/devstoreaccount1/c/b?comp=list&sv=2021-08-06&sr=c&sp=rl&"
      "sig=SIGNATUREVALUE%3D&marker=x";
  const std::string redacted = http::RedactUrl(url);
  EXPECT_THAT(redacted, Not(HasSubstr("SIGNATUREVALUE")));
  EXPECT_THAT(redacted, HasSubstr("sig=<redacted>&marker=x"));
  EXPECT_THAT(redacted, HasSubstr("?comp=list&sv=2021-08-06"));
  EXPECT_EQ(http::RedactUrl("https://h/p?X-Amz-Signature=abc#f"),
            "https://h/p?X-Amz-Signature=<redacted>#f");
  const std::string headers = http::DescribeHeaders(
      {{"x-ms-copy-source", url}, {"x-ms-copy-source-authorization", "Bearer t"}});
  EXPECT_THAT(headers, Not(HasSubstr("SIGNATUREVALUE")));
  EXPECT_THAT(headers, Not(HasSubstr("Bearer t")));
  EXPECT_TRUE(http::IsSecretQueryParameter("sig"));
  EXPECT_FALSE(http::IsSecretQueryParameter("comp"));
}

}  // namespace
}  // namespace lance::io
