// SPDX-License-Identifier: Apache-2.0
#include "lance/dataset/fragment.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dataset/fragment_internal.h"
#include "tests/testing/matchers.h"

namespace lance {
namespace {

using ::lance::testing::IsError;
using ::lance::testing::IsErrorWith;
using nlohmann::json;

// Verbatim outputs of pylance 14.0.2's FragmentMetadata.to_json() (json.dumps).
constexpr const char* kPylanceFragment =
    R"({"id": 0, "files": [{"fields": [0, 1], "column_indices": [0, 1], )"
    R"("file_major_version": 2, "file_minor_version": 0, "file_size_bytes": 639, )"
    R"("base_id": null, "path": "0000001001011110110110102239c145fe9fe1648ff0b303c4.lance"}], )"
    R"("overlays": [], "physical_rows": 3, "deletion_file": null, "row_id_meta": null, )"
    R"("created_at_version_meta": null, "last_updated_at_version_meta": null})";
constexpr const char* kPylanceBitmapFragment =
    R"({"id": 0, "files": [{"fields": [0], "column_indices": [0], "file_major_version": 2, )"
    R"("file_minor_version": 0, "file_size_bytes": 56212, "base_id": null, )"
    R"("path": "01110101100001101011110002ed2f4335b498a1957c1dbfea.lance"}], "overlays": [], )"
    R"("physical_rows": 7000, "deletion_file": {"read_version": 1, "id": 2315726111221995777, )"
    R"("file_type": "bitmap", "num_deleted_rows": 6000, "base_id": null}, "row_id_meta": null, )"
    R"("created_at_version_meta": null, "last_updated_at_version_meta": null})";

TEST(FragmentJsonTest, ParsesPylanceOutput) {
  auto f = FragmentMetadata::FromJson(kPylanceFragment);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->id, 0u);
  EXPECT_EQ(f->physical_rows, 3u);
  ASSERT_EQ(f->files.size(), 1u);
  EXPECT_EQ(f->files[0].fields, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(f->files[0].file_size_bytes, 639u);
  EXPECT_FALSE(f->deletion_file.has_value());
  EXPECT_EQ(f->num_rows(), 3u);

  auto b = FragmentMetadata::FromJson(kPylanceBitmapFragment);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE(b->deletion_file.has_value());
  EXPECT_EQ(b->deletion_file->file_type, DeletionFileMeta::Type::kBitmap);
  EXPECT_EQ(b->deletion_file->id, 2315726111221995777ull);
  EXPECT_EQ(b->num_rows(), 1000u);
  EXPECT_EQ(b->deletion_file->RelativePath(0), "_deletions/0-1-2315726111221995777.bin");
}

TEST(FragmentJsonTest, ProducesPylanceShape) {
  // Same JSON value (keys, order, nulls) as pylance produced.
  for (const char* text : {kPylanceFragment, kPylanceBitmapFragment}) {
    auto f = FragmentMetadata::FromJson(text);
    ASSERT_TRUE(f.ok());
    const std::string ours = f->ToJson();
    EXPECT_EQ(nlohmann::ordered_json::parse(ours), nlohmann::ordered_json::parse(text))
        << ours;
    auto again = FragmentMetadata::FromJson(ours);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *f);
  }
  FragmentMetadata m;
  m.id = 4;
  m.physical_rows = 10;
  m.files.push_back({"a.lance", {0, 1, 2}, {0, 1, 2}, 2, 0, 0, std::nullopt});
  m.deletion_file =
      DeletionFileMeta{DeletionFileMeta::Type::kArrowArray, 3, 7, 2, std::nullopt};
  json j = json::parse(m.ToJson());
  EXPECT_TRUE(j["files"][0]["file_size_bytes"].is_null());  // 0 = unknown
  EXPECT_EQ(j["deletion_file"]["file_type"], "array");
  EXPECT_EQ(m.deletion_file->RelativePath(4), "_deletions/4-3-7.arrow");
}

TEST(FragmentJsonTest, AcceptsMinimalAndRejectsBadJson) {
  auto minimal = FragmentMetadata::FromJson(
      R"({"id": 3, "files": [{"path": "a.lance", "fields": [0], "column_indices": [0],)"
      R"( "file_major_version": 2, "file_minor_version": 0}], "physical_rows": 5})");
  ASSERT_TRUE(minimal.ok()) << minimal.status();
  EXPECT_EQ(minimal->id, 3u);
  EXPECT_EQ(minimal->files[0].file_size_bytes, 0u);

  EXPECT_THAT(FragmentMetadata::FromJson("{"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(FragmentMetadata::FromJson("[]"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(FragmentMetadata::FromJson(R"({"id": -1})"),
              IsErrorWith(StatusCode::kInvalid, "id"));
  EXPECT_THAT(FragmentMetadata::FromJson(R"({"id": 1, "files": [{"fields": [0]}]})"),
              IsErrorWith(StatusCode::kInvalid, "path"));
  EXPECT_THAT(FragmentMetadata::FromJson(
                  R"({"id": 1, "files": [{"path": "a", "fields": ["x"]}]})"),
              IsErrorWith(StatusCode::kInvalid, "fields"));
  EXPECT_THAT(
      FragmentMetadata::FromJson(
          R"({"id": 1, "deletion_file": {"read_version": 1, "id": 2, "file_type": "zip"}})"),
      IsErrorWith(StatusCode::kInvalid, "file_type"));
  EXPECT_THAT(FragmentMetadata::FromJson(R"({"id": 1, "row_id_meta": {"inline": [1]}})"),
              IsError(StatusCode::kNotImplemented));
}

TEST(FragmentJsonTest, ProtoRoundTrip) {
  auto f = FragmentMetadata::FromJson(kPylanceBitmapFragment);
  ASSERT_TRUE(f.ok());
  auto proto = table_internal::FragmentToProto(*f);
  EXPECT_EQ(proto.deletion_file().file_type(), ::lance::table::DeletionFile::BITMAP);
  EXPECT_EQ(table_internal::FragmentFromProto(proto), *f);
}

}  // namespace
}  // namespace lance
