// SPDX-License-Identifier: Apache-2.0
// Credential vending and refresh through a Lance Namespace, against the real RGW of the
// tests with real, revocable credentials: the ten scenarios of the refresh contract
// (credential-refresh reference; Lance's test_namespace_integration.py) with exact
// namespace call counts and data equality, 32 readers across an expiry, two tables whose
// keys are isolated on the server, and local / memory roots that never call the provider.
//
// The namespace under test (VendingNamespace) wraps a DirectoryNamespace on an S3 root
// that does its own I/O with the static test key. Every describe_table / declare_table /
// create_empty_table it answers carries a NEW RGW access key (radosgw-admin, no session
// token) that expires kTtl later (refresh_offset_millis = kOffset), and a reaper revokes
// each key on the server kRevokeGrace after it expired. A client that failed to refresh
// would therefore get 403 -- and the S3 client's one forced refresh on a rejection would
// show up as an extra describe_table, so the exact counts below also prove that no
// request was ever signed with an expired key.
//
// Timing, for a loaded 2-core machine (Lance uses TTL 3 s and waits of 5 s):
// - Keys are minted before the timed part of a test (Premint), so radosgw-admin's latency
//   (seconds under load) is never inside a key's lifetime: a vend only takes a ready key.
// - TTL 15 s, offset 1 s: what a scenario does before its wait has 14 s from the first
//   vend before the timed refresh would add a call; the checks print the elapsed time so
//   that a slow machine is told apart from a wrong count.
// - A wait is not a fixed sleep: it lasts until every key vended so far has expired and
//   been revoked on the server (the reaper says so), with a generous hang guard.
// - Where the timed refresh must have done the work, the providers' counters show no
//   forced refresh (a 403 retried with a new key would be one).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "dataset/dataset_internal.h"
#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/format/file_reader.h"
#include "lance/format/file_session.h"
#include "lance/format/file_writer.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/io/storage_access.h"
#include "lance/namespace/dataset_ops.h"
#include "lance/namespace/directory_namespace.h"
#include "lance/namespace/storage_options_provider.h"
#include "tests/s3/s3_fixture.h"
#include "tests/testing/eventually.h"
#include "tests/testing/matchers.h"
#include "tests/testing/refresh_fixture.h"
#include "tests/testing/temp_dir.h"

namespace lance::ns {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using Millis = std::chrono::milliseconds;

constexpr Millis kTtl{15'000};
constexpr Millis kOffset{1'000};
constexpr Millis kRevokeGrace{1'000};
// TTL of the keys vended after a test's wait (or, for the readers, after the open): the
// part after the refresh is not the thing timed, so its keys outlive the test whatever
// the load (the reaper revokes them at the end).
constexpr Millis kAfterWaitTtl{600'000};
// Hang guard of a wait for revocations (never the thing measured).
constexpr Millis kWaitGuard{180'000};

using ::lance::testing::refresh::NowMillis;

// Keys are minted and revoked by testing::CreateAccessKey / RemoveAccessKey: this suite's
// own RGW user, one change at a time (s3_env.h).

// Mints keys ahead of the timed part of a test, and revokes keys on the server at their
// deadline; whatever is left (pool and schedule) is revoked when the reaper is destroyed
// (end of the test), so no key outlives its test.
class KeyReaper {
 public:
  KeyReaper() : thread_([this] { Run(); }) {}
  ~KeyReaper() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    for (const auto& [key, at] : pending_) Remove(key);
    for (const auto& key : pool_) Remove(key.access_key_id);
  }

  // Mints `n` keys now, before the test's timed part.
  void Premint(int n) {
    for (int i = 0; i < n; ++i) {
      auto key = testing::CreateAccessKey();
      ASSERT_TRUE(key.ok()) << key.status();
      std::lock_guard lock(mu_);
      pool_.push_back(*key);
    }
  }

  // A pre-minted key; an error when the test minted too few (a vend never mints inside a
  // key's lifetime).
  Result<io::s3::AwsCredentials> Take() {
    std::lock_guard lock(mu_);
    if (pool_.empty()) {
      return Status::Invalid(
          "no pre-minted key left: the test must Premint() every key it vends");
    }
    io::s3::AwsCredentials key = pool_.front();
    pool_.erase(pool_.begin());
    return key;
  }

  void Schedule(const std::string& key_id, int64_t revoke_at_millis) {
    {
      std::lock_guard lock(mu_);
      pending_[key_id] = revoke_at_millis;
    }
    cv_.notify_all();
  }

  // Revokes `key_id` now (if not yet revoked).
  void RevokeNow(const std::string& key_id) {
    {
      std::lock_guard lock(mu_);
      if (pending_.erase(key_id) == 0) return;
    }
    Remove(key_id);
  }

  int revoked() const { return revoked_.load(); }

  // True once `key_id` has been revoked on the server.
  bool IsRevoked(const std::string& key_id) const {
    std::lock_guard lock(mu_);
    return revoked_keys_.count(key_id) > 0;
  }

  // True once every key scheduled so far has been revoked on the server.
  bool AllScheduledRevoked() const {
    std::lock_guard lock(mu_);
    return pending_.empty() && in_flight_ == 0;
  }

  // Waits until every key vended so far has expired and been revoked: the next request
  // with one of them would get 403. Event-based; the guard only stops a hang.
  void WaitAllRevoked() const {
    const auto started = std::chrono::steady_clock::now();
    EXPECT_TRUE(
        lance::testing::Eventually([this] { return AllScheduledRevoked(); }, kWaitGuard))
        << "vended keys were still not revoked after " << kWaitGuard.count() << " ms";
    std::cout << "[ info ] waited "
              << std::chrono::duration_cast<Millis>(std::chrono::steady_clock::now() -
                                                    started)
                     .count()
              << " ms for the vended keys to expire and be revoked\n";
  }

 private:
  void Remove(const std::string& key_id) {
    Status st = testing::RemoveAccessKey(key_id);
    EXPECT_TRUE(st.ok()) << "revoking a vended key: " << st;
    {
      std::lock_guard lock(mu_);
      revoked_keys_.insert(key_id);
    }
    ++revoked_;
  }

  void Run() {
    std::unique_lock lock(mu_);
    while (!stop_) {
      std::string due;
      int64_t next = INT64_MAX;
      const int64_t now = NowMillis();
      for (const auto& [key, at] : pending_) {
        if (at <= now) {
          due = key;
          break;
        }
        next = std::min(next, at);
      }
      if (!due.empty()) {
        pending_.erase(due);
        ++in_flight_;
        lock.unlock();
        Remove(due);
        lock.lock();
        --in_flight_;
        continue;
      }
      if (next == INT64_MAX) {
        cv_.wait(lock);
      } else {
        cv_.wait_for(lock, Millis(next - now));
      }
    }
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, int64_t> pending_;
  std::vector<io::s3::AwsCredentials> pool_;
  int in_flight_ = 0;
  std::set<std::string> revoked_keys_;
  std::atomic<int> revoked_{0};
  bool stop_ = false;
  std::thread thread_;
};

// The counting, key-vending namespace described at the top.
class VendingNamespace final : public lance::testing::refresh::CountingNamespace {
 public:
  VendingNamespace(std::shared_ptr<LanceNamespace> inner, KeyReaper* reaper,
                   Millis ttl = kTtl)
      : inner_(std::move(inner)), reaper_(reaper), ttl_ms_(ttl.count()) {}

  // The TTL of the keys vended from now on.
  void set_ttl(Millis ttl) { ttl_ms_ = ttl.count(); }

  // Every key vended for `id`, oldest first.
  std::vector<std::string> keys_of(const Identifier& id) const {
    std::lock_guard lock(mu_);
    auto it = keys_by_table_.find(JoinIdentifier(id));
    return it == keys_by_table_.end() ? std::vector<std::string>{} : it->second;
  }
  // Milliseconds since the first vend (for messages about slow machines).
  int64_t since_first_vend() const {
    const int64_t first = first_vend_.load();
    return first == 0 ? -1 : NowMillis() - first;
  }

 protected:
  const std::shared_ptr<LanceNamespace>& inner() const override { return inner_; }

  Status OnVended(const Identifier& id, std::optional<Properties>* options) override {
    if (!options->has_value()) {
      return Status::Invalid(
          "the inner namespace returned no storage options to vend into");
    }
    LANCE_ASSIGN_OR_RAISE(io::s3::AwsCredentials key, reaper_->Take());
    // The key was minted before the test's timed part; its lifetime starts now.
    const int64_t expires = NowMillis() + ttl_ms_.load();
    int64_t zero = 0;
    first_vend_.compare_exchange_strong(zero, NowMillis());
    Properties& out = **options;
    for (const char* k : {"aws_session_token", "session_token", "token", "aws_token"}) {
      out.erase(k);
    }
    out["aws_access_key_id"] = key.access_key_id;
    out["aws_secret_access_key"] = key.secret_access_key;
    out["expires_at_millis"] = std::to_string(expires);
    out["refresh_offset_millis"] = std::to_string(kOffset.count());
    {
      std::lock_guard lock(mu_);
      keys_by_table_[JoinIdentifier(id)].push_back(key.access_key_id);
    }
    reaper_->Schedule(key.access_key_id, expires + kRevokeGrace.count());
    return Status::OK();
  }

 private:
  std::shared_ptr<LanceNamespace> inner_;
  KeyReaper* reaper_;
  std::atomic<int64_t> ttl_ms_;
  std::atomic<int64_t> first_vend_{0};
  mutable std::mutex mu_;
  std::map<std::string, std::vector<std::string>> keys_by_table_;
};

// -- Data
// ---------------------------------------------------------------------------------

using ::lance::testing::refresh::ExpectFileHolds;
using ::lance::testing::refresh::FileSchema;
using ::lance::testing::refresh::Rows;
using ::lance::testing::refresh::SortedIds;
using ::lance::testing::refresh::TableOf;
using ::lance::testing::refresh::WriteFile;

std::unique_ptr<RecordBatchReader> ReaderOf(std::vector<RecordBatchPtr> batches) {
  auto s = batches.front()->schema();
  return RecordBatchReader::FromBatches(s, std::move(batches));
}

// -- Fixture
// ------------------------------------------------------------------------------

class NamespaceRefreshTest
    : public lance::testing::refresh::RefreshFixture<lance::testing::S3PrefixTest,
                                                     VendingNamespace> {
 protected:
  NamespaceRefreshTest() : RefreshFixture("nsroot") {}
  // The namespace goes before the reaper, which then revokes what is left.
  ~NamespaceRefreshTest() override { ns_.reset(); }

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(S3PrefixTest::SetUp());
    ns_ = MakeNamespace(root_);
    ASSERT_NE(ns_, nullptr);
  }

  std::shared_ptr<VendingNamespace> MakeNamespace(const std::string& root,
                                                  Millis ttl = kTtl) {
    Properties props{{"root", root}};
    for (const auto& [k, v] : env_.Options()) props["storage." + k] = v;
    auto dir = DirectoryNamespace::FromProperties(props);
    EXPECT_THAT(dir, IsOk());
    if (!dir.ok()) return nullptr;
    return std::make_shared<VendingNamespace>(*dir, &reaper_, ttl);
  }

  // "declare=1 describe=2 (N ms after the first vend)" for messages.
  std::string Counts() const override {
    return "declare=" + std::to_string(ns_->declares()) +
           " describe=" + std::to_string(ns_->describes()) + " (" +
           std::to_string(ns_->since_first_vend()) + " ms after the first vend)";
  }
  // Pre-mints a key for each of the `vends` the test expects, and one spare: an
  // unexpected call then shows up in the counts, not as a failure.
  void PremintForVends(int vends) { reaper_.Premint(vends + 1); }

  // Writes `batches` to the file `uri` through `write_access`, then expects it to hold
  // `expected` when read through `read_access`; after each, the namespace's counts are
  // one declare and `describes_after_write`, then `describes_after_read`, describes. A
  // failure is traced to `uri`.
  void WriteThenRead(const std::string& uri, const io::StorageAccess& write_access,
                     const std::vector<RecordBatchPtr>& batches,
                     const io::StorageAccess& read_access,
                     const std::vector<RecordBatchPtr>& expected,
                     int describes_after_write, int describes_after_read) {
    SCOPED_TRACE(uri);
    ASSERT_NO_FATAL_FAILURE(WriteFile(uri, write_access, batches));
    ExpectCounts(1, describes_after_write);
    ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(uri, read_access, expected));
    ExpectCounts(1, describes_after_read);
  }

  // Reads through the dataset `n` times (a real GET of its data each time) and counts
  // its rows `n` times.
  void ReadAndCount(const Dataset& ds, const std::vector<RecordBatchPtr>& expected,
                    int n = 3) {
    int64_t rows = 0;
    for (const auto& b : expected) rows += b->num_rows();
    for (int i = 0; i < n; ++i) {
      EXPECT_TRUE(HasRows(ds, expected)) << Counts();
      auto counted = ds.CountRows();
      ASSERT_THAT(counted, IsOk());
      EXPECT_EQ(*counted, rows);
      // A filtered count reads the data files.
      auto filtered = ds.CountRows("id >= 0");
      ASSERT_THAT(filtered, IsOk());
      EXPECT_EQ(*filtered, rows);
    }
  }

  // Until every key vended so far has expired and been revoked on the server; the keys
  // vended afterwards live kAfterWaitTtl.
  void Wait() const {
    reaper_.WaitAllRevoked();
    if (ns_ != nullptr) ns_->set_ttl(kAfterWaitTtl);
  }

  // The timed refresh did the work: `fetches` fetches, none forced by a 403 and none
  // failed, each one timed (in the background or blocking).
  void ExpectTimedRefreshes(int64_t fetches) const {
    RefreshFixture::ExpectTimedRefreshes(fetches);
    const io::RefreshStats stats = RootRefreshStats();
    EXPECT_EQ(stats.background_refreshes + stats.blocking_refreshes, fetches) << Counts();
  }

  // Destroyed after every handle on vended keys, revoking the rest.
  KeyReaper reaper_;
};

// 1. Open: create through the namespace, open, read; reads make no call.
TEST_F(NamespaceRefreshTest, Scenario1OpenDataset) {
  PremintForVends(2);
  const Identifier id{"open_table"};
  ASSERT_OK_AND_ASSIGN(auto created, WriteRowsTo(id, 0, 2));
  ExpectCounts(1, 0);
  EXPECT_EQ(created->version(), 1u);
  EXPECT_EQ(*created->CountRows(), 2);

  ASSERT_OK_AND_ASSIGN(auto opened, OpenDataset(ns_, id));
  ExpectCounts(1, 1);
  EXPECT_EQ(opened->version(), 1u);
  ReadAndCount(*opened, {Rows(0, 2)});
  ExpectCounts(1, 1);
  EXPECT_EQ(ns_->create_empties(), 0);
}

// 2. Refresh: after the credentials expired (and were revoked on the server), the next
// read makes exactly one describe_table and sees the same data.
TEST_F(NamespaceRefreshTest, Scenario2RefreshAfterExpiry) {
  PremintForVends(3);
  const Identifier id{"refresh_table"};
  ASSERT_OK_AND_ASSIGN(auto created, WriteRowsTo(id, 0, 2));
  ASSERT_OK_AND_ASSIGN(auto opened, OpenDataset(ns_, id));
  ReadAndCount(*opened, {Rows(0, 2)});
  ExpectCounts(1, 1);

  Wait();
  EXPECT_EQ(reaper_.revoked(), 2) << "both vended keys are revoked on the server";
  ReadAndCount(*opened, {Rows(0, 2)});
  ExpectCounts(1, 2);
  ReadAndCount(*created, {Rows(0, 2)});  // the other handle on the same provider
  ExpectCounts(1, 2);
  ExpectTimedRefreshes(1);
}

// 3. Append through the namespace, then open again.
TEST_F(NamespaceRefreshTest, Scenario3AppendThroughNamespace) {
  PremintForVends(3);
  const Identifier id{"append_table"};
  ASSERT_OK_AND_ASSIGN(auto created, WriteRowsTo(id, 0, 1));
  ExpectCounts(1, 0);
  EXPECT_EQ(*created->CountRows(), 1);
  EXPECT_EQ(created->Versions()->size(), 1u);

  ASSERT_OK_AND_ASSIGN(auto appended, WriteRowsTo(id, 1, 1, WriteMode::kAppend));
  ExpectCounts(1, 1);
  EXPECT_EQ(*appended->CountRows(), 2);
  EXPECT_EQ(appended->Versions()->size(), 2u);

  ASSERT_OK_AND_ASSIGN(auto opened, OpenDataset(ns_, id));
  ExpectCounts(1, 2);
  EXPECT_EQ(*opened->CountRows(), 2);
  EXPECT_EQ(opened->Versions()->size(), 2u);
  EXPECT_TRUE(HasRows(*opened, {Rows(0, 1), Rows(1, 1)}));
  ExpectCounts(1, 2);
}

// 4. Create mode (a nested id, in manifest mode): one declare, no describe.
TEST_F(NamespaceRefreshTest, Scenario4CreateMode) {
  PremintForVends(1);
  const Identifier id{"team", "events"};
  ASSERT_OK_AND_ASSIGN(auto created, WriteRowsTo(id, 0, 2));
  ExpectCounts(1, 0);
  EXPECT_EQ(created->version(), 1u);
  EXPECT_EQ(created->Versions()->size(), 1u);
  EXPECT_TRUE(HasRows(*created, {Rows(0, 2)}));
  ExpectCounts(1, 0);
  EXPECT_EQ(ns_->create_empties(), 0);
}

// 5. Append mode: one describe, no declare; counts afterwards make no call.
TEST_F(NamespaceRefreshTest, Scenario5AppendMode) {
  PremintForVends(2);
  const Identifier id{"append_mode"};
  ASSERT_OK(WriteRowsTo(id, 0, 1).status());
  ExpectCounts(1, 0);
  ASSERT_OK_AND_ASSIGN(auto appended, WriteRowsTo(id, 1, 1, WriteMode::kAppend));
  ExpectCounts(1, 1);
  EXPECT_EQ(appended->version(), 2u);
  ReadAndCount(*appended, {Rows(0, 1), Rows(1, 1)});
  ExpectCounts(1, 1);
}

// 6. Overwrite mode: one describe; the contents are the new data.
TEST_F(NamespaceRefreshTest, Scenario6OverwriteMode) {
  PremintForVends(2);
  const Identifier id{"overwrite_mode"};
  ASSERT_OK(WriteRowsTo(id, 0, 2).status());
  ASSERT_OK_AND_ASSIGN(auto overwritten, WriteRowsTo(id, 100, 2, WriteMode::kOverwrite));
  ExpectCounts(1, 1);
  EXPECT_EQ(overwritten->version(), 2u);
  EXPECT_EQ(overwritten->Versions()->size(), 2u);
  ReadAndCount(*overwritten, {Rows(100, 2)});
  ExpectCounts(1, 1);
}

// 7. Distributed write: declare, three workers write fragments with the declared options
// and a namespace provider, one commit; no call until the table is opened.
TEST_F(NamespaceRefreshTest, Scenario7DistributedWrite) {
  PremintForVends(2);
  const Identifier id{"distributed"};
  std::shared_ptr<Dataset> committed;
  ASSERT_NO_FATAL_FAILURE(WriteDistributed(id, &committed));
  EXPECT_EQ(committed->version(), 1u);
  EXPECT_EQ(*committed->CountRows(), 5);
  ASSERT_OK_AND_ASSIGN(auto table, committed->ToTable());
  EXPECT_THAT(SortedIds(*table), ElementsAre(0, 1, 2, 3, 4));
  ExpectCounts(1, 0);

  ASSERT_OK_AND_ASSIGN(auto opened, OpenDataset(ns_, id));
  ExpectCounts(1, 1);
  EXPECT_EQ(*opened->CountRows(), 5);
  ASSERT_OK_AND_ASSIGN(table, opened->ToTable());
  EXPECT_THAT(SortedIds(*table), ElementsAre(0, 1, 2, 3, 4));
}

// 8. File writer with a describe's options and a provider: no call until expiry, then
// exactly one for the next file; reading it back makes none.
TEST_F(NamespaceRefreshTest, Scenario8FileWriter) {
  PremintForVends(3);
  const Identifier id{"files"};
  io::StorageAccess access;
  ASSERT_NO_FATAL_FAILURE(DeclareAndDescribe(id, &access));
  const std::string file1 = root_ + "/standalone/first.lance";
  const std::string file2 = root_ + "/standalone/second.lance";

  ASSERT_NO_FATAL_FAILURE(
      WriteThenRead(file1, access, {Rows(0, 3), Rows(3, 2)}, access, {Rows(0, 5)}, 1, 1));

  Wait();
  ASSERT_NO_FATAL_FAILURE(
      WriteThenRead(file2, access, {Rows(10, 4)}, access, {Rows(10, 4)}, 2, 2));
  ExpectTimedRefreshes(1);
}

// 9. File reader with a provider: no call while valid; after expiry, exactly one.
TEST_F(NamespaceRefreshTest, Scenario9FileReader) {
  PremintForVends(3);
  const Identifier id{"reader_files"};
  const std::string file1 = root_ + "/standalone/r1.lance";
  const std::string file2 = root_ + "/standalone/r2.lance";
  ASSERT_NO_FATAL_FAILURE(WriteFile(file1, env_.Options(), {Rows(0, 6)}));

  io::StorageAccess access;
  ASSERT_NO_FATAL_FAILURE(DeclareAndDescribe(id, &access));
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(file1, access, {Rows(0, 6)}));
  ExpectCounts(1, 1);

  Wait();
  // Written with the static test key: the first vended keys are revoked by now.
  ASSERT_NO_FATAL_FAILURE(
      WriteThenRead(file2, env_.Options(), {Rows(50, 6)}, access, {Rows(50, 6)}, 1, 2));
  ExpectTimedRefreshes(1);
}

// 10. File session on a base path: no call while valid; after expiry the next write makes
// exactly one, and the read right after it none.
TEST_F(NamespaceRefreshTest, Scenario10FileSession) {
  PremintForVends(3);
  const Identifier id{"session_files"};
  io::StorageAccess access;
  ASSERT_NO_FATAL_FAILURE(DeclareAndDescribe(id, &access));
  ASSERT_OK_AND_ASSIGN(auto session,
                       format::LanceFileSession::Open(root_ + "/session", access));
  ASSERT_OK_AND_ASSIGN(bool has, session->Contains("a.lance"));
  EXPECT_FALSE(has);
  ASSERT_OK_AND_ASSIGN(auto listed, session->List());
  EXPECT_THAT(listed, IsEmpty());
  {
    ASSERT_OK_AND_ASSIGN(auto writer, session->OpenWriter("a.lance", FileSchema()));
    ASSERT_OK(writer->WriteBatch(*Rows(0, 4)));
    ASSERT_OK(writer->Close().status());
    ASSERT_OK_AND_ASSIGN(auto reader, session->OpenReader("a.lance"));
    ASSERT_OK_AND_ASSIGN(auto table, reader->ReadTable());
    EXPECT_TRUE(table->Equals(*TableOf({Rows(0, 4)})));
  }
  ExpectCounts(1, 1);

  Wait();
  {
    ASSERT_OK_AND_ASSIGN(auto writer, session->OpenWriter("sub/b.lance", FileSchema()));
    ASSERT_OK(writer->WriteBatch(*Rows(20, 3)));
    ASSERT_OK(writer->Close().status());
  }
  ExpectCounts(1, 2);
  ASSERT_OK_AND_ASSIGN(auto reader, session->OpenReader("sub/b.lance"));
  ASSERT_OK_AND_ASSIGN(auto table, reader->ReadTable());
  EXPECT_TRUE(table->Equals(*TableOf({Rows(20, 3)})));
  ASSERT_OK_AND_ASSIGN(listed, session->List());
  EXPECT_THAT(listed, ElementsAre("a.lance", "sub/b.lance"));
  ExpectCounts(1, 2);
  ExpectTimedRefreshes(1);
}

// Beyond Lance: 32 threads reading across an expiry make exactly one describe_table and
// see no failure.
TEST_F(NamespaceRefreshTest, ThirtyTwoReadersAcrossAnExpiry) {
  PremintForVends(3);
  const Identifier id{"many_readers"};
  std::shared_ptr<Dataset> opened;
  ASSERT_NO_FATAL_FAILURE(WriteThreeFragmentsAndOpen(id, &opened));
  const std::vector<std::string> keys = ns_->keys_of(id);
  ASSERT_EQ(keys.size(), 2u);
  const std::string opened_key = keys.back();  // the describe's, used by `opened`
  ns_->set_ttl(kAfterWaitTtl);                 // the refresh's key outlives the readers

  // Every thread reads until the key of the open has expired and been revoked on the
  // server, then twice more.
  const int reads = lance::testing::refresh::ReadAcrossExpiry(
      *opened, *TableOf({Rows(0, 60)}), 32, [&] { return reaper_.IsRevoked(opened_key); },
      Millis(25), kWaitGuard, "key", "revocation");
  ExpectCounts(1, 2);
  ExpectTimedRefreshes(1);
  std::cout << "[ info ] 32 readers made " << reads << " reads across an expiry, "
            << ns_->describes() - 1 << " refresh call(s)\n";
}

// Beyond Lance: two tables with different providers never use each other's keys. Revoking
// every key vended for one table leaves the other working without any call; the first
// then recovers with exactly one forced refresh. The registry gives them different
// stores.
TEST_F(NamespaceRefreshTest, TwoTablesNeverShareKeys) {
  PremintForVends(6);
  const Identifier a{"table_a"}, b{"table_b"};
  ASSERT_OK(WriteRowsTo(a, 0, 3).status());
  ASSERT_OK(WriteRowsTo(b, 100, 3).status());
  ASSERT_OK_AND_ASSIGN(auto ds_a, OpenDataset(ns_, a));
  ASSERT_OK_AND_ASSIGN(auto ds_b, OpenDataset(ns_, b));
  ExpectCounts(2, 2);
  EXPECT_TRUE(HasRows(*ds_a, {Rows(0, 3)}));
  EXPECT_TRUE(HasRows(*ds_b, {Rows(100, 3)}));

  // Different stores (and credentials sources) for the two tables, though one bucket.
  const auto& store_a = DatasetImplAccess::Get(*ds_a)->dir.store();
  const auto& store_b = DatasetImplAccess::Get(*ds_b)->dir.store();
  EXPECT_NE(store_a, store_b);
  ASSERT_NE(ds_a->storage_access().credentials, nullptr);
  ASSERT_NE(ds_b->storage_access().credentials, nullptr);
  EXPECT_NE(ds_a->storage_access().credentials->id(),
            ds_b->storage_access().credentials->id());
  // A second handle on table a shares table a's store (keyed by the provider id).
  ASSERT_OK_AND_ASSIGN(auto ds_a2, OpenDataset(ns_, a));
  EXPECT_EQ(DatasetImplAccess::Get(*ds_a2)->dir.store(), store_a);
  ExpectCounts(2, 3);
  const int describes_b = ns_->describes_of(b);

  // Revoke everything vended for table a, on the server.
  const auto keys_a = ns_->keys_of(a);
  ASSERT_EQ(keys_a.size(), 3u);
  for (const auto& key : keys_a) reaper_.RevokeNow(key);

  // Table b keeps working, with no namespace call at all.
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(HasRows(*ds_b, {Rows(100, 3)}));
  auto data = ReaderOf({Rows(103, 1)});
  ASSERT_OK_AND_ASSIGN(auto appended_b, Dataset::Write(*data, ds_b->uri(), [&] {
                         WriteParams p;
                         p.mode = WriteMode::kAppend;
                         p.access = ds_b->storage_access();
                         return p;
                       }()));
  EXPECT_TRUE(HasRows(*appended_b, {Rows(100, 3), Rows(103, 1)}));
  EXPECT_EQ(ns_->describes_of(b), describes_b);
  ExpectCounts(2, 3);

  // Table a's next request is refused (403), which forces exactly one refresh, and the
  // retry with the new key succeeds.
  EXPECT_TRUE(HasRows(*ds_a, {Rows(0, 3)}));
  ExpectCounts(2, 4);
  EXPECT_EQ(ns_->describes_of(a), 3);
  EXPECT_TRUE(HasRows(*ds_a2, {Rows(0, 3)}));  // same store: already refreshed
  ExpectCounts(2, 4);
  const io::RefreshStats stats = RootRefreshStats();
  EXPECT_EQ(stats.forced_refreshes, 1) << "only table a's 403 forces a refresh";
  EXPECT_EQ(stats.fetches, 1);
}

// Local and memory roots: the namespace vends (real, expiring) keys, a provider is
// attached, but the stores never ask it, before or after expiry (as Lance).
TEST_F(NamespaceRefreshTest, LocalAndMemoryRootsNeverCallTheProvider) {
  PremintForVends(4);
  lance::testing::TempDir tmp;
  const Millis short_ttl{1'500};
  struct Root {
    std::shared_ptr<VendingNamespace> ns;
    std::shared_ptr<Dataset> ds;
  };
  std::vector<Root> roots;
  for (const std::string& root : std::vector<std::string>{
           tmp.Join("nsroot"),
           "memory://h9-refresh-" + std::to_string(::getpid()) + "/nsroot"}) {
    SCOPED_TRACE(root);
    auto ns = MakeNamespace(root, short_ttl);
    ASSERT_NE(ns, nullptr);
    auto data = ReaderOf({Rows(0, 4)});
    ASSERT_OK(WriteDataset(*data, ns, {"local"}).status());
    ASSERT_OK_AND_ASSIGN(auto ds, OpenDataset(ns, {"local"}));
    EXPECT_EQ(ns->declares(), 1);
    EXPECT_EQ(ns->describes(), 1);
    roots.push_back({ns, ds});
  }
  Wait();  // every vended key expired and revoked
  for (auto& r : roots) {
    EXPECT_TRUE(HasRows(*r.ds, {Rows(0, 4)}));
    auto data = ReaderOf({Rows(4, 1)});
    WriteParams p;
    p.mode = WriteMode::kAppend;
    p.access = r.ds->storage_access();
    ASSERT_NE(p.access.credentials, nullptr);  // a provider is attached...
    ASSERT_OK_AND_ASSIGN(auto appended, Dataset::Write(*data, r.ds->uri(), p));
    EXPECT_EQ(*appended->CountRows("id >= 0"), 5);
    EXPECT_EQ(r.ns->describes(), 1);  // ...and never called
    EXPECT_EQ(r.ns->declares(), 1);
    auto* source =
        dynamic_cast<io::RefreshingCredentialsSource*>(p.access.credentials.get());
    ASSERT_NE(source, nullptr);
    EXPECT_EQ(source->stats().fetches, 0);
  }
}

}  // namespace
}  // namespace lance::ns
