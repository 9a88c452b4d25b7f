// SPDX-License-Identifier: Apache-2.0
// Dataset::CleanupOldVersions: Lance's rules on a local directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <thread>

#include "lance/dataset/dataset.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance {
namespace {

namespace fs = std::filesystem;
using namespace table_testing;  // NOLINT(build/namespaces)

std::set<std::string> Files(const std::string& root, const std::string& sub) {
  std::set<std::string> out;
  if (!fs::exists(root + "/" + sub)) return out;
  for (const auto& e : fs::directory_iterator(root + "/" + sub)) {
    out.insert(e.path().filename().string());
  }
  return out;
}

// Versions 1 (write), 2 (delete), 3 and 4 (compaction: the fragment id reservation, then
// the Rewrite, as Lance commits them): v1 and v2's data files and v2's deletion file are
// referenced by old versions only after the compaction.
Result<std::shared_ptr<Dataset>> History(const std::string& uri) {
  LANCE_ASSIGN_OR_RAISE(auto ds, WriteRowsInFiles(uri, 0, 30, 10));
  LANCE_RETURN_NOT_OK(ds->Delete("id < 3"));
  CompactionOptions o;
  o.target_rows_per_fragment = 1000;
  LANCE_RETURN_NOT_OK(ds->CompactFiles(o).status());
  return ds;
}

TEST(CleanupTest, RemovesOldVersionsAndOnlyTheirFiles) {
  testing::TempDir dir;
  const std::string uri = dir.Join("ds");
  ASSERT_OK_AND_ASSIGN(auto ds, History(uri));
  EXPECT_EQ(Files(uri, "data").size(), 4u);
  EXPECT_EQ(Files(uri, "_deletions").size(), 1u);
  CleanupOptions o;
  o.older_than_ms = 0;
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_OK_AND_ASSIGN(CleanupStats st, ds->CleanupOldVersions(o));
  EXPECT_EQ(st.old_versions, 3);
  EXPECT_EQ(st.data_files_removed, 3);
  EXPECT_EQ(st.deletion_files_removed, 1);
  EXPECT_EQ(st.transaction_files_removed, 3);
  EXPECT_GT(st.bytes_removed, 0);
  EXPECT_EQ(Files(uri, "data").size(), 1u);
  EXPECT_EQ(Files(uri, "_deletions").size(), 0u);
  ASSERT_OK_AND_ASSIGN(auto versions, ds->Versions());
  ASSERT_EQ(versions.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(uri));
  EXPECT_EQ(*reopened->CountRows(), 27);
  // Nothing left to do.
  ASSERT_OK_AND_ASSIGN(st, ds->CleanupOldVersions(o));
  EXPECT_EQ(st.old_versions, 0);
  EXPECT_EQ(st.bytes_removed, 0);
}

// Every file under the dataset, relative to it.
std::set<std::string> AllFiles(const std::string& root) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), root).string());
  }
  return out;
}

TEST(CleanupTest, DryRunListsWhatARealRunRemovesAndDeletesNothing) {
  testing::TempDir dir;
  const std::string uri = dir.Join("ds");
  ASSERT_OK_AND_ASSIGN(auto ds, History(uri));
  // An orphan: a data file written for a commit that never happened (a killed writer).
  WriteParams append;
  append.mode = WriteMode::kAppend;
  auto reader = table_testing::ReaderOf({table_testing::MakeBatch(100, 5)});
  ASSERT_OK_AND_ASSIGN(auto orphan, WriteFragments(*reader, uri, append));
  ASSERT_EQ(orphan.size(), 1u);
  const std::string orphan_path = "data/" + orphan[0].files.at(0).path;
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::set<std::string> before = AllFiles(uri);
  ASSERT_EQ(before.count(orphan_path), 1u);

  CleanupOptions o;
  o.older_than_ms = 0;
  o.delete_unverified = true;
  o.dry_run = true;
  ASSERT_OK_AND_ASSIGN(CleanupStats dry, ds->CleanupOldVersions(o));
  EXPECT_EQ(AllFiles(uri), before);  // nothing deleted
  EXPECT_EQ(dry.old_versions, 3);
  EXPECT_EQ(dry.data_files_removed, 4);  // three of old versions, and the orphan
  EXPECT_EQ(dry.deletion_files_removed, 1);
  const std::set<std::string> listed(dry.removed_paths.begin(), dry.removed_paths.end());
  EXPECT_EQ(listed.size(), dry.removed_paths.size());
  EXPECT_EQ(listed.count(orphan_path), 1u);
  // Old manifests first, then the files.
  ASSERT_GE(dry.removed_paths.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(dry.removed_paths[i].rfind("_versions/", 0), 0u) << dry.removed_paths[i];
  }
  // Nothing the kept (current) version references is listed.
  for (const FragmentMetadata& frag : ds->fragments()) {
    for (const auto& file : frag.files) EXPECT_EQ(listed.count("data/" + file.path), 0u);
  }
  ASSERT_OK_AND_ASSIGN(auto versions, ds->Versions());
  EXPECT_EQ(versions.size(), 4u);

  o.dry_run = false;
  ASSERT_OK_AND_ASSIGN(CleanupStats real, ds->CleanupOldVersions(o));
  EXPECT_EQ(real.removed_paths, dry.removed_paths);
  EXPECT_EQ(real.bytes_removed, dry.bytes_removed);
  EXPECT_EQ(real.data_files_removed, dry.data_files_removed);
  std::set<std::string> gone;
  for (const std::string& f : before) {
    if (AllFiles(uri).count(f) == 0) gone.insert(f);
  }
  EXPECT_EQ(gone, listed);
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(uri));
  EXPECT_EQ(*reopened->CountRows(), 27);
}

TEST(CleanupTest, RetainVersionsKeepsTheNewest) {
  testing::TempDir dir;
  const std::string uri = dir.Join("ds");
  ASSERT_OK_AND_ASSIGN(auto ds, History(uri));
  CleanupOptions o;
  o.older_than_ms.reset();
  o.retain_versions = 0;
  EXPECT_THAT(ds->CleanupOldVersions(o).status(), testing::IsError(StatusCode::kInvalid));
  o.retain_versions = 2;
  ASSERT_OK_AND_ASSIGN(CleanupStats st, ds->CleanupOldVersions(o));
  EXPECT_EQ(st.old_versions, 2);
  ASSERT_OK_AND_ASSIGN(auto versions, ds->Versions());
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0].version, 3u);
  ASSERT_OK_AND_ASSIGN(auto v3, ds->CheckoutVersion(3));
  EXPECT_EQ(*v3->CountRows("id >= 0"), 27);
}

TEST(CleanupTest, YoungVersionsAndUnverifiedFilesStay) {
  testing::TempDir dir;
  const std::string uri = dir.Join("ds");
  ASSERT_OK_AND_ASSIGN(auto ds, History(uri));
  // A stray data file no manifest names (a failed write): younger than 7 days.
  fs::copy_file(uri + "/data/" + *Files(uri, "data").begin(), uri + "/data/stray.lance");
  CleanupOptions o;  // two weeks: nothing is old
  ASSERT_OK_AND_ASSIGN(CleanupStats st, ds->CleanupOldVersions(o));
  EXPECT_EQ(st.old_versions, 0);
  EXPECT_EQ(Files(uri, "data").size(), 5u);
  o.older_than_ms = 0;
  ASSERT_OK_AND_ASSIGN(st, ds->CleanupOldVersions(o));
  EXPECT_EQ(Files(uri, "data").count("stray.lance"), 1u);
  o.delete_unverified = true;
  ASSERT_OK_AND_ASSIGN(st, ds->CleanupOldVersions(o));
  EXPECT_EQ(Files(uri, "data").count("stray.lance"), 0u);
  EXPECT_EQ(st.data_files_removed, 1);
}

TEST(CleanupTest, TaggedVersionsFailOrStay) {
  testing::TempDir dir;
  const std::string uri = dir.Join("ds");
  ASSERT_OK_AND_ASSIGN(auto ds, History(uri));
  ASSERT_OK(ds->CreateTag("keep", 1));
  CleanupOptions o;
  o.older_than_ms = 0;
  EXPECT_THAT(ds->CleanupOldVersions(o).status(),
              testing::IsErrorWith(StatusCode::kInvalid, "keep"));
  EXPECT_EQ(ds->Versions()->size(), 4u);  // nothing removed
  o.error_if_tagged_old_versions = false;
  ASSERT_OK_AND_ASSIGN(CleanupStats st, ds->CleanupOldVersions(o));
  EXPECT_EQ(st.old_versions, 2);  // versions 2 and 3
  ASSERT_OK_AND_ASSIGN(auto tagged, ds->CheckoutTag("keep"));
  EXPECT_EQ(*tagged->CountRows("id >= 0"), 30);  // reads every data file of version 1
}

TEST(CleanupTest, ConcurrentWritersKeepEveryVersionReadable) {
  testing::TempDir dir;
  const std::string uri = dir.Join("ds");
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRowsInFiles(uri, 0, 30, 10));
  std::atomic<bool> done{false};
  std::thread writer([&] {
    WriteParams ap;
    ap.mode = WriteMode::kAppend;
    for (int i = 0; i < 15; ++i) {
      auto w = WriteRows(uri, 100 + 10 * i, 10, ap);
      if (w.ok() && i % 2 == 1)
        (void)(*w)->Delete("id = " + std::to_string(100 + 10 * i));
    }
    done = true;
  });
  CleanupOptions o;
  o.older_than_ms = 0;
  int64_t removed = 0;
  while (!done) {
    ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(uri));
    ASSERT_OK_AND_ASSIGN(CleanupStats st, latest->CleanupOldVersions(o));
    removed += st.old_versions;
    ASSERT_OK_AND_ASSIGN(auto versions, latest->Versions());
    for (const auto& v : versions) {
      auto at = latest->CheckoutVersion(v.version);
      if (!at.ok()) continue;  // cleaned meanwhile
      ASSERT_OK(at.status());
      auto counted = (*at)->CountRows("id >= 0");
      ASSERT_TRUE(counted.ok()) << "version " << v.version << ": " << counted.status();
    }
  }
  writer.join();
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(uri));
  ASSERT_OK_AND_ASSIGN(CleanupStats last, latest->CleanupOldVersions(o));
  EXPECT_GT(removed + last.old_versions, 0);
  EXPECT_EQ(*latest->CountRows("id >= 0"), 30 + 150 - 7);
}

size_t Manifests(const std::string& root) {
  size_t n = 0;
  for (const auto& name : Files(root, "_versions")) {
    if (name.size() > 9 && name.substr(name.size() - 9) == ".manifest") ++n;
  }
  return n;
}

// cleanup(older_than = 0) from a fresh handle: only the latest version stays.
Result<CleanupStats> KeepOnlyLatest(const std::string& uri) {
  LANCE_ASSIGN_OR_RAISE(auto latest, Dataset::Open(uri));
  CleanupOptions o;
  o.older_than_ms = 0;
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // strictly older than now
  return latest->CleanupOldVersions(o);
}

// A handle opened before others committed, and a cleanup removed a version they
// committed (its transaction with it): the commit must not slip into the removed
// version's slot (a create-only put of version 2 would succeed there, below the latest
// version, and be lost). As in Lance it lands on top of the latest version, the removed
// one judged by the manifests around it: here an append, which left fragment 0 alone.
TEST(CleanupTest, StaleHandleCommitAfterCleanupLandsOnTheLatestVersion) {
  testing::TempDir dir;
  const std::string uri = dir.Join("ds");
  ASSERT_OK_AND_ASSIGN(auto first, WriteRows(uri, 0, 10));
  ASSERT_OK_AND_ASSIGN(auto stale, Dataset::Open(uri));
  WriteParams ap;
  ap.mode = WriteMode::kAppend;
  ASSERT_OK(WriteRows(uri, 10, 10, ap).status());
  ASSERT_OK(WriteRows(uri, 20, 10, ap).status());
  ASSERT_OK_AND_ASSIGN(CleanupStats st, KeepOnlyLatest(uri));
  EXPECT_EQ(st.old_versions, 2);

  ASSERT_OK(stale->Delete("id = 0"));
  EXPECT_EQ(stale->version(), 4u);
  EXPECT_EQ(Manifests(uri), 2u);  // 3 and 4: nothing published in a removed slot
  ASSERT_OK_AND_ASSIGN(auto after, Dataset::Open(uri));
  EXPECT_EQ(after->version(), 4u);
  EXPECT_EQ(*after->CountRows(), 29);
  EXPECT_EQ(*after->CountRows("id = 0"), 0);
  EXPECT_EQ(*after->CountRows("id >= 10"), 20);
  ASSERT_OK_AND_ASSIGN(auto versions, after->Versions());
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0].version, 3u);
  EXPECT_EQ(versions[1].version, 4u);
}

// The same, but the removed version deleted a row of the fragment the stale delete
// changes: applying the stale deletion vector would bring that row back. Lance would
// (it skips removed versions); here it is a retryable conflict and nothing changes.
TEST(CleanupTest, StaleHandleCommitOverARemovedChangeOfItsFragmentIsAConflict) {
  testing::TempDir dir;
  const std::string uri = dir.Join("ds");
  ASSERT_OK_AND_ASSIGN(auto first, WriteRows(uri, 0, 10));
  ASSERT_OK_AND_ASSIGN(auto stale, Dataset::Open(uri));
  ASSERT_OK(first->Delete("id = 1"));  // version 2, fragment 0
  ASSERT_OK(WriteRows(uri, 10, 10, WriteMode::kAppend).status());  // version 3
  ASSERT_OK_AND_ASSIGN(CleanupStats st, KeepOnlyLatest(uri));
  EXPECT_EQ(st.old_versions, 2);

  Status deleted = stale->Delete("id = 0");
  ASSERT_TRUE(deleted.IsConflict()) << deleted.ToString();
  EXPECT_TRUE(deleted.retryable()) << deleted.ToString();
  EXPECT_NE(deleted.message().find("removed since (cleanup)"), std::string::npos)
      << deleted.message();
  EXPECT_NE(deleted.message().find("changed fragment 0"), std::string::npos)
      << deleted.message();
  EXPECT_EQ(stale->version(), 1u);
  EXPECT_EQ(Manifests(uri), 1u);
  ASSERT_OK_AND_ASSIGN(auto after, Dataset::Open(uri));
  EXPECT_EQ(after->version(), 3u);
  EXPECT_EQ(*after->CountRows(), 19);
  EXPECT_EQ(*after->CountRows("id = 1"), 0);
  // Reloaded, the same delete goes through.
  ASSERT_OK(after->Delete("id = 0"));
  EXPECT_EQ(*after->CountRows(), 18);
}

// Without a cleanup, the same stale handle rebases onto what others committed and lands
// on top of the latest version, keeping their rows and its delete.
TEST(CleanupTest, StaleHandleCommitLandsOnTopOfTheLatestVersion) {
  testing::TempDir dir;
  const std::string uri = dir.Join("ds");
  ASSERT_OK_AND_ASSIGN(auto first, WriteRows(uri, 0, 10));
  WriteParams ap;
  ap.mode = WriteMode::kAppend;
  ASSERT_OK(WriteRows(uri, 10, 10, ap).status());
  ASSERT_OK(WriteRows(uri, 20, 10, ap).status());
  ASSERT_OK(first->Delete("id = 0"));
  EXPECT_EQ(first->version(), 4u);
  ASSERT_OK_AND_ASSIGN(auto after, Dataset::Open(uri));
  EXPECT_EQ(after->version(), 4u);
  EXPECT_EQ(*after->CountRows(), 29);
  EXPECT_EQ(*after->CountRows("id = 0"), 0);
  EXPECT_EQ(Manifests(uri), 4u);
}

}  // namespace
}  // namespace lance
