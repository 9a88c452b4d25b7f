// SPDX-License-Identifier: Apache-2.0
#include "table/deletion.h"

#include <gtest/gtest.h>

#include "lance/io/local_object_store.h"
#include "lance/io/memory_object_store.h"
#include "lance/ipc/writer.h"
#include "tests/dataset/table_test_util.h"
#include "tests/testing/matchers.h"

namespace lance::table_internal {
namespace {

using namespace table_testing;  // NOLINT(build/namespaces)

TEST(DeletionFileTest, ReadsLanceArrowAndBitmapFiles) {
  auto store = *io::LocalObjectStore::Make(table_testing::FixtureDir());
  // basic_v20_v1names: fragment 0 has 100 deletions (i32 % 10 == 0), fragment 1 has 20.
  DatasetDir dir(store, "basic_v20_v1names.lance");
  auto all = ListManifests(dir);
  ASSERT_TRUE(all.ok());
  auto m = ReadManifest(dir, all->back());
  ASSERT_TRUE(m.ok());
  for (const auto& frag : m->manifest.fragments()) {
    ASSERT_TRUE(frag.has_deletion_file());
    EXPECT_EQ(frag.deletion_file().file_type(), pb::DeletionFile::ARROW_ARRAY);
    auto dv =
        ReadDeletionFile(dir, frag.id(), frag.deletion_file(), frag.physical_rows());
    ASSERT_TRUE(dv.ok()) << dv.status();
    EXPECT_EQ(dv->size(), frag.deletion_file().num_deleted_rows());
    // Row r of fragment 0 holds i32 = r, so deleted offsets are multiples of 10.
    if (frag.id() == 0) {
      for (uint32_t v : *dv) EXPECT_EQ(v % 10, 0u);
    }
  }
  DatasetDir bitmap(store, "bitmap_del_v21.lance");
  auto bm = ReadManifest(bitmap, *FindManifest(bitmap, 2));
  ASSERT_TRUE(bm.ok()) << bm.status();
  const auto& frag = bm->manifest.fragments(0);
  EXPECT_EQ(frag.deletion_file().file_type(), pb::DeletionFile::BITMAP);
  auto dv =
      ReadDeletionFile(bitmap, frag.id(), frag.deletion_file(), frag.physical_rows());
  ASSERT_TRUE(dv.ok()) << dv.status();
  EXPECT_EQ(dv->size(), 5500u);
}

TEST(DeletionFileTest, WritesArrowUpToThresholdAndBitmapAbove) {
  auto store = std::make_shared<io::MemoryObjectStore>("deletions");
  DatasetDir dir(store, "ds");
  for (size_t n : {size_t{1}, size_t{5000}, size_t{5001}, size_t{60000}}) {
    DeletionVector rows;
    for (uint32_t i = 0; i < n; ++i) rows.push_back(i * 3);
    auto file = WriteDeletionFile(dir, 7, 2, rows);
    ASSERT_TRUE(file.ok()) << file.status();
    EXPECT_EQ(file->file_type(),
              n <= 5000 ? pb::DeletionFile::ARROW_ARRAY : pb::DeletionFile::BITMAP);
    EXPECT_EQ(file->num_deleted_rows(), n);
    EXPECT_EQ(file->read_version(), 2u);
    const std::string rel = DeletionFileRelativePath(7, *file);
    EXPECT_EQ(rel.rfind("_deletions/7-2-", 0), 0u);
    EXPECT_TRUE(rel.ends_with(n <= 5000 ? ".arrow" : ".bin"));
    auto back = ReadDeletionFile(dir, 7, *file, 200000);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, rows);
  }
}

TEST(DeletionFileTest, ArrowFilesAreZstdCompressedIpc) {
  DeletionVector rows;
  for (uint32_t i = 0; i < 1000; ++i) rows.push_back(i);
  pb::DeletionFile::DeletionFileType type;
  auto bytes = EncodeDeletionFile(rows, &type);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->substr(0, 6), "ARROW1");
  // Smaller than the same batch without body compression.
  UInt32Builder b;
  ASSERT_TRUE(b.AppendValues(rows).ok());
  auto batch =
      RecordBatch::Make(schema({field("row_id", uint32(), false)}), 1000, {*b.Finish()});
  auto plain = ipc::WriteIpcFile(**batch);
  ASSERT_TRUE(plain.ok());
  EXPECT_LT(bytes->size() + 500, static_cast<size_t>((*plain)->size()));
}

TEST(DeletionFileTest, RejectsBadContent) {
  pb::DeletionFile::DeletionFileType type;
  auto bytes = EncodeDeletionFile({1, 2, 300}, &type);
  ASSERT_TRUE(bytes.ok());
  // Offsets beyond the fragment's rows.
  EXPECT_THAT(ParseDeletionFile(*bytes, type, 100, "f.arrow"),
              IsErrorWith(StatusCode::kCorrupt, "f.arrow"));
  // A file of the wrong kind.
  EXPECT_THAT(ParseDeletionFile(*bytes, pb::DeletionFile::BITMAP, 1000, "f.bin"),
              IsErrorWith(StatusCode::kCorrupt, "f.bin"));
  EXPECT_THAT(
      ParseDeletionFile("garbage", pb::DeletionFile::ARROW_ARRAY, 1000, "g.arrow"),
      IsErrorWith(StatusCode::kCorrupt, "g.arrow"));
  // Wrong schema: an int32 column.
  Int32Builder b;
  ASSERT_TRUE(b.Append(1).ok());
  auto batch =
      RecordBatch::Make(schema({field("row_id", int32(), false)}), 1, {*b.Finish()});
  auto wrong = ipc::WriteIpcFile(**batch);
  ASSERT_TRUE(wrong.ok());
  EXPECT_THAT(ParseDeletionFile((*wrong)->ToStringView(), pb::DeletionFile::ARROW_ARRAY,
                                10, "w.arrow"),
              IsErrorWith(StatusCode::kCorrupt, "row_id"));
}

TEST(DeletionFileTest, MergeIsASortedUnion) {
  EXPECT_EQ(MergeDeletions({1, 5, 9}, {2, 5, 10}), (DeletionVector{1, 2, 5, 9, 10}));
  EXPECT_EQ(MergeDeletions({}, {3}), (DeletionVector{3}));
}

}  // namespace
}  // namespace lance::table_internal
