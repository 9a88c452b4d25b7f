// SPDX-License-Identifier: Apache-2.0
// Helpers for the table tests: small datasets, fixture copies, and a comparator of
// scanned rows against the *.expected.json files real Lance produced.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/macros.h"
#include "table_rows.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

/// The table tests take every helper below, and the matchers and temporary directories
/// of lance_testing, with one `using namespace table_testing;`.
namespace lance::table_testing {

using ::lance::testing::IsError;
using ::lance::testing::IsErrorWith;
using ::lance::testing::TempDir;
using nlohmann::json;

inline std::string TestDataDir() { return LANCE_TEST_DATA_DIR; }
inline std::string FixtureDir() { return TestDataDir() + "/lance-8.0.0"; }

/// A fresh memory:// dataset URI (named memory stores are process-wide).
inline std::string UniqueMemoryUri(const std::string& tag = "ds") {
  static std::atomic<int> counter{0};
  return "memory://table-test-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter++) + "/" + tag + ".lance";
}

inline Result<std::shared_ptr<Dataset>> WriteRows(const std::string& uri, int64_t start,
                                                  int64_t n, WriteParams params = {}) {
  auto reader = ReaderOf({MakeBatch(start, n)});
  return Dataset::Write(*reader, uri, params);
}

/// WriteRows with `mode` (an append, an overwrite...) and otherwise default parameters.
inline Result<std::shared_ptr<Dataset>> WriteRows(const std::string& uri, int64_t start,
                                                  int64_t n, WriteMode mode) {
  WriteParams params;
  params.mode = mode;
  return WriteRows(uri, start, n, params);
}

/// WriteRows into data files of at most `rows_per_file` rows.
inline Result<std::shared_ptr<Dataset>> WriteRowsInFiles(const std::string& uri,
                                                         int64_t start, int64_t n,
                                                         int64_t rows_per_file) {
  WriteParams params;
  params.max_rows_per_file = rows_per_file;
  return WriteRows(uri, start, n, params);
}

/// Three fragments of ten rows (MakeBatch's ids 0..29, score = id / 2) at `uri`, or
/// nullptr after a test failure.
inline std::shared_ptr<Dataset> ThreeFragments(const std::string& uri) {
  auto ds = WriteRowsInFiles(uri, 0, 30, 10);
  if (!ds.ok()) {
    ADD_FAILURE() << "writing " << uri << ": " << ds.status().ToString();
    return nullptr;
  }
  return *ds;
}

/// What RacingAppends saw: the version each append committed, the errors of the others.
struct AppendRace {
  std::vector<uint64_t> versions;
  std::vector<std::string> errors;
};

/// `threads` threads, let go at once, each append `appends` batches of `rows` rows
/// (MakeBatch's ids from 1000 + (thread * appends + k) * rows) to `uri` with `params`
/// (its mode set to append, 1000 commit retries).
inline AppendRace RacingAppends(const std::string& uri, int threads, int appends,
                                int64_t rows, WriteParams params = {}) {
  params.mode = WriteMode::kAppend;
  params.commit_retries = 1000;
  AppendRace race;
  std::mutex mu;
  std::barrier start(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int k = 0; k < appends; ++k) {
        const int64_t first = 1000 + (t * appends + k) * rows;
        auto ds = WriteRows(uri, first, rows, params);
        std::lock_guard<std::mutex> lock(mu);
        if (ds.ok()) {
          race.versions.push_back((*ds)->version());
        } else {
          race.errors.push_back(ds.status().ToString());
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  return race;
}

/// id -> score of every live row of `ds` (MakeBatch's columns).
inline std::map<int64_t, double> Scores(const Dataset& ds) {
  std::map<int64_t, double> out;
  auto table = ds.ToTable();
  EXPECT_TRUE(table.ok()) << table.status();
  if (!table.ok()) return out;
  for (const auto& batch : (*table)->batches()) {
    const auto& ids = static_cast<const Int64Array&>(*batch->GetColumnByName("id"));
    const auto& scores =
        static_cast<const DoubleArray&>(*batch->GetColumnByName("score"));
    for (int64_t i = 0; i < batch->num_rows(); ++i) out[ids.Value(i)] = scores.Value(i);
  }
  return out;
}

/// The int64 values of column `name` of a table, in order (nulls as INT64_MIN).
inline std::vector<int64_t> Int64Column(const Table& table, const std::string& name) {
  std::vector<int64_t> out;
  for (const auto& batch : table.batches()) {
    auto col = batch->GetColumnByName(name);
    if (!col) return out;
    if (col->type_id() == TypeId::kUInt64) {
      const auto& a = static_cast<const UInt64Array&>(*col);
      for (int64_t i = 0; i < a.length(); ++i)
        out.push_back(static_cast<int64_t>(a.Value(i)));
    } else {
      const auto& a = static_cast<const Int64Array&>(*col);
      for (int64_t i = 0; i < a.length(); ++i) {
        out.push_back(a.IsNull(i) ? INT64_MIN : a.Value(i));
      }
    }
  }
  return out;
}

/// begin, begin + 1, ..., end - 1.
inline std::vector<int64_t> Iota(int64_t begin, int64_t end) {
  std::vector<int64_t> v(static_cast<size_t>(end - begin));
  std::iota(v.begin(), v.end(), begin);
  return v;
}

/// The ids of the live rows of `ds` in scan order, scanning as `options` says (every
/// column unless it names some).
inline std::vector<int64_t> ScannedIds(const Dataset& ds,
                                       const ScanOptions& options = {}) {
  auto table = ds.ToTable(options);
  EXPECT_TRUE(table.ok()) << table.status();
  return table.ok() ? Int64Column(**table, "id") : std::vector<int64_t>{};
}

/// ScannedIds, reading the id column only.
inline std::vector<int64_t> Ids(const Dataset& ds, ScanOptions options = {}) {
  options.columns = {"id"};
  return ScannedIds(ds, options);
}

/// Ids, sorted.
inline std::vector<int64_t> SortedIds(const Dataset& ds) {
  auto ids = Ids(ds);
  std::sort(ids.begin(), ids.end());
  return ids;
}

/// Copies a fixture dataset into `dir` (writable) and returns its path.
inline std::string CopyFixture(const std::string& name, const testing::TempDir& dir) {
  namespace fs = std::filesystem;
  const std::string dst = dir.Join(name);
  fs::copy(FixtureDir() + "/" + name, dst, fs::copy_options::recursive);
  for (auto& entry : fs::recursive_directory_iterator(dst)) {
    fs::permissions(entry.path(),
                    fs::perms::owner_read | fs::perms::owner_write |
                        (entry.is_directory() ? fs::perms::owner_exec : fs::perms::none),
                    fs::perm_options::add);
  }
  fs::permissions(dst, fs::perms::owner_all, fs::perm_options::add);
  return dst;
}

inline json LoadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

// -- Comparing scanned values with the expected JSON ----------------------------------

inline std::string Hex(std::string_view bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

/// Empty when slot i of `array` matches `expected`; otherwise a description.
inline std::string CompareValue(const Array& array, int64_t i, const json& expected) {
  auto describe = [&](const std::string& got) {
    return "got " + got + ", expected " + expected.dump();
  };
  if (array.IsNull(i)) return expected.is_null() ? "" : describe("null");
  if (expected.is_null()) return describe("a value");
  auto as_int = [&](int64_t* out) {
    if (expected.is_string()) {
      *out = std::stoll(expected.get<std::string>());
      return true;
    }
    if (expected.is_number_integer()) {
      *out = expected.get<int64_t>();
      return true;
    }
    return false;
  };
  // A list slot's `items`, which a list of `count` is expected to be.
  auto compare_items = [&](const Array& items, int64_t count) -> std::string {
    if (!expected.is_array() || expected.size() != static_cast<size_t>(count)) {
      return describe("a list of " + std::to_string(count));
    }
    for (int64_t k = 0; k < items.length(); ++k) {
      std::string why = CompareValue(items, k, expected[k]);
      if (!why.empty()) return "[" + std::to_string(k) + "] " + why;
    }
    return "";
  };
  switch (array.type_id()) {
    case TypeId::kInt32: {
      int64_t v;
      const int32_t got = static_cast<const Int32Array&>(array).Value(i);
      return as_int(&v) && v == got ? "" : describe(std::to_string(got));
    }
    case TypeId::kInt64: {
      int64_t v;
      const int64_t got = static_cast<const Int64Array&>(array).Value(i);
      return as_int(&v) && v == got ? "" : describe(std::to_string(got));
    }
    case TypeId::kUInt64: {
      const uint64_t got = static_cast<const UInt64Array&>(array).Value(i);
      const std::string text =
          expected.is_string() ? expected.get<std::string>() : expected.dump();
      return text == std::to_string(got) ? "" : describe(std::to_string(got));
    }
    case TypeId::kFloat32: {
      const float got = static_cast<const FloatArray&>(array).Value(i);
      return expected.is_number() && static_cast<float>(expected.get<double>()) == got
                 ? ""
                 : describe(std::to_string(got));
    }
    case TypeId::kFloat64: {
      const double got = static_cast<const DoubleArray&>(array).Value(i);
      return expected.is_number() && expected.get<double>() == got
                 ? ""
                 : describe(std::to_string(got));
    }
    case TypeId::kBool: {
      const bool got = static_cast<const BooleanArray&>(array).Value(i);
      return expected.is_boolean() && expected.get<bool>() == got
                 ? ""
                 : describe(got ? "true" : "false");
    }
    case TypeId::kUtf8: {
      const std::string got = static_cast<const StringArray&>(array).GetString(i);
      return expected.is_string() && expected.get<std::string>() == got
                 ? ""
                 : describe("\"" + got + "\"");
    }
    case TypeId::kBinary: {
      const std::string got = Hex(static_cast<const BinaryArray&>(array).GetView(i));
      return expected.is_string() && expected.get<std::string>() == got ? ""
                                                                        : describe(got);
    }
    case TypeId::kFixedSizeList: {
      const auto& fsl = static_cast<const FixedSizeListArray&>(array);
      return compare_items(*fsl.value_slice(i), fsl.list_size());
    }
    case TypeId::kList: {
      auto items = static_cast<const ListArray&>(array).value_slice(i);
      return compare_items(*items, items->length());
    }
    case TypeId::kStruct: {
      const auto& st = static_cast<const StructArray&>(array);
      if (!expected.is_object()) return describe("a struct");
      for (int f = 0; f < st.num_fields(); ++f) {
        const std::string& name = array.type()->fields()[f]->name();
        const json& sub = expected.contains(name) ? expected[name] : json(nullptr);
        std::string why = CompareValue(*st.field(f), i, sub);
        if (!why.empty()) return "." + name + " " + why;
      }
      return "";
    }
    default:
      return "unsupported type " + array.type()->ToString();
  }
}

/// Empty when `table` (which must have a _rowid column) holds exactly the rows of
/// `expected["rows"]`, ordered by _rowid; otherwise the first difference.
inline std::string CompareWithExpected(const Table& table, const json& expected) {
  const json& rows = expected["rows"];
  if (table.num_rows() != static_cast<int64_t>(rows.size())) {
    return "row count " + std::to_string(table.num_rows()) + " != expected " +
           std::to_string(rows.size());
  }
  // Column names and order from the expected schema.
  std::vector<std::string> names;
  for (const json& f : expected["schema"]) names.push_back(f["name"].get<std::string>());
  names.push_back("_rowid");
  const SchemaPtr& s = table.schema();
  for (size_t c = 0; c + 1 < names.size(); ++c) {
    if (c >= static_cast<size_t>(s->num_fields()) ||
        s->field(static_cast<int>(c))->name() != names[c]) {
      return "column " + std::to_string(c) + " should be " + names[c] + "; schema:\n" +
             s->ToString();
    }
  }
  size_t r = 0;
  for (const auto& batch : table.batches()) {
    for (int64_t i = 0; i < batch->num_rows(); ++i, ++r) {
      for (const std::string& name : names) {
        auto column = batch->GetColumnByName(name);
        if (!column) return "missing column " + name;
        const json& want = rows[r].contains(name) ? rows[r][name] : json(nullptr);
        std::string why = CompareValue(*column, i, want);
        if (!why.empty()) {
          return "row " + std::to_string(r) + " (_rowid " + rows[r]["_rowid"].dump() +
                 ") column " + name + ": " + why;
        }
      }
    }
  }
  return "";
}

}  // namespace lance::table_testing
