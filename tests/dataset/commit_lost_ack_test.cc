// SPDX-License-Identifier: Apache-2.0
// Lost acknowledgements of the manifest put, on a local store that plays the part of S3
// (docs/commit-protocol.md, "Lost acknowledgements"): the put is carried out and its
// answer replaced by an error -- an IOError (a reset after the request reached the
// server) or AlreadyExists (a retry meeting its own first attempt) --, optionally with
// the manifests unreadable afterwards. The commit must land exactly once, and report
// success, or CommitStateUnknown when it cannot look; a retried Dataset::Commit of the
// same fragments finds its version instead of appending the rows again. The same on RGW
// through a proxy that drops answers: tests/s3/lost_ack_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/dataset/dataset.h"
#include "lance/io/local_object_store.h"
#include "table/commit.h"
#include "tests/dataset/table_test_util.h"
#include "tests/testing/fault_store.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance {
namespace {

using namespace table_testing;  // NOLINT(build/namespaces)

bool IsManifest(std::string_view path) {
  return path.find("/_versions/") != std::string_view::npos &&
         path.find(".manifest") != std::string_view::npos;
}

// Carries out the next `lose` manifest puts and answers each with `answer` instead of
// OK; with `blind_after`, every read of a manifest fails from then on.
class LostAckStore : public io::ObjectStoreWrapper {
 public:
  using io::ObjectStoreWrapper::ObjectStoreWrapper;

  std::atomic<int> lose{0};
  std::atomic<bool> answer_already_exists{false};
  std::atomic<bool> blind_after{false};
  std::atomic<bool> blind{false};
  std::atomic<int> lost{0};

  Status PutIfNotExists(const std::string& path, std::string_view data) override {
    if (!IsManifest(path) || lose.load() <= 0) {
      return io::ObjectStoreWrapper::PutIfNotExists(path, data);
    }
    --lose;
    LANCE_RETURN_NOT_OK(io::ObjectStoreWrapper::PutIfNotExists(path, data));
    ++lost;
    if (blind_after.load()) blind = true;
    if (answer_already_exists.load()) {
      return Status::AlreadyExists("test: ", path, " already exists (our own put)");
    }
    return Status::IOError("test: connection reset after sending the put of " + path);
  }
  Result<io::ObjectMeta> Head(const std::string& path) override {
    LANCE_RETURN_NOT_OK(Blinded(path));
    return io::ObjectStoreWrapper::Head(path);
  }
  Result<BufferPtr> Read(const std::string& path) override {
    LANCE_RETURN_NOT_OK(Blinded(path));
    return io::ObjectStoreWrapper::Read(path);
  }
  Result<BufferPtr> ReadRange(const std::string& path, int64_t offset,
                              int64_t length) override {
    LANCE_RETURN_NOT_OK(Blinded(path));
    return io::ObjectStoreWrapper::ReadRange(path, offset, length);
  }
  Result<std::shared_ptr<io::RandomAccessReader>> OpenReader(
      const std::string& path) override {
    LANCE_RETURN_NOT_OK(Blinded(path));
    return io::ObjectStoreWrapper::OpenReader(path);
  }
  Result<std::shared_ptr<io::RandomAccessReader>> OpenReaderWithSize(
      const std::string& path, int64_t size) override {
    LANCE_RETURN_NOT_OK(Blinded(path));
    return io::ObjectStoreWrapper::OpenReaderWithSize(path, size);
  }

 private:
  Status Blinded(const std::string& path) const {
    if (blind.load() && IsManifest(path)) {
      return Status::Unavailable("test: the store cannot be reached to read " + path);
    }
    return Status::OK();
  }
};

class CommitLostAckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(testing::RegisterFaultScheme("lostack").ok());
    io::LocalObjectStoreOptions options;
    options.fsync = false;
    auto local = io::LocalObjectStore::Make(dir_.path(), options);
    ASSERT_TRUE(local.ok()) << local.status();
    store_ = std::make_shared<LostAckStore>(*local);
    name_ = "l" + std::to_string(reinterpret_cast<uintptr_t>(this));
    testing::InstallFaultStore(name_, store_);
    uri_ = "lostack://" + name_ + "/ds.lance";
    // Version 1: ids 0..29.
    ASSERT_TRUE(WriteRows(uri_, 0, 30).ok());
  }

  // The ids of the latest version, sorted (a row committed twice shows up twice).
  std::vector<int64_t> Ids() {
    store_->blind = false;
    auto ds = Dataset::Open(uri_);
    EXPECT_TRUE(ds.ok()) << ds.status();
    if (!ds.ok()) return {};
    auto table = (*ds)->ToTable();
    EXPECT_TRUE(table.ok()) << table.status();
    if (!table.ok()) return {};
    std::vector<int64_t> ids = Int64Column(**table, "id");
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  std::vector<uint64_t> Versions() {
    store_->blind = false;
    std::vector<uint64_t> out;
    auto ds = Dataset::Open(uri_);
    EXPECT_TRUE(ds.ok()) << ds.status();
    if (!ds.ok()) return out;
    auto versions = (*ds)->Versions();
    EXPECT_TRUE(versions.ok()) << versions.status();
    if (!versions.ok()) return out;
    for (const auto& v : *versions) out.push_back(v.version);
    return out;
  }

  static std::vector<int64_t> Iota(int64_t begin, int64_t end) {
    std::vector<int64_t> v;
    for (int64_t i = begin; i < end; ++i) v.push_back(i);
    return v;
  }

  static Result<std::shared_ptr<Dataset>> Append(const std::string& uri, int64_t start,
                                                 int64_t n) {
    return WriteRows(uri, start, n, WriteMode::kAppend);
  }

  testing::TempDir dir_;
  std::shared_ptr<LostAckStore> store_;
  std::string name_;
  std::string uri_;
};

TEST_F(CommitLostAckTest, PutWhoseAnswerIsLostIsCommittedOnce) {
  store_->lose = 1;
  ASSERT_OK_AND_ASSIGN(auto ds, Append(uri_, 100, 5));
  EXPECT_EQ(store_->lost.load(), 1);
  EXPECT_EQ(ds->version(), 2u);
  EXPECT_EQ(Versions(), (std::vector<uint64_t>{1, 2}));
  std::vector<int64_t> want = Iota(0, 30);
  for (int64_t i = 100; i < 105; ++i) want.push_back(i);
  EXPECT_EQ(Ids(), want);
}

TEST_F(CommitLostAckTest, OwnPutReportedAsAlreadyExistsIsNotRebasedOverItself) {
  // What the S3 client reports when its retry meets its own first attempt and the HEAD
  // that would recognise it fails: before, the commit took its own version for a
  // concurrent append and committed the rows again as version 3.
  store_->lose = 1;
  store_->answer_already_exists = true;
  ASSERT_OK_AND_ASSIGN(auto ds, Append(uri_, 100, 5));
  EXPECT_EQ(ds->version(), 2u);
  EXPECT_EQ(Versions(), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(Ids().size(), 35u);
}

TEST_F(CommitLostAckTest, CreateWhoseAnswerIsLostIsCommittedOnce) {
  const std::string uri = "lostack://" + name_ + "/created.lance";
  store_->lose = 1;
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRows(uri, 0, 8));
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(*ds->CountRows(), 8);
}

TEST_F(CommitLostAckTest, UnverifiableCommitIsCommitStateUnknownAndRetrySafe) {
  WriteParams params;
  params.mode = WriteMode::kAppend;
  auto reader = ReaderOf({MakeBatch(100, 6)});
  ASSERT_OK_AND_ASSIGN(auto fragments, WriteFragments(*reader, uri_, params));

  store_->lose = 1;
  store_->blind_after = true;
  auto first = Dataset::Commit(uri_, AppendOp{fragments}, 1);
  ASSERT_FALSE(first.ok());
  EXPECT_TRUE(first.status().IsCommitStateUnknown()) << first.status();
  EXPECT_FALSE(first.status().retryable());
  EXPECT_NE(first.status().message().find("may have succeeded"), std::string::npos);
  EXPECT_NE(first.status().message().find("version 2 of "), std::string::npos)
      << first.status().message();
  EXPECT_NE(first.status().message().find("ds.lance"), std::string::npos);
  EXPECT_NE(first.status().message().find("_transactions/1-"), std::string::npos)
      << first.status().message();
  EXPECT_EQ(Versions(), (std::vector<uint64_t>{1, 2})) << "it did commit";

  // Someone appends meanwhile; then the same commit is retried: it finds version 2 and
  // does not append its rows again.
  ASSERT_OK(Append(uri_, 500, 3));
  store_->blind_after = false;
  ASSERT_OK_AND_ASSIGN(auto again, Dataset::Commit(uri_, AppendOp{fragments}, 1));
  EXPECT_EQ(again->version(), 2u);
  EXPECT_EQ(Versions(), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(Ids().size(), 30u + 6u + 3u);

  // A Dataset::Write in the same situation: the same error, and the version it may have
  // committed (it did) is whole -- nothing of it was deleted.
  store_->lose = 1;
  store_->blind_after = true;
  auto written = Append(uri_, 700, 4);
  ASSERT_FALSE(written.ok());
  EXPECT_TRUE(written.status().IsCommitStateUnknown()) << written.status();
  EXPECT_EQ(Versions(), (std::vector<uint64_t>{1, 2, 3, 4}));
  EXPECT_EQ(Ids().size(), 30u + 6u + 3u + 4u);
}

TEST_F(CommitLostAckTest, PutThatFailsWithoutTakingEffectStillFails) {
  // Nothing lost here: the put is refused before it happens. Read back, nothing is
  // there, and the put's own error is the answer.
  testing::FaultSpec spec;
  spec.action = testing::StoreFault::kFail;
  spec.nth = 1;
  spec.steps = static_cast<uint32_t>(testing::StoreStep::kPutIfNotExists);
  spec.path_filter = "/_versions/";
  auto faulty = std::make_shared<testing::FaultStore>(store_);
  const std::string name = name_ + "f";
  testing::InstallFaultStore(name, faulty);
  const std::string uri = "lostack://" + name + "/ds.lance";
  faulty->Arm(spec);
  auto appended = Append(uri, 100, 5);
  ASSERT_FALSE(appended.ok());
  EXPECT_TRUE(appended.status().IsIOError()) << appended.status();
  EXPECT_NE(appended.status().message().find("publishing version 2"), std::string::npos)
      << appended.status();
  EXPECT_EQ(Versions(), (std::vector<uint64_t>{1}));
}

TEST_F(CommitLostAckTest, RetriedCommitOfTheSameFragmentsIsCommittedOnce) {
  WriteParams params;
  params.mode = WriteMode::kAppend;
  auto reader = ReaderOf({MakeBatch(100, 6)});
  ASSERT_OK_AND_ASSIGN(auto fragments, WriteFragments(*reader, uri_, params));
  ASSERT_OK_AND_ASSIGN(auto v2, Dataset::Commit(uri_, AppendOp{fragments}, 1));
  EXPECT_EQ(v2->version(), 2u);
  ASSERT_OK_AND_ASSIGN(auto again, Dataset::Commit(uri_, AppendOp{fragments}, 1));
  EXPECT_EQ(again->version(), 2u);
  EXPECT_EQ(Ids().size(), 36u);
  // Other fragments planned on version 1 are not the same commit: rebased as usual.
  auto other_reader = ReaderOf({MakeBatch(200, 2)});
  ASSERT_OK_AND_ASSIGN(auto other, WriteFragments(*other_reader, uri_, params));
  ASSERT_OK_AND_ASSIGN(auto v3, Dataset::Commit(uri_, AppendOp{other}, 1));
  EXPECT_EQ(v3->version(), 3u);
  EXPECT_EQ(Ids().size(), 38u);
}

TEST(IsSameCommitTest, SameUuidOrSameFilesOnTheSameReadVersion) {
  // by_content: what Dataset::Commit asks for.
  using table_internal::IsSameCommit;
  table_internal::pb::Transaction a;
  a.set_read_version(3);
  a.set_uuid("uuid-a");
  auto* frag = a.mutable_append()->add_fragments();
  frag->add_files()->set_path("0101-abc.lance");
  frag->set_physical_rows(10);
  table_internal::pb::Transaction b = a;
  b.set_uuid("uuid-b");
  EXPECT_TRUE(IsSameCommit(a, a, true));
  EXPECT_TRUE(IsSameCommit(a, b, true)) << "the same fragments on the same read version";
  EXPECT_FALSE(IsSameCommit(a, b, false)) << "by uuid only";
  b.set_read_version(4);
  EXPECT_FALSE(IsSameCommit(a, b, true));
  b = a;
  b.set_uuid("uuid-b");
  b.mutable_append()->mutable_fragments(0)->mutable_files(0)->set_path("0101-def.lance");
  EXPECT_FALSE(IsSameCommit(a, b, true));

  // Without files of their own, equal transactions may be two writers' commits.
  table_internal::pb::Transaction empty;
  empty.set_read_version(3);
  empty.set_uuid("u1");
  empty.mutable_append();
  table_internal::pb::Transaction empty2 = empty;
  empty2.set_uuid("u2");
  EXPECT_FALSE(IsSameCommit(empty, empty2, true));
  table_internal::pb::Transaction project;
  project.set_read_version(3);
  project.set_uuid("u1");
  project.mutable_project()->set_preserves_nullability(true);
  table_internal::pb::Transaction project2 = project;
  project2.set_uuid("u2");
  EXPECT_FALSE(IsSameCommit(project, project2, true));
  EXPECT_TRUE(IsSameCommit(project, project, false))
      << "the same uuid is the same commit";
}

}  // namespace
}  // namespace lance
