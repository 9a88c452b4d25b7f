// SPDX-License-Identifier: Apache-2.0
// The Dataset API on gs:// URIs against fake-gcs-server: create, append, overwrite,
// scans, versions, deletes and racing committers (the ifGenerationMatch=0 commit
// primitive), with data files larger than one resumable chunk, and a dataset written
// through the token-checking proxy with a token that expires (and is refreshed) mid-way.
// Everything goes through storage options, the way users configure Lance.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "io/gcs/gcs_client.h"
#include "lance/dataset/dataset.h"
#include "lance/io/gcs_object_store.h"
#include "lance/io/object_store_registry.h"
#include "table/manifest.h"
#include "tests/gcs/gcs_env.h"
#include "tests/gcs/token_proxy.h"
#include "tests/testing/cloud_dataset_fixture.h"
#include "tests/testing/matchers.h"
#include "tests/testing/secret_ledger.h"

namespace lance {
namespace {

using io::StorageOptions;
using ::lance::testing::GcsTestEnv;
using ::lance::testing::GcsTokenProxy;
using namespace table_testing;  // NOLINT(build/namespaces)
namespace ti = ::lance::table_internal;

class GcsDatasetTest : public testing::CloudDatasetTest<::lance::testing::GcsEnvTest> {
 protected:
  std::string DatasetUri() override {
    return "gs://" + env_.bucket + "/" + GcsTestEnv::Unique("lance-test") + "/ds.lance";
  }
  void TearDown() override { testing::DeleteBelow(uri_, env_.Options()); }
};

TEST_F(GcsDatasetTest, CreateAppendOverwriteDeleteScanVersions) {
  std::shared_ptr<Dataset> v2;
  ASSERT_NO_FATAL_FAILURE(CreateThenAppend(uri_, &v2));

  ASSERT_OK(v2->Delete("id < 10 OR id >= 140"));
  EXPECT_EQ(v2->version(), 3u);
  EXPECT_EQ(Ids(*v2), Iota(10, 140));

  std::shared_ptr<Dataset> v4;
  ASSERT_NO_FATAL_FAILURE(OverwriteAs(uri_, 4, &v4));
  ASSERT_OK_AND_ASSIGN(auto old, Dataset::Open(uri_, Open(2)));
  EXPECT_EQ(Ids(*old), Iota(0, 150));
  ASSERT_OK_AND_ASSIGN(auto deleted, Dataset::Open(uri_, Open(3)));
  EXPECT_EQ(*deleted->CountRows(), 130);

  // One manifest object per version (V2 names), and nothing else in _versions/.
  ti::DatasetDir dir = Dir(uri_);
  ASSERT_OK_AND_ASSIGN(auto listing, dir.store()->ListAll(dir.Key("_versions/"), true));
  std::set<uint64_t> seen;
  for (const auto& o : listing.objects) {
    auto parsed = ti::ParseManifestFileName(o.path.substr(o.path.rfind('/') + 1));
    ASSERT_TRUE(parsed.has_value()) << o.path;
    seen.insert(parsed->version);
  }
  EXPECT_EQ(seen, (std::set<uint64_t>{1, 2, 3, 4}));
}

TEST_F(GcsDatasetTest, RacingAppendersAllLandInConsecutiveVersions) {
  std::shared_ptr<Dataset> ds;
  ASSERT_NO_FATAL_FAILURE(ExpectRacingAppendsLand(uri_, 6, 2, 5, &ds));
}

TEST_F(GcsDatasetTest, DataFilesLargerThanAChunkUseResumableUploads) {
  options_["lance_cpp_upload_chunk_size"] = "262144";
  options_["lance_cpp_read_chunk_size"] = "200000";
  // 200k rows of two int64 columns: data files of several chunks.
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRows(uri_, 0, 200'000, Params()));
  EXPECT_EQ(*ds->CountRows(), 200'000);
  EXPECT_EQ(SortedIds(*ds), Iota(0, 200'000));
  auto loc = io::ResolveObjectStore(uri_, options_);
  ASSERT_TRUE(loc.ok()) << loc.status();
  auto* gcs = dynamic_cast<io::GcsObjectStore*>(loc->store.get());
  ASSERT_NE(gcs, nullptr);
  EXPECT_GT(gcs->client()->stats().resumable_chunks.load(), 4);
}

TEST_F(GcsDatasetTest, ADatasetWrittenWhileTheTokenExpiresAndIsRefreshed) {
  ASSERT_OK_AND_ASSIGN(auto proxy, GcsTokenProxy::Start({env_.endpoint, false}));
  std::atomic<int> minted{0};
  auto mint = [&]() -> std::string {
    std::string token =
        "ya29.ds-" + std::to_string(minted.fetch_add(1)) + "-" + GcsTestEnv::Unique("t");
    ::lance::testing::RecordSecret(token, "gcs-dataset-token");
    proxy->AddToken(token, std::chrono::hours(1));
    return token;
  };
  // A source that refreshes on rejection, as a namespace-vended one does.
  class Source : public io::CredentialsSource {
   public:
    explicit Source(std::function<std::string()> mint)
        : mint_(std::move(mint)), current_(Make(mint_())) {}
    Result<std::shared_ptr<const io::gcs::SeamCredentials>> Current() override {
      std::lock_guard lock(mu_);
      return current_;
    }
    Result<std::shared_ptr<const io::gcs::SeamCredentials>> OnRejected(
        const io::gcs::SeamCredentials& rejected) override {
      std::lock_guard lock(mu_);
      if (io::gcs::BearerTokenOf(rejected) == io::gcs::BearerTokenOf(*current_)) {
        current_ = Make(mint_());
      }
      return current_;
    }
    std::string id() const override { return "test-refreshing-gcs-token"; }
    std::string ToString() const override { return "RefreshingTestSource"; }
    std::string token() {
      std::lock_guard lock(mu_);
      return io::gcs::BearerTokenOf(*current_);
    }

   private:
    static std::shared_ptr<const io::gcs::SeamCredentials> Make(std::string token) {
      return std::make_shared<const io::gcs::SeamCredentials>(
          io::gcs::BearerCredentials(std::move(token)));
    }
    std::function<std::string()> mint_;
    std::mutex mu_;
    std::shared_ptr<const io::gcs::SeamCredentials> current_;
  };
  auto source = std::make_shared<Source>(mint);
  options_ = env_.Options(proxy->endpoint());
  WriteParams params = Params();
  params.access.credentials = source;
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRows(uri_, 0, 50, params));
  proxy->ExpireToken(source->token());
  params.mode = WriteMode::kAppend;
  ASSERT_OK_AND_ASSIGN(ds, WriteRows(uri_, 50, 50, params));
  proxy->ExpireToken(source->token());
  OpenOptions open = Open();
  open.access.credentials = source;
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(uri_, open));
  EXPECT_EQ(reopened->version(), 2u);
  EXPECT_EQ(Ids(*reopened), Iota(0, 100));
  EXPECT_EQ(minted.load(), 3);
  EXPECT_EQ(proxy->counters().unauthorized, 2);
}

}  // namespace
}  // namespace lance
