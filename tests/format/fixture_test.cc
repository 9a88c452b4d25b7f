// SPDX-License-Identifier: Apache-2.0
// Data files written by real Lance 8.0.0 (tests/data/lance-8.0.0) read equal to the rows
// Lance itself dumped (*.expected.json).

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "lance/format/file_reader.h"
#include "lance/io/local_object_store.h"
#include "tests/format/format_test_util.h"
#include "tests/testing/matchers.h"

namespace lance::format {
namespace {

namespace fs = std::filesystem;
using ::lance::format::testing::json;

std::vector<std::string> DataFiles(const std::string& dataset) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dataset + "/data")) {
    if (e.path().extension() == ".lance")
      out.push_back("data/" + e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct FixtureCase {
  std::string name;
  LanceFileVersion version;
  // Physical rows of each fragment; the fixtures' files are told apart by row count.
  std::map<int64_t, uint64_t> fragment_by_rows;
};

class FixtureTest : public ::testing::TestWithParam<FixtureCase> {};

TEST_P(FixtureTest, ReadsEqualToLance) {
  const FixtureCase& c = GetParam();
  const std::string root = testing::TestDataDir() + "/lance-8.0.0";
  const std::string dataset = root + "/" + c.name + ".lance";
  ASSERT_OK_AND_ASSIGN(json expected,
                       testing::ReadJsonFile(root + "/" + c.name + ".expected.json"));
  ASSERT_OK_AND_ASSIGN(auto store, io::LocalObjectStore::Make(dataset));

  // Expected rows by (fragment, offset); deleted rows are simply absent.
  std::map<std::pair<uint64_t, uint64_t>, json> by_address;
  for (const auto& row : expected["rows"]) {
    const uint64_t rowid = std::stoull(row["_rowid"].get<std::string>());
    json copy = row;
    copy.erase("_rowid");
    by_address[{rowid >> 32, rowid & 0xffffffffu}] = copy;
  }
  size_t matched = 0;
  for (const std::string& path : DataFiles(dataset)) {
    SCOPED_TRACE(path);
    ASSERT_OK_AND_ASSIGN(auto reader, LanceFileReader::Open(store, path));
    EXPECT_EQ(reader->version(), c.version);
    ASSERT_EQ(c.fragment_by_rows.count(reader->num_rows()), 1u) << reader->num_rows();
    const uint64_t fragment = c.fragment_by_rows.at(reader->num_rows());
    // Several batch sizes: single pages, page-crossing slices and tiny batches.
    for (int64_t batch_size : {int64_t{8192}, int64_t{97}, int64_t{1}}) {
      FileReadOptions ro;
      ro.batch_size = batch_size;
      ASSERT_OK_AND_ASSIGN(auto table, reader->ReadTable(ro));
      ASSERT_EQ(table->num_rows(), reader->num_rows());
      json rows = testing::TableToJsonRows(*table);
      size_t found = 0;
      for (size_t r = 0; r < rows.size(); ++r) {
        auto it = by_address.find({fragment, r});
        if (it == by_address.end()) continue;  // deleted in the dataset
        ++found;
        const std::string diff = testing::JsonDiff(it->second, rows[r]);
        ASSERT_TRUE(diff.empty()) << "row " << r << ": " << diff;
      }
      if (batch_size == 1) matched += found;
    }
    // Take: rows in any order, repeated, reading only what holds them.
    {
      std::vector<int64_t> rows;
      for (int64_t i = 0; i < 40; ++i) rows.push_back((i * 7919 + 13) % reader->num_rows());
      rows.push_back(0);
      rows.push_back(reader->num_rows() - 1);
      rows.push_back(rows[3]);
      ASSERT_OK_AND_ASSIGN(auto batch, reader->Take(rows));
      ASSERT_OK_AND_ASSIGN(auto table, Table::Make(batch->schema(), {batch}));
      json got = testing::TableToJsonRows(*table);
      ASSERT_EQ(got.size(), rows.size());
      for (size_t i = 0; i < rows.size(); ++i) {
        auto it = by_address.find({fragment, static_cast<uint64_t>(rows[i])});
        if (it == by_address.end()) continue;
        const std::string diff = testing::JsonDiff(it->second, got[i]);
        ASSERT_TRUE(diff.empty()) << "take of row " << rows[i] << ": " << diff;
      }
    }
    // Projection of a single nested column matches too.
    const auto& fields = reader->schema().schema()->fields();
    for (size_t f = 0; f < fields.size(); ++f) {
      FileReadOptions ro;
      ro.field_ids = {reader->schema().SubtreeIds(static_cast<int>(f)).front()};
      ro.offset = reader->num_rows() / 3;
      ro.length = reader->num_rows() / 2;
      ASSERT_OK_AND_ASSIGN(auto table, reader->ReadTable(ro));
      json rows = testing::TableToJsonRows(*table);
      for (size_t r = 0; r < rows.size(); ++r) {
        auto it = by_address.find({fragment, r + ro.offset});
        if (it == by_address.end()) continue;
        json one = json::object();
        one[fields[f]->name()] = it->second[fields[f]->name()];
        const std::string diff = testing::JsonDiff(one, rows[r]);
        ASSERT_TRUE(diff.empty()) << fields[f]->name() << " row " << r << ": " << diff;
      }
    }
  }
  EXPECT_EQ(matched, expected["rows"].size());
  EXPECT_EQ(expected["count_rows"].get<size_t>(), matched);
}

INSTANTIATE_TEST_SUITE_P(
    Lance800, FixtureTest,
    ::testing::Values(
        FixtureCase{"basic_v20_v1names", LanceFileVersion::kV2_0, {{1000, 0}, {300, 1}}},
        FixtureCase{"basic_v20_v2names", LanceFileVersion::kV2_0, {{1000, 0}, {300, 1}}},
        FixtureCase{"wide_v20", LanceFileVersion::kV2_0, {{100, 0}}},
        FixtureCase{"basic_v21_v1names", LanceFileVersion::kV2_1, {{1000, 0}, {300, 1}}},
        FixtureCase{"basic_v21_v2names", LanceFileVersion::kV2_1, {{1000, 0}, {300, 1}}},
        FixtureCase{"wide_v21", LanceFileVersion::kV2_1, {{100, 0}}},
        FixtureCase{"bitmap_del_v21", LanceFileVersion::kV2_1, {{6000, 0}}}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace lance::format
