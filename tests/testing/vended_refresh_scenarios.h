// SPDX-License-Identifier: Apache-2.0
// The refresh scenarios of the credential-refresh contract (Lance's
// test_namespace_integration.py; the S3 version with revocable RGW keys is
// tests/s3/namespace_refresh_test.cc) for any cloud whose namespace vends credentials
// that the storage server itself refuses once expired: an Azure SAS on Azurite, a
// downscoped Google token behind the token-checking proxy of the GCS tests.
//
// The namespace under test is a real DirectoryNamespace with `credential_vendor.*`
// (the cloud's own vendor, its tokens minted with a short lifetime through
// `credential_vendor.reported_lifetime_millis`), wrapped to count its calls. A client
// that failed to refresh would be refused by the server; the S3 store's and the Azure /
// GCS stores' one forced refresh on a rejection would show up as an extra describe_table
// and as a forced refresh in the statistics, so the exact counts prove that no request
// went out with an expired token.
//
// Include this header in exactly one test source of a binary, then instantiate:
//   LANCE_INSTANTIATE_VENDED_REFRESH(Azure, MakeAzureCloud());
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/format/file_reader.h"
#include "lance/format/file_session.h"
#include "lance/format/file_writer.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/io/storage_access.h"
#include "lance/namespace/dataset_ops.h"
#include "lance/namespace/directory_namespace.h"
#include "lance/namespace/storage_options_provider.h"
#include "tests/testing/eventually.h"
#include "tests/testing/matchers.h"
#include "tests/testing/refresh_fixture.h"

namespace lance::testing {

/// \brief How a cloud's test run builds a vending namespace.
struct VendedCloud {
  /// \brief Test-name suffix.
  std::string name;
  /// \brief A fresh root (a unique prefix) of the cloud's test bucket or container.
  std::function<std::string()> make_root;
  /// \brief The namespace's own storage options (they write and read without vending).
  io::StorageOptions root_options;
  /// \brief The `credential_vendor.*` properties of the cloud (enabled, permission, the
  /// token service's endpoint...), without reported_lifetime_millis and
  /// refresh_offset_millis, which the scenarios set.
  std::map<std::string, std::string> vendor_properties;
  /// \brief Called with every vended options map (to record secrets, for example).
  std::function<void(const io::StorageOptions&)> on_vended;
  /// \brief Optional: more properties of the namespace whose tokens live `ttl`, for a
  /// token service that must be told the lifetime itself (the GCS tests' STS stand-in
  /// reads it from its URL), so that the tokens really expire when reported.
  std::function<std::map<std::string, std::string>(std::chrono::milliseconds ttl)>
      lifetime_properties;
};

namespace vended_refresh {

using Millis = std::chrono::milliseconds;

/// Lifetime of the tokens vended before a test's wait, and the refresh offset.
inline constexpr Millis kTtl{12'000};
inline constexpr Millis kOffset{2'000};
/// Lifetime of the tokens vended after the wait: they outlive the test.
inline constexpr Millis kAfterWaitTtl{600'000};
/// After the last expiry, how long a wait goes on (the server's clock reads seconds).
inline constexpr Millis kExpiryMargin{1'500};

using refresh::FileSchema;
using refresh::NowMillis;
using refresh::Rows;
using refresh::SortedIds;
using refresh::TableOf;

/// Two DirectoryNamespaces on one root (tokens of kTtl before the wait, of kAfterWaitTtl
/// after it), behind one LanceNamespace that counts the calls and remembers when the
/// tokens it handed out expire.
class CountingVendingNamespace final : public refresh::CountingNamespace {
 public:
  CountingVendingNamespace(std::shared_ptr<ns::LanceNamespace> short_lived,
                           std::shared_ptr<ns::LanceNamespace> long_lived,
                           std::function<void(const io::StorageOptions&)> on_vended)
      : short_(std::move(short_lived)),
        long_(std::move(long_lived)),
        on_vended_(std::move(on_vended)) {}

  void UseLongLived() { long_lived_ = true; }

  /// The latest expiry handed out (epoch ms), 0 before any.
  int64_t latest_expiry() const { return latest_expiry_.load(); }
  /// Every token-bearing options map vended for `id`, oldest first.
  std::vector<io::StorageOptions> vended_for(const ns::Identifier& id) const {
    std::lock_guard lock(mu_);
    auto it = vended_.find(ns::JoinIdentifier(id));
    return it == vended_.end() ? std::vector<io::StorageOptions>{} : it->second;
  }

 protected:
  const std::shared_ptr<ns::LanceNamespace>& inner() const override {
    return long_lived_.load() ? long_ : short_;
  }

  Status OnVended(const ns::Identifier& id,
                  std::optional<ns::Properties>* options) override {
    if (!options->has_value()) return Status::OK();
    if (on_vended_) on_vended_(**options);
    auto it = (*options)->find("expires_at_millis");
    if (it != (*options)->end()) {
      const int64_t expires = std::stoll(it->second);
      int64_t seen = latest_expiry_.load();
      while (expires > seen && !latest_expiry_.compare_exchange_weak(seen, expires)) {
      }
    }
    std::lock_guard lock(mu_);
    vended_[ns::JoinIdentifier(id)].push_back(**options);
    return Status::OK();
  }

 private:
  const std::shared_ptr<ns::LanceNamespace> short_;
  const std::shared_ptr<ns::LanceNamespace> long_;
  const std::function<void(const io::StorageOptions&)> on_vended_;
  std::atomic<bool> long_lived_{false};
  std::atomic<int64_t> latest_expiry_{0};
  mutable std::mutex mu_;
  std::map<std::string, std::vector<io::StorageOptions>> vended_;
};

}  // namespace vended_refresh

/// The parameter and the root of a run of the scenarios.
class VendedRefreshParamTest : public ::testing::TestWithParam<VendedCloud> {
 protected:
  std::string root_;
};

class VendedRefreshTest
    : public refresh::RefreshFixture<VendedRefreshParamTest,
                                     vended_refresh::CountingVendingNamespace> {
 protected:
  using Millis = vended_refresh::Millis;

  void SetUp() override {
    const VendedCloud& cloud = GetParam();
    root_ = cloud.make_root();
    auto make = [&](Millis ttl) -> std::shared_ptr<ns::LanceNamespace> {
      ns::Properties props{{"root", root_}};
      for (const auto& [k, v] : cloud.root_options) props["storage." + k] = v;
      for (const auto& [k, v] : cloud.vendor_properties) props[k] = v;
      props["credential_vendor.enabled"] = "true";
      props["credential_vendor.reported_lifetime_millis"] = std::to_string(ttl.count());
      props["credential_vendor.refresh_offset_millis"] =
          std::to_string(vended_refresh::kOffset.count());
      if (cloud.lifetime_properties) {
        for (const auto& [k, v] : cloud.lifetime_properties(ttl)) props[k] = v;
      }
      auto dir = ns::DirectoryNamespace::FromProperties(props);
      EXPECT_THAT(dir, IsOk());
      return dir.ok() ? *dir : nullptr;
    };
    auto short_lived = make(vended_refresh::kTtl);
    auto long_lived = make(vended_refresh::kAfterWaitTtl);
    ASSERT_NE(short_lived, nullptr);
    ASSERT_NE(long_lived, nullptr);
    ns_ = std::make_shared<vended_refresh::CountingVendingNamespace>(
        short_lived, long_lived, cloud.on_vended);
  }

  /// Until every token vended so far has expired on the server (plus a margin); tokens
  /// vended afterwards outlive the test.
  void Wait() {
    const int64_t until = ns_->latest_expiry() + vended_refresh::kExpiryMargin.count();
    const int64_t now = vended_refresh::NowMillis();
    if (until > now) std::this_thread::sleep_for(Millis(until - now));
    ns_->UseLongLived();
    std::cout << "[ info ] waited " << std::max<int64_t>(0, until - now)
              << " ms for the vended tokens to expire\n";
  }
};

using vended_refresh::Rows;

// 1 and 2. Open, read (no call), and after the tokens expired on the server, exactly one
// describe_table; both handles (created and opened) share the refreshed token.
TEST_P(VendedRefreshTest, OpenThenRefreshAfterExpiry) {
  const ns::Identifier id{"refresh_table"};
  ASSERT_OK_AND_ASSIGN(auto created, WriteRowsTo(id, 0, 2));
  ExpectCounts(1, 0);
  ASSERT_OK_AND_ASSIGN(auto opened, ns::OpenDataset(ns_, id));
  ExpectCounts(1, 1);
  EXPECT_TRUE(HasRows(*opened, {Rows(0, 2)}));
  EXPECT_EQ(*opened->CountRows("id >= 0"), 2);
  ExpectCounts(1, 1);

  Wait();
  EXPECT_TRUE(HasRows(*opened, {Rows(0, 2)}));
  ExpectCounts(1, 2);
  EXPECT_TRUE(HasRows(*created, {Rows(0, 2)}));
  ExpectCounts(1, 2);
  ExpectTimedRefreshes(1);
}

// 3, 5 and 6. Append and overwrite through the namespace: one describe each.
TEST_P(VendedRefreshTest, AppendAndOverwriteThroughTheNamespace) {
  const ns::Identifier id{"append_table"};
  ASSERT_OK(WriteRowsTo(id, 0, 1).status());
  ExpectCounts(1, 0);
  ASSERT_OK_AND_ASSIGN(auto appended, WriteRowsTo(id, 1, 1, WriteMode::kAppend));
  ExpectCounts(1, 1);
  EXPECT_EQ(appended->version(), 2u);
  EXPECT_TRUE(HasRows(*appended, {Rows(0, 1), Rows(1, 1)}));
  ASSERT_OK_AND_ASSIGN(auto overwritten, WriteRowsTo(id, 100, 2, WriteMode::kOverwrite));
  ExpectCounts(1, 2);
  EXPECT_EQ(overwritten->version(), 3u);
  EXPECT_TRUE(HasRows(*overwritten, {Rows(100, 2)}));
  ExpectCounts(1, 2);
}

// 4. Create mode with a nested id: one declare, no describe.
TEST_P(VendedRefreshTest, CreateModeNestedId) {
  const ns::Identifier id{"team", "events"};
  ASSERT_OK_AND_ASSIGN(auto created, WriteRowsTo(id, 0, 2));
  ExpectCounts(1, 0);
  EXPECT_TRUE(HasRows(*created, {Rows(0, 2)}));
  ExpectCounts(1, 0);
  EXPECT_EQ(ns_->create_empties(), 0);
}

// 7. Distributed write: three workers write fragments with the declared options and a
// namespace provider each, one commit; no call until the table is opened.
TEST_P(VendedRefreshTest, DistributedWrite) {
  const ns::Identifier id{"distributed"};
  std::shared_ptr<Dataset> committed;
  ASSERT_NO_FATAL_FAILURE(WriteDistributed(id, &committed));
  ASSERT_OK_AND_ASSIGN(auto table, committed->ToTable());
  EXPECT_THAT(vended_refresh::SortedIds(*table), ::testing::ElementsAre(0, 1, 2, 3, 4));
  ASSERT_OK_AND_ASSIGN(auto opened, ns::OpenDataset(ns_, id));
  ExpectCounts(1, 1);
  EXPECT_EQ(*opened->CountRows(), 5);
}

// 8 and 9. A file writer and a file reader with a describe's options and a provider: no
// call while valid, exactly one after the expiry.
TEST_P(VendedRefreshTest, FileWriterAndReader) {
  const ns::Identifier id{"files"};
  io::StorageAccess access;
  std::string location;
  ASSERT_NO_FATAL_FAILURE(DeclareAndDescribe(id, &access, &location));
  const std::string file1 = location + "/standalone/first.lance";
  const std::string file2 = location + "/standalone/second.lance";
  ASSERT_NO_FATAL_FAILURE(refresh::WriteFile(file1, access, {Rows(0, 3), Rows(3, 2)}));
  ASSERT_NO_FATAL_FAILURE(refresh::ExpectFileHolds(file1, access, {Rows(0, 5)}));
  ExpectCounts(1, 1);

  Wait();
  ASSERT_NO_FATAL_FAILURE(refresh::WriteFile(file2, access, {Rows(10, 4)}));
  ExpectCounts(1, 2);
  ASSERT_NO_FATAL_FAILURE(refresh::ExpectFileHolds(file2, access, {Rows(10, 4)}));
  ASSERT_NO_FATAL_FAILURE(refresh::ExpectFileHolds(file1, access, {Rows(0, 5)}));
  ExpectCounts(1, 2);
  ExpectTimedRefreshes(1);
}

// 10. A file session on a base path: after the expiry the next write makes exactly one
// call, the read and the listing right after it none.
TEST_P(VendedRefreshTest, FileSession) {
  const ns::Identifier id{"session_files"};
  io::StorageAccess access;
  std::string location;
  ASSERT_NO_FATAL_FAILURE(DeclareAndDescribe(id, &access, &location));
  ASSERT_OK_AND_ASSIGN(auto session,
                       format::LanceFileSession::Open(location + "/session", access));
  {
    ASSERT_OK_AND_ASSIGN(auto writer,
                         session->OpenWriter("a.lance", vended_refresh::FileSchema()));
    ASSERT_OK(writer->WriteBatch(*Rows(0, 4)));
    ASSERT_OK(writer->Close().status());
  }
  ExpectCounts(1, 1);
  Wait();
  {
    ASSERT_OK_AND_ASSIGN(
        auto writer, session->OpenWriter("sub/b.lance", vended_refresh::FileSchema()));
    ASSERT_OK(writer->WriteBatch(*Rows(20, 3)));
    ASSERT_OK(writer->Close().status());
  }
  ExpectCounts(1, 2);
  ASSERT_OK_AND_ASSIGN(auto reader, session->OpenReader("sub/b.lance"));
  ASSERT_OK_AND_ASSIGN(auto table, reader->ReadTable());
  EXPECT_TRUE(table->Equals(*vended_refresh::TableOf({Rows(20, 3)})));
  ASSERT_OK_AND_ASSIGN(auto listed, session->List());
  EXPECT_THAT(listed, ::testing::ElementsAre("a.lance", "sub/b.lance"));
  ExpectCounts(1, 2);
  ExpectTimedRefreshes(1);
}

// Beyond Lance: 32 threads reading across an expiry make exactly one describe_table and
// see no failure.
TEST_P(VendedRefreshTest, ThirtyTwoReadersAcrossAnExpiry) {
  const ns::Identifier id{"many_readers"};
  std::shared_ptr<Dataset> opened;
  ASSERT_NO_FATAL_FAILURE(WriteThreeFragmentsAndOpen(id, &opened));
  const int64_t expired_at = ns_->latest_expiry() + vended_refresh::kExpiryMargin.count();
  ns_->UseLongLived();  // the refreshed token outlives the readers
  refresh::ReadAcrossExpiry(
      *opened, *vended_refresh::TableOf({Rows(0, 60)}), 32,
      [&] { return vended_refresh::NowMillis() >= expired_at; }, Millis(50),
      std::chrono::minutes(3), "token", "expiry");
  ExpectCounts(1, 2);
  ExpectTimedRefreshes(1);
}

// Beyond Lance: two tables get different tokens and different stores.
TEST_P(VendedRefreshTest, TwoTablesNeverShareTokens) {
  const ns::Identifier a{"table_a"}, b{"table_b"};
  ASSERT_OK(WriteRowsTo(a, 0, 3).status());
  ASSERT_OK(WriteRowsTo(b, 100, 3).status());
  ASSERT_OK_AND_ASSIGN(auto ds_a, ns::OpenDataset(ns_, a));
  ASSERT_OK_AND_ASSIGN(auto ds_b, ns::OpenDataset(ns_, b));
  EXPECT_TRUE(HasRows(*ds_a, {Rows(0, 3)}));
  EXPECT_TRUE(HasRows(*ds_b, {Rows(100, 3)}));
  ASSERT_NE(ds_a->storage_access().credentials, nullptr);
  ASSERT_NE(ds_b->storage_access().credentials, nullptr);
  EXPECT_NE(ds_a->storage_access().credentials->id(),
            ds_b->storage_access().credentials->id());
  ASSERT_OK_AND_ASSIGN(auto creds_a, ds_a->storage_access().credentials->Current());
  ASSERT_OK_AND_ASSIGN(auto creds_b, ds_b->storage_access().credentials->Current());
  EXPECT_FALSE(creds_a->empty());
  // A vendor that can scope to the table hands each table its own token; one that can
  // only scope to the container (an Azure SAS on a flat account) says so in the answer,
  // and then the same container SAS may serve both.
  const auto vended = ns_->vended_for(a);
  ASSERT_FALSE(vended.empty());
  auto scope = vended.back().find("lance_cpp_vended_scope");
  if (scope == vended.back().end() || scope->second.rfind("container:", 0) != 0) {
    EXPECT_NE(*creds_a, *creds_b);
  } else {
    std::cout << "[ info ] the vendor scopes to the whole container (" << scope->second
              << "): the tables may share a SAS\n";
  }
}

#define LANCE_INSTANTIATE_VENDED_REFRESH(Name, cloud)    \
  INSTANTIATE_TEST_SUITE_P(                              \
      Name, VendedRefreshTest, ::testing::Values(cloud), \
      [](const ::testing::TestParamInfo<VendedCloud>& info) { return info.param.name; })

}  // namespace lance::testing
