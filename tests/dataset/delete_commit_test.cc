// SPDX-License-Identifier: Apache-2.0
// Dataset::Commit of a DeleteOp (Lance's Operation::Delete): fragments removed whole and
// deletion files replaced, read back here and by pylance.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "dataset/dataset_internal.h"
#include "dataset/fragment_internal.h"
#include "lance/dataset/dataset.h"
#include "table/deletion.h"
#include "table/transaction.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"
#include "tests/testing/python.h"
#include "tests/testing/temp_dir.h"

namespace lance {
namespace {

namespace ti = table_internal;
using namespace table_testing;  // NOLINT(build/namespaces)

// Three fragments of ten rows: ids 0..9, 10..19, 20..29.
Result<std::shared_ptr<Dataset>> WriteThreeFragments(const std::string& uri) {
  return WriteRowsInFiles(uri, 0, 30, 10);
}

// The public form of a deletion file written for `fragment_id` of `ds`'s version.
Result<FragmentMetadata> WithDeletions(const Dataset& ds, uint64_t fragment_id,
                                       const ti::DeletionVector& rows) {
  const auto& impl = DatasetImplAccess::Get(ds);
  LANCE_ASSIGN_OR_RAISE(
      ti::pb::DeletionFile file,
      ti::WriteDeletionFile(impl->dir, fragment_id, ds.version(), rows));
  ti::pb::DataFragment proto;
  proto.set_id(fragment_id);
  *proto.mutable_deletion_file() = file;
  FragmentMetadata out = ti::FragmentFromProto(proto);
  // Only id and deletion_file count: a caller's stale copy of the rest is ignored.
  out.physical_rows = 1;
  return out;
}

using ::lance::testing::RunPython;

TEST(DeleteCommitTest, RemovesOneFragmentAndReplacesAnothersDeletions) {
  TempDir tmp;
  const std::string uri = tmp.Join("ds.lance");
  ASSERT_OK_AND_ASSIGN(auto v1, WriteThreeFragments(uri));
  ASSERT_EQ(v1->fragments().size(), 3u);
  // Version 2: fragment 1 loses row 10 (an existing deletion file the commit replaces).
  ASSERT_OK(v1->Delete("id = 10"));
  ASSERT_EQ(v1->version(), 2u);
  ASSERT_TRUE(v1->fragments()[1].deletion_file.has_value());

  DeleteOp op;
  ASSERT_OK_AND_ASSIGN(FragmentMetadata updated, WithDeletions(*v1, 1, {0, 3, 9}));
  op.updated_fragments.push_back(updated);
  op.deleted_fragment_ids.push_back(0);
  op.predicate = "id < 10 OR id IN (10, 13, 19)";
  ASSERT_OK_AND_ASSIGN(auto v3, Dataset::Commit(uri, op, 2));
  EXPECT_EQ(v3->version(), 3u);
  ASSERT_EQ(v3->fragments().size(), 2u);
  EXPECT_EQ(v3->fragments()[0].id, 1u);
  EXPECT_EQ(v3->fragments()[1].id, 2u);
  ASSERT_TRUE(v3->fragments()[0].deletion_file.has_value());
  EXPECT_EQ(v3->fragments()[0].deletion_file->num_deleted_rows, 3u);
  EXPECT_EQ(v3->fragments()[0].deletion_file->id, updated.deletion_file->id);
  // The rest of the fragment is the committed version's, not the caller's copy.
  EXPECT_EQ(v3->fragments()[0].physical_rows, 10u);
  EXPECT_EQ(v3->fragments()[0].files, v1->fragments()[1].files);
  EXPECT_FALSE(v3->fragments()[1].deletion_file.has_value());

  std::vector<int64_t> expected = {11, 12, 14, 15, 16, 17, 18};
  for (int64_t id = 20; id < 30; ++id) expected.push_back(id);
  EXPECT_EQ(*v3->CountRows(), 17);
  EXPECT_EQ(ScannedIds(*v3), expected);
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(uri));
  EXPECT_EQ(reopened->version(), 3u);
  EXPECT_EQ(ScannedIds(*reopened), expected);

  // The transaction is Lance's Delete, with the predicate recorded.
  const auto& impl = DatasetImplAccess::Get(*reopened);
  ASSERT_OK_AND_ASSIGN(auto txn, ti::LoadTransaction(impl->dir, impl->manifest));
  EXPECT_EQ(ti::OperationName(txn), "Delete");
  EXPECT_EQ(txn.read_version(), 2u);
  EXPECT_EQ(txn.delete_().predicate(), op.predicate);
  ASSERT_EQ(txn.delete_().deleted_fragment_ids_size(), 1);
  EXPECT_EQ(txn.delete_().deleted_fragment_ids(0), 0u);
  ASSERT_EQ(txn.delete_().updated_fragments_size(), 1);
  EXPECT_EQ(txn.delete_().updated_fragments(0).physical_rows(), 10u);

  // pylance reads the same version, rows and deletions.
  const std::string script =
      "import sys, lance\n"
      "ds = lance.dataset(sys.argv[1])\n"
      "print(ds.version, ds.count_rows(), len(ds.get_fragments()))\n"
      "print(sorted(ds.to_table(columns=['id']).column('id').to_pylist()))\n";
  std::string out;
  ASSERT_EQ(RunPython({"-c", script, uri}, &out), 0) << out;
  std::string ids = "[";
  for (size_t i = 0; i < expected.size(); ++i) {
    ids += (i ? ", " : "") + std::to_string(expected[i]);
  }
  ids += "]";
  EXPECT_EQ(out, "3 17 2\n" + ids + "\n");

  // The old version is untouched.
  ASSERT_OK_AND_ASSIGN(auto old, Dataset::Open(uri, OpenOptions{2}));
  EXPECT_EQ(*old->CountRows(), 29);
}

TEST(DeleteCommitTest, RebasesOverAConcurrentAppendAndConflictsOnTouchedFragments) {
  const std::string uri = table_testing::UniqueMemoryUri("delete-commit");
  ASSERT_OK_AND_ASSIGN(auto v1, WriteThreeFragments(uri));
  WriteParams append;
  append.mode = WriteMode::kAppend;
  ASSERT_OK(WriteRows(uri, 30, 5, append).status());  // version 2, planned after v1

  DeleteOp drop_first;
  drop_first.deleted_fragment_ids = {0};
  drop_first.predicate = "id < 10";
  ASSERT_OK_AND_ASSIGN(auto v3, Dataset::Commit(uri, drop_first, 1));
  EXPECT_EQ(v3->version(), 3u);
  EXPECT_EQ(*v3->CountRows(), 25);  // the append survived the rebase

  // A second delete planned on version 1 names fragment 0, which version 3 removed.
  DeleteOp again;
  ASSERT_OK_AND_ASSIGN(FragmentMetadata stale, WithDeletions(*v1, 0, {1}));
  again.updated_fragments.push_back(stale);
  EXPECT_THAT(Dataset::Commit(uri, again, 1), IsError(StatusCode::kConflict));
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(uri));
  EXPECT_EQ(latest->version(), 3u);
}

TEST(DeleteCommitTest, RefusesBadOperations) {
  const std::string uri = table_testing::UniqueMemoryUri("delete-commit-bad");
  ASSERT_OK_AND_ASSIGN(auto v1, WriteThreeFragments(uri));
  DeleteOp op;
  op.deleted_fragment_ids = {1};
  EXPECT_THAT(Dataset::Commit(uri, op, std::nullopt),
              IsErrorWith(StatusCode::kInvalid, "read_version"));
  op.deleted_fragment_ids = {7};
  EXPECT_THAT(Dataset::Commit(uri, op, 1),
              IsErrorWith(StatusCode::kInvalid, "fragment 7"));
  op.deleted_fragment_ids = {1, 1};
  EXPECT_THAT(Dataset::Commit(uri, op, 1),
              IsErrorWith(StatusCode::kInvalid, "more than once"));
  op.deleted_fragment_ids = {1};
  ASSERT_OK_AND_ASSIGN(FragmentMetadata updated, WithDeletions(*v1, 1, {2}));
  op.updated_fragments.push_back(updated);
  EXPECT_THAT(Dataset::Commit(uri, op, 1),
              IsErrorWith(StatusCode::kInvalid, "more than once"));
  op.deleted_fragment_ids.clear();
  ti::DeletionVector all;
  for (uint32_t i = 0; i < 10; ++i) all.push_back(i);
  ASSERT_OK_AND_ASSIGN(FragmentMetadata everything, WithDeletions(*v1, 1, all));
  op.updated_fragments[0] = everything;
  EXPECT_THAT(Dataset::Commit(uri, op, 1),
              IsErrorWith(StatusCode::kInvalid, "remove the fragment instead"));
  EXPECT_THAT(Dataset::Commit(uri, op, 5), IsError(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(uri));
  EXPECT_EQ(latest->version(), 1u);
}

}  // namespace
}  // namespace lance
