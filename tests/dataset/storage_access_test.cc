// SPDX-License-Identifier: Apache-2.0
// How the table layer reaches its object store: the storage access (options, provider,
// credentials source) of WriteParams / OpenOptions / Commit gets to the store factory,
// a provider becomes one shared refreshing source at the entry point, and data files
// whose size the manifest records are opened without a size lookup.
#include "lance/io/storage_access.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "lance/dataset/dataset.h"
#include "lance/io/credentials.h"
#include "lance/io/memory_object_store.h"
#include "lance/io/object_store_registry.h"
#include "table_test_util.h"
#include "tests/testing/counting_store.h"
#include "tests/testing/matchers.h"

namespace lance {
namespace {

using namespace table_testing;  // NOLINT(build/namespaces)

// Counts how data files are opened for reading.
using CountingStore = ::lance::testing::OpenCountingStore;

// What the factory of the test scheme was last called with.
using ::lance::testing::FactoryLog;

class StorageAccessTest : public ::testing::Test {
 protected:
  static constexpr const char* kScheme = "tablecredtest";

  void SetUp() override {
    auto& registry = io::ObjectStoreRegistry::Default();
    registry.ClearCache();
    ASSERT_OK(::lance::testing::RegisterLoggedFactory(kScheme, store_, &log_));
    source_ = ::lance::testing::StaticTestCredentials("AKIDTABLE");
  }
  void TearDown() override {
    // The factory points at this fixture: leave the global registry with one that
    // does not.
    auto& registry = io::ObjectStoreRegistry::Default();
    EXPECT_OK(registry.Register(
        kScheme,
        [](const io::Uri& root, const io::StorageOptions&,
           const std::shared_ptr<io::CredentialsSource>&)
            -> Result<std::shared_ptr<io::ObjectStore>> {
          return Status::NotImplemented("test scheme retired: " + root.ToString());
        },
        /*replace=*/true));
    registry.ClearCache();
  }

  // Checks the factory's last call, then forgets it and the cached stores so that the
  // next resolution runs the factory again.
  void ExpectFactorySaw(const io::StorageOptions& options) {
    {
      std::lock_guard<std::mutex> lock(log_.mu);
      EXPECT_GE(log_.calls, 1);
      EXPECT_EQ(log_.options, options);
      EXPECT_EQ(log_.credentials, source_);
      log_.calls = 0;
      log_.credentials.reset();
      log_.options.clear();
    }
    // Outside our lock: the registry calls the factory (which takes it) under its own
    // lock, so taking them in the other order here would invert the lock order (TSan).
    io::ObjectStoreRegistry::Default().ClearCache();
  }

  std::string uri_ = std::string(kScheme) + "://bucket/ds.lance";
  std::shared_ptr<CountingStore> store_ = std::make_shared<CountingStore>(
      std::make_shared<io::MemoryObjectStore>(), "/data/");
  std::shared_ptr<io::CredentialsSource> source_;
  FactoryLog log_;
};

TEST_F(StorageAccessTest, WriteOpenCommitPassOptionsAndCredentials) {
  const io::StorageOptions options = {{"region", "r1"}};
  WriteParams params;
  params.access = io::StorageAccess(options, source_);
  params.max_rows_per_file = 10;
  auto data = ReaderOf({MakeBatch(0, 25)});
  ASSERT_OK_AND_ASSIGN(auto written, Dataset::Write(*data, uri_, params));
  ExpectFactorySaw(options);

  OpenOptions open;
  open.access = io::StorageAccess(options, source_);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri_, open));
  ExpectFactorySaw(options);

  // Distributed write: WriteFragments then Commit, both with the source.
  params.mode = WriteMode::kAppend;
  auto more = ReaderOf({MakeBatch(25, 5)});
  ASSERT_OK_AND_ASSIGN(auto fragments, WriteFragments(*more, uri_, params));
  ExpectFactorySaw(options);
  ASSERT_OK_AND_ASSIGN(auto committed,
                       Dataset::Commit(uri_, AppendOp{fragments}, ds->version(),
                                       io::StorageAccess(options, source_)));
  ExpectFactorySaw(options);
  ASSERT_OK_AND_ASSIGN(int64_t rows, committed->CountRows());
  EXPECT_EQ(rows, 30);

  // Without a source the factory gets null (credentials from the options).
  OpenOptions plain;
  plain.access = options;
  ASSERT_OK(Dataset::Open(uri_, plain).status());
  std::lock_guard<std::mutex> lock(log_.mu);
  EXPECT_EQ(log_.calls, 1);
  EXPECT_EQ(log_.credentials, nullptr);
}

// A provider counting its fetches (it is never asked here: the options seed the source).
class SeedOnlyProvider : public io::StorageOptionsProvider {
 public:
  explicit SeedOnlyProvider(std::string id) : id_(std::move(id)) {}
  Result<std::optional<io::StorageOptions>> FetchStorageOptions() override {
    ++fetches;
    return Status::Unavailable("no fetch expected in this test", false);
  }
  std::string provider_id() const override { return id_; }
  std::atomic<int> fetches{0};

 private:
  std::string id_;
};

// Options + a provider, as a caller holds them (no MakeCredentialsSource by hand): the
// entry point builds the refreshing source, hands the store the options without the
// credentials, and every handle on the provider shares that one source.
TEST_F(StorageAccessTest, AProviderBecomesOneSharedSourceAtTheEntryPoint) {
  auto provider = std::make_shared<SeedOnlyProvider>("table-test-provider");
  const io::StorageOptions initial = {{"region", "r1"},
                                      {"aws_access_key_id", "AKIDSEED"},
                                      {"aws_secret_access_key", "seedsecret"},
                                      {"expires_at_millis", "99999999999999"}};
  WriteParams params;
  params.access = io::StorageAccess(initial, provider);
  ASSERT_FALSE(params.access.resolved());
  auto data = ReaderOf({MakeBatch(0, 5)});
  ASSERT_OK_AND_ASSIGN(auto written, Dataset::Write(*data, uri_, params));
  std::shared_ptr<io::CredentialsSource> source;
  {
    std::lock_guard<std::mutex> lock(log_.mu);
    EXPECT_EQ(log_.calls, 1);
    EXPECT_EQ(log_.options, (io::StorageOptions{{"region", "r1"}}));
    ASSERT_NE(log_.credentials, nullptr);
    EXPECT_EQ(log_.credentials->id(), "provider:table-test-provider");
    source = log_.credentials;
  }
  ASSERT_OK_AND_ASSIGN(auto creds, source->Current());
  EXPECT_EQ(creds->aws.access_key_id, "AKIDSEED");
  // The dataset keeps the resolved access: same source, provider kept.
  const io::StorageAccess& kept = written->storage_access();
  EXPECT_TRUE(kept.resolved());
  EXPECT_EQ(kept.credentials, source);
  EXPECT_EQ(kept.provider, provider);
  EXPECT_EQ(kept.storage_options, (io::StorageOptions{{"region", "r1"}}));

  // A second handle with the same options and provider: the same live store, no factory
  // call, the same source.
  OpenOptions open;
  open.access = io::StorageAccess(initial, provider);
  ASSERT_OK_AND_ASSIGN(auto opened, Dataset::Open(uri_, open));
  EXPECT_EQ(opened->storage_access().credentials, source);
  {
    std::lock_guard<std::mutex> lock(log_.mu);
    EXPECT_EQ(log_.calls, 1);
  }
  EXPECT_EQ(*opened->CountRows(), 5);
  EXPECT_EQ(provider->fetches.load(), 0);

  // Malformed initial options fail at the entry point, naming the key.
  OpenOptions bad;
  bad.access = io::StorageAccess(io::StorageOptions{{"expires_at_millis", "soon"}},
                                 std::make_shared<SeedOnlyProvider>("table-test-other"));
  EXPECT_THAT(Dataset::Open(uri_, bad),
              ::lance::testing::IsErrorWith(StatusCode::kInvalid, "expires_at_millis"));
}

TEST_F(StorageAccessTest, DataFilesOfKnownSizeOpenWithTheSize) {
  WriteParams params;
  params.max_rows_per_file = 10;
  auto data = ReaderOf({MakeBatch(0, 25)});
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Write(*data, uri_, params));
  ASSERT_EQ(ds->fragments().size(), 3u);
  store_->open_reader = 0;
  store_->open_reader_with_size = 0;
  ASSERT_OK_AND_ASSIGN(TablePtr table, ds->ToTable());
  EXPECT_EQ(table->num_rows(), 25);
  // One open per data file, each with the manifest's size: no size lookups.
  EXPECT_EQ(store_->open_reader_with_size.load(), 3);
  EXPECT_EQ(store_->open_reader.load(), 0);
}

}  // namespace
}  // namespace lance
