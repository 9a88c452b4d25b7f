// SPDX-License-Identifier: Apache-2.0
// The Dataset API on az:// locations against Azurite: create, append, overwrite, scans,
// versions, deletes, racing committers (the If-None-Match commit primitive), big data
// files written as blocks, and a dataset written and read with a SAS only. Everything
// goes through storage options, the way users configure Lance.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "lance/dataset/dataset.h"
#include "lance/io/azure_object_store.h"
#include "lance/io/object_store_registry.h"
#include "table/manifest.h"
#include "tests/azure/azure_fixture.h"
#include "tests/testing/cloud_dataset_fixture.h"
#include "tests/testing/matchers.h"

namespace lance {
namespace {

using io::StorageOptions;
using namespace table_testing;  // NOLINT(build/namespaces)
namespace ti = ::lance::table_internal;

class AzureDatasetTest
    : public testing::CloudDatasetTest<::lance::testing::AzureEnvTest> {
 protected:
  std::string DatasetUri() override {
    prefix_ = "lance-test-" + testing::UniqueAzureToken();
    return "az://" + env_.container + "/" + prefix_ + "/ds.lance";
  }

  void TearDown() override {
    testing::DeleteBelow("az://" + env_.container + "/" + prefix_, env_.Options());
  }

  std::string prefix_;
};

TEST_F(AzureDatasetTest, CreateAppendOverwriteScanVersionsDelete) {
  std::shared_ptr<Dataset> v2;
  ASSERT_NO_FATAL_FAILURE(CreateThenAppend(uri_, &v2));

  ASSERT_OK(v2->Delete("id >= 10 AND id < 20"));
  EXPECT_EQ(v2->version(), 3u);
  std::shared_ptr<Dataset> v4;
  ASSERT_NO_FATAL_FAILURE(OverwriteAs(uri_, 4, &v4));
  ASSERT_OK_AND_ASSIGN(auto third, Dataset::Open(uri_, Open(3)));
  std::vector<int64_t> expected = Iota(0, 10);
  for (int64_t i = 20; i < 150; ++i) expected.push_back(i);
  EXPECT_EQ(Ids(*third), expected);
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(uri_, Open()));
  EXPECT_EQ(latest->version(), 4u);

  // One V2-named manifest per version under _versions/.
  auto loc = io::ResolveObjectStore(uri_, options_);
  ASSERT_OK(loc.status());
  ti::DatasetDir dir(loc->store, loc->path);
  ASSERT_OK_AND_ASSIGN(auto manifests, ti::ListManifests(dir));
  std::set<uint64_t> seen;
  for (const auto& m : manifests) seen.insert(m.version);
  EXPECT_EQ(seen, (std::set<uint64_t>{1, 2, 3, 4}));
}

TEST_F(AzureDatasetTest, RacingAppendsAllLand) {
  std::shared_ptr<Dataset> ds;
  ASSERT_NO_FATAL_FAILURE(ExpectRacingAppendsLand(uri_, 4, 3, 5, &ds));
  EXPECT_EQ(ds->version(), 13u);
  EXPECT_EQ(*ds->CountRows(), 10 + 12 * 5);
}

TEST_F(AzureDatasetTest, LargeDataFilesAreBlockUploads) {
  // Blocks of 1 MiB: the data file of 200k rows spans several.
  options_["lance_cpp_block_size"] = std::to_string(1 << 20);
  options_["lance_cpp_read_chunk_size"] = std::to_string(1 << 20);
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRows(uri_, 0, 200'000, Params()));
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(uri_, Open()));
  EXPECT_EQ(*reopened->CountRows(), 200'000);
  EXPECT_EQ(SortedIds(*reopened), Iota(0, 200'000));
}

TEST_F(AzureDatasetTest, WrittenAndReadWithASasOnly) {
  ASSERT_OK_AND_ASSIGN(std::string sas, env_.ContainerSas(env_.container, "racwdl",
                                                          std::chrono::hours(1)));
  options_ = env_.SasOptions(sas);
  ASSERT_OK_AND_ASSIGN(auto v1, WriteRows(uri_, 0, 50, Params()));
  ASSERT_OK_AND_ASSIGN(auto v2, WriteRows(uri_, 50, 50, Params(WriteMode::kAppend)));
  EXPECT_EQ(v2->version(), 2u);
  // A read-only SAS reads it, and cannot append.
  ASSERT_OK_AND_ASSIGN(std::string read_only,
                       env_.ContainerSas(env_.container, "rl", std::chrono::hours(1)));
  options_ = env_.SasOptions(read_only);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri_, Open()));
  EXPECT_EQ(Ids(*ds), Iota(0, 100));
  auto denied = WriteRows(uri_, 100, 5, Params(WriteMode::kAppend));
  ASSERT_FALSE(denied.ok());
  EXPECT_TRUE(denied.status().IsForbidden()) << denied.status().ToString();
  options_ = env_.Options();
}

}  // namespace
}  // namespace lance
