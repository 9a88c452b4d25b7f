// SPDX-License-Identifier: Apache-2.0
// LanceSchema, logical type strings and the Field protobuf conversion.

#include <gtest/gtest.h>

#include "format/schema_proto.h"
#include "lance/format/lance_schema.h"
#include "tests/testing/matchers.h"

namespace lance::format {
namespace {

using ::lance::testing::IsError;
using ::lance::testing::IsErrorWith;

struct TypeCase {
  DataTypePtr type;
  std::string logical;
};

std::vector<TypeCase> LeafCases() {
  return {
      {boolean(), "bool"},
      {int8(), "int8"},
      {int16(), "int16"},
      {int32(), "int32"},
      {int64(), "int64"},
      {uint8(), "uint8"},
      {uint16(), "uint16"},
      {uint32(), "uint32"},
      {uint64(), "uint64"},
      {float16(), "halffloat"},
      {float32(), "float"},
      {float64(), "double"},
      {utf8(), "string"},
      {large_utf8(), "large_string"},
      {binary(), "binary"},
      {large_binary(), "large_binary"},
      {fixed_size_binary(16), "fixed_size_binary:16"},
      {date32(), "date32:day"},
      {timestamp(TimeUnit::kSecond), "timestamp:s:-"},
      {timestamp(TimeUnit::kMilli), "timestamp:ms:-"},
      {timestamp(TimeUnit::kMicro, "UTC"), "timestamp:us:UTC"},
      {timestamp(TimeUnit::kNano, "America/New_York"), "timestamp:ns:America/New_York"},
      {fixed_size_list(float32(), 128), "fixed_size_list:float:128"},
      {fixed_size_list(timestamp(TimeUnit::kMicro, "UTC"), 2),
       "fixed_size_list:timestamp:us:UTC:2"},
      {fixed_size_list(fixed_size_binary(3), 4), "fixed_size_list:fixed_size_binary:3:4"},
      {fixed_size_list(boolean(), 7), "fixed_size_list:bool:7"},
  };
}

TEST(LogicalTypeTest, LeafRoundTrips) {
  for (const auto& c : LeafCases()) {
    ASSERT_OK_AND_ASSIGN(std::string s, LogicalTypeString(*c.type));
    EXPECT_EQ(s, c.logical) << c.type->ToString();
    ASSERT_OK_AND_ASSIGN(DataTypePtr back, DataTypeFromLogicalType(s));
    EXPECT_TRUE(back->Equals(*c.type)) << s << " -> " << back->ToString();
  }
}

TEST(LogicalTypeTest, NestedStrings) {
  auto st = struct_({field("x", int32()), field("y", utf8())});
  EXPECT_EQ(*LogicalTypeString(*st), "struct");
  EXPECT_EQ(*LogicalTypeString(*list(int32())), "list");
  EXPECT_EQ(*LogicalTypeString(*large_list(utf8())), "large_list");
  EXPECT_EQ(*LogicalTypeString(*list(st)), "list.struct");
  EXPECT_EQ(*LogicalTypeString(*large_list(st)), "large_list.struct");

  ASSERT_OK_AND_ASSIGN(auto l, DataTypeFromLogicalType("list", {field("item", int32())}));
  EXPECT_TRUE(l->Equals(*list(int32())));
  ASSERT_OK_AND_ASSIGN(auto ls,
                       DataTypeFromLogicalType("large_list.struct", {field("item", st)}));
  EXPECT_TRUE(ls->Equals(*large_list(st)));
  ASSERT_OK_AND_ASSIGN(auto s2, DataTypeFromLogicalType("struct", st->fields()));
  EXPECT_TRUE(s2->Equals(*st));
}

TEST(LogicalTypeTest, Rejects) {
  EXPECT_THAT(DataTypeFromLogicalType("decimal:128:10:2"),
              IsErrorWith(StatusCode::kNotImplemented, "decimal:128:10:2"));
  EXPECT_THAT(DataTypeFromLogicalType("fixed_size_list:lance.bfloat16:8"),
              IsError(StatusCode::kNotImplemented));
  EXPECT_THAT(DataTypeFromLogicalType("json"), IsError(StatusCode::kNotImplemented));
  EXPECT_THAT(DataTypeFromLogicalType("fixed_size_binary:x"),
              IsError(StatusCode::kInvalid));
  EXPECT_THAT(DataTypeFromLogicalType("fixed_size_list:float:0"),
              IsError(StatusCode::kInvalid));
  EXPECT_THAT(DataTypeFromLogicalType("timestamp:xs:-"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(DataTypeFromLogicalType("list"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(DataTypeFromLogicalType("list.struct", {field("item", int32())}),
              IsError(StatusCode::kInvalid));
  EXPECT_THAT(DataTypeFromLogicalType("int32", {field("c", int32())}),
              IsError(StatusCode::kInvalid));
  EXPECT_THAT(LogicalTypeString(*fixed_size_list(utf8(), 2)),
              IsError(StatusCode::kNotImplemented));
  EXPECT_THAT(LogicalTypeString(*fixed_size_list(fixed_size_list(float32(), 2), 2)),
              IsError(StatusCode::kNotImplemented));
}

SchemaPtr NestedSchema() {
  auto st = struct_({field("x", int32()), field("tags", list(utf8()))});
  return schema({field("id", int64(), false), field("s", st),
                 field("ls", large_list(struct_({field("a", float64())}))),
                 field("vec", fixed_size_list(float32(), 4))},
                {{"owner", "me"}});
}

TEST(LanceSchemaTest, AssignPreorder) {
  ASSERT_OK_AND_ASSIGN(LanceSchema s, LanceSchema::Assign(NestedSchema()));
  // id, s, s.x, s.tags, s.tags.item, ls, ls.item, ls.item.a, vec
  EXPECT_EQ(s.field_ids(), (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(s.SubtreeIds(1), (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(s.SubtreeIds(3), (std::vector<int32_t>{8}));
  EXPECT_EQ(s.TopLevelIndexOfId(5), 2);
  EXPECT_EQ(s.TopLevelIndexOfId(2), -1);
  EXPECT_EQ(s.max_field_id(), 8);
  ASSERT_OK_AND_ASSIGN(LanceSchema p, s.Project({"vec", "s"}));
  EXPECT_EQ(p.field_ids(), (std::vector<int32_t>{8, 1, 2, 3, 4}));
  EXPECT_THAT(s.Project({"nope"}), IsErrorWith(StatusCode::kInvalid, "nope"));
  ASSERT_OK_AND_ASSIGN(LanceSchema shifted, LanceSchema::Assign(NestedSchema(), 10));
  EXPECT_EQ(shifted.field_ids().front(), 10);
  EXPECT_THAT(LanceSchema::Make(NestedSchema(), {1, 2, 3}),
              IsError(StatusCode::kInvalid));
  EXPECT_THAT(LanceSchema::Make(NestedSchema(), {0, 1, 2, 3, 4, 5, 6, 7, 7}),
              IsError(StatusCode::kInvalid));
}

TEST(SchemaProtoTest, RoundTripMatchesLance) {
  ASSERT_OK_AND_ASSIGN(LanceSchema s, LanceSchema::Assign(NestedSchema()));
  lance::file::Schema pb;
  ASSERT_OK(SchemaToProto(s, &pb));
  ASSERT_EQ(pb.fields_size(), 9);
  const auto& f0 = pb.fields(0);
  EXPECT_EQ(f0.name(), "id");
  EXPECT_EQ(f0.parent_id(), -1);
  EXPECT_EQ(f0.logical_type(), "int64");
  EXPECT_FALSE(f0.nullable());
  EXPECT_EQ(f0.encoding(), lance::file::Field::PLAIN);
  EXPECT_EQ(pb.fields(1).logical_type(), "struct");
  EXPECT_EQ(pb.fields(1).encoding(), lance::file::Field::NONE);
  EXPECT_EQ(pb.fields(3).logical_type(), "list");
  EXPECT_EQ(pb.fields(3).parent_id(), 1);
  EXPECT_EQ(pb.fields(4).name(), "item");
  EXPECT_EQ(pb.fields(4).encoding(), lance::file::Field::VAR_BINARY);
  EXPECT_EQ(pb.fields(5).logical_type(), "large_list.struct");
  EXPECT_EQ(pb.fields(8).logical_type(), "fixed_size_list:float:4");
  EXPECT_EQ(pb.metadata().at("owner"), "me");

  // The wire form of parent_id -1 is a 10-byte varint, as real Lance writes it.
  const std::string bytes = pb.fields(0).SerializeAsString();
  EXPECT_NE(bytes.find(std::string("\x20\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11)),
            std::string::npos);

  ASSERT_OK_AND_ASSIGN(LanceSchema back, SchemaFromProto(pb));
  EXPECT_TRUE(back.Equals(s)) << back.schema()->ToString();
}

TEST(SchemaProtoTest, FieldMetadataAndNonContiguousIds) {
  auto sch = schema({field("a", int32(), true, {{"k2", "v2"}, {"k1", "v1"}}),
                     field("b", struct_({field("c", utf8())}))});
  ASSERT_OK_AND_ASSIGN(LanceSchema s, LanceSchema::Make(sch, {7, 3, 12}));
  lance::file::Schema pb;
  ASSERT_OK(SchemaToProto(s, &pb));
  ASSERT_OK_AND_ASSIGN(LanceSchema back, SchemaFromProto(pb));
  EXPECT_EQ(back.field_ids(), (std::vector<int32_t>{7, 3, 12}));
  // Metadata comes back sorted by key.
  const auto& md = back.schema()->field(0)->metadata();
  ASSERT_EQ(md.size(), 2u);
  EXPECT_EQ(md[0].first, "k1");
}

lance::file::Field* AddField(lance::file::Schema* pb, const std::string& name, int id,
                             int parent, const std::string& type) {
  auto* f = pb->add_fields();
  f->set_name(name);
  f->set_id(id);
  f->set_parent_id(parent);
  f->set_logical_type(type);
  f->set_nullable(true);
  return f;
}

TEST(SchemaProtoTest, ChildrenListedLaterStillAttach) {
  // Fields added to a struct later (add_columns) come after other top-level fields.
  lance::file::Schema pb;
  AddField(&pb, "s", 0, -1, "struct");
  AddField(&pb, "x", 1, 0, "int32");
  AddField(&pb, "t", 2, -1, "int64");
  AddField(&pb, "y", 3, 0, "string");
  ASSERT_OK_AND_ASSIGN(LanceSchema s, SchemaFromProto(pb));
  EXPECT_EQ(s.schema()->num_fields(), 2);
  EXPECT_EQ(s.schema()->field(0)->type()->num_fields(), 2);
  EXPECT_EQ(s.field_ids(), (std::vector<int32_t>{0, 1, 3, 2}));
}

TEST(SchemaProtoTest, BadSchemas) {
  {
    lance::file::Schema pb;
    AddField(&pb, "a", 0, -1, "int32");
    AddField(&pb, "b", 0, -1, "int32");
    EXPECT_THAT(SchemaFromProto(pb), IsErrorWith(StatusCode::kCorrupt, "repeats"));
  }
  {
    lance::file::Schema pb;
    AddField(&pb, "a", 0, 5, "int32");
    EXPECT_THAT(SchemaFromProto(pb), IsErrorWith(StatusCode::kCorrupt, "parent id 5"));
  }
  {
    lance::file::Schema pb;
    AddField(&pb, "a", 0, 0, "int32");
    EXPECT_THAT(SchemaFromProto(pb), IsError(StatusCode::kCorrupt));
  }
  {
    lance::file::Schema pb;
    AddField(&pb, "d", 0, -1, "decimal:128:5:2");
    EXPECT_THAT(SchemaFromProto(pb), IsErrorWith(StatusCode::kNotImplemented, "decimal"));
  }
  {
    lance::file::Schema pb;
    AddField(&pb, "l", 0, -1, "list");
    EXPECT_THAT(SchemaFromProto(pb), IsError(StatusCode::kCorrupt));
  }
  {
    lance::file::Schema pb;
    AddField(&pb, "i", 0, -1, "int32");
    AddField(&pb, "c", 1, 0, "int32");
    EXPECT_THAT(SchemaFromProto(pb), IsError(StatusCode::kCorrupt));
  }
  {
    lance::file::Schema pb;
    AddField(&pb, "n", -4, -1, "int32");
    EXPECT_THAT(SchemaFromProto(pb), IsError(StatusCode::kCorrupt));
  }
  {
    // A chain deeper than the nesting limit.
    lance::file::Schema pb;
    AddField(&pb, "s0", 0, -1, "struct");
    for (int i = 1; i < 200; ++i)
      AddField(&pb, "s" + std::to_string(i), i, i - 1, "struct");
    EXPECT_THAT(SchemaFromProto(pb), IsError(StatusCode::kCorrupt));
  }
}

}  // namespace
}  // namespace lance::format
