// SPDX-License-Identifier: Apache-2.0
// S3ObjectStore against the real RGW of the tests: the object-store conformance suite on
// a fresh bucket per test, then what is specific to S3 -- multipart writes, the
// If-None-Match commit race, ETag-pinned readers, HEAD-free and parallel ranged reads,
// registry sharing, STS session credentials, credential refresh after a rejection,
// secrets kept out of messages, and virtual-hosted addressing.
#include "lance/io/s3_object_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <latch>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "io/s3/s3_client.h"
#include "lance/io/executor.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/s3/s3_options.h"
#include "tests/s3/s3_fixture.h"
#include "tests/testing/matchers.h"
#include "tests/testing/object_store_conformance.h"

namespace lance::io {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using ::lance::testing::AssumeRole;
using ::lance::testing::CreateAccessKey;
using ::lance::testing::ListMultipartUploads;
using ::lance::testing::MakeFreshBucketStore;
using ::lance::testing::ObjectStoreTestParam;
using ::lance::testing::RacePutIfNotExists;
using ::lance::testing::RandomBytes;
using ::lance::testing::RemoveAccessKey;
using s3::AwsCredentials;

constexpr int64_t kMiB = 1 << 20;

ObjectStoreTestParam S3Param() {
  return {.name = "s3",
          .make_store = [] { return MakeFreshBucketStore(); },
          .large_object_bytes = 8 * kMiB};
}

}  // namespace

LANCE_INSTANTIATE_OBJECT_STORE_CONFORMANCE(S3, S3Param());

namespace {

// The S3 store behind a MakeFreshBucketStore result (its deleter owns the S3 store).
S3ObjectStore* AsS3(const std::shared_ptr<ObjectStore>& store) {
  return dynamic_cast<S3ObjectStore*>(store.get());
}

// The key of "s3://<bucket>/<key>".
std::string KeyOf(const std::string& uri) {
  const size_t slash = uri.find('/', uri.find("://") + 3);
  return uri.substr(slash + 1);
}

void ExpectNoSecret(const std::string& text, const AwsCredentials& credentials) {
  if (!credentials.secret_access_key.empty()) {
    EXPECT_EQ(text.find(credentials.secret_access_key), std::string::npos)
        << "the secret key leaked into: " << text;
  }
  if (!credentials.session_token.empty()) {
    EXPECT_EQ(text.find(credentials.session_token), std::string::npos)
        << "the session token leaked into: " << text;
    // Even a fragment of the token would be too much.
    EXPECT_EQ(text.find(credentials.session_token.substr(0, 24)), std::string::npos)
        << "a piece of the session token leaked into: " << text;
  }
}

class S3ObjectStoreTest : public ::lance::testing::S3EnvTest {
 protected:
  // A store on the shared test bucket (for tests that need its name up front), with
  // `options` or the static test key, and the credentials source given.
  Result<std::shared_ptr<S3ObjectStore>> SharedBucketStore(
      StorageOptions options = {}, std::shared_ptr<CredentialsSource> source = nullptr) {
    if (options.empty()) options = env_.Options();
    return S3ObjectStore::FromStorageOptions(env_.bucket, options, std::move(source));
  }
};

// -- Multipart writes -------------------------------------------------------------------

TEST_F(S3ObjectStoreTest, LargeWriterUsesMultipartWithBoundedConcurrency) {
  ASSERT_OK_AND_ASSIGN(auto store,
                       MakeFreshBucketStore({{"lance_cpp_multipart_part_size", "5242880"},
                                             {"lance_cpp_multipart_concurrency", "2"}}));
  S3ObjectStore* s3 = AsS3(store);
  ASSERT_NE(s3, nullptr);
  const std::string content = RandomBytes(40 * kMiB, 11);
  ASSERT_OK_AND_ASSIGN(auto writer, store->OpenWriter("big/forty.bin"));
  // Odd-sized writes, so part boundaries fall inside writes.
  for (size_t offset = 0; offset < content.size();) {
    const size_t n = std::min<size_t>(777777, content.size() - offset);
    ASSERT_OK(writer->Write(std::string_view(content).substr(offset, n)));
    offset += n;
  }
  EXPECT_THAT(store->Head("big/forty.bin"), IsError(StatusCode::kNotFound));
  // The upload is in progress (and visible as such) until Close.
  ASSERT_OK_AND_ASSIGN(auto uploads, ListMultipartUploads(store->root()));
  EXPECT_THAT(uploads, ::testing::ElementsAre("big/forty.bin"));
  ASSERT_OK(writer->Close());
  ASSERT_OK_AND_ASSIGN(uploads, ListMultipartUploads(store->root()));
  EXPECT_THAT(uploads, ::testing::IsEmpty());
  ASSERT_OK_AND_ASSIGN(s3::S3ObjectInfo info, s3->client()->HeadObject("big/forty.bin"));
  EXPECT_EQ(info.size, 40 * kMiB);
  // A multipart ETag is md5-of-md5s with the part count: 40 MiB / 5 MiB = 8 parts.
  EXPECT_THAT(info.etag, ::testing::HasSubstr("-8")) << info.etag;
  ASSERT_OK_AND_ASSIGN(BufferPtr back, store->Read("big/forty.bin"));
  EXPECT_TRUE(back->ToStringView() == content);

  // An object of exactly one part, and a smaller one, are single PUTs (no "-N").
  for (int64_t size : {5 * kMiB, int64_t{1000}}) {
    SCOPED_TRACE(size);
    ASSERT_OK_AND_ASSIGN(auto small, store->OpenWriter("big/single.bin"));
    ASSERT_OK(small->Write(RandomBytes(size, 12)));
    ASSERT_OK(small->Close());
    ASSERT_OK_AND_ASSIGN(info, s3->client()->HeadObject("big/single.bin"));
    EXPECT_EQ(info.size, size);
    EXPECT_EQ(info.etag.find('-'), std::string::npos) << info.etag;
  }
}

TEST_F(S3ObjectStoreTest, AbortedMultipartLeavesNoObject) {
  ASSERT_OK_AND_ASSIGN(auto store,
                       MakeFreshBucketStore({{"lance_cpp_multipart_part_size", "5242880"},
                                             {"lance_cpp_multipart_concurrency", "2"}}));
  const std::string first = "previous version";
  ASSERT_OK(store->Put("mp/keep.bin", first));
  for (bool explicit_abort : {true, false}) {
    SCOPED_TRACE(explicit_abort ? "Abort()" : "destroyed unclosed");
    ASSERT_OK_AND_ASSIGN(auto writer, store->OpenWriter("mp/keep.bin"));
    ASSERT_OK(writer->Write(RandomBytes(17 * kMiB, 13)));  // 3 parts started
    ASSERT_OK_AND_ASSIGN(auto uploads, ListMultipartUploads(store->root()));
    EXPECT_EQ(uploads.size(), 1u);
    if (explicit_abort) {
      ASSERT_OK(writer->Abort());
    } else {
      writer.reset();
    }
    ASSERT_OK_AND_ASSIGN(BufferPtr data, store->Read("mp/keep.bin"));
    EXPECT_EQ(data->ToStringView(), first);
    // Aborted, not just abandoned: no upload keeps its parts' storage.
    ASSERT_OK_AND_ASSIGN(uploads, ListMultipartUploads(store->root()));
    EXPECT_TRUE(uploads.empty()) << uploads.size() << " uploads left";
  }
  ASSERT_OK_AND_ASSIGN(ListResult all, store->ListAll("", true));
  ASSERT_EQ(all.objects.size(), 1u);
  EXPECT_EQ(all.objects[0].path, "mp/keep.bin");
}

// Signs with `revocable` until the server rejects it, then with `fallback`; never
// "refreshes" a rejected request (so the request that met the revocation fails, as it
// would with a key revoked for good), but lets the clean-up after it through.
class RevocableKeySource : public CredentialsSource {
 public:
  RevocableKeySource(AwsCredentials revocable, AwsCredentials fallback)
      : revocable_(std::make_shared<const io::Credentials>(std::move(revocable))),
        fallback_(std::make_shared<const io::Credentials>(std::move(fallback))) {}
  Result<std::shared_ptr<const io::Credentials>> Current() override {
    return rejected_.load() ? fallback_ : revocable_;
  }
  Result<std::shared_ptr<const io::Credentials>> OnRejected(
      const io::Credentials& /*rejected*/) override {
    rejected_ = true;
    return Status::Unauthorized("the test key was revoked");
  }
  std::string id() const override { return "revocable-key"; }
  std::string ToString() const override { return "RevocableKeySource"; }
  bool rejected() const { return rejected_.load(); }

 private:
  std::shared_ptr<const io::Credentials> revocable_;
  std::shared_ptr<const io::Credentials> fallback_;
  std::atomic<bool> rejected_{false};
};

TEST_F(S3ObjectStoreTest, MultipartUploadWhoseKeyIsRevokedMidWayIsAbortedAndStops) {
  ASSERT_OK_AND_ASSIGN(auto fresh, MakeFreshBucketStore());
  ASSERT_OK_AND_ASSIGN(AwsCredentials key, CreateAccessKey());
  auto source = std::make_shared<RevocableKeySource>(
      key, AwsCredentials{env_.access_key, env_.secret_key, ""});
  StorageOptions options = env_.Options();
  options["lance_cpp_multipart_part_size"] = "5242880";
  options["lance_cpp_multipart_concurrency"] = "2";
  ASSERT_OK_AND_ASSIGN(auto store,
                       S3ObjectStore::FromStorageOptions(fresh->root(), options, source));
  ASSERT_OK_AND_ASSIGN(auto writer, store->OpenWriter("revoked/big.bin"));
  const std::string part = RandomBytes(5 * kMiB, 17);
  // Three parts handed over (the third stays buffered until more data comes).
  for (int i = 0; i < 3; ++i) ASSERT_OK(writer->Write(part));
  ASSERT_OK_AND_ASSIGN(auto uploads, ListMultipartUploads(fresh->root()));
  EXPECT_THAT(uploads, ::testing::ElementsAre("revoked/big.bin"));

  ASSERT_OK(RemoveAccessKey(key.access_key_id));
  const int64_t requests_before = store->client()->stats().requests.load();
  // Twenty more parts' worth: the first part that meets the revocation fails the upload,
  // the parts not started yet are dropped, and later writes fail at once.
  Status st;
  int writes = 0;
  for (; writes < 20 && st.ok(); ++writes) st = writer->Write(part);
  if (st.ok()) st = writer->Close();
  ASSERT_FALSE(st.ok()) << "an upload whose key was revoked cannot succeed";
  EXPECT_TRUE(source->rejected());
  EXPECT_TRUE(st.IsForbidden() || st.IsUnauthorized()) << st.ToString();
  EXPECT_THAT(st.message(), ::testing::HasSubstr("UploadPart"));
  EXPECT_THAT(st.message(), ::testing::HasSubstr("revoked/big.bin"));
  ExpectNoSecret(st.ToString(), key);
  // At most the two parts in flight plus the one that met the revocation, and the
  // abort: not the twenty parts still to come.
  const int64_t requests = store->client()->stats().requests.load() - requests_before;
  EXPECT_LE(requests, 5) << writes << " writes";
  EXPECT_LE(writes, 4);
  // Later calls repeat the failure without sending anything.
  EXPECT_FALSE(writer->Write(part).ok());
  EXPECT_FALSE(writer->Close().ok());
  EXPECT_EQ(store->client()->stats().requests.load() - requests_before, requests);

  // Aborted on the server already (with the fallback key), before anyone called Abort.
  ASSERT_OK_AND_ASSIGN(uploads, ListMultipartUploads(fresh->root()));
  EXPECT_THAT(uploads, ::testing::IsEmpty());
  EXPECT_THAT(fresh->Head("revoked/big.bin"), IsError(StatusCode::kNotFound));
  EXPECT_OK(writer->Abort());
  EXPECT_EQ(store->client()->stats().requests.load() - requests_before, requests);
}

// -- Commit primitive
// ---------------------------------------------------------------------

TEST_F(S3ObjectStoreTest, SixteenRacingPutIfNotExistsHaveOneCompleteWinner) {
  ASSERT_OK_AND_ASSIGN(auto store, MakeFreshBucketStore());
  constexpr int kThreads = 16;
  std::vector<std::string> contents;
  for (int i = 0; i < kThreads; ++i) {
    // Up to ~3 MiB, all sizes different: a torn or mixed object would be noticed.
    contents.push_back(RandomBytes(1000 + 200003 * i, 50 + i));
  }
  const std::vector<Status> results =
      RacePutIfNotExists(*store, "_versions/7.manifest", contents);
  int winners = 0;
  int winner = -1;
  for (int i = 0; i < kThreads; ++i) {
    if (results[i].ok()) {
      ++winners;
      winner = i;
    } else {
      EXPECT_THAT(results[i],
                  IsErrorWith(StatusCode::kAlreadyExists, "_versions/7.manifest"));
    }
  }
  ASSERT_EQ(winners, 1);
  ASSERT_OK_AND_ASSIGN(ObjectMeta meta, store->Head("_versions/7.manifest"));
  EXPECT_EQ(meta.size, static_cast<int64_t>(contents[winner].size()));
  ASSERT_OK_AND_ASSIGN(BufferPtr data, store->Read("_versions/7.manifest"));
  EXPECT_TRUE(data->ToStringView() == contents[winner]);
}

// -- Readers
// ------------------------------------------------------------------------------

TEST_F(S3ObjectStoreTest, PinnedReaderFailsClearlyAfterOverwrite) {
  ASSERT_OK_AND_ASSIGN(auto store,
                       MakeFreshBucketStore({{"lance_cpp_read_chunk_size", "4194304"}}));
  const std::string v1 = RandomBytes(10 * kMiB, 21);
  const std::string v2 = RandomBytes(10 * kMiB, 22);
  ASSERT_OK(store->Put("pin.bin", v1));
  ASSERT_OK_AND_ASSIGN(auto pinned, store->OpenReader("pin.bin"));
  ASSERT_OK_AND_ASSIGN(auto unpinned, store->OpenReaderWithSize("pin.bin", 10 * kMiB));
  ASSERT_OK_AND_ASSIGN(BufferPtr before, pinned->ReadAt(100, 1000));
  EXPECT_EQ(before->ToStringView(), std::string_view(v1).substr(100, 1000));

  ASSERT_OK(store->Put("pin.bin", v2));
  // A small read and a chunked (parallel) read both refuse to mix versions.
  EXPECT_THAT(pinned->ReadAt(100, 1000), IsErrorWith(StatusCode::kIOError, "changed"));
  EXPECT_THAT(pinned->ReadAt(0, 10 * kMiB), IsErrorWith(StatusCode::kIOError, "changed"));
  EXPECT_THAT(pinned->ReadAt(0, 10), IsErrorWith(StatusCode::kIOError, "pin.bin"));
  // The unpinned reader (the table layer's: immutable files) just reads what is there.
  ASSERT_OK_AND_ASSIGN(BufferPtr after, unpinned->ReadAt(100, 1000));
  EXPECT_EQ(after->ToStringView(), std::string_view(v2).substr(100, 1000));
  // A new reader sees the new version.
  ASSERT_OK_AND_ASSIGN(auto fresh, store->OpenReader("pin.bin"));
  ASSERT_OK_AND_ASSIGN(BufferPtr now, fresh->ReadAt(0, 10 * kMiB));
  EXPECT_TRUE(now->ToStringView() == v2);
}

TEST_F(S3ObjectStoreTest, OpenReaderWithSizeMakesNoRequest) {
  ASSERT_OK_AND_ASSIGN(auto store, MakeFreshBucketStore());
  S3ObjectStore* s3 = AsS3(store);
  ASSERT_NE(s3, nullptr);
  const std::string content = RandomBytes(100000, 31);
  ASSERT_OK(store->Put("sized.bin", content));
  auto& stats = s3->client()->stats();

  const int64_t before = stats.requests.load();
  ASSERT_OK_AND_ASSIGN(auto reader, store->OpenReaderWithSize("sized.bin", 100000));
  EXPECT_EQ(stats.requests.load(), before) << "OpenReaderWithSize sent a request";
  EXPECT_EQ(reader->size(), 100000);
  ASSERT_OK_AND_ASSIGN(BufferPtr data, reader->ReadAt(500, 2000));
  EXPECT_EQ(data->ToStringView(), std::string_view(content).substr(500, 2000));
  EXPECT_EQ(stats.requests.load(), before + 1) << "one ranged GET, no HEAD";

  // OpenReader does HEAD.
  const int64_t before_open = stats.requests.load();
  ASSERT_OK_AND_ASSIGN(auto headed, store->OpenReader("sized.bin"));
  EXPECT_EQ(stats.requests.load(), before_open + 1);

  // A size larger than the truth gives short reads, as documented.
  ASSERT_OK_AND_ASSIGN(auto optimistic, store->OpenReaderWithSize("sized.bin", 150000));
  ASSERT_OK_AND_ASSIGN(BufferPtr tail, optimistic->ReadAt(99000, 5000));
  EXPECT_EQ(tail->ToStringView(), std::string_view(content).substr(99000));

  EXPECT_THAT(store->OpenReaderWithSize("sized.bin", -1), IsError(StatusCode::kInvalid));
  EXPECT_THAT(store->OpenReaderWithSize("../x", 1), IsError(StatusCode::kInvalid));
  // No HEAD means a missing object shows up on the first read.
  ASSERT_OK_AND_ASSIGN(auto missing, store->OpenReaderWithSize("missing.bin", 10));
  EXPECT_THAT(missing->ReadAt(0, 10), IsErrorWith(StatusCode::kNotFound, "missing.bin"));
}

// Records how many requests sign at the same time: each Current() call lingers a little,
// so overlapping requests overlap here too.
class ConcurrencyProbe : public CredentialsSource {
 public:
  explicit ConcurrencyProbe(AwsCredentials credentials)
      : credentials_(std::make_shared<const io::Credentials>(std::move(credentials))) {}
  Result<std::shared_ptr<const io::Credentials>> Current() override {
    const int now = ++active_;
    int seen = max_active_.load();
    while (now > seen && !max_active_.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    --active_;
    ++calls_;
    return credentials_;
  }
  std::string id() const override { return "concurrency-probe"; }
  std::string ToString() const override { return "ConcurrencyProbe"; }
  int max_active() const { return max_active_.load(); }
  int calls() const { return calls_.load(); }

 private:
  std::shared_ptr<const io::Credentials> credentials_;
  std::atomic<int> active_{0};
  std::atomic<int> max_active_{0};
  std::atomic<int> calls_{0};
};

TEST_F(S3ObjectStoreTest, LargeReadAtFetchesChunksInParallel) {
  ASSERT_OK_AND_ASSIGN(auto fresh, MakeFreshBucketStore());
  const std::string content = RandomBytes(30 * kMiB, 41);
  ASSERT_OK(fresh->Put("thirty.bin", content));

  StorageOptions options = env_.Options();
  options["lance_cpp_read_chunk_size"] = "4194304";
  auto probe = std::make_shared<ConcurrencyProbe>(
      AwsCredentials{env_.access_key, env_.secret_key, ""});
  ASSERT_OK_AND_ASSIGN(auto store,
                       S3ObjectStore::FromStorageOptions(fresh->root(), options, probe));
  ASSERT_OK_AND_ASSIGN(auto reader, store->OpenReader("thirty.bin"));
  const int64_t before = store->client()->stats().requests.load();
  const int calls_before = probe->calls();
  ASSERT_OK_AND_ASSIGN(BufferPtr all, reader->ReadAt(0, 30 * kMiB));
  EXPECT_TRUE(all->ToStringView() == content);
  // ceil(30 / 4) = 8 ranged GETs, and they overlapped.
  EXPECT_EQ(store->client()->stats().requests.load() - before, 8);
  EXPECT_EQ(probe->calls() - calls_before, 8);
  EXPECT_GT(probe->max_active(), 1) << "the chunks were fetched one after another";

  // Unaligned ranges across chunk boundaries, and a short read at the end.
  ASSERT_OK_AND_ASSIGN(BufferPtr middle, reader->ReadAt(3 * kMiB + 7, 13 * kMiB + 5));
  EXPECT_TRUE(middle->ToStringView() ==
              std::string_view(content).substr(3 * kMiB + 7, 13 * kMiB + 5));
  ASSERT_OK_AND_ASSIGN(BufferPtr tail, reader->ReadAt(21 * kMiB + 1, 20 * kMiB));
  EXPECT_TRUE(tail->ToStringView() == std::string_view(content).substr(21 * kMiB + 1));

  // A known size that overstates the object: chunks past the true end cut the read.
  ASSERT_OK_AND_ASSIGN(auto optimistic,
                       store->OpenReaderWithSize("thirty.bin", 50 * kMiB));
  ASSERT_OK_AND_ASSIGN(BufferPtr whole, optimistic->ReadAt(0, 50 * kMiB));
  EXPECT_EQ(whole->size(), 30 * kMiB);
  EXPECT_TRUE(whole->ToStringView() == content);
}

TEST_F(S3ObjectStoreTest, SequentialReadsAreServedFromReadAhead) {
  ASSERT_OK_AND_ASSIGN(auto fresh, MakeFreshBucketStore());
  const int64_t size = 20 * kMiB + 4321;
  const std::string content = RandomBytes(static_cast<size_t>(size), 47);
  ASSERT_OK(fresh->Put("seq.bin", content));
  constexpr int64_t kStep = kMiB / 2 + 17;  // unaligned, so reads straddle blocks

  for (const char* read_ahead : {"0", "8388608"}) {
    SCOPED_TRACE(std::string("read_ahead=") + read_ahead);
    StorageOptions options = env_.Options();
    options["lance_cpp_read_chunk_size"] = "2097152";  // 2 MiB blocks
    options["lance_cpp_read_ahead"] = read_ahead;
    ASSERT_OK_AND_ASSIGN(
        auto store, S3ObjectStore::FromStorageOptions(fresh->root(), options, nullptr));
    // An overstated known size: the last reads come back short, as without read-ahead.
    ASSERT_OK_AND_ASSIGN(auto reader, store->OpenReaderWithSize("seq.bin", size + kMiB));
    const int64_t before = store->client()->stats().requests.load();
    int reads = 0;
    for (int64_t offset = 0; offset < size + kMiB; offset += kStep, ++reads) {
      ASSERT_OK_AND_ASSIGN(BufferPtr got, reader->ReadAt(offset, kStep));
      const auto expected =
          offset >= size ? std::string_view()
                         : std::string_view(content).substr(static_cast<size_t>(offset),
                                                            static_cast<size_t>(kStep));
      ASSERT_TRUE(got->ToStringView() == expected) << "at " << offset;
    }
    const int64_t requests = store->client()->stats().requests.load() - before;
    if (std::string(read_ahead) == "0") {
      EXPECT_EQ(requests, reads);
    } else {
      // About one GET per 2 MiB block instead of one per read (plus the first reads,
      // before the stream is recognised, and the short tail read directly).
      EXPECT_LT(requests, reads / 2) << requests << " GETs for " << reads << " reads";
    }
  }

  // A pinned reader still notices a replaced object through its read-ahead (blocks
  // fetched before the overwrite hold the version it pinned and are served as such).
  StorageOptions options = env_.Options();
  options["lance_cpp_read_chunk_size"] = "2097152";
  options["lance_cpp_read_ahead"] = "4194304";
  ASSERT_OK_AND_ASSIGN(
      auto store, S3ObjectStore::FromStorageOptions(fresh->root(), options, nullptr));
  ASSERT_OK_AND_ASSIGN(auto pinned, store->OpenReader("seq.bin"));
  ASSERT_OK(pinned->ReadAt(0, kStep).status());
  ASSERT_OK(pinned->ReadAt(kStep, kStep).status());
  ASSERT_OK(fresh->Put("seq.bin", RandomBytes(static_cast<size_t>(size), 48)));
  Status changed;
  for (int64_t offset = 2 * kStep; offset < size && changed.ok(); offset += kStep) {
    changed = pinned->ReadAt(offset, kStep).status();
  }
  EXPECT_THAT(changed, IsErrorWith(StatusCode::kIOError, "changed"));
}

// -- The shared I/O executor ---------------------------------------------------------

// Threads of this process now (Linux: /proc/self/status).
int ProcessThreads() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  }
  return -1;
}

TEST_F(S3ObjectStoreTest, ManyConcurrentReadersShareTheBoundedExecutor) {
  ASSERT_OK_AND_ASSIGN(auto fresh, MakeFreshBucketStore());
  const std::string content = RandomBytes(12 * kMiB + 333, 43);
  ASSERT_OK(fresh->Put("shared.bin", content));
  StorageOptions options = env_.Options();
  options["lance_cpp_read_chunk_size"] = "262144";  // 49 chunks per whole read
  ASSERT_OK_AND_ASSIGN(
      auto store, S3ObjectStore::FromStorageOptions(fresh->root(), options, nullptr));
  ASSERT_OK_AND_ASSIGN(auto reader, store->OpenReader("shared.bin"));

  Executor& executor = Executor::Default();
  const int pool = executor.threads();
  const ExecutorStats before = executor.stats();
  const int threads_before = ProcessThreads();
  ASSERT_GT(threads_before, 0);

  constexpr int kReaders = 12;
  const int64_t chunks = (static_cast<int64_t>(content.size()) + 262143) / 262144;
  std::atomic<bool> done{false};
  std::atomic<int> peak_threads{threads_before};
  std::thread monitor([&] {
    while (!done.load()) {
      const int now = ProcessThreads();
      int seen = peak_threads.load();
      while (now > seen && !peak_threads.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  std::latch start(kReaders);
  std::vector<std::thread> readers;
  std::vector<Status> results(kReaders);
  std::atomic<int> equal{0};
  for (int r = 0; r < kReaders; ++r) {
    readers.emplace_back([&, r] {
      start.arrive_and_wait();
      auto got = reader->ReadAt(0, static_cast<int64_t>(content.size()));
      if (!got.ok()) {
        results[static_cast<size_t>(r)] = got.status();
        return;
      }
      if ((*got)->ToStringView() == content) ++equal;
    });
  }
  for (auto& t : readers) t.join();
  done = true;
  monitor.join();

  for (const Status& st : results) EXPECT_OK(st);
  EXPECT_EQ(equal.load(), kReaders);
  const ExecutorStats after = executor.stats();
  // Every chunk of every read went through the one pool, whose size did not change...
  EXPECT_EQ(executor.threads(), pool);
  EXPECT_GE(after.tasks_submitted - before.tasks_submitted, kReaders * chunks);
  // ...and no read started threads of its own: at most the readers and the monitor
  // came on top (ad hoc threads per chunk would add up to kReaders x 32).
  EXPECT_LE(peak_threads.load(), threads_before + kReaders + 1)
      << "pool of " << pool << " threads";
}

// -- Registry
// -----------------------------------------------------------------------------

TEST_F(S3ObjectStoreTest, RegistrySharesStoresPerBucketOptionsAndCredentials) {
  ObjectStoreRegistry registry;
  ASSERT_OK(RegisterBuiltinObjectStores(&registry));
  const std::string bucket_uri = "s3://" + env_.bucket;
  ASSERT_OK_AND_ASSIGN(ResolvedLocation a,
                       registry.Resolve(bucket_uri + "/a/ds.lance", env_.Options()));
  ASSERT_OK_AND_ASSIGN(ResolvedLocation b,
                       registry.Resolve(bucket_uri + "/b/other.lance", env_.Options()));
  EXPECT_EQ(a.store, b.store);
  EXPECT_EQ(a.path, "a/ds.lance");
  EXPECT_EQ(a.store->uri(), bucket_uri);
  EXPECT_EQ(a.store->root(), env_.bucket);

  // s3a is the same bucket through another scheme: its own store, named s3a.
  ASSERT_OK_AND_ASSIGN(ResolvedLocation s3a,
                       registry.Resolve("s3a://" + env_.bucket + "/a", env_.Options()));
  EXPECT_NE(s3a.store, a.store);
  EXPECT_EQ(s3a.store->uri(), "s3a://" + env_.bucket);
  EXPECT_EQ(s3a.store->ObjectUri("k"), "s3a://" + env_.bucket + "/k");

  // Other non-secret options, or other credentials: never the same store.
  StorageOptions retries = env_.Options();
  retries["client_max_retries"] = "3";
  ASSERT_OK_AND_ASSIGN(ResolvedLocation c, registry.Resolve(bucket_uri + "/a", retries));
  EXPECT_NE(c.store, a.store);
  ASSERT_OK_AND_ASSIGN(
      ResolvedLocation d,
      registry.Resolve(bucket_uri + "/a",
                       env_.OptionsWith({"LCTOTHERKEY000000000", "other-secret", ""})));
  EXPECT_NE(d.store, a.store);
  EXPECT_EQ(d.store->ToString().find("other-secret"), std::string::npos);

  // Rotating static credentials 100 times, even holding every store, keeps one entry
  // per (bucket, options): the new secrets replace the old entry.
  registry.ClearCache();
  std::vector<std::shared_ptr<ObjectStore>> held;
  std::set<ObjectStore*> distinct;
  for (int i = 0; i < 100; ++i) {
    AwsCredentials rotated{"LCTROTATE" + std::to_string(1000 + i),
                           "rotated-secret-" + std::to_string(i), ""};
    ASSERT_OK_AND_ASSIGN(ResolvedLocation r,
                         registry.Resolve(bucket_uri + "/x", env_.OptionsWith(rotated)));
    distinct.insert(r.store.get());
    held.push_back(r.store);
    ASSERT_LE(registry.num_cached_stores(), 1u);
  }
  EXPECT_EQ(distinct.size(), 100u);
  held.clear();
  EXPECT_EQ(registry.num_cached_stores(), 0u);

  // A bucket is required; malformed options are Invalid naming the key.
  EXPECT_THAT(S3ObjectStore::FromStorageOptions("", env_.Options()),
              IsErrorWith(StatusCode::kInvalid, "bucket"));
  StorageOptions bad = env_.Options();
  bad["client_max_retries"] = "many";
  EXPECT_THAT(registry.Resolve(bucket_uri + "/a", bad),
              IsErrorWith(StatusCode::kInvalid, "client_max_retries"));
}

// -- Credentials
// --------------------------------------------------------------------------

TEST_F(S3ObjectStoreTest, StoreOnAssumeRoleSessionCredentials) {
  ASSERT_OK_AND_ASSIGN(AwsCredentials session, AssumeRole());
  ASSERT_FALSE(session.session_token.empty());
  const std::string key = KeyOf(env_.UniqueUri("sts/object.bin"));

  ASSERT_OK_AND_ASSIGN(auto store, SharedBucketStore(env_.OptionsWith(session)));
  ExpectNoSecret(store->ToString(), session);
  ASSERT_OK(store->Put(key, "written with a session token"));
  ASSERT_OK_AND_ASSIGN(BufferPtr data, store->Read(key));
  EXPECT_EQ(data->ToStringView(), "written with a session token");
  ASSERT_OK(store->PutIfNotExists(key + ".2", "x"));
  EXPECT_THAT(store->PutIfNotExists(key + ".2", "y"),
              IsError(StatusCode::kAlreadyExists));

  // The same key and secret without the token are refused, and the error shows neither.
  AwsCredentials no_token{session.access_key_id, session.secret_access_key, ""};
  ASSERT_OK_AND_ASSIGN(auto tokenless, SharedBucketStore(env_.OptionsWith(no_token)));
  Result<BufferPtr> refused = tokenless->Read(key);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsForbidden() || refused.status().IsUnauthorized())
      << refused.status().ToString();
  EXPECT_THAT(refused.status().message(), ::testing::HasSubstr(key));
  ExpectNoSecret(refused.status().ToString(), session);

  // A wrong token is refused as well.
  AwsCredentials wrong_token = session;
  wrong_token.session_token[wrong_token.session_token.size() / 2] ^= 1;
  ASSERT_OK_AND_ASSIGN(auto wrong, SharedBucketStore(env_.OptionsWith(wrong_token)));
  Result<ObjectMeta> head = wrong->Head(key);
  ASSERT_FALSE(head.ok());
  ExpectNoSecret(head.status().ToString(), wrong_token);
  ExpectNoSecret(head.status().ToString(), session);

  ASSERT_OK(store->DeleteMany({key, key + ".2"}));
}

TEST_F(S3ObjectStoreTest, SessionPolicyNarrowsTheRole) {
  const std::string prefix = KeyOf(env_.UniqueUri("scoped"));
  const std::string policy =
      R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject",)"
      R"("s3:PutObject","s3:DeleteObject"],"Resource":["arn:aws:s3:::)" +
      env_.bucket + "/" + prefix + R"(/*"]}]})";
  ASSERT_OK_AND_ASSIGN(AwsCredentials session,
                       AssumeRole(std::chrono::seconds(900), policy));
  ASSERT_OK_AND_ASSIGN(auto store, SharedBucketStore(env_.OptionsWith(session)));
  ASSERT_OK(store->Put(prefix + "/inside.bin", "ok"));
  EXPECT_THAT(store->Put(prefix + "-outside.bin", "no"), IsError(StatusCode::kForbidden));
  ASSERT_OK(store->Delete(prefix + "/inside.bin"));
}

// Hands out one key; when the server rejects it, vends a brand-new key (as a credential
// vending service would after a rotation).
class RotatingSource : public CredentialsSource {
 public:
  explicit RotatingSource(AwsCredentials first)
      : current_(std::make_shared<const io::Credentials>(std::move(first))) {}
  ~RotatingSource() override {
    for (const auto& id : issued_) (void)RemoveAccessKey(id);
  }
  Result<std::shared_ptr<const io::Credentials>> Current() override {
    std::lock_guard lock(mu_);
    return current_;
  }
  Result<std::shared_ptr<const io::Credentials>> OnRejected(
      const io::Credentials& rejected) override {
    std::lock_guard lock(mu_);
    ++rejections_;
    if (rejected.aws.access_key_id == current_->aws.access_key_id) {
      LANCE_ASSIGN_OR_RAISE(AwsCredentials fresh, CreateAccessKey());
      issued_.push_back(fresh.access_key_id);
      current_ = std::make_shared<const io::Credentials>(std::move(fresh));
    }
    return current_;
  }
  std::string id() const override { return "rotating-test-source"; }
  std::string ToString() const override { return "RotatingSource"; }

  int rejections() {
    std::lock_guard lock(mu_);
    return rejections_;
  }
  std::shared_ptr<const io::Credentials> current() {
    std::lock_guard lock(mu_);
    return current_;
  }

 private:
  std::mutex mu_;
  std::shared_ptr<const io::Credentials> current_;
  std::vector<std::string> issued_;
  int rejections_ = 0;
};

TEST_F(S3ObjectStoreTest, RejectedCredentialsAreRefreshedUnderALiveStore) {
  ASSERT_OK_AND_ASSIGN(AwsCredentials first, CreateAccessKey());
  auto source = std::make_shared<RotatingSource>(first);
  StorageOptions no_keys = env_.Options();
  no_keys.erase("aws_access_key_id");
  no_keys.erase("aws_secret_access_key");
  ASSERT_OK_AND_ASSIGN(auto store, SharedBucketStore(no_keys, source));
  const std::string key = KeyOf(env_.UniqueUri("rotating/object.bin"));
  ASSERT_OK(store->Put(key, "one"));
  EXPECT_EQ(source->rejections(), 0);

  ASSERT_OK(RemoveAccessKey(first.access_key_id));
  // The next request is refused, the source vends a new key, the request is retried.
  Status put = store->Put(key, "two");
  ASSERT_TRUE(put.ok()) << put.ToString() << "; rejections " << source->rejections()
                        << ", refreshes "
                        << store->client()->stats().credential_refreshes.load();
  EXPECT_EQ(source->rejections(), 1);
  EXPECT_NE(source->current()->aws.access_key_id, first.access_key_id);
  EXPECT_EQ(store->client()->stats().credential_refreshes.load(), 1);
  ASSERT_OK_AND_ASSIGN(BufferPtr data, store->Read(key));
  EXPECT_EQ(data->ToStringView(), "two");
  EXPECT_EQ(source->rejections(), 1);  // the new key keeps working without refreshes
  ASSERT_OK(store->Delete(key));
}

TEST_F(S3ObjectStoreTest, ErrorsNeverContainSecrets) {
  const std::string key = KeyOf(env_.UniqueUri("secrets/object.bin"));
  ASSERT_OK_AND_ASSIGN(auto good, SharedBucketStore());
  ASSERT_OK(good->Put(key, "data"));

  // A wrong secret (SignatureDoesNotMatch).
  AwsCredentials wrong_secret{env_.access_key, "wrong-secret-0123456789abcdef0123456789",
                              ""};
  ASSERT_OK_AND_ASSIGN(auto store, SharedBucketStore(env_.OptionsWith(wrong_secret)));
  ExpectNoSecret(store->ToString(), wrong_secret);
  ExpectNoSecret(store->client()->options().ToString(), wrong_secret);
  std::vector<Status> failures;
  failures.push_back(store->Head(key).status());
  failures.push_back(store->Read(key).status());
  failures.push_back(store->Put(key, "x"));
  failures.push_back(store->PutIfNotExists(key + ".new", "x"));
  failures.push_back(store->List("secrets/").status());
  failures.push_back(store->Delete(key));
  for (const Status& st : failures) {
    SCOPED_TRACE(st.ToString());
    // RGW with STS enabled answers a wrong secret with AccessDenied, not
    // SignatureDoesNotMatch, so Forbidden is as good as Unauthorized here.
    EXPECT_TRUE(st.IsUnauthorized() || st.IsForbidden()) << st.ToString();
    ExpectNoSecret(st.ToString(), wrong_secret);
    ExpectNoSecret(st.message(), wrong_secret);
  }
  EXPECT_THAT(failures[0].message(), ::testing::HasSubstr(key));

  // A removed key (InvalidAccessKeyId) that its static source cannot refresh.
  ASSERT_OK_AND_ASSIGN(AwsCredentials removed, CreateAccessKey());
  ASSERT_OK(RemoveAccessKey(removed.access_key_id));
  ASSERT_OK_AND_ASSIGN(auto gone, SharedBucketStore(env_.OptionsWith(removed)));
  Status st = gone->Put(key, "x");
  EXPECT_TRUE(st.IsUnauthorized() || st.IsForbidden()) << st.ToString();
  ExpectNoSecret(st.ToString(), removed);

  // A session token with a wrong secret, through a writer.
  ASSERT_OK_AND_ASSIGN(AwsCredentials session, AssumeRole());
  AwsCredentials tampered = session;
  tampered.secret_access_key = "tampered-secret-abcdefabcdefabcdefabcdef";
  ASSERT_OK_AND_ASSIGN(auto tampered_store,
                       SharedBucketStore(env_.OptionsWith(tampered)));
  ExpectNoSecret(tampered_store->ToString(), tampered);
  ASSERT_OK_AND_ASSIGN(auto writer, tampered_store->OpenWriter(key + ".w"));
  ASSERT_OK(writer->Write("abc"));
  Status closed = writer->Close();
  EXPECT_FALSE(closed.ok());
  ExpectNoSecret(closed.ToString(), tampered);
  ExpectNoSecret(closed.ToString(), session);

  ASSERT_OK(good->Delete(key));
}

// -- Addressing
// ---------------------------------------------------------------------------

TEST_F(S3ObjectStoreTest, VirtualHostedStyleAddressing) {
  // curl resolves *.localhost to the loopback address itself; RGW's dns name is
  // s3.localhost, so it takes the bucket from the Host header.
  const size_t port_at = env_.endpoint.rfind(':');
  ASSERT_NE(port_at, std::string::npos);
  StorageOptions options = env_.Options();
  options["aws_endpoint"] =
      "http://" + env_.bucket + ".s3.localhost" + env_.endpoint.substr(port_at);
  options["aws_virtual_hosted_style_request"] = "true";
  ASSERT_OK_AND_ASSIGN(auto store, SharedBucketStore(options));
  const std::string dir = KeyOf(env_.UniqueUri("vhost"));
  ASSERT_OK(store->Put(dir + "/a b+c.bin", "vhost"));
  ASSERT_OK(store->PutIfNotExists(dir + "/d.bin", "d"));
  ASSERT_OK_AND_ASSIGN(BufferPtr data, store->Read(dir + "/a b+c.bin"));
  EXPECT_EQ(data->ToStringView(), "vhost");
  ASSERT_OK_AND_ASSIGN(ListResult listed, store->ListAll(dir + "/", true));
  ASSERT_EQ(listed.objects.size(), 2u);
  EXPECT_EQ(listed.objects[0].path, dir + "/a b+c.bin");

  // The path-style store sees the same objects.
  ASSERT_OK_AND_ASSIGN(auto path_style, SharedBucketStore());
  ASSERT_OK_AND_ASSIGN(data, path_style->Read(dir + "/d.bin"));
  EXPECT_EQ(data->ToStringView(), "d");
  ASSERT_OK(store->DeletePrefix(dir + "/"));
  ASSERT_OK_AND_ASSIGN(listed, path_style->ListAll(dir + "/", true));
  EXPECT_TRUE(listed.objects.empty());
}

}  // namespace
}  // namespace lance::io
