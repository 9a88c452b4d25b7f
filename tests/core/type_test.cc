// SPDX-License-Identifier: Apache-2.0
#include "lance/core/type.h"

#include <gtest/gtest.h>

#include "tests/testing/matchers.h"

namespace lance {
namespace {

using ::lance::testing::IsErrorWith;

TEST(TypeTest, ParameterlessTypesAreSingletons) {
  EXPECT_EQ(int64().get(), int64().get());
  EXPECT_EQ(utf8().get(), utf8().get());
  EXPECT_EQ(boolean().get(), boolean().get());
  EXPECT_NE(int32().get(), int64().get());
  EXPECT_NE(utf8().get(), large_utf8().get());
}

TEST(TypeTest, ToStringSpelling) {
  EXPECT_EQ(boolean()->ToString(), "bool");
  EXPECT_EQ(int8()->ToString(), "int8");
  EXPECT_EQ(int16()->ToString(), "int16");
  EXPECT_EQ(int32()->ToString(), "int32");
  EXPECT_EQ(int64()->ToString(), "int64");
  EXPECT_EQ(uint8()->ToString(), "uint8");
  EXPECT_EQ(uint16()->ToString(), "uint16");
  EXPECT_EQ(uint32()->ToString(), "uint32");
  EXPECT_EQ(uint64()->ToString(), "uint64");
  EXPECT_EQ(float16()->ToString(), "float16");
  EXPECT_EQ(float32()->ToString(), "float");
  EXPECT_EQ(float64()->ToString(), "double");
  EXPECT_EQ(utf8()->ToString(), "utf8");
  EXPECT_EQ(large_utf8()->ToString(), "large_utf8");
  EXPECT_EQ(binary()->ToString(), "binary");
  EXPECT_EQ(large_binary()->ToString(), "large_binary");
  EXPECT_EQ(fixed_size_binary(16)->ToString(), "fixed_size_binary[16]");
  EXPECT_EQ(date32()->ToString(), "date32");
  EXPECT_EQ(timestamp(TimeUnit::kMicro)->ToString(), "timestamp[us]");
  EXPECT_EQ(timestamp(TimeUnit::kMicro, "UTC")->ToString(), "timestamp[us, tz=UTC]");
  EXPECT_EQ(timestamp(TimeUnit::kNano, "Europe/Paris")->ToString(),
            "timestamp[ns, tz=Europe/Paris]");
  EXPECT_EQ(timestamp(TimeUnit::kSecond)->ToString(), "timestamp[s]");
  EXPECT_EQ(timestamp(TimeUnit::kMilli)->ToString(), "timestamp[ms]");
  EXPECT_EQ(list(int32())->ToString(), "list<item: int32>");
  EXPECT_EQ(large_list(utf8())->ToString(), "large_list<item: utf8>");
  EXPECT_EQ(fixed_size_list(float32(), 128)->ToString(),
            "fixed_size_list<item: float>[128]");
  EXPECT_EQ(struct_({field("x", int32()), field("y", utf8())})->ToString(),
            "struct<x: int32, y: utf8>");
  EXPECT_EQ(struct_({field("x", int32(), false)})->ToString(),
            "struct<x: int32 not null>");
  EXPECT_EQ(list(field("element", list(int8()), false))->ToString(),
            "list<element: list<item: int8> not null>");
  EXPECT_EQ(struct_({})->ToString(), "struct<>");
}

TEST(TypeTest, Widths) {
  EXPECT_EQ(boolean()->bit_width(), 1);
  EXPECT_EQ(boolean()->byte_width(), -1);
  EXPECT_EQ(int8()->byte_width(), 1);
  EXPECT_EQ(uint16()->byte_width(), 2);
  EXPECT_EQ(float16()->byte_width(), 2);
  EXPECT_EQ(float16()->bit_width(), 16);
  EXPECT_EQ(int32()->byte_width(), 4);
  EXPECT_EQ(date32()->byte_width(), 4);
  EXPECT_EQ(float32()->byte_width(), 4);
  EXPECT_EQ(uint64()->bit_width(), 64);
  EXPECT_EQ(timestamp(TimeUnit::kNano)->byte_width(), 8);
  EXPECT_EQ(float64()->byte_width(), 8);
  EXPECT_EQ(fixed_size_binary(16)->byte_width(), 16);
  EXPECT_EQ(fixed_size_binary(16)->bit_width(), 128);
  EXPECT_EQ(utf8()->bit_width(), -1);
  EXPECT_EQ(utf8()->byte_width(), -1);
  EXPECT_EQ(list(int32())->byte_width(), -1);
  EXPECT_EQ(fixed_size_list(int32(), 3)->byte_width(), -1);
  EXPECT_EQ(struct_({})->bit_width(), -1);
}

TEST(TypeTest, Predicates) {
  EXPECT_TRUE(int8()->is_integer());
  EXPECT_TRUE(uint64()->is_integer());
  EXPECT_FALSE(float32()->is_integer());
  EXPECT_FALSE(date32()->is_integer());
  EXPECT_TRUE(float16()->is_floating());
  EXPECT_TRUE(float64()->is_floating());
  EXPECT_FALSE(int64()->is_floating());
  EXPECT_TRUE(boolean()->is_primitive());
  EXPECT_TRUE(date32()->is_primitive());
  EXPECT_TRUE(timestamp(TimeUnit::kSecond)->is_primitive());
  EXPECT_FALSE(utf8()->is_primitive());
  EXPECT_FALSE(fixed_size_binary(4)->is_primitive());
  EXPECT_TRUE(utf8()->is_binary_like());
  EXPECT_TRUE(large_binary()->is_binary_like());
  EXPECT_FALSE(fixed_size_binary(4)->is_binary_like());
  EXPECT_TRUE(list(int8())->is_list_like());
  EXPECT_TRUE(large_list(int8())->is_list_like());
  EXPECT_TRUE(fixed_size_list(int8(), 2)->is_list_like());
  EXPECT_FALSE(struct_({})->is_list_like());
  EXPECT_TRUE(struct_({})->is_nested());
  EXPECT_TRUE(list(int8())->is_nested());
  EXPECT_FALSE(utf8()->is_nested());
}

TEST(TypeTest, Accessors) {
  auto ts = timestamp(TimeUnit::kMilli, "UTC");
  EXPECT_EQ(ts->id(), TypeId::kTimestamp);
  EXPECT_EQ(ts->unit(), TimeUnit::kMilli);
  EXPECT_EQ(ts->timezone(), "UTC");
  EXPECT_EQ(fixed_size_binary(7)->fixed_size(), 7);
  auto fsl = fixed_size_list(float32(), 4);
  EXPECT_EQ(fsl->fixed_size(), 4);
  ASSERT_EQ(fsl->num_fields(), 1);
  EXPECT_TRUE(fsl->value_type()->Equals(*float32()));
  EXPECT_EQ(fsl->fields()[0]->name(), "item");
  EXPECT_TRUE(list(utf8())->value_type()->Equals(*utf8()));
  EXPECT_EQ(int32()->value_type(), nullptr);
  auto st = struct_({field("a", int8()), field("b", utf8())});
  EXPECT_EQ(st->num_fields(), 2);
  EXPECT_EQ(st->fields()[1]->name(), "b");
  EXPECT_EQ(std::string(TimeUnitSuffix(TimeUnit::kNano)), "ns");
}

TEST(TypeTest, EqualsComparesParameters) {
  EXPECT_TRUE(int32()->Equals(*int32()));
  EXPECT_FALSE(int32()->Equals(*int64()));
  EXPECT_FALSE(int32()->Equals(*date32()));
  EXPECT_FALSE(utf8()->Equals(*binary()));
  EXPECT_TRUE(fixed_size_binary(4)->Equals(*fixed_size_binary(4)));
  EXPECT_FALSE(fixed_size_binary(4)->Equals(*fixed_size_binary(5)));
  EXPECT_TRUE(
      timestamp(TimeUnit::kMicro, "UTC")->Equals(*timestamp(TimeUnit::kMicro, "UTC")));
  EXPECT_FALSE(timestamp(TimeUnit::kMicro)->Equals(*timestamp(TimeUnit::kNano)));
  EXPECT_FALSE(timestamp(TimeUnit::kMicro)->Equals(*timestamp(TimeUnit::kMicro, "UTC")));
  EXPECT_TRUE(list(int32())->Equals(*list(int32())));
  EXPECT_FALSE(list(int32())->Equals(*list(int64())));
  EXPECT_FALSE(list(int32())->Equals(*large_list(int32())));
  EXPECT_TRUE(fixed_size_list(int32(), 3)->Equals(*fixed_size_list(int32(), 3)));
  EXPECT_FALSE(fixed_size_list(int32(), 3)->Equals(*fixed_size_list(int32(), 4)));
}

TEST(TypeTest, ListItemNameIsIgnoredButNullabilityIsNot) {
  EXPECT_TRUE(list(field("item", int32()))->Equals(*list(field("element", int32()))));
  EXPECT_FALSE(
      list(field("item", int32()))->Equals(*list(field("item", int32(), false))));
  EXPECT_TRUE(fixed_size_list(field("a", int8()), 2)
                  ->Equals(*fixed_size_list(field("b", int8()), 2)));
}

TEST(TypeTest, StructEqualityIsByNameTypeAndNullability) {
  auto a = struct_({field("x", int32()), field("y", utf8())});
  EXPECT_TRUE(a->Equals(*struct_({field("x", int32()), field("y", utf8())})));
  EXPECT_FALSE(a->Equals(*struct_({field("x", int32()), field("z", utf8())})));
  EXPECT_FALSE(a->Equals(*struct_({field("y", utf8()), field("x", int32())})));
  EXPECT_FALSE(a->Equals(*struct_({field("x", int32())})));
  EXPECT_FALSE(a->Equals(*struct_({field("x", int32(), false), field("y", utf8())})));
  // Nested difference deep inside.
  auto deep1 = list(struct_({field("a", list(int8()))}));
  auto deep2 = list(struct_({field("a", list(int16()))}));
  EXPECT_FALSE(deep1->Equals(*deep2));
}

TEST(TypeTest, MetadataOnlyComparedWhenAsked) {
  auto a = struct_({field("x", int32(), true, {{"k", "v"}})});
  auto b = struct_({field("x", int32())});
  EXPECT_TRUE(a->Equals(*b));
  EXPECT_FALSE(a->Equals(*b, /*check_metadata=*/true));
  EXPECT_TRUE(a->Equals(*a, /*check_metadata=*/true));
}

TEST(FieldTest, AccessorsAndWith) {
  auto f = field("x", int32(), false, {{"a", "b"}});
  EXPECT_EQ(f->name(), "x");
  EXPECT_TRUE(f->type()->Equals(*int32()));
  EXPECT_FALSE(f->nullable());
  ASSERT_EQ(f->metadata().size(), 1u);
  EXPECT_EQ(f->ToString(), "x: int32 not null");
  EXPECT_EQ(f->WithName("y")->name(), "y");
  EXPECT_EQ(f->WithName("y")->type(), f->type());
  EXPECT_TRUE(f->WithType(utf8())->type()->Equals(*utf8()));
  EXPECT_TRUE(f->WithNullable(true)->nullable());
  EXPECT_TRUE(f->WithMetadata({})->metadata().empty());
  EXPECT_EQ(f->WithNullable(true)->ToString(), "x: int32");
}

TEST(FieldTest, Equals) {
  auto f = field("x", int32());
  EXPECT_TRUE(f->Equals(*field("x", int32())));
  EXPECT_FALSE(f->Equals(*field("y", int32())));
  EXPECT_FALSE(f->Equals(*field("x", int64())));
  EXPECT_FALSE(f->Equals(*field("x", int32(), false)));
  EXPECT_TRUE(f->Equals(*field("x", int32(), true, {{"k", "v"}})));
  EXPECT_FALSE(f->Equals(*field("x", int32(), true, {{"k", "v"}}), true));
}

TEST(SchemaTest, LookupAndProject) {
  auto s = schema({field("a", int32()), field("b", utf8()), field("c", float64())},
                  {{"origin", "test"}});
  EXPECT_EQ(s->num_fields(), 3);
  EXPECT_EQ(s->GetFieldIndex("b"), 1);
  EXPECT_EQ(s->GetFieldIndex("zz"), -1);
  EXPECT_EQ(s->GetFieldByName("c")->name(), "c");
  EXPECT_EQ(s->GetFieldByName("zz"), nullptr);
  ASSERT_OK_AND_ASSIGN(auto projected, s->Project({"c", "a"}));
  ASSERT_EQ(projected->num_fields(), 2);
  EXPECT_EQ(projected->field(0)->name(), "c");
  EXPECT_EQ(projected->field(1)->name(), "a");
  EXPECT_EQ(projected->metadata(), s->metadata());
  EXPECT_THAT(s->Project({"a", "missing"}), IsErrorWith(StatusCode::kInvalid, "missing"));
  EXPECT_EQ(s->ToString(), "a: int32\nb: utf8\nc: double");
}

TEST(SchemaTest, Equals) {
  auto s1 = schema({field("a", int32()), field("b", utf8())}, {{"k", "1"}});
  auto s2 = schema({field("a", int32()), field("b", utf8())}, {{"k", "2"}});
  EXPECT_TRUE(s1->Equals(*s2));
  EXPECT_FALSE(s1->Equals(*s2, true));
  EXPECT_TRUE(s2->Equals(*s1->WithMetadata({{"k", "2"}}), true));
  EXPECT_FALSE(s1->Equals(*schema({field("a", int32())})));
  EXPECT_FALSE(s1->Equals(*schema({field("a", int32()), field("b", binary())})));
}

}  // namespace
}  // namespace lance
