// SPDX-License-Identifier: Apache-2.0
// Lost acknowledgements on the real S3 server: a FaultProxy between the writer and RGW
// forwards a request, lets RGW carry it out, and drops the answer (FaultAction::
// kDropReply). For the two writes a commit depends on -- the conditional PUT of
// `_versions/N.manifest` and the CompleteMultipartUpload of a large data file -- the
// version must be committed exactly once, and the writer either reports success or an
// error naming the uncertainty (CommitStateUnknown) that a retry of the same commit
// resolves without duplicating rows. A genuine concurrent winner of the same version
// still gets the normal conflict rules. See docs/commit-protocol.md, "Lost
// acknowledgements".
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/io/s3_object_store.h"
#include "tests/s3/proxy_fixture.h"
#include "tests/testing/fault_proxy.h"
#include "tests/testing/matchers.h"
#include "tests/testing/s3_env.h"

namespace lance {
namespace {

using io::S3ObjectStore;
using io::StorageOptions;
using namespace ::lance::testing;  // NOLINT(build/namespaces): the fixture's helpers

constexpr int64_t kPartSize = 5 << 20;

std::vector<int64_t> Concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  return a;
}

class S3LostAckTest : public lance::testing::S3ProxyTest {
 protected:
  S3LostAckTest() : S3ProxyTest("lost-ack") {}

  // Clients behind the proxy write multipart uploads from kPartSize on. A lost answer
  // shows as a closed connection at once, so the stall timeout only has to stay out of
  // the way: at the fixture's 1 s a loaded machine abandons (and repeats) requests the
  // server is merely slow to answer, which these tests count.
  static StorageOptions Extra() {
    return {{"lance_cpp_multipart_part_size", std::to_string(kPartSize)},
            {"lance_cpp_stall_timeout", "30s"}};
  }
  StorageOptions ProxyOptions(int max_retries) const {
    return S3ProxyTest::ProxyOptions(max_retries, Extra());
  }
  std::shared_ptr<S3ObjectStore> ProxyStore(int max_retries) const {
    return S3ProxyTest::ProxyStore(max_retries, Extra());
  }

  // A dataset of rows 0..99 (version 1), written straight to RGW.
  void CreateDataset(const std::string& uri) {
    WriteParams params;
    params.access.storage_options = env_.Options();
    auto rows = IdRows(0, 100);
    ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Write(*rows, uri, params));
    ASSERT_EQ(v1->version(), 1u);
  }

  // The dataset as RGW has it (no proxy, no fault).
  std::shared_ptr<Dataset> OpenDirect(const std::string& uri) {
    OpenOptions open;
    open.access.storage_options = env_.Options();
    auto ds = Dataset::Open(uri, open);
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    return ds.ok() ? *ds : nullptr;
  }

  // The versions the dataset has, as RGW has them.
  std::vector<uint64_t> VersionNumbers(const std::string& uri) {
    std::vector<uint64_t> out;
    auto ds = OpenDirect(uri);
    if (ds == nullptr) return out;
    auto versions = ds->Versions();
    EXPECT_TRUE(versions.ok()) << versions.status().ToString();
    if (!versions.ok()) return out;
    for (const auto& v : *versions) out.push_back(v.version);
    return out;
  }

  // For the round of a test with a client of `max_retries`: the client, the key
  // "<stem>-<max_retries>.bin" and `size` bytes of `seed`.
  ProxiedObject RoundObject(const std::string& stem, int max_retries, size_t size,
                            uint32_t seed) const {
    return {ProxyStore(max_retries),
            Key(stem + "-" + std::to_string(max_retries) + ".bin"), Bytes(size, seed)};
  }

  // Appends rows start..start+n-1 through the proxy (a client of `max_retries`).
  Result<std::shared_ptr<Dataset>> AppendThroughProxy(const std::string& uri,
                                                      int max_retries, int64_t start,
                                                      int64_t n) const {
    WriteParams params;
    params.mode = WriteMode::kAppend;
    params.access.storage_options = ProxyOptions(max_retries);
    auto rows = IdRows(start, n);
    return Dataset::Write(*rows, uri, params);
  }

  // Another writer, which writes rows start..start+n-1 (`mode`) straight to RGW just
  // before our next manifest PUT reaches the server; the answer to our PUT is dropped.
  // Its status is read once our write has returned (it is written on the proxy's
  // thread).
  class OtherWriter {
   public:
    Status status() {
      std::lock_guard<std::mutex> lock(mu_);
      return status_;
    }

   private:
    friend class S3LostAckTest;
    std::mutex mu_;
    Status status_ = Status::Unknown("the other writer never ran");
  };
  void OtherWriterBeforeOurManifest(const std::string& uri, WriteMode mode, int64_t start,
                                    int64_t n, OtherWriter* other) {
    FaultRule rule;
    rule.action = FaultAction::kDropReply;
    rule.method = "PUT";
    rule.target_contains = "_versions/";
    StorageOptions options = env_.Options();
    rule.before = [uri, mode, start, n, options, other](const std::string&,
                                                        const std::string&) {
      WriteParams params;
      params.mode = mode;
      params.access.storage_options = options;
      auto rows = IdRows(start, n);
      Status st = Dataset::Write(*rows, uri, params).status();
      std::lock_guard<std::mutex> lock(other->mu_);
      other->status_ = st;
    };
    proxy_->AddFault(rule);
  }

  // Drops the answer of the next manifest PUT; from the moment that PUT arrives, every
  // request of `methods` on `_versions/` fails (500) too, so the writer cannot look at
  // what it did (it read the dataset before).
  void DropManifestAnswerThenFail(std::vector<std::string> methods) {
    FaultRule rule;
    rule.action = FaultAction::kDropReply;
    rule.method = "PUT";
    rule.target_contains = "_versions/";
    FaultProxy* proxy = proxy_.get();
    rule.before = [proxy, methods](const std::string&, const std::string&) {
      for (const std::string& m : methods) {
        proxy->AddFault(FaultAction::kInternalError, FaultRule::kForever, m,
                        "_versions/");
      }
    };
    proxy_->AddFault(rule);
  }

  // What the server answered to requests whose answer the proxy dropped (it records the
  // status once the server has sent all of it, before the client connection is cut).
  std::vector<int> DroppedStatuses() const {
    std::vector<int> out;
    for (const auto& r : proxy_->log()) {
      if (r.action == FaultAction::kDropReply) out.push_back(r.upstream_status);
    }
    return out;
  }
};

// -- The object store ---------------------------------------------------------------

TEST_F(S3LostAckTest, ConditionalCreateWhoseAnswerIsLostSucceedsOnce) {
  // With retries (the retry's 412 is our own object) and without (no second attempt:
  // the client checks what the first one did).
  for (int retries : {3, 0}) {
    SCOPED_TRACE("client_max_retries " + std::to_string(retries));
    auto [store, key, data] = RoundObject("create", retries, 40'000, 1);
    ASSERT_NE(store, nullptr);
    proxy_->AddFault(FaultAction::kDropReply, 1, "PUT", key);
    ASSERT_OK(store->PutIfNotExists(key, data));
    EXPECT_EQ(DroppedStatuses().back(), 200) << "the server must have created it";
    ExpectStored(key, data);
    // Somebody else's object is still somebody else's.
    EXPECT_THAT(store->PutIfNotExists(key, "other bytes"),
                IsError(StatusCode::kAlreadyExists));
  }
}

TEST_F(S3LostAckTest, CompleteMultipartUploadWhoseAnswerIsLostSucceeds) {
  for (int retries : {3, 0}) {
    SCOPED_TRACE("client_max_retries " + std::to_string(retries));
    // 3 parts of 5, 5 and 2 MiB.
    auto [store, key, data] = RoundObject("multipart", retries, 12 << 20, 2);
    ASSERT_NE(store, nullptr);
    proxy_->AddFault(FaultAction::kDropReply, 1, "POST", "uploadId=");
    ASSERT_OK_AND_ASSIGN(auto writer, store->OpenWriter(key));
    ASSERT_OK(writer->Write(data));
    ASSERT_OK(writer->Close());
    EXPECT_EQ(DroppedStatuses().back(), 200) << "the server must have completed it";
    EXPECT_EQ(proxy_->CountRequests("POST", "uploads"), retries == 3 ? 1 : 2);
    ASSERT_OK_AND_ASSIGN(auto stored, direct_->Read(key));
    EXPECT_EQ(stored->size(), static_cast<int64_t>(data.size()));
    EXPECT_TRUE(AsString(stored) == data);
    ASSERT_OK_AND_ASSIGN(auto uploads,
                         ::lance::testing::ListMultipartUploads(env_.bucket));
    EXPECT_EQ(std::count(uploads.begin(), uploads.end(), key), 0)
        << "the upload is complete, nothing is left in progress";
  }
}

TEST_F(S3LostAckTest, CompleteMultipartUploadWhoseOutcomeCannotBeCheckedSaysSo) {
  // No retry: the one attempt's answer is lost and the HEAD that would tell fails.
  auto store = ProxyStore(/*max_retries=*/0);
  ASSERT_NE(store, nullptr);
  const std::string key = Key("unknown.bin");
  proxy_->AddFault(FaultAction::kDropReply, 1, "POST", "uploadId=");
  proxy_->AddFault(FaultAction::kInternalError, FaultRule::kForever, "HEAD", key);
  ASSERT_OK_AND_ASSIGN(auto writer, store->OpenWriter(key));
  ASSERT_OK(writer->Write(Bytes(6 << 20, 3)));
  Status st = writer->Close();
  ASSERT_FALSE(st.ok()) << "the outcome could not be checked";
  const std::string msg = st.message();
  EXPECT_NE(msg.find("CompleteMultipartUpload"), std::string::npos) << msg;
  EXPECT_NE(msg.find(key), std::string::npos) << msg;
  EXPECT_NE(msg.find("may have"), std::string::npos) << "names the uncertainty: " << msg;
  EXPECT_EQ(msg.find(env_.secret_key), std::string::npos);
  // It did complete: the object is whole on the server.
  ASSERT_OK_AND_ASSIGN(auto meta, direct_->Head(key));
  EXPECT_EQ(meta.size, 6 << 20);
}

// -- Dataset commits ----------------------------------------------------------------

// The manifest PUT is carried out by RGW and its answer lost: the append is committed
// once (version 2, rows 0..149 once) and reported as committed.
TEST_F(S3LostAckTest, AppendWhoseManifestAnswerIsLostIsCommittedOnce) {
  for (int retries : {3, 0}) {
    SCOPED_TRACE("client_max_retries " + std::to_string(retries));
    const std::string uri = Uri("append-" + std::to_string(retries) + ".lance");
    CreateDataset(uri);
    proxy_->AddFault(FaultAction::kDropReply, 1, "PUT", "_versions/");
    WriteParams params;
    params.mode = WriteMode::kAppend;
    params.access.storage_options = ProxyOptions(retries);
    auto rows = IdRows(100, 50);
    auto appended = Dataset::Write(*rows, uri, params);
    ASSERT_TRUE(appended.ok()) << appended.status().ToString();
    EXPECT_EQ((*appended)->version(), 2u);
    ASSERT_EQ(DroppedStatuses().size(), 1u);
    EXPECT_EQ(DroppedStatuses().back(), 200);
    EXPECT_EQ(VersionNumbers(uri), (std::vector<uint64_t>{1, 2}));
    auto ds = OpenDirect(uri);
    ASSERT_NE(ds, nullptr);
    EXPECT_EQ(SortedIds(*ds), Iota(0, 150));
    proxy_->ClearFaults();
    // The next append carries on at version 3.
    rows = IdRows(150, 10);
    ASSERT_OK_AND_ASSIGN(auto next, Dataset::Write(*rows, uri, params));
    EXPECT_EQ(next->version(), 3u);
    EXPECT_EQ(SortedIds(*OpenDirect(uri)), Iota(0, 160));
    // For the next round: only that round's drop in the log.
    ASSERT_NO_FATAL_FAILURE(RestartProxy());
  }
}

// The answer is lost and the client's own check (a HEAD comparing the ETag) fails, so
// the client can only report the retry's 412: the commit layer must recognise its own
// transaction in version 2 instead of taking it for a concurrent append and rebasing
// over it (which committed the rows twice, as version 3).
TEST_F(S3LostAckTest, ManifestAnswerLostAndHeadFailingIsNotCommittedTwice) {
  const std::string uri = Uri("head-fails.lance");
  CreateDataset(uri);
  DropManifestAnswerThenFail({"HEAD"});
  auto appended = AppendThroughProxy(uri, /*max_retries=*/2, 100, 50);
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  EXPECT_EQ((*appended)->version(), 2u);
  EXPECT_EQ(VersionNumbers(uri), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(SortedIds(*OpenDirect(uri)), Iota(0, 150));
}

// The answer is lost and the manifest cannot be read back either: the writer cannot know
// whether version 2 is its own, and says so (CommitStateUnknown, naming the version and
// the dataset). A retry of the same commit (the same fragments, Dataset::Commit) then
// finds version 2 and reports it instead of appending the rows again.
TEST_F(S3LostAckTest, UnverifiableCommitSaysSoAndARetryDoesNotDuplicate) {
  const std::string uri = Uri("unknown.lance");
  CreateDataset(uri);
  WriteParams params;
  params.mode = WriteMode::kAppend;
  params.access.storage_options = env_.Options();
  auto rows = IdRows(100, 50);
  ASSERT_OK_AND_ASSIGN(auto fragments, WriteFragments(*rows, uri, params));

  DropManifestAnswerThenFail({"HEAD", "GET"});
  io::StorageAccess access;
  access.storage_options = ProxyOptions(/*max_retries=*/1);
  auto committed = Dataset::Commit(uri, AppendOp{fragments}, 1, access);
  ASSERT_FALSE(committed.ok()) << "cannot know it committed";
  const Status& st = committed.status();
  EXPECT_TRUE(st.IsCommitStateUnknown()) << st.ToString();
  EXPECT_FALSE(st.retryable()) << "a blind retry of another write could duplicate rows";
  EXPECT_NE(st.message().find("may have succeeded"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("version 2"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(Key("unknown.lance")), std::string::npos) << st.message();
  EXPECT_EQ(st.message().find(env_.secret_key), std::string::npos);
  // It did commit: version 2 is there, holding the rows once.
  EXPECT_EQ(VersionNumbers(uri), (std::vector<uint64_t>{1, 2}));

  // The store is healthy again: the same commit is retried and finds its version.
  proxy_->ClearFaults();
  auto again = Dataset::Commit(uri, AppendOp{fragments}, 1, access);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)->version(), 2u);
  EXPECT_EQ(VersionNumbers(uri), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(SortedIds(*OpenDirect(uri)), Iota(0, 150));

  // Dataset::Write gives the same answer in the same situation, and deletes nothing the
  // version may need: version 3 (committed, unknown to the writer) reads whole.
  DropManifestAnswerThenFail({"HEAD", "GET"});
  params.access.storage_options = ProxyOptions(/*max_retries=*/1);
  rows = IdRows(150, 10);
  auto written = Dataset::Write(*rows, uri, params);
  ASSERT_FALSE(written.ok());
  EXPECT_TRUE(written.status().IsCommitStateUnknown()) << written.status().ToString();
  EXPECT_NE(written.status().message().find("version 3"), std::string::npos);
  EXPECT_EQ(VersionNumbers(uri), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(SortedIds(*OpenDirect(uri)), Iota(0, 160));
}

// A large append: its data file is a multipart upload whose CompleteMultipartUpload
// answer is lost. The write succeeds, one version, and the data reads back.
TEST_F(S3LostAckTest, LargeAppendWhoseCompleteAnswerIsLostIsCommittedOnce) {
  for (int retries : {3, 0}) {
    SCOPED_TRACE("client_max_retries " + std::to_string(retries));
    const std::string uri = Uri("large-" + std::to_string(retries) + ".lance");
    {
      WriteParams params;
      params.access.storage_options = env_.Options();
      auto rows = IdRows(0, 100, /*payload=*/true);
      ASSERT_OK(Dataset::Write(*rows, uri, params));
    }
    proxy_->AddFault(FaultAction::kDropReply, 1, "POST", "uploadId=");
    WriteParams params;
    params.mode = WriteMode::kAppend;
    params.access.storage_options = ProxyOptions(retries);
    // ~1M rows of 8 random bytes: a data file of about 8 MiB, two parts.
    constexpr int64_t kRows = 1'000'000;
    auto rows = IdRows(100, kRows, /*payload=*/true);
    auto appended = Dataset::Write(*rows, uri, params);
    ASSERT_TRUE(appended.ok()) << appended.status().ToString();
    EXPECT_EQ((*appended)->version(), 2u);
    EXPECT_EQ(proxy_->CountRequests("POST", "uploadId="), retries == 0 ? 1 : 2);
    ASSERT_FALSE(DroppedStatuses().empty()) << "no multipart upload was completed";
    EXPECT_EQ(DroppedStatuses().back(), 200);
    EXPECT_EQ(VersionNumbers(uri), (std::vector<uint64_t>{1, 2}));
    auto ds = OpenDirect(uri);
    ASSERT_NE(ds, nullptr);
    EXPECT_EQ(*ds->CountRows(), 100 + kRows);
    EXPECT_EQ(SortedIds(*ds), Iota(0, 100 + kRows));
    ASSERT_NO_FATAL_FAILURE(RestartProxy());
  }
}

// -- A genuine concurrent winner ------------------------------------------------------

// Another writer commits version 2 (straight to RGW) just before our manifest PUT of
// version 2 reaches the server; the server refuses ours (412) and that answer is lost.
// Nothing of ours is in version 2, so the append is rebased over theirs as usual:
// version 3, both appends once each.
TEST_F(S3LostAckTest, GenuineWinnerIsStillRebasedOver) {
  for (int retries : {3, 0}) {
    SCOPED_TRACE("client_max_retries " + std::to_string(retries));
    const std::string uri = Uri("winner-" + std::to_string(retries) + ".lance");
    CreateDataset(uri);
    OtherWriter theirs;
    OtherWriterBeforeOurManifest(uri, WriteMode::kAppend, 1000, 20, &theirs);
    auto appended = AppendThroughProxy(uri, retries, 100, 50);
    ASSERT_OK(theirs.status());
    ASSERT_TRUE(appended.ok()) << appended.status().ToString();
    EXPECT_EQ((*appended)->version(), 3u);
    ASSERT_EQ(DroppedStatuses().size(), 1u);
    EXPECT_EQ(DroppedStatuses().back(), 412) << "the server refused our version 2";
    EXPECT_EQ(VersionNumbers(uri), (std::vector<uint64_t>{1, 2, 3}));
    EXPECT_EQ(SortedIds(*OpenDirect(uri)), Concat(Iota(0, 150), Iota(1000, 1020)));
    ASSERT_NO_FATAL_FAILURE(RestartProxy());
  }
}

// The same, with an Overwrite winning version 2: our append cannot be rebased over it
// (Conflict, as without the lost answer), and the dataset is theirs.
TEST_F(S3LostAckTest, GenuineOverwriteWinnerStillConflicts) {
  const std::string uri = Uri("overwrite-winner.lance");
  CreateDataset(uri);
  OtherWriter theirs;
  OtherWriterBeforeOurManifest(uri, WriteMode::kOverwrite, 5000, 7, &theirs);
  auto appended = AppendThroughProxy(uri, /*max_retries=*/0, 100, 50);
  ASSERT_OK(theirs.status());
  ASSERT_THAT(appended, IsError(StatusCode::kConflict));
  EXPECT_EQ(VersionNumbers(uri), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(SortedIds(*OpenDirect(uri)), Iota(5000, 5007));
}

}  // namespace
}  // namespace lance
