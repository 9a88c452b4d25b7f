// SPDX-License-Identifier: Apache-2.0
// GcsObjectStore against fake-gcs-server (scripts/gcs.sh): the object-store conformance
// suite on a fresh bucket per test (straight to the server, and through the
// token-checking proxy with a bearer token), then what is specific to GCS -- resumable
// uploads, parallel ranged reads, generation-pinned readers, the gs:// registry entry,
// and what the proxy lets us check that fake-gcs-server cannot: expired tokens refreshed
// under a live store, downscoped tokens, service-account keys exchanged at a token
// endpoint.
#include "lance/io/gcs_object_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "io/gcs/gcs_client.h"
#include "lance/io/object_store_registry.h"
#include "tests/gcs/gcs_env.h"
#include "tests/gcs/token_proxy.h"
#include "tests/testing/matchers.h"
#include "tests/testing/object_store_conformance.h"
#include "tests/testing/secret_ledger.h"

namespace lance::io {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using ::lance::testing::GcsTestEnv;
using ::lance::testing::GcsTokenProxy;
using ::lance::testing::MakeFreshGcsBucketStore;
using ::lance::testing::ObjectStoreTestParam;
using ::lance::testing::RandomBytes;

constexpr int64_t kMiB = 1 << 20;

// One proxy for the proxied conformance run, with one long-lived token.
GcsTokenProxy* SharedProxy() {
  static GcsTokenProxy* proxy = [] {
    auto env = GcsTestEnv::Get();
    if (!env.ok()) return static_cast<GcsTokenProxy*>(nullptr);
    auto started = GcsTokenProxy::Start({env->endpoint, false});
    if (!started.ok()) return static_cast<GcsTokenProxy*>(nullptr);
    (*started)->AddToken("conformance-token", std::chrono::hours(24));
    return started->release();
  }();
  return proxy;
}

ObjectStoreTestParam DirectParam() {
  // Small chunks, so the large-object tests cross resumable chunks and parallel reads.
  return {
      .name = "gcs",
      .make_store =
          [] {
            return MakeFreshGcsBucketStore({{"lance_cpp_upload_chunk_size", "1048576"},
                                            {"lance_cpp_read_chunk_size", "1048576"}});
          },
      .large_object_bytes = 5 * kMiB};
}

ObjectStoreTestParam ProxiedParam() {
  return {.name = "gcs_through_token_proxy",
          .make_store = []() -> Result<std::shared_ptr<ObjectStore>> {
            GcsTokenProxy* proxy = SharedProxy();
            if (proxy == nullptr) return Status::Invalid("the token proxy did not start");
            return MakeFreshGcsBucketStore({{"google_storage_token", "conformance-token"},
                                            {"lance_cpp_upload_chunk_size", "1048576"}},
                                           nullptr, proxy->endpoint());
          },
          .large_object_bytes = 3 * kMiB,
          .list_many_keys = 120};
}

}  // namespace

LANCE_INSTANTIATE_OBJECT_STORE_CONFORMANCE(Gcs, DirectParam(), ProxiedParam());

namespace {

GcsObjectStore* AsGcs(const std::shared_ptr<ObjectStore>& store) {
  auto* wrapped = dynamic_cast<GcsObjectStore*>(store.get());
  return wrapped;
}

// Hands out the token it holds; OnRejected asks `next` for a new one (counted).
class SwappingTokenSource : public CredentialsSource {
 public:
  using Next = std::function<Result<std::string>()>;
  SwappingTokenSource(std::string first, Next next)
      : current_(std::make_shared<const gcs::SeamCredentials>(
            gcs::BearerCredentials(std::move(first)))),
        next_(std::move(next)) {}
  Result<std::shared_ptr<const gcs::SeamCredentials>> Current() override {
    std::lock_guard lock(mu_);
    return current_;
  }
  Result<std::shared_ptr<const gcs::SeamCredentials>> OnRejected(
      const gcs::SeamCredentials& rejected) override {
    std::lock_guard lock(mu_);
    ++rejections_;
    if (gcs::BearerTokenOf(*current_) != gcs::BearerTokenOf(rejected)) return current_;
    LANCE_ASSIGN_OR_RAISE(std::string token, next_());
    current_ =
        std::make_shared<const gcs::SeamCredentials>(gcs::BearerCredentials(token));
    return current_;
  }
  std::string id() const override { return "swapping-token"; }
  std::string ToString() const override { return "SwappingTokenSource"; }
  int rejections() const {
    std::lock_guard lock(mu_);
    return rejections_;
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const gcs::SeamCredentials> current_;
  Next next_;
  int rejections_ = 0;
};

using GcsObjectStoreTest = ::lance::testing::GcsEnvTest;

TEST_F(GcsObjectStoreTest, LargeWriterUsesResumableChunksAndSmallOnesOneUpload) {
  ASSERT_OK_AND_ASSIGN(
      auto store, MakeFreshGcsBucketStore({{"lance_cpp_upload_chunk_size", "262144"}}));
  GcsObjectStore* gcs = AsGcs(store);
  ASSERT_NE(gcs, nullptr);
  const std::string content = RandomBytes(3 * kMiB + 12345, 21);
  ASSERT_OK_AND_ASSIGN(auto writer, store->OpenWriter("big/three.bin"));
  for (size_t offset = 0; offset < content.size();) {
    const size_t n = std::min<size_t>(100003, content.size() - offset);
    ASSERT_OK(writer->Write(std::string_view(content).substr(offset, n)));
    offset += n;
  }
  // Nothing is visible before Close.
  EXPECT_THAT(store->Head("big/three.bin"), IsError(StatusCode::kNotFound));
  ASSERT_OK(writer->Close());
  // 3 MiB + 12345 bytes in 256 KiB chunks: 13 chunks.
  EXPECT_EQ(gcs->client()->stats().resumable_chunks.load(), 13);
  ASSERT_OK_AND_ASSIGN(BufferPtr back, store->Read("big/three.bin"));
  EXPECT_TRUE(back->ToStringView() == content);

  // Exactly one chunk, and less, are one media upload each.
  for (int64_t size : {int64_t{262144}, int64_t{1000}, int64_t{0}}) {
    SCOPED_TRACE(size);
    const int64_t chunks = gcs->client()->stats().resumable_chunks.load();
    ASSERT_OK_AND_ASSIGN(auto small, store->OpenWriter("big/single.bin"));
    ASSERT_OK(small->Write(RandomBytes(size, 22)));
    ASSERT_OK(small->Close());
    EXPECT_EQ(gcs->client()->stats().resumable_chunks.load(), chunks);
    ASSERT_OK_AND_ASSIGN(ObjectMeta meta, store->Head("big/single.bin"));
    EXPECT_EQ(meta.size, size);
  }
}

TEST_F(GcsObjectStoreTest, AbortedResumableUploadLeavesThePreviousObject) {
  ASSERT_OK_AND_ASSIGN(
      auto store, MakeFreshGcsBucketStore({{"lance_cpp_upload_chunk_size", "262144"}}));
  ASSERT_OK(store->Put("keep.bin", "previous version"));
  for (bool explicit_abort : {true, false}) {
    SCOPED_TRACE(explicit_abort ? "Abort()" : "destroyed unclosed");
    ASSERT_OK_AND_ASSIGN(auto writer, store->OpenWriter("keep.bin"));
    ASSERT_OK(writer->Write(RandomBytes(kMiB, 23)));  // resumable session started
    if (explicit_abort) {
      ASSERT_OK(writer->Abort());
    } else {
      writer.reset();
    }
    ASSERT_OK_AND_ASSIGN(BufferPtr data, store->Read("keep.bin"));
    EXPECT_EQ(data->ToStringView(), "previous version");
  }
}

TEST_F(GcsObjectStoreTest, BigReadsAreSplitIntoParallelRanges) {
  ASSERT_OK_AND_ASSIGN(
      auto store, MakeFreshGcsBucketStore({{"lance_cpp_read_chunk_size", "100000"}}));
  GcsObjectStore* gcs = AsGcs(store);
  const std::string content = RandomBytes(1'000'000, 24);
  ASSERT_OK(store->Put("r.bin", content));
  ASSERT_OK_AND_ASSIGN(auto reader, store->OpenReader("r.bin"));
  const int64_t before = gcs->client()->stats().media_reads.load();
  ASSERT_OK_AND_ASSIGN(BufferPtr all, reader->ReadAt(0, 1'000'000));
  EXPECT_TRUE(all->ToStringView() == content);
  EXPECT_EQ(gcs->client()->stats().media_reads.load() - before, 10);
  // A range across chunk edges, and one past the end (a short read).
  ASSERT_OK_AND_ASSIGN(BufferPtr mid, reader->ReadAt(99'990, 250'020));
  EXPECT_TRUE(mid->ToStringView() == std::string_view(content).substr(99'990, 250'020));
  ASSERT_OK_AND_ASSIGN(auto sized, store->OpenReaderWithSize("r.bin", 1'200'000));
  ASSERT_OK_AND_ASSIGN(BufferPtr tail, sized->ReadAt(950'000, 250'000));
  EXPECT_TRUE(tail->ToStringView() == std::string_view(content).substr(950'000));
}

TEST_F(GcsObjectStoreTest, GsUrisResolveThroughTheRegistry) {
  ASSERT_OK_AND_ASSIGN(auto store, MakeFreshGcsBucketStore());
  const std::string bucket = store->root();
  const std::string uri = "gs://" + bucket + "/some/dir/obj.txt";
  ASSERT_OK_AND_ASSIGN(auto loc, ResolveObjectStore(uri, env_.Options()));
  EXPECT_EQ(loc.path, "some/dir/obj.txt");
  EXPECT_EQ(loc.store->uri(), "gs://" + bucket);
  EXPECT_THAT(loc.store->ToString(), HasSubstr("GcsObjectStore(gs://" + bucket));
  ASSERT_OK(loc.store->Put(loc.path, "through the registry"));
  ASSERT_OK_AND_ASSIGN(BufferPtr back, store->Read("some/dir/obj.txt"));
  EXPECT_EQ(back->ToStringView(), "through the registry");
  // Errors name the gs:// URI and the operation.
  EXPECT_THAT(loc.store->Read("some/dir/missing"),
              IsErrorWith(StatusCode::kNotFound,
                          "GCS GetObjectMedia of gs://" + bucket + "/some/dir/missing"));
}

TEST_F(GcsObjectStoreTest, PinnedReaderFailsAfterTheObjectIsReplaced) {
  ASSERT_OK_AND_ASSIGN(auto store, MakeFreshGcsBucketStore());
  ASSERT_OK(store->Put("p.bin", "first version"));
  ASSERT_OK_AND_ASSIGN(auto reader, store->OpenReader("p.bin"));
  ASSERT_OK_AND_ASSIGN(BufferPtr a, reader->ReadAt(0, 5));
  EXPECT_EQ(a->ToStringView(), "first");
  ASSERT_OK(store->Put("p.bin", "second version"));
  // The reader reads its generation only: the new one is never mixed in.
  EXPECT_THAT(reader->ReadAt(0, 6), IsErrorWith(StatusCode::kIOError, "object changed"));
  ASSERT_OK_AND_ASSIGN(auto fresh, store->OpenReader("p.bin"));
  ASSERT_OK_AND_ASSIGN(BufferPtr b, fresh->ReadAt(0, 6));
  EXPECT_EQ(b->ToStringView(), "second");
}

// -- Through the token-checking proxy ---------------------------------------------------

class GcsAuthTest : public GcsObjectStoreTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(GcsObjectStoreTest::SetUp());
    ASSERT_OK_AND_ASSIGN(proxy_, GcsTokenProxy::Start({env_.endpoint, false}));
  }
  std::unique_ptr<GcsTokenProxy> proxy_;
};

TEST_F(GcsAuthTest, TokensAreCheckedAndNeverLeakIntoMessages) {
  const std::string token = "ya29.test-token-" + GcsTestEnv::Unique("secret");
  ::lance::testing::RecordSecret(token, "gcs-static-token");
  proxy_->AddToken(token, std::chrono::minutes(10));
  ASSERT_OK_AND_ASSIGN(auto store,
                       MakeFreshGcsBucketStore({{"google_storage_token", token}}, nullptr,
                                               proxy_->endpoint()));
  ASSERT_OK(store->Put("a.txt", "hello"));
  EXPECT_EQ(proxy_->tokens_seen(), std::vector<std::string>{token});
  EXPECT_THAT(store->ToString(), Not(HasSubstr(token)));
  EXPECT_THAT(store->ToString(), HasSubstr("token=<redacted>"));

  // A wrong token: 401 Unauthorized, naming the object and operation, not the token.
  const std::string wrong = "ya29.wrong-" + GcsTestEnv::Unique("secret");
  ::lance::testing::RecordSecret(wrong, "gcs-wrong-token");
  ASSERT_OK_AND_ASSIGN(auto bad, GcsObjectStore::FromStorageOptions(store->root(), [&] {
                         auto o = env_.Options(proxy_->endpoint());
                         o["google_storage_token"] = wrong;
                         return o;
                       }()));
  Status st = bad->Put("b.txt", "x");
  EXPECT_THAT(st, IsErrorWith(StatusCode::kUnauthorized,
                              "GCS InsertObject of gs://" + store->root() + "/b.txt"));
  EXPECT_THAT(st.ToString(), Not(HasSubstr(wrong)));
  EXPECT_THAT(bad->ToString(), Not(HasSubstr(wrong)));
  EXPECT_THAT(bad->Read("a.txt"), IsError(StatusCode::kUnauthorized));
  // Without a token at all.
  ASSERT_OK_AND_ASSIGN(auto anonymous,
                       GcsObjectStore::FromStorageOptions(
                           store->root(), env_.Options(proxy_->endpoint())));
  EXPECT_THAT(anonymous->Head("a.txt"), IsError(StatusCode::kUnauthorized));
}

TEST_F(GcsAuthTest, ExpiredTokenIsRefreshedUnderALiveStore) {
  std::atomic<int> minted{0};
  auto mint = [&]() -> Result<std::string> {
    std::string token = "ya29.minted-" + std::to_string(minted.fetch_add(1)) + "-" +
                        GcsTestEnv::Unique("t");
    ::lance::testing::RecordSecret(token, "gcs-minted-token");
    proxy_->AddToken(token, std::chrono::milliseconds(800));
    return token;
  };
  ASSERT_OK_AND_ASSIGN(std::string first, mint());
  auto source = std::make_shared<SwappingTokenSource>(first, mint);
  ASSERT_OK_AND_ASSIGN(auto store,
                       MakeFreshGcsBucketStore({}, source, proxy_->endpoint()));
  ASSERT_OK(store->Put("v/0", "zero"));
  ASSERT_OK_AND_ASSIGN(auto reader, store->OpenReader("v/0"));
  // The first token expires for real (the proxy refuses it from now on).
  std::this_thread::sleep_for(std::chrono::milliseconds(900));
  ASSERT_OK(store->Put("v/1", "one"));
  EXPECT_EQ(source->rejections(), 1);
  ASSERT_OK_AND_ASSIGN(BufferPtr read, reader->ReadAt(0, 4));  // an open reader too
  EXPECT_EQ(read->ToStringView(), "zero");
  proxy_->ExpireToken(gcs::BearerTokenOf(**source->Current()));
  ASSERT_OK_AND_ASSIGN(ListResult all, store->ListAll("v/", true));
  EXPECT_EQ(all.objects.size(), 2u);
  EXPECT_EQ(source->rejections(), 2);
  EXPECT_EQ(proxy_->tokens_seen().size(), 3u);
  EXPECT_GE(proxy_->counters().unauthorized, 2);
}

TEST_F(GcsAuthTest, AStaticTokenThatExpiresFailsClearly) {
  const std::string token = "ya29.short-" + GcsTestEnv::Unique("secret");
  ::lance::testing::RecordSecret(token, "gcs-short-token");
  proxy_->AddToken(token, std::chrono::minutes(10));
  ASSERT_OK_AND_ASSIGN(auto store,
                       MakeFreshGcsBucketStore({{"google_storage_token", token}}, nullptr,
                                               proxy_->endpoint()));
  ASSERT_OK(store->Put("x", "1"));
  proxy_->ExpireToken(token);
  Status st = store->Put("y", "2");
  EXPECT_THAT(st, IsError(StatusCode::kUnauthorized));
  EXPECT_THAT(st.message(), HasSubstr("refreshing the token failed"));
  EXPECT_THAT(st.ToString(), Not(HasSubstr(token)));
}

TEST_F(GcsAuthTest, DownscopedTokenReachesOnlyItsPrefix) {
  ASSERT_OK_AND_ASSIGN(auto admin, MakeFreshGcsBucketStore());
  ASSERT_OK(admin->Put("tables/a/data.bin", "a"));
  ASSERT_OK(admin->Put("tables/b/data.bin", "b"));
  const std::string token = "ya29.scoped-" + GcsTestEnv::Unique("secret");
  ::lance::testing::RecordSecret(token, "gcs-scoped-token");
  proxy_->AddToken(token, std::chrono::minutes(10), "tables/a/");
  StorageOptions options = env_.Options(proxy_->endpoint());
  options["google_storage_token"] = token;
  ASSERT_OK_AND_ASSIGN(auto scoped,
                       GcsObjectStore::FromStorageOptions(admin->root(), options));
  ASSERT_OK_AND_ASSIGN(BufferPtr a, scoped->Read("tables/a/data.bin"));
  EXPECT_EQ(a->ToStringView(), "a");
  ASSERT_OK(scoped->Put("tables/a/new.bin", "n"));
  ASSERT_OK_AND_ASSIGN(ListResult listed, scoped->ListAll("tables/a/", true));
  EXPECT_EQ(listed.objects.size(), 2u);
  EXPECT_THAT(scoped->Read("tables/b/data.bin"), IsError(StatusCode::kForbidden));
  EXPECT_THAT(scoped->Put("tables/b/evil.bin", "x"), IsError(StatusCode::kForbidden));
  EXPECT_THAT(scoped->ListAll("tables/", true), IsError(StatusCode::kForbidden));
  EXPECT_THAT(scoped->Copy("tables/a/data.bin", "tables/b/copy.bin"),
              IsError(StatusCode::kForbidden));
  EXPECT_THAT(admin->Head("tables/b/evil.bin"), IsError(StatusCode::kNotFound));
}

TEST_F(GcsAuthTest, ThrottlingAndServerErrorsAreRetriedWithBackoff) {
  proxy_->AddToken("retry-token", std::chrono::minutes(10));
  ASSERT_OK_AND_ASSIGN(auto store,
                       MakeFreshGcsBucketStore({{"google_storage_token", "retry-token"}},
                                               nullptr, proxy_->endpoint()));
  GcsObjectStore* gcs = AsGcs(store);
  ASSERT_OK(store->Put("r/a", "payload"));
  for (int status : {503, 429, 500}) {
    SCOPED_TRACE(status);
    const int64_t retries = gcs->client()->stats().retries.load();
    proxy_->FailNext(2, status);
    ASSERT_OK_AND_ASSIGN(BufferPtr back, store->Read("r/a"));
    EXPECT_EQ(back->ToStringView(), "payload");
    EXPECT_EQ(gcs->client()->stats().retries.load() - retries, 2);
  }
  // More failures than retries (the test options allow 3): Unavailable, retryable,
  // naming the operation, the object and the attempts.
  proxy_->FailNext(10, 503);
  Status st = store->Put("r/b", "x");
  EXPECT_THAT(
      st, IsErrorWith(StatusCode::kUnavailable,
                      "GCS InsertObject of gs://" + store->root() + "/r/b: HTTP 503"));
  EXPECT_TRUE(st.retryable());
  EXPECT_THAT(st.message(), HasSubstr("after 4 attempts"));
  proxy_->FailNext(0, 503);
  // A 4xx other than 401 is not retried.
  const int64_t before = gcs->client()->stats().requests.load();
  proxy_->FailNext(1, 400);
  EXPECT_THAT(store->Head("r/a"), IsError(StatusCode::kInvalid));
  EXPECT_EQ(gcs->client()->stats().requests.load() - before, 1);
}

TEST_F(GcsObjectStoreTest, AServerThatIsNotThereIsUnavailableAfterRetries) {
  StorageOptions options = env_.Options("http://127.0.0.1:1");
  ASSERT_OK_AND_ASSIGN(auto store,
                       GcsObjectStore::FromStorageOptions("some-bucket", options));
  Status st = store->Head("k").status();
  EXPECT_THAT(st, IsErrorWith(StatusCode::kUnavailable,
                              "GCS GetObjectMetadata of gs://some-bucket/k"));
  EXPECT_TRUE(st.retryable());
  EXPECT_THAT(st.message(), HasSubstr("after 4 attempts"));
}

}  // namespace
}  // namespace lance::io
