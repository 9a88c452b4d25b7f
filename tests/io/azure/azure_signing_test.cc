// SPDX-License-Identifier: Apache-2.0
// Shared Key and SAS signing, offline: the string to sign of Microsoft's published Shared
// Key example, signatures checked against values computed outside this code (Python's
// hmac for Shared Key; Azurite 3.37.0's own SAS signer, the code that validates SASes
// in the emulator, for the service and user-delegation SAS), and the encodings they use.
// That Azurite accepts what we sign is checked for real by tests/azure.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "io/azure/sas.h"
#include "io/azure/shared_key.h"
#include "lance/io/azure_options.h"
#include "tests/testing/matchers.h"

namespace lance::io::azure {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)

const std::string kKey(kAzureEmulatorKey);

std::chrono::system_clock::time_point At(std::string_view iso) {
  return *ParseIso8601(iso);
}

TEST(AzureSharedKeyTest, PublishedStringToSign) {
  // "Authorize with Shared Key", Blob service example: GET
  // https://myaccount.blob.core.windows.net/mycontainer?restype=container&comp=metadata&timeout=20
  SharedKeyRequest req;
  req.method = "GET";
  req.account = "myaccount";
  req.path = "/mycontainer";
  req.query = {{"restype", "container"}, {"comp", "metadata"}, {"timeout", "20"}};
  req.headers = {{"x-ms-date", "Fri, 26 Jun 2015 23:39:12 GMT"},
                 {"x-ms-version", "2015-02-21"}};
  EXPECT_EQ(SharedKeyStringToSign(req),
            "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:Fri, 26 Jun 2015 23:39:12 GMT\n"
            "x-ms-version:2015-02-21\n/myaccount/mycontainer\ncomp:metadata\n"
            "restype:container\ntimeout:20");
  // HMAC-SHA256 under the emulator key, computed with Python's hmac module.
  ASSERT_OK_AND_ASSIGN(std::string auth, SharedKeyAuthorization(req, kKey));
  EXPECT_EQ(auth, "SharedKey myaccount:1u9lui2jDxj0+fpbHjQ5m5NnastJRSYM+PSmfi8TXx4=");
}

TEST(AzureSharedKeyTest, CanonicalizationRules) {
  SharedKeyRequest req;
  req.method = "PUT";
  req.account = "devstoreaccount1";
  // The emulator's path-style URL names the account again.
  req.path = "/devstoreaccount1/c/dir/a%20b";
  // Several values of one name are sorted and joined; names are lower-cased and sorted;
  // values are the decoded ones.
  req.query = {{"include", "snapshots"},
               {"Include", "metadata"},
               {"comp", "list"},
               {"blockid", "AA+/=="}};
  req.headers = {{"X-MS-Version", "2021-08-06"},
                 {"x-ms-meta-a", "  two   spaces  "},
                 {"If-None-Match", "*"},
                 {"x-ms-date", "Sun, 06 Nov 1994 08:49:37 GMT"},
                 {"Content-Type", "application/xml"}};
  req.content_length = 12;
  EXPECT_EQ(SharedKeyStringToSign(req),
            "PUT\n\n\n12\n\napplication/xml\n\n\n\n*\n\n\n"
            "x-ms-date:Sun, 06 Nov 1994 08:49:37 GMT\nx-ms-meta-a:two spaces\n"
            "x-ms-version:2021-08-06\n/devstoreaccount1/devstoreaccount1/c/dir/a%20b\n"
            "blockid:AA+/==\ncomp:list\ninclude:metadata,snapshots");
  // Content-Length 0 signs as empty.
  req.content_length = 0;
  EXPECT_THAT(SharedKeyStringToSign(req), ::testing::StartsWith("PUT\n\n\n\n"));
  EXPECT_THAT(SharedKeyAuthorization(req, "not base64!"),
              ::lance::testing::IsError(StatusCode::kInvalid));
}

TEST(AzureSharedKeyTest, Encodings) {
  EXPECT_EQ(Base64Encode("hello"), "aGVsbG8=");
  ASSERT_OK_AND_ASSIGN(std::string decoded, Base64Decode("aGVsbG8="));
  EXPECT_EQ(decoded, "hello");
  ASSERT_OK_AND_ASSIGN(decoded, Base64Decode(kKey));
  EXPECT_EQ(decoded.size(), 64u);
  for (const char* bad : {"abc", "a=bc", "ab c", "@@@@"}) {
    EXPECT_FALSE(Base64Decode(bad).ok()) << bad;
  }
  EXPECT_EQ(UrlEncode("a b/c+d=~", false), "a%20b/c%2Bd%3D~");
  EXPECT_EQ(UrlEncode("a/b", true), "a%2Fb");
  EXPECT_EQ(UrlDecode("a%20b%2Fc%zz"), "a b/c%zz");
  const auto t = At("1994-11-06T08:49:37Z");
  EXPECT_EQ(FormatRfc1123(t), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(ParseRfc1123Millis("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777000);
  EXPECT_EQ(ParseRfc1123Millis("garbage"), 0);
  EXPECT_EQ(FormatIso8601(t), "1994-11-06T08:49:37Z");
  EXPECT_OK(ParseIso8601("2024-01-01T00:00:00.1234567Z").status());
  EXPECT_FALSE(ParseIso8601("2024-01-01T00:00:00+01:00").ok());
}

SasOptions ContainerSasOptions(std::string permissions) {
  SasOptions o;
  o.account = "devstoreaccount1";
  o.container = "lance-test";
  o.permissions = std::move(permissions);
  o.start = At("2024-01-01T00:00:00Z");
  o.expiry = At("2024-01-02T00:00:00Z");
  return o;
}

TEST(AzureSasTest, ServiceSasMatchesAzuritesSigner) {
  // Azurite 3.37.0's generateBlobSASSignature (the version >= 2020-12-06 layout) gave
  // this string and signature for the same values.
  SasOptions o = ContainerSasOptions("lwrac");  // any order: signed canonically
  ASSERT_OK_AND_ASSIGN(std::string sts, ServiceSasStringToSign(o));
  EXPECT_EQ(sts,
            "racwl\n2024-01-01T00:00:00Z\n2024-01-02T00:00:00Z\n"
            "/blob/devstoreaccount1/lance-test\n\n\n\n2021-08-06\nc\n\n\n\n\n\n\n");
  ASSERT_OK_AND_ASSIGN(std::string sas, MakeServiceSas(o, kKey));
  EXPECT_EQ(sas,
            "sv=2021-08-06&st=2024-01-01T00%3A00%3A00Z&se=2024-01-02T00%3A00%3A00Z&sr=c&"
            "sp=racwl&sig=Jmv4Bh1gRJSJdcKeMvrca1YFTimrGrP%2F3DFOCBNY0Cc%3D");
  ASSERT_TRUE(SasExpiry(sas).has_value());
  EXPECT_EQ(*SasExpiry(sas), o.expiry);
}

TEST(AzureSasTest, UserDelegationSasMatchesAzuritesSigner) {
  SasOptions o = ContainerSasOptions("rl");
  o.resource = SasResource::kBlob;
  o.path = "a/b.lance";
  UserDelegationKey key;
  key.signed_oid = "oid-1";
  key.signed_tid = "tid-1";
  key.signed_start = "2024-01-01T00:00:00Z";
  key.signed_expiry = "2024-01-08T00:00:00Z";
  key.signed_service = "b";
  key.signed_version = "2021-08-06";
  key.value = Base64Encode("udk-key-value-32-bytes----------");
  ASSERT_OK_AND_ASSIGN(std::string sts, UserDelegationSasStringToSign(o, key));
  EXPECT_EQ(sts,
            "rl\n2024-01-01T00:00:00Z\n2024-01-02T00:00:00Z\n"
            "/blob/devstoreaccount1/lance-test/a/b.lance\noid-1\ntid-1\n"
            "2024-01-01T00:00:00Z\n2024-01-08T00:00:00Z\nb\n2021-08-06\n\n\n\n\n\n"
            "2021-08-06\nb\n\n\n\n\n\n\n");
  ASSERT_OK_AND_ASSIGN(std::string sas, MakeUserDelegationSas(o, key));
  EXPECT_THAT(sas,
              HasSubstr("skoid=oid-1&sktid=tid-1&skt=2024-01-01T00%3A00%3A00Z&"
                        "ske=2024-01-08T00%3A00%3A00Z&sks=b&skv=2021-08-06&sr=b&sp=rl"));
  EXPECT_THAT(sas, HasSubstr("sig=aD7Wzpv9SapG4FDLUhxvr7Rfd16wPOA3DhwNUK%2BpGH0%3D"));
  EXPECT_THAT(key.ToString(), Not(HasSubstr(key.value)));
}

TEST(AzureSasTest, DirectorySasCarriesItsDepth) {
  SasOptions o = ContainerSasOptions("rl");
  o.resource = SasResource::kDirectory;
  o.path = "tables/t1.lance";
  ASSERT_OK_AND_ASSIGN(std::string sts, ServiceSasStringToSign(o));
  EXPECT_THAT(sts, HasSubstr("\n/blob/devstoreaccount1/lance-test/tables/t1.lance\n"));
  EXPECT_THAT(sts, HasSubstr("\n2021-08-06\nd\n"));
  ASSERT_OK_AND_ASSIGN(std::string sas, MakeServiceSas(o, kKey));
  EXPECT_THAT(sas, HasSubstr("&sr=d&sp=rl&sdd=2&"));
}

TEST(AzureSasTest, ScopeAndPermissionChecks) {
  EXPECT_EQ(*NormalizeSasPermissions("lrdwca"), "racwdl");
  EXPECT_EQ(std::string(kSasWritePermissions), *NormalizeSasPermissions("lwcar"));
  EXPECT_FALSE(NormalizeSasPermissions("rq").ok());
  EXPECT_FALSE(NormalizeSasPermissions("").ok());
  SasOptions o = ContainerSasOptions("r");
  o.path = "x";  // a container SAS has no path
  EXPECT_FALSE(MakeServiceSas(o, kKey).ok());
  o = ContainerSasOptions("r");
  o.resource = SasResource::kDirectory;  // a directory SAS needs one
  EXPECT_FALSE(MakeServiceSas(o, kKey).ok());
  o.path = "/abs";
  EXPECT_FALSE(MakeServiceSas(o, kKey).ok());
  auto bad_key = MakeServiceSas(ContainerSasOptions("r"), "secret-not-base64!");
  ASSERT_FALSE(bad_key.ok());
  EXPECT_THAT(bad_key.status().message(), Not(HasSubstr("secret-not-base64")));
}

TEST(AzureSasTest, RedactSasHidesEverySignature) {
  ASSERT_OK_AND_ASSIGN(std::string sas, MakeServiceSas(ContainerSasOptions("rl"), kKey));
  const std::string sig = sas.substr(sas.find("sig=") + 4);
  for (const std::string& text :
       {sas, "?" + sas, "http://h/c/b?comp=list&" + sas + "&x=1", "token '" + sas + "'",
        "sig=" + sig + " and sig=" + sig}) {
    const std::string redacted = RedactSas(text);
    EXPECT_THAT(redacted, Not(HasSubstr(sig))) << redacted;
    EXPECT_THAT(redacted, HasSubstr("sig=<redacted>")) << redacted;
  }
  EXPECT_EQ(RedactSas("design=x&signal=y"), "design=x&signal=y");
}

}  // namespace
}  // namespace lance::io::azure
