// SPDX-License-Identifier: Apache-2.0
// Read-only inspection of a dataset (src/dataset/inspect.cc): DataStats (bytes per field,
// checked against the numbers pylance 14.0.2 gives for the Lance 8.0.0 fixtures), Stats,
// TakeRowAddresses, Head, Sample, max_field_id and Indices.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lance/dataset/dataset.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance {
namespace {

using namespace table_testing;  // NOLINT(build/namespaces)
using testing::IsError;
using testing::IsErrorWith;

std::vector<std::pair<int32_t, uint64_t>> Pairs(const DataStatistics& stats) {
  std::vector<std::pair<int32_t, uint64_t>> out;
  for (const FieldStatistics& f : stats.fields) out.emplace_back(f.id, f.bytes_on_disk);
  return out;
}

using Expected = std::vector<std::pair<int32_t, uint64_t>>;

// What pylance 14.0.2's `stats.data_stats()` reports for the fixtures Lance 8.0.0 wrote.
TEST(InspectTest, DataStatsMatchPylanceOnLanceFixtures) {
  const std::vector<std::pair<std::string, Expected>> cases = {
      {"wide_v20", {{0, 800}, {1, 51200}, {2, 33284}}},
      {"wide_v21", {{0, 810}, {1, 51200}, {2, 33166}}},
      {"bitmap_del_v21", {{0, 9196}}},
      {"basic_v21_v2names",
       {{0, 2508},
        {1, 10430},
        {2, 5196},
        {3, 10430},
        {4, 188},
        {5, 13930},
        {6, 908},
        {7, 9150},
        {8, 41710},
        {9, 2780},
        {10, 0},
        {11, 0},
        {12, 3036},
        {13, 1754},
        {14, 0},
        {15, 6758}}},
      {"basic_v20_v1names",
       {{0, 5200},
        {1, 10400},
        {2, 5200},
        {3, 10400},
        {4, 163},
        {5, 18362},
        {6, 1420},
        {7, 14300},
        {8, 41600},
        {9, 5363},
        {10, 0},
        {11, 0},
        {12, 5363},
        {13, 1522},
        {14, 10400},
        {15, 7200}}},
  };
  for (const auto& [name, expected] : cases) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(FixtureDir() + "/" + name + ".lance"));
    ASSERT_OK_AND_ASSIGN(DataStatistics stats, ds->DataStats());
    EXPECT_EQ(Pairs(stats), expected);
  }
}

TEST(InspectTest, DataStatsOfLegacyDatasetsAreZero) {
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(TestDataDir() + "/legacy/deletions.lance"));
  ASSERT_OK_AND_ASSIGN(DataStatistics stats, ds->DataStats());
  EXPECT_EQ(Pairs(stats), (Expected{{0, 0}, {1, 0}}));
}

TEST(InspectTest, DataStatsCountEveryVersionAndEveryFile) {
  for (const char* version : {"2.0", "2.1", "2.2"}) {
    SCOPED_TRACE(version);
    const std::string uri = UniqueMemoryUri();
    WriteParams params;
    params.data_storage_version = version;
    params.max_rows_per_file = 300;
    ASSERT_OK_AND_ASSIGN(auto one, WriteRows(uri, 0, 300, params));
    ASSERT_OK_AND_ASSIGN(DataStatistics first, one->DataStats());
    ASSERT_EQ(first.fields.size(), 3u);
    EXPECT_EQ(first.fields[0].id, 0);
    EXPECT_EQ(first.fields[2].id, 2);
    for (const FieldStatistics& f : first.fields) EXPECT_GT(f.bytes_on_disk, 0u) << f.id;
    // An identical second file doubles every count; deleting rows changes nothing
    // (deleted rows stay in the files).
    params.mode = WriteMode::kAppend;
    ASSERT_OK_AND_ASSIGN(auto two, WriteRows(uri, 0, 300, params));
    ASSERT_OK(two->Delete("id < 100"));
    ASSERT_OK_AND_ASSIGN(DataStatistics second, two->DataStats());
    ASSERT_EQ(second.fields.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(second.fields[i].bytes_on_disk, 2 * first.fields[i].bytes_on_disk) << i;
    }
    // Old versions keep their own numbers.
    ASSERT_OK_AND_ASSIGN(auto old, two->CheckoutVersion(1));
    EXPECT_EQ(*old->DataStats(), first);
  }
}

TEST(InspectTest, DataStatsNameADamagedDataFile) {
  testing::TempDir dir;
  const std::string uri = CopyFixture("wide_v21.lance", dir);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri));
  const std::string file = uri + "/data/" + ds->fragments().front().files.front().path;
  const auto size = std::filesystem::file_size(file);
  {
    // Garble the footer's column metadata offsets (the magic stays).
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size - 40));
    const std::string junk(16, '\xff');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  EXPECT_THAT(ds->DataStats(), IsErrorWith(StatusCode::kCorrupt,
                                           ds->fragments().front().files.front().path));
  std::filesystem::remove(file);
  auto missing = ds->DataStats();
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound)
      << missing.status().ToString();
}

TEST(InspectTest, StatsCountDeletionsFragmentsAndSmallFiles) {
  const std::string uri = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRowsInFiles(uri, 0, 1000, 400));  // 400, 400, 200
  ASSERT_OK(ds->Delete("id % 10 = 3"));
  ASSERT_OK_AND_ASSIGN(DatasetStatistics stats, ds->Stats());
  EXPECT_EQ(stats, (DatasetStatistics{100, 3, 3}));
  ASSERT_OK_AND_ASSIGN(stats, ds->Stats(300));
  EXPECT_EQ(stats.num_small_files, 1u);
  ASSERT_OK_AND_ASSIGN(stats, ds->Stats(200));
  EXPECT_EQ(stats.num_small_files, 0u);
}

TEST(InspectTest, TakeRowAddressesKeepsOrderAndSkipsDeletedRows) {
  const std::string uri = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRowsInFiles(uri, 0, 10, 4));  // fragments 0, 1, 2
  ASSERT_OK(ds->Delete("id = 5"));                                 // fragment 1, row 1
  const uint64_t f1 = uint64_t{1} << 32;
  const uint64_t f2 = uint64_t{2} << 32;
  TakeOptions options;
  options.columns = {"id"};
  options.with_row_id = true;
  ASSERT_OK_AND_ASSIGN(auto table,
                       ds->TakeRowAddresses({f2 | 1, 0, f1 | 1, f1 | 2, 0}, options));
  EXPECT_EQ(Int64Column(*table, "id"), (std::vector<int64_t>{9, 0, 6, 0}));
  EXPECT_EQ(Int64Column(*table, "_rowid"),
            (std::vector<int64_t>{static_cast<int64_t>(f2 | 1), 0,
                                  static_cast<int64_t>(f1 | 2), 0}));
  EXPECT_THAT(ds->TakeRowAddresses({uint64_t{7} << 32}),
              IsErrorWith(StatusCode::kInvalid, "fragment 7"));
  EXPECT_THAT(ds->TakeRowAddresses({f1 | 4}), IsErrorWith(StatusCode::kInvalid, "row 4"));
  ASSERT_OK_AND_ASSIGN(auto none, ds->TakeRowAddresses({f1 | 1}, options));
  EXPECT_EQ(none->num_rows(), 0);
}

TEST(InspectTest, HeadIsAScanWithALimit) {
  const std::string uri = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRowsInFiles(uri, 0, 10, 3));
  ScanOptions options;
  options.filter = "id > 2";
  options.columns = {"id"};
  ASSERT_OK_AND_ASSIGN(auto head, ds->Head(4, options));
  EXPECT_EQ(Int64Column(*head, "id"), (std::vector<int64_t>{3, 4, 5, 6}));
  ASSERT_OK_AND_ASSIGN(head, ds->Head(100));
  EXPECT_EQ(head->num_rows(), 10);
  EXPECT_THAT(ds->Head(-1), IsError(StatusCode::kInvalid));
}

TEST(InspectTest, SampleDrawsDistinctLiveRowsRepeatably) {
  const std::string uri = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRowsInFiles(uri, 0, 200, 37));
  ASSERT_OK(ds->Delete("id % 2 = 0"));
  SampleOptions options;
  options.columns = {"id"};
  options.seed = 42;
  ASSERT_OK_AND_ASSIGN(auto a, ds->Sample(30, options));
  ASSERT_OK_AND_ASSIGN(auto b, ds->Sample(30, options));
  const std::vector<int64_t> ids = Int64Column(*a, "id");
  EXPECT_EQ(ids, Int64Column(*b, "id"));
  ASSERT_EQ(ids.size(), 30u);
  EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), 30u);
  for (int64_t id : ids) EXPECT_EQ(id % 2, 1) << id;
  EXPECT_FALSE(std::is_sorted(ids.begin(), ids.end()));
  options.randomize_order = false;
  ASSERT_OK_AND_ASSIGN(auto sorted, ds->Sample(30, options));
  const std::vector<int64_t> in_order = Int64Column(*sorted, "id");
  EXPECT_TRUE(std::is_sorted(in_order.begin(), in_order.end()));
  ASSERT_OK_AND_ASSIGN(auto all, ds->Sample(100, options));
  EXPECT_EQ(all->num_rows(), 100);
  EXPECT_THAT(ds->Sample(101, options), IsError(StatusCode::kInvalid));
  EXPECT_THAT(ds->Sample(-1, options), IsError(StatusCode::kInvalid));
}

TEST(InspectTest, MaxFieldIdAndIndicesOfAPlainDataset) {
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(FixtureDir() + "/basic_v21_v2names.lance"));
  EXPECT_EQ(ds->max_field_id(), 15);
  ASSERT_OK_AND_ASSIGN(auto indices, ds->Indices());
  EXPECT_TRUE(indices.empty());
  ASSERT_OK_AND_ASSIGN(auto written, WriteRows(UniqueMemoryUri(), 0, 5));
  EXPECT_EQ(written->max_field_id(), 2);
}

TEST(InspectTest, ValidateChecksFilesAgainstTheManifest) {
  for (const char* name : {"wide_v20", "bitmap_del_v21", "basic_v21_v2names"}) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(FixtureDir() + "/" + name + ".lance"));
    EXPECT_OK(ds->Validate());
  }
  testing::TempDir dir;
  const std::string uri = dir.Join("v.lance");
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRowsInFiles(uri, 0, 10, 4));  // 4, 4, 2 rows
  ASSERT_OK(ds->Delete("id = 1"));
  EXPECT_OK(ds->Validate());
  EXPECT_OK(ds->Validate(2));
  EXPECT_THAT(ds->Validate(7), IsErrorWith(StatusCode::kNotFound, "no fragment 7"));
  // Fragment 0's data file replaced by fragment 2's (2 rows, not 4).
  const std::string first = uri + "/data/" + ds->fragments()[0].files[0].path;
  std::filesystem::copy_file(uri + "/data/" + ds->fragments()[2].files[0].path, first,
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_THAT(ds->Validate(), IsError(StatusCode::kCorrupt));
  EXPECT_THAT(ds->Validate(0), IsError(StatusCode::kCorrupt));
  EXPECT_OK(ds->Validate(1));
}

}  // namespace
}  // namespace lance
