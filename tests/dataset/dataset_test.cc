// SPDX-License-Identifier: Apache-2.0
// Dataset end to end: write modes, versions, naming schemes, scans, deletes, counts,
// distributed writes, on local disk and memory://.
#include "lance/dataset/dataset.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>

#include "format/schema_proto.h"
#include "lance/format/file_writer.h"
#include "lance/io/object_store_registry.h"
#include "table/manifest.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance {
namespace {

using namespace table_testing;  // NOLINT(build/namespaces)

// Runs each test on local disk and on memory://.
class DatasetTest : public ::testing::TestWithParam<bool> {
 protected:
  std::string Uri(const std::string& name = "ds.lance") {
    return GetParam() ? tmp_.Join(name) : table_testing::UniqueMemoryUri(name);
  }
  bool local() const { return GetParam(); }
  TempDir tmp_;
};

TEST_P(DatasetTest, CreateAppendOverwriteVersionsCheckout) {
  const std::string uri = Uri();
  EXPECT_THAT(Dataset::Open(uri), IsErrorWith(StatusCode::kNotFound, "No Lance dataset"));
  ASSERT_OK_AND_ASSIGN(auto v1, WriteRows(uri, 0, 100));
  EXPECT_EQ(v1->version(), 1u);
  // New datasets get what pylance 14 writes.
  EXPECT_EQ(v1->data_storage_version(), "2.2");
  EXPECT_EQ(*v1->CountRows(), 100);
  EXPECT_TRUE(v1->schema()->Equals(*MakeBatch(0, 1)->schema()));
  EXPECT_EQ(Ids(*v1), Iota(0, 100));

  EXPECT_THAT(WriteRows(uri, 0, 10), IsError(StatusCode::kAlreadyExists));

  ASSERT_OK_AND_ASSIGN(auto v2, WriteRows(uri, 100, 50, WriteMode::kAppend));
  EXPECT_EQ(v2->version(), 2u);
  EXPECT_EQ(*v2->CountRows(), 150);
  ASSERT_EQ(v2->fragments().size(), 2u);
  EXPECT_EQ(v2->fragments()[0].id, 0u);
  EXPECT_EQ(v2->fragments()[1].id, 1u);
  EXPECT_EQ(v2->fragments()[1].physical_rows, 50u);
  EXPECT_EQ(Ids(*v2), Iota(0, 150));

  ASSERT_OK_AND_ASSIGN(auto v3, WriteRows(uri, 1000, 30, WriteMode::kOverwrite));
  EXPECT_EQ(v3->version(), 3u);
  EXPECT_EQ(*v3->CountRows(), 30);
  EXPECT_EQ(Ids(*v3), Iota(1000, 1030));
  ASSERT_EQ(v3->fragments().size(), 1u);
  // Above the ids 0 and 1 ever used, as pylance 14.
  EXPECT_EQ(v3->fragments()[0].id, 2u);

  ASSERT_OK_AND_ASSIGN(auto versions, v3->Versions());
  ASSERT_EQ(versions.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(versions[i].version, i + 1);
    EXPECT_GT(versions[i].timestamp_ms, 1600000000000);
    if (i > 0) {
      EXPECT_GE(versions[i].timestamp_ms, versions[i - 1].timestamp_ms);
    }
  }
  EXPECT_EQ(versions[1].metadata.at("total_rows"), "150");
  EXPECT_EQ(versions[1].metadata.at("total_fragments"), "2");

  ASSERT_OK_AND_ASSIGN(auto old, v3->CheckoutVersion(2));
  EXPECT_EQ(old->version(), 2u);
  EXPECT_EQ(*old->CountRows(), 150);
  EXPECT_EQ(*old->LatestVersion(), 3u);
  OpenOptions at1;
  at1.version = 1;
  ASSERT_OK_AND_ASSIGN(auto first, Dataset::Open(uri, at1));
  EXPECT_EQ(*first->CountRows(), 100);
  at1.version = 9;
  EXPECT_THAT(Dataset::Open(uri, at1), IsErrorWith(StatusCode::kNotFound, "latest is 3"));
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(uri));
  EXPECT_EQ(latest->version(), 3u);

  // V2 names by default; the version hint on local disk only.
  ASSERT_OK_AND_ASSIGN(auto loc, io::ResolveObjectStore(uri));
  table_internal::DatasetDir dir(loc.store, loc.path);
  ASSERT_OK_AND_ASSIGN(auto manifests, table_internal::ListManifests(dir));
  for (const auto& m : manifests) EXPECT_EQ(m.scheme, table_internal::NamingScheme::kV2);
  auto hint = loc.store->Read(dir.Key("_versions/latest_version_hint.json"));
  if (local()) {
    ASSERT_TRUE(hint.ok()) << hint.status();
    EXPECT_EQ((*hint)->ToStringView(), "{\"version\":3}");
  } else {
    EXPECT_FALSE(hint.ok());
  }
  // Every version names a .txn file that exists, written under its read version.
  for (const auto& m : manifests) {
    ASSERT_OK_AND_ASSIGN(auto loaded, table_internal::ReadManifest(dir, m));
    const std::string& txn = loaded.manifest.transaction_file();
    EXPECT_EQ(txn.substr(0, txn.find('-')), std::to_string(m.version - 1));
    EXPECT_TRUE(*loc.store->Exists(dir.Key("_transactions/" + txn)));
    EXPECT_EQ(loaded.manifest.data_format().version(), "2.2");
    EXPECT_EQ(loaded.manifest.writer_version().library(), "lance");
  }
}

TEST_P(DatasetTest, V1NamingIsKeptOnAppend) {
  const std::string uri = Uri();
  WriteParams params;
  params.enable_v2_manifest_paths = false;
  ASSERT_OK(WriteRows(uri, 0, 10, params));
  WriteParams append;
  append.mode = WriteMode::kAppend;
  append.enable_v2_manifest_paths = true;  // ignored: the dataset keeps its scheme
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRows(uri, 10, 10, append));
  ASSERT_OK_AND_ASSIGN(auto loc, io::ResolveObjectStore(uri));
  table_internal::DatasetDir dir(loc.store, loc.path);
  EXPECT_TRUE(*loc.store->Exists(dir.Key("_versions/1.manifest")));
  EXPECT_TRUE(*loc.store->Exists(dir.Key("_versions/2.manifest")));
  ASSERT_OK(ds->Delete("id < 3"));
  EXPECT_TRUE(*loc.store->Exists(dir.Key("_versions/3.manifest")));
  EXPECT_EQ(*ds->CountRows(), 17);
}

TEST_P(DatasetTest, AppendCreatesMissingDatasetAndChecksSchema) {
  const std::string uri = Uri();
  WriteParams append;
  append.mode = WriteMode::kAppend;
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRows(uri, 0, 5, append));
  EXPECT_EQ(ds->version(), 1u);

  // Columns in another order are matched by name.
  auto batch = MakeBatch(5, 5);
  auto reordered =
      RecordBatch::Make(schema({batch->schema()->field(2), batch->schema()->field(0),
                                batch->schema()->field(1)}),
                        5, {batch->column(2), batch->column(0), batch->column(1)});
  ASSERT_OK(reordered.status());
  auto reader = ReaderOf({*reordered});
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Write(*reader, uri, append));
  EXPECT_EQ(Ids(*ds), Iota(0, 10));

  // Nullable columns may be missing (as in Lance): the new fragment's data file holds
  // only the given fields and the others read as nulls.
  auto only_id =
      RecordBatch::Make(schema({batch->schema()->field(0)}), 5, {batch->column(0)});
  reader = ReaderOf({*only_id});
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Write(*reader, uri, append));
  std::vector<int64_t> want = Iota(0, 10);
  for (int64_t id : Iota(5, 10)) want.push_back(id);
  EXPECT_EQ(Ids(*ds), want);
  ASSERT_EQ(ds->fragments().back().files.size(), 1u);
  EXPECT_EQ(ds->fragments().back().files[0].fields, std::vector<int32_t>{0});
  ASSERT_OK_AND_ASSIGN(auto names, ds->CountRows("name IS NULL AND score IS NULL"));
  EXPECT_EQ(names, 5);  // the appended rows only (id 3 has a null name, not score)
  // A missing non-nullable column, a wrong type, nulls in a non-nullable column.
  auto missing =
      RecordBatch::Make(schema({batch->schema()->field(1)}), 5, {batch->column(1)});
  reader = ReaderOf({*missing});
  EXPECT_THAT(
      Dataset::Write(*reader, uri, append),
      IsErrorWith(StatusCode::kInvalid, "lacks column 'id', which is not nullable"));
  Int32Builder i32;
  ASSERT_OK(i32.AppendValues(std::vector<int32_t>{1, 2, 3, 4, 5}));
  auto wrong = RecordBatch::Make(schema({field("id", int32()), batch->schema()->field(1),
                                         batch->schema()->field(2)}),
                                 5, {*i32.Finish(), batch->column(1), batch->column(2)});
  reader = ReaderOf({*wrong});
  EXPECT_THAT(Dataset::Write(*reader, uri, append),
              IsErrorWith(StatusCode::kInvalid, "id"));
  Int64Builder with_null;
  ASSERT_OK(with_null.AppendValues(std::vector<int64_t>{1, 2, 3, 4, 5},
                                   {true, false, true, true, true}));
  auto nulls =
      RecordBatch::Make(schema({field("id", int64()), batch->schema()->field(1),
                                batch->schema()->field(2)}),
                        5, {*with_null.Finish(), batch->column(1), batch->column(2)});
  reader = ReaderOf({*nulls});
  EXPECT_THAT(Dataset::Write(*reader, uri, append),
              IsErrorWith(StatusCode::kInvalid, "nullable"));
  EXPECT_EQ(*(*Dataset::Open(uri))->CountRows(), 15);
}

TEST_P(DatasetTest, MaxRowsPerFileSplitsFragments) {
  const std::string uri = Uri();
  WriteParams params;
  params.max_rows_per_file = 100;
  params.max_rows_per_group = 30;
  auto reader = ReaderOf({MakeBatch(0, 120), MakeBatch(120, 130)});
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Write(*reader, uri, params));
  ASSERT_EQ(ds->fragments().size(), 3u);
  EXPECT_EQ(ds->fragments()[0].physical_rows, 100u);
  EXPECT_EQ(ds->fragments()[1].physical_rows, 100u);
  EXPECT_EQ(ds->fragments()[2].physical_rows, 50u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ds->fragments()[i].id, i);
    ASSERT_EQ(ds->fragments()[i].files.size(), 1u);
    EXPECT_GT(ds->fragments()[i].files[0].file_size_bytes, 0u);
    EXPECT_EQ(ds->fragments()[i].files[0].path.size(), 56u);  // 50 chars + ".lance"
  }
  EXPECT_EQ(Ids(*ds), Iota(0, 250));
}

TEST_P(DatasetTest, ScanOptions) {
  const std::string uri = Uri();
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRowsInFiles(uri, 0, 100, 40));

  ScanOptions projection;
  projection.columns = {"score", "id"};
  ASSERT_OK_AND_ASSIGN(auto table, ds->ToTable(projection));
  ASSERT_EQ(table->schema()->num_fields(), 2);
  EXPECT_EQ(table->schema()->field(0)->name(), "score");
  EXPECT_EQ(table->schema()->field(1)->name(), "id");

  ScanOptions filter;
  filter.filter = "id >= 30 AND id < 50 AND name IS NOT NULL";
  filter.columns = {"id"};
  ASSERT_OK_AND_ASSIGN(table, ds->ToTable(filter));
  std::vector<int64_t> expected;
  for (int64_t i = 30; i < 50; ++i) {
    if (i % 7 != 3) expected.push_back(i);
  }
  EXPECT_EQ(Int64Column(*table, "id"), expected);
  EXPECT_EQ(table->schema()->num_fields(), 1);  // the filter's columns are dropped

  ScanOptions paged;
  paged.offset = 35;
  paged.limit = 20;
  paged.batch_size = 7;
  EXPECT_EQ(Ids(*ds, paged), Iota(35, 55));
  ASSERT_OK_AND_ASSIGN(auto reader, ds->Scan(paged));
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
    if (!batch) break;
    EXPECT_LE(batch->num_rows(), 7);
  }
  paged.offset = 95;
  paged.limit = 100;
  EXPECT_EQ(Ids(*ds, paged), Iota(95, 100));
  paged.offset = 0;
  paged.limit = 0;
  EXPECT_TRUE(Ids(*ds, paged).empty());

  ScanOptions filtered_page;
  filtered_page.filter = "id >= 20 AND name IS NOT NULL";  // 24 has a null name
  filtered_page.offset = 3;
  filtered_page.limit = 3;
  EXPECT_EQ(Ids(*ds, filtered_page), (std::vector<int64_t>{23, 25, 26}));

  ScanOptions row_ids;
  row_ids.columns = {"id", "_rowid"};
  ASSERT_OK_AND_ASSIGN(table, ds->ToTable(row_ids));
  auto ids = Int64Column(*table, "_rowid");
  ASSERT_EQ(ids.size(), 100u);
  EXPECT_EQ(ids[0], 0);
  EXPECT_EQ(ids[40], int64_t{1} << 32);
  EXPECT_EQ(ids[99], (int64_t{2} << 32) + 19);

  ScanOptions bad;
  bad.columns = {"nope"};
  EXPECT_THAT(ds->Scan(bad), IsErrorWith(StatusCode::kInvalid, "nope"));
  bad.columns = {"id", "id"};
  EXPECT_THAT(ds->Scan(bad), IsError(StatusCode::kInvalid));
  bad.columns = {};
  bad.filter = "nope > 1";
  EXPECT_THAT(ds->Scan(bad), IsError(StatusCode::kInvalid));
  bad.filter = "";
  bad.batch_size = 0;
  EXPECT_THAT(ds->Scan(bad), IsError(StatusCode::kInvalid));

  EXPECT_EQ(*ds->CountRows("id < 10"), 10);
  EXPECT_EQ(*ds->CountRows("name IS NULL"), 14);
  EXPECT_THAT(ds->CountRows("id <"), IsError(StatusCode::kInvalid));
}

TEST_P(DatasetTest, DeletesWriteArrowAndBitmapFilesAndDropEmptyFragments) {
  const std::string uri = Uri();
  WriteParams params;
  params.max_rows_per_file = 6000;
  ASSERT_OK_AND_ASSIGN(auto ds,
                       WriteRows(uri, 0, 12100, params));  // fragments 6000/6000/100
  ASSERT_EQ(ds->fragments().size(), 3u);

  ASSERT_OK(ds->Delete("id >= 1000 AND id < 1600"));  // 600 rows of fragment 0
  EXPECT_EQ(ds->version(), 2u);
  ASSERT_TRUE(ds->fragments()[0].deletion_file.has_value());
  EXPECT_EQ(ds->fragments()[0].deletion_file->file_type,
            DeletionFileMeta::Type::kArrowArray);
  EXPECT_EQ(ds->fragments()[0].deletion_file->num_deleted_rows, 600u);
  EXPECT_EQ(ds->fragments()[0].deletion_file->read_version, 1u);
  EXPECT_FALSE(ds->fragments()[1].deletion_file.has_value());
  EXPECT_EQ(*ds->CountRows(), 12100 - 600);

  ASSERT_OK(ds->Delete("id >= 6000 AND id < 11500"));  // 5500 rows of fragment 1
  ASSERT_TRUE(ds->fragments()[1].deletion_file.has_value());
  EXPECT_EQ(ds->fragments()[1].deletion_file->file_type, DeletionFileMeta::Type::kBitmap);
  EXPECT_EQ(ds->fragments()[1].deletion_file->num_deleted_rows, 5500u);

  // More deletions in fragment 0 merge with its existing vector.
  ASSERT_OK(
      ds->Delete("id < 5 OR (id >= 1598 AND id < 1602)"));  // 1598, 1599 already are
  EXPECT_EQ(ds->fragments()[0].deletion_file->num_deleted_rows, 607u);

  // Deleting every row of fragment 2 drops it.
  ASSERT_OK(ds->Delete("id >= 12000"));
  ASSERT_EQ(ds->fragments().size(), 2u);
  EXPECT_EQ(ds->version(), 5u);

  const int64_t expected_rows = 12000 - 607 - 5500;
  EXPECT_EQ(*ds->CountRows(), expected_rows);
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 12000; ++i) {
    if ((i >= 1000 && i < 1602) || i < 5 || (i >= 6000 && i < 11500)) continue;
    expected.push_back(i);
  }
  EXPECT_EQ(Ids(*ds), expected);
  EXPECT_EQ(*ds->CountRows("id < 100"), 95);
  ScanOptions page;
  page.offset = 5390;
  page.limit = 10;
  EXPECT_EQ(Ids(*ds, page),
            std::vector<int64_t>(expected.begin() + 5390, expected.begin() + 5400));

  // A delete matching nothing still commits a version, as in Lance.
  ASSERT_OK(ds->Delete("id < 0"));
  EXPECT_EQ(ds->version(), 6u);
  EXPECT_EQ(*ds->CountRows(), expected_rows);

  // Reopened, everything holds, and old versions still see the rows.
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(uri));
  EXPECT_EQ(*reopened->CountRows(), expected_rows);
  ASSERT_OK_AND_ASSIGN(auto v1, reopened->CheckoutVersion(1));
  EXPECT_EQ(*v1->CountRows(), 12100);
  EXPECT_THAT(ds->Delete("no_such_column = 1"), IsError(StatusCode::kInvalid));
  EXPECT_EQ(ds->version(), 6u);

  // Feature flag 1 is set once deletion files exist.
  ASSERT_OK_AND_ASSIGN(auto loc, io::ResolveObjectStore(uri));
  table_internal::DatasetDir dir(loc.store, loc.path);
  ASSERT_OK_AND_ASSIGN(auto latest, table_internal::FindLatestManifest(dir));
  ASSERT_OK_AND_ASSIGN(auto m, table_internal::ReadManifest(dir, *latest));
  EXPECT_EQ(m.manifest.reader_feature_flags(), 1u);
  EXPECT_EQ(m.manifest.writer_feature_flags(), 1u);
  EXPECT_EQ(m.manifest.max_fragment_id(), 2u);
}

TEST_P(DatasetTest, DistributedWriteAndCommit) {
  const std::string uri = Uri();
  std::vector<FragmentMetadata> all;
  WriteParams params;
  params.mode = WriteMode::kOverwrite;
  for (int w = 0; w < 3; ++w) {
    auto reader = ReaderOf({MakeBatch(w * 10, 10)});
    ASSERT_OK_AND_ASSIGN(auto frags, WriteFragments(*reader, uri, params));
    ASSERT_EQ(frags.size(), 1u);
    EXPECT_EQ(frags[0].id, 0u);  // unassigned
    // Through JSON, as workers would ship them to the driver.
    ASSERT_OK_AND_ASSIGN(auto back, FragmentMetadata::FromJson(frags[0].ToJson()));
    EXPECT_EQ(back, frags[0]);
    all.push_back(back);
  }
  EXPECT_THAT(Dataset::Open(uri),
              IsError(StatusCode::kNotFound));  // nothing committed yet
  ASSERT_OK_AND_ASSIGN(auto ds,
                       Dataset::Commit(uri, OverwriteOp{MakeBatch(0, 1)->schema(), all}));
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(*ds->CountRows(), 30);
  EXPECT_EQ(Ids(*ds), Iota(0, 30));
  ASSERT_EQ(ds->fragments().size(), 3u);
  EXPECT_EQ(ds->fragments()[2].id, 2u);

  // Appends: written against version 1, committed after another append landed.
  WriteParams append;
  append.mode = WriteMode::kAppend;
  auto reader = ReaderOf({MakeBatch(30, 5)});
  ASSERT_OK_AND_ASSIGN(auto frags, WriteFragments(*reader, uri, append));
  ASSERT_OK(WriteRows(uri, 100, 1, append));
  EXPECT_THAT(Dataset::Commit(uri, AppendOp{frags}),
              IsErrorWith(StatusCode::kInvalid, "read_version"));
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Commit(uri, AppendOp{frags}, 1));
  EXPECT_EQ(ds->version(), 3u);
  EXPECT_EQ(*ds->CountRows(), 36);
  EXPECT_EQ(ds->fragments().back().id, 4u);
  EXPECT_THAT(Dataset::Commit(Uri("other.lance"), AppendOp{frags}, 1),
              IsError(StatusCode::kNotFound));

  // Fragments naming field ids the schema lacks are refused.
  FragmentMetadata bogus = frags[0];
  bogus.files[0].fields = {0, 1, 77};
  EXPECT_THAT(Dataset::Commit(uri, AppendOp{{bogus}}, 3),
              IsErrorWith(StatusCode::kInvalid, "77"));

  // An overwrite with the latest version as default read version.
  ASSERT_OK_AND_ASSIGN(
      ds, Dataset::Commit(uri, OverwriteOp{MakeBatch(0, 1)->schema(), {all[0]}}));
  EXPECT_EQ(ds->version(), 4u);
  EXPECT_EQ(Ids(*ds), Iota(0, 10));
}

TEST_P(DatasetTest, FieldsMissingFromDataFilesReadAsNulls) {
  const std::string uri = Uri();
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRows(uri, 0, 5));
  // A data file holding only "id" (field 0), written directly with the file writer.
  ASSERT_OK_AND_ASSIGN(auto loc, io::ResolveObjectStore(uri));
  table_internal::DatasetDir dir(loc.store, loc.path);
  auto batch = MakeBatch(5, 3);
  auto id_only = schema({batch->schema()->field(0)});
  ASSERT_OK_AND_ASSIGN(auto lschema, format::LanceSchema::Make(id_only, {0}));
  ASSERT_OK_AND_ASSIGN(
      auto writer,
      format::LanceFileWriter::Open(dir.store(), dir.Key("data/partial.lance"), lschema));
  ASSERT_OK(writer->WriteBatch(**RecordBatch::Make(id_only, 3, {batch->column(0)})));
  ASSERT_OK_AND_ASSIGN(auto written, writer->Close());
  FragmentMetadata frag;
  frag.physical_rows = 3;
  frag.files.push_back({"partial.lance", written.field_ids, written.column_indices,
                        written.major_version, written.minor_version,
                        static_cast<uint64_t>(written.size_bytes), std::nullopt});
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Commit(uri, AppendOp{{frag}}, 1));
  ASSERT_OK_AND_ASSIGN(auto table, ds->ToTable());
  ASSERT_OK_AND_ASSIGN(auto combined, table->CombineBatches());
  EXPECT_EQ(combined->num_rows(), 8);
  EXPECT_EQ(Int64Column(*table, "id"), Iota(0, 8));
  auto names = combined->GetColumnByName("name");
  auto scores = combined->GetColumnByName("score");
  for (int64_t i = 5; i < 8; ++i) {
    EXPECT_TRUE(names->IsNull(i));
    EXPECT_TRUE(scores->IsNull(i));
  }
  EXPECT_FALSE(scores->IsNull(4));
  EXPECT_EQ(*ds->CountRows("score IS NULL"), 3);
}

TEST_P(DatasetTest, EmptyDataCreatesAnEmptyDataset) {
  const std::string uri = Uri();
  auto s = MakeBatch(0, 1)->schema();
  auto reader = RecordBatchReader::FromBatches(s, {});
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Write(*reader, uri));
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(*ds->CountRows(), 0);
  EXPECT_TRUE(ds->fragments().empty());
  ASSERT_OK_AND_ASSIGN(auto table, ds->ToTable());
  EXPECT_EQ(table->num_rows(), 0);
  EXPECT_TRUE(table->schema()->Equals(*s));
  ASSERT_OK_AND_ASSIGN(ds, WriteRows(uri, 0, 3, WriteMode::kAppend));
  EXPECT_EQ(*ds->CountRows(), 3);
  EXPECT_EQ(ds->fragments()[0].id, 0u);
}

TEST_P(DatasetTest, NestedTypesRoundTrip) {
  const std::string uri = Uri();
  // struct<x: int32, y: utf8>, list<int64>, fixed_size_list<float, 3>.
  auto st_type = struct_({field("x", int32()), field("y", utf8())});
  StructBuilder st(st_type, [] {
    std::vector<std::unique_ptr<ArrayBuilder>> b;
    b.push_back(std::make_unique<Int32Builder>());
    b.push_back(std::make_unique<StringBuilder>());
    return b;
  }());
  ListBuilder li(std::make_unique<Int64Builder>());
  FixedSizeListBuilder fsl(std::make_unique<FloatBuilder>(), 3);
  for (int i = 0; i < 20; ++i) {
    if (i % 5 == 4) {
      ASSERT_OK(st.AppendNull());
      ASSERT_OK(li.AppendNull());
      ASSERT_OK(fsl.AppendNull());
      continue;
    }
    ASSERT_OK(st.Append());
    ASSERT_OK(static_cast<Int32Builder*>(st.field_builder(0))->Append(i));
    ASSERT_OK(static_cast<StringBuilder*>(st.field_builder(1))
                  ->Append("s" + std::to_string(i)));
    ASSERT_OK(li.Append());
    for (int k = 0; k < i % 3; ++k)
      ASSERT_OK(static_cast<Int64Builder*>(li.value_builder())->Append(i * 10 + k));
    ASSERT_OK(fsl.Append());
    for (int k = 0; k < 3; ++k)
      ASSERT_OK(static_cast<FloatBuilder*>(fsl.value_builder())->Append(i + k / 4.0f));
  }
  ASSERT_OK_AND_ASSIGN(auto st_arr, st.Finish());
  ASSERT_OK_AND_ASSIGN(auto li_arr, li.Finish());
  ASSERT_OK_AND_ASSIGN(auto fsl_arr, fsl.Finish());
  auto s = schema(
      {field("st", st_type), field("li", li_arr->type()), field("v", fsl_arr->type())});
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(s, 20, {st_arr, li_arr, fsl_arr}));
  auto reader = ReaderOf({batch});
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Write(*reader, uri));
  ASSERT_OK_AND_ASSIGN(auto table, ds->ToTable());
  ASSERT_OK_AND_ASSIGN(auto combined, table->CombineBatches());
  // File format 2.0 has no struct validity: a null struct reads back as a struct of
  // nulls (real Lance behaves the same, see the fixtures' "st" column).
  EXPECT_TRUE(combined->column(1)->Equals(li_arr));
  EXPECT_TRUE(combined->column(2)->Equals(fsl_arr));
  const auto& st_back = static_cast<const StructArray&>(*combined->column(0));
  const auto& st_orig = static_cast<const StructArray&>(*st_arr);
  EXPECT_TRUE(st_back.field(0)->Equals(st_orig.field(0)));
  EXPECT_TRUE(st_back.field(1)->Equals(st_orig.field(1)));
  ASSERT_OK(ds->Delete("st.x = 3"));
  EXPECT_EQ(*ds->CountRows(), 19);
}

TEST_P(DatasetTest, RefusesFeatureFlagsAndIgnoresTheVersionHint) {
  const std::string uri = Uri();
  ASSERT_OK(WriteRows(uri, 0, 5).status());
  WriteParams append;
  append.mode = WriteMode::kAppend;
  ASSERT_OK(WriteRows(uri, 5, 5, append).status());
  ASSERT_OK_AND_ASSIGN(auto loc, io::ResolveObjectStore(uri));
  table_internal::DatasetDir dir(loc.store, loc.path);
  // A stale (or bogus) hint changes nothing: the listing decides.
  ASSERT_OK(
      loc.store->Put(dir.Key("_versions/latest_version_hint.json"), "{\"version\":1}"));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri));
  EXPECT_EQ(ds->version(), 2u);
  ASSERT_OK(loc.store->Put(dir.Key("_versions/latest_version_hint.json"), "garbage"));
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(uri));
  EXPECT_EQ(ds->version(), 2u);

  // Reader flags we cannot honour are refused, naming the flag and the manifest.
  ASSERT_OK_AND_ASSIGN(auto latest, table_internal::FindLatestManifest(dir));
  ASSERT_OK_AND_ASSIGN(auto m, table_internal::ReadManifest(dir, *latest));
  ASSERT_OK_AND_ASSIGN(auto original_bytes, loc.store->Read(latest->key));
  const std::string original(original_bytes->ToStringView());
  for (uint64_t flag : {uint64_t{2}, uint64_t{16}, uint64_t{64}}) {
    auto flagged = m.manifest;
    flagged.set_reader_feature_flags(flag);
    ASSERT_OK(loc.store->Put(
        latest->key, table_internal::SerializeManifestFile(flagged, "", nullptr)));
    auto opened = Dataset::Open(uri);
    EXPECT_THAT(opened, IsErrorWith(StatusCode::kNotImplemented, "feature flag"));
    EXPECT_THAT(opened, IsErrorWith(StatusCode::kNotImplemented,
                                    table_internal::ManifestFileName(2, latest->scheme)));
    // Nor can anyone append on top of it.
    EXPECT_THAT(WriteRows(uri, 10, 1, append), IsError(StatusCode::kNotImplemented));
  }
  ASSERT_OK(loc.store->Put(latest->key, original));
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(uri));
  EXPECT_EQ(*ds->CountRows(), 10);
}

// Arithmetic reaches every entry point that takes a filter (the semantics themselves are
// in predicate_arith_test.cc): scans, counts and deletes agree with the same expression
// computed here, and a failing row fails the call with a Status instead of a crash.
TEST_P(DatasetTest, ArithmeticFiltersScanCountAndDelete) {
  const std::string uri = Uri();
  ASSERT_OK_AND_ASSIGN(
      auto ds,
      WriteRowsInFiles(uri, 0, 1000, 400));  // three fragments, so every one is filtered

  // C++ integer / and % truncate toward zero like DataFusion's, so the expected rows can
  // be computed with them directly.
  auto expect_rows = [&](const std::string& filter, auto keep) {
    std::vector<int64_t> expected;
    for (int64_t i = 0; i < 1000; ++i) {
      if (keep(i)) expected.push_back(i);
    }
    ScanOptions options;
    options.filter = filter;
    EXPECT_EQ(Ids(*ds, options), expected) << filter;
    ASSERT_OK_AND_ASSIGN(int64_t count, ds->CountRows(filter));
    EXPECT_EQ(count, static_cast<int64_t>(expected.size())) << filter;
  };
  expect_rows("id % 7 = 3", [](int64_t i) { return i % 7 == 3; });
  expect_rows("(id - 500) / 7 = -1", [](int64_t i) { return (i - 500) / 7 == -1; });
  expect_rows("(id - 500) % 7 = -3", [](int64_t i) { return (i - 500) % 7 == -3; });
  expect_rows("score * 2 = id AND -id > -10", [](int64_t i) { return i < 10; });
  expect_rows("id + 1 * 2 = 12", [](int64_t i) { return i == 10; });
  expect_rows("(id + 1) * 2 = 12", [](int64_t i) { return i == 5; });
  expect_rows("id / 2.0 BETWEEN 3 AND 4", [](int64_t i) { return i >= 6 && i <= 8; });
  // int64 multiplication wraps (DataFusion does not check it): id * 2^62 is 0, 2^62,
  // -2^63, -2^62 for id = 0, 1, 2, 3 (mod 4).
  expect_rows("id * 4611686018427387904 < 0", [](int64_t i) { return i % 4 >= 2; });

  // A zero divisor on a row that is evaluated fails the call; a failed delete commits
  // nothing.
  const std::string by_zero = "id / (id % 7 - 3) > 0";
  EXPECT_THAT(ds->CountRows(by_zero),
              IsErrorWith(StatusCode::kInvalid, "Divide by zero"));
  ScanOptions failing;
  failing.filter = by_zero;
  EXPECT_THAT(ds->ToTable(failing), IsErrorWith(StatusCode::kInvalid, "Divide by zero"));
  EXPECT_THAT(ds->Delete(by_zero), IsErrorWith(StatusCode::kInvalid, "Divide by zero"));
  EXPECT_EQ(ds->version(), 1u);
  // Strings take no arithmetic, said before anything is read.
  EXPECT_THAT(ds->CountRows("name + 1 > 0"),
              IsErrorWith(StatusCode::kInvalid,
                          "arithmetic '+' needs numeric operands, but name is utf8"));

  ASSERT_OK(ds->Delete("id % 7 = 3 OR score * 4 < 10"));  // ids 0-4 and 3 + 7k
  EXPECT_EQ(ds->version(), 2u);
  std::vector<int64_t> left;
  for (int64_t i = 5; i < 1000; ++i) {
    if (i % 7 != 3) left.push_back(i);
  }
  EXPECT_EQ(Ids(*ds), left);
  EXPECT_EQ(*ds->CountRows("id % 7 = 3"), 0);
}

INSTANTIATE_TEST_SUITE_P(Stores, DatasetTest, ::testing::Values(true, false),
                         [](const auto& info) {
                           return info.param ? "Local" : "Memory";
                         });

TEST(DatasetModeTest, ParseWriteMode) {
  EXPECT_EQ(*ParseWriteMode("create"), WriteMode::kCreate);
  EXPECT_EQ(*ParseWriteMode("append"), WriteMode::kAppend);
  EXPECT_EQ(*ParseWriteMode("overwrite"), WriteMode::kOverwrite);
  EXPECT_THAT(ParseWriteMode("upsert"), IsError(StatusCode::kInvalid));
}

}  // namespace
}  // namespace lance
