// SPDX-License-Identifier: Apache-2.0
// Bad input: truncated and bit-flipped manifests, transaction files and deletion files.
// Every operation must return a Status naming the damaged file (or succeed), never
// crash or hang, and older committed versions must stay readable.
#include <gtest/gtest.h>

#include <random>

#include "lance/dataset/dataset.h"
#include "lance/io/object_store_registry.h"
#include "table/commit.h"
#include "table/manifest.h"
#include "table/transaction.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance {
namespace {

using namespace table_testing;  // NOLINT(build/namespaces)
namespace ti = table_internal;

// A dataset with four versions:
//   1: ids 0..6199 in two fragments (6000 + 200 rows)
//   2: delete 100 <= id < 5300 -> a .bin deletion file on fragment 0
//   3: delete 6000 <= id < 6010 -> an .arrow deletion file on fragment 1
//   4: append ids 10000..10049
class CorruptTest : public ::testing::TestWithParam<bool> {
 protected:
  static constexpr int64_t kRowsAtV3 = 6200 - 5200 - 10;
  static constexpr int64_t kRowsAtV4 = kRowsAtV3 + 50;

  void SetUp() override {
    uri_ = GetParam() ? tmp_.Join("ds.lance") : table_testing::UniqueMemoryUri();
    ASSERT_OK_AND_ASSIGN(auto ds, WriteRowsInFiles(uri_, 0, 6200, 6000));
    ASSERT_OK(ds->Delete("id >= 100 AND id < 5300"));
    ASSERT_OK(ds->Delete("id >= 6000 AND id < 6010"));
    ASSERT_OK(WriteRows(uri_, 10000, 50, WriteMode::kAppend).status());
    ASSERT_OK_AND_ASSIGN(auto loc, io::ResolveObjectStore(uri_));
    dir_ = ti::DatasetDir(loc.store, loc.path);
    ASSERT_OK_AND_ASSIGN(auto latest, ti::FindLatestManifest(dir_));
    newest_ = *latest;
    ASSERT_EQ(newest_.version, 4u);
  }

  std::string Bytes(const std::string& key) {
    auto b = dir_.store()->Read(key);
    EXPECT_TRUE(b.ok()) << b.status();
    return b.ok() ? std::string((*b)->ToStringView()) : std::string();
  }

  // Variants of `original`: every truncation (or `max_truncations` spread evenly) and
  // `flips` seeded bit flips of 1-3 bits.
  static std::vector<std::string> Damaged(const std::string& original,
                                          size_t max_truncations, int flips,
                                          uint32_t seed) {
    std::vector<std::string> out;
    const size_t step = std::max<size_t>(1, original.size() / max_truncations);
    for (size_t len = 0; len < original.size(); len += step)
      out.push_back(original.substr(0, len));
    std::mt19937 gen(seed);
    for (int i = 0; i < flips; ++i) {
      std::string s = original;
      const int bits = 1 + static_cast<int>(gen() % 3);
      for (int b = 0; b < bits; ++b)
        s[gen() % s.size()] ^= static_cast<char>(1u << (gen() % 8));
      out.push_back(std::move(s));
    }
    return out;
  }

  // An error must name `file` (or, for reads that went on to other files, some file of
  // the dataset).
  void ExpectNamesAFile(const Status& st, const std::string& file,
                        const std::string& what) {
    if (st.ok()) return;
    // A flipped column name decodes fine; the filter then names a missing column.
    if (st.IsInvalid() && st.message().find("filter") != std::string::npos) return;
    const bool names =
        st.message().find(file) != std::string::npos ||
        st.message().find(dir_.Uri()) != std::string::npos ||
        (!dir_.base().empty() && st.message().find(dir_.base()) != std::string::npos);
    EXPECT_TRUE(names) << what << ": " << st;
  }

  // Exercises the dataset as a reader would; every outcome must be a clean Status.
  void ReadEverything(const std::string& file, const std::string& what) {
    auto ds = Dataset::Open(uri_);
    if (!ds.ok()) {
      ExpectNamesAFile(ds.status(), file, what + " Open");
      return;
    }
    ExpectNamesAFile((*ds)->CountRows().status(), file, what + " CountRows");
    ExpectNamesAFile((*ds)->CountRows("id < 50").status(), file,
                     what + " CountRows(filter)");
    ScanOptions options;
    options.batch_size = 4096;
    ExpectNamesAFile((*ds)->ToTable(options).status(), file, what + " Scan");
    (void)(*ds)->Versions();
  }

  void ExpectOlderVersionIntact() {
    OpenOptions at3;
    at3.version = 3;
    ASSERT_OK_AND_ASSIGN(auto old, Dataset::Open(uri_, at3));
    EXPECT_EQ(*old->CountRows(), kRowsAtV3);
    ASSERT_OK_AND_ASSIGN(auto table, old->ToTable());
    EXPECT_EQ(table->num_rows(), kRowsAtV3);
  }

  TempDir tmp_;
  std::string uri_;
  ti::DatasetDir dir_;
  ti::ManifestLocation newest_;
};

TEST_P(CorruptTest, DamagedNewestManifest) {
  const std::string original = Bytes(newest_.key);
  const std::string name = ti::ManifestFileName(4, newest_.scheme);
  const auto variants =
      Damaged(original, GetParam() ? 60 : 100000, GetParam() ? 150 : 1500, 1);
  int open_failures = 0;
  for (size_t i = 0; i < variants.size(); ++i) {
    ASSERT_OK(dir_.store()->Put(newest_.key, variants[i]));
    auto ds = Dataset::Open(uri_);
    if (!ds.ok()) {
      ++open_failures;
      EXPECT_NE(ds.status().message().find(name), std::string::npos) << ds.status();
    }
    ReadEverything(name, "variant " + std::to_string(i));
    // Committed data is never lost: version 3 still opens and reads in full.
    if (i % 50 == 0) ExpectOlderVersionIntact();
  }
  EXPECT_GT(open_failures, 0);
  // A writer refuses to build on a damaged latest manifest instead of skipping it.
  ASSERT_OK(dir_.store()->Put(newest_.key, original.substr(0, original.size() / 2)));
  EXPECT_THAT(WriteRows(uri_, 20000, 5, WriteMode::kAppend),
              IsError(StatusCode::kCorrupt));
  ExpectOlderVersionIntact();
  ASSERT_OK(dir_.store()->Put(newest_.key, original));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri_));
  EXPECT_EQ(ds->version(), 4u);
  EXPECT_EQ(*ds->CountRows(), kRowsAtV4);
}

TEST_P(CorruptTest, DamagedTransactionFiles) {
  // Make version 4 rely on its .txn file (no inline transaction), then damage that
  // file and commit an append planned against version 3: the committer must read it.
  ASSERT_OK_AND_ASSIGN(auto v4, ti::ReadManifest(dir_, newest_));
  const std::string txn_key = dir_.Key("_transactions/" + v4.manifest.transaction_file());
  const std::string txn_original = Bytes(txn_key);
  ASSERT_OK(dir_.store()->Put(
      newest_.key, ti::SerializeManifestFile(v4.manifest, v4.index_section, nullptr)));
  OpenOptions at3;
  at3.version = 3;
  ASSERT_OK_AND_ASSIGN(auto v3, Dataset::Open(uri_, at3));
  const std::string txn_name = v4.manifest.transaction_file();
  WriteParams append;
  append.mode = WriteMode::kAppend;
  auto reader = table_testing::ReaderOf({table_testing::MakeBatch(30000, 2)});
  ASSERT_OK_AND_ASSIGN(auto fragments, WriteFragments(*reader, uri_, append));
  const auto variants =
      Damaged(txn_original, GetParam() ? 20 : 100000, GetParam() ? 40 : 600, 2);
  for (size_t i = 0; i < variants.size(); ++i) {
    ASSERT_OK(dir_.store()->Put(txn_key, variants[i]));
    ASSERT_OK_AND_ASSIGN(ti::LoadedManifest loaded, ti::ReadManifest(dir_, newest_));
    auto txn = ti::LoadTransaction(dir_, loaded);
    if (!txn.ok()) {
      EXPECT_TRUE(txn.status().IsCorrupt()) << txn.status();
      EXPECT_NE(txn.status().message().find(txn_name), std::string::npos) << txn.status();
    }
    // A commit racing with it: rebased (if the damage left a compatible transaction)
    // or refused as Conflict -- never an unchecked commit or a crash.
    auto committed = Dataset::Commit(uri_, AppendOp{fragments}, 3);
    if (!txn.ok()) {
      EXPECT_TRUE(committed.status().IsConflict()) << committed.status();
    } else {
      EXPECT_TRUE(committed.ok() || committed.status().IsConflict())
          << committed.status();
    }
    // Undo a successful commit so that every variant races against version 4 alone.
    if (committed.ok()) {
      ASSERT_OK(dir_.store()->Delete(
          dir_.ManifestKey((*committed)->version(), newest_.scheme)));
    }
  }
  ASSERT_OK(dir_.store()->Put(txn_key, txn_original));
}

TEST_P(CorruptTest, DamagedDeletionFiles) {
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri_));
  for (const FragmentMetadata& frag : ds->fragments()) {
    if (!frag.deletion_file) continue;
    const std::string rel = frag.deletion_file->RelativePath(frag.id);
    const std::string key = dir_.Key(rel);
    const std::string original = Bytes(key);
    const std::string file = rel.substr(rel.find('/') + 1);
    const auto variants =
        Damaged(original, GetParam() ? 30 : 400, GetParam() ? 60 : 800, 3);
    for (size_t i = 0; i < variants.size(); ++i) {
      ASSERT_OK(dir_.store()->Put(key, variants[i]));
      ASSERT_OK_AND_ASSIGN(auto opened, Dataset::Open(uri_));
      // Counts come from the manifest and never need the file.
      EXPECT_EQ(*opened->CountRows(), kRowsAtV4);
      auto table = opened->ToTable();
      if (!table.ok()) {
        EXPECT_TRUE(table.status().IsCorrupt()) << table.status();
        EXPECT_NE(table.status().message().find(file), std::string::npos)
            << table.status();
      }
      ExpectNamesAFile(opened->CountRows("id < 50").status(), file, "CountRows(filter)");
    }
    ASSERT_OK(dir_.store()->Put(key, original));
  }
  ASSERT_OK_AND_ASSIGN(auto table, ds->ToTable());
  EXPECT_EQ(table->num_rows(), kRowsAtV4);
}

TEST_P(CorruptTest, MissingFilesAreNamed) {
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri_));
  const FragmentMetadata& frag = ds->fragments()[1];
  ASSERT_TRUE(frag.deletion_file.has_value());
  const std::string key = dir_.Key(frag.deletion_file->RelativePath(frag.id));
  const std::string saved = Bytes(key);
  ASSERT_OK(dir_.store()->Delete(key));
  auto table = ds->ToTable();
  EXPECT_TRUE(table.status().IsNotFound()) << table.status();
  EXPECT_NE(table.status().message().find(frag.deletion_file->RelativePath(frag.id)),
            std::string::npos)
      << table.status();
  ASSERT_OK(dir_.store()->Put(key, saved));
  const std::string data_key = dir_.Key("data/" + frag.files[0].path);
  const std::string data = Bytes(data_key);
  ASSERT_OK(dir_.store()->Delete(data_key));
  table = ds->ToTable();
  EXPECT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find(frag.files[0].path), std::string::npos)
      << table.status();
  EXPECT_EQ(*ds->CountRows(), kRowsAtV4);  // from the manifest alone
  ASSERT_OK(dir_.store()->Put(data_key, data));
}

INSTANTIATE_TEST_SUITE_P(Stores, CorruptTest, ::testing::Values(true, false),
                         [](const auto& info) {
                           return info.param ? "Local" : "Memory";
                         });

}  // namespace
}  // namespace lance
