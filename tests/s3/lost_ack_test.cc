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
#include "lance/io/s3_object_store.h"
#include "lance/table/dataset.h"
#include "tests/s3/proxy_fixture.h"
#include "tests/testing/fault_proxy.h"
#include "tests/testing/matchers.h"
#include "tests/testing/s3_env.h"

namespace lance {
namespace {

using io::S3ObjectStore;
using io::StorageOptions;
using ::lance::testing::FaultAction;
using ::lance::testing::FaultProxy;
using ::lance::testing::FaultRule;
using ::lance::testing::IsError;
using ::lance::testing::S3TestEnv;

constexpr int64_t kPartSize = 5 << 20;

std::string Bytes(size_t n, uint32_t seed) {
  std::string out(n, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    out[i] = static_cast<char>(x >> 24);
  }
  return out;
}

std::string AsString(const BufferPtr& buffer) {
  return std::string(reinterpret_cast<const char*>(buffer->data()),
                     static_cast<size_t>(buffer->size()));
}

// Rows id = start..start+n-1; with `payload`, a second column of random int64 values
// (incompressible: 8 bytes a row in the data file, so a large write is multipart).
std::unique_ptr<RecordBatchReader> IdRows(int64_t start, int64_t n,
                                          bool payload = false) {
  Int64Builder ids;
  Int64Builder values;
  std::mt19937_64 rng(static_cast<uint64_t>(start) + 17);
  for (int64_t i = start; i < start + n; ++i) {
    EXPECT_OK(ids.Append(i));
    if (payload) EXPECT_OK(values.Append(static_cast<int64_t>(rng())));
  }
  std::vector<FieldPtr> fields = {field("id", int64(), false)};
  std::vector<ArrayPtr> columns = {*ids.Finish()};
  if (payload) {
    fields.push_back(field("payload", int64(), false));
    columns.push_back(*values.Finish());
  }
  auto s = schema(fields);
  auto batch = RecordBatch::Make(s, n, columns);
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return RecordBatchReader::FromBatches(s, {*batch});
}

// The ids of the rows, sorted (a duplicated row shows up twice).
std::vector<int64_t> SortedIds(const Dataset& ds) {
  std::vector<int64_t> out;
  ScanOptions scan;
  scan.columns = {"id"};
  auto table = ds.ToTable(scan);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  if (!table.ok()) return out;
  for (const auto& batch : (*table)->batches()) {
    const auto& col = static_cast<const Int64Array&>(*batch->GetColumnByName("id"));
    for (int64_t i = 0; i < col.length(); ++i) out.push_back(col.Value(i));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int64_t> Iota(int64_t begin, int64_t end) {
  std::vector<int64_t> v;
  for (int64_t i = begin; i < end; ++i) v.push_back(i);
  return v;
}

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

  std::string Key(const std::string& name) const { return prefix_ + "/" + name; }
  std::string Uri(const std::string& name) const {
    return "s3://" + env_.bucket + "/" + Key(name);
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
    auto store = ProxyStore(retries);
    ASSERT_NE(store, nullptr);
    const std::string key = Key("create-" + std::to_string(retries) + ".bin");
    const std::string data = Bytes(40'000, 1);
    proxy_->AddFault(FaultAction::kDropReply, 1, "PUT", key);
    ASSERT_OK(store->PutIfNotExists(key, data));
    EXPECT_EQ(DroppedStatuses().back(), 200) << "the server must have created it";
    ASSERT_OK_AND_ASSIGN(auto stored, direct_->Read(key));
    EXPECT_EQ(AsString(stored), data);
    // Somebody else's object is still somebody else's.
    EXPECT_THAT(store->PutIfNotExists(key, "other bytes"),
                IsError(StatusCode::kAlreadyExists));
  }
}

TEST_F(S3LostAckTest, CompleteMultipartUploadWhoseAnswerIsLostSucceeds) {
  for (int retries : {3, 0}) {
    SCOPED_TRACE("client_max_retries " + std::to_string(retries));
    auto store = ProxyStore(retries);
    ASSERT_NE(store, nullptr);
    const std::string key = Key("multipart-" + std::to_string(retries) + ".bin");
    const std::string data = Bytes(12 << 20, 2);  // 3 parts of 5, 5 and 2 MiB
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
    proxy_.reset();
    ASSERT_OK_AND_ASSIGN(proxy_, FaultProxy::Start(env_.endpoint));
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
  WriteParams params;
  params.mode = WriteMode::kAppend;
  params.access.storage_options = ProxyOptions(/*max_retries=*/2);
  auto rows = IdRows(100, 50);
  auto appended = Dataset::Write(*rows, uri, params);
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
    proxy_.reset();
    ASSERT_OK_AND_ASSIGN(proxy_, FaultProxy::Start(env_.endpoint));
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
    FaultRule rule;
    rule.action = FaultAction::kDropReply;
    rule.method = "PUT";
    rule.target_contains = "_versions/";
    // Written on the proxy's thread, read here once our write has returned.
    std::mutex mu;
    Status theirs = Status::Unknown("the other writer never ran");
    rule.before = [&](const std::string&, const std::string&) {
      WriteParams params;
      params.mode = WriteMode::kAppend;
      params.access.storage_options = env_.Options();
      auto rows = IdRows(1000, 20);
      Status st = Dataset::Write(*rows, uri, params).status();
      std::lock_guard<std::mutex> lock(mu);
      theirs = st;
    };
    proxy_->AddFault(rule);
    WriteParams params;
    params.mode = WriteMode::kAppend;
    params.access.storage_options = ProxyOptions(retries);
    auto rows = IdRows(100, 50);
    auto appended = Dataset::Write(*rows, uri, params);
    {
      std::lock_guard<std::mutex> lock(mu);
      ASSERT_OK(theirs);
    }
    ASSERT_TRUE(appended.ok()) << appended.status().ToString();
    EXPECT_EQ((*appended)->version(), 3u);
    ASSERT_EQ(DroppedStatuses().size(), 1u);
    EXPECT_EQ(DroppedStatuses().back(), 412) << "the server refused our version 2";
    EXPECT_EQ(VersionNumbers(uri), (std::vector<uint64_t>{1, 2, 3}));
    EXPECT_EQ(SortedIds(*OpenDirect(uri)), Concat(Iota(0, 150), Iota(1000, 1020)));
    proxy_.reset();
    ASSERT_OK_AND_ASSIGN(proxy_, FaultProxy::Start(env_.endpoint));
  }
}

// The same, with an Overwrite winning version 2: our append cannot be rebased over it
// (Conflict, as without the lost answer), and the dataset is theirs.
TEST_F(S3LostAckTest, GenuineOverwriteWinnerStillConflicts) {
  const std::string uri = Uri("overwrite-winner.lance");
  CreateDataset(uri);
  FaultRule rule;
  rule.action = FaultAction::kDropReply;
  rule.method = "PUT";
  rule.target_contains = "_versions/";
  std::mutex mu;
  Status theirs = Status::Unknown("the other writer never ran");
  rule.before = [&](const std::string&, const std::string&) {
    WriteParams params;
    params.mode = WriteMode::kOverwrite;
    params.access.storage_options = env_.Options();
    auto rows = IdRows(5000, 7);
    Status st = Dataset::Write(*rows, uri, params).status();
    std::lock_guard<std::mutex> lock(mu);
    theirs = st;
  };
  proxy_->AddFault(rule);
  WriteParams params;
  params.mode = WriteMode::kAppend;
  params.access.storage_options = ProxyOptions(/*max_retries=*/0);
  auto rows = IdRows(100, 50);
  auto appended = Dataset::Write(*rows, uri, params);
  {
    std::lock_guard<std::mutex> lock(mu);
    ASSERT_OK(theirs);
  }
  ASSERT_THAT(appended, IsError(StatusCode::kConflict));
  EXPECT_EQ(VersionNumbers(uri), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(SortedIds(*OpenDirect(uri)), Iota(5000, 5007));
}

}  // namespace
}  // namespace lance
