// SPDX-License-Identifier: Apache-2.0
// Credential vending against the real RGW of the tests (STS AssumeRole with session
// policies): credentials vended for one table work under its prefix and are refused by
// RGW under another table's; read-only ones cannot write; the cache and its single
// flight; the directory namespace's `credential_vendor.*` properties end to end
// (describe, declare, a dataset written and read through the namespace); STS failures.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lance/core/builder.h"
#include "lance/core/clock.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/io/http_error.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/io/s3/sts_client.h"
#include "lance/io/s3_object_store.h"
#include "lance/io/storage_access.h"
#include "lance/namespace/credential_vendor.h"
#include "lance/namespace/dataset_ops.h"
#include "lance/namespace/directory_namespace.h"
#include "tests/s3/rgw_vendor.h"
#include "tests/s3/s3_fixture.h"
#include "tests/testing/matchers.h"
#include "tests/testing/secret_ledger.h"

namespace lance::ns {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)

int64_t RealNowMillis() { return RealClock::Instance()->NowMillis(); }

// Counts Vend calls of `inner`, optionally slowing each one down.
class CountingVendor final : public CredentialVendor {
 public:
  explicit CountingVendor(std::shared_ptr<CredentialVendor> inner,
                          std::chrono::milliseconds delay = {})
      : inner_(std::move(inner)), delay_(delay) {}
  Result<VendedCredentials> Vend(const std::string& location,
                                 VendPermission permission) override {
    ++calls_;
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    auto vended = inner_->Vend(location, permission);
    if (vended.ok()) testing::RecordSecrets(vended->storage_options);  // for the scan
    return vended;
  }
  std::string ToString() const override { return "Counting(" + inner_->ToString() + ")"; }
  int calls() const { return calls_.load(); }

 private:
  std::shared_ptr<CredentialVendor> inner_;
  std::chrono::milliseconds delay_;
  std::atomic<int> calls_{0};
};

// A vendor without STS: numbered fake keys that expire `lifetime` after `clock`'s now.
class FakeVendor final : public CredentialVendor {
 public:
  FakeVendor(std::shared_ptr<Clock> clock, int64_t lifetime_millis)
      : clock_(std::move(clock)), lifetime_millis_(lifetime_millis) {}
  Result<VendedCredentials> Vend(const std::string& location,
                                 VendPermission permission) override {
    const int n = ++calls_;
    last_location_ = location;
    last_permission_ = permission;
    VendedCredentials out;
    out.expires_at_millis = clock_->NowMillis() + lifetime_millis_;
    out.storage_options = {{"aws_access_key_id", "FAKE" + std::to_string(n)},
                           {"aws_secret_access_key", "fake-secret"},
                           {"aws_session_token", "fake-token"},
                           {"expires_at_millis", std::to_string(out.expires_at_millis)},
                           {"refresh_offset_millis", "60000"}};
    return out;
  }
  std::string ToString() const override { return "FakeVendor"; }
  int calls() const { return calls_.load(); }
  std::string last_location_;
  VendPermission last_permission_ = VendPermission::kRead;

 private:
  std::shared_ptr<Clock> clock_;
  int64_t lifetime_millis_;
  std::atomic<int> calls_{0};
};

// -- Without a server
// ---------------------------------------------------------------------

TEST(CredentialVendingUnitTest, ParsesPermissions) {
  EXPECT_EQ(*ParseVendPermission("read"), VendPermission::kRead);
  EXPECT_EQ(*ParseVendPermission("WRITE"), VendPermission::kWrite);
  EXPECT_EQ(*ParseVendPermission("Admin"), VendPermission::kAdmin);
  auto bad = ParseVendPermission("owner");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(NamespaceErrorCode(bad.status()), ErrorCode::kInvalidInput);
  EXPECT_EQ(VendPermissionName(VendPermission::kWrite), "write");
}

TEST(CredentialVendingUnitTest, ParsesStsTimesAndAnswers) {
  EXPECT_EQ(*io::s3::ParseIso8601Millis("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(*io::s3::ParseIso8601Millis("2026-01-01T00:00:00Z"), 1'767'225'600'000);
  EXPECT_EQ(*io::s3::ParseIso8601Millis("2026-01-01T00:00:01.250Z"), 1'767'225'601'250);
  EXPECT_EQ(*io::s3::ParseIso8601Millis("2026-01-01T02:00:00+02:00"), 1'767'225'600'000);
  EXPECT_FALSE(io::s3::ParseIso8601Millis("2026-01-01 junk").ok());
  EXPECT_FALSE(io::s3::ParseIso8601Millis("2026-01-01T00:00:00").ok());

  auto ok = io::s3::ParseAssumeRoleResponse(
      200,
      "<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>AK</AccessKeyId>"
      "<SecretAccessKey>SK</SecretAccessKey><SessionToken>TOK</SessionToken>"
      "<Expiration>2026-01-01T00:15:00Z</Expiration></Credentials></AssumeRoleResult>"
      "</AssumeRoleResponse>",
      "", "STS AssumeRole");
  ASSERT_THAT(ok, IsOk());
  EXPECT_EQ(ok->credentials.access_key_id, "AK");
  EXPECT_EQ(ok->credentials.session_token, "TOK");
  EXPECT_EQ(ok->expiration_millis, 1'767'225'600'000 + 900'000);

  auto denied = io::s3::ParseAssumeRoleResponse(
      403,
      "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code>"
      "<Message>not allowed</Message></Error><RequestId>r-1</RequestId></ErrorResponse>",
      "", "STS AssumeRole");
  ASSERT_FALSE(denied.ok());
  EXPECT_TRUE(denied.status().IsForbidden()) << denied.status();
  const auto* http = denied.status().detail_as<io::HttpErrorDetail>();
  ASSERT_NE(http, nullptr);
  EXPECT_EQ(http->service_code(), "AccessDenied");
  EXPECT_EQ(http->request_id(), "r-1");

  auto malformed = io::s3::ParseAssumeRoleResponse(
      400, "<Error><Code>MalformedPolicyDocument</Code></Error>", "", "STS");
  EXPECT_TRUE(malformed.status().IsInvalid()) << malformed.status();
  auto busy = io::s3::ParseAssumeRoleResponse(503, "", "", "STS");
  EXPECT_TRUE(busy.status().IsUnavailable()) << busy.status();
  EXPECT_TRUE(busy.status().retryable());
}

TEST(CredentialVendingUnitTest, AssumeRoleBodyIsFormEncodedWithoutPlus) {
  io::s3::AssumeRoleRequest request;
  request.role_arn = "arn:aws:iam:::role/S3Access";
  request.role_session_name = "s";
  request.duration_seconds = 900;
  request.policy = R"({"a":"b c"})";
  request.external_id = "x/y";
  EXPECT_EQ(io::s3::AssumeRoleBody(request),
            "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A%3Arole%"
            "2FS3Access&RoleSessionName=s&DurationSeconds=900&Policy=%7B%22a%22%3A%22b%"
            "20c%22%7D&ExternalId=x%2Fy");
}

TEST(CredentialVendingUnitTest, PropertiesEnableAndValidate) {
  const Properties root{{"aws_endpoint", "http://127.0.0.1:1"},
                        {"allow_http", "true"},
                        {"aws_access_key_id", "AKID"},
                        {"aws_secret_access_key", "very-secret"}};
  // Off unless enabled.
  ASSERT_OK_AND_ASSIGN(auto none, CredentialVendorFromProperties({}, root));
  EXPECT_EQ(none, nullptr);
  ASSERT_OK_AND_ASSIGN(
      none, CredentialVendorFromProperties({{"credential_vendor.enabled", "false"},
                                            {"credential_vendor.aws_role_arn", "arn"}},
                                           root));
  EXPECT_EQ(none, nullptr);

  auto missing_arn =
      CredentialVendorFromProperties({{"credential_vendor.enabled", "true"}}, root);
  ASSERT_FALSE(missing_arn.ok());
  EXPECT_EQ(NamespaceErrorCode(missing_arn.status()), ErrorCode::kInvalidInput);
  EXPECT_THAT(missing_arn.status().message(), HasSubstr("aws_role_arn"));

  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"credential_vendor.permission", "owner"},
           {"credential_vendor.aws_duration_millis", "ten"},
           {"credential_vendor.aws_duration_millis", "60000"},
           {"credential_vendor.reported_lifetime_millis", "-5"}}) {
    auto bad = CredentialVendorFromProperties({{"credential_vendor.enabled", "true"},
                                               {"credential_vendor.aws_role_arn", "arn"},
                                               {key, value}},
                                              root);
    ASSERT_FALSE(bad.ok()) << key << "=" << value;
    EXPECT_EQ(NamespaceErrorCode(bad.status()), ErrorCode::kInvalidInput) << bad.status();
    EXPECT_THAT(bad.status().message(), Not(HasSubstr("very-secret")));
  }

  ASSERT_OK_AND_ASSIGN(auto vendor, CredentialVendorFromProperties(
                                        {{"credential_vendor.enabled", "true"},
                                         {"credential_vendor.aws_role_arn", "arn:x"}},
                                        root));
  ASSERT_NE(vendor, nullptr);
  // The STS endpoint defaults to the root's S3 endpoint.
  EXPECT_THAT(vendor->ToString(), HasSubstr("http://127.0.0.1:1"));
  EXPECT_THAT(vendor->ToString(), Not(HasSubstr("very-secret")));
  // Only s3:// locations can be scoped.
  auto local = vendor->Vend("/tmp/t.lance", VendPermission::kRead);
  ASSERT_FALSE(local.ok());
  EXPECT_EQ(NamespaceErrorCode(local.status()), ErrorCode::kInvalidInput);
}

TEST(CredentialVendingUnitTest, CacheReusesUntilHalfLifeCappedAndSkipsShortLived) {
  auto clock = std::make_shared<ManualClock>();
  auto fake = std::make_shared<FakeVendor>(clock, 10 * 60'000);
  auto cache = MakeCachingCredentialVendor(fake, clock);
  ASSERT_OK_AND_ASSIGN(auto first, cache->Vend("s3://b/t.lance", VendPermission::kRead));
  EXPECT_EQ(fake->calls(), 1);
  clock->Advance(std::chrono::seconds(299));
  ASSERT_OK_AND_ASSIGN(auto again, cache->Vend("s3://b/t.lance", VendPermission::kRead));
  EXPECT_EQ(fake->calls(), 1);
  EXPECT_EQ(again.storage_options, first.storage_options);
  // Another permission or location is another entry.
  ASSERT_OK(cache->Vend("s3://b/t.lance", VendPermission::kWrite).status());
  ASSERT_OK(cache->Vend("s3://b/u.lance", VendPermission::kRead).status());
  EXPECT_EQ(fake->calls(), 3);
  // Half the lifetime (5 min) has passed: vended anew.
  clock->Advance(std::chrono::seconds(2));
  ASSERT_OK_AND_ASSIGN(auto renewed,
                       cache->Vend("s3://b/t.lance", VendPermission::kRead));
  EXPECT_EQ(fake->calls(), 4);
  EXPECT_NE(renewed.storage_options.at("aws_access_key_id"),
            first.storage_options.at("aws_access_key_id"));

  // Long-lived credentials: at most 30 min.
  auto clock2 = std::make_shared<ManualClock>();
  auto long_lived = std::make_shared<FakeVendor>(clock2, 4 * 3'600'000);
  auto cache2 = MakeCachingCredentialVendor(long_lived, clock2);
  ASSERT_OK(cache2->Vend("s3://b/t", VendPermission::kRead).status());
  clock2->Advance(std::chrono::minutes(29));
  ASSERT_OK(cache2->Vend("s3://b/t", VendPermission::kRead).status());
  EXPECT_EQ(long_lived->calls(), 1);
  clock2->Advance(std::chrono::minutes(2));
  ASSERT_OK(cache2->Vend("s3://b/t", VendPermission::kRead).status());
  EXPECT_EQ(long_lived->calls(), 2);

  // Less than a minute left: never cached.
  auto short_lived = std::make_shared<FakeVendor>(clock2, 30'000);
  auto cache3 = MakeCachingCredentialVendor(short_lived, clock2);
  ASSERT_OK(cache3->Vend("s3://b/t", VendPermission::kRead).status());
  ASSERT_OK(cache3->Vend("s3://b/t", VendPermission::kRead).status());
  EXPECT_EQ(short_lived->calls(), 2);
}

// The namespace side without STS: a fake vendor behind a directory namespace.
TEST(CredentialVendingUnitTest, DirectoryNamespaceMergesVendedOverNonCredentialOptions) {
  auto clock = RealClock::Instance();
  auto fake = std::make_shared<FakeVendor>(clock, 3'600'000);
  DirectoryNamespaceOptions options;
  options.root = "memory://vend-unit-" + std::to_string(RealNowMillis());
  options.access.storage_options = {{"aws_endpoint", "http://127.0.0.1:1"},
                                    {"aws_region", "eu-west-1"},
                                    {"aws_access_key_id", "ROOTKEY"},
                                    {"aws_secret_access_key", "root-secret"},
                                    {"aws_session_token", "root-token"}};
  options.credential_vendor = fake;
  options.vend_permission = VendPermission::kRead;
  ASSERT_OK_AND_ASSIGN(auto ns, DirectoryNamespace::Make(options));

  ASSERT_OK_AND_ASSIGN(auto declared, ns->DeclareTable({.id = {"t"}}));
  ASSERT_TRUE(declared.storage_options.has_value());
  EXPECT_EQ(fake->calls(), 1);
  // Declare vends at least write: the client writes the table it declared.
  EXPECT_EQ(fake->last_permission_, VendPermission::kWrite);
  EXPECT_EQ(fake->last_location_, options.root + "/t.lance");
  const Properties& so = *declared.storage_options;
  EXPECT_EQ(so.at("aws_access_key_id"), "FAKE1");
  EXPECT_EQ(so.at("aws_session_token"), "fake-token");
  EXPECT_EQ(so.at("aws_endpoint"), "http://127.0.0.1:1");
  EXPECT_EQ(so.at("aws_region"), "eu-west-1");
  for (const auto& [key, value] : so) {
    EXPECT_NE(value, "root-secret") << key;
    EXPECT_NE(value, "ROOTKEY") << key;
    EXPECT_NE(value, "root-token") << key;
  }

  ASSERT_OK_AND_ASSIGN(auto described, ns->DescribeTable({.id = {"t"}}));
  EXPECT_EQ(fake->last_permission_, VendPermission::kRead);
  ASSERT_TRUE(described.storage_options.has_value());
  EXPECT_EQ(described.storage_options->at("aws_access_key_id"), "FAKE2");

  // vend_credentials=false: the location only, no vend.
  ASSERT_OK_AND_ASSIGN(auto plain,
                       ns->DescribeTable({.id = {"t"}, .vend_credentials = false}));
  EXPECT_FALSE(plain.storage_options.has_value());
  EXPECT_EQ(fake->calls(), 2);
}

// -- Against RGW
// ---------------------------------------------------------------------------

class CredentialVendingTest : public ::lance::testing::S3VendingTest {
 protected:
  CredentialVendingTest() : S3VendingTest("vend") {}

  // A store on the bucket that signs with `vended`'s credentials.
  std::shared_ptr<io::S3ObjectStore> StoreWith(const VendedCredentials& vended) const {
    testing::RecordSecrets(vended.storage_options);  // for scripts/scan_secrets.sh
    io::StorageOptions options = env_.Options();
    for (const auto& [key, value] : vended.storage_options) options[key] = value;
    return RawStore(std::move(options));
  }

  static void ExpectAccessDenied(const Status& status, const std::string& what) {
    EXPECT_TRUE(status.IsForbidden()) << what << ": " << status;
    const auto* http = status.detail_as<io::HttpErrorDetail>();
    ASSERT_NE(http, nullptr) << what << ": " << status;
    EXPECT_EQ(http->service_code(), "AccessDenied") << what;
  }
};

TEST_F(CredentialVendingTest, VendedCredentialsAreScopedToTheTable) {
  const std::string a = root_key_ + "/a.lance";
  const std::string b = root_key_ + "/b.lance";
  ASSERT_OK(direct_->Put(a + "/data/existing", "in a"));
  ASSERT_OK(direct_->Put(b + "/data/existing", "in b"));

  ASSERT_OK_AND_ASSIGN(auto vendor, MakeAwsCredentialVendor(VendorOptions()));
  const int64_t before = RealNowMillis();
  ASSERT_OK_AND_ASSIGN(
      auto vended, vendor->Vend("s3://" + env_.bucket + "/" + a, VendPermission::kWrite));
  const Properties& so = vended.storage_options;
  ASSERT_TRUE(so.count("aws_access_key_id") && so.count("aws_secret_access_key") &&
              so.count("aws_session_token"));
  EXPECT_NE(so.at("aws_access_key_id"), env_.access_key);
  EXPECT_EQ(so.at("refresh_offset_millis"), "60000");
  EXPECT_EQ(so.at("aws_region"), env_.region);
  EXPECT_EQ(so.at("expires_at_millis"), std::to_string(vended.expires_at_millis));
  // RGW's minimum (and our) duration: 15 min.
  EXPECT_GE(vended.expires_at_millis, before + 880'000);
  EXPECT_LE(vended.expires_at_millis, RealNowMillis() + 920'000);

  auto store = StoreWith(vended);
  ASSERT_NE(store, nullptr);
  // Under a's prefix: get, put, list.
  ASSERT_OK_AND_ASSIGN(auto got, store->Read(a + "/data/existing"));
  EXPECT_EQ(got->ToStringView(), "in a");
  ASSERT_OK(store->Put(a + "/data/new", "written with vended credentials"));
  ASSERT_OK_AND_ASSIGN(auto listed, store->ListAll(a + "/", true));
  EXPECT_EQ(listed.objects.size(), 2u);
  // Under b's prefix: RGW refuses every one.
  ExpectAccessDenied(store->Read(b + "/data/existing").status(), "get under b");
  ExpectAccessDenied(store->Put(b + "/data/new", "x"), "put under b");
  ExpectAccessDenied(store->ListAll(b + "/", true).status(), "list under b");
  // A sibling whose name starts with a's: not a's prefix either.
  ExpectAccessDenied(store->Put(root_key_ + "/a.lance2/x", "x"), "put under a.lance2");
  // Write permission does not delete.
  ExpectAccessDenied(store->Delete(a + "/data/new"), "delete with write permission");
}

TEST_F(CredentialVendingTest, ReadPermissionRefusesPutAndAdminDeletes) {
  const std::string a = root_key_ + "/a.lance";
  ASSERT_OK(direct_->Put(a + "/data/existing", "in a"));
  ASSERT_OK_AND_ASSIGN(auto vendor, MakeAwsCredentialVendor(VendorOptions()));
  const std::string location = "s3://" + env_.bucket + "/" + a;

  ASSERT_OK_AND_ASSIGN(auto read, vendor->Vend(location, VendPermission::kRead));
  auto reader = StoreWith(read);
  ASSERT_NE(reader, nullptr);
  ASSERT_OK_AND_ASSIGN(auto got, reader->Read(a + "/data/existing"));
  EXPECT_EQ(got->ToStringView(), "in a");
  ASSERT_OK(reader->ListAll(a + "/", true).status());
  ExpectAccessDenied(reader->Put(a + "/data/new", "x"), "put with read permission");

  ASSERT_OK_AND_ASSIGN(auto admin, vendor->Vend(location, VendPermission::kAdmin));
  auto owner = StoreWith(admin);
  ASSERT_NE(owner, nullptr);
  ASSERT_OK(owner->Put(a + "/data/new", "x"));
  ASSERT_OK(owner->Delete(a + "/data/new"));
  EXPECT_TRUE(direct_->Head(a + "/data/new").status().IsNotFound());
}

TEST_F(CredentialVendingTest, CacheReusesRealCredentialsUntilHalfTheReportedLifetime) {
  AwsCredentialVendorOptions options = VendorOptions();
  options.reported_lifetime_millis = 10 * 60'000;
  ASSERT_OK_AND_ASSIGN(auto aws, MakeAwsCredentialVendor(options));
  auto counting = std::make_shared<CountingVendor>(aws);
  auto clock = std::make_shared<ManualClock>(RealNowMillis());
  auto cache = MakeCachingCredentialVendor(counting, clock);
  const std::string location = root_ + "/a.lance";

  ASSERT_OK_AND_ASSIGN(auto first, cache->Vend(location, VendPermission::kRead));
  EXPECT_EQ(counting->calls(), 1);
  // The reported expiry, not STS's 15 min.
  EXPECT_LE(first.expires_at_millis, RealNowMillis() + 10 * 60'000);
  EXPECT_GE(first.expires_at_millis, RealNowMillis() + 9 * 60'000);
  clock->Advance(std::chrono::minutes(4));
  ASSERT_OK_AND_ASSIGN(auto again, cache->Vend(location, VendPermission::kRead));
  EXPECT_EQ(counting->calls(), 1);
  EXPECT_EQ(again.storage_options.at("aws_access_key_id"),
            first.storage_options.at("aws_access_key_id"));
  clock->Advance(std::chrono::minutes(2));
  ASSERT_OK_AND_ASSIGN(auto renewed, cache->Vend(location, VendPermission::kRead));
  EXPECT_EQ(counting->calls(), 2);
  EXPECT_NE(renewed.storage_options.at("aws_access_key_id"),
            first.storage_options.at("aws_access_key_id"));
}

TEST_F(CredentialVendingTest, ConcurrentMissesMakeOneStsCall) {
  ASSERT_OK_AND_ASSIGN(auto aws, MakeAwsCredentialVendor(VendorOptions()));
  // Slowed down so that every thread arrives while the first call is under way.
  auto counting = std::make_shared<CountingVendor>(aws, std::chrono::milliseconds(300));
  auto cache = MakeCachingCredentialVendor(counting);
  const std::string location = root_ + "/a.lance";
  constexpr int kThreads = 8;
  std::vector<std::string> keys(kThreads);
  std::vector<Status> statuses(kThreads);
  std::mutex mu;
  std::condition_variable cv;
  int ready = 0;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      {
        std::unique_lock lock(mu);
        ++ready;
        cv.notify_all();
        cv.wait(lock, [&] { return ready == kThreads; });
      }
      auto vended = cache->Vend(location, VendPermission::kWrite);
      statuses[i] = vended.status();
      if (vended.ok()) keys[i] = vended->storage_options.at("aws_access_key_id");
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(counting->calls(), 1);
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_OK(statuses[i]);
    EXPECT_EQ(keys[i], keys[0]);
  }
}

TEST_F(CredentialVendingTest, DirectoryNamespaceVendsScopedCredentials) {
  Properties props{{"root", root_},
                   {"credential_vendor.enabled", "true"},
                   {"credential_vendor.aws_role_arn", env_.sts_role_arn},
                   {"credential_vendor.aws_duration_millis", "900000"},
                   {"credential_vendor.reported_lifetime_millis", "600000"},
                   {"credential_vendor.refresh_offset_millis", "30000"}};
  for (const auto& [k, v] : env_.Options()) props["storage." + k] = v;
  ASSERT_OK_AND_ASSIGN(auto dir, DirectoryNamespace::FromProperties(props));
  std::shared_ptr<LanceNamespace> ns = dir;

  // Declare: write credentials scoped to the table, with the root's endpoint.
  const int64_t before = RealNowMillis();
  ASSERT_OK_AND_ASSIGN(auto declared, ns->DeclareTable({.id = {"declared"}}));
  ASSERT_TRUE(declared.storage_options.has_value());
  const Properties& so = *declared.storage_options;
  testing::RecordSecrets(so);
  EXPECT_EQ(so.at("aws_endpoint"), env_.endpoint);
  EXPECT_EQ(so.at("refresh_offset_millis"), "30000");
  const int64_t expires = std::stoll(so.at("expires_at_millis"));
  EXPECT_GE(expires, before + 600'000);
  EXPECT_LE(expires, RealNowMillis() + 600'000);
  EXPECT_NE(so.at("aws_access_key_id"), env_.access_key);
  EXPECT_FALSE(so.at("aws_session_token").empty());
  for (const auto& [key, value] : so) EXPECT_NE(value, env_.secret_key) << key;

  // Describe: the configured (read) permission; vend_credentials=false: no options.
  ASSERT_OK_AND_ASSIGN(auto described, ns->DescribeTable({.id = {"declared"}}));
  ASSERT_TRUE(described.storage_options.has_value());
  testing::RecordSecrets(*described.storage_options);
  for (const auto& [key, value] : *described.storage_options) {
    EXPECT_NE(value, env_.secret_key) << key;
  }
  ASSERT_OK_AND_ASSIGN(
      auto plain, ns->DescribeTable({.id = {"declared"}, .vend_credentials = false}));
  EXPECT_FALSE(plain.storage_options.has_value());

  // A dataset written and read through the namespace with the vended credentials.
  const Identifier id{"events"};
  auto data = RecordBatchReader::FromBatches(testing::NamedRows(0, 3)->schema(),
                                             {testing::NamedRows(0, 3)});
  ASSERT_OK_AND_ASSIGN(auto written, WriteDataset(*data, ns, id));
  EXPECT_EQ(written->version(), 1u);
  ASSERT_OK_AND_ASSIGN(auto opened, OpenDataset(ns, id));
  ASSERT_OK_AND_ASSIGN(auto rows, opened->CountRows());
  EXPECT_EQ(rows, 3);
  ASSERT_OK_AND_ASSIGN(auto table, opened->ToTable());
  EXPECT_EQ(table->num_rows(), 3);
  // The dataset signs with the vended key (held by its refreshing source), not the
  // root's.
  const auto& access = opened->storage_access();
  ASSERT_NE(access.credentials, nullptr);
  ASSERT_OK_AND_ASSIGN(auto current, access.credentials->Current());
  EXPECT_NE(current->aws.access_key_id, env_.access_key);
  EXPECT_FALSE(current->aws.session_token.empty());

  // The credentials described for "events" are refused on "declared"'s prefix.
  ASSERT_OK_AND_ASSIGN(auto events, ns->DescribeTable({.id = {"events"}}));
  VendedCredentials vended{*events.storage_options, 0};
  auto store = StoreWith(vended);
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->ListAll(root_key_ + "/events.lance/", true).status());
  ExpectAccessDenied(store->ListAll(root_key_ + "/declared.lance/", true).status(),
                     "listing another table");
  // And, read-only by default, they do not write the described table.
  ExpectAccessDenied(store->Put(root_key_ + "/events.lance/x", "x"),
                     "put with described (read) credentials");
}

// The shape of bench/refresh_benchmark (its "refresh" part of make bench): the table is
// written through a namespace that vends nothing, whose answers carry the root's
// endpoint and region but not its key (issue 28), so the writer brings its own key; then
// it is opened through a read-vending namespace whose credentials are reported to live
// 1.5 s, in both refresh modes, and read again after they expired (a refresh), and
// through one without the short lifetime. The benchmark failed at its set-up with "the
// provider returned storage options without credentials" for hours before anyone ran
// it.
TEST_F(CredentialVendingTest, RefreshBenchmarkShapeWritesOpensAndReadsAfterARefresh) {
  const io::StorageOptions own_key = env_.Options();
  Properties root_props{{"root", root_}};
  for (const auto& [k, v] : own_key) root_props["storage." + k] = v;
  ASSERT_OK_AND_ASSIGN(auto plain, DirectoryNamespace::FromProperties(root_props));
  const Identifier id{"bench"};
  {
    auto data = RecordBatchReader::FromBatches(testing::NamedRows(0, 3)->schema(),
                                               {testing::NamedRows(0, 3)});
    WriteParams write;
    write.access = io::StorageAccess(own_key);
    ASSERT_OK(WriteDataset(*data, plain, id, write).status());
  }

  Properties vend_props = root_props;
  vend_props["credential_vendor.enabled"] = "true";
  vend_props["credential_vendor.aws_role_arn"] = env_.sts_role_arn;
  vend_props["credential_vendor.aws_region"] = env_.region;
  vend_props["credential_vendor.permission"] = "read";
  vend_props["credential_vendor.reported_lifetime_millis"] = "1500";
  vend_props["credential_vendor.refresh_offset_millis"] = "500";
  ASSERT_OK_AND_ASSIGN(auto vending, DirectoryNamespace::FromProperties(vend_props));
  for (io::RefreshMode mode : {io::RefreshMode::kBackground, io::RefreshMode::kInline}) {
    SCOPED_TRACE(std::string(io::RefreshModeName(mode)));
    NamespaceAccessOptions access;
    access.refresh.mode = mode;
    ASSERT_OK_AND_ASSIGN(auto opened, OpenDataset(vending, id, {}, access));
    ASSERT_OK_AND_ASSIGN(auto first, opened->ToTable());
    EXPECT_EQ(first->num_rows(), 3);
    const auto& source = opened->storage_access().credentials;
    ASSERT_NE(source, nullptr);
    ASSERT_OK_AND_ASSIGN(auto seeded, source->Current());
    EXPECT_NE(seeded->aws.access_key_id, env_.access_key);
    std::this_thread::sleep_for(std::chrono::milliseconds(1700));  // past the expiry
    ASSERT_OK_AND_ASSIGN(auto again, opened->ToTable());
    EXPECT_EQ(again->num_rows(), 3);
    ASSERT_OK_AND_ASSIGN(auto refreshed, source->Current());
    EXPECT_NE(refreshed->aws.access_key_id, seeded->aws.access_key_id);
  }

  // Mode "none": the same vending with the session's own lifetime never refreshes.
  vend_props.erase("credential_vendor.reported_lifetime_millis");
  ASSERT_OK_AND_ASSIGN(auto long_lived, DirectoryNamespace::FromProperties(vend_props));
  ASSERT_OK_AND_ASSIGN(auto opened, OpenDataset(long_lived, id));
  ASSERT_OK_AND_ASSIGN(auto rows, opened->ToTable());
  EXPECT_EQ(rows->num_rows(), 3);
}

TEST_F(CredentialVendingTest, StsFailureIsAClearErrorWithoutSecrets) {
  Properties props{{"root", root_},
                   {"credential_vendor.enabled", "true"},
                   {"credential_vendor.aws_role_arn", "arn:aws:iam:::role/NoSuchRole"}};
  for (const auto& [k, v] : env_.Options()) props["storage." + k] = v;
  ASSERT_OK_AND_ASSIGN(auto ns, DirectoryNamespace::FromProperties(props));
  auto declared = ns->DeclareTable({.id = {"t"}});
  ASSERT_FALSE(declared.ok());
  const std::string message = declared.status().ToString();
  // RGW: 404 NoSuchEntity, a configuration error.
  EXPECT_TRUE(declared.status().IsInvalid()) << message;
  EXPECT_THAT(message, HasSubstr("AssumeRole"));
  EXPECT_THAT(message, HasSubstr("NoSuchRole"));
  EXPECT_THAT(message, HasSubstr(root_ + "/t.lance"));
  EXPECT_THAT(message, Not(HasSubstr(env_.secret_key)));
  EXPECT_NE(declared.status().detail_as<io::HttpErrorDetail>(), nullptr) << message;

  // Wrong caller credentials: Forbidden from STS.
  AwsCredentialVendorOptions options = VendorOptions();
  options.caller_storage_options["aws_secret_access_key"] = "wrong-secret-value";
  ASSERT_OK_AND_ASSIGN(auto vendor, MakeAwsCredentialVendor(options));
  auto refused = vendor->Vend(root_ + "/t.lance", VendPermission::kRead);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsForbidden()) << refused.status();
  EXPECT_THAT(refused.status().ToString(), Not(HasSubstr("wrong-secret-value")));
}

}  // namespace
}  // namespace lance::ns
