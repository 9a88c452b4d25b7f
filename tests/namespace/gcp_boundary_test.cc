// SPDX-License-Identifier: Apache-2.0
// The Credential Access Boundary of the GCP vendor read the way Google's STS reads it:
// the two CEL clauses it uses (resource.name.startsWith and the objectListPrefix
// attribute) evaluated by a tiny evaluator written here, so that a boundary that
// stretches past its table (a sibling "t.lance2", another bucket, a quote ending the
// string) fails a test. The vendor against a token-service stand-in and a
// boundary-enforcing proxy: tests/gcs/gcp_vending_test.cc.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lance/namespace/credential_vendor.h"
#include "tests/testing/matchers.h"

namespace lance::ns {
namespace {

using ::testing::ElementsAre;

// The string literals of `startsWith('...')` calls in `expression`, in order.
std::vector<std::string> StartsWithLiterals(const std::string& expression) {
  std::vector<std::string> out;
  const std::string call = ".startsWith('";
  for (size_t at = expression.find(call); at != std::string::npos;
       at = expression.find(call, at + 1)) {
    const size_t begin = at + call.size();
    const size_t end = expression.find('\'', begin);
    if (end == std::string::npos) break;
    out.push_back(expression.substr(begin, end - begin));
  }
  return out;
}

struct Boundary {
  std::string resource;
  std::vector<std::string> roles;
  std::string object_prefix;  // resource.name must start with it
  std::string list_prefix;    // objectListPrefix must start with it
};

Boundary Read(const std::string& json_text) {
  auto json = nlohmann::json::parse(json_text);
  const auto& rules = json.at("accessBoundary").at("accessBoundaryRules");
  EXPECT_EQ(rules.size(), 1u);
  const auto& rule = rules.at(0);
  Boundary out;
  out.resource = rule.at("availableResource").get<std::string>();
  out.roles = rule.at("availablePermissions").get<std::vector<std::string>>();
  const std::string expression =
      rule.at("availabilityCondition").at("expression").get<std::string>();
  // Exactly the two clauses, joined by ||: nothing else may widen or narrow them.
  EXPECT_EQ(expression.find("&&"), std::string::npos) << expression;
  auto literals = StartsWithLiterals(expression);
  EXPECT_EQ(literals.size(), 2u) << expression;
  if (literals.size() == 2) {
    out.object_prefix = literals[0];
    out.list_prefix = literals[1];
  }
  return out;
}

// What STS would let the token reach: an object (by its full resource name) or a listing.
bool AllowsObject(const Boundary& b, const std::string& bucket, const std::string& key) {
  return ("projects/_/buckets/" + bucket + "/objects/" + key).rfind(b.object_prefix, 0) ==
             0 &&
         b.resource == "//storage.googleapis.com/projects/_/buckets/" + bucket;
}
bool AllowsList(const Boundary& b, const std::string& prefix) {
  return prefix.rfind(b.list_prefix, 0) == 0;
}

TEST(GcpBoundaryTest, RolesPerPermission) {
  EXPECT_THAT(
      Read(GcsCredentialAccessBoundary("b", "t.lance", VendPermission::kRead)).roles,
      ElementsAre("inRole:roles/storage.objectViewer"));
  EXPECT_THAT(
      Read(GcsCredentialAccessBoundary("b", "t.lance", VendPermission::kWrite)).roles,
      ElementsAre("inRole:roles/storage.objectViewer",
                  "inRole:roles/storage.objectCreator"));
  EXPECT_THAT(
      Read(GcsCredentialAccessBoundary("b", "t.lance", VendPermission::kAdmin)).roles,
      ElementsAre("inRole:roles/storage.objectAdmin"));
}

TEST(GcpBoundaryTest, ReachesItsTableAndNothingElse) {
  const Boundary b =
      Read(GcsCredentialAccessBoundary("bucket", "ns/t.lance", VendPermission::kWrite));
  EXPECT_TRUE(AllowsObject(b, "bucket", "ns/t.lance/_versions/1.manifest"));
  EXPECT_TRUE(AllowsObject(b, "bucket", "ns/t.lance/data/x.lance"));
  EXPECT_TRUE(AllowsList(b, "ns/t.lance/"));
  EXPECT_TRUE(AllowsList(b, "ns/t.lance/_versions/"));
  // A sibling whose name starts with the table's, the parent, another bucket.
  EXPECT_FALSE(AllowsObject(b, "bucket", "ns/t.lance2/_versions/1.manifest"));
  EXPECT_FALSE(AllowsObject(b, "bucket", "ns/t.lance"));
  EXPECT_FALSE(AllowsObject(b, "bucket", "ns/other.lance/data/x.lance"));
  EXPECT_FALSE(AllowsObject(b, "bucket2", "ns/t.lance/data/x.lance"));
  EXPECT_FALSE(AllowsList(b, "ns/t.lance"));
  EXPECT_FALSE(AllowsList(b, "ns/"));
  EXPECT_FALSE(AllowsList(b, ""));
}

TEST(GcpBoundaryTest, QuotesAndBackslashesAreRefusedBeforeAnyCall) {
  for (std::string name : {"a'b", "a\"b", "a\\b", "x') || true || ('"}) {
    EXPECT_THAT(CheckPolicySafeName(name, "the table name"),
                testing::IsError(StatusCode::kInvalid))
        << name;
  }
  // Lance's own directory names stay valid.
  EXPECT_THAT(CheckPolicySafeName("1ce3c3c6_ns$t", "the table name"), testing::IsOk());
}

TEST(GcpBoundaryTest, VendorRefusesOtherSchemesWholeBucketsAndHostileNames) {
  GcpCredentialVendorOptions options;
  options.sts_endpoint = "http://127.0.0.1:1/v1/token";  // never reached
  options.caller = std::make_shared<io::StaticCredentialsSource>(
      io::Credentials{});  // no token: a call would fail, refusals come first
  ASSERT_OK_AND_ASSIGN(auto vendor, MakeGcpCredentialVendor(std::move(options)));
  for (const char* location :
       {"s3://bucket/t.lance", "gs://bucket", "gs://bucket/a'b.lance", "/tmp/t.lance"}) {
    auto vended = vendor->Vend(location, VendPermission::kRead);
    ASSERT_FALSE(vended.ok()) << location;
    EXPECT_EQ(NamespaceErrorCode(vended.status()), ErrorCode::kInvalidInput)
        << vended.status();
  }
  // A valid location without a namespace token says what is missing.
  auto no_token = vendor->Vend("gs://bucket/t.lance", VendPermission::kRead);
  ASSERT_FALSE(no_token.ok());
  EXPECT_THAT(no_token.status().message(), ::testing::HasSubstr("google_storage_token"));
}

}  // namespace
}  // namespace lance::ns
