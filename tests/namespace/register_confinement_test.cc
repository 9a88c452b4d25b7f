// SPDX-License-Identifier: Apache-2.0
// register_table locations are confined, and drop_table deletes only what the namespace
// owns (issue 28, point 1): a registration can name neither the catalog (`__manifest`)
// nor a place outside the root, nor the directory of another table, one inside it or one
// above it, nor a location a policy would read as a pattern; dropping a registered table
// removes its row and leaves its data, while dropping a declared or created table
// deletes its directory. On a local root in the manifest layout (the only layout with
// register_table).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/namespace/dataset_ops.h"
#include "lance/namespace/directory_namespace.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance::ns {
namespace {

using ::lance::testing::IsOk;
namespace fs = std::filesystem;

// `rows` rows of one int64 column "x" = 0..rows-1.
std::unique_ptr<RecordBatchReader> Rows(int64_t rows) {
  Int64Builder b;
  for (int64_t i = 0; i < rows; ++i) EXPECT_OK(b.Append(i));
  auto s = schema({field("x", int64(), false)});
  auto batch =
      RecordBatch::Make(s, rows, std::vector<ArrayPtr>{b.Finish().value()}).value();
  return RecordBatchReader::FromBatches(s, std::vector<RecordBatchPtr>{batch});
}

int64_t CountRowsAt(const std::string& uri) {
  auto ds = Dataset::Open(uri);
  EXPECT_THAT(ds, IsOk()) << uri;
  if (!ds.ok()) return -1;
  auto rows = (*ds)->CountRows();
  EXPECT_THAT(rows, IsOk()) << uri;
  return rows.ok() ? *rows : -1;
}

// Regular files below `dir` (0 when it does not exist): a store may leave empty
// directories behind a delete.
int FilesUnder(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return 0;
  int n = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
    if (entry.is_regular_file()) ++n;
  }
  return n;
}

class RegisterConfinementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.Join("lake");
    ASSERT_OK_AND_ASSIGN(ns_, DirectoryNamespace::FromProperties({{"root", root_}}));
    // A root table in `t.lance`, a nested one in an allocated directory, and a dataset
    // someone wrote elsewhere under the root.
    ASSERT_OK(WriteDataset(*Rows(3), ns_, {"t"}).status());
    ASSERT_OK(ns_->CreateNamespace({.id = {"team"}}).status());
    ASSERT_OK(WriteDataset(*Rows(4), ns_, {"team", "n"}).status());
    ASSERT_OK_AND_ASSIGN(auto nested, ns_->DescribeTable({.id = {"team", "n"}}));
    ASSERT_TRUE(nested.location.has_value());
    const std::string root_url = "file://" + root_ + "/";
    ASSERT_EQ(nested.location->rfind(root_url, 0), 0u) << *nested.location;
    nested_dir_ = nested.location->substr(root_url.size());
    ASSERT_FALSE(nested_dir_.empty());
    ASSERT_EQ(nested_dir_.find('/'), std::string::npos) << nested_dir_;
    ASSERT_TRUE(fs::exists(root_ + "/" + nested_dir_ + "/_versions"));
    ASSERT_OK(Dataset::Write(*Rows(5), root_ + "/elsewhere/ext").status());
  }

  // Registering `location` is InvalidInput and leaves no row behind.
  void ExpectRefused(const std::string& location, const std::string& id) {
    SCOPED_TRACE("register_table location " + ::testing::PrintToString(location));
    auto registered = ns_->RegisterTable({.id = {id}, .location = location});
    ASSERT_FALSE(registered.ok()) << "accepted";
    EXPECT_EQ(NamespaceErrorCode(registered.status()), ErrorCode::kInvalidInput)
        << registered.status();
    auto described = ns_->DescribeTable({.id = {id}});
    EXPECT_EQ(NamespaceErrorCode(described.status()), ErrorCode::kTableNotFound)
        << described.status();
  }

  // Every table of SetUp still reads, and the catalog still opens.
  void ExpectTablesIntact() {
    EXPECT_EQ(CountRowsAt(root_ + "/t.lance"), 3);
    EXPECT_EQ(CountRowsAt(root_ + "/" + nested_dir_), 4);
    EXPECT_EQ(CountRowsAt(root_ + "/elsewhere/ext"), 5);
    EXPECT_THAT(Dataset::Open(root_ + "/__manifest"), IsOk());
    ASSERT_OK_AND_ASSIGN(auto t, OpenDataset(ns_, {"t"}));
    EXPECT_EQ(t->CountRows().value(), 3);
    ASSERT_OK_AND_ASSIGN(auto n, OpenDataset(ns_, {"team", "n"}));
    EXPECT_EQ(n->CountRows().value(), 4);
  }

  lance::testing::TempDir tmp_;
  std::string root_;
  std::shared_ptr<DirectoryNamespace> ns_;
  std::string nested_dir_;  // the allocated directory of team/n, relative to the root
};

TEST_F(RegisterConfinementTest, RefusesTheCatalogOutsidePlacesAndPatterns) {
  const std::vector<std::string> refused = {
      // The catalog, however spelled.
      "__manifest", "__manifest/", "__manifest/x", "./__manifest", "__manifest//data",
      "./__manifest/_versions",
      // The root itself, or outside it.
      "", ".", "./", "/", "//", "..", "../outside", "a/../b", "elsewhere/../t.lance",
      "elsewhere/ext/..", "/abs", root_ + "/elsewhere/ext", "s3://x/y", "file:///tmp/x",
      "memory://m/x",
      // Characters a policy reads as patterns.
      "*", "a*", "b?c", "x${aws:username}", std::string("a\001b")};
  int n = 0;
  for (const std::string& location : refused)
    ExpectRefused(location, "r" + std::to_string(n++));
  ExpectTablesIntact();
}

TEST_F(RegisterConfinementTest, RefusesAnotherTablesDirectoryInsideOrAboveIt) {
  // The first registration is valid; the rest overlap a table.
  ASSERT_OK(ns_->RegisterTable({.id = {"ext"}, .location = "elsewhere/ext"}).status());
  const std::vector<std::string> refused = {
      // Equal to a table's directory (a root table, an allocated one, a registered one).
      "t.lance", "t.lance/", "./t.lance", "t.lance//", nested_dir_, nested_dir_ + "/",
      "./" + nested_dir_, "elsewhere/ext", "elsewhere//ext/", "./elsewhere/./ext",
      // Inside one.
      "t.lance/data", "t.lance/_versions", nested_dir_ + "/sub", "elsewhere/ext/inner",
      // Above one.
      "elsewhere", "elsewhere/", "./elsewhere"};
  int n = 0;
  for (const std::string& location : refused)
    ExpectRefused(location, "o" + std::to_string(n++));
  ExpectTablesIntact();
  // A nested id is held to the same rules.
  auto nested = ns_->RegisterTable({.id = {"team", "copy"}, .location = "t.lance"});
  EXPECT_EQ(NamespaceErrorCode(nested.status()), ErrorCode::kInvalidInput)
      << nested.status();
  // A sibling whose name only starts like a table's directory is not inside it.
  ASSERT_OK(Dataset::Write(*Rows(2), root_ + "/t.lance2").status());
  ASSERT_OK(Dataset::Write(*Rows(2), root_ + "/elsewhere/ext2").status());
  EXPECT_OK(ns_->RegisterTable({.id = {"sib1"}, .location = "t.lance2"}).status());
  EXPECT_OK(ns_->RegisterTable({.id = {"sib2"}, .location = "elsewhere/ext2"}).status());
}

TEST_F(RegisterConfinementTest, RegisteredTableReadsAndItsDropKeepsTheData) {
  ASSERT_OK_AND_ASSIGN(auto registered,
                       ns_->RegisterTable({.id = {"ext"}, .location = "elsewhere/ext"}));
  EXPECT_EQ(registered.location, "elsewhere/ext");
  ASSERT_OK_AND_ASSIGN(auto described, ns_->DescribeTable({.id = {"ext"}}));
  EXPECT_EQ(described.location, "file://" + root_ + "/elsewhere/ext");
  // No vendor: the namespace hands out none of its own options.
  EXPECT_FALSE(described.storage_options.has_value());
  ASSERT_OK_AND_ASSIGN(auto opened, OpenDataset(ns_, {"ext"}));
  EXPECT_EQ(opened->CountRows().value(), 5);

  // A spelled-out location is stored normalized.
  ASSERT_OK(Dataset::Write(*Rows(6), root_ + "/other/place").status());
  ASSERT_OK(ns_->RegisterTable({.id = {"team", "placed"}, .location = "other//./place/"})
                .status());
  ASSERT_OK_AND_ASSIGN(auto placed, ns_->DescribeTable({.id = {"team", "placed"}}));
  EXPECT_EQ(placed.location, "file://" + root_ + "/other/place");
  ASSERT_OK_AND_ASSIGN(auto placed_ds, OpenDataset(ns_, {"team", "placed"}));
  EXPECT_EQ(placed_ds->CountRows().value(), 6);

  // Dropping a registration removes the row only.
  ASSERT_OK(ns_->DropTable({.id = {"ext"}}).status());
  EXPECT_EQ(NamespaceErrorCode(ns_->DescribeTable({.id = {"ext"}}).status()),
            ErrorCode::kTableNotFound);
  EXPECT_GT(FilesUnder(root_ + "/elsewhere/ext"), 1);
  EXPECT_EQ(CountRowsAt(root_ + "/elsewhere/ext"), 5);
  ASSERT_OK(ns_->DropTable({.id = {"team", "placed"}}).status());
  EXPECT_EQ(CountRowsAt(root_ + "/other/place"), 6);
  // The data can be registered again once its row is gone.
  EXPECT_OK(ns_->RegisterTable({.id = {"ext"}, .location = "elsewhere/ext"}).status());
  ExpectTablesIntact();
}

TEST_F(RegisterConfinementTest, DropDeletesTheDirectoriesTheNamespaceMade) {
  ASSERT_GT(FilesUnder(root_ + "/t.lance"), 1);
  ASSERT_OK(ns_->DropTable({.id = {"t"}}).status());
  EXPECT_EQ(FilesUnder(root_ + "/t.lance"), 0);
  ASSERT_GT(FilesUnder(root_ + "/" + nested_dir_), 1);
  ASSERT_OK(ns_->DropTable({.id = {"team", "n"}}).status());
  EXPECT_EQ(FilesUnder(root_ + "/" + nested_dir_), 0);
  // A declared table without data: its directory (the marker) goes too.
  ASSERT_OK_AND_ASSIGN(auto declared, ns_->DeclareTable({.id = {"team", "d"}}));
  ASSERT_TRUE(declared.location.has_value());
  const std::string declared_dir =
      declared.location->substr(std::string("file://").size());
  ASSERT_EQ(FilesUnder(declared_dir), 1);
  ASSERT_OK(ns_->DropTable({.id = {"team", "d"}}).status());
  EXPECT_EQ(FilesUnder(declared_dir), 0);
  // A table the namespace allocated, deregistered and registered back: registered now,
  // so a drop leaves its data (whoever registered it may not own it any more).
  ASSERT_OK(WriteDataset(*Rows(2), ns_, {"team", "m"}).status());
  ASSERT_OK_AND_ASSIGN(auto m, ns_->DescribeTable({.id = {"team", "m"}}));
  const std::string m_dir =
      m.location->substr(std::string("file://" + root_ + "/").size());
  ASSERT_OK(ns_->DeregisterTable({.id = {"team", "m"}}).status());
  ASSERT_OK(ns_->RegisterTable({.id = {"team", "m"}, .location = m_dir}).status());
  const int files = FilesUnder(root_ + "/" + m_dir);
  ASSERT_GT(files, 1);
  // The mark survives a rename and never shows among the properties.
  ASSERT_OK(ns_->RenameTable({.id = {"team", "m"}, .new_table_name = "m2"}).status());
  ASSERT_OK_AND_ASSIGN(auto m2, ns_->DescribeTable({.id = {"team", "m2"}}));
  EXPECT_FALSE(m2.properties.has_value());
  ASSERT_OK(ns_->DropTable({.id = {"team", "m2"}}).status());
  EXPECT_EQ(FilesUnder(root_ + "/" + m_dir), files);
  // Clients cannot set the mark themselves.
  EXPECT_THAT(
      ns_->DeclareTable(
          {.id = {"team", "x"}, .properties = Properties{{"lance_cpp.registered", "1"}}}),
      ::lance::testing::IsError(StatusCode::kInvalid));
  // Someone else's data is untouched by all of it.
  EXPECT_EQ(CountRowsAt(root_ + "/elsewhere/ext"), 5);
  EXPECT_THAT(Dataset::Open(root_ + "/__manifest"), IsOk());
}

// A directory named like the ones the namespace allocates ("<8 hex>_<name>") that the
// namespace did not allocate (no `.lance-reserved` marker: someone else wrote it) is not
// the namespace's to delete (directory_namespace.h: owned directories hold the marker).
TEST_F(RegisterConfinementTest, DropKeepsForeignDataInAnAllocatedLookingDirectory) {
  ASSERT_OK(Dataset::Write(*Rows(7), root_ + "/0badc0de_foreign").status());
  ASSERT_FALSE(fs::exists(root_ + "/0badc0de_foreign/.lance-reserved"));
  const int files = FilesUnder(root_ + "/0badc0de_foreign");
  ASSERT_OK(
      ns_->RegisterTable({.id = {"foreign"}, .location = "0badc0de_foreign"}).status());
  ASSERT_OK_AND_ASSIGN(auto opened, OpenDataset(ns_, {"foreign"}));
  EXPECT_EQ(opened->CountRows().value(), 7);
  ASSERT_OK(ns_->DropTable({.id = {"foreign"}}).status());
  EXPECT_EQ(FilesUnder(root_ + "/0badc0de_foreign"), files)
      << "drop_table deleted a registered directory the namespace never allocated";
  EXPECT_EQ(CountRowsAt(root_ + "/0badc0de_foreign"), 7);
}

}  // namespace
}  // namespace lance::ns
