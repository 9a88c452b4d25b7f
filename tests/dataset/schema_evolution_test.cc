// SPDX-License-Identifier: Apache-2.0
// AddColumns / DropColumns / AlterColumns: Lance's Merge and Project operations, field
// ids as Lance assigns them, errors, and their conflict rules.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dataset/dataset_internal.h"
#include "lance/core/builder.h"
#include "lance/dataset/dataset.h"
#include "table/transaction.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"

namespace lance {
namespace {

namespace ti = table_internal;
using namespace table_testing;  // NOLINT(build/namespaces)

std::vector<int32_t> FieldIds(const Dataset& ds) {
  return DatasetImplAccess::Get(ds)->schema.field_ids();
}

ti::pb::Transaction::OperationCase LatestOp(const Dataset& ds) {
  const auto& impl = DatasetImplAccess::Get(ds);
  auto txn = ti::LoadTransaction(impl->dir, impl->manifest);
  EXPECT_TRUE(txn.ok());
  return txn.ok() ? txn->operation_case() : ti::pb::Transaction::OPERATION_NOT_SET;
}

TEST(SchemaEvolutionTest, AddColumnsFromExpressions) {
  auto ds = ThreeFragments(UniqueMemoryUri());
  ASSERT_OK(ds->Delete("id = 3"));
  ASSERT_OK(ds->AddColumns({{"double_id", "id * 2"}, {"label", "name"}}));
  EXPECT_EQ(LatestOp(*ds), ti::pb::Transaction::kMerge);
  EXPECT_EQ(ds->schema()->num_fields(), 5);
  EXPECT_EQ(FieldIds(*ds), (std::vector<int32_t>{0, 1, 2, 3, 4}));
  // id is not nullable, so id * 2 is not either; name is.
  EXPECT_FALSE(ds->schema()->field(3)->nullable());
  EXPECT_TRUE(ds->schema()->field(4)->nullable());
  for (const auto& frag : ds->fragments()) ASSERT_EQ(frag.files.size(), 2u);
  EXPECT_EQ(*ds->CountRows(), 29);  // the deletion file still applies
  EXPECT_EQ(*ds->CountRows("double_id = id + id"), 29);
  EXPECT_EQ(*ds->CountRows("label = name"), *ds->CountRows("name IS NOT NULL"));
  // Errors: existing name, bad expression, unknown column; nothing committed.
  const uint64_t v = ds->version();
  EXPECT_THAT(ds->AddColumns({{"id", "1"}}),
              IsErrorWith(StatusCode::kInvalid, "already exists"));
  EXPECT_THAT(ds->AddColumns({{"z", "nope + 1"}}),
              IsErrorWith(StatusCode::kInvalid, "nope"));
  EXPECT_THAT(ds->AddColumns({{"z", "id +"}}), IsError(StatusCode::kInvalid));
  EXPECT_EQ(*ds->LatestVersion(), v);
}

TEST(SchemaEvolutionTest, AddColumnsFromFunctionAndAllNull) {
  auto ds = ThreeFragments(UniqueMemoryUri());
  auto out_schema = schema({field("neg", int64())});
  AddColumnsOptions options;
  options.read_columns = {"id"};
  options.batch_size = 4;
  ASSERT_OK(ds->AddColumns(
      out_schema,
      [&](const RecordBatch& batch) -> Result<RecordBatchPtr> {
        const auto& ids = static_cast<const Int64Array&>(*batch.column(0));
        Int64Builder b;
        for (int64_t i = 0; i < ids.length(); ++i) (void)b.Append(-ids.Value(i));
        LANCE_ASSIGN_OR_RAISE(auto arr, b.Finish());
        return RecordBatch::Make(out_schema, batch.num_rows(), {arr});
      },
      options));
  EXPECT_EQ(*ds->CountRows("neg = -id"), 30);
  ASSERT_OK(ds->AddNullColumns(schema({field("empty", utf8())})));
  EXPECT_EQ(*ds->CountRows("empty IS NULL"), 30);
  EXPECT_EQ(FieldIds(*ds), (std::vector<int32_t>{0, 1, 2, 3, 4}));
  // A function returning the wrong rows fails and commits nothing.
  const uint64_t v = ds->version();
  EXPECT_THAT(ds->AddColumns(schema({field("w", int64())}),
                             [](const RecordBatch&) -> Result<RecordBatchPtr> {
                               return Status::Invalid("boom");
                             }),
              IsErrorWith(StatusCode::kInvalid, "boom"));
  EXPECT_EQ(*ds->LatestVersion(), v);
}

TEST(SchemaEvolutionTest, DropRenameNullabilityAndIds) {
  auto ds = ThreeFragments(UniqueMemoryUri());
  ASSERT_OK(ds->AddColumns({{"x", "id + 1"}}));
  ASSERT_OK(ds->DropColumns({"x"}));
  EXPECT_EQ(LatestOp(*ds), ti::pb::Transaction::kProject);
  // x's file held only x: it leaves the manifest, and its id may be used again (Lance).
  for (const auto& frag : ds->fragments()) EXPECT_EQ(frag.files.size(), 1u);
  ASSERT_OK(ds->AddColumns({{"y", "id + 2"}}));
  EXPECT_EQ(FieldIds(*ds), (std::vector<int32_t>{0, 1, 2, 3}));
  // Dropping name keeps its id in use (its file also holds id and score).
  ASSERT_OK(ds->DropColumns({"name"}));
  ASSERT_OK(ds->AddColumns({{"z", "id + 3"}}));
  EXPECT_EQ(FieldIds(*ds), (std::vector<int32_t>{0, 2, 3, 4}));
  // Rename keeps the id; nullability can be relaxed, and tightened when no null exists.
  std::vector<ColumnAlteration> alter(2);
  alter[0].path = "score";
  alter[0].rename = "points";
  alter[1].path = "id";
  alter[1].nullable = true;
  ASSERT_OK(ds->AlterColumns(alter));
  EXPECT_EQ(LatestOp(*ds), ti::pb::Transaction::kProject);
  EXPECT_EQ(ds->schema()->field(1)->name(), "points");
  EXPECT_TRUE(ds->schema()->field(0)->nullable());
  EXPECT_EQ(FieldIds(*ds), (std::vector<int32_t>{0, 2, 3, 4}));
  EXPECT_EQ(*ds->CountRows("points * 2 = id"), 30);
  std::vector<ColumnAlteration> tighten(1);
  tighten[0].path = "id";
  tighten[0].nullable = false;
  ASSERT_OK(ds->AlterColumns(tighten));
  EXPECT_FALSE(ds->schema()->field(0)->nullable());
  // Errors.
  const uint64_t v = ds->version();
  EXPECT_THAT(ds->DropColumns({"nope"}), IsErrorWith(StatusCode::kInvalid, "nope"));
  EXPECT_THAT(ds->DropColumns({"id", "points", "y", "z"}), IsError(StatusCode::kInvalid));
  std::vector<ColumnAlteration> bad(1);
  bad[0].path = "nope";
  bad[0].rename = "x";
  EXPECT_THAT(ds->AlterColumns(bad), IsErrorWith(StatusCode::kInvalid, "nope"));
  bad[0].path = "y";
  bad[0].rename = "z";
  EXPECT_THAT(ds->AlterColumns(bad), IsErrorWith(StatusCode::kInvalid, "exists"));
  EXPECT_EQ(*ds->LatestVersion(), v);
}

TEST(SchemaEvolutionTest, CastRewritesColumnUnderNewId) {
  auto ds = ThreeFragments(UniqueMemoryUri());
  std::vector<ColumnAlteration> alter(1);
  alter[0].path = "id";
  alter[0].data_type = int32();
  ASSERT_OK(ds->AlterColumns(alter));
  EXPECT_EQ(LatestOp(*ds), ti::pb::Transaction::kMerge);
  EXPECT_EQ(ds->schema()->field(0)->type()->id(), TypeId::kInt32);
  EXPECT_EQ(FieldIds(*ds), (std::vector<int32_t>{3, 1, 2}));
  for (const auto& frag : ds->fragments()) EXPECT_EQ(frag.files.size(), 2u);
  EXPECT_EQ(*ds->CountRows("id * 2 = score * 4"), 30);
  // Casts across families are refused, as Lance does.
  alter[0].data_type = utf8();
  EXPECT_THAT(ds->AlterColumns(alter), IsErrorWith(StatusCode::kInvalid, "Cannot cast"));
  // A value that does not fit fails (Lance's cast is not "safe").
  ASSERT_OK(ds->Update({{"id", "100000"}}, "id = 1").status());
  alter[0].data_type = int8();
  EXPECT_THAT(ds->AlterColumns(alter), IsError(StatusCode::kInvalid));
}

// ---- conflicts
// -------------------------------------------------------------------------

TEST(SchemaEvolutionConflictTest, ProjectAndMergeAgainstOthers) {
  {
    // Drop planned before an append, an update and a delete: all compatible.
    const std::string uri = UniqueMemoryUri();
    auto a = ThreeFragments(uri);
    ASSERT_OK_AND_ASSIGN(auto b, Dataset::Open(uri));
    ASSERT_OK(WriteRows(uri, 100, 5, WriteParams{.mode = WriteMode::kAppend}).status());
    ASSERT_OK(a->Update({{"score", "1"}}, "id = 1").status());
    ASSERT_OK(a->Delete("id = 2"));
    ASSERT_OK(b->DropColumns({"name"}));
    EXPECT_EQ(b->schema()->num_fields(), 2);
    EXPECT_EQ(*b->CountRows(), 34);
    EXPECT_EQ(*b->CountRows("score = 1"), 1);
  }
  {
    // Append / update / delete planned before a drop: compatible too.
    const std::string uri = UniqueMemoryUri();
    auto a = ThreeFragments(uri);
    ASSERT_OK_AND_ASSIGN(auto b, Dataset::Open(uri));
    ASSERT_OK_AND_ASSIGN(auto c, Dataset::Open(uri));
    ASSERT_OK(a->DropColumns({"name"}));
    UpdateOptions no_retry;
    no_retry.retry.conflict_retries = 0;
    ASSERT_OK(b->Update({{"score", "1"}}, "id = 1", no_retry).status());
    ASSERT_OK(c->Delete("id = 25"));
    EXPECT_EQ(*c->CountRows(), 29);
    EXPECT_EQ(c->schema()->num_fields(), 2);
  }
  {
    // Two schema changes: the second is retryable (Project vs Project), Project vs
    // Merge retryable, Merge vs Project incompatible, Merge vs Append retryable.
    const std::string uri = UniqueMemoryUri();
    auto a = ThreeFragments(uri);
    ASSERT_OK_AND_ASSIGN(auto b, Dataset::Open(uri));
    ASSERT_OK_AND_ASSIGN(auto c, Dataset::Open(uri));
    ASSERT_OK(a->DropColumns({"name"}));
    Status st = b->DropColumns({"score"});
    ASSERT_THAT(st, IsError(StatusCode::kConflict));
    EXPECT_TRUE(st.retryable());
    st = c->AddColumns({{"x", "id"}});
    ASSERT_THAT(st, IsError(StatusCode::kConflict));
    EXPECT_FALSE(st.retryable());
  }
  {
    const std::string uri = UniqueMemoryUri();
    auto a = ThreeFragments(uri);
    ASSERT_OK_AND_ASSIGN(auto b, Dataset::Open(uri));
    ASSERT_OK_AND_ASSIGN(auto c, Dataset::Open(uri));
    ASSERT_OK(a->AddColumns({{"x", "id"}}));
    Status st = b->DropColumns({"name"});
    ASSERT_THAT(st, IsError(StatusCode::kConflict));
    EXPECT_TRUE(st.retryable());
    // An update planned before the Merge: retryable (Lance), and retried by default.
    UpdateOptions no_retry;
    no_retry.retry.conflict_retries = 0;
    auto r = c->Update({{"score", "1"}}, "id = 1", no_retry);
    ASSERT_THAT(r, IsError(StatusCode::kConflict));
    EXPECT_TRUE(r.status().retryable());
    ASSERT_OK(c->Update({{"score", "1"}}, "id = 1").status());
    EXPECT_EQ(*c->CountRows("x = id"), 30);
  }
  {
    const std::string uri = UniqueMemoryUri();
    auto a = ThreeFragments(uri);
    ASSERT_OK_AND_ASSIGN(auto b, Dataset::Open(uri));
    ASSERT_OK(WriteRows(uri, 100, 5, WriteParams{.mode = WriteMode::kAppend}).status());
    Status st = b->AddColumns({{"x", "id"}});
    ASSERT_THAT(st, IsError(StatusCode::kConflict));
    EXPECT_TRUE(st.retryable());
    EXPECT_EQ(*b->LatestVersion(), 2u);
  }
}

}  // namespace
}  // namespace lance
