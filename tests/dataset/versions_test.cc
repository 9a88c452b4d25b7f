// SPDX-License-Identifier: Apache-2.0
// Data storage versions of writes: new datasets get the version asked for, appends keep
// the dataset's, legacy datasets are read-only, unknown spellings are Invalid; datasets
// mixing 2.x file versions (Lance 14's flag 256) read and append; an append of no rows
// commits an (empty) Append that later commits rebase over.
#include <gtest/gtest.h>

#include <filesystem>

#include "dataset/dataset_internal.h"
#include "lance/dataset/dataset.h"
#include "table/transaction.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance {
namespace {

using namespace table_testing;  // NOLINT(build/namespaces)

// "2.1" for every data file of the dataset, in fragment order.
std::vector<std::string> FileVersions(const Dataset& ds) {
  std::vector<std::string> out;
  for (const FragmentMetadata& f : ds.fragments()) {
    for (const DataFileMeta& file : f.files) {
      out.push_back(std::to_string(file.file_major_version) + "." +
                    std::to_string(file.file_minor_version));
    }
  }
  return out;
}

class AppendVersionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AppendVersionTest, AppendsKeepTheDatasetsVersion) {
  TempDir tmp;
  const std::string uri = tmp.Join("t.lance");
  WriteParams params;
  params.data_storage_version = GetParam();
  ASSERT_OK(WriteRows(uri, 0, 3, params).status());
  // Whatever an append asks for, its files are in the dataset's version.
  for (const char* asked : {"2.0", "2.1", "2.2", "stable", "legacy", "next"}) {
    WriteParams append;
    append.mode = WriteMode::kAppend;
    append.data_storage_version = asked;
    SCOPED_TRACE(asked);
    ASSERT_OK(WriteRows(uri, 3, 1, append).status());
  }
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri));
  EXPECT_EQ(ds->data_storage_version(), GetParam());
  EXPECT_EQ(FileVersions(*ds), std::vector<std::string>(7, GetParam()));
  EXPECT_EQ(DatasetImplAccess::Get(*ds)->proto().reader_feature_flags() &
                table_internal::kFlagMixedDataFileVersions,
            0u);
  EXPECT_EQ(Ids(*ds), (std::vector<int64_t>{0, 1, 2, 3, 3, 3, 3, 3, 3}));
  // WriteFragments for an append follows the same rule.
  WriteParams fragments;
  fragments.mode = WriteMode::kAppend;
  fragments.data_storage_version = "2.2";
  auto reader = ReaderOf({MakeBatch(10, 2)});
  ASSERT_OK_AND_ASSIGN(auto frags, WriteFragments(*reader, uri, fragments));
  ASSERT_EQ(frags.size(), 1u);
  EXPECT_EQ(std::to_string(frags[0].files[0].file_major_version) + "." +
                std::to_string(frags[0].files[0].file_minor_version),
            GetParam());
}

INSTANTIATE_TEST_SUITE_P(Versions, AppendVersionTest,
                         ::testing::Values("2.0", "2.1", "2.2"), [](const auto& info) {
                           std::string name = "V" + info.param;
                           name.erase(name.find('.'), 1);
                           return name;
                         });

TEST(StorageVersionTest, UnknownSpellingsAreInvalidAndUnwritableOnesNotImplemented) {
  TempDir tmp;
  for (const std::string unknown : {"2.9", "bogus", ""}) {
    WriteParams params;
    params.data_storage_version = unknown;
    EXPECT_THAT(
        WriteRows(tmp.Join("u.lance"), 0, 1, params),
        IsErrorWith(StatusCode::kInvalid, "Unknown Lance storage version: " + unknown));
  }
  for (const std::string refused : {"next", "2.3", "legacy", "0.1"}) {
    WriteParams params;
    params.data_storage_version = refused;
    EXPECT_THAT(WriteRows(tmp.Join("r.lance"), 0, 1, params),
                IsErrorWith(StatusCode::kNotImplemented, refused));
  }
  EXPECT_FALSE(std::filesystem::exists(tmp.Join("u.lance")));
  EXPECT_FALSE(std::filesystem::exists(tmp.Join("r.lance")));
  // Checked on appends too (as pylance), though an append keeps the dataset's version.
  ASSERT_OK(WriteRows(tmp.Join("t.lance"), 0, 1).status());
  WriteParams append;
  append.mode = WriteMode::kAppend;
  append.data_storage_version = "2.9";
  EXPECT_THAT(WriteRows(tmp.Join("t.lance"), 1, 1, append),
              IsErrorWith(StatusCode::kInvalid, "Unknown Lance storage version: 2.9"));
}

TEST(StorageVersionTest, LegacyDatasetsAreReadButNotAppendedTo) {
  namespace fs = std::filesystem;
  TempDir tmp;
  const std::string uri = tmp.Join("legacy.lance");
  fs::copy(table_testing::TestDataDir() + "/legacy/deletions.lance", uri,
           fs::copy_options::recursive);
  for (auto& entry : fs::recursive_directory_iterator(uri)) {
    fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add);
  }
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri));
  EXPECT_EQ(ds->data_storage_version(), "0.1");
  ASSERT_OK_AND_ASSIGN(int64_t rows, ds->CountRows());
  ASSERT_OK_AND_ASSIGN(auto table, ds->ToTable());
  EXPECT_EQ(table->num_rows(), rows);
  EXPECT_THAT(WriteRows(uri, 0, 1, WriteMode::kAppend),
              IsErrorWith(StatusCode::kNotImplemented, "legacy file format"));
  ASSERT_OK_AND_ASSIGN(uint64_t latest, ds->LatestVersion());
  EXPECT_EQ(latest, ds->version());
  // An overwrite replaces it with a 2.x dataset.
  ASSERT_OK_AND_ASSIGN(auto rewritten, WriteRows(uri, 0, 2, WriteMode::kOverwrite));
  EXPECT_EQ(rewritten->data_storage_version(), "2.2");
  EXPECT_EQ(Ids(*rewritten), (std::vector<int64_t>{0, 1}));
}

// pylance 14 appends files of another version when asked (and sets the paired flag 256);
// Commit of such fragments does the same here. Such datasets read, take, delete and take
// appends (in the dataset's own version), keeping the flag.
TEST(StorageVersionTest, DatasetsMixingFileVersions) {
  TempDir tmp;
  const std::string uri = tmp.Join("mixed.lance");
  ASSERT_OK(WriteRows(uri, 0, 3).status());  // 2.2
  WriteParams other;
  other.mode =
      WriteMode::kOverwrite;  // files of a fresh schema: ids 0.., as the dataset's
  other.data_storage_version = "2.1";
  auto reader = ReaderOf({MakeBatch(3, 2)});
  ASSERT_OK_AND_ASSIGN(auto frags, WriteFragments(*reader, uri, other));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Commit(uri, AppendOp{frags}, 1));
  EXPECT_EQ(FileVersions(*ds), (std::vector<std::string>{"2.2", "2.1"}));
  EXPECT_EQ(ds->data_storage_version(), "2.2");
  const auto& proto = DatasetImplAccess::Get(*ds)->proto();
  EXPECT_NE(proto.reader_feature_flags() & table_internal::kFlagMixedDataFileVersions,
            0u);
  EXPECT_NE(proto.writer_feature_flags() & table_internal::kFlagMixedDataFileVersions,
            0u);
  EXPECT_EQ(Ids(*ds), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  TakeOptions take;
  take.columns = {"id"};
  ASSERT_OK_AND_ASSIGN(auto taken, ds->Take({4, 0, 3}, take));
  EXPECT_EQ(Int64Column(*taken, "id"), (std::vector<int64_t>{4, 0, 3}));
  ASSERT_OK(ds->Delete("id = 1"));
  ASSERT_OK_AND_ASSIGN(ds, WriteRows(uri, 5, 1, WriteMode::kAppend));
  EXPECT_EQ(FileVersions(*ds), (std::vector<std::string>{"2.2", "2.1", "2.2"}));
  EXPECT_NE(DatasetImplAccess::Get(*ds)->proto().reader_feature_flags() &
                table_internal::kFlagMixedDataFileVersions,
            0u);
  EXPECT_EQ(Ids(*ds), (std::vector<int64_t>{0, 2, 3, 4, 5}));
}

// The regression behind "cannot apply a (unknown operation) transaction": appending no
// rows (the matrix's empty table, after pylance appended to it) must commit an Append.
TEST(StorageVersionTest, AppendOfNoRowsCommitsAnEmptyAppend) {
  TempDir tmp;
  const std::string uri = tmp.Join("empty.lance");
  auto empty = [] { return ReaderOf({MakeBatch(0, 0)}); };
  auto reader = empty();
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Write(*reader, uri));
  WriteParams append;
  append.mode = WriteMode::kAppend;
  reader = empty();
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Write(*reader, uri, append));
  EXPECT_EQ(ds->version(), 2u);
  ASSERT_OK_AND_ASSIGN(ds, WriteRows(uri, 0, 2, append));
  EXPECT_EQ(ds->version(), 3u);
  // A commit planned before both rebases over them, an empty Append included.
  ASSERT_OK_AND_ASSIGN(auto frags,
                       WriteFragments(*ReaderOf({MakeBatch(2, 1)}), uri, append));
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Commit(uri, AppendOp{frags}, 1));
  EXPECT_EQ(ds->version(), 4u);
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Commit(uri, AppendOp{{}}, 2));
  EXPECT_EQ(ds->version(), 5u);
  EXPECT_EQ(Ids(*ds), (std::vector<int64_t>{0, 1, 2}));
}

}  // namespace
}  // namespace lance
