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
      // The types pylance 14.0.2 added (strings checked against its manifests below).
      {null(), "null"},
      {decimal128(10, 2), "decimal:128:10:2"},
      {decimal128(5, -2), "decimal:128:5:-2"},
      {decimal256(40, 2), "decimal:256:40:2"},
      {decimal256(76, 38), "decimal:256:76:38"},
      {date64(), "date64:ms"},
      {time32(TimeUnit::kSecond), "time32:s"},
      {time32(TimeUnit::kMilli), "time32:ms"},
      {time64(TimeUnit::kMicro), "time64:us"},
      {time64(TimeUnit::kNano), "time64:ns"},
      {duration(TimeUnit::kSecond), "duration:s"},
      {duration(TimeUnit::kMilli), "duration:ms"},
      {duration(TimeUnit::kMicro), "duration:us"},
      {duration(TimeUnit::kNano), "duration:ns"},
      {dictionary(int32(), utf8()), "dict:string:int32:false"},
      {dictionary(int8(), utf8()), "dict:string:int8:false"},
      {dictionary(uint16(), int64()), "dict:int64:uint16:false"},
      {dictionary(int32(), large_utf8()), "dict:large_string:int32:false"},
      {dictionary(int32(), null()), "dict:null:int32:false"},
      {dictionary(uint64(), binary()), "dict:binary:uint64:false"},
      {dictionary(int16(), float16()), "dict:halffloat:int16:false"},
      {fixed_size_list(decimal128(5, 2), 2), "fixed_size_list:decimal:128:5:2:2"},
      {fixed_size_list(time64(TimeUnit::kMicro), 2), "fixed_size_list:time64:us:2"},
      {fixed_size_list(duration(TimeUnit::kMilli), 2), "fixed_size_list:duration:ms:2"},
      {fixed_size_list(date64(), 2), "fixed_size_list:date64:ms:2"},
      {fixed_size_list(null(), 2), "fixed_size_list:null:2"},
      {fixed_size_list(decimal256(40, -3), 3), "fixed_size_list:decimal:256:40:-3:3"},
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

TEST(LogicalTypeTest, MapAndDictionary) {
  auto m = map(utf8(), int32());
  EXPECT_EQ(*LogicalTypeString(*m), "map");
  // The map's one Lance child is its entries struct.
  ASSERT_OK_AND_ASSIGN(auto back, DataTypeFromLogicalType("map", m->fields()));
  EXPECT_TRUE(back->Equals(*m));
  EXPECT_EQ(back->fields()[0]->name(), "entries");
  EXPECT_EQ(CountLanceFields(*m), 4);
  EXPECT_EQ(CountLanceFields(*map(utf8(), map(utf8(), int32()))), 7);
  EXPECT_EQ(CountLanceFields(*list(map(utf8(), struct_({field("x", int32())})))), 6);
  EXPECT_EQ(CountLanceFields(*dictionary(int32(), utf8())), 1);
  EXPECT_EQ(CountLanceFields(*null()), 1);
  // Lance drops the ordered flag (it writes "false"); "true" reads as ordered.
  EXPECT_EQ(*LogicalTypeString(*dictionary(int32(), utf8(), true)),
            "dict:string:int32:false");
  ASSERT_OK_AND_ASSIGN(auto ordered, DataTypeFromLogicalType("dict:string:int32:true"));
  EXPECT_TRUE(ordered->ordered());
}

TEST(LogicalTypeTest, Rejects) {
  EXPECT_THAT(DataTypeFromLogicalType("decimal:64:10:2"),
              IsErrorWith(StatusCode::kNotImplemented, "decimal:64:10:2"));
  for (const char* bad :
       {"decimal:128:10", "decimal:128:39:2", "decimal:256:77:2", "decimal:128:10:200",
        "decimal:128:0:0", "decimal:x:10:2", "decimal:128:10:2:1", "time32:us",
        "time64:s", "time32:x", "duration:d", "dict:string:int32",
        "dict:string:int32:maybe", "dict:struct:int32:false", "dict:string:float:false",
        "dict:timestamp:us:-:int32:false", "dict:decimal:128:5:2:int32:false",
        "dict:date32:day:int32:false", "fixed_size_list:decimal:128:50:2:2"}) {
    EXPECT_THAT(DataTypeFromLogicalType(bad), IsError(StatusCode::kInvalid)) << bad;
  }
  EXPECT_THAT(DataTypeFromLogicalType("map"),
              IsErrorWith(StatusCode::kInvalid, "entries"));
  EXPECT_THAT(DataTypeFromLogicalType("map", {field("entries", int32(), false)}),
              IsError(StatusCode::kInvalid));
  EXPECT_THAT(
      DataTypeFromLogicalType(
          "map",
          {field("entries", struct_({field("k", utf8()), field("v", int8())}), false)}),
      IsErrorWith(StatusCode::kInvalid, "key field 'k'"));
  EXPECT_THAT(DataTypeFromLogicalType("null", {field("c", int32())}),
              IsError(StatusCode::kInvalid));
  // What Lance itself refuses to store.
  EXPECT_THAT(LogicalTypeString(*map(utf8(), int32(), /*keys_sorted=*/true)),
              IsErrorWith(StatusCode::kNotImplemented, "sorted keys"));
  EXPECT_THAT(LogicalTypeString(*dictionary(int32(), timestamp(TimeUnit::kMicro))),
              IsError(StatusCode::kNotImplemented));
  EXPECT_THAT(LogicalTypeString(*dictionary(int32(), decimal128(5, 1))),
              IsError(StatusCode::kNotImplemented));
  EXPECT_THAT(LogicalTypeString(*dictionary(int32(), date32())),
              IsError(StatusCode::kNotImplemented));
  EXPECT_THAT(LogicalTypeString(*dictionary(int32(), list(utf8()))),
              IsError(StatusCode::kNotImplemented));
  EXPECT_THAT(LogicalTypeString(*decimal128(5, 200)),
              IsErrorWith(StatusCode::kNotImplemented, "[-128, 127]"));
  EXPECT_THAT(LogicalTypeString(*fixed_size_list(dictionary(int32(), utf8()), 2)),
              IsError(StatusCode::kNotImplemented));
  EXPECT_THAT(LogicalTypeString(*fixed_size_list(map(utf8(), int32()), 2)),
              IsError(StatusCode::kNotImplemented));
  EXPECT_THAT(LanceSchema::Assign(schema({field("m", map(utf8(), int32(), true))})),
              IsErrorWith(StatusCode::kNotImplemented, "field 'm'"));
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
  EXPECT_THAT(LogicalTypeString(*fixed_size_list(fixed_size_list(utf8(), 2), 2)),
              IsError(StatusCode::kNotImplemented));
}

TEST(LogicalTypeTest, NestedFixedSizeLists) {
  // pylance 14 writes "fixed_size_list:fixed_size_list:uint8:2:3" for
  // fixed_size_list<fixed_size_list<uint8, 2>, 3>: the outer size last.
  auto type = fixed_size_list(fixed_size_list(uint8(), 2), 3);
  ASSERT_OK_AND_ASSIGN(std::string s, LogicalTypeString(*type));
  EXPECT_EQ(s, "fixed_size_list:fixed_size_list:uint8:2:3");
  ASSERT_OK_AND_ASSIGN(auto back, DataTypeFromLogicalType(s));
  EXPECT_TRUE(back->Equals(*type)) << back->ToString();
  ASSERT_OK_AND_ASSIGN(
      auto deep, DataTypeFromLogicalType("fixed_size_list:fixed_size_list:"
                                         "fixed_size_list:timestamp:us:UTC:4:2:3"));
  EXPECT_EQ(deep->fixed_size(), 3);
  EXPECT_EQ(deep->value_type()->fixed_size(), 2);
  EXPECT_EQ(deep->value_type()->value_type()->fixed_size(), 4);
  EXPECT_EQ(deep->value_type()->value_type()->value_type()->id(), TypeId::kTimestamp);
  EXPECT_THAT(DataTypeFromLogicalType("fixed_size_list:fixed_size_list:string:2:3"),
              IsError(StatusCode::kNotImplemented));
  EXPECT_THAT(DataTypeFromLogicalType("fixed_size_list:fixed_size_list:uint8:0:3"),
              IsError(StatusCode::kInvalid));
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
    AddField(&pb, "d", 0, -1, "decimal:64:5:2");
    EXPECT_THAT(SchemaFromProto(pb), IsErrorWith(StatusCode::kNotImplemented, "decimal"));
  }
  {
    lance::file::Schema pb;
    AddField(&pb, "d", 0, -1, "decimal:128:99:2");
    EXPECT_THAT(SchemaFromProto(pb), IsErrorWith(StatusCode::kCorrupt, "precision"));
  }
  {
    // A map whose entries struct lacks its value.
    lance::file::Schema pb;
    AddField(&pb, "m", 0, -1, "map");
    AddField(&pb, "entries", 1, 0, "struct")->set_nullable(false);
    AddField(&pb, "key", 2, 1, "string")->set_nullable(false);
    EXPECT_THAT(SchemaFromProto(pb), IsErrorWith(StatusCode::kCorrupt, "field 'm'"));
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

// ---- Facts from pylance 14.0.2
// ---------------------------------------------------------
//
// The Field messages of two manifests pylance 14.0.2 wrote, byte for byte (hex). They
// were made with
//
//   lance.write_dataset(pa.table({...}), path)
//
// over the columns below, then the manifest's repeated `fields` (field 1) cut out of
// `_versions/*.manifest` (the protobuf after the manifest position in its footer).
// Decoded, they say: logical types "null", "decimal:128:P:S", "decimal:256:P:S",
// "date64:ms", "time32:s|ms", "time64:us|ns", "duration:s|ms|us|ns",
// "dict:<values>:<indices>:false" (ordered dropped), "map" with ONE child: the
// non-nullable "entries" struct (encoding unset) whose children are the key (non-
// nullable) and the value; encodings: null and struct unset (NONE), dictionaries
// DICTIONARY (3) plus an empty `dictionary` message, map/fixed-width/fsl PLAIN (1).

struct PylanceField {
  const char* hex;
};

std::string Unhex(const char* hex) {
  std::string out;
  for (const char* p = hex; p[0] && p[1]; p += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(p, 2), nullptr, 16)));
  }
  return out;
}

// Columns n, d128, d256, dt64, t32s, t32ms, t64us, t64ns, dur_s, dur_ms, dur_us, dur_ns,
// dict_s_i32, dict_s_i8, dict_i64_u16, m (map<string, int32>), fsl_dec, fsl_t64,
// fsl_dur, fsl_d64 (all nullable).
const char* kPylanceAllTypes[] = {
    "12016e20ffffffffffffffffff012a046e756c6c3001",
    "120464313238180120ffffffffffffffffff012a10646563696d616c3a3132383a31303a3230013801",
    "120464323536180220ffffffffffffffffff012a10646563696d616c3a3235363a34303a3230013801",
    "120464743634180320ffffffffffffffffff012a096461746536343a6d7330013801",
    "120474333273180420ffffffffffffffffff012a0874696d6533323a7330013801",
    "12057433326d73180520ffffffffffffffffff012a0974696d6533323a6d7330013801",
    "12057436347573180620ffffffffffffffffff012a0974696d6536343a757330013801",
    "12057436346e73180720ffffffffffffffffff012a0974696d6536343a6e7330013801",
    "12056475725f73180820ffffffffffffffffff012a0a6475726174696f6e3a7330013801",
    "12066475725f6d73180920ffffffffffffffffff012a0b6475726174696f6e3a6d7330013801",
    "12066475725f7573180a20ffffffffffffffffff012a0b6475726174696f6e3a757330013801",
    "12066475725f6e73180b20ffffffffffffffffff012a0b6475726174696f6e3a6e7330013801",
    "120a646963745f735f693332180c20ffffffffffffffffff012a17646963743a737472696e673a696e74"
    "33323a66616c7365300138034200",
    "1209646963745f735f6938180d20ffffffffffffffffff012a16646963743a737472696e673a696e7438"
    "3a66616c7365300138034200",
    "120c646963745f6936345f753136180e20ffffffffffffffffff012a17646963743a696e7436343a7569"
    "6e7431363a66616c7365300138034200",
    "12016d180f20ffffffffffffffffff012a036d617030013801",
    "1207656e74726965731810200f2a06737472756374",
    "12036b6579181120102a06737472696e673802",
    "120576616c7565181220102a05696e74333230013801",
    "120766736c5f646563181320ffffffffffffffffff012a2166697865645f73697a655f6c6973743a6465"
    "63696d616c3a3132383a353a323a3230013801",
    "120766736c5f743634181420ffffffffffffffffff012a1b66697865645f73697a655f6c6973743a7469"
    "6d6536343a75733a3230013801",
    "120766736c5f647572181520ffffffffffffffffff012a1d66697865645f73697a655f6c6973743a6475"
    "726174696f6e3a6d733a3230013801",
    "120766736c5f643634181620ffffffffffffffffff012a1b66697865645f73697a655f6c6973743a6461"
    "746536343a6d733a3230013801",
};

SchemaPtr PylanceAllTypesSchema() {
  return schema({
      field("n", null()),
      field("d128", decimal128(10, 2)),
      field("d256", decimal256(40, 2)),
      field("dt64", date64()),
      field("t32s", time32(TimeUnit::kSecond)),
      field("t32ms", time32(TimeUnit::kMilli)),
      field("t64us", time64(TimeUnit::kMicro)),
      field("t64ns", time64(TimeUnit::kNano)),
      field("dur_s", duration(TimeUnit::kSecond)),
      field("dur_ms", duration(TimeUnit::kMilli)),
      field("dur_us", duration(TimeUnit::kMicro)),
      field("dur_ns", duration(TimeUnit::kNano)),
      field("dict_s_i32", dictionary(int32(), utf8())),
      field("dict_s_i8", dictionary(int8(), utf8())),
      field("dict_i64_u16", dictionary(uint16(), int64())),
      field("m", map(utf8(), int32())),
      field("fsl_dec", fixed_size_list(decimal128(5, 2), 2)),
      field("fsl_t64", fixed_size_list(time64(TimeUnit::kMicro), 2)),
      field("fsl_dur", fixed_size_list(duration(TimeUnit::kMilli), 2)),
      field("fsl_d64", fixed_size_list(date64(), 2)),
  });
}

// Columns list_map, map_struct, map_names (map<k: string, v: int32>), struct_null,
// list_dict, fsl_null, dec_neg_scale, dict_lstr, dict_null, dict_bin_u64, dict_ordered
// (ordered=True in pyarrow), map_map, nn_dec (decimal256(76, 38) not null).
const char* kPylanceMoreTypes[] = {
    "12086c6973745f6d617020ffffffffffffffffff012a046c69737430013801",
    "12046974656d18012a036d617030013801",
    "1207656e7472696573180220012a06737472756374",
    "12036b6579180320022a06737472696e673802",
    "120576616c7565180420022a05696e74333230013801",
    "120a6d61705f737472756374180520ffffffffffffffffff012a036d617030013801",
    "1207656e7472696573180620052a06737472756374",
    "12036b6579180720062a06737472696e673802",
    "120576616c7565180820062a067374727563743001",
    "120178180920082a05696e74333230013801",
    "12096d61705f6e616d6573180a20ffffffffffffffffff012a036d617030013801",
    "1207656e7472696573180b200a2a06737472756374",
    "12016b180c200b2a06737472696e673802",
    "120176180d200b2a05696e74333230013801",
    "120b7374727563745f6e756c6c180e20ffffffffffffffffff012a067374727563743001",
    "120161180f200e2a046e756c6c3001",
    "12096c6973745f64696374181020ffffffffffffffffff012a046c69737430013801",
    "12046974656d181120102a17646963743a737472696e673a696e7433323a66616c7365300138034200",
    "120866736c5f6e756c6c181220ffffffffffffffffff012a1666697865645f73697a655f6c6973743a6e"
    "756c6c3a3230013801",
    "120d6465635f6e65675f7363616c65181320ffffffffffffffffff012a10646563696d616c3a3132383a"
    "353a2d3230013801",
    "1209646963745f6c737472181420ffffffffffffffffff012a1d646963743a6c617267655f737472696e"
    "673a696e7433323a66616c7365300138034200",
    "1209646963745f6e756c6c181520ffffffffffffffffff012a15646963743a6e756c6c3a696e7433323a"
    "66616c7365300138034200",
    "120c646963745f62696e5f753634181620ffffffffffffffffff012a18646963743a62696e6172793a75"
    "696e7436343a66616c7365300138034200",
    "120c646963745f6f726465726564181720ffffffffffffffffff012a17646963743a737472696e673a69"
    "6e7433323a66616c7365300138034200",
    "12076d61705f6d6170181820ffffffffffffffffff012a036d617030013801",
    "1207656e7472696573181920182a06737472756374",
    "12036b6579181a20192a06737472696e673802",
    "120576616c7565181b20192a036d617030013801",
    "1207656e7472696573181c201b2a06737472756374",
    "12036b6579181d201c2a06737472696e673802",
    "120576616c7565181e201c2a05696e74333230013801",
    "12066e6e5f646563181f20ffffffffffffffffff012a11646563696d616c3a3235363a37363a3338380"
    "1",
};

SchemaPtr PylanceMoreTypesSchema(bool ordered) {
  return schema({
      field("list_map", list(map(utf8(), int32()))),
      field("map_struct", map(utf8(), struct_({field("x", int32())}))),
      field("map_names", map(field("k", utf8(), false), field("v", int32()))),
      field("struct_null", struct_({field("a", null())})),
      field("list_dict", list(dictionary(int32(), utf8()))),
      field("fsl_null", fixed_size_list(null(), 2)),
      field("dec_neg_scale", decimal128(5, -2)),
      field("dict_lstr", dictionary(int32(), large_utf8())),
      field("dict_null", dictionary(int32(), null())),
      field("dict_bin_u64", dictionary(uint64(), binary())),
      field("dict_ordered", dictionary(int32(), utf8(), ordered)),
      field("map_map", map(utf8(), map(utf8(), int32()))),
      field("nn_dec", decimal256(76, 38), /*nullable=*/false),
  });
}

template <size_t N>
void CheckAgainstPylance(const SchemaPtr& ours, const SchemaPtr& read_back,
                         const char* const (&pylance)[N]) {
  // Ours, written: byte-identical Field messages.
  ASSERT_OK_AND_ASSIGN(LanceSchema assigned, LanceSchema::Assign(ours));
  lance::file::Schema pb;
  ASSERT_OK(SchemaToProto(assigned, &pb));
  ASSERT_EQ(pb.fields_size(), static_cast<int>(N));
  for (size_t i = 0; i < N; ++i) {
    SCOPED_TRACE(pb.fields(static_cast<int>(i)).name());
    EXPECT_EQ(pb.fields(static_cast<int>(i)).SerializeAsString(), Unhex(pylance[i]));
  }
  // Pylance's, read: the Arrow schema it was written from.
  lance::file::Schema theirs;
  for (const char* hex : pylance) {
    ASSERT_TRUE(theirs.add_fields()->ParseFromString(Unhex(hex)));
  }
  ASSERT_OK_AND_ASSIGN(LanceSchema decoded, SchemaFromProto(theirs));
  EXPECT_TRUE(decoded.schema()->Equals(*read_back, /*check_metadata=*/true))
      << decoded.schema()->ToString();
  EXPECT_EQ(decoded.field_ids(), assigned.field_ids());
}

TEST(PylanceFactsTest, NewTypesMatchPylance14ByteForByte) {
  CheckAgainstPylance(PylanceAllTypesSchema(), PylanceAllTypesSchema(), kPylanceAllTypes);
  // pylance drops the dictionary's ordered flag; so do we.
  CheckAgainstPylance(PylanceMoreTypesSchema(true), PylanceMoreTypesSchema(false),
                      kPylanceMoreTypes);
}

TEST(PylanceFactsTest, MapFieldLayout) {
  ASSERT_OK_AND_ASSIGN(
      LanceSchema s, LanceSchema::Assign(schema({field("m", map(utf8(), int32()))}), 15));
  EXPECT_EQ(s.field_ids(), (std::vector<int32_t>{15, 16, 17, 18}));
  lance::file::Schema pb;
  ASSERT_OK(SchemaToProto(s, &pb));
  ASSERT_EQ(pb.fields_size(), 4);
  EXPECT_EQ(pb.fields(0).logical_type(), "map");
  EXPECT_EQ(pb.fields(0).encoding(), lance::file::Field::PLAIN);
  EXPECT_EQ(pb.fields(1).name(), "entries");
  EXPECT_EQ(pb.fields(1).parent_id(), 15);
  EXPECT_EQ(pb.fields(1).logical_type(), "struct");
  EXPECT_FALSE(pb.fields(1).nullable());
  EXPECT_EQ(pb.fields(2).name(), "key");
  EXPECT_EQ(pb.fields(2).parent_id(), 16);
  EXPECT_FALSE(pb.fields(2).nullable());
  EXPECT_EQ(pb.fields(3).name(), "value");
  EXPECT_EQ(pb.fields(3).parent_id(), 16);
  EXPECT_TRUE(pb.fields(3).nullable());
  EXPECT_EQ(s.SubtreeIds(0), (std::vector<int32_t>{15, 16, 17, 18}));
}

}  // namespace
}  // namespace lance::format
