// SPDX-License-Identifier: Apache-2.0
#include "lance/core/builder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/testing/matchers.h"
#include "tests/testing/type_lists.h"

namespace lance {
namespace {

using ::lance::testing::IsError;
using ::lance::testing::IsErrorWith;

template <typename T>
std::vector<T> BufferValues(const BufferPtr& buffer) {
  const T* p = buffer->data_as<T>();
  return std::vector<T>(p, p + buffer->size() / static_cast<int64_t>(sizeof(T)));
}

TEST(BitmapBuilderTest, AppendAndBits) {
  BitmapBuilder bits;
  ASSERT_OK(bits.Append(true));
  ASSERT_OK(bits.Append(false));
  ASSERT_OK(bits.AppendN(3, true));       // bits 2..4
  ASSERT_OK(bits.AppendN(10, false));     // bits 5..14
  ASSERT_OK(bits.AppendN(12, true));      // bits 15..26
  const uint8_t src[] = {0xA5};           // 1,0,1,0,0,1,0,1
  ASSERT_OK(bits.AppendBits(src, 2, 5));  // 1,0,0,1,0 -> bits 27..31
  EXPECT_EQ(bits.length(), 32);
  EXPECT_EQ(bits.false_count(), 1 + 10 + 3);
  ASSERT_OK_AND_ASSIGN(auto buffer, bits.Finish());
  ASSERT_EQ(buffer->size(), 4);
  EXPECT_EQ(buffer->data()[0], 0x1D);  // 0b00011101
  EXPECT_EQ(buffer->data()[1], 0x80);  // bit 15
  EXPECT_EQ(buffer->data()[2], 0xFF);  // bits 16..23
  EXPECT_EQ(buffer->data()[3], 0x4F);  // bits 24..27 and 30 set: 0b01001111
  EXPECT_EQ(bits.length(), 0);
}

TEST(NumericBuilderTest, AppendsNullsAndReuse) {
  Int64Builder builder;
  EXPECT_TRUE(builder.type()->Equals(*int64()));
  ASSERT_OK(builder.Append(5));
  ASSERT_OK(builder.AppendNull());
  ASSERT_OK(builder.AppendNulls(2));
  ASSERT_OK(builder.AppendEmptyValue());
  const int64_t more[] = {7, 8, 9};
  const uint8_t valid[] = {1, 0, 1};
  ASSERT_OK(builder.AppendValues(more, 3, valid));
  EXPECT_EQ(builder.length(), 8);
  EXPECT_EQ(builder.null_count(), 4);
  EXPECT_EQ(builder.GetValue(0), 5);
  ASSERT_OK_AND_ASSIGN(auto array, builder.Finish());
  EXPECT_EQ(array->ToString(), "[5, null, null, null, 0, 7, null, 9]");
  EXPECT_EQ(array->null_count(), 4);
  EXPECT_OK(array->Validate());
  // Reusable after Finish.
  EXPECT_EQ(builder.length(), 0);
  ASSERT_OK(builder.Append(1));
  ASSERT_OK_AND_ASSIGN(auto second, builder.Finish());
  EXPECT_EQ(second->ToString(), "[1]");
  EXPECT_EQ(second->data()->buffers[0], nullptr);
}

TEST(NumericBuilderTest, ManyValuesGrow) {
  DoubleBuilder builder;
  ASSERT_OK(builder.Reserve(10));
  for (int i = 0; i < 100000; ++i) {
    if (i % 7 == 0) {
      ASSERT_OK(builder.AppendNull());
    } else {
      ASSERT_OK(builder.Append(i * 0.5));
    }
  }
  ASSERT_OK_AND_ASSIGN(auto array, builder.Finish());
  ASSERT_EQ(array->length(), 100000);
  EXPECT_EQ(array->null_count(), 14286);
  auto typed = std::static_pointer_cast<DoubleArray>(array);
  EXPECT_EQ(typed->Value(99999), 99999 * 0.5);
  EXPECT_TRUE(array->IsNull(99995));
  EXPECT_OK(array->Validate());
}

TEST(NumericBuilderTest, TypedVariants) {
  Date32Builder dates;
  EXPECT_TRUE(dates.type()->Equals(*date32()));
  HalfFloatBuilder halves;
  EXPECT_TRUE(halves.type()->Equals(*float16()));
  TimestampBuilder ts(timestamp(TimeUnit::kNano, "UTC"));
  EXPECT_TRUE(ts.type()->Equals(*timestamp(TimeUnit::kNano, "UTC")));
  UInt16Builder plain;
  EXPECT_TRUE(plain.type()->Equals(*uint16()));
  // A type of the wrong width is caught at Finish.
  Int32Builder wrong(int64());
  ASSERT_OK(wrong.Append(1));
  EXPECT_THAT(wrong.Finish(), IsError(StatusCode::kInvalid));
}

TEST(ArrayFromVectorTest, ValidityLengthMustMatch) {
  EXPECT_THAT(ArrayFromVector<Int32Builder>({1, 2}, {true}),
              IsError(StatusCode::kInvalid));
  ASSERT_OK_AND_ASSIGN(auto array, ArrayFromVector<Int32Builder>({1, 2}, {false, true}));
  EXPECT_EQ(array->ToString(), "[null, 2]");
}

TEST(BooleanBuilderTest, Basic) {
  BooleanBuilder builder;
  ASSERT_OK(builder.Append(true));
  ASSERT_OK(builder.AppendNull());
  ASSERT_OK(builder.AppendValues({false, true}));
  ASSERT_OK(builder.AppendEmptyValues(2));
  ASSERT_OK_AND_ASSIGN(auto array, builder.Finish());
  EXPECT_EQ(array->ToString(), "[true, null, false, true, false, false]");
  EXPECT_EQ(array->data()->buffers[1]->data()[0], 0x09);
  EXPECT_EQ(array->data()->buffers[0]->data()[0], 0x3D);
}

TEST(BinaryBuilderTest, StringsAndNulls) {
  StringBuilder builder;
  EXPECT_TRUE(builder.type()->Equals(*utf8()));
  ASSERT_OK(builder.Append("hello"));
  ASSERT_OK(builder.AppendNull());
  ASSERT_OK(builder.AppendEmptyValue());
  ASSERT_OK(builder.Append(reinterpret_cast<const uint8_t*>("wor"), 3));
  EXPECT_EQ(builder.value_data_length(), 8);
  EXPECT_EQ(builder.GetView(0), "hello");
  EXPECT_EQ(builder.GetView(3), "wor");
  ASSERT_OK_AND_ASSIGN(auto array, builder.Finish());
  EXPECT_EQ(BufferValues<int32_t>(array->data()->buffers[1]),
            (std::vector<int32_t>{0, 5, 5, 5, 8}));
  EXPECT_EQ(array->ToString(), "[\"hello\", null, \"\", \"wor\"]");
  EXPECT_OK(array->Validate());

  BinaryBuilder bin;
  EXPECT_TRUE(bin.type()->Equals(*binary()));
  LargeStringBuilder large_str;
  EXPECT_TRUE(large_str.type()->Equals(*large_utf8()));
  LargeBinaryBuilder large_bin;
  EXPECT_TRUE(large_bin.type()->Equals(*large_binary()));
}

TEST(BinaryBuilderTest, EmptyArrayHasOneOffset) {
  StringBuilder builder;
  ASSERT_OK_AND_ASSIGN(auto array, builder.Finish());
  EXPECT_EQ(array->length(), 0);
  EXPECT_EQ(BufferValues<int32_t>(array->data()->buffers[1]), (std::vector<int32_t>{0}));
  EXPECT_EQ(array->data()->buffers[2]->size(), 0);
  EXPECT_OK(array->Validate());
}

TEST(FixedSizeBinaryBuilderTest, WidthIsEnforced) {
  FixedSizeBinaryBuilder builder(fixed_size_binary(4));
  EXPECT_EQ(builder.byte_width(), 4);
  ASSERT_OK(builder.Append("abcd"));
  EXPECT_THAT(builder.Append("abc"), IsErrorWith(StatusCode::kInvalid, "3-byte"));
  ASSERT_OK(builder.AppendNull());
  ASSERT_OK(builder.Append(reinterpret_cast<const uint8_t*>("wxyz")));
  ASSERT_OK_AND_ASSIGN(auto array, builder.Finish());
  EXPECT_EQ(array->length(), 3);
  EXPECT_EQ(array->data()->buffers[1]->ToStringView(),
            std::string("abcd\0\0\0\0wxyz", 12));
  EXPECT_EQ(array->ToString(), "[x'61626364', null, x'7778797A']");
}

TEST(ListBuilderTest, ListOfLists) {
  // list<list<int32>>: [[[1], []], null, [[2, 3]]]
  ListBuilder outer(std::make_unique<ListBuilder>(std::make_unique<Int32Builder>()));
  EXPECT_TRUE(outer.type()->Equals(*list(list(int32()))));
  auto* inner = static_cast<ListBuilder*>(outer.value_builder());
  auto* ints = static_cast<Int32Builder*>(inner->value_builder());
  ASSERT_OK(outer.Append());
  ASSERT_OK(inner->Append());
  ASSERT_OK(ints->Append(1));
  ASSERT_OK(inner->Append());
  ASSERT_OK(outer.AppendNull());
  ASSERT_OK(outer.Append());
  ASSERT_OK(inner->Append());
  ASSERT_OK(ints->Append(2));
  ASSERT_OK(ints->Append(3));
  ASSERT_OK_AND_ASSIGN(auto array, outer.Finish());
  EXPECT_EQ(array->ToString(), "[[[1], []], null, [[2, 3]]]");
  EXPECT_EQ(BufferValues<int32_t>(array->data()->buffers[1]),
            (std::vector<int32_t>{0, 2, 2, 3}));
  EXPECT_EQ(BufferValues<int32_t>(array->data()->children[0]->buffers[1]),
            (std::vector<int32_t>{0, 1, 1, 3}));
  EXPECT_OK(array->Validate());
  // Children were reset along with the parent.
  EXPECT_EQ(inner->length(), 0);
  EXPECT_EQ(ints->length(), 0);
}

TEST(ListBuilderTest, EmptyValuesAndExplicitType) {
  auto type = large_list(field("element", utf8(), false));
  LargeListBuilder builder(std::make_unique<StringBuilder>(), type);
  EXPECT_EQ(builder.type()->fields()[0]->name(), "element");
  ASSERT_OK(builder.AppendEmptyValues(2));
  ASSERT_OK(builder.Append());
  ASSERT_OK(static_cast<StringBuilder*>(builder.value_builder())->Append("z"));
  ASSERT_OK_AND_ASSIGN(auto array, builder.Finish());
  EXPECT_EQ(array->ToString(), "[[], [], [\"z\"]]");
  EXPECT_EQ(array->type()->fields()[0]->name(), "element");

  ListBuilder mismatched(std::make_unique<Int32Builder>(), list(int64()));
  ASSERT_OK(mismatched.Append());
  EXPECT_THAT(mismatched.Finish(), IsError(StatusCode::kInvalid));
}

TEST(FixedSizeListBuilderTest, ChildCountMustMatch) {
  FixedSizeListBuilder builder(std::make_unique<FloatBuilder>(), 3);
  EXPECT_TRUE(builder.type()->Equals(*fixed_size_list(float32(), 3)));
  auto* child = static_cast<FloatBuilder*>(builder.value_builder());
  ASSERT_OK(builder.Append());
  ASSERT_OK(child->AppendValues({1.f, 2.f}));
  EXPECT_THAT(builder.Finish(), IsErrorWith(StatusCode::kInvalid, "child values"));
  ASSERT_OK(child->Append(3.f));
  ASSERT_OK(builder.AppendEmptyValue());
  ASSERT_OK_AND_ASSIGN(auto array, builder.Finish());
  EXPECT_EQ(array->ToString(), "[[1, 2, 3], [0, 0, 0]]");
}

TEST(FixedSizeListBuilderTest, NullPlaceholdersFollowChildNullability) {
  auto type = fixed_size_list(field("item", int32(), /*nullable=*/false), 2);
  FixedSizeListBuilder builder(std::make_unique<Int32Builder>(), type);
  ASSERT_OK(builder.AppendNull());
  ASSERT_OK_AND_ASSIGN(auto array, builder.Finish());
  auto typed = std::static_pointer_cast<FixedSizeListArray>(array);
  EXPECT_EQ(typed->values()->null_count(), 0);
  EXPECT_EQ(typed->values()->length(), 2);
  EXPECT_EQ(array->ToString(), "[null]");
}

TEST(StructBuilderTest, NullsKeepChildrenAligned) {
  auto type = struct_({field("a", int32()), field("b", utf8(), /*nullable=*/false)});
  std::vector<std::unique_ptr<ArrayBuilder>> children;
  children.push_back(std::make_unique<Int32Builder>());
  children.push_back(std::make_unique<StringBuilder>());
  StructBuilder builder(type, std::move(children));
  EXPECT_EQ(builder.num_fields(), 2);
  auto* a = static_cast<Int32Builder*>(builder.field_builder(0));
  auto* b = static_cast<StringBuilder*>(builder.field_builder(1));
  ASSERT_OK(builder.Append());
  ASSERT_OK(a->Append(1));
  ASSERT_OK(b->Append("x"));
  ASSERT_OK(builder.AppendNulls(2));
  ASSERT_OK(builder.AppendEmptyValue());
  EXPECT_EQ(a->length(), 4);
  EXPECT_EQ(b->length(), 4);
  ASSERT_OK_AND_ASSIGN(auto array, builder.Finish());
  auto typed = std::static_pointer_cast<StructArray>(array);
  EXPECT_EQ(array->null_count(), 2);
  EXPECT_EQ(typed->field(0)->ToString(), "[1, null, null, 0]");  // nullable child: nulls
  EXPECT_EQ(typed->field(1)->ToString(), "[\"x\", \"\", \"\", \"\"]");  // not nullable
  EXPECT_EQ(typed->field(1)->null_count(), 0);
  EXPECT_EQ(array->ToString(), "[{a: 1, b: \"x\"}, null, null, {a: 0, b: \"\"}]");
  EXPECT_OK(array->Validate());
}

TEST(StructBuilderTest, MisalignedChildrenAreRejected) {
  std::vector<std::unique_ptr<ArrayBuilder>> children;
  children.push_back(std::make_unique<Int32Builder>());
  StructBuilder builder(struct_({field("a", int32())}), std::move(children));
  ASSERT_OK(builder.Append());
  EXPECT_THAT(builder.Finish(), IsErrorWith(StatusCode::kInvalid, "field 'a'"));

  std::vector<std::unique_ptr<ArrayBuilder>> wrong;
  wrong.push_back(std::make_unique<Int64Builder>());
  StructBuilder wrong_type(struct_({field("a", int32())}), std::move(wrong));
  EXPECT_THAT(wrong_type.Finish(), IsError(StatusCode::kInvalid));
}

TEST(MakeBuilderTest, EveryTypeRoundTripsThroughAppendArray) {
  const std::vector<DataTypePtr> types = testing::FlatTypes(
      3, {timestamp(TimeUnit::kMicro, "UTC"), list(int32()), large_list(utf8()),
          fixed_size_list(int16(), 2),
          struct_({field("s", list(struct_({field("t", boolean())})))})});
  for (const auto& type : types) {
    SCOPED_TRACE(type->ToString());
    ASSERT_OK_AND_ASSIGN(auto builder, MakeBuilder(type));
    EXPECT_TRUE(builder->type()->Equals(*type));
    ASSERT_OK(builder->AppendEmptyValues(2));
    ASSERT_OK(builder->AppendNull());
    ASSERT_OK(builder->AppendEmptyValue());
    ASSERT_OK_AND_ASSIGN(auto array, builder->Finish());
    EXPECT_TRUE(array->type()->Equals(*type));
    EXPECT_EQ(array->length(), 4);
    EXPECT_EQ(array->null_count(), 1);
    EXPECT_TRUE(array->IsNull(2));
    EXPECT_OK(array->Validate());

    // Appending slices of the array reproduces it.
    ASSERT_OK(builder->AppendArraySlice(*array, 0, 1));
    ASSERT_OK(builder->AppendArraySlice(*array, 1, 3));
    ASSERT_OK_AND_ASSIGN(auto copy, builder->Finish());
    EXPECT_TRUE(copy->Equals(*array)) << copy->ToString() << " vs " << array->ToString();
  }
  EXPECT_THAT(MakeBuilder(nullptr), IsError(StatusCode::kInvalid));
}

TEST(MakeBuilderTest, ProducesTypedSubclasses) {
  ASSERT_OK_AND_ASSIGN(auto ts, MakeBuilder(timestamp(TimeUnit::kSecond)));
  EXPECT_NE(dynamic_cast<TimestampBuilder*>(ts.get()), nullptr);
  ASSERT_OK_AND_ASSIGN(auto d, MakeBuilder(date32()));
  EXPECT_NE(dynamic_cast<Date32Builder*>(d.get()), nullptr);
  ASSERT_OK_AND_ASSIGN(auto s, MakeBuilder(utf8()));
  EXPECT_NE(dynamic_cast<StringBuilder*>(s.get()), nullptr);
  ASSERT_OK_AND_ASSIGN(auto l, MakeBuilder(list(int8())));
  auto* list_builder = dynamic_cast<ListBuilder*>(l.get());
  ASSERT_NE(list_builder, nullptr);
  EXPECT_NE(dynamic_cast<Int8Builder*>(list_builder->value_builder()), nullptr);
}

TEST(AppendArraySliceTest, Errors) {
  Int32Builder builder;
  ASSERT_OK_AND_ASSIGN(auto ints, ArrayFromVector<Int32Builder>({1, 2, 3}));
  ASSERT_OK_AND_ASSIGN(auto longs, ArrayFromVector<Int64Builder>({1, 2, 3}));
  EXPECT_THAT(builder.AppendArraySlice(*longs, 0, 1),
              IsErrorWith(StatusCode::kInvalid, "int64"));
  EXPECT_THAT(builder.AppendArraySlice(*ints, 2, 2), IsError(StatusCode::kInvalid));
  EXPECT_THAT(builder.AppendArraySlice(*ints, -1, 1), IsError(StatusCode::kInvalid));
  ASSERT_OK(builder.AppendArraySlice(*ints, 1, 2));
  ASSERT_OK(builder.AppendArray(*ints->Slice(1, 1)));
  ASSERT_OK_AND_ASSIGN(auto out, builder.Finish());
  EXPECT_EQ(out->ToString(), "[2, 3, 2]");
}

TEST(BuilderTest, NegativeCountsAreRejected) {
  Int32Builder ints;
  EXPECT_THAT(ints.AppendNulls(-1), IsError(StatusCode::kInvalid));
  EXPECT_THAT(ints.Reserve(-1), IsError(StatusCode::kInvalid));
  StringBuilder strs;
  EXPECT_THAT(strs.AppendEmptyValues(-2), IsError(StatusCode::kInvalid));
}

}  // namespace
}  // namespace lance
