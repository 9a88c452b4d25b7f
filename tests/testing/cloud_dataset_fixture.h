// SPDX-License-Identifier: Apache-2.0
// What the Dataset suites on a cloud store of the test run (RGW, Azurite,
// fake-gcs-server) share: the dataset helpers of tests/dataset (WriteRows, Ids, Iota...)
// and a fixture whose writes and opens go through storage options, the way users
// configure Lance.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "lance/dataset/dataset.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/storage_options.h"
#include "table/manifest.h"
#include "tests/testing/matchers.h"

// table_test_util.h locates the local fixtures through this macro; the cloud suites read
// none, so any value does.
#ifndef LANCE_TEST_DATA_DIR
#define LANCE_TEST_DATA_DIR ""
#endif
#include "tests/dataset/table_test_util.h"

namespace lance::testing {

/// Removes everything below `uri` (a test's cleanup).
inline void DeleteBelow(const std::string& uri, const io::StorageOptions& options) {
  auto loc = io::ResolveObjectStore(uri, options);
  if (!loc.ok()) return;
  Status st = loc->store->DeletePrefix(loc->path + "/");
  EXPECT_TRUE(st.ok()) << "cleaning up " << uri << ": " << st;
}

/// On top of `Base` (the cloud's EnvTest): options_, the storage options of every write
/// and open (the environment's, which a test may change), and uri_, the dataset's
/// location (a fresh one from DatasetUri()).
template <class Base>
class CloudDatasetTest : public Base {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(Base::SetUp());
    options_ = this->env_.Options();
    uri_ = DatasetUri();
  }

  /// A fresh, unique location for the test's dataset.
  virtual std::string DatasetUri() = 0;

  WriteParams Params(WriteMode mode = WriteMode::kCreate) const {
    WriteParams params;
    params.mode = mode;
    params.access.storage_options = options_;
    return params;
  }
  OpenOptions Open(std::optional<uint64_t> version = {}) const {
    OpenOptions options;
    options.version = version;
    options.access.storage_options = options_;
    return options;
  }

  /// Creates the dataset at `uri` (ids 0..99, in files of 40 rows) where there was none,
  /// which a second create is refused, then appends ids 100..149: `*v2`, version 2, in
  /// which a scan of the ids in [30, 120) reads exactly those.
  void CreateThenAppend(const std::string& uri, std::shared_ptr<Dataset>* v2) {
    EXPECT_THAT(Dataset::Open(uri, Open()),
                IsErrorWith(StatusCode::kNotFound, "No Lance dataset"));
    WriteParams create = Params();
    create.max_rows_per_file = 40;
    ASSERT_OK_AND_ASSIGN(auto v1, table_testing::WriteRows(uri, 0, 100, create));
    EXPECT_EQ(v1->version(), 1u);
    EXPECT_EQ(v1->uri(), uri);
    EXPECT_EQ(v1->fragments().size(), 3u);
    EXPECT_EQ(*v1->CountRows(), 100);
    EXPECT_EQ(table_testing::Ids(*v1), table_testing::Iota(0, 100));
    EXPECT_THAT(table_testing::WriteRows(uri, 0, 10, Params()),
                IsError(StatusCode::kAlreadyExists));
    ASSERT_OK_AND_ASSIGN(
        *v2, table_testing::WriteRows(uri, 100, 50, Params(WriteMode::kAppend)));
    EXPECT_EQ((*v2)->version(), 2u);
    EXPECT_EQ(*(*v2)->CountRows(), 150);
    ScanOptions scan;
    scan.columns = {"id"};
    scan.filter = "id >= 30 AND id < 120";
    ASSERT_OK_AND_ASSIGN(auto table, (*v2)->ToTable(scan));
    EXPECT_EQ(table_testing::Int64Column(*table, "id"), table_testing::Iota(30, 120));
  }

  /// Overwrites the dataset at `uri` with ids 1000..1029: `*out`, version `version`, the
  /// last of `version` versions.
  void OverwriteAs(const std::string& uri, uint64_t version,
                   std::shared_ptr<Dataset>* out) {
    ASSERT_OK_AND_ASSIGN(
        *out, table_testing::WriteRows(uri, 1000, 30, Params(WriteMode::kOverwrite)));
    EXPECT_EQ((*out)->version(), version);
    EXPECT_EQ(table_testing::Ids(**out), table_testing::Iota(1000, 1030));
    ASSERT_OK_AND_ASSIGN(auto versions, (*out)->Versions());
    ASSERT_EQ(versions.size(), version);
  }

  /// The dataset at `uri` gets 10 rows, then `threads` threads at once each append
  /// `appends` times `rows` rows: every commit lands, in the consecutive versions 2..,
  /// and the dataset opened afterwards (`*ds`) holds every row.
  void ExpectRacingAppendsLand(const std::string& uri, int threads, int appends, int rows,
                               std::shared_ptr<Dataset>* ds) {
    ASSERT_OK(table_testing::WriteRows(uri, 0, 10, Params()).status());
    table_testing::AppendRace race = table_testing::RacingAppends(
        uri, threads, appends, rows, Params(WriteMode::kAppend));
    ASSERT_TRUE(race.errors.empty())
        << race.errors.size() << " failed: " << ::testing::PrintToString(race.errors);
    std::sort(race.versions.begin(), race.versions.end());
    std::vector<uint64_t> consecutive(threads * appends);
    std::iota(consecutive.begin(), consecutive.end(), 2);
    EXPECT_EQ(race.versions, consecutive);
    ASSERT_OK_AND_ASSIGN(*ds, Dataset::Open(uri, Open()));
    EXPECT_EQ((*ds)->version(), 1u + threads * appends);
    EXPECT_EQ(*(*ds)->CountRows(), 10 + threads * appends * rows);
  }

  /// The dataset's directory in its (registry-shared) store.
  table_internal::DatasetDir Dir(const std::string& uri) {
    auto loc = io::ResolveObjectStore(uri, options_);
    EXPECT_TRUE(loc.ok()) << loc.status();
    return loc.ok() ? table_internal::DatasetDir(loc->store, loc->path)
                    : table_internal::DatasetDir();
  }

  io::StorageOptions options_;
  std::string uri_;
};

}  // namespace lance::testing
