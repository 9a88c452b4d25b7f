// SPDX-License-Identifier: Apache-2.0
#include "lance/core/array.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "lance/core/builder.h"
#include "lance/core/concatenate.h"
#include "lance/core/pretty_print.h"
#include "tests/testing/array_helpers.h"
#include "tests/testing/matchers.h"

namespace lance {
namespace {

using namespace ::lance::testing;  // NOLINT(build/namespaces): the test helpers

using IntList = std::optional<std::vector<int32_t>>;

ArrayPtr ListOfInts(const std::vector<IntList>& rows) {
  return testing::IntLists<ListBuilder>(rows);
}

ArrayPtr LargeListOfInts(const std::vector<IntList>& rows) {
  return testing::IntLists<LargeListBuilder>(rows);
}

struct XY {
  int32_t x;
  std::string y;
};

DataTypePtr XYType() { return struct_({field("x", int32()), field("y", utf8())}); }

ArrayPtr Structs(const std::vector<std::optional<XY>>& rows) {
  std::vector<std::unique_ptr<ArrayBuilder>> children;
  children.push_back(std::make_unique<Int32Builder>());
  children.push_back(std::make_unique<StringBuilder>());
  StructBuilder builder(XYType(), std::move(children));
  auto* x = static_cast<Int32Builder*>(builder.field_builder(0));
  auto* y = static_cast<StringBuilder*>(builder.field_builder(1));
  for (const auto& row : rows) {
    if (!row) {
      Check(builder.AppendNull());
      continue;
    }
    Check(builder.Append());
    Check(x->Append(row->x));
    Check(y->Append(row->y));
  }
  return builder.Finish().value();
}

bool IsAligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; }

void ExpectAlignedAndPadded(const BufferPtr& buffer) {
  ASSERT_NE(buffer, nullptr);
  EXPECT_TRUE(IsAligned(buffer->data()));
  EXPECT_EQ(buffer->capacity() % 64, 0);
  for (int64_t i = buffer->size(); i < buffer->capacity(); ++i) {
    ASSERT_EQ(buffer->data()[i], 0) << "padding byte " << i;
  }
}

template <typename T>
std::vector<T> BufferValues(const BufferPtr& buffer) {
  const T* p = buffer->data_as<T>();
  return std::vector<T>(p, p + buffer->size() / static_cast<int64_t>(sizeof(T)));
}

// ---------------------------------------------------------------------------------------
// Layouts

TEST(ArrayLayoutTest, Int32WithNulls) {
  auto array = I32({1, 2, 3, 4, 5}, {true, false, true, true, false});
  ASSERT_EQ(array->data()->buffers.size(), 2u);
  const auto& validity = array->data()->buffers[0];
  const auto& values = array->data()->buffers[1];
  ASSERT_NE(validity, nullptr);
  EXPECT_EQ(validity->size(), 1);
  EXPECT_EQ(validity->data()[0], 0x0D);  // 0b01101
  EXPECT_EQ(BufferValues<int32_t>(values), (std::vector<int32_t>{1, 0, 3, 4, 0}));
  ExpectAlignedAndPadded(validity);
  ExpectAlignedAndPadded(values);
  EXPECT_EQ(array->null_count(), 2);
  EXPECT_EQ(array->offset(), 0);
  EXPECT_TRUE(array->IsValid(0));
  EXPECT_TRUE(array->IsNull(1));
  EXPECT_TRUE(array->IsNull(4));
  auto typed = As<Int32Array>(array);
  EXPECT_EQ(typed->Value(3), 4);
  EXPECT_EQ(typed->raw_values()[2], 3);
  EXPECT_EQ(array->null_bitmap_data(), validity->data());
  EXPECT_OK(array->Validate());
}

TEST(ArrayLayoutTest, NoNullsMeansNoValidityBuffer) {
  auto array = I64({7, 8, 9});
  EXPECT_EQ(array->data()->buffers[0], nullptr);
  EXPECT_EQ(array->null_bitmap(), nullptr);
  EXPECT_EQ(array->null_bitmap_data(), nullptr);
  EXPECT_EQ(array->null_count(), 0);
  EXPECT_EQ(BufferValues<int64_t>(array->data()->buffers[1]),
            (std::vector<int64_t>{7, 8, 9}));
  ExpectAlignedAndPadded(array->data()->buffers[1]);
}

TEST(ArrayLayoutTest, Boolean) {
  auto array = Bools({true, false, true, true}, {true, true, false, true});
  ASSERT_EQ(array->data()->buffers.size(), 2u);
  EXPECT_EQ(array->data()->buffers[0]->data()[0], 0x0B);  // validity 0b1011
  EXPECT_EQ(array->data()->buffers[1]->data()[0], 0x09);  // values 0b1001 (null -> 0)
  EXPECT_EQ(array->data()->buffers[1]->size(), 1);
  ExpectAlignedAndPadded(array->data()->buffers[0]);
  ExpectAlignedAndPadded(array->data()->buffers[1]);
  auto typed = As<BooleanArray>(array);
  EXPECT_TRUE(typed->Value(0));
  EXPECT_FALSE(typed->Value(1));
  EXPECT_TRUE(typed->Value(3));
  EXPECT_EQ(typed->true_count(), 2);
  EXPECT_OK(array->Validate());
}

TEST(ArrayLayoutTest, Utf8) {
  auto array = Str({"a", "", "bc", "x"}, {true, true, true, false});
  ASSERT_EQ(array->data()->buffers.size(), 3u);
  EXPECT_EQ(array->data()->buffers[0]->data()[0], 0x07);
  EXPECT_EQ(BufferValues<int32_t>(array->data()->buffers[1]),
            (std::vector<int32_t>{0, 1, 1, 3, 3}));
  EXPECT_EQ(array->data()->buffers[2]->ToStringView(), "abc");
  for (const auto& b : array->data()->buffers) ExpectAlignedAndPadded(b);
  auto typed = As<StringArray>(array);
  EXPECT_EQ(typed->GetView(0), "a");
  EXPECT_EQ(typed->GetView(1), "");
  EXPECT_EQ(typed->GetString(2), "bc");
  EXPECT_EQ(typed->value_offset(2), 1);
  EXPECT_EQ(typed->value_length(2), 2);
  EXPECT_EQ(typed->value_length(3), 0);
  EXPECT_EQ(typed->total_values_length(), 3);
  EXPECT_TRUE(typed->type()->Equals(*utf8()));
  EXPECT_OK(array->Validate());
}

TEST(ArrayLayoutTest, LargeBinaryHasInt64Offsets) {
  auto array = ArrayFromVector<LargeBinaryBuilder>({"ab", std::string("\0c", 2)}).value();
  EXPECT_TRUE(array->type()->Equals(*large_binary()));
  EXPECT_EQ(BufferValues<int64_t>(array->data()->buffers[1]),
            (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(array->data()->buffers[2]->ToStringView(), std::string("ab\0c", 4));
  auto typed = As<LargeBinaryArray>(array);
  EXPECT_EQ(typed->GetView(1), std::string("\0c", 2));
  EXPECT_EQ(typed->value_offset(1), 2);
  EXPECT_EQ(array->data()->buffers[0], nullptr);
  auto large_str = ArrayFromVector<LargeStringBuilder>({"hé"}).value();
  EXPECT_NE(std::dynamic_pointer_cast<LargeStringArray>(large_str), nullptr);
  EXPECT_EQ(As<LargeStringArray>(large_str)->GetView(0), "hé");
}

TEST(ArrayLayoutTest, FixedSizeBinary) {
  auto array = ArrayFromVector<FixedSizeBinaryBuilder>(
                   fixed_size_binary(3), {"abc", "zzz", "def"}, {true, false, true})
                   .value();
  EXPECT_EQ(array->data()->buffers[1]->size(), 9);
  EXPECT_EQ(array->data()->buffers[1]->ToStringView(), std::string("abc\0\0\0def", 9));
  EXPECT_EQ(array->data()->buffers[0]->data()[0], 0x05);
  auto typed = As<FixedSizeBinaryArray>(array);
  EXPECT_EQ(typed->byte_width(), 3);
  EXPECT_EQ(typed->GetView(2), "def");
  EXPECT_EQ(typed->Slice(2, 1)->ToString(), "[x'646566']");
  EXPECT_OK(array->Validate());
}

TEST(ArrayLayoutTest, List) {
  auto array = ListOfInts({std::vector<int32_t>{1, 2}, std::nullopt,
                           std::vector<int32_t>{}, std::vector<int32_t>{3}});
  ASSERT_EQ(array->data()->buffers.size(), 2u);
  ASSERT_EQ(array->data()->children.size(), 1u);
  EXPECT_EQ(array->data()->buffers[0]->data()[0], 0x0D);
  EXPECT_EQ(BufferValues<int32_t>(array->data()->buffers[1]),
            (std::vector<int32_t>{0, 2, 2, 2, 3}));
  ExpectAlignedAndPadded(array->data()->buffers[1]);
  auto list_array = As<ListArray>(array);
  ASSERT_NE(list_array->values(), nullptr);
  EXPECT_TRUE(list_array->values()->Equals(*I32({1, 2, 3})));
  EXPECT_EQ(list_array->value_offset(3), 2);
  EXPECT_EQ(list_array->value_length(0), 2);
  EXPECT_EQ(list_array->value_length(2), 0);
  EXPECT_TRUE(list_array->value_slice(3)->Equals(*I32({3})));
  EXPECT_TRUE(list_array->value_type()->Equals(*int32()));
  EXPECT_EQ(array->ToString(), "[[1, 2], null, [], [3]]");
  EXPECT_OK(array->Validate());
}

TEST(ArrayLayoutTest, LargeList) {
  auto array = LargeListOfInts({std::vector<int32_t>{1}, std::vector<int32_t>{2, 3}});
  EXPECT_TRUE(array->type()->Equals(*large_list(int32())));
  EXPECT_EQ(BufferValues<int64_t>(array->data()->buffers[1]),
            (std::vector<int64_t>{0, 1, 3}));
  auto typed = As<LargeListArray>(array);
  EXPECT_EQ(typed->value_length(1), 2);
  EXPECT_EQ(array->ToString(), "[[1], [2, 3]]");
}

TEST(ArrayLayoutTest, FixedSizeList) {
  FixedSizeListBuilder builder(std::make_unique<Int16Builder>(), 2);
  auto* child = static_cast<Int16Builder*>(builder.value_builder());
  ASSERT_OK(builder.Append());
  ASSERT_OK(child->Append(1));
  ASSERT_OK(child->Append(2));
  ASSERT_OK(builder.AppendNull());
  ASSERT_OK(builder.Append());
  ASSERT_OK(child->Append(5));
  ASSERT_OK(child->Append(6));
  ASSERT_OK_AND_ASSIGN(auto array, builder.Finish());
  EXPECT_TRUE(array->type()->Equals(*fixed_size_list(int16(), 2)));
  ASSERT_EQ(array->data()->buffers.size(), 1u);
  EXPECT_EQ(array->data()->buffers[0]->data()[0], 0x05);
  auto typed = As<FixedSizeListArray>(array);
  EXPECT_EQ(typed->list_size(), 2);
  EXPECT_EQ(typed->values()->length(), 6);
  // The null slot's child values are nulls (item is nullable).
  EXPECT_EQ(typed->values()->ToString(), "[1, 2, null, null, 5, 6]");
  EXPECT_EQ(typed->value_offset(2), 4);
  EXPECT_EQ(array->ToString(), "[[1, 2], null, [5, 6]]");
  auto sliced = As<FixedSizeListArray>(array->Slice(2, 1));
  EXPECT_EQ(sliced->value_offset(0), 4);
  EXPECT_TRUE(
      sliced->value_slice(0)->Equals(*ArrayFromVector<Int16Builder>({5, 6}).value()));
  EXPECT_OK(array->Validate());
}

TEST(ArrayLayoutTest, Struct) {
  auto array = Structs({XY{1, "a"}, std::nullopt, XY{3, "c"}});
  ASSERT_EQ(array->data()->buffers.size(), 1u);
  ASSERT_EQ(array->data()->children.size(), 2u);
  EXPECT_EQ(array->data()->buffers[0]->data()[0], 0x05);
  auto typed = As<StructArray>(array);
  EXPECT_EQ(typed->num_fields(), 2);
  EXPECT_TRUE(typed->field(0)->Equals(*I32({1, 0, 3}, {true, false, true})));
  EXPECT_TRUE(typed->field(1)->Equals(*Str({"a", "", "c"}, {true, false, true})));
  EXPECT_EQ(typed->GetFieldByName("y"), typed->field(1));
  EXPECT_EQ(typed->GetFieldByName("nope"), nullptr);
  EXPECT_EQ(array->ToString(), "[{x: 1, y: \"a\"}, null, {x: 3, y: \"c\"}]");
  EXPECT_OK(array->Validate());
}

TEST(ArrayLayoutTest, TemporalAndHalfFloat) {
  auto dates = ArrayFromVector<Date32Builder>({0, 19782, -1}).value();
  EXPECT_TRUE(dates->type()->Equals(*date32()));
  EXPECT_EQ(As<Date32Array>(dates)->Value(1), 19782);
  EXPECT_EQ(dates->ToString(), "[1970-01-01, 2024-02-29, 1969-12-31]");

  auto ts_type = timestamp(TimeUnit::kMicro, "UTC");
  auto ts =
      ArrayFromVector<TimestampBuilder>(ts_type, {1709214300123456, 0}, {true, false})
          .value();
  EXPECT_TRUE(ts->type()->Equals(*ts_type));
  EXPECT_EQ(As<TimestampArray>(ts)->Value(0), 1709214300123456);
  EXPECT_EQ(ts->ToString(), "[2024-02-29 13:45:00.123456Z, null]");
  auto secs =
      ArrayFromVector<TimestampBuilder>(timestamp(TimeUnit::kSecond), {-1}).value();
  EXPECT_EQ(secs->ToString(), "[1969-12-31 23:59:59]");
  auto millis =
      ArrayFromVector<TimestampBuilder>(timestamp(TimeUnit::kMilli), {-1}).value();
  EXPECT_EQ(millis->ToString(), "[1969-12-31 23:59:59.999]");
  auto nanos = ArrayFromVector<TimestampBuilder>(timestamp(TimeUnit::kNano), {1}).value();
  EXPECT_EQ(nanos->ToString(), "[1970-01-01 00:00:00.000000001]");
  // A zoned column prints in its zone with the offset (Etc/GMT+8 is UTC-08:00), like the
  // CLI; a zone with rules prints the UTC instant.
  auto gmt8 = ArrayFromVector<TimestampBuilder>(timestamp(TimeUnit::kSecond, "Etc/GMT+8"),
                                                {8 * 3600})
                  .value();
  EXPECT_EQ(gmt8->ToString(), "[1970-01-01 00:00:00-08:00]");
  auto paris =
      ArrayFromVector<TimestampBuilder>(timestamp(TimeUnit::kSecond, "Europe/Paris"), {0})
          .value();
  EXPECT_EQ(paris->ToString(), "[1970-01-01 00:00:00Z]");

  auto halves =
      ArrayFromVector<HalfFloatBuilder>({0x3C00, 0xC000, 0x3800, 0x7E00, 0xFC00, 0x0001})
          .value();
  EXPECT_TRUE(halves->type()->Equals(*float16()));
  EXPECT_EQ(As<HalfFloatArray>(halves)->Value(0), 0x3C00);
  EXPECT_EQ(halves->ToString(), "[1, -2, 0.5, nan, -inf, 5.9604645e-08]");
}

TEST(ArrayLayoutTest, MakeArrayDispatch) {
  auto check_type = [](const DataTypePtr& type) {
    auto builder = MakeBuilder(type).value();
    return builder->Finish().value();
  };
  EXPECT_NE(std::dynamic_pointer_cast<BooleanArray>(check_type(boolean())), nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<Int8Array>(check_type(int8())), nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<UInt64Array>(check_type(uint64())), nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<HalfFloatArray>(check_type(float16())), nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<FloatArray>(check_type(float32())), nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<DoubleArray>(check_type(float64())), nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<Date32Array>(check_type(date32())), nullptr);
  EXPECT_NE(
      std::dynamic_pointer_cast<TimestampArray>(check_type(timestamp(TimeUnit::kNano))),
      nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<StringArray>(check_type(utf8())), nullptr);
  EXPECT_EQ(std::dynamic_pointer_cast<StringArray>(check_type(binary())), nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<BinaryArray>(check_type(binary())), nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<LargeStringArray>(check_type(large_utf8())),
            nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<LargeBinaryArray>(check_type(large_binary())),
            nullptr);
  EXPECT_NE(
      std::dynamic_pointer_cast<FixedSizeBinaryArray>(check_type(fixed_size_binary(2))),
      nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<ListArray>(check_type(list(utf8()))), nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<LargeListArray>(check_type(large_list(utf8()))),
            nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<FixedSizeListArray>(
                check_type(fixed_size_list(int8(), 3))),
            nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<StructArray>(check_type(XYType())), nullptr);
  EXPECT_EQ(MakeArray(nullptr), nullptr);
}

// ---------------------------------------------------------------------------------------
// Slicing

TEST(ArraySliceTest, PrimitiveSliceIsZeroCopyAndOffsetAdjusted) {
  auto array = I32({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
                   {true, true, false, true, true, true, true, true, true, false, true});
  auto slice = array->Slice(2, 8);
  EXPECT_EQ(slice->offset(), 2);
  EXPECT_EQ(slice->length(), 8);
  EXPECT_EQ(slice->data()->buffers[1], array->data()->buffers[1]);  // shared, no copy
  EXPECT_EQ(slice->null_count(), 2);
  EXPECT_TRUE(slice->IsNull(0));
  EXPECT_TRUE(slice->IsNull(7));
  auto typed = As<Int32Array>(slice);
  EXPECT_EQ(typed->Value(1), 3);
  EXPECT_EQ(typed->raw_values()[5], 7);
  EXPECT_EQ(slice->ToString(), "[null, 3, 4, 5, 6, 7, 8, null]");
  // Slice of a slice accumulates offsets.
  auto inner = slice->Slice(1, 3);
  EXPECT_EQ(inner->offset(), 3);
  EXPECT_EQ(inner->null_count(), 0);
  EXPECT_EQ(inner->ToString(), "[3, 4, 5]");
  // Clamped.
  EXPECT_EQ(array->Slice(9, 100)->length(), 2);
  EXPECT_EQ(array->Slice(50, 1)->length(), 0);
  EXPECT_EQ(array->Slice(4)->length(), 7);
  EXPECT_OK(slice->Validate());
}

TEST(ArraySliceTest, BooleanAndStringSlices) {
  auto bools = Bools({true, false, true, true, false, true, false, false, true, true},
                     {true, true, true, true, true, true, true, false, true, true});
  auto bslice = As<BooleanArray>(bools->Slice(3, 6));
  EXPECT_EQ(bslice->ToString(), "[true, false, true, false, null, true]");
  EXPECT_EQ(bslice->true_count(), 3);

  auto strs = Str({"zero", "one", "two", "three"}, {true, false, true, true});
  auto sslice = As<StringArray>(strs->Slice(1, 3));
  EXPECT_TRUE(sslice->IsNull(0));
  EXPECT_EQ(sslice->GetView(1), "two");
  EXPECT_EQ(sslice->value_offset(1), 4);
  EXPECT_EQ(sslice->total_values_length(), 8);
  EXPECT_EQ(sslice->ToString(), "[null, \"two\", \"three\"]");
}

TEST(ArraySliceTest, StructWithNullsAndFieldHonouringOffset) {
  auto array = Structs({XY{1, "a"}, std::nullopt, XY{3, "c"}, XY{4, "d"}});
  auto slice = As<StructArray>(array->Slice(1, 3));
  EXPECT_EQ(slice->null_count(), 1);
  EXPECT_TRUE(slice->IsNull(0));
  ASSERT_EQ(slice->field(0)->length(), 3);
  EXPECT_TRUE(slice->field(0)->IsNull(0));
  EXPECT_EQ(As<Int32Array>(slice->field(0))->Value(1), 3);
  EXPECT_EQ(As<StringArray>(slice->field(1))->GetView(2), "d");
  EXPECT_EQ(slice->ToString(), "[null, {x: 3, y: \"c\"}, {x: 4, y: \"d\"}]");
  EXPECT_TRUE(slice->Equals(*Structs({std::nullopt, XY{3, "c"}, XY{4, "d"}})));
  EXPECT_OK(slice->Validate());
}

TEST(ArraySliceTest, StructOverSlicedChildren) {
  auto xs = I32({9, 9, 1, 2, 3, 9});
  auto ys = Str({"q", "a", "b", "c"});
  ASSERT_OK_AND_ASSIGN(auto array, StructArray::Make({xs->Slice(2, 3), ys->Slice(1, 3)},
                                                     std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(array->length(), 3);
  EXPECT_TRUE(array->Equals(*Structs({XY{1, "a"}, XY{2, "b"}, XY{3, "c"}})));
  auto slice = As<StructArray>(array->Slice(1, 2));
  EXPECT_EQ(As<Int32Array>(slice->field(0))->Value(0), 2);
  EXPECT_EQ(As<StringArray>(slice->field(1))->GetView(1), "c");
  EXPECT_OK(slice->Validate());
}

TEST(ArraySliceTest, ListSliceAndSlicedChild) {
  auto array = ListOfInts({std::vector<int32_t>{1, 2}, std::nullopt,
                           std::vector<int32_t>{}, std::vector<int32_t>{3, 4, 5}});
  auto slice = As<ListArray>(array->Slice(2, 2));
  EXPECT_EQ(slice->value_offset(0), 2);
  EXPECT_EQ(slice->value_length(1), 3);
  EXPECT_TRUE(slice->value_slice(1)->Equals(*I32({3, 4, 5})));
  EXPECT_EQ(slice->ToString(), "[[], [3, 4, 5]]");
  EXPECT_OK(slice->Validate());

  // A list whose child is itself a slice: offsets index the child's logical slots.
  auto child = I32({100, 1, 2, 3, 200})->Slice(1, 3);
  ASSERT_OK_AND_ASSIGN(auto offsets, Buffer::Allocate(3 * sizeof(int32_t)));
  offsets->mutable_data_as<int32_t>()[0] = 0;
  offsets->mutable_data_as<int32_t>()[1] = 2;
  offsets->mutable_data_as<int32_t>()[2] = 3;
  auto data =
      ArrayData::Make(list(int32()), 2, {nullptr, offsets}, 0, 0, {child->data()});
  auto over_slice = MakeArray(data);
  EXPECT_OK(over_slice->Validate());
  EXPECT_EQ(over_slice->ToString(), "[[1, 2], [3]]");
  EXPECT_TRUE(over_slice->Equals(
      *ListOfInts({std::vector<int32_t>{1, 2}, std::vector<int32_t>{3}})));
}

TEST(ArraySliceTest, NestedListOfStructWithNulls) {
  // list<struct<x, y>>: [[{1,a}, null], null, [{3,c}]]
  std::vector<std::unique_ptr<ArrayBuilder>> fields;
  fields.push_back(std::make_unique<Int32Builder>());
  fields.push_back(std::make_unique<StringBuilder>());
  ListBuilder builder(std::make_unique<StructBuilder>(XYType(), std::move(fields)));
  auto* item = static_cast<StructBuilder*>(builder.value_builder());
  auto* x = static_cast<Int32Builder*>(item->field_builder(0));
  auto* y = static_cast<StringBuilder*>(item->field_builder(1));
  ASSERT_OK(builder.Append());
  ASSERT_OK(item->Append());
  ASSERT_OK(x->Append(1));
  ASSERT_OK(y->Append("a"));
  ASSERT_OK(item->AppendNull());
  ASSERT_OK(builder.AppendNull());
  ASSERT_OK(builder.Append());
  ASSERT_OK(item->Append());
  ASSERT_OK(x->Append(3));
  ASSERT_OK(y->Append("c"));
  ASSERT_OK_AND_ASSIGN(auto array, builder.Finish());
  EXPECT_OK(array->Validate());
  EXPECT_EQ(array->ToString(), "[[{x: 1, y: \"a\"}, null], null, [{x: 3, y: \"c\"}]]");
  auto tail = array->Slice(1, 2);
  EXPECT_EQ(tail->ToString(), "[null, [{x: 3, y: \"c\"}]]");
  auto head = array->Slice(0, 1);
  auto elements = As<ListArray>(head)->value_slice(0);
  EXPECT_EQ(elements->null_count(), 1);
  EXPECT_EQ(As<StructArray>(elements)->field(1)->ToString(), "[\"a\", null]");
}

// ---------------------------------------------------------------------------------------
// Equality

TEST(ArrayEqualsTest, Primitives) {
  EXPECT_TRUE(I32({1, 2, 3})->Equals(*I32({1, 2, 3})));
  EXPECT_FALSE(I32({1, 2, 3})->Equals(*I32({1, 2, 4})));
  EXPECT_FALSE(I32({1, 2, 3})->Equals(*I32({1, 2})));
  EXPECT_FALSE(I32({1, 2, 3})->Equals(*I64({1, 2, 3})));
  EXPECT_FALSE(I32({1, 2, 3})->Equals(*I32({1, 2, 3}, {true, false, true})));
  EXPECT_TRUE(
      I32({1, 2, 3}, {true, false, true})->Equals(*I32({1, 7, 3}, {true, false, true})));
  EXPECT_TRUE(I32({1, 2, 3})->Equals(I32({1, 2, 3})));
  EXPECT_FALSE(I32({1, 2, 3})->Equals(ArrayPtr()));
  // Sliced vs fresh.
  EXPECT_TRUE(I32({0, 1, 2, 3})->Slice(1, 2)->Equals(*I32({1, 2})));
  EXPECT_FALSE(I32({0, 1, 2, 3})->Slice(1, 2)->Equals(*I32({2, 3})));
  // Same data, different logical type.
  auto as_date = MakeArray(ArrayData::Make(date32(), 3, I32({1, 2, 3})->data()->buffers));
  EXPECT_FALSE(as_date->Equals(*I32({1, 2, 3})));
}

TEST(ArrayEqualsTest, ValuesUnderNullsAreIgnored) {
  ASSERT_OK_AND_ASSIGN(auto validity, Buffer::CopyFrom("\x05", 1));
  ASSERT_OK_AND_ASSIGN(auto values_a, Buffer::Allocate(12));
  ASSERT_OK_AND_ASSIGN(auto values_b, Buffer::Allocate(12));
  values_a->mutable_data_as<int32_t>()[0] = 1;
  values_a->mutable_data_as<int32_t>()[1] = 99;
  values_a->mutable_data_as<int32_t>()[2] = 3;
  values_b->mutable_data_as<int32_t>()[0] = 1;
  values_b->mutable_data_as<int32_t>()[1] = -5;
  values_b->mutable_data_as<int32_t>()[2] = 3;
  auto a = MakeArray(ArrayData::Make(int32(), 3, {validity, values_a}));
  auto b = MakeArray(ArrayData::Make(int32(), 3, {validity, values_b}));
  EXPECT_TRUE(a->Equals(*b));
  values_b->mutable_data_as<int32_t>()[2] = 4;
  EXPECT_FALSE(a->Equals(*b));
}

TEST(ArrayEqualsTest, FloatingPoint) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(F64({1.5, nan})->Equals(*F64({1.5, nan})));
  EXPECT_TRUE(F64({0.0})->Equals(*F64({-0.0})));
  EXPECT_FALSE(F64({nan})->Equals(*F64({1.0})));
  EXPECT_FALSE(F64({1.0})->Equals(*F64({1.0000001})));
  auto f32a = ArrayFromVector<FloatBuilder>({std::nanf(""), 2.f}).value();
  auto f32b = ArrayFromVector<FloatBuilder>({std::nanf("1"), 2.f}).value();
  EXPECT_TRUE(f32a->Equals(*f32b));
  auto h1 = ArrayFromVector<HalfFloatBuilder>({0x7E00, 0x0000, 0x3C00}).value();
  auto h2 = ArrayFromVector<HalfFloatBuilder>({0x7C01, 0x8000, 0x3C00}).value();
  auto h3 = ArrayFromVector<HalfFloatBuilder>({0x7C00, 0x8000, 0x3C00}).value();
  EXPECT_TRUE(h1->Equals(*h2));   // any NaN payload, +0 == -0
  EXPECT_FALSE(h1->Equals(*h3));  // NaN != inf
}

TEST(ArrayEqualsTest, BooleanAtBitOffsets) {
  auto a = Bools({true, false, true, true, false, false, true, true, false, true, true});
  auto b = Bools({false, true, true, false, false, true, true, false, true, true});
  EXPECT_TRUE(a->Slice(2, 9)->Equals(*b->Slice(1, 9)));
  EXPECT_FALSE(a->Slice(1, 9)->Equals(*b->Slice(1, 9)));
}

TEST(ArrayEqualsTest, StringsAndBinary) {
  EXPECT_TRUE(Str({"a", "bc"})->Equals(*Str({"a", "bc"})));
  EXPECT_FALSE(
      Str({"a", "bc"})->Equals(*Str({"ab", "c"})));  // same bytes, different cuts
  EXPECT_FALSE(Str({"a", "bc"})->Equals(*Str({"a", "bd"})));
  EXPECT_TRUE(
      Str({"x", "a", "bc"})->Slice(1)->Equals(*Str({"a", "bc", "y"})->Slice(0, 2)));
  auto bin = ArrayFromVector<BinaryBuilder>({"a", "bc"}).value();
  EXPECT_FALSE(bin->Equals(*Str({"a", "bc"})));  // type differs
  EXPECT_TRUE(Str({"a", "zz", "bc"}, {true, false, true})
                  ->Equals(*Str({"a", "", "bc"}, {true, false, true})));
}

TEST(ArrayEqualsTest, Nested) {
  auto l1 =
      ListOfInts({std::vector<int32_t>{1, 2}, std::nullopt, std::vector<int32_t>{3}});
  auto l2 =
      ListOfInts({std::vector<int32_t>{1, 2}, std::nullopt, std::vector<int32_t>{3}});
  auto l3 =
      ListOfInts({std::vector<int32_t>{1}, std::nullopt, std::vector<int32_t>{2, 3}});
  auto l4 = ListOfInts(
      {std::vector<int32_t>{1, 2}, std::vector<int32_t>{}, std::vector<int32_t>{3}});
  EXPECT_TRUE(l1->Equals(*l2));
  EXPECT_FALSE(l1->Equals(*l3));
  EXPECT_FALSE(l1->Equals(*l4));
  EXPECT_FALSE(l1->Equals(*LargeListOfInts(
      {std::vector<int32_t>{1, 2}, std::nullopt, std::vector<int32_t>{3}})));

  auto s1 = Structs({XY{1, "a"}, std::nullopt});
  auto s2 = Structs({XY{1, "a"}, std::nullopt});
  auto s3 = Structs({XY{1, "b"}, std::nullopt});
  auto s4 = Structs({XY{1, "a"}, XY{0, ""}});
  EXPECT_TRUE(s1->Equals(*s2));
  EXPECT_FALSE(s1->Equals(*s3));
  EXPECT_FALSE(s1->Equals(*s4));
}

// ---------------------------------------------------------------------------------------
// Validation

BufferPtr CopyOf(const BufferPtr& buffer) {
  return Buffer::CopyFrom(buffer->data(), buffer->size()).value();
}

TEST(ArrayValidateTest, CorruptOffsets) {
  auto good = Str({"ab", "c", "def"});
  ASSERT_OK(good->Validate());
  auto& buffers = good->data()->buffers;

  auto decreasing = CopyOf(buffers[1]);
  decreasing->mutable_data_as<int32_t>()[2] = 1;  // {0, 2, 1, 6}
  auto bad1 = MakeArray(ArrayData::Make(utf8(), 3, {nullptr, decreasing, buffers[2]}));
  EXPECT_THAT(bad1->Validate(), IsErrorWith(StatusCode::kInvalid, "less than"));

  auto too_far = CopyOf(buffers[1]);
  too_far->mutable_data_as<int32_t>()[3] = 100;
  auto bad2 = MakeArray(ArrayData::Make(utf8(), 3, {nullptr, too_far, buffers[2]}));
  EXPECT_THAT(bad2->Validate(), IsErrorWith(StatusCode::kInvalid, "exceeds"));

  auto negative = CopyOf(buffers[1]);
  negative->mutable_data_as<int32_t>()[0] = -1;
  auto bad3 = MakeArray(ArrayData::Make(utf8(), 3, {nullptr, negative, buffers[2]}));
  EXPECT_THAT(bad3->Validate(), IsErrorWith(StatusCode::kInvalid, "negative"));

  auto short_offsets = Buffer::Slice(buffers[1], 0, 8);
  auto bad4 = MakeArray(ArrayData::Make(utf8(), 3, {nullptr, short_offsets, buffers[2]}));
  EXPECT_THAT(bad4->Validate(), IsErrorWith(StatusCode::kInvalid, "offsets buffer"));

  // A slice only needs its own window to be consistent.
  auto window =
      MakeArray(ArrayData::Make(utf8(), 1, {nullptr, decreasing, buffers[2]}, 0, 2));
  EXPECT_OK(window->Validate());
}

TEST(ArrayValidateTest, ListOffsetsBeyondChild) {
  auto good = ListOfInts({std::vector<int32_t>{1, 2}, std::vector<int32_t>{3}});
  ASSERT_OK(good->Validate());
  auto offsets = CopyOf(good->data()->buffers[1]);
  offsets->mutable_data_as<int32_t>()[2] = 4;
  auto bad = MakeArray(
      ArrayData::Make(good->type(), 2, {nullptr, offsets}, 0, 0, good->data()->children));
  EXPECT_THAT(bad->Validate(), IsErrorWith(StatusCode::kInvalid, "child"));

  auto wrong_child = MakeArray(ArrayData::Make(list(int64()), 2, good->data()->buffers, 0,
                                               0, good->data()->children));
  EXPECT_THAT(wrong_child->Validate(), IsErrorWith(StatusCode::kInvalid, "type"));
}

TEST(ArrayValidateTest, BufferSizesAndCounts) {
  auto ints = I32({1, 2, 3, 4});
  auto short_values = Buffer::Slice(ints->data()->buffers[1], 0, 12);
  EXPECT_THAT(MakeArray(ArrayData::Make(int32(), 4, {nullptr, short_values}))->Validate(),
              IsErrorWith(StatusCode::kInvalid, "values buffer"));
  // Offset pushes the window past the end.
  EXPECT_THAT(
      MakeArray(ArrayData::Make(int32(), 4, ints->data()->buffers, 0, 1))->Validate(),
      IsError(StatusCode::kInvalid));
  EXPECT_THAT(MakeArray(ArrayData::Make(int32(), 4, {nullptr}))->Validate(),
              IsErrorWith(StatusCode::kInvalid, "buffers"));
  auto empty_bitmap = Buffer::FromString("");
  EXPECT_THAT(
      MakeArray(ArrayData::Make(int32(), 4, {empty_bitmap, ints->data()->buffers[1]}))
          ->Validate(),
      IsErrorWith(StatusCode::kInvalid, "validity"));
  auto bitmap = Buffer::FromString("\x0f");
  auto wrong_count = MakeArray(
      ArrayData::Make(int32(), 4, {Buffer::FromString("\x07"), ints->data()->buffers[1]},
                      /*null_count=*/0));
  EXPECT_THAT(wrong_count->Validate(), IsErrorWith(StatusCode::kInvalid, "null_count"));
  EXPECT_OK(MakeArray(ArrayData::Make(int32(), 4, {bitmap, ints->data()->buffers[1]}))
                ->Validate());
  auto bools =
      MakeArray(ArrayData::Make(boolean(), 9, {nullptr, Buffer::FromString("\x01")}));
  EXPECT_THAT(bools->Validate(), IsErrorWith(StatusCode::kInvalid, "value bitmap"));
}

TEST(ArrayValidateTest, NestedChildLengths) {
  auto xs = I32({1, 2});
  auto ys = Str({"a", "b", "c"});
  auto bad_struct =
      MakeArray(ArrayData::Make(XYType(), 3, {nullptr}, 0, 0, {xs->data(), ys->data()}));
  EXPECT_THAT(bad_struct->Validate(), IsErrorWith(StatusCode::kInvalid, "field 'x'"));
  auto missing_child =
      MakeArray(ArrayData::Make(XYType(), 2, {nullptr}, 0, 0, {xs->data()}));
  EXPECT_THAT(missing_child->Validate(), IsErrorWith(StatusCode::kInvalid, "children"));
  auto bad_fsl = MakeArray(
      ArrayData::Make(fixed_size_list(int32(), 2), 2, {nullptr}, 0, 0, {ys->data()}));
  EXPECT_THAT(bad_fsl->Validate(), IsError(StatusCode::kInvalid));
  auto short_fsl = MakeArray(ArrayData::Make(fixed_size_list(int32(), 2), 2, {nullptr}, 0,
                                             0, {I32({1, 2, 3})->data()}));
  EXPECT_THAT(short_fsl->Validate(), IsErrorWith(StatusCode::kInvalid, "need 4"));
  // Corruption deep inside a child is found too.
  auto bad_inner =
      MakeArray(ArrayData::Make(int32(), 2, {nullptr, Buffer::FromString("x")}));
  auto outer = MakeArray(
      ArrayData::Make(XYType(), 2, {nullptr}, 0, 0, {bad_inner->data(), ys->data()}));
  EXPECT_THAT(outer->Validate(), IsErrorWith(StatusCode::kInvalid, "values buffer"));
}

TEST(ArrayValidateTest, Utf8) {
  auto bytes =
      ArrayFromVector<BinaryBuilder>({"ok", "\xff", "\xc3\xa9", "\xed\xa0\x80"}).value();
  EXPECT_OK(bytes->Validate());
  auto as_utf8 = MakeArray(ArrayData::Make(utf8(), 4, bytes->data()->buffers));
  EXPECT_THAT(as_utf8->Validate(), IsErrorWith(StatusCode::kInvalid, "slot 1"));
  EXPECT_OK(as_utf8->Slice(2, 1)->Validate());
  EXPECT_THAT(as_utf8->Slice(3, 1)->Validate(),
              IsError(StatusCode::kInvalid));  // surrogate
  auto overlong = MakeArray(ArrayData::Make(
      utf8(), 1,
      {nullptr, ArrayFromVector<BinaryBuilder>({"\xc0\x80"}).value()->data()->buffers[1],
       Buffer::FromString("\xc0\x80")}));
  EXPECT_THAT(overlong->Validate(), IsError(StatusCode::kInvalid));
}

// ---------------------------------------------------------------------------------------
// Pretty printing

TEST(ArrayToStringTest, Scalars) {
  EXPECT_EQ(I64({1, 0, 3}, {true, false, true})->ToString(), "[1, null, 3]");
  EXPECT_EQ(I64({})->ToString(), "[]");
  EXPECT_EQ(Bools({true, false, false}, {true, true, false})->ToString(),
            "[true, false, null]");
  EXPECT_EQ(Str({"a", "", "q\"\\\n\x01"}, {true, false, true})->ToString(),
            "[\"a\", null, \"q\\\"\\\\\\n\\x01\"]");
  EXPECT_EQ(Str({"héllo"})->ToString(), "[\"héllo\"]");
  EXPECT_EQ(
      ArrayFromVector<BinaryBuilder>({std::string("AB\0", 3), ""}).value()->ToString(),
      "[x'414200', x'']");
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(F64({1.5, std::nan(""), -inf, 0.1, 1e300})->ToString(),
            "[1.5, nan, -inf, 0.1, 1e+300]");
  EXPECT_EQ(ArrayFromVector<FloatBuilder>({0.1f}).value()->ToString(), "[0.1]");
  EXPECT_EQ(ArrayFromVector<Int8Builder>({-128, 127}).value()->ToString(), "[-128, 127]");
  EXPECT_EQ(ArrayFromVector<UInt64Builder>({18446744073709551615ull}).value()->ToString(),
            "[18446744073709551615]");
}

TEST(ArrayToStringTest, LongArraysAreElided) {
  std::vector<int32_t> values(100);
  for (int i = 0; i < 100; ++i) values[i] = i;
  EXPECT_EQ(
      I32(values)->ToString(),
      "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ..., 90, 91, 92, 93, 94, 95, 96, 97, 98, 99]");
  values.resize(20);
  EXPECT_EQ(I32(values)->ToString().find("..."), std::string::npos);
  PrettyPrintOptions options;
  options.window = 1;
  EXPECT_EQ(PrettyPrint(*I32({1, 2, 3}), options), "[1, ..., 3]");
  EXPECT_EQ(FormatValue(*I32({1, 2, 3}, {true, false, true}), 1), "null");
  EXPECT_EQ(FormatValue(*Str({"x"}), 0), "\"x\"");
}

TEST(ArrayToStringTest, Nested) {
  auto lists =
      ListOfInts({std::vector<int32_t>{1, 2}, std::nullopt, std::vector<int32_t>{}});
  EXPECT_EQ(lists->ToString(), "[[1, 2], null, []]");
  EXPECT_EQ(FormatValue(*lists, 0), "[1, 2]");
  auto structs = Structs({XY{1, "a"}, std::nullopt});
  EXPECT_EQ(FormatValue(*structs, 0), "{x: 1, y: \"a\"}");
}

// ---------------------------------------------------------------------------------------
// Concatenation

TEST(ConcatenateTest, IntsWithSlicesAndBitOffsets) {
  auto a = I32({1, 0, 3, 4, 5, 6, 7, 8, 9, 10},
               {true, false, true, true, true, true, true, true, true, true});
  auto b = I32({0, 20}, {false, true});
  auto c = I32({30, 0, 31}, {true, false, true});
  ASSERT_OK_AND_ASSIGN(auto out, Concatenate({a->Slice(3, 6), b, c->Slice(1, 2)}));
  EXPECT_EQ(out->offset(), 0);
  EXPECT_EQ(out->length(), 10);
  EXPECT_EQ(out->null_count(), 2);
  EXPECT_EQ(out->ToString(), "[4, 5, 6, 7, 8, 9, null, 20, null, 31]");
  // validity: slots 6 and 8 null -> bits 0..7 = 0b10111111, bits 8..9 = 0b10.
  EXPECT_EQ(out->data()->buffers[0]->data()[0], 0xBF);
  EXPECT_EQ(out->data()->buffers[0]->data()[1], 0x02);
  EXPECT_OK(out->Validate());
  ASSERT_OK_AND_ASSIGN(auto no_nulls, Concatenate({a->Slice(2, 3), I32({1})}));
  EXPECT_EQ(no_nulls->data()->buffers[0], nullptr);
  EXPECT_TRUE(no_nulls->Equals(*I32({3, 4, 5, 1})));
}

TEST(ConcatenateTest, BooleansAtOddOffsetsMatchElementwise) {
  std::mt19937 rng(3);
  std::vector<bool> values(100), valid(100);
  for (int i = 0; i < 100; ++i) {
    values[i] = rng() % 2;
    valid[i] = rng() % 5 != 0;
  }
  auto array = Bools(values, valid);
  const std::vector<std::pair<int, int>> ranges = {{3, 50}, {61, 30}, {0, 7}, {99, 1}};
  std::vector<ArrayPtr> pieces;
  std::vector<bool> exp_values, exp_valid;
  for (auto [start, len] : ranges) {
    pieces.push_back(array->Slice(start, len));
    for (int i = start; i < start + len; ++i) {
      exp_values.push_back(values[i]);
      exp_valid.push_back(valid[i]);
    }
  }
  ASSERT_OK_AND_ASSIGN(auto out, Concatenate(pieces));
  EXPECT_TRUE(out->Equals(*Bools(exp_values, exp_valid)));
  EXPECT_OK(out->Validate());
}

TEST(ConcatenateTest, StringsRebaseOffsets) {
  auto a = Str({"skip", "hello", "", "x"}, {true, true, false, true});
  auto b = Str({"world", "!"});
  ASSERT_OK_AND_ASSIGN(auto out, Concatenate({a->Slice(1, 3), b->Slice(1)}));
  EXPECT_EQ(BufferValues<int32_t>(out->data()->buffers[1]),
            (std::vector<int32_t>{0, 5, 5, 6, 7}));
  EXPECT_EQ(out->data()->buffers[2]->ToStringView(), "hellox!");
  EXPECT_EQ(out->ToString(), "[\"hello\", null, \"x\", \"!\"]");
  EXPECT_OK(out->Validate());

  auto la = ArrayFromVector<LargeStringBuilder>({"a", "bb"}).value();
  ASSERT_OK_AND_ASSIGN(auto large, Concatenate({la->Slice(1), la}));
  EXPECT_EQ(BufferValues<int64_t>(large->data()->buffers[1]),
            (std::vector<int64_t>{0, 2, 3, 5}));
  EXPECT_TRUE(large->type()->Equals(*large_utf8()));
}

TEST(ConcatenateTest, ManyStringSlicesAllocateTheValuesOnce) {
  // The value bytes of all inputs are reserved up front; slices (offsets not starting
  // at 0) and empty inputs count only their own bytes.
  std::vector<ArrayPtr> pieces;
  std::string expected_bytes;
  for (int i = 0; i < 200; ++i) {
    auto a = Str({"xx", "v" + std::to_string(i), "", "yyy"});
    pieces.push_back(a->Slice(1, 2));
    expected_bytes += "v" + std::to_string(i);
    if (i % 50 == 0) pieces.push_back(a->Slice(0, 0));
  }
  ASSERT_OK_AND_ASSIGN(auto out, Concatenate(pieces));
  EXPECT_EQ(out->length(), 400);
  const BufferPtr& data = out->data()->buffers[2];
  EXPECT_EQ(data->ToStringView(), expected_bytes);
  EXPECT_LT(data->capacity(), static_cast<int64_t>(expected_bytes.size()) + 64)
      << "grown by doubling instead of reserved";
  ASSERT_OK_AND_ASSIGN(
      auto large,
      Concatenate({ArrayFromVector<LargeStringBuilder>({"a", "bb"}).value()->Slice(1, 1),
                   ArrayFromVector<LargeStringBuilder>({"ccc"}).value()}));
  EXPECT_EQ(large->data()->buffers[2]->ToStringView(), "bbccc");
}

TEST(ConcatenateTest, ListsCopyOnlyReferencedChildren) {
  auto a = ListOfInts({std::vector<int32_t>{1, 2}, std::nullopt,
                       std::vector<int32_t>{3, 4}, std::vector<int32_t>{5}});
  auto b = ListOfInts({std::vector<int32_t>{6}, std::vector<int32_t>{7, 8}});
  ASSERT_OK_AND_ASSIGN(auto out, Concatenate({a->Slice(1, 2), b->Slice(1)}));
  EXPECT_EQ(out->ToString(), "[null, [3, 4], [7, 8]]");
  auto typed = As<ListArray>(out);
  EXPECT_EQ(typed->values()->length(), 4);
  EXPECT_EQ(BufferValues<int32_t>(out->data()->buffers[1]),
            (std::vector<int32_t>{0, 0, 2, 4}));
  EXPECT_OK(out->Validate());

  auto la = LargeListOfInts({std::vector<int32_t>{1}, std::vector<int32_t>{2, 3}});
  ASSERT_OK_AND_ASSIGN(auto large, Concatenate({la->Slice(1), la->Slice(0, 1)}));
  EXPECT_EQ(large->ToString(), "[[2, 3], [1]]");
}

TEST(ConcatenateTest, StructsFixedSizeListsAndFixedBinary) {
  auto s = Structs({XY{1, "a"}, std::nullopt, XY{3, "c"}});
  ASSERT_OK_AND_ASSIGN(auto out, Concatenate({s->Slice(1), s->Slice(0, 1)}));
  EXPECT_TRUE(out->Equals(*Structs({std::nullopt, XY{3, "c"}, XY{1, "a"}})));
  EXPECT_OK(out->Validate());

  FixedSizeListBuilder builder(std::make_unique<Int8Builder>(), 2);
  auto* child = static_cast<Int8Builder*>(builder.value_builder());
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK(builder.Append());
    ASSERT_OK(child->Append(static_cast<int8_t>(2 * i)));
    ASSERT_OK(child->Append(static_cast<int8_t>(2 * i + 1)));
  }
  ASSERT_OK_AND_ASSIGN(auto fsl, builder.Finish());
  ASSERT_OK_AND_ASSIGN(auto fsl_out, Concatenate({fsl->Slice(3), fsl->Slice(1, 1)}));
  EXPECT_EQ(fsl_out->ToString(), "[[6, 7], [2, 3]]");
  EXPECT_EQ(As<FixedSizeListArray>(fsl_out)->values()->length(), 4);

  auto fsb =
      ArrayFromVector<FixedSizeBinaryBuilder>(fixed_size_binary(2), {"ab", "cd", "ef"})
          .value();
  ASSERT_OK_AND_ASSIGN(auto fsb_out, Concatenate({fsb->Slice(2), fsb->Slice(0, 1)}));
  EXPECT_EQ(fsb_out->data()->buffers[1]->ToStringView(), "efab");

  auto ts_type = timestamp(TimeUnit::kMilli, "UTC");
  auto ts = ArrayFromVector<TimestampBuilder>(ts_type, {1, 2}).value();
  ASSERT_OK_AND_ASSIGN(auto ts_out, Concatenate({ts, ts}));
  EXPECT_TRUE(ts_out->type()->Equals(*ts_type));
  EXPECT_EQ(ts_out->length(), 4);
}

TEST(ConcatenateTest, Errors) {
  EXPECT_THAT(Concatenate({}), IsError(StatusCode::kInvalid));
  EXPECT_THAT(Concatenate({I32({1}), I64({1})}),
              IsErrorWith(StatusCode::kInvalid, "type"));
  EXPECT_THAT(Concatenate({I32({1}), nullptr}), IsError(StatusCode::kInvalid));
  ASSERT_OK_AND_ASSIGN(auto single, Concatenate({I32({1, 2})->Slice(1)}));
  EXPECT_EQ(single->offset(), 0);
  EXPECT_TRUE(single->Equals(*I32({2})));
}

}  // namespace
}  // namespace lance
