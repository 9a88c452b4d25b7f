// SPDX-License-Identifier: Apache-2.0
// Datasets written by real Lance 8.0.0 (tests/data/lance-8.0.0): every row, with
// deletions applied, against the expected JSON Lance itself dumped.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "lance/dataset/dataset.h"
#include "lance/io/object_store_registry.h"
#include "table/manifest.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance {
namespace {

using namespace table_testing;  // NOLINT(build/namespaces)

class V20FixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(V20FixtureTest, ReadsEveryRowAsLanceDoes) {
  const std::string name = GetParam();
  const auto expected = LoadJson(FixtureDir() + "/" + name + ".expected.json");
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(FixtureDir() + "/" + name + ".lance"));
  EXPECT_EQ(ds->version(), expected["version"].get<uint64_t>());
  EXPECT_EQ(ds->data_storage_version(), "2.0");
  EXPECT_EQ(*ds->CountRows(), expected["count_rows"].get<int64_t>());
  ASSERT_EQ(ds->schema()->num_fields(), static_cast<int>(expected["schema"].size()));
  for (size_t i = 0; i < expected["schema"].size(); ++i) {
    EXPECT_EQ(ds->schema()->field(static_cast<int>(i))->name(),
              expected["schema"][i]["name"]);
  }
  for (int64_t batch_size : {int64_t{8192}, int64_t{77}}) {
    ScanOptions options;
    options.with_row_id = true;
    options.batch_size = batch_size;
    ASSERT_OK_AND_ASSIGN(auto table, ds->ToTable(options));
    EXPECT_EQ(table_testing::CompareWithExpected(*table, expected), "") << name;
  }
  ASSERT_OK_AND_ASSIGN(auto versions, ds->Versions());
  EXPECT_EQ(versions.size(), expected["version"].get<size_t>());

  // The comparator notices a wrong value, a wrong null and a missing row.
  ScanOptions options;
  options.with_row_id = true;
  ASSERT_OK_AND_ASSIGN(auto table, ds->ToTable(options));
  auto tampered = expected;
  const std::string first = expected["schema"][0]["name"];
  tampered["rows"][5][first] = nullptr;
  EXPECT_NE(table_testing::CompareWithExpected(*table, tampered), "");
  tampered = expected;
  tampered["rows"][7]["_rowid"] = "123456";
  EXPECT_NE(table_testing::CompareWithExpected(*table, tampered), "");
  tampered = expected;
  tampered["rows"].erase(tampered["rows"].begin() + 3);
  EXPECT_NE(table_testing::CompareWithExpected(*table, tampered), "");
}

INSTANTIATE_TEST_SUITE_P(Lance8, V20FixtureTest,
                         ::testing::Values("basic_v20_v1names", "basic_v20_v2names",
                                           "wide_v20"));

class V21FixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(V21FixtureTest, ManifestLevelOperationsWork) {
  const std::string name = GetParam();
  const auto expected = LoadJson(FixtureDir() + "/" + name + ".expected.json");
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(FixtureDir() + "/" + name + ".lance"));
  EXPECT_EQ(ds->data_storage_version(), "2.1");
  EXPECT_EQ(ds->version(), expected["version"].get<uint64_t>());
  EXPECT_EQ(*ds->CountRows(), expected["count_rows"].get<int64_t>());
  ASSERT_OK_AND_ASSIGN(auto versions, ds->Versions());
  EXPECT_EQ(versions.size(), expected["version"].get<size_t>());
  ASSERT_EQ(ds->schema()->num_fields(), static_cast<int>(expected["schema"].size()));
  for (size_t i = 0; i < expected["schema"].size(); ++i) {
    EXPECT_EQ(ds->schema()->field(static_cast<int>(i))->name(),
              expected["schema"][i]["name"]);
  }
  // Rows read equal to what Lance dumped, with their row addresses.
  ScanOptions options;
  options.with_row_id = true;
  ASSERT_OK_AND_ASSIGN(auto table, ds->ToTable(options));
  EXPECT_EQ(table_testing::CompareWithExpected(*table, expected), "") << name;
}

INSTANTIATE_TEST_SUITE_P(Lance8, V21FixtureTest,
                         ::testing::Values("basic_v21_v1names", "basic_v21_v2names",
                                           "wide_v21", "bitmap_del_v21"));

TEST(FixtureTest, BitmapDeletionIsCountedFromTheFileWhenTheManifestLacksTheCount) {
  TempDir tmp;
  const std::string path = table_testing::CopyFixture("bitmap_del_v21.lance", tmp);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(path));
  EXPECT_EQ(*ds->CountRows(), 500);
  // Rewrite the latest manifest without num_deleted_rows (as old writers left it).
  ASSERT_OK_AND_ASSIGN(auto loc, io::ResolveObjectStore(path));
  table_internal::DatasetDir dir(loc.store, loc.path);
  ASSERT_OK_AND_ASSIGN(auto latest, table_internal::FindLatestManifest(dir));
  ASSERT_OK_AND_ASSIGN(auto m, table_internal::ReadManifest(dir, *latest));
  m.manifest.mutable_fragments(0)->mutable_deletion_file()->set_num_deleted_rows(0);
  ASSERT_OK(loc.store->Put(
      latest->key, table_internal::SerializeManifestFile(m.manifest, "", nullptr)));
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(path));
  EXPECT_EQ(ds->fragments()[0].deletion_file->num_deleted_rows, 0u);
  EXPECT_EQ(*ds->CountRows(), 500);
}

TEST(FixtureTest, AppendAndDeleteOnAV1NamedLanceDatasetKeepItsConventions) {
  TempDir tmp;
  const std::string path = table_testing::CopyFixture("basic_v20_v1names.lance", tmp);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(path));
  ScanOptions first10;
  first10.limit = 10;
  ASSERT_OK_AND_ASSIGN(auto head, ds->ToTable(first10));
  auto reader = RecordBatchReader::FromBatches(head->schema(), head->batches());
  WriteParams append;
  append.mode = WriteMode::kAppend;
  append.data_storage_version = "2.1";     // ignored: the dataset is 2.0
  append.enable_v2_manifest_paths = true;  // ignored: the dataset uses V1 names
  ASSERT_OK_AND_ASSIGN(auto appended, Dataset::Write(*reader, path, append));
  EXPECT_EQ(appended->version(), 4u);
  EXPECT_EQ(appended->data_storage_version(), "2.0");
  EXPECT_EQ(*appended->CountRows(), 1190);
  EXPECT_TRUE(std::filesystem::exists(path + "/_versions/4.manifest"));
  ASSERT_EQ(appended->fragments().size(), 3u);
  EXPECT_EQ(appended->fragments()[2].id, 2u);
  EXPECT_EQ(appended->fragments()[2].files[0].file_major_version, 2u);
  EXPECT_EQ(appended->fragments()[2].files[0].file_minor_version, 0u);
  // The appended rows read back equal to what was appended (all column types).
  ScanOptions tail;
  tail.offset = 1180;
  ASSERT_OK_AND_ASSIGN(auto back, appended->ToTable(tail));
  ASSERT_OK_AND_ASSIGN(auto back_batch, back->CombineBatches());
  ASSERT_OK_AND_ASSIGN(auto head_batch, head->CombineBatches());
  EXPECT_TRUE(back_batch->Equals(*head_batch))
      << back_batch->ToString(3) << head_batch->ToString(3);
  // Deleting keeps the old deletion vectors (merged) and V1 names.
  ASSERT_OK(appended->Delete("i32 < 5"));
  EXPECT_TRUE(std::filesystem::exists(path + "/_versions/5.manifest"));
  // i32 1..4 in fragment 0 (0 was deleted by Lance already) and in the appended copy.
  EXPECT_EQ(*appended->CountRows(), 1190 - 8);
  EXPECT_EQ(appended->fragments()[0].deletion_file->num_deleted_rows, 104u);
}

TEST(FixtureTest, AppendingToAV21DatasetIsRefusedCleanly) {
  TempDir tmp;
  const std::string path = table_testing::CopyFixture("basic_v21_v2names.lance", tmp);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(path));
  auto reader = table_testing::ReaderOf({table_testing::MakeBatch(0, 3)});
  WriteParams append;
  append.mode = WriteMode::kAppend;
  // The schema differs anyway; what matters is that nothing is committed.
  EXPECT_FALSE(Dataset::Write(*reader, path, append).ok());
  ASSERT_OK_AND_ASSIGN(auto again, Dataset::Open(path));
  EXPECT_EQ(again->version(), 3u);
}

}  // namespace
}  // namespace lance
