// SPDX-License-Identifier: Apache-2.0
// The S3 store under injected failures: a FaultProxy sits between S3ObjectStore and the
// real RGW and answers scripted requests with 503 SlowDown, 500, connection resets,
// stalls or truncated bodies. Shows that transient failures are retried to success (with
// the retry counted), that exhausted retries give a clear error without secrets, and that
// a failed write -- a conditional create, a multipart upload, a dataset commit -- leaves
// nothing half-committed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "io/s3/s3_client.h"
#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/io/executor.h"
#include "lance/io/s3_object_store.h"
#include "tests/s3/proxy_fixture.h"
#include "tests/testing/fault_proxy.h"
#include "tests/testing/matchers.h"
#include "tests/testing/s3_env.h"

namespace lance {
namespace {

using io::S3ObjectStore;
using namespace ::lance::testing;  // NOLINT(build/namespaces): the fixture's helpers

// "2~ab%2Fc" -> "2~ab/c": upload ids appear percent-encoded in request targets.
std::string PercentDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

int64_t Retries(const S3ObjectStore& store) {
  return store.client()->stats().retries.load();
}

class S3FaultTest : public lance::testing::S3ProxyTest {
 protected:
  S3FaultTest() : S3ProxyTest("faults") {}

  // The proxy's log once every forwarded request has its upstream status: the proxy
  // records it when the server closes the connection, which can be a moment after the
  // client has its whole answer.
  std::vector<lance::testing::ProxiedRequest> SettledLog() const {
    // A hang guard only (a loaded machine may take a while), never the thing measured.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (true) {
      auto log = proxy_->log();
      bool settled = true;
      for (const auto& r : log) {
        if (r.action == FaultAction::kForward && r.upstream_status == 0) settled = false;
      }
      if (settled || std::chrono::steady_clock::now() > deadline) return log;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  // A client behind the proxy (5 retries), Key(name) and `size` bytes of `seed` for it,
  // those already on the server when `stored`. The store is null when any of it failed.
  ProxiedObject ProxyObject(const std::string& name, size_t size, uint32_t seed,
                            bool stored) {
    ProxiedObject o{ProxyStore(), Key(name), Bytes(size, seed)};
    if (stored) {
      Status st = direct_->Put(o.key, o.data);
      if (!st.ok()) {
        ADD_FAILURE() << "storing " << o.key << ": " << st.ToString();
        o.store = nullptr;
      }
    }
    return o;
  }

  // A client behind the proxy writing 5 MiB parts, two at a time.
  std::shared_ptr<S3ObjectStore> MultipartStore(int max_retries) const {
    return ProxyStore(max_retries, {{"lance_cpp_multipart_part_size", "5242880"},
                                    {"lance_cpp_multipart_concurrency", "2"}});
  }

  // The AbortMultipartUpload requests of SettledLog(), each expected to have succeeded
  // (204), and the upload id the last one named.
  struct Aborts {
    int count = 0;
    std::string upload_id;
  };
  Aborts SettledAborts() const {
    Aborts aborts;
    for (const auto& r : SettledLog()) {
      if (r.method == "DELETE" && r.target.find("uploadId=") != std::string::npos) {
        ++aborts.count;
        EXPECT_EQ(r.upstream_status, 204) << r.target;
        std::string id = r.target.substr(r.target.find("uploadId=") + 9);
        aborts.upload_id = PercentDecode(id.substr(0, id.find('&')));
      }
    }
    return aborts;
  }

  // After a failed multipart upload: the object is not there, the server no longer
  // knows the upload (a part upload to it is NoSuchUpload, 404), and it was never
  // completed.
  void ExpectAbortedUpload(const std::string& key, const std::string& upload_id) const {
    EXPECT_THAT(direct_->Head(key), IsError(StatusCode::kNotFound));
    EXPECT_THAT(direct_->client()->UploadPart(key, upload_id, 1, "late part"),
                IsError(StatusCode::kNotFound));
    EXPECT_EQ(proxy_->CountRequests("POST", "uploadId="), 0) << "must never complete";
  }
};

TEST_F(S3FaultTest, SlowDownBurstIsRetriedToSuccess) {
  auto [store, key, data] = ProxyObject("slowdown.bin", 100'000, 1, /*stored=*/false);
  ASSERT_NE(store, nullptr);
  proxy_->AddFault(FaultAction::kSlowDown, 3, "PUT", key);
  const int64_t before = Retries(*store);
  ASSERT_OK(store->Put(key, data));
  EXPECT_EQ(Retries(*store) - before, 3);
  EXPECT_EQ(proxy_->CountRequests("PUT", key), 4);
  EXPECT_EQ(proxy_->faults_injected(), 3);
  ExpectStored(key, data);
}

TEST_F(S3FaultTest, InternalErrorsAreRetriedToSuccess) {
  auto [store, key, data] = ProxyObject("internal.bin", 50'000, 2, /*stored=*/true);
  ASSERT_NE(store, nullptr);
  proxy_->AddFault(FaultAction::kInternalError, 2, "GET", key);
  const int64_t before = Retries(*store);
  ASSERT_OK_AND_ASSIGN(auto got, store->ReadRange(key, 1000, 20'000));
  EXPECT_EQ(AsString(got), data.substr(1000, 20'000));
  EXPECT_EQ(Retries(*store) - before, 2);
  EXPECT_EQ(proxy_->CountRequests("GET", key), 3);
}

TEST_F(S3FaultTest, ResetConnectionsAreRetriedToSuccess) {
  auto [store, key, data] = ProxyObject("reset.bin", 70'000, 3, /*stored=*/false);
  ASSERT_NE(store, nullptr);
  // Reset before the PUT reached the server, then before a HEAD.
  proxy_->AddFault(FaultAction::kReset, 2, "PUT", key);
  proxy_->AddFault(FaultAction::kReset, 2, "HEAD", key);
  const int64_t before = Retries(*store);
  ASSERT_OK(store->Put(key, data));
  ASSERT_OK_AND_ASSIGN(auto meta, store->Head(key));
  EXPECT_EQ(meta.size, static_cast<int64_t>(data.size()));
  EXPECT_EQ(Retries(*store) - before, 4);
  EXPECT_EQ(proxy_->faults_injected(), 4);
  ExpectStored(key, data);
}

TEST_F(S3FaultTest, StalledResponseIsAbandonedAfterTheStallTimeoutAndRetried) {
  auto [store, key, data] = ProxyObject("stall.bin", 30'000, 4, /*stored=*/true);
  ASSERT_NE(store, nullptr);
  FaultRule stall;
  stall.action = FaultAction::kStall;
  stall.method = "GET";
  stall.target_contains = key;
  // Far beyond the 1 s stall timeout and any slowness of a loaded machine (the proxy's
  // stop interrupts it at the end of the test).
  stall.stall = std::chrono::seconds(300);
  proxy_->AddFault(stall);
  const int64_t before = Retries(*store);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(auto got, store->Read(key));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(AsString(got), data);
  EXPECT_EQ(Retries(*store) - before, 1);
  // Given up after the stall timeout (a lower bound holds on any machine), and before the
  // proxy let go of the stalled request: abandoned, not waited out. Not a timing bound on
  // the client's speed.
  EXPECT_GE(seconds, 0.9);
  EXPECT_LT(seconds, 300.0);
}

TEST_F(S3FaultTest, TruncatedBodyIsRetriedAndTheDataIsWhole) {
  auto [store, key, data] = ProxyObject("truncated.bin", 300'000, 5, /*stored=*/true);
  ASSERT_NE(store, nullptr);
  proxy_->AddFault(FaultAction::kTruncateBody, 1, "GET", key);
  const int64_t before = Retries(*store);
  ASSERT_OK_AND_ASSIGN(auto got, store->Read(key));
  EXPECT_EQ(got->size(), static_cast<int64_t>(data.size()));
  EXPECT_EQ(AsString(got), data);
  EXPECT_EQ(Retries(*store) - before, 1);
  // A ranged read too (a reader with a known size: no HEAD).
  proxy_->AddFault(FaultAction::kTruncateBody, 1, "GET", key);
  ASSERT_OK_AND_ASSIGN(auto reader,
                       store->OpenReaderWithSize(key, static_cast<int64_t>(data.size())));
  ASSERT_OK_AND_ASSIGN(auto range, reader->ReadAt(12'345, 100'000));
  EXPECT_EQ(AsString(range), data.substr(12'345, 100'000));
  EXPECT_EQ(Retries(*store) - before, 2);
}

TEST_F(S3FaultTest, ExhaustedRetriesGiveAClearErrorWithoutSecrets) {
  auto store = ProxyStore(/*max_retries=*/2);
  ASSERT_NE(store, nullptr);
  const std::string key = Key("exhausted.bin");
  proxy_->AddFault(FaultAction::kSlowDown, FaultRule::kForever, "PUT", key);
  Status st = store->Put(key, "never stored");
  ASSERT_THAT(st, IsError(StatusCode::kUnavailable));
  const std::string msg = st.message();
  EXPECT_NE(msg.find("PutObject"), std::string::npos) << msg;
  EXPECT_NE(msg.find("s3://" + env_.bucket + "/" + key), std::string::npos) << msg;
  EXPECT_NE(msg.find("HTTP 503"), std::string::npos) << msg;
  EXPECT_NE(msg.find("SlowDown"), std::string::npos) << msg;
  EXPECT_NE(msg.find("faultproxy-"), std::string::npos) << "request id missing: " << msg;
  EXPECT_NE(msg.find("after 3 attempts"), std::string::npos) << msg;
  EXPECT_EQ(msg.find(env_.secret_key), std::string::npos) << "secret leaked: " << msg;
  EXPECT_EQ(st.ToString().find(env_.secret_key), std::string::npos);
  EXPECT_EQ(proxy_->CountRequests("PUT", key), 3);
  EXPECT_THAT(direct_->Head(key), IsError(StatusCode::kNotFound));

  // Resets all the way: also Unavailable, naming the operation and key.
  const std::string key2 = Key("exhausted-reset.bin");
  proxy_->AddFault(FaultAction::kReset, FaultRule::kForever, "GET", key2);
  ASSERT_OK(direct_->Put(key2, "x"));
  auto read = store->Read(key2);
  ASSERT_THAT(read, IsError(StatusCode::kUnavailable));
  EXPECT_NE(read.status().message().find(key2), std::string::npos)
      << read.status().message();
  EXPECT_EQ(read.status().message().find(env_.secret_key), std::string::npos);
}

TEST_F(S3FaultTest, ConditionalCreateThatExhaustsRetriesLeavesNoObject) {
  auto store = ProxyStore(/*max_retries=*/2);
  ASSERT_NE(store, nullptr);
  const std::string key = Key("_versions/1.manifest");
  proxy_->AddFault(FaultAction::kSlowDown, 2, "PUT", key);
  proxy_->AddFault(FaultAction::kReset, 1, "PUT", key);
  EXPECT_THAT(store->PutIfNotExists(key, "manifest v1"),
              IsError(StatusCode::kUnavailable));
  EXPECT_EQ(proxy_->CountRequests("PUT", key), 3);
  EXPECT_THAT(direct_->Head(key), IsError(StatusCode::kNotFound));
  // Nothing stuck: once the server answers, the create succeeds exactly once.
  ASSERT_OK(store->PutIfNotExists(key, "manifest v1"));
  EXPECT_THAT(store->PutIfNotExists(key, "manifest v1 again"),
              IsError(StatusCode::kAlreadyExists));
  ExpectStored(key, "manifest v1");
}

TEST_F(S3FaultTest, MultipartUploadWithFailingPartsIsAbortedAndLeavesNoObject) {
  auto store = MultipartStore(/*max_retries=*/1);
  ASSERT_NE(store, nullptr);
  const std::string key = Key("multipart.bin");
  proxy_->AddFault(FaultAction::kInternalError, FaultRule::kForever, "PUT",
                   "partNumber=");
  ASSERT_OK_AND_ASSIGN(auto writer, store->OpenWriter(key));
  const std::string chunk = Bytes(1 << 20, 6);
  Status st;
  for (int i = 0; i < 12 && st.ok(); ++i) st = writer->Write(chunk);
  if (st.ok()) st = writer->Close();
  ASSERT_FALSE(st.ok()) << "a multipart upload whose parts all fail must not succeed";
  EXPECT_NE(st.message().find("UploadPart"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(key), std::string::npos) << st.message();
  EXPECT_EQ(st.message().find(env_.secret_key), std::string::npos);
  EXPECT_FALSE(writer->closed());
  EXPECT_OK(writer->Abort());  // idempotent after the failure

  // The upload was started, and aborted on the server (not just forgotten).
  const Aborts aborts = SettledAborts();
  for (const auto& r : SettledLog()) {
    if (r.method == "POST" && r.target.find("uploads") != std::string::npos) {
      EXPECT_EQ(r.upstream_status, 200) << r.target;
    }
  }
  EXPECT_EQ(proxy_->CountRequests("POST", "uploads"), 1);
  EXPECT_GE(proxy_->CountRequests("PUT", "partNumber="), 2);
  ASSERT_EQ(aborts.count, 1) << "expected one AbortMultipartUpload";
  ASSERT_FALSE(aborts.upload_id.empty());
  ExpectAbortedUpload(key, aborts.upload_id);
}

TEST_F(S3FaultTest, PartFailingMidWayCancelsTheOutstandingPartsAndAbortsAtOnce) {
  auto store = MultipartStore(/*max_retries=*/0);
  ASSERT_NE(store, nullptr);
  const std::string key = Key("midway.bin");
  // Parts 1 and 2 reach the server; every part after them fails.
  proxy_->AddFault(FaultAction::kForward, 2, "PUT", "partNumber=");
  proxy_->AddFault(FaultAction::kInternalError, FaultRule::kForever, "PUT",
                   "partNumber=");
  ASSERT_OK_AND_ASSIGN(auto writer, store->OpenWriter(key));
  const std::string part = Bytes(5 << 20, 8);
  Status st;
  int writes = 0;
  for (; writes < 24 && st.ok(); ++writes) st = writer->Write(part);
  if (st.ok()) st = writer->Close();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("UploadPart"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("500"), std::string::npos) << st.message();
  // The writer stopped at the failure instead of uploading the 24 parts: parts 1-2,
  // the failed third, and at most the one part in flight beside it (part n goes out
  // with write n + 1, and the failure shows at the latest when part n + 2 waits for it).
  EXPECT_LE(writes, 6);
  const int64_t parts = proxy_->CountRequests("PUT", "partNumber=");
  EXPECT_GE(parts, 3);
  EXPECT_LE(parts, 4);
  // The upload was aborted by the failure itself, before any Abort() call.
  const Aborts aborts = SettledAborts();
  ASSERT_EQ(aborts.count, 1);
  ExpectAbortedUpload(key, aborts.upload_id);
  // Abort() afterwards has nothing left to do.
  EXPECT_OK(writer->Abort());
  EXPECT_EQ(proxy_->CountRequests("DELETE", "uploadId="), 1);
}

TEST_F(S3FaultTest, FailedChunkOfALargeReadCancelsTheChunksNotStarted) {
  const std::string key = Key("chunked.bin");
  const std::string data = Bytes(16 << 20, 9);
  ASSERT_OK(direct_->Put(key, data));
  auto store = ProxyStore(/*max_retries=*/0, {{"lance_cpp_read_chunk_size", "131072"}});
  ASSERT_NE(store, nullptr);
  ASSERT_OK_AND_ASSIGN(auto reader, store->OpenReaderWithSize(key, 16 << 20));
  // Whole, through the proxy: 128 ranged GETs.
  ASSERT_OK_AND_ASSIGN(BufferPtr whole, reader->ReadAt(0, 16 << 20));
  EXPECT_TRUE(AsString(whole) == data);
  EXPECT_EQ(proxy_->CountRequests("GET", key), 128);

  // Now the fourth GET fails and so does every one after it.
  proxy_->AddFault(FaultAction::kForward, 3, "GET", key);
  proxy_->AddFault(FaultAction::kInternalError, FaultRule::kForever, "GET", key);
  const int64_t before = proxy_->CountRequests("GET", key);
  auto failed = reader->ReadAt(0, 16 << 20);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("500"), std::string::npos)
      << failed.status().ToString();
  EXPECT_NE(failed.status().message().find(key), std::string::npos);
  // Only the GETs already running when the first failure came were sent after it: far
  // fewer than the 128 chunks (the pool has io::Executor::Default().threads() threads).
  const int64_t sent = proxy_->CountRequests("GET", key) - before;
  EXPECT_LE(sent, 4 + 2 * io::Executor::Default().threads()) << sent << " GETs";
}

TEST_F(S3FaultTest,
       DatasetCommitThatCannotWriteItsManifestFailsAndKeepsThePreviousVersion) {
  const std::string uri = Uri("ds.lance");
  WriteParams params;
  params.access.storage_options = ProxyOptions(/*max_retries=*/2);
  {
    auto rows = IdRows(0, 100);
    ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Write(*rows, uri, params));
    EXPECT_EQ(v1->version(), 1u);
  }

  // Every manifest write fails; the data files of the append still go through.
  proxy_->AddFault(FaultAction::kSlowDown, FaultRule::kForever, "PUT", "_versions/");
  params.mode = WriteMode::kAppend;
  auto rows = IdRows(100, 50);
  auto appended = Dataset::Write(*rows, uri, params);
  ASSERT_FALSE(appended.ok()) << "the commit cannot have succeeded";
  const std::string msg = appended.status().message();
  EXPECT_NE(msg.find("_versions/"), std::string::npos) << msg;
  EXPECT_NE(msg.find("503"), std::string::npos) << msg;
  EXPECT_NE(msg.find("SlowDown"), std::string::npos) << msg;
  EXPECT_EQ(msg.find(env_.secret_key), std::string::npos) << msg;
  EXPECT_GE(proxy_->CountRequests("PUT", "_versions/"), 3);

  // Readers (through the proxy and straight to RGW) still see version 1, whole.
  OpenOptions open;
  open.access.storage_options = ProxyOptions();
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri, open));
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(*ds->LatestVersion(), 1u);
  EXPECT_EQ(*ds->CountRows(), 100);
  EXPECT_EQ(Ids(*ds), Iota(0, 100));
  open.access.storage_options = env_.Options();
  ASSERT_OK_AND_ASSIGN(auto direct_ds, Dataset::Open(uri, open));
  EXPECT_EQ(direct_ds->version(), 1u);
  EXPECT_EQ(Ids(*direct_ds), Iota(0, 100));

  // Once the server is healthy again, the next append commits version 2.
  proxy_->ClearFaults();
  auto again = IdRows(100, 50);
  ASSERT_OK_AND_ASSIGN(auto v2, Dataset::Write(*again, uri, params));
  EXPECT_EQ(v2->version(), 2u);
  EXPECT_EQ(Ids(*v2), Iota(0, 150));
}

}  // namespace
}  // namespace lance
