// SPDX-License-Identifier: Apache-2.0
// DirectoryNamespace in both layouts, on local directories and memory:// roots.
// Interop with real Lance: tests/interop/test_namespace_dir.py.

#include "lance/namespace/directory_namespace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <regex>
#include <set>
#include <thread>

#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "tests/namespace/layout_fixture.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance::ns {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
namespace fs = std::filesystem;

using ::lance::testing::LayoutName;
using ::lance::testing::LayoutParam;
using ::lance::testing::RootKind;

// A one-column table for writing real datasets at declared locations.
std::unique_ptr<RecordBatchReader> SmallData(int64_t rows) {
  Int64Builder b;
  for (int64_t i = 0; i < rows; ++i) EXPECT_OK(b.Append(i));
  auto array = b.Finish().value();
  auto s = schema({field("x", int64(), false)});
  auto batch = RecordBatch::Make(s, rows, std::vector<ArrayPtr>{array}).value();
  return RecordBatchReader::FromBatches(s, std::vector<RecordBatchPtr>{batch});
}

class DirectoryNamespaceTest : public ::lance::testing::LayoutTest {
 protected:
  DirectoryNamespaceTest() : LayoutTest("dirns") {}

  Properties Props(Properties extra = {}) const {
    Properties p{{"root", root_},
                 {"manifest_enabled", manifest() ? "true" : "false"},
                 {"storage.region", "us-east-1"},
                 {"storage.allow_http", "true"}};
    for (auto& [k, v] : extra) p[k] = v;
    return p;
  }

  std::shared_ptr<DirectoryNamespace> Connect(Properties extra = {}) {
    auto ns = DirectoryNamespace::FromProperties(Props(std::move(extra)));
    EXPECT_THAT(ns, IsOk());
    return ns.ok() ? *ns : nullptr;
  }
};

INSTANTIATE_TEST_SUITE_P(Layouts, DirectoryNamespaceTest,
                         ::testing::ValuesIn(::lance::testing::AllLayouts()), LayoutName);

TEST_P(DirectoryNamespaceTest, DeclareDescribeListRootTable) {
  auto ns = Connect();
  ASSERT_NE(ns, nullptr);
  EXPECT_EQ(ns->namespace_id(), "DirectoryNamespace { root: \"" + root_ + "\" }");

  ASSERT_OK_AND_ASSIGN(auto declared, ns->DeclareTable({.id = {"events"}}));
  // Lance: "<root>/<name>.lance" in the plain layout, the root's URL in manifest mode.
  const std::string raw = root_ + "/events.lance";
  const std::string url = local() ? "file://" + root_ + "/events.lance" : raw;
  EXPECT_EQ(declared.location, manifest() ? url : raw);
  // Without a vendor: the root's options that are not credentials (here all of them).
  ASSERT_TRUE(declared.storage_options.has_value());
  EXPECT_EQ(*declared.storage_options,
            (Properties{{"allow_http", "true"}, {"region", "us-east-1"}}));

  if (local()) {
    EXPECT_TRUE(fs::exists(root_ + "/events.lance/.lance-reserved"));
    EXPECT_FALSE(fs::exists(root_ + "/events.lance/_versions"));
    EXPECT_EQ(fs::exists(root_ + "/__manifest/_versions"), manifest());
  }

  ASSERT_OK_AND_ASSIGN(auto described, ns->DescribeTable({.id = {"events"}}));
  EXPECT_EQ(described.location, raw);  // found through its directory, as Lance
  EXPECT_EQ(described.table_uri, raw);
  EXPECT_EQ(described.table, "events");
  EXPECT_EQ(described.namespace_, Identifier{});
  EXPECT_FALSE(described.version.has_value());
  ASSERT_TRUE(described.storage_options.has_value());
  EXPECT_EQ(described.storage_options->at("region"), "us-east-1");
  // The root's credentials stay inside unless vend_input_storage_options (Lance's).
  const Properties secret = {{"storage.aws_access_key_id", "AKIAROOT"},
                             {"storage.aws_secret_access_key", "root-secret"},
                             {"storage.aws_session_token", "root-token"}};
  auto keeping = Connect(secret);
  ASSERT_NE(keeping, nullptr);
  ASSERT_OK_AND_ASSIGN(auto kept, keeping->DescribeTable({.id = {"events"}}));
  EXPECT_EQ(kept.storage_options,
            (Properties{{"allow_http", "true"}, {"region", "us-east-1"}}));
  Properties passing_props = secret;
  passing_props["vend_input_storage_options"] = "true";
  auto passing = Connect(passing_props);
  ASSERT_NE(passing, nullptr);
  ASSERT_OK_AND_ASSIGN(auto passed, passing->DescribeTable({.id = {"events"}}));
  ASSERT_TRUE(passed.storage_options.has_value());
  EXPECT_EQ(passed.storage_options->at("aws_secret_access_key"), "root-secret");
  EXPECT_EQ(passed.storage_options->size(), 5u);

  // vend_credentials=false: no options.
  ASSERT_OK_AND_ASSIGN(auto bare,
                       ns->DescribeTable({.id = {"events"}, .vend_credentials = false}));
  EXPECT_FALSE(bare.storage_options.has_value());

  // Declared only: no version even when asked to load details.
  ASSERT_OK_AND_ASSIGN(
      auto detailed,
      ns->DescribeTable({.id = {"events"}, .load_detailed_metadata = true}));
  EXPECT_FALSE(detailed.version.has_value());
  EXPECT_EQ(detailed.is_only_declared, true);

  ASSERT_OK_AND_ASSIGN(auto listed, ns->ListTables({}));
  EXPECT_THAT(listed.tables, ElementsAre("events"));
  EXPECT_FALSE(listed.page_token.has_value());
  EXPECT_THAT(ns->TableExists({.id = {"events"}}), IsOk());

  // Declaring again: exactly one declaration per id.
  auto again = ns->DeclareTable({.id = {"events"}});
  EXPECT_THAT(again, IsErrorWith(StatusCode::kAlreadyExists, "TableAlreadyExists"));
  EXPECT_EQ(NamespaceErrorCode(again.status()), ErrorCode::kTableAlreadyExists);
  // The deprecated path behaves the same.
  EXPECT_THAT(ns->CreateEmptyTable({.id = {"events"}}),
              IsError(StatusCode::kAlreadyExists));
  ASSERT_OK_AND_ASSIGN(auto empty, ns->CreateEmptyTable({.id = {"other"}}));
  EXPECT_EQ(empty.location, manifest() ? (local() ? "file://" + root_ + "/other.lance"
                                                  : root_ + "/other.lance")
                                       : root_ + "/other.lance");
}

TEST_P(DirectoryNamespaceTest, WrittenTableHasVersion) {
  auto ns = Connect();
  ASSERT_NE(ns, nullptr);
  ASSERT_OK_AND_ASSIGN(auto declared, ns->DeclareTable({.id = {"t"}}));
  ASSERT_OK(ns->DeclareTable({.id = {"declared_only"}}));
  auto data = SmallData(5);
  WriteParams params;
  params.mode = WriteMode::kCreate;
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Write(*data, *declared.location, params));
  EXPECT_EQ(ds->version(), 1u);
  // A second version through the described location.
  ASSERT_OK_AND_ASSIGN(auto described, ns->DescribeTable({.id = {"t"}}));
  auto more = SmallData(3);
  params.mode = WriteMode::kAppend;
  ASSERT_OK(Dataset::Write(*more, *described.location, params));

  ASSERT_OK_AND_ASSIGN(auto detailed,
                       ns->DescribeTable({.id = {"t"}, .load_detailed_metadata = true}));
  EXPECT_EQ(detailed.version, 2);
  EXPECT_EQ(detailed.is_only_declared, false);
  ASSERT_OK_AND_ASSIGN(
      auto v1,
      ns->DescribeTable({.id = {"t"}, .version = 1, .load_detailed_metadata = true}));
  EXPECT_EQ(v1.version, 1);
  EXPECT_THAT(
      ns->DescribeTable({.id = {"t"}, .version = 9, .load_detailed_metadata = true}),
      IsErrorWith(StatusCode::kNotFound, "TableVersionNotFound"));
  // Without details, no version (Lance only opens the table when asked to).
  EXPECT_FALSE(described.version.has_value());

  ASSERT_OK_AND_ASSIGN(auto all, ns->ListTables({}));
  EXPECT_THAT(all.tables, ElementsAre("declared_only", "t"));
  ASSERT_OK_AND_ASSIGN(auto written, ns->ListTables({.include_declared = false}));
  EXPECT_THAT(written.tables, ElementsAre("t"));
  // Declaring over a table with data fails.
  EXPECT_THAT(ns->DeclareTable({.id = {"t"}}), IsError(StatusCode::kAlreadyExists));
}

TEST_P(DirectoryNamespaceTest, Pagination) {
  auto ns = Connect();
  ASSERT_NE(ns, nullptr);
  for (const char* name : {"d", "b", "e", "a", "c"}) {
    ASSERT_OK(ns->DeclareTable({.id = {name}}));
  }
  ASSERT_OK_AND_ASSIGN(auto p1, ns->ListTables({.limit = 2}));
  EXPECT_THAT(p1.tables, ElementsAre("a", "b"));
  ASSERT_EQ(p1.page_token, "b");
  ASSERT_OK_AND_ASSIGN(auto p2,
                       ns->ListTables({.page_token = p1.page_token, .limit = 2}));
  EXPECT_THAT(p2.tables, ElementsAre("c", "d"));
  ASSERT_EQ(p2.page_token, "d");
  ASSERT_OK_AND_ASSIGN(auto p3,
                       ns->ListTables({.page_token = p2.page_token, .limit = 2}));
  EXPECT_THAT(p3.tables, ElementsAre("e"));
  EXPECT_FALSE(p3.page_token.has_value());
  // page_token is "start after", not necessarily a listed name.
  ASSERT_OK_AND_ASSIGN(auto after, ns->ListTables({.page_token = "bb"}));
  EXPECT_THAT(after.tables, ElementsAre("c", "d", "e"));
  ASSERT_OK_AND_ASSIGN(auto exact, ns->ListTables({.limit = 5}));
  EXPECT_EQ(exact.tables.size(), 5u);
  EXPECT_FALSE(exact.page_token.has_value());
  ASSERT_OK_AND_ASSIGN(auto zero, ns->ListTables({.limit = 0}));
  EXPECT_THAT(zero.tables, IsEmpty());
  EXPECT_FALSE(zero.page_token.has_value());
}

TEST_P(DirectoryNamespaceTest, Errors) {
  auto ns = Connect();
  ASSERT_NE(ns, nullptr);
  EXPECT_THAT(ns->DescribeTable({.id = {"missing"}}),
              IsErrorWith(StatusCode::kNotFound, "TableNotFound"));
  EXPECT_THAT(ns->TableExists({.id = {"missing"}}), IsError(StatusCode::kNotFound));
  EXPECT_THAT(ns->DropTable({.id = {"missing"}}), IsError(StatusCode::kNotFound));
  EXPECT_THAT(ns->DeregisterTable({.id = {"missing"}}), IsError(StatusCode::kNotFound));
  EXPECT_THAT(ns->DeclareTable({.id = {}}),
              IsErrorWith(StatusCode::kInvalid, "InvalidInput"));
  EXPECT_THAT(ns->DeclareTable({.id = {"a/b"}}), IsError(StatusCode::kInvalid));
  EXPECT_THAT(ns->DeclareTable({.id = {"x"}, .location = "/elsewhere/x.lance"}),
              IsErrorWith(StatusCode::kInvalid, "must be at location"));
  // Root namespace rules hold in both layouts.
  EXPECT_THAT(ns->CreateNamespace({.id = {}}),
              IsErrorWith(StatusCode::kAlreadyExists, "NamespaceAlreadyExists"));
  EXPECT_THAT(ns->DropNamespace({.id = {}}), IsError(StatusCode::kInvalid));
  EXPECT_THAT(ns->NamespaceExists({.id = {}}), IsOk());
  ASSERT_OK_AND_ASSIGN(auto root, ns->DescribeNamespace({.id = {}}));
  EXPECT_EQ(root.properties, Properties{});
  EXPECT_THAT(ns->NamespaceExists({.id = {"nope"}}),
              IsErrorWith(StatusCode::kNotFound, "NamespaceNotFound"));

  if (!manifest()) {
    // The plain layout has only the root namespace and single-level ids.
    auto nested = ns->DeclareTable({.id = {"team", "events"}});
    EXPECT_THAT(nested, IsErrorWith(StatusCode::kNotImplemented, "Unsupported"));
    EXPECT_EQ(NamespaceErrorCode(nested.status()), ErrorCode::kUnsupported);
    EXPECT_THAT(ns->DescribeTable({.id = {"team", "events"}}),
                IsError(StatusCode::kNotImplemented));
    EXPECT_THAT(ns->CreateNamespace({.id = {"team"}}),
                IsError(StatusCode::kNotImplemented));
    EXPECT_THAT(ns->ListTables({.id = {"team"}}), IsError(StatusCode::kNotImplemented));
    EXPECT_THAT(ns->RegisterTable({.id = {"r"}, .location = "r.lance"}),
                IsError(StatusCode::kNotImplemented));
    ASSERT_OK_AND_ASSIGN(auto none, ns->ListNamespaces({}));
    EXPECT_THAT(none.namespaces, IsEmpty());
  } else {
    EXPECT_THAT(ns->DescribeNamespace({.id = {"nope"}}),
                IsErrorWith(StatusCode::kNotFound, "NamespaceNotFound"));
    EXPECT_THAT(ns->CreateNamespace({.id = {"a", "b"}}),
                IsErrorWith(StatusCode::kNotFound, "parent namespace 'a'"));
    EXPECT_THAT(ns->DropNamespace({.id = {"nope"}}), IsError(StatusCode::kNotFound));
    EXPECT_THAT(ns->DropNamespace({.id = {"nope"}, .mode = "skip"}), IsOk());
    EXPECT_THAT(ns->DeclareTable({.id = {"a$b"}}), IsError(StatusCode::kInvalid));
    EXPECT_THAT(ns->DescribeTable({.id = {"team", "missing"}}),
                IsErrorWith(StatusCode::kNotFound, "TableNotFound"));
  }
}

TEST_P(DirectoryNamespaceTest, DeregisterAndDrop) {
  auto ns = Connect();
  ASSERT_NE(ns, nullptr);
  ASSERT_OK_AND_ASSIGN(auto declared, ns->DeclareTable({.id = {"keep"}}));
  ASSERT_OK(ns->DeclareTable({.id = {"gone"}}));
  auto data = SmallData(2);
  ASSERT_OK(Dataset::Write(*data, *declared.location));

  ASSERT_OK_AND_ASSIGN(auto dereg, ns->DeregisterTable({.id = {"keep"}}));
  EXPECT_EQ(dereg.id, Identifier{"keep"});
  EXPECT_THAT(ns->DescribeTable({.id = {"keep"}}), IsError(StatusCode::kNotFound));
  EXPECT_THAT(ns->TableExists({.id = {"keep"}}), IsError(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(auto listed, ns->ListTables({}));
  EXPECT_THAT(listed.tables, ElementsAre("gone"));
  // The data stays.
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(*declared.location));
  EXPECT_EQ(ds->CountRows().value(), 2);
  if (local()) {
    EXPECT_TRUE(fs::exists(root_ + "/keep.lance/.lance-deregistered"));
  }

  ASSERT_OK_AND_ASSIGN(auto dropped, ns->DropTable({.id = {"gone"}}));
  EXPECT_EQ(dropped.location, root_ + "/gone.lance");
  ASSERT_OK_AND_ASSIGN(auto after, ns->ListTables({}));
  EXPECT_THAT(after.tables, IsEmpty());
  if (local()) {
    EXPECT_FALSE(fs::exists(root_ + "/gone.lance/.lance-reserved"));
  }
  // Dropped ids can be declared again.
  EXPECT_THAT(ns->DeclareTable({.id = {"gone"}}), IsOk());
}

// Nested namespaces and multi-level ids need manifest mode (the plain layout's refusals
// are checked in Errors).
class ManifestNamespaceTest : public DirectoryNamespaceTest {};
INSTANTIATE_TEST_SUITE_P(Roots, ManifestNamespaceTest,
                         ::testing::Values(LayoutParam{true, RootKind::kLocal},
                                           LayoutParam{true, RootKind::kMemory}),
                         LayoutName);

TEST_P(ManifestNamespaceTest, NestedNamespacesAndTables) {
  auto ns = Connect();
  ASSERT_NE(ns, nullptr);
  ASSERT_OK_AND_ASSIGN(
      auto created,
      ns->CreateNamespace({.id = {"team"}, .properties = Properties{{"owner", "ann"}}}));
  EXPECT_EQ(created.properties, (Properties{{"owner", "ann"}}));
  ASSERT_OK(ns->CreateNamespace({.id = {"team", "sub"}}));
  ASSERT_OK(ns->CreateNamespace({.id = {"zoo"}}));
  EXPECT_THAT(ns->CreateNamespace({.id = {"team"}}),
              IsErrorWith(StatusCode::kAlreadyExists, "NamespaceAlreadyExists"));
  ASSERT_OK_AND_ASSIGN(auto ok,
                       ns->CreateNamespace({.id = {"team"}, .mode = "exist_ok"}));
  EXPECT_EQ(ok.properties, (Properties{{"owner", "ann"}}));

  ASSERT_OK_AND_ASSIGN(auto roots, ns->ListNamespaces({}));
  EXPECT_THAT(roots.namespaces, ElementsAre("team", "zoo"));
  ASSERT_OK_AND_ASSIGN(auto subs, ns->ListNamespaces({.id = {"team"}}));
  EXPECT_THAT(subs.namespaces, ElementsAre("sub"));
  ASSERT_OK_AND_ASSIGN(auto page, ns->ListNamespaces({.limit = 1}));
  EXPECT_THAT(page.namespaces, ElementsAre("team"));
  EXPECT_EQ(page.page_token, "team");
  ASSERT_OK_AND_ASSIGN(auto desc, ns->DescribeNamespace({.id = {"team"}}));
  EXPECT_EQ(desc.properties, (Properties{{"owner", "ann"}}));
  EXPECT_THAT(ns->NamespaceExists({.id = {"team", "sub"}}), IsOk());

  ASSERT_OK_AND_ASSIGN(
      auto events,
      ns->DeclareTable({.id = {"team", "events"}, .properties = Properties{{"k", "v"}}}));
  // "<8 hex>_<ns>$<name>" under the root, as Lance's generate_dir_name.
  const std::string prefix = local() ? "file://" + root_ + "/" : root_ + "/";
  ASSERT_TRUE(events.location.has_value());
  ASSERT_EQ(events.location->substr(0, prefix.size()), prefix);
  const std::string dir = events.location->substr(prefix.size());
  EXPECT_TRUE(std::regex_match(dir, std::regex("[0-9a-f]{8}_team\\$events"))) << dir;
  ASSERT_OK(ns->DeclareTable({.id = {"team", "sub", "deep"}}));
  // Declaring in a namespace never created succeeds, as in Lance.
  ASSERT_OK(ns->DeclareTable({.id = {"ghost", "x"}}));
  ASSERT_OK(ns->DeclareTable({.id = {"rooted"}}));

  ASSERT_OK_AND_ASSIGN(auto d, ns->DescribeTable({.id = {"team", "events"}}));
  EXPECT_EQ(d.location, events.location);
  EXPECT_EQ(d.table, "events");
  EXPECT_EQ(d.namespace_, Identifier{"team"});
  EXPECT_EQ(d.properties, (Properties{{"k", "v"}}));
  EXPECT_FALSE(d.version.has_value());
  EXPECT_EQ(d.storage_options->at("allow_http"), "true");

  ASSERT_OK_AND_ASSIGN(auto team, ns->ListTables({.id = {"team"}}));
  EXPECT_THAT(team.tables, ElementsAre("events"));
  ASSERT_OK_AND_ASSIGN(auto deep, ns->ListTables({.id = {"team", "sub"}}));
  EXPECT_THAT(deep.tables, ElementsAre("deep"));
  ASSERT_OK_AND_ASSIGN(auto ghost, ns->ListTables({.id = {"ghost"}}));
  EXPECT_THAT(ghost.tables, ElementsAre("x"));
  ASSERT_OK_AND_ASSIGN(auto root_tables, ns->ListTables({}));
  EXPECT_THAT(root_tables.tables, ElementsAre("rooted"));
  EXPECT_THAT(ns->DeclareTable({.id = {"team", "events"}}),
              IsErrorWith(StatusCode::kAlreadyExists, "TableAlreadyExists"));
  // An id taken by a namespace is not free for a table.
  EXPECT_THAT(ns->DeclareTable({.id = {"team"}}), IsError(StatusCode::kAlreadyExists));

  // Write data at the nested location and read it back through a second instance.
  auto data = SmallData(4);
  ASSERT_OK(Dataset::Write(*data, *events.location));
  auto other = Connect();
  ASSERT_NE(other, nullptr);
  ASSERT_OK_AND_ASSIGN(
      auto again,
      other->DescribeTable({.id = {"team", "events"}, .load_detailed_metadata = true}));
  EXPECT_EQ(again.version, 1);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(*again.location));
  EXPECT_EQ(ds->CountRows().value(), 4);

  // Restrict: namespaces with children cannot be dropped.
  auto not_empty = ns->DropNamespace({.id = {"team"}});
  EXPECT_THAT(not_empty, IsErrorWith(StatusCode::kConflict, "NamespaceNotEmpty"));
  EXPECT_EQ(NamespaceErrorCode(not_empty.status()), ErrorCode::kNamespaceNotEmpty);
  ASSERT_OK(ns->DropTable({.id = {"team", "sub", "deep"}}));
  ASSERT_OK(ns->DropNamespace({.id = {"team", "sub"}}));
  ASSERT_OK_AND_ASSIGN(auto dereg, ns->DeregisterTable({.id = {"team", "events"}}));
  EXPECT_EQ(dereg.location, events.location);
  EXPECT_THAT(ns->DescribeTable({.id = {"team", "events"}}),
              IsError(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(auto dropped_ns, ns->DropNamespace({.id = {"team"}}));
  EXPECT_EQ(dropped_ns.properties, (Properties{{"owner", "ann"}}));
  EXPECT_THAT(ns->NamespaceExists({.id = {"team"}}), IsError(StatusCode::kNotFound));
  // Deregistered data stays; register brings it back (relative location).
  ASSERT_OK(ns->CreateNamespace({.id = {"team"}}));
  ASSERT_OK_AND_ASSIGN(auto reg,
                       ns->RegisterTable({.id = {"team", "events"}, .location = dir}));
  EXPECT_EQ(reg.location, dir);
  ASSERT_OK_AND_ASSIGN(auto back, ns->DescribeTable({.id = {"team", "events"}}));
  EXPECT_EQ(back.location, events.location);
  EXPECT_THAT(ns->RegisterTable({.id = {"team", "events"}, .location = dir}),
              IsError(StatusCode::kAlreadyExists));
  EXPECT_THAT(ns->RegisterTable({.id = {"y"}, .location = "../y"}),
              IsError(StatusCode::kInvalid));
  EXPECT_THAT(ns->RegisterTable({.id = {"y"}, .location = "s3://b/y"}),
              IsError(StatusCode::kInvalid));
  EXPECT_THAT(ns->RegisterTable({.id = {"nope", "y"}, .location = "y"}),
              IsError(StatusCode::kNotFound));
}

TEST_P(ManifestNamespaceTest, ManifestSchemaIsLances) {
  auto ns = Connect();
  ASSERT_NE(ns, nullptr);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(root_ + "/__manifest"));
  auto s = ds->schema();
  ASSERT_EQ(s->num_fields(), 5);
  EXPECT_EQ(s->field(0)->name(), "object_id");
  EXPECT_FALSE(s->field(0)->nullable());
  EXPECT_EQ(s->field(0)->metadata(),
            (KeyValueMetadata{{"lance-schema:unenforced-primary-key:position", "0"}}));
  EXPECT_EQ(s->field(1)->name(), "object_type");
  EXPECT_FALSE(s->field(1)->nullable());
  EXPECT_EQ(s->field(2)->name(), "location");
  EXPECT_TRUE(s->field(2)->nullable());
  EXPECT_EQ(s->field(3)->name(), "metadata");
  EXPECT_TRUE(s->field(3)->nullable());
  EXPECT_EQ(s->field(4)->name(), "base_objects");
  EXPECT_TRUE(s->field(4)->type()->Equals(*list(field("object_id", utf8(), true))));
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(ds->CountRows().value(), 0);
  // In file format 2.2, as pylance 14 creates it.
  EXPECT_EQ(ds->data_storage_version(), "2.2");
}

// A root whose __manifest Lance 8.0.0 (LanceDB-node 0.31) created, in file format 2.1:
// read and written here, and it stays 2.1 (appends keep a dataset's version).
TEST(ManifestRootOfLance8, IsReadAndWrittenKeepingItsVersion) {
  lance::testing::TempDir tmp;
  const std::string root = tmp.Join("lance8-root");
  fs::create_directories(root);
  fs::copy(std::string(LANCE_TEST_DATA_DIR) + "/lance-8.0.0/__manifest",
           root + "/__manifest", fs::copy_options::recursive);
  for (auto& entry : fs::recursive_directory_iterator(root)) {
    fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add);
  }
  ASSERT_OK_AND_ASSIGN(auto before, Dataset::Open(root + "/__manifest"));
  ASSERT_EQ(before->data_storage_version(), "2.1");
  ASSERT_OK_AND_ASSIGN(auto ns, DirectoryNamespace::FromProperties(
                                    {{"root", root}, {"manifest_enabled", "true"}}));
  ASSERT_OK(ns->CreateNamespace({.id = {"team"}, .properties = Properties{{"k", "v"}}})
                .status());
  ASSERT_OK_AND_ASSIGN(auto declared, ns->DeclareTable({.id = {"team", "t"}}));
  ASSERT_TRUE(declared.location.has_value());
  auto data = SmallData(3);
  ASSERT_OK(Dataset::Write(*data, *declared.location).status());
  ASSERT_OK_AND_ASSIGN(auto tables, ns->ListTables({.id = {"team"}}));
  EXPECT_THAT(tables.tables, ElementsAre("t"));
  ASSERT_OK_AND_ASSIGN(auto described, ns->DescribeNamespace({.id = {"team"}}));
  EXPECT_EQ(described.properties, (Properties{{"k", "v"}}));
  ASSERT_OK_AND_ASSIGN(auto after, Dataset::Open(root + "/__manifest"));
  EXPECT_EQ(after->data_storage_version(), "2.1");
  EXPECT_EQ(after->version(), before->version() + 2);
  for (const FragmentMetadata& f : after->fragments()) {
    for (const DataFileMeta& file : f.files) {
      EXPECT_EQ(file.file_major_version, 2u);
      EXPECT_EQ(file.file_minor_version, 1u);
    }
  }
  EXPECT_EQ(after->CountRows().value(), 2);
}

// Counts the __manifest rows of `object_id` (duplicates would break real Lance, whose
// lookups demand exactly one).
int64_t ManifestRows(const std::string& root, const std::string& object_id) {
  auto ds = Dataset::Open(root + "/__manifest");
  EXPECT_THAT(ds, IsOk());
  if (!ds.ok()) return -1;
  auto n = (*ds)->CountRows("object_id = '" + object_id + "'");
  EXPECT_THAT(n, IsOk());
  return n.ok() ? *n : -1;
}

TEST_P(DirectoryNamespaceTest, ConcurrentDeclarationsOfDifferentIdsAllLand) {
  auto ns = Connect();
  ASSERT_NE(ns, nullptr);
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  std::vector<Status> results(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      // Each thread has its own instance, as separate processes would.
      auto mine = DirectoryNamespace::FromProperties(Props());
      if (!mine.ok()) {
        results[i] = mine.status();
        return;
      }
      Identifier id = manifest() && i % 2 == 1
                          ? Identifier{"team", "t" + std::to_string(i)}
                          : Identifier{"t" + std::to_string(i)};
      results[i] = (*mine)->DeclareTable({.id = id}).status();
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) EXPECT_THAT(results[i], IsOk()) << i;
  ASSERT_OK_AND_ASSIGN(auto root, ns->ListTables({}));
  if (manifest()) {
    EXPECT_THAT(root.tables, ElementsAre("t0", "t2", "t4", "t6"));
    ASSERT_OK_AND_ASSIGN(auto team, ns->ListTables({.id = {"team"}}));
    EXPECT_THAT(team.tables, ElementsAre("t1", "t3", "t5", "t7"));
    for (int i = 0; i < kThreads; ++i) {
      const std::string oid = (i % 2 == 1 ? "team$t" : "t") + std::to_string(i);
      EXPECT_EQ(ManifestRows(root_, oid), 1) << oid;
    }
  } else {
    EXPECT_EQ(root.tables.size(), static_cast<size_t>(kThreads));
  }
}

TEST_P(DirectoryNamespaceTest, ConcurrentDeclarationsOfOneIdHaveOneWinner) {
  auto ns = Connect();
  ASSERT_NE(ns, nullptr);
  std::vector<Identifier> ids = {{"same"}};
  if (manifest()) ids.push_back({"team", "same"});
  for (const Identifier& id : ids) {
    constexpr int kThreads = 8;
    std::vector<std::thread> threads;
    std::vector<Result<DeclareTableResponse>> results(kThreads,
                                                      Status::Unknown("not run"));
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        auto mine = DirectoryNamespace::FromProperties(Props());
        if (!mine.ok()) {
          results[i] = mine.status();
          return;
        }
        results[i] = (*mine)->DeclareTable({.id = id});
      });
    }
    for (auto& t : threads) t.join();
    int winners = 0;
    std::string winner_location;
    for (auto& r : results) {
      if (r.ok()) {
        ++winners;
        winner_location = *r->location;
      } else {
        EXPECT_THAT(r, IsErrorWith(StatusCode::kAlreadyExists, "TableAlreadyExists"));
      }
    }
    EXPECT_EQ(winners, 1) << JoinIdentifier(id);
    ASSERT_OK_AND_ASSIGN(auto d, ns->DescribeTable({.id = id}));
    if (id.size() > 1) {
      EXPECT_EQ(d.location, winner_location);
      EXPECT_EQ(ManifestRows(root_, JoinIdentifier(id)), 1);
      // The losers' directories were cleaned up: only the winner's marker remains.
      if (local()) {
        int dirs = 0;
        for (const auto& entry : fs::directory_iterator(root_)) {
          const std::string name = entry.path().filename().string();
          if (name.size() > 9 && name.substr(9) == "team$same" &&
              fs::exists(entry.path() / ".lance-reserved")) {
            ++dirs;
          }
        }
        EXPECT_EQ(dirs, 1);
      }
    } else if (manifest()) {
      EXPECT_EQ(ManifestRows(root_, "same"), 1);
    }
  }
}

TEST(DirectoryNamespaceProperties, FromProperties) {
  lance::testing::TempDir tmp;
  EXPECT_THAT(DirectoryNamespace::FromProperties({}),
              IsErrorWith(StatusCode::kInvalid, "Missing required property 'root'"));
  EXPECT_THAT(DirectoryNamespace::FromProperties(
                  {{"root", tmp.path()}, {"manifest_enabled", "yes"}}),
              IsErrorWith(StatusCode::kInvalid, "manifest_enabled"));
  ASSERT_OK_AND_ASSIGN(auto ns, DirectoryNamespace::FromProperties(
                                    {{"root", tmp.Join("r") + "///"},
                                     {"manifest_enabled", "false"},
                                     {"dir_listing_enabled", "false"},
                                     {"inline_optimization_enabled", "true"}}));
  EXPECT_EQ(ns->root(), tmp.Join("r"));
  EXPECT_FALSE(ns->manifest_enabled());
  EXPECT_FALSE(ns->dir_listing_enabled());
  EXPECT_EQ(ns->namespace_id(), "DirectoryNamespace { root: \"" + tmp.Join("r") + "\" }");
  // No storage.* properties: responses carry no storage options.
  ASSERT_OK_AND_ASSIGN(auto declared, ns->DeclareTable({.id = {"t"}}));
  EXPECT_FALSE(declared.storage_options.has_value());
  ASSERT_OK_AND_ASSIGN(
      auto connected,
      ConnectNamespace("dir", {{"root", tmp.Join("r")}, {"manifest_enabled", "false"}}));
  EXPECT_THAT(connected->TableExists({.id = {"t"}}), IsOk());
  EXPECT_THAT(ConnectNamespace("nosuch", {}), IsError(StatusCode::kNotImplemented));
}

TEST(DirectoryNamespaceProperties, ManifestWithoutDirListingHashesRootTables) {
  lance::testing::TempDir tmp;
  ASSERT_OK_AND_ASSIGN(auto ns,
                       DirectoryNamespace::FromProperties(
                           {{"root", tmp.path()}, {"dir_listing_enabled", "false"}}));
  ASSERT_OK_AND_ASSIGN(auto declared, ns->DeclareTable({.id = {"t"}}));
  const std::string prefix = "file://" + tmp.path() + "/";
  ASSERT_EQ(declared.location->substr(0, prefix.size()), prefix);
  EXPECT_TRUE(std::regex_match(declared.location->substr(prefix.size()),
                               std::regex("[0-9a-f]{8}_t")));
  ASSERT_OK_AND_ASSIGN(auto d, ns->DescribeTable({.id = {"t"}}));
  EXPECT_EQ(d.location, declared.location);
  // A "<name>.lance" directory is not a table when listing is off.
  auto data = SmallData(1);
  ASSERT_OK(Dataset::Write(*data, tmp.Join("plain.lance")));
  ASSERT_OK_AND_ASSIGN(auto listed, ns->ListTables({}));
  EXPECT_THAT(listed.tables, ElementsAre("t"));
  EXPECT_THAT(ns->DescribeTable({.id = {"plain"}}), IsError(StatusCode::kNotFound));
  // With listing on (the default) the same root sees both.
  ASSERT_OK_AND_ASSIGN(auto both,
                       DirectoryNamespace::FromProperties({{"root", tmp.path()}}));
  ASSERT_OK_AND_ASSIGN(auto all, both->ListTables({}));
  EXPECT_THAT(all.tables, ElementsAre("plain", "t"));
  ASSERT_OK_AND_ASSIGN(auto plain, both->DescribeTable({.id = {"plain"}}));
  EXPECT_EQ(plain.location, tmp.path() + "/plain.lance");
}

// -- The interface's defaults and error kinds
// --------------------------------------------

class NothingNamespace : public LanceNamespace {
 public:
  std::string namespace_id() const override { return "NothingNamespace"; }
};

TEST(LanceNamespace, DefaultsAreUnsupported) {
  NothingNamespace ns;
  auto declared = ns.DeclareTable({.id = {"t"}});
  EXPECT_THAT(declared,
              IsErrorWith(StatusCode::kNotImplemented,
                          "declare_table is not supported by NothingNamespace"));
  EXPECT_EQ(NamespaceErrorCode(declared.status()), ErrorCode::kUnsupported);
  EXPECT_THAT(
      ns.CreateEmptyTable({}),
      IsErrorWith(StatusCode::kNotImplemented, "create_empty_table is not supported"));
  EXPECT_THAT(ns.DescribeTable({}),
              IsErrorWith(StatusCode::kNotImplemented, "describe_table"));
  EXPECT_THAT(ns.ListTables({}), IsErrorWith(StatusCode::kNotImplemented, "list_tables"));
  EXPECT_THAT(ns.ListNamespaces({}),
              IsErrorWith(StatusCode::kNotImplemented, "list_namespaces"));
  EXPECT_THAT(ns.CreateNamespace({}),
              IsErrorWith(StatusCode::kNotImplemented, "create_namespace"));
  EXPECT_THAT(ns.DescribeNamespace({}),
              IsErrorWith(StatusCode::kNotImplemented, "describe_namespace"));
  EXPECT_THAT(ns.DropNamespace({}),
              IsErrorWith(StatusCode::kNotImplemented, "drop_namespace"));
  EXPECT_THAT(ns.NamespaceExists({}),
              IsErrorWith(StatusCode::kNotImplemented, "namespace_exists"));
  EXPECT_THAT(ns.RegisterTable({}),
              IsErrorWith(StatusCode::kNotImplemented, "register_table"));
  EXPECT_THAT(ns.DeregisterTable({}),
              IsErrorWith(StatusCode::kNotImplemented, "deregister_table"));
  EXPECT_THAT(ns.TableExists({}),
              IsErrorWith(StatusCode::kNotImplemented, "table_exists"));
  EXPECT_THAT(ns.DropTable({}), IsErrorWith(StatusCode::kNotImplemented, "drop_table"));
}

TEST(LanceNamespace, ErrorCodes) {
  EXPECT_EQ(static_cast<int>(ErrorCode::kTableAlreadyExists), 5);
  EXPECT_EQ(static_cast<int>(ErrorCode::kInvalidInput), 13);
  EXPECT_EQ(static_cast<int>(ErrorCode::kTableBranchAlreadyExists), 23);
  for (int i = 0; i <= 23; ++i) {
    const auto code = static_cast<ErrorCode>(i);
    const Status st = NamespaceError(code, "something");
    EXPECT_EQ(st.code(), StatusCodeFor(code));
    EXPECT_EQ(NamespaceErrorCode(st), code) << ErrorCodeName(code);
    EXPECT_EQ(ErrorCodeFromName(ErrorCodeName(code)), code);
    // Context added by callers does not hide the kind.
    EXPECT_EQ(NamespaceErrorCode(st.WithContext("opening x")), code);
  }
  EXPECT_EQ(StatusCodeFor(ErrorCode::kTableNotFound), StatusCode::kNotFound);
  EXPECT_EQ(StatusCodeFor(ErrorCode::kNamespaceNotEmpty), StatusCode::kConflict);
  EXPECT_EQ(StatusCodeFor(ErrorCode::kUnsupported), StatusCode::kNotImplemented);
  EXPECT_TRUE(NamespaceError(ErrorCode::kThrottling, "slow down").retryable());
  EXPECT_EQ(NamespaceError(ErrorCode::kTableNotFound, "table id 'x'").message(),
            "TableNotFound: table id 'x'");
  // Statuses from elsewhere map by their generic code.
  EXPECT_EQ(NamespaceErrorCode(Status::Invalid("bad")), ErrorCode::kInvalidInput);
  EXPECT_EQ(NamespaceErrorCode(Status::NotImplemented("no")), ErrorCode::kUnsupported);
  EXPECT_EQ(NamespaceErrorCode(Status::Conflict("race")),
            ErrorCode::kConcurrentModification);
  EXPECT_EQ(NamespaceErrorCode(Status::Forbidden("no")), ErrorCode::kPermissionDenied);
  EXPECT_EQ(NamespaceErrorCode(Status::Unauthorized("who")), ErrorCode::kUnauthenticated);
  EXPECT_EQ(NamespaceErrorCode(Status::TokenExpired("old")), ErrorCode::kUnauthenticated);
  EXPECT_EQ(NamespaceErrorCode(Status::Unavailable("busy")),
            ErrorCode::kServiceUnavailable);
  EXPECT_EQ(NamespaceErrorCode(Status::IOError("disk")), ErrorCode::kInternal);
  EXPECT_EQ(NamespaceErrorCode(Status::NotFound("gone")), ErrorCode::kInternal);
  // The text is never read: a name in the message, even one agreeing with the generic
  // code, or after a context, does not make the kind.
  EXPECT_EQ(NamespaceErrorCode(Status::Invalid("TableNotFound: x")),
            ErrorCode::kInvalidInput);
  EXPECT_EQ(NamespaceErrorCode(Status::NotFound("TableNotFound: x")),
            ErrorCode::kInternal);
  EXPECT_EQ(NamespaceErrorCode(Status::NotFound("When opening 'y': TableNotFound: x")),
            ErrorCode::kInternal);
  EXPECT_EQ(NamespaceErrorCode(Status::AlreadyExists("TableAlreadyExists: x")),
            ErrorCode::kInternal);
}

TEST(LanceNamespace, ErrorCodeIsATypedDetail) {
  const Status st = NamespaceError(ErrorCode::kTableVersionNotFound, "Version 9 of 't'");
  const auto* detail = st.detail_as<NamespaceErrorDetail>();
  ASSERT_NE(detail, nullptr);
  EXPECT_EQ(detail->code(), ErrorCode::kTableVersionNotFound);
  EXPECT_EQ(detail->ToString(), "namespace error TableVersionNotFound (11)");
  // The detail, not the text, travels: contexts (even ones naming another kind) and
  // copies keep it.
  const Status wrapped =
      st.WithContext("describing table 'TableNotFound: t'").WithContext("opening");
  EXPECT_EQ(wrapped.message(),
            "When opening: When describing table 'TableNotFound: t': "
            "TableVersionNotFound: Version 9 of 't'");
  EXPECT_EQ(NamespaceErrorCode(wrapped), ErrorCode::kTableVersionNotFound);
  Result<int> result = wrapped;
  EXPECT_EQ(NamespaceErrorCode(result.status()), ErrorCode::kTableVersionNotFound);
  // A Status rebuilt from the text alone (code and message, no detail) has lost it.
  const Status rebuilt(wrapped.code(), wrapped.message());
  EXPECT_EQ(NamespaceErrorCode(rebuilt), ErrorCode::kInternal);
}

TEST(LanceNamespace, Paginate) {
  std::vector<std::string> names = {"c", "a", "b"};
  EXPECT_EQ(Paginate(&names, std::nullopt, std::nullopt), std::nullopt);
  EXPECT_THAT(names, ElementsAre("a", "b", "c"));
  names = {"c", "a", "b"};
  EXPECT_EQ(Paginate(&names, std::string("a"), 1), "b");
  EXPECT_THAT(names, ElementsAre("b"));
  names = {"a", "b"};
  EXPECT_EQ(Paginate(&names, std::string("z"), 1), std::nullopt);
  EXPECT_THAT(names, IsEmpty());
  names = {"a", "b"};
  EXPECT_EQ(Paginate(&names, std::nullopt, -1), std::nullopt);
  EXPECT_THAT(names, ElementsAre("a", "b"));
  EXPECT_EQ(JoinIdentifier({"a", "b", "c"}), "a$b$c");
  EXPECT_EQ(JoinIdentifier({}), "");
}

}  // namespace
}  // namespace lance::ns
