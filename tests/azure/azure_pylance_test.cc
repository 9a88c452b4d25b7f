// SPDX-License-Identifier: Apache-2.0
// Real Lance both ways on Azurite: pylance 14.0.2 (the project's venv, LANCE_PYTHON)
// writes, appends and deletes a dataset that lance-cpp then reads exactly; and pylance
// reads a dataset lance-cpp wrote, appends to it and deletes from it, and lance-cpp reads
// the result. Both sides get the same storage options.
//
// pylance (object_store) in emulator mode ignores azure_storage_endpoint and takes
// Azurite's address from AZURITE_BLOB_STORAGE_URL (default http://127.0.0.1:10000); so
// the emulator options go with that variable set to the test Azurite, which lance-cpp
// honours too. Without the emulator switch, azure_storage_endpoint (with the account in
// its path) plus allow_http works for both.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "lance/core/array.h"
#include "lance/dataset/dataset.h"
#include "lance/io/object_store_registry.h"
#include "tests/azure/azure_fixture.h"
#include "tests/testing/cloud_dataset_fixture.h"
#include "tests/testing/matchers.h"
#include "tests/testing/python.h"

namespace lance {
namespace {

using io::StorageOptions;
using namespace table_testing;  // NOLINT(build/namespaces)
using ::testing::HasSubstr;

// MakeBatch's rows in Python, and the two jobs pylance does.
constexpr const char* kScript = R"PY(
import json, sys
import lance, pyarrow as pa

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False),
                    pa.field("name", pa.utf8()), pa.field("score", pa.float64())])

def rows(start, n):
    ids = list(range(start, start + n))
    return pa.table({"id": ids, "name": [None if i % 7 == 3 else f"n{i}" for i in ids],
                     "score": [i / 2 for i in ids]}, schema=SCHEMA)

def same(table, expected):
    table = table.sort_by("id")
    for column in ("id", "name", "score"):
        got, want = table.column(column).to_pylist(), expected.column(column).to_pylist()
        if got != want:
            sys.exit(f"column {column} differs: {got[:5]}... != {want[:5]}...")

job, options, uri = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
if job == "write":
    lance.write_dataset(rows(0, 100), uri, storage_options=options, max_rows_per_file=40)
    ds = lance.write_dataset(rows(100, 50), uri, storage_options=options, mode="append")
    ds.delete("id % 10 = 0")
elif job == "read_append_delete":
    ds = lance.dataset(uri, storage_options=options)
    same(ds.to_table(), rows(0, 100))
    ds = lance.write_dataset(rows(100, 20), uri, storage_options=options, mode="append")
    ds.delete("id < 10")
ds = lance.dataset(uri, storage_options=options)
print("RESULT", json.dumps({"version": ds.version, "rows": ds.count_rows()}))
)PY";

std::string ToJson(const StorageOptions& options) {
  std::string out = "{";
  for (const auto& [key, value] : options) {
    if (out.size() > 1) out += ", ";
    out += "\"" + key + "\": \"" + value + "\"";
  }
  return out + "}";
}

// The names column of a scan, "" for nulls, ordered by id.
std::map<int64_t, std::string> Names(const Dataset& ds) {
  std::map<int64_t, std::string> out;
  auto table = ds.ToTable();
  EXPECT_TRUE(table.ok()) << table.status();
  if (!table.ok()) return out;
  for (const auto& batch : (*table)->batches()) {
    const auto& ids = static_cast<const Int64Array&>(*batch->GetColumnByName("id"));
    const auto& names = static_cast<const StringArray&>(*batch->GetColumnByName("name"));
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      out[ids.Value(i)] = names.IsNull(i) ? "" : std::string(names.GetView(i));
    }
  }
  return out;
}

// Checks that `ds` holds exactly MakeBatch's rows for `ids`.
void ExpectRows(const Dataset& ds, const std::vector<int64_t>& ids) {
  EXPECT_EQ(SortedIds(ds), ids);
  const auto scores = Scores(ds);
  const auto names = Names(ds);
  for (int64_t id : ids) {
    EXPECT_EQ(scores.at(id), static_cast<double>(id) / 2.0) << id;
    EXPECT_EQ(names.at(id), id % 7 == 3 ? "" : "n" + std::to_string(id)) << id;
  }
}

class AzurePylanceTest : public ::lance::testing::AzureEnvTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(AzureEnvTest::SetUp());
    prefix_ = "pylance-" + testing::UniqueAzureToken();
    // Where pylance (and lance-cpp) find Azurite in emulator mode.
    setenv("AZURITE_BLOB_STORAGE_URL", env_.Origin().c_str(), 1);
  }
  void TearDown() override {
    testing::DeleteBelow("az://" + env_.container + "/" + prefix_, env_.Options());
  }

  // What the brief of real Lance users on Azurite is: the emulator switch, the account
  // and its key.
  StorageOptions EmulatorOptions() const {
    return {{"azure_storage_account_name", env_.account},
            {"azure_storage_account_key", env_.key},
            {"azure_storage_use_emulator", "true"}};
  }
  std::string Uri(const std::string& name) const {
    return "az://" + env_.container + "/" + prefix_ + "/" + name + ".lance";
  }

  // Runs the script's `job`; fails the test unless it succeeds. \return its RESULT line.
  std::string RunPylance(const std::string& job, const StorageOptions& options,
                         const std::string& uri) {
    std::string output;
    const int rc =
        testing::RunPython({"-c", kScript, job, ToJson(options), uri}, &output);
    EXPECT_EQ(rc, 0) << output;
    const size_t at = output.find("RESULT ");
    return at == std::string::npos ? output : output.substr(at + 7);
  }

  std::string prefix_;
};

TEST_F(AzurePylanceTest, PylanceWritesLanceCppReadsExactly) {
  for (const bool emulator : {true, false}) {
    SCOPED_TRACE(emulator ? "emulator options" : "endpoint options");
    const StorageOptions options = emulator ? EmulatorOptions() : env_.Options();
    const std::string uri = Uri(emulator ? "from-pylance-emulator" : "from-pylance");
    EXPECT_THAT(RunPylance("write", options, uri), HasSubstr("\"version\": 3"));

    OpenOptions open;
    open.access.storage_options = options;
    ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri, open));
    EXPECT_EQ(ds->version(), 3u);
    std::vector<int64_t> expected;
    for (int64_t i = 0; i < 150; ++i) {
      if (i % 10 != 0) expected.push_back(i);
    }
    ExpectRows(*ds, expected);
    ASSERT_OK_AND_ASSIGN(auto first, ds->CheckoutVersion(1));
    EXPECT_EQ(first->fragments().size(), 3u);
    ExpectRows(*first, Iota(0, 100));
    ASSERT_OK_AND_ASSIGN(auto versions, ds->Versions());
    EXPECT_EQ(versions.size(), 3u);
  }
}

TEST_F(AzurePylanceTest, PylanceReadsAppendsAndDeletesWhatLanceCppWrote) {
  for (const bool emulator : {true, false}) {
    SCOPED_TRACE(emulator ? "emulator options" : "endpoint options");
    const StorageOptions options = emulator ? EmulatorOptions() : env_.Options();
    const std::string uri = Uri(emulator ? "from-cpp-emulator" : "from-cpp");
    WriteParams params;
    params.access.storage_options = options;
    params.max_rows_per_file = 40;
    ASSERT_OK_AND_ASSIGN(auto written, WriteRows(uri, 0, 100, params));
    EXPECT_EQ(written->fragments().size(), 3u);

    EXPECT_THAT(RunPylance("read_append_delete", options, uri),
                HasSubstr("{\"version\": 3, \"rows\": 110}"));

    OpenOptions open;
    open.access.storage_options = options;
    ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri, open));
    EXPECT_EQ(ds->version(), 3u);
    ExpectRows(*ds, Iota(10, 120));
    // And lance-cpp commits on top of pylance's versions.
    ASSERT_OK_AND_ASSIGN(auto more, WriteRows(uri, 120, 5, [&] {
                           WriteParams append = params;
                           append.mode = WriteMode::kAppend;
                           return append;
                         }()));
    EXPECT_EQ(more->version(), 4u);
    ExpectRows(*more, Iota(10, 125));
  }
}

}  // namespace
}  // namespace lance
