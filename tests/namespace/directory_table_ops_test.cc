// SPDX-License-Identifier: Apache-2.0
// DirectoryNamespace table operations (directory_table_ops.cc and create / rename /
// list-all in directory_namespace.cc) in both layouts, on local and memory:// roots:
// Arrow IPC in and out, versions, tags, transactions and the spec's error kinds.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/buffer.h"
#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"
#include "lance/namespace/directory_namespace.h"
#include "tests/namespace/layout_fixture.h"
#include "tests/testing/matchers.h"
#include "tests/testing/python.h"
#include "tests/testing/temp_dir.h"

namespace lance::ns {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
namespace fs = std::filesystem;

using ::lance::testing::LayoutName;

MATCHER_P(FailsWithKind, kind, "fails with " + std::string(ErrorCodeName(kind))) {
  const Status& status = ::lance::testing::GetStatus(arg);
  if (status.ok()) {
    *result_listener << "which is OK";
    return false;
  }
  *result_listener << "which is " << status.ToString();
  return NamespaceErrorCode(status) == kind;
}

/// id: int64 not null, name: utf8, score: int32.
RecordBatchPtr Rows(const std::vector<int64_t>& ids, const std::string& prefix = "n",
                    int32_t score = 0) {
  Int64Builder id_builder;
  StringBuilder name_builder;
  Int32Builder score_builder;
  for (int64_t id : ids) {
    EXPECT_OK(id_builder.Append(id));
    EXPECT_OK(name_builder.Append(prefix + std::to_string(id)));
    EXPECT_OK(score_builder.Append(score));
  }
  auto s = schema(
      {field("id", int64(), false), field("name", utf8()), field("score", int32())});
  return RecordBatch::Make(s, static_cast<int64_t>(ids.size()),
                           std::vector<ArrayPtr>{id_builder.Finish().value(),
                                                 name_builder.Finish().value(),
                                                 score_builder.Finish().value()})
      .value();
}

std::string Ipc(const RecordBatchPtr& batch) {
  return std::string(ipc::WriteIpcStream(*batch).value()->ToStringView());
}

/// The query answer decoded: one batch.
RecordBatchPtr Decode(const std::string& bytes) {
  auto buffer = Buffer::CopyFrom(bytes.data(), static_cast<int64_t>(bytes.size()));
  EXPECT_THAT(buffer, IsOk());
  auto table = ipc::ReadIpcStream(*buffer);
  EXPECT_THAT(table, IsOk());
  return (*table)->CombineBatches().value();
}

std::vector<int64_t> Ids(const RecordBatchPtr& batch, const std::string& column = "id") {
  auto array = std::static_pointer_cast<Int64Array>(batch->GetColumnByName(column));
  std::vector<int64_t> out;
  for (int64_t i = 0; i < batch->num_rows(); ++i) out.push_back(array->Value(i));
  return out;
}

class TableOpsTest : public ::lance::testing::LayoutTest {
 protected:
  TableOpsTest() : LayoutTest("tableops") {}

  void SetUp() override {
    LayoutTest::SetUp();
    auto ns = DirectoryNamespace::FromProperties(
        {{"root", root_}, {"manifest_enabled", manifest() ? "true" : "false"}});
    ASSERT_THAT(ns, IsOk());
    ns_ = *ns;
  }

  /// Creates table `t` holding ids 1..3 (version 1).
  void CreateT() {
    ASSERT_OK_AND_ASSIGN(auto created,
                         ns_->CreateTable({.id = {"t"}}, Ipc(Rows({1, 2, 3}))));
    ASSERT_EQ(created.version, 1);
  }

  std::vector<int64_t> QueryIds(QueryTableRequest request) {
    auto bytes = ns_->QueryTable(request);
    EXPECT_THAT(bytes, IsOk());
    if (!bytes.ok()) return {};
    return Ids(Decode(*bytes));
  }

  int64_t Count(const std::string& predicate = "",
                std::optional<int64_t> version = std::nullopt) {
    CountTableRowsRequest request{.id = {"t"}, .version = version};
    if (!predicate.empty()) request.predicate = predicate;
    auto count = ns_->CountTableRows(request);
    EXPECT_THAT(count, IsOk());
    return count.ok() ? *count : -1;
  }

  std::shared_ptr<DirectoryNamespace> ns_;
};

INSTANTIATE_TEST_SUITE_P(Layouts, TableOpsTest,
                         ::testing::ValuesIn(::lance::testing::AllLayouts()), LayoutName);

// -- create_table
// -------------------------------------------------------------------------

TEST_P(TableOpsTest, CreateTableWritesVersionOneThatDatasetOpenReads) {
  ASSERT_OK_AND_ASSIGN(auto created,
                       ns_->CreateTable({.id = {"t"}}, Ipc(Rows({1, 2, 3}))));
  EXPECT_EQ(created.version, 1);
  ASSERT_TRUE(created.transaction_id.has_value());
  EXPECT_THAT(
      *created.transaction_id,
      MatchesRegex("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"));
  ASSERT_TRUE(created.location.has_value());

  // Python-free: the core opens what create_table wrote, at its directory.
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(root_ + "/t.lance"));
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(ds->CountRows().value_or(-1), 3);
  EXPECT_EQ(ds->schema()->field(0)->name(), "id");
  if (local()) {
    EXPECT_TRUE(fs::exists(root_ + "/t.lance/.lance-reserved"));
  }

  ASSERT_OK_AND_ASSIGN(auto described,
                       ns_->DescribeTable({.id = {"t"}, .load_detailed_metadata = true}));
  EXPECT_EQ(described.version, 1);
  EXPECT_EQ(described.is_only_declared, false);
  ASSERT_OK_AND_ASSIGN(auto listed, ns_->ListTables({}));
  EXPECT_THAT(listed.tables, ElementsAre("t"));
}

TEST_P(TableOpsTest, CreateTableModes) {
  CreateT();
  EXPECT_THAT(ns_->CreateTable({.id = {"t"}}, Ipc(Rows({9}))),
              FailsWithKind(ErrorCode::kTableAlreadyExists));
  EXPECT_THAT(ns_->CreateTable({.id = {"t"}, .mode = "CREATE"}, Ipc(Rows({9}))),
              FailsWithKind(ErrorCode::kTableAlreadyExists));
  // exist_ok: nothing written.
  ASSERT_OK_AND_ASSIGN(
      auto kept, ns_->CreateTable({.id = {"t"}, .mode = "exist_ok"}, Ipc(Rows({9}))));
  EXPECT_EQ(kept.version, 1);
  EXPECT_EQ(Count(), 3);
  // overwrite: a new version with only the new rows.
  ASSERT_OK_AND_ASSIGN(auto replaced, ns_->CreateTable({.id = {"t"}, .mode = "overwrite"},
                                                       Ipc(Rows({7, 8}))));
  EXPECT_EQ(replaced.version, 2);
  EXPECT_EQ(Count(), 2);
  // overwrite of a missing table creates it.
  ASSERT_OK_AND_ASSIGN(
      auto fresh, ns_->CreateTable({.id = {"u"}, .mode = "overwrite"}, Ipc(Rows({1}))));
  EXPECT_EQ(fresh.version, 1);
  EXPECT_THAT(ns_->CreateTable({.id = {"v"}, .mode = "replace"}, Ipc(Rows({1}))),
              FailsWithKind(ErrorCode::kInvalidInput));
}

TEST_P(TableOpsTest, CreateTableRefusesBadIpcWithoutDeclaring) {
  EXPECT_THAT(ns_->CreateTable({.id = {"t"}}, "not an arrow stream"),
              FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(ns_->CreateTable({.id = {"t"}}, ""),
              FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(ns_->TableExists({.id = {"t"}}), FailsWithKind(ErrorCode::kTableNotFound));
  EXPECT_THAT(ns_->CreateTable({.id = {}}, Ipc(Rows({1}))),
              FailsWithKind(ErrorCode::kInvalidInput));
}

TEST_P(TableOpsTest, CreateTableOverADeclaredTable) {
  ASSERT_OK(ns_->DeclareTable({.id = {"t"}}).status());
  EXPECT_THAT(ns_->CountTableRows({.id = {"t"}}),
              FailsWithKind(ErrorCode::kTableNotFound));
  ASSERT_OK_AND_ASSIGN(auto created, ns_->CreateTable({.id = {"t"}}, Ipc(Rows({1, 2}))));
  EXPECT_EQ(created.version, 1);
  EXPECT_EQ(Count(), 2);
  // insert_into_table on a declared table writes its first version.
  ASSERT_OK(ns_->DeclareTable({.id = {"d"}}).status());
  ASSERT_OK_AND_ASSIGN(auto inserted,
                       ns_->InsertIntoTable({.id = {"d"}}, Ipc(Rows({5, 6, 7}))));
  EXPECT_EQ(inserted.version, 1);
  EXPECT_EQ(ns_->CountTableRows({.id = {"d"}}).value_or(-1), 3);
}

TEST_P(TableOpsTest, CreateTableInChildNamespace) {
  const Identifier id = {"db", "t"};
  if (!manifest()) {
    EXPECT_THAT(ns_->CreateTable({.id = id}, Ipc(Rows({1}))),
                FailsWithKind(ErrorCode::kUnsupported));
    return;
  }
  ASSERT_OK(ns_->CreateNamespace({.id = {"db"}}).status());
  ASSERT_OK_AND_ASSIGN(auto created,
                       ns_->CreateTable({.id = id, .properties = Properties{{"k", "v"}}},
                                        Ipc(Rows({1, 2}))));
  EXPECT_EQ(created.version, 1);
  EXPECT_EQ(created.properties, (Properties{{"k", "v"}}));
  ASSERT_OK_AND_ASSIGN(auto described, ns_->DescribeTable({.id = id}));
  EXPECT_EQ(described.location, created.location);
  EXPECT_EQ(described.properties, (Properties{{"k", "v"}}));
  EXPECT_EQ(ns_->CountTableRows({.id = id}).value_or(-1), 2);
}

TEST_P(TableOpsTest, NamesThatLocationsPercentEncode) {
  // Lance would report "a%20table" in a manifest-layout location; the directory the
  // manifest layout allocates holds only plain characters ("<hex>_my_db$a_table"), so
  // the location reads the same to URL and literal readers, and every operation
  // reaches the data.
  Identifier id = {"a table"};
  if (manifest()) {
    ASSERT_OK(ns_->CreateNamespace({.id = {"my db"}}).status());
    id = {"my db", "a table"};
  }
  ASSERT_OK_AND_ASSIGN(auto created, ns_->CreateTable({.id = id}, Ipc(Rows({1, 2}))));
  if (manifest()) {
    EXPECT_THAT(*created.location, HasSubstr("_my_db$a_table"));
    EXPECT_THAT(*created.location, Not(HasSubstr("%")));
  }
  ASSERT_OK(ns_->InsertIntoTable({.id = id}, Ipc(Rows({3}))).status());
  EXPECT_EQ(ns_->CountTableRows({.id = id}).value_or(-1), 3);
  ASSERT_OK_AND_ASSIGN(auto described,
                       ns_->DescribeTable({.id = id, .load_detailed_metadata = true}));
  EXPECT_EQ(described.version, 2);
  ASSERT_OK_AND_ASSIGN(auto versions, ns_->ListTableVersions({.id = id}));
  EXPECT_EQ(versions.versions.size(), 2u);
}

TEST_P(TableOpsTest, RootTablesWithoutDirectoryListing) {
  auto ns = DirectoryNamespace::FromProperties(
      {{"root", root_},
       {"manifest_enabled", manifest() ? "true" : "false"},
       {"dir_listing_enabled", "false"}});
  ASSERT_THAT(ns, IsOk());
  ASSERT_OK_AND_ASSIGN(auto created,
                       (*ns)->CreateTable({.id = {"t"}}, Ipc(Rows({1, 2, 3}))));
  EXPECT_EQ((*ns)->CountTableRows({.id = {"t"}}).value_or(-1), 3);
  if (!manifest()) {
    // The plain layout always lists directories: `<root>/t.lance`.
    EXPECT_EQ(created.location, root_ + "/t.lance");
    EXPECT_THAT((*ns)->RenameTable({.id = {"t"}, .new_table_name = "u"}),
                FailsWithKind(ErrorCode::kUnsupported));
    return;
  }
  // A random `<hex>_t` directory, recorded in __manifest.
  EXPECT_THAT(*created.location, MatchesRegex(".*/[0-9a-f]{8}_t"));
  ASSERT_OK((*ns)->RenameTable({.id = {"t"}, .new_table_name = "u"}).status());
  EXPECT_EQ((*ns)->CountTableRows({.id = {"u"}}).value_or(-1), 3);
  ASSERT_OK_AND_ASSIGN(auto all, (*ns)->ListAllTables({}));
  EXPECT_THAT(all.tables, ElementsAre("u"));
}

TEST_P(TableOpsTest, ConcurrentCreatesOfOneTable) {
  constexpr int kThreads = 4;
  std::atomic<int> created{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      auto r = ns_->CreateTable({.id = {"t"}}, Ipc(Rows({i})));
      if (r.ok()) {
        ++created;
      } else if (NamespaceErrorCode(r.status()) == ErrorCode::kTableAlreadyExists) {
        ++refused;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(created.load(), 1);
  EXPECT_EQ(refused.load(), kThreads - 1);
  EXPECT_EQ(Count(), 1);
}

// -- Data
// ---------------------------------------------------------------------------------

TEST_P(TableOpsTest, InsertAppendOverwriteAndCount) {
  CreateT();
  ASSERT_OK_AND_ASSIGN(auto appended,
                       ns_->InsertIntoTable({.id = {"t"}}, Ipc(Rows({4, 5}))));
  EXPECT_EQ(appended.version, 2);
  EXPECT_EQ(appended.num_inserted_rows, 2);
  EXPECT_TRUE(appended.transaction_id.has_value());
  EXPECT_EQ(Count(), 5);
  EXPECT_EQ(Count("id > 2"), 3);
  EXPECT_EQ(Count("", 1), 3);

  ASSERT_OK_AND_ASSIGN(
      auto replaced,
      ns_->InsertIntoTable({.id = {"t"}, .mode = "Overwrite"}, Ipc(Rows({9}))));
  EXPECT_EQ(replaced.version, 3);
  EXPECT_EQ(Count(), 1);

  EXPECT_THAT(ns_->InsertIntoTable({.id = {"t"}, .mode = "upsert"}, Ipc(Rows({1}))),
              FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(ns_->InsertIntoTable({.id = {"t"}}, "garbage"),
              FailsWithKind(ErrorCode::kInvalidInput));
  // Another schema: InvalidInput from the core's append check.
  Int64Builder other;
  ASSERT_OK(other.Append(1));
  auto other_schema = schema({field("other", int64())});
  auto batch =
      RecordBatch::Make(other_schema, 1, std::vector<ArrayPtr>{other.Finish().value()});
  EXPECT_THAT(ns_->InsertIntoTable({.id = {"t"}}, Ipc(*batch)),
              FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(ns_->InsertIntoTable({.id = {"missing"}}, Ipc(Rows({1}))),
              FailsWithKind(ErrorCode::kTableNotFound));
  EXPECT_THAT(ns_->CountTableRows({.id = {"t"}, .predicate = "id >>> 1"}),
              FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(ns_->CountTableRows({.id = {"t"}, .version = 42}),
              FailsWithKind(ErrorCode::kTableVersionNotFound));
  EXPECT_THAT(ns_->CountTableRows({.id = {"t"}, .branch = "dev"}),
              FailsWithKind(ErrorCode::kUnsupported));
  EXPECT_EQ(ns_->CountTableRows({.id = {"t"}, .branch = "main"}).value_or(-1), 1);
}

TEST_P(TableOpsTest, MergeInsert) {
  CreateT();
  // ids 2, 3 match (updated), 4 is new (inserted); 1 is not in the source (deleted).
  ASSERT_OK_AND_ASSIGN(
      auto merged, ns_->MergeInsertIntoTable({.id = {"t"},
                                              .on = std::vector<std::string>{"id"},
                                              .when_matched_update_all = true,
                                              .when_not_matched_insert_all = true,
                                              .when_not_matched_by_source_delete = true,
                                              .timeout = "30s"},
                                             Ipc(Rows({2, 3, 4}, "m", 5))));
  EXPECT_EQ(merged.num_updated_rows, 2);
  EXPECT_EQ(merged.num_inserted_rows, 1);
  EXPECT_EQ(merged.num_deleted_rows, 1);
  EXPECT_EQ(merged.version, 2);
  EXPECT_TRUE(merged.transaction_id.has_value());
  EXPECT_EQ(Count(), 3);
  EXPECT_EQ(Count("score = 5"), 3);

  // Conditional update: only target rows with id > 3 change.
  ASSERT_OK_AND_ASSIGN(
      auto filtered,
      ns_->MergeInsertIntoTable({.id = {"t"},
                                 .on = std::vector<std::string>{"id"},
                                 .when_matched_update_all = true,
                                 .when_matched_update_all_filt = "target.id > 3"},
                                Ipc(Rows({2, 3, 4}, "f", 9))));
  EXPECT_EQ(filtered.num_updated_rows, 1);
  EXPECT_EQ(Count("score = 9"), 1);

  EXPECT_THAT(ns_->MergeInsertIntoTable({.id = {"t"}}, Ipc(Rows({1}))),
              FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(ns_->MergeInsertIntoTable(
                  {.id = {"t"}, .on = std::vector<std::string>{"nope"}}, Ipc(Rows({1}))),
              FailsWithKind(ErrorCode::kTableColumnNotFound));
  EXPECT_THAT(ns_->MergeInsertIntoTable(
                  {.id = {"t"}, .on = std::vector<std::string>{"id"}, .timeout = "soon"},
                  Ipc(Rows({1}))),
              FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(ns_->MergeInsertIntoTable(
                  {.id = {"t"}, .on = std::vector<std::string>{"id"}}, "bad"),
              FailsWithKind(ErrorCode::kInvalidInput));
}

TEST_P(TableOpsTest, DeleteAndUpdate) {
  CreateT();
  ASSERT_OK_AND_ASSIGN(auto deleted,
                       ns_->DeleteFromTable({.id = {"t"}, .predicate = "id = 1"}));
  EXPECT_EQ(deleted.version, 2);
  EXPECT_TRUE(deleted.transaction_id.has_value());
  EXPECT_EQ(Count(), 2);
  EXPECT_THAT(ns_->DeleteFromTable({.id = {"t"}, .predicate = ""}),
              FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(ns_->DeleteFromTable({.id = {"t"}, .predicate = "id ==="}),
              FailsWithKind(ErrorCode::kInvalidInput));

  ASSERT_OK_AND_ASSIGN(
      auto updated,
      ns_->UpdateTable(
          {.id = {"t"}, .predicate = "id = 3", .updates = {{"score", "score + 10"}}}));
  EXPECT_EQ(updated.updated_rows, 1);
  EXPECT_EQ(updated.version, 3);
  EXPECT_TRUE(updated.transaction_id.has_value());
  EXPECT_EQ(Count("score = 10"), 1);
  EXPECT_THAT(ns_->UpdateTable({.id = {"t"}, .updates = {{"score"}}}),
              FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(ns_->UpdateTable({.id = {"t"}, .updates = {}}),
              FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(ns_->UpdateTable({.id = {"t"}, .updates = {{"nope", "1"}}}),
              FailsWithKind(ErrorCode::kTableColumnNotFound));
  EXPECT_THAT(ns_->UpdateTable({.id = {"t"}, .updates = {{"score", "score +* 1"}}}),
              FailsWithKind(ErrorCode::kInvalidInput));
}

TEST_P(TableOpsTest, QueryAnswersArrowIpc) {
  CreateT();
  ASSERT_OK(ns_->InsertIntoTable({.id = {"t"}}, Ipc(Rows({4, 5, 6}))).status());
  EXPECT_THAT(QueryIds({.id = {"t"}}), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(QueryIds({.id = {"t"}, .filter = "id % 2 = 0"}), ElementsAre(2, 4, 6));
  EXPECT_THAT(QueryIds({.id = {"t"}, .k = 2, .offset = 1}), ElementsAre(2, 3));
  EXPECT_THAT(QueryIds({.id = {"t"}, .k = 0, .version = 1}), ElementsAre(1, 2, 3));
  // An empty vector is a plain scan.
  EXPECT_THAT(QueryIds({.id = {"t"},
                        .k = 1,
                        .vector = QueryTableRequestVector{.single_vector =
                                                              std::vector<double>{}}}),
              ElementsAre(1));

  // Projection and aliases.
  ASSERT_OK_AND_ASSIGN(
      auto projected,
      ns_->QueryTable({.id = {"t"},
                       .columns =
                           QueryTableRequestColumns{
                               .column_names = std::vector<std::string>{"id"},
                               .column_aliases = Properties{{"twice", "id * 2"}}},
                       .filter = "id = 3"}));
  auto batch = Decode(projected);
  ASSERT_EQ(batch->num_columns(), 2);
  EXPECT_EQ(batch->schema()->field(0)->name(), "id");
  EXPECT_EQ(batch->schema()->field(1)->name(), "twice");
  EXPECT_THAT(Ids(batch, "twice"), ElementsAre(6));

  ASSERT_OK_AND_ASSIGN(auto with_ids,
                       ns_->QueryTable({.id = {"t"}, .k = 1, .with_row_id = true}));
  EXPECT_NE(Decode(with_ids)->GetColumnByName("_rowid"), nullptr);

  EXPECT_THAT(ns_->QueryTable(
                  {.id = {"t"},
                   .k = 3,
                   .vector = QueryTableRequestVector{.single_vector =
                                                         std::vector<double>{1.0, 2.0}}}),
              FailsWithKind(ErrorCode::kUnsupported));
  EXPECT_THAT(ns_->QueryTable({.id = {"t"}, .filter = "id >"}),
              FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(
      ns_->QueryTable(
          {.id = {"t"},
           .columns = QueryTableRequestColumns{.column_names =
                                                   std::vector<std::string>{"nope"}}}),
      FailsWithKind(ErrorCode::kTableColumnNotFound));
  EXPECT_THAT(ns_->QueryTable({.id = {"t"}, .k = -1}),
              FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(ns_->QueryTable({.id = {"t"}, .branch = "b1"}),
              FailsWithKind(ErrorCode::kUnsupported));
  EXPECT_THAT(ns_->QueryTable({.id = {"nope"}}),
              FailsWithKind(ErrorCode::kTableNotFound));
}

// -- Schema
// -------------------------------------------------------------------------------

TEST_P(TableOpsTest, SchemaChanges) {
  CreateT();
  ASSERT_OK_AND_ASSIGN(
      auto added,
      ns_->AlterTableAddColumns(
          {.id = {"t"}, .new_columns = {{.name = "double_id", .expression = "id * 2"}}}));
  EXPECT_EQ(added.version, 2);
  EXPECT_EQ(Count("double_id = 4"), 1);
  EXPECT_THAT(ns_->AlterTableAddColumns({.id = {"t"}, .new_columns = {{.name = "x"}}}),
              FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(ns_->AlterTableAddColumns(
                  {.id = {"t"}, .new_columns = {{.name = "y", .expression = "id +"}}}),
              FailsWithKind(ErrorCode::kInvalidInput));

  // Cast int32 -> int64 (within the integer family), rename, nullability.
  ASSERT_OK_AND_ASSIGN(
      auto altered, ns_->AlterTableAlterColumns(
                        {.id = {"t"},
                         .alterations = {{.path = "score",
                                          .data_type = JsonValue{R"({"type":"int64"})"}},
                                         {.path = "name", .rename = "label"}}}));
  EXPECT_EQ(altered.version, 3);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(root_ + "/t.lance"));
  EXPECT_TRUE(ds->schema()->GetFieldByName("score")->type()->Equals(*int64()));
  EXPECT_NE(ds->schema()->GetFieldByName("label"), nullptr);
  EXPECT_THAT(
      ns_->AlterTableAlterColumns(
          {.id = {"t"},
           .alterations = {{.path = "score", .data_type = JsonValue{"{\"t\":1}"}}}}),
      FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(
      ns_->AlterTableAlterColumns(
          {.id = {"t"},
           .alterations = {{.path = "score",
                            .data_type = JsonValue{R"({"type":"quaternion"})"}}}}),
      FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(ns_->AlterTableAlterColumns(
                  {.id = {"t"}, .alterations = {{.path = "gone", .rename = "x"}}}),
              FailsWithKind(ErrorCode::kTableColumnNotFound));

  ASSERT_OK_AND_ASSIGN(
      auto dropped, ns_->AlterTableDropColumns({.id = {"t"}, .columns = {"double_id"}}));
  EXPECT_EQ(dropped.version, 4);
  EXPECT_TRUE(dropped.transaction_id.has_value());
  EXPECT_THAT(ns_->AlterTableDropColumns({.id = {"t"}, .columns = {"double_id"}}),
              FailsWithKind(ErrorCode::kTableColumnNotFound));

  ASSERT_OK_AND_ASSIGN(auto meta, ns_->UpdateTableSchemaMetadata(
                                      {.id = {"t"}, .metadata = Properties{{"a", "1"}}}));
  EXPECT_EQ(meta.metadata, (Properties{{"a", "1"}}));
  ASSERT_OK_AND_ASSIGN(meta, ns_->UpdateTableSchemaMetadata(
                                 {.id = {"t"}, .metadata = Properties{{"b", "2"}}}));
  EXPECT_EQ(meta.metadata, (Properties{{"a", "1"}, {"b", "2"}}));
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(root_ + "/t.lance"));
  EXPECT_EQ(ds->schema()->metadata().size(), 2u);
}

TEST_P(TableOpsTest, TableStats) {
  CreateT();
  ASSERT_OK(ns_->InsertIntoTable({.id = {"t"}}, Ipc(Rows({4, 5}))).status());
  ASSERT_OK(ns_->DeleteFromTable({.id = {"t"}, .predicate = "id = 1"}).status());
  ASSERT_OK_AND_ASSIGN(auto stats, ns_->GetTableStats({.id = {"t"}}));
  EXPECT_EQ(stats.num_rows, 4);
  EXPECT_EQ(stats.num_indices, 0);
  EXPECT_GT(stats.total_bytes, 0);
  EXPECT_EQ(stats.fragment_stats.num_fragments, 2);
  EXPECT_EQ(stats.fragment_stats.num_small_fragments, 2);
  EXPECT_EQ(stats.fragment_stats.lengths.min, 2);
  EXPECT_EQ(stats.fragment_stats.lengths.max, 2);
  EXPECT_EQ(stats.fragment_stats.lengths.mean, 2);
}

// -- Versions, tags, transactions
// -----------------------------------------------------------

TEST_P(TableOpsTest, VersionsAndRestore) {
  CreateT();
  ASSERT_OK(ns_->InsertIntoTable({.id = {"t"}}, Ipc(Rows({4}))).status());
  ASSERT_OK(ns_->InsertIntoTable({.id = {"t"}}, Ipc(Rows({5}))).status());
  ASSERT_OK_AND_ASSIGN(auto all, ns_->ListTableVersions({.id = {"t"}}));
  ASSERT_EQ(all.versions.size(), 3u);
  EXPECT_EQ(all.versions[0].version, 1);
  EXPECT_EQ(all.versions[2].version, 3);
  EXPECT_THAT(all.versions[0].manifest_path, MatchesRegex("_versions/[0-9]+\\.manifest"));
  EXPECT_GT(all.versions[0].manifest_size.value_or(0), 0);
  EXPECT_GT(all.versions[0].timestamp_millis.value_or(0), 0);
  EXPECT_EQ(all.versions[2].metadata->at("total_rows"), "5");
  EXPECT_FALSE(all.page_token.has_value());

  ASSERT_OK_AND_ASSIGN(
      auto page, ns_->ListTableVersions({.id = {"t"}, .limit = 2, .descending = true}));
  ASSERT_EQ(page.versions.size(), 2u);
  EXPECT_EQ(page.versions[0].version, 3);
  EXPECT_EQ(page.versions[1].version, 2);
  ASSERT_EQ(page.page_token, "2");
  ASSERT_OK_AND_ASSIGN(
      auto rest,
      ns_->ListTableVersions(
          {.id = {"t"}, .page_token = page.page_token, .limit = 2, .descending = true}));
  ASSERT_EQ(rest.versions.size(), 1u);
  EXPECT_EQ(rest.versions[0].version, 1);
  EXPECT_FALSE(rest.page_token.has_value());

  ASSERT_OK_AND_ASSIGN(auto latest, ns_->DescribeTableVersion({.id = {"t"}}));
  EXPECT_EQ(latest.version.version, 3);
  ASSERT_OK_AND_ASSIGN(auto first,
                       ns_->DescribeTableVersion({.id = {"t"}, .version = 1}));
  EXPECT_EQ(first.version.version, 1);
  EXPECT_EQ(first.version.manifest_path, all.versions[0].manifest_path);
  EXPECT_THAT(ns_->DescribeTableVersion({.id = {"t"}, .version = 9}),
              FailsWithKind(ErrorCode::kTableVersionNotFound));

  ASSERT_OK_AND_ASSIGN(auto restored, ns_->RestoreTable({.id = {"t"}, .version = 1}));
  EXPECT_TRUE(restored.transaction_id.has_value());
  EXPECT_EQ(Count(), 3);
  ASSERT_OK_AND_ASSIGN(latest, ns_->DescribeTableVersion({.id = {"t"}}));
  EXPECT_EQ(latest.version.version, 4);
  EXPECT_THAT(ns_->RestoreTable({.id = {"t"}, .version = 99}),
              FailsWithKind(ErrorCode::kTableVersionNotFound));
}

TEST_P(TableOpsTest, Tags) {
  CreateT();
  ASSERT_OK(ns_->InsertIntoTable({.id = {"t"}}, Ipc(Rows({4}))).status());
  ASSERT_OK(ns_->CreateTableTag({.id = {"t"}, .tag = "first", .version = 1}).status());
  ASSERT_OK(ns_->CreateTableTag({.id = {"t"}, .tag = "second", .version = 2}).status());
  EXPECT_THAT(ns_->CreateTableTag({.id = {"t"}, .tag = "first", .version = 2}),
              FailsWithKind(ErrorCode::kTableTagAlreadyExists));
  EXPECT_THAT(ns_->CreateTableTag({.id = {"t"}, .tag = "far", .version = 7}),
              FailsWithKind(ErrorCode::kTableVersionNotFound));

  ASSERT_OK_AND_ASSIGN(auto tags, ns_->ListTableTags({.id = {"t"}}));
  ASSERT_EQ(tags.tags.size(), 2u);
  EXPECT_EQ(tags.tags.at("first").version, 1);
  EXPECT_GT(tags.tags.at("first").manifest_size, 0);
  ASSERT_OK_AND_ASSIGN(auto page, ns_->ListTableTags({.id = {"t"}, .limit = 1}));
  ASSERT_EQ(page.tags.size(), 1u);
  EXPECT_TRUE(page.tags.contains("first"));
  EXPECT_EQ(page.page_token, "first");

  ASSERT_OK_AND_ASSIGN(auto got, ns_->GetTableTagVersion({.id = {"t"}, .tag = "second"}));
  EXPECT_EQ(got.version, 2);
  ASSERT_OK(ns_->UpdateTableTag({.id = {"t"}, .tag = "second", .version = 1}).status());
  ASSERT_OK_AND_ASSIGN(got, ns_->GetTableTagVersion({.id = {"t"}, .tag = "second"}));
  EXPECT_EQ(got.version, 1);
  EXPECT_THAT(ns_->UpdateTableTag({.id = {"t"}, .tag = "nope", .version = 1}),
              FailsWithKind(ErrorCode::kTableTagNotFound));
  EXPECT_THAT(ns_->UpdateTableTag({.id = {"t"}, .tag = "second", .version = 8}),
              FailsWithKind(ErrorCode::kTableVersionNotFound));

  ASSERT_OK(ns_->DeleteTableTag({.id = {"t"}, .tag = "first"}).status());
  EXPECT_THAT(ns_->DeleteTableTag({.id = {"t"}, .tag = "first"}),
              FailsWithKind(ErrorCode::kTableTagNotFound));
  EXPECT_THAT(ns_->GetTableTagVersion({.id = {"t"}, .tag = "first"}),
              FailsWithKind(ErrorCode::kTableTagNotFound));
  // A tagged version can be read by number.
  EXPECT_EQ(Count("", 1), 3);
}

TEST_P(TableOpsTest, DescribeTransaction) {
  ASSERT_OK_AND_ASSIGN(auto created, ns_->CreateTable({.id = {"t"}}, Ipc(Rows({1, 2}))));
  ASSERT_OK_AND_ASSIGN(auto appended,
                       ns_->InsertIntoTable({.id = {"t"}}, Ipc(Rows({3}))));
  ASSERT_OK_AND_ASSIGN(auto deleted,
                       ns_->DeleteFromTable({.id = {"t"}, .predicate = "id = 1"}));
  ASSERT_TRUE(created.transaction_id && appended.transaction_id &&
              deleted.transaction_id);
  EXPECT_NE(*created.transaction_id, *appended.transaction_id);

  ASSERT_OK_AND_ASSIGN(auto txn,
                       ns_->DescribeTransaction({.id = {"t", *appended.transaction_id}}));
  EXPECT_EQ(txn.status, "SUCCEEDED");
  ASSERT_TRUE(txn.properties.has_value());
  EXPECT_EQ(txn.properties->at("operation"), "Append");
  EXPECT_EQ(txn.properties->at("read_version"), "1");
  EXPECT_EQ(txn.properties->at("version"), "2");
  EXPECT_EQ(txn.properties->at("uuid"), *appended.transaction_id);

  ASSERT_OK_AND_ASSIGN(txn,
                       ns_->DescribeTransaction({.id = {"t", *created.transaction_id}}));
  EXPECT_EQ(txn.properties->at("operation"), "Overwrite");
  EXPECT_EQ(txn.properties->at("version"), "1");
  ASSERT_OK_AND_ASSIGN(txn,
                       ns_->DescribeTransaction({.id = {"t", *deleted.transaction_id}}));
  EXPECT_EQ(txn.properties->at("operation"), "Delete");
  EXPECT_EQ(txn.properties->at("version"), "3");

  EXPECT_THAT(
      ns_->DescribeTransaction({.id = {"t", "00000000-0000-0000-0000-000000000000"}}),
      FailsWithKind(ErrorCode::kTransactionNotFound));
  EXPECT_THAT(ns_->DescribeTransaction({.id = {"t"}}),
              FailsWithKind(ErrorCode::kInvalidInput));
  EXPECT_THAT(ns_->DescribeTransaction({.id = {"nope", *created.transaction_id}}),
              FailsWithKind(ErrorCode::kTableNotFound));
}

// -- rename_table, list_all_tables
// ---------------------------------------------------------

TEST_P(TableOpsTest, RenameTable) {
  CreateT();
  if (!manifest()) {
    EXPECT_THAT(ns_->RenameTable({.id = {"t"}, .new_table_name = "u"}),
                FailsWithKind(ErrorCode::kUnsupported));
    return;
  }
  ASSERT_OK_AND_ASSIGN(auto before, ns_->DescribeTable({.id = {"t"}}));
  ASSERT_OK(ns_->RenameTable({.id = {"t"}, .new_table_name = "u"}).status());
  EXPECT_THAT(ns_->TableExists({.id = {"t"}}), FailsWithKind(ErrorCode::kTableNotFound));
  ASSERT_OK_AND_ASSIGN(auto after, ns_->DescribeTable({.id = {"u"}}));
  // The data stays where it was.
  EXPECT_THAT(*after.location, HasSubstr("t.lance"));
  EXPECT_EQ(ns_->CountTableRows({.id = {"u"}}).value_or(-1), 3);
  ASSERT_OK_AND_ASSIGN(auto listed, ns_->ListTables({}));
  EXPECT_THAT(listed.tables, ElementsAre("u"));
  (void)before;

  // Into another namespace.
  ASSERT_OK(ns_->CreateNamespace({.id = {"db"}}).status());
  ASSERT_OK(
      ns_->RenameTable(
             {.id = {"u"}, .new_table_name = "w", .new_namespace_id = Identifier{"db"}})
          .status());
  EXPECT_EQ(ns_->CountTableRows({.id = {"db", "w"}}).value_or(-1), 3);
  ASSERT_OK_AND_ASSIGN(listed, ns_->ListTables({.id = {"db"}}));
  EXPECT_THAT(listed.tables, ElementsAre("w"));
  ASSERT_OK(ns_->InsertIntoTable({.id = {"db", "w"}}, Ipc(Rows({4}))).status());
  EXPECT_EQ(ns_->CountTableRows({.id = {"db", "w"}}).value_or(-1), 4);

  // Errors.
  ASSERT_OK(ns_->CreateTable({.id = {"x"}}, Ipc(Rows({1}))).status());
  EXPECT_THAT(
      ns_->RenameTable(
          {.id = {"x"}, .new_table_name = "w", .new_namespace_id = Identifier{"db"}}),
      FailsWithKind(ErrorCode::kTableAlreadyExists));
  EXPECT_THAT(ns_->RenameTable({.id = {"x"},
                                .new_table_name = "y",
                                .new_namespace_id = Identifier{"nowhere"}}),
              FailsWithKind(ErrorCode::kNamespaceNotFound));
  EXPECT_THAT(ns_->RenameTable({.id = {"gone"}, .new_table_name = "y"}),
              FailsWithKind(ErrorCode::kTableNotFound));
  EXPECT_THAT(ns_->RenameTable({.id = {"x"}, .new_table_name = ""}),
              FailsWithKind(ErrorCode::kInvalidInput));
  // Dropping the renamed table removes its data.
  ASSERT_OK(ns_->DropTable({.id = {"db", "w"}}).status());
  if (local()) {
    EXPECT_FALSE(fs::exists(root_ + "/t.lance/_versions"));
  }
}

TEST_P(TableOpsTest, ListAllTables) {
  ASSERT_OK(ns_->CreateTable({.id = {"b"}}, Ipc(Rows({1}))).status());
  ASSERT_OK(ns_->CreateTable({.id = {"a"}}, Ipc(Rows({1}))).status());
  ASSERT_OK(ns_->DeclareTable({.id = {"c"}}).status());
  if (manifest()) {
    ASSERT_OK(ns_->CreateNamespace({.id = {"db"}}).status());
    ASSERT_OK(ns_->CreateNamespace({.id = {"db", "inner"}}).status());
    ASSERT_OK(ns_->CreateTable({.id = {"db", "t"}}, Ipc(Rows({1}))).status());
    ASSERT_OK(ns_->DeclareTable({.id = {"db", "inner", "t"}}).status());
  }
  ASSERT_OK_AND_ASSIGN(auto all, ns_->ListAllTables({}));
  if (manifest()) {
    EXPECT_THAT(all.tables, ElementsAre("a", "b", "c", "db$inner$t", "db$t"));
  } else {
    EXPECT_THAT(all.tables, ElementsAre("a", "b", "c"));
  }
  ASSERT_OK_AND_ASSIGN(auto page, ns_->ListAllTables({.limit = 2}));
  EXPECT_THAT(page.tables, ElementsAre("a", "b"));
  ASSERT_EQ(page.page_token, "b");
  ASSERT_OK_AND_ASSIGN(auto next, ns_->ListAllTables({.page_token = "b", .limit = 2}));
  const std::vector<std::string> expected =
      manifest() ? std::vector<std::string>{"c", "db$inner$t"}
                 : std::vector<std::string>{"c"};
  EXPECT_EQ(next.tables, expected);
}

// -- Cross-check with pylance 14: transaction ids
// ----------------------------------------------

using ::lance::testing::RunPython;

TEST(TableOpsPylanceTest, TransactionIdsAgreeWithPylance) {
  lance::testing::TempDir tmp;
  const std::string root = tmp.Join("ns");
  ASSERT_OK_AND_ASSIGN(auto ns, DirectoryNamespace::FromProperties({{"root", root}}));
  // Ours, seen by pylance.
  ASSERT_OK_AND_ASSIGN(auto created, ns->CreateTable({.id = {"t"}}, Ipc(Rows({1, 2}))));
  ASSERT_OK_AND_ASSIGN(auto appended, ns->InsertIntoTable({.id = {"t"}}, Ipc(Rows({3}))));
  // Pylance's, seen by us: p.lance created with 2 rows, then 1 appended.
  const std::string script =
      "import sys, lance, pyarrow as pa\n"
      "root = sys.argv[1]\n"
      "ours = lance.dataset(root + '/t.lance').get_transactions()\n"
      "print('ours', ' '.join(sorted(t.uuid for t in ours)))\n"
      "lance.write_dataset(pa.table({'a': [1, 2]}), root + '/p.lance')\n"
      "ds = lance.write_dataset(pa.table({'a': [3]}), root + '/p.lance', mode='append')\n"
      "for t in ds.get_transactions():\n"
      "    print('theirs', t.read_version, t.uuid, type(t.operation).__name__)\n";
  std::string output;
  ASSERT_EQ(RunPython({"-c", script, root}, &output), 0) << output;

  std::vector<std::string> expected = {*created.transaction_id, *appended.transaction_id};
  std::sort(expected.begin(), expected.end());
  EXPECT_THAT(output, HasSubstr("ours " + expected[0] + " " + expected[1]));

  int checked = 0;
  std::istringstream lines(output);
  std::string tag;
  while (lines >> tag) {
    if (tag != "theirs") continue;
    int64_t read_version = 0;
    std::string uuid;
    std::string operation;
    lines >> read_version >> uuid >> operation;
    ASSERT_OK_AND_ASSIGN(auto txn, ns->DescribeTransaction({.id = {"p", uuid}}));
    EXPECT_EQ(txn.status, "SUCCEEDED");
    EXPECT_EQ(txn.properties->at("read_version"), std::to_string(read_version));
    EXPECT_EQ(txn.properties->at("version"), std::to_string(read_version + 1));
    EXPECT_EQ(txn.properties->at("operation"), operation);
    ++checked;
  }
  EXPECT_EQ(checked, 2) << output;
  ASSERT_OK_AND_ASSIGN(auto versions, ns->ListTableVersions({.id = {"p"}}));
  EXPECT_EQ(versions.versions.size(), 2u);
  EXPECT_EQ(ns->CountTableRows({.id = {"p"}}).value_or(-1), 3);
}

// Tables written by Lance 8.0.0 (LanceDB-node, tests/data/lance-8.0.0), read-only: a
// plain-layout namespace on that directory writes nothing.
TEST(TableOpsLance8Test, VersionsAndTransactionsOfRealLanceTables) {
  ASSERT_OK_AND_ASSIGN(auto ns,
                       DirectoryNamespace::FromProperties(
                           {{"root", std::string(LANCE_TEST_DATA_DIR) + "/lance-8.0.0"},
                            {"manifest_enabled", "false"}}));
  struct Case {
    std::string table;
    std::string last_uuid;
    std::string manifest_path;
  };
  for (const Case& c : {Case{"basic_v20_v1names", "e068b787-3a53-401f-a542-4865bf15428f",
                             "_versions/3.manifest"},
                        Case{"basic_v20_v2names", "35a895a8-33c3-45b6-bba4-bdf3c4842478",
                             "_versions/18446744073709551612.manifest"}}) {
    SCOPED_TRACE(c.table);
    ASSERT_OK_AND_ASSIGN(auto versions, ns->ListTableVersions({.id = {c.table}}));
    ASSERT_EQ(versions.versions.size(), 3u);
    EXPECT_EQ(versions.versions[2].version, 3);
    EXPECT_EQ(versions.versions[2].manifest_path, c.manifest_path);
    ASSERT_OK_AND_ASSIGN(auto txn,
                         ns->DescribeTransaction({.id = {c.table, c.last_uuid}}));
    EXPECT_EQ(txn.status, "SUCCEEDED");
    EXPECT_EQ(txn.properties->at("read_version"), "2");
    EXPECT_EQ(txn.properties->at("version"), "3");
    EXPECT_EQ(txn.properties->at("operation"), "Delete");
  }
}

}  // namespace
}  // namespace lance::ns
