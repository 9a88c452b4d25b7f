// SPDX-License-Identifier: Apache-2.0
// The Arrow types beyond the original set: null, decimal128/256, date64, time32/64,
// duration, dictionary and map. Types, decimal text, arrays (classes, validation,
// equality, printing), builders, concatenation and Filter/Take.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/core/compute.h"
#include "lance/core/concatenate.h"
#include "lance/core/decimal.h"
#include "lance/core/pretty_print.h"
#include "lance/core/type.h"
#include "tests/testing/array_helpers.h"
#include "tests/testing/matchers.h"

namespace lance {
namespace {

using namespace ::lance::testing;  // NOLINT(build/namespaces): the test helpers

// A decimal array from text ("" = null).
ArrayPtr Dec(const DataTypePtr& type, const std::vector<std::string>& values) {
  DecimalBuilder builder(type);
  for (const std::string& v : values) {
    Check(v.empty() ? builder.AppendNull() : builder.AppendDecimalText(v));
  }
  return builder.Finish().value();
}

// A dictionary array from values (dictionary-encoded by the builder).
ArrayPtr Dict(const DataTypePtr& type, const ArrayPtr& values) {
  DictionaryBuilder builder(type);
  Check(builder.AppendValues(*values));
  return builder.Finish().value();
}

// map<utf8, int32> from slots of {key, value} pairs; `valid[i] == false` = null slot.
ArrayPtr StrIntMap(const std::vector<std::vector<std::pair<std::string, int32_t>>>& slots,
                   const std::vector<bool>& valid = {}) {
  auto made = MakeBuilder(map(utf8(), int32()));
  Check(made.status());
  auto& builder = static_cast<MapBuilder&>(**made);
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!valid.empty() && !valid[i]) {
      Check(builder.AppendNull());
      continue;
    }
    Check(builder.Append());
    for (const auto& [k, v] : slots[i]) {
      Check(static_cast<StringBuilder*>(builder.key_builder())->Append(k));
      Check(static_cast<Int32Builder*>(builder.item_builder())->Append(v));
    }
  }
  return builder.Finish().value();
}

ArrayPtr Numeric64(const DataTypePtr& type, const std::vector<int64_t>& v,
                   const std::vector<bool>& valid = {}) {
  return ArrayFromVector<Int64Builder>(type, v, valid).value();
}

// ---------------------------------------------------------------------------------------
// Types

TEST(ArrowTypesTest, ToStringUsesArrowSpelling) {
  EXPECT_EQ(null()->ToString(), "null");
  EXPECT_EQ(decimal128(10, 2)->ToString(), "decimal128(10, 2)");
  EXPECT_EQ(decimal256(40, -3)->ToString(), "decimal256(40, -3)");
  EXPECT_EQ(date64()->ToString(), "date64[ms]");
  EXPECT_EQ(time32(TimeUnit::kSecond)->ToString(), "time32[s]");
  EXPECT_EQ(time32(TimeUnit::kMilli)->ToString(), "time32[ms]");
  EXPECT_EQ(time64(TimeUnit::kMicro)->ToString(), "time64[us]");
  EXPECT_EQ(time64(TimeUnit::kNano)->ToString(), "time64[ns]");
  EXPECT_EQ(duration(TimeUnit::kMilli)->ToString(), "duration[ms]");
  EXPECT_EQ(dictionary(int32(), utf8())->ToString(),
            "dictionary<values=utf8, indices=int32, ordered=0>");
  EXPECT_EQ(dictionary(int8(), float64(), true)->ToString(),
            "dictionary<values=double, indices=int8, ordered=1>");
  EXPECT_EQ(map(utf8(), int32())->ToString(), "map<utf8, int32>");
  EXPECT_EQ(map(utf8(), int32(), true)->ToString(), "map<utf8, int32, keys_sorted>");
  EXPECT_EQ(map(field("k", int64()), field("v", utf8(), false))->ToString(),
            "map<int64 ('k'), utf8 ('v') not null>");
  EXPECT_EQ(list(map(utf8(), list(int8())))->ToString(),
            "list<item: map<utf8, list<item: int8>>>");
}

TEST(ArrowTypesTest, WidthsAndFamilies) {
  EXPECT_EQ(null()->bit_width(), 0);
  EXPECT_EQ(null()->byte_width(), -1);
  EXPECT_EQ(decimal128(5, 0)->byte_width(), 16);
  EXPECT_EQ(decimal128(5, 0)->bit_width(), 128);
  EXPECT_EQ(decimal256(5, 0)->byte_width(), 32);
  EXPECT_EQ(date64()->byte_width(), 8);
  EXPECT_EQ(time32(TimeUnit::kMilli)->byte_width(), 4);
  EXPECT_EQ(time64(TimeUnit::kNano)->byte_width(), 8);
  EXPECT_EQ(duration(TimeUnit::kSecond)->byte_width(), 8);
  EXPECT_EQ(dictionary(int16(), utf8())->byte_width(), -1);
  EXPECT_EQ(map(utf8(), int32())->byte_width(), -1);

  for (const DataTypePtr& t : {date64(), time32(TimeUnit::kSecond),
                               time64(TimeUnit::kMicro), duration(TimeUnit::kNano)}) {
    EXPECT_TRUE(t->is_primitive()) << t->ToString();
    EXPECT_TRUE(t->is_temporal()) << t->ToString();
    EXPECT_TRUE(t->is_fixed_width()) << t->ToString();
  }
  EXPECT_FALSE(decimal128(5, 2)->is_primitive());
  EXPECT_TRUE(decimal128(5, 2)->is_fixed_width());
  EXPECT_TRUE(decimal256(5, 2)->is_decimal());
  EXPECT_FALSE(null()->is_primitive());
  EXPECT_TRUE(null()->is_fixed_width());
  EXPECT_FALSE(dictionary(int32(), int32())->is_fixed_width());
  EXPECT_FALSE(dictionary(int32(), int32())->is_nested());
  EXPECT_TRUE(map(utf8(), int32())->is_list_like());
  EXPECT_TRUE(map(utf8(), int32())->is_nested());
  EXPECT_TRUE(int8()->is_signed_integer());
  EXPECT_FALSE(uint8()->is_signed_integer());
}

TEST(ArrowTypesTest, Accessors) {
  const DataTypePtr d = decimal256(40, 7);
  EXPECT_EQ(d->precision(), 40);
  EXPECT_EQ(d->scale(), 7);
  const DataTypePtr dict = dictionary(uint16(), utf8(), true);
  EXPECT_TRUE(dict->index_type()->Equals(*uint16()));
  EXPECT_TRUE(dict->value_type()->Equals(*utf8()));
  EXPECT_TRUE(dict->ordered());
  EXPECT_FALSE(dict->keys_sorted());
  EXPECT_EQ(dict->num_fields(), 0);

  const DataTypePtr m = map(utf8(), list(int32()), true);
  EXPECT_TRUE(m->keys_sorted());
  EXPECT_FALSE(m->ordered());
  ASSERT_EQ(m->num_fields(), 1);
  const FieldPtr& entries = m->fields()[0];
  EXPECT_EQ(entries->name(), "entries");
  EXPECT_FALSE(entries->nullable());
  EXPECT_EQ(m->key_field()->name(), "key");
  EXPECT_FALSE(m->key_field()->nullable());
  EXPECT_EQ(m->item_field()->name(), "value");
  EXPECT_TRUE(m->item_field()->nullable());
  EXPECT_TRUE(m->key_type()->Equals(*utf8()));
  EXPECT_TRUE(m->item_type()->Equals(*list(int32())));
  EXPECT_TRUE(m->value_type()->Equals(*entries->type()));
  // The key is forced non-nullable, as Arrow requires.
  EXPECT_FALSE(
      map(field("k", utf8(), true), field("v", int8()))->key_field()->nullable());
  // Misuse answers null rather than crashing.
  EXPECT_EQ(int32()->key_field(), nullptr);
  EXPECT_EQ(int32()->index_type(), nullptr);
  EXPECT_EQ(int32()->value_type(), nullptr);
}

TEST(ArrowTypesTest, Equality) {
  EXPECT_TRUE(decimal128(10, 2)->Equals(*decimal128(10, 2)));
  EXPECT_FALSE(decimal128(10, 2)->Equals(*decimal128(10, 3)));
  EXPECT_FALSE(decimal128(10, 2)->Equals(*decimal128(11, 2)));
  EXPECT_FALSE(decimal128(10, 2)->Equals(*decimal256(10, 2)));
  EXPECT_TRUE(null()->Equals(*null()));
  EXPECT_TRUE(date64()->Equals(*date64()));
  EXPECT_FALSE(date64()->Equals(*timestamp(TimeUnit::kMilli)));
  EXPECT_FALSE(time32(TimeUnit::kSecond)->Equals(*time32(TimeUnit::kMilli)));
  EXPECT_FALSE(time64(TimeUnit::kMicro)->Equals(*duration(TimeUnit::kMicro)));
  EXPECT_FALSE(duration(TimeUnit::kSecond)->Equals(*duration(TimeUnit::kNano)));
  EXPECT_TRUE(dictionary(int32(), utf8())->Equals(*dictionary(int32(), utf8())));
  EXPECT_FALSE(dictionary(int32(), utf8())->Equals(*dictionary(int16(), utf8())));
  EXPECT_FALSE(dictionary(int32(), utf8())->Equals(*dictionary(int32(), binary())));
  EXPECT_FALSE(dictionary(int32(), utf8())->Equals(*dictionary(int32(), utf8(), true)));
  EXPECT_FALSE(dictionary(int32(), utf8())->Equals(*utf8()));
  EXPECT_TRUE(map(utf8(), int32())->Equals(*map(utf8(), int32())));
  EXPECT_FALSE(map(utf8(), int32())->Equals(*map(utf8(), int64())));
  EXPECT_FALSE(map(utf8(), int32())->Equals(*map(binary(), int32())));
  EXPECT_FALSE(map(utf8(), int32())->Equals(*map(utf8(), int32(), true)));
  EXPECT_FALSE(map(utf8(), int32())
                   ->Equals(*map(field("key", utf8()), field("v", int32(), false))));
  // Entry names do not matter (producers differ), as for list items.
  EXPECT_TRUE(
      map(utf8(), int32())->Equals(*map(field("k", utf8()), field("v", int32()))));
  // A map is not the list of structs it is laid out as.
  EXPECT_FALSE(map(utf8(), int32())->Equals(*list(map(utf8(), int32())->fields()[0])));
  // Metadata on the item counts only when asked to.
  auto with_meta = map(field("key", utf8()), field("value", int32(), true, {{"a", "b"}}));
  EXPECT_TRUE(with_meta->Equals(*map(utf8(), int32())));
  EXPECT_FALSE(with_meta->Equals(*map(utf8(), int32()), /*check_metadata=*/true));
}

TEST(ArrowTypesTest, MapFromEntriesChecksTheShape) {
  auto kv = struct_({field("k", utf8(), false), field("v", int32())});
  ASSERT_OK_AND_ASSIGN(DataTypePtr m, MapFromEntries(field("e", kv, false), true));
  EXPECT_EQ(m->id(), TypeId::kMap);
  EXPECT_TRUE(m->keys_sorted());
  EXPECT_EQ(m->fields()[0]->name(), "e");
  EXPECT_EQ(m->key_field()->name(), "k");
  EXPECT_THAT(MapFromEntries(field("e", kv, true)),
              IsErrorWith(StatusCode::kInvalid, "must not be nullable"));
  EXPECT_THAT(MapFromEntries(
                  field("e", struct_({field("k", utf8()), field("v", int32())}), false)),
              IsErrorWith(StatusCode::kInvalid, "key field 'k'"));
  EXPECT_THAT(MapFromEntries(field("e", struct_({field("k", utf8(), false)}), false)),
              IsErrorWith(StatusCode::kInvalid, "struct of key and value"));
  EXPECT_THAT(MapFromEntries(field("e", int32(), false)), IsError(StatusCode::kInvalid));
  EXPECT_THAT(MapFromEntries(nullptr), IsError(StatusCode::kInvalid));
}

TEST(ArrowTypesTest, ValidateTypeParameters) {
  EXPECT_OK(ValidateTypeParameters(*decimal128(38, 2)));
  EXPECT_OK(ValidateTypeParameters(*decimal256(76, -5)));
  EXPECT_THAT(ValidateTypeParameters(*decimal128(39, 2)),
              IsErrorWith(StatusCode::kInvalid, "[1, 38]"));
  EXPECT_THAT(ValidateTypeParameters(*decimal128(0, 0)), IsError(StatusCode::kInvalid));
  EXPECT_THAT(ValidateTypeParameters(*decimal256(77, 0)),
              IsErrorWith(StatusCode::kInvalid, "[1, 76]"));
  EXPECT_THAT(ValidateTypeParameters(*time32(TimeUnit::kMicro)),
              IsErrorWith(StatusCode::kInvalid, "time32"));
  EXPECT_THAT(ValidateTypeParameters(*time64(TimeUnit::kSecond)),
              IsErrorWith(StatusCode::kInvalid, "time64"));
  EXPECT_THAT(ValidateTypeParameters(*dictionary(float32(), utf8())),
              IsErrorWith(StatusCode::kInvalid, "integer"));
  EXPECT_OK(ValidateTypeParameters(*dictionary(uint64(), list(utf8()))));
}

// ---------------------------------------------------------------------------------------
// Decimal text

std::string Fmt128(int64_t unscaled, int32_t scale) {
  uint8_t bytes[16];
  DecimalFromInt64(unscaled, 16, bytes);
  return FormatDecimal(bytes, 16, scale);
}

std::string RoundTrip(const DataTypePtr& type, const std::string& text) {
  uint8_t bytes[32];
  Status st = ParseDecimal(text, *type, bytes);
  if (!st.ok()) return "error: " + st.message();
  return FormatDecimal(bytes, type->byte_width(), type->scale());
}

TEST(DecimalTextTest, Format) {
  EXPECT_EQ(Fmt128(12345, 2), "123.45");
  EXPECT_EQ(Fmt128(-1, 2), "-0.01");
  EXPECT_EQ(Fmt128(0, 3), "0.000");
  EXPECT_EQ(Fmt128(0, 0), "0");
  EXPECT_EQ(Fmt128(-7, 0), "-7");
  EXPECT_EQ(Fmt128(123, -2), "12300");
  EXPECT_EQ(Fmt128(0, -2), "0");
  EXPECT_EQ(Fmt128(5, 1), "0.5");
  EXPECT_EQ(Fmt128(INT64_MIN, 0), "-9223372036854775808");
  EXPECT_EQ(Fmt128(12345, 100), "0." + std::string(95, '0') + "12345");
  EXPECT_EQ(Fmt128(12345, 101), "12345E-101");
  EXPECT_EQ(Fmt128(-7, -2000000000), "-7E+2000000000");
  EXPECT_EQ(Fmt128(1, INT32_MIN), "1E+2147483648");
  // The extremes of 128 and 256 bits.
  uint8_t max128[16];
  std::memset(max128, 0xff, 16);
  max128[15] = 0x7f;
  EXPECT_EQ(FormatDecimal(max128, 16, 0), "170141183460469231731687303715884105727");
  uint8_t min256[32] = {};
  min256[31] = 0x80;
  EXPECT_EQ(
      FormatDecimal(min256, 32, 0),
      "-57896044618658097711785492504343953926634992332820282019728792003956564819968");
}

TEST(DecimalTextTest, ParseRoundTrips) {
  const DataTypePtr d = decimal128(10, 2);
  EXPECT_EQ(RoundTrip(d, "123.45"), "123.45");
  EXPECT_EQ(RoundTrip(d, "-0.01"), "-0.01");
  EXPECT_EQ(RoundTrip(d, "+7"), "7.00");
  EXPECT_EQ(RoundTrip(d, "7."), "7.00");
  EXPECT_EQ(RoundTrip(d, ".5"), "0.50");
  EXPECT_EQ(RoundTrip(d, "1.50000"), "1.50");  // trailing zeros are exact
  EXPECT_EQ(RoundTrip(d, "1.5e2"), "150.00");
  EXPECT_EQ(RoundTrip(d, "15E-1"), "1.50");
  EXPECT_EQ(RoundTrip(d, "00012.3"), "12.30");
  EXPECT_EQ(RoundTrip(d, "99999999.99"), "99999999.99");
  EXPECT_EQ(RoundTrip(decimal128(5, -2), "12300"), "12300");
  EXPECT_EQ(RoundTrip(decimal128(38, 0), "99999999999999999999999999999999999999"),
            "99999999999999999999999999999999999999");
  EXPECT_EQ(RoundTrip(decimal256(76, 0), "-" + std::string(76, '9')),
            "-" + std::string(76, '9'));
  EXPECT_EQ(RoundTrip(decimal128(3, 1), "-0"), "0.0");
}

TEST(DecimalTextTest, ParseRejectsInexactOrOversized) {
  const DataTypePtr d = decimal128(10, 2);
  EXPECT_EQ(RoundTrip(d, "1.234"),
            "error: '1.234' is not a valid decimal128(10, 2) value: "
            "more than 2 fraction digits");
  EXPECT_THAT(RoundTrip(d, "100000000.00"), ::testing::HasSubstr("more than 10 digits"));
  EXPECT_THAT(RoundTrip(decimal128(5, -2), "12345"),
              ::testing::HasSubstr("fraction digits"));
  EXPECT_THAT(RoundTrip(decimal128(38, 0), std::string(39, '9')),
              ::testing::HasSubstr("digits"));
  EXPECT_THAT(RoundTrip(decimal256(76, 0), std::string(80, '9')),
              ::testing::HasSubstr("too many digits"));
  EXPECT_THAT(RoundTrip(d, "1e100000000"), ::testing::HasSubstr("exponent"));
  EXPECT_THAT(RoundTrip(d, "1e40"), ::testing::HasSubstr("digits"));
  for (const char* bad : {"", "-", ".", "1.2.3", "12a", "1e", "1e+", "nan", " 1", "1 "}) {
    EXPECT_THAT(RoundTrip(d, bad), ::testing::HasSubstr("error:")) << bad;
  }
}

TEST(DecimalTextTest, FitsPrecision) {
  uint8_t bytes[32];
  DecimalFromInt64(99999, 16, bytes);
  EXPECT_TRUE(DecimalFitsPrecision(bytes, 16, 5));
  EXPECT_FALSE(DecimalFitsPrecision(bytes, 16, 4));
  DecimalFromInt64(-99999, 32, bytes);
  EXPECT_TRUE(DecimalFitsPrecision(bytes, 32, 5));
  EXPECT_FALSE(DecimalFitsPrecision(bytes, 32, 4));
  std::memset(bytes, 0, 32);
  bytes[31] = 0x80;  // -2^255
  EXPECT_FALSE(DecimalFitsPrecision(bytes, 32, 76));
}

// ---------------------------------------------------------------------------------------
// Arrays: classes, accessors, printing

TEST(ArrowTypesArrayTest, NullArray) {
  auto nulls = NullArray::Make(4);
  EXPECT_EQ(nulls->length(), 4);
  EXPECT_EQ(nulls->null_count(), 4);
  EXPECT_TRUE(nulls->IsNull(0));
  EXPECT_FALSE(nulls->IsValid(3));
  EXPECT_EQ(nulls->null_bitmap_data(), nullptr);
  EXPECT_OK(nulls->Validate());
  EXPECT_EQ(nulls->ToString(), "[null, null, null, null]");
  ArrayPtr slice = nulls->Slice(1, 2);
  EXPECT_EQ(slice->null_count(), 2);
  EXPECT_TRUE(slice->Equals(*NullArray::Make(2)));
  EXPECT_FALSE(slice->Equals(*NullArray::Make(3)));
  EXPECT_NE(std::dynamic_pointer_cast<NullArray>(MakeArray(nulls->data())), nullptr);
  // A null count that disagrees or a bitmap are invalid.
  auto bad = std::make_shared<ArrayData>(*nulls->data());
  bad->null_count = 1;
  EXPECT_THAT(MakeArray(bad)->Validate(),
              IsErrorWith(StatusCode::kInvalid, "slots is null"));
  bad = std::make_shared<ArrayData>(*nulls->data());
  bad->buffers[0] = Buffer::Allocate(1).value();
  EXPECT_THAT(MakeArray(bad)->Validate(), IsErrorWith(StatusCode::kInvalid, "bitmap"));
}

TEST(ArrowTypesArrayTest, DecimalArrays) {
  ArrayPtr a = Dec(decimal128(7, 2), {"123.45", "", "-0.01", "99999.99"});
  auto dec = As<Decimal128Array>(a);
  EXPECT_EQ(dec->byte_width(), 16);
  EXPECT_EQ(dec->precision(), 7);
  EXPECT_EQ(dec->scale(), 2);
  EXPECT_EQ(dec->FormatValue(0), "123.45");
  EXPECT_EQ(dec->FormatValue(2), "-0.01");
  int64_t low;
  std::memcpy(&low, dec->GetValue(0), 8);
  EXPECT_EQ(low, 12345);
  EXPECT_OK(a->Validate());
  EXPECT_EQ(a->ToString(), "[123.45, null, -0.01, 99999.99]");
  EXPECT_EQ(a->Slice(2)->ToString(), "[-0.01, 99999.99]");

  ArrayPtr b = Dec(decimal256(40, 0), {"-1", "1234567890123456789012345678901234567890"});
  EXPECT_NE(std::dynamic_pointer_cast<Decimal256Array>(b), nullptr);
  EXPECT_EQ(b->ToString(), "[-1, 1234567890123456789012345678901234567890]");
  EXPECT_OK(b->Validate());

  // A value beyond the precision is caught by Validate, as in Arrow C++.
  uint8_t big[16];
  DecimalFromInt64(100000, 16, big);
  FixedSizeBinaryBuilder raw(decimal128(5, 0));
  ASSERT_OK(raw.Append(big));
  ASSERT_OK_AND_ASSIGN(ArrayPtr wide, raw.Finish());
  EXPECT_THAT(wide->Validate(), IsErrorWith(StatusCode::kInvalid, "more than 5 digits"));
  // Equality compares unscaled values and types.
  EXPECT_TRUE(a->Equals(*Dec(decimal128(7, 2), {"123.45", "", "-0.01", "99999.99"})));
  EXPECT_FALSE(a->Equals(*Dec(decimal128(7, 2), {"123.45", "", "-0.02", "99999.99"})));
  EXPECT_FALSE(a->Equals(*Dec(decimal128(8, 2), {"123.45", "", "-0.01", "99999.99"})));
}

TEST(ArrowTypesArrayTest, TemporalArrays) {
  ArrayPtr d64 =
      Numeric64(date64(), {0, 86'400'000LL * 19782, -86'400'000}, {true, true, true});
  EXPECT_EQ(d64->ToString(), "[1970-01-01, 2024-02-29, 1969-12-31]");
  EXPECT_OK(d64->Validate());
  EXPECT_EQ(As<Date64Array>(d64)->Value(1), 86'400'000LL * 19782);
  ArrayPtr partial_day = Numeric64(date64(), {1});
  EXPECT_THAT(partial_day->Validate(),
              IsErrorWith(StatusCode::kInvalid, "not a whole number of days"));
  EXPECT_EQ(partial_day->ToString(), "[1970-01-01 00:00:00.001]");

  ArrayPtr t32 =
      ArrayFromVector<Int32Builder>(time32(TimeUnit::kMilli), {45'296'789, 0, 86'399'999},
                                    {true, false, true})
          .value();
  EXPECT_EQ(t32->ToString(), "[12:34:56.789, null, 23:59:59.999]");
  EXPECT_OK(t32->Validate());
  ArrayPtr t32s =
      ArrayFromVector<Int32Builder>(time32(TimeUnit::kSecond), {86'400}).value();
  EXPECT_THAT(t32s->Validate(), IsErrorWith(StatusCode::kInvalid, "outside [0, 86400)"));
  ArrayPtr t64 = Numeric64(time64(TimeUnit::kNano), {1, 86'399'999'999'999});
  EXPECT_EQ(t64->ToString(), "[00:00:00.000000001, 23:59:59.999999999]");
  EXPECT_OK(t64->Validate());
  EXPECT_THAT(Numeric64(time64(TimeUnit::kMicro), {-1})->Validate(),
              IsError(StatusCode::kInvalid));

  ArrayPtr dur =
      Numeric64(duration(TimeUnit::kMilli), {1500, -3, 0}, {true, true, false});
  EXPECT_EQ(dur->ToString(), "[1500ms, -3ms, null]");
  EXPECT_OK(dur->Validate());
  // Same values, different unit: different arrays.
  EXPECT_FALSE(dur->Equals(
      *Numeric64(duration(TimeUnit::kSecond), {1500, -3, 0}, {true, true, false})));
}

TEST(ArrowTypesArrayTest, DictionaryArray) {
  ArrayPtr a = Dict(dictionary(int8(), utf8()),
                    Str({"b", "a", "", "b", "c"}, {true, true, false, true, true}));
  auto dict = As<DictionaryArray>(a);
  EXPECT_EQ(dict->length(), 5);
  EXPECT_EQ(dict->null_count(), 1);
  EXPECT_EQ(dict->dictionary()->ToString(), "[\"b\", \"a\", \"c\"]");
  EXPECT_EQ(dict->indices()->type()->id(), TypeId::kInt8);
  EXPECT_EQ(dict->indices()->ToString(), "[0, 1, null, 0, 2]");
  EXPECT_EQ(dict->GetValueIndex(4), 2);
  EXPECT_EQ(a->ToString(), "[\"b\", \"a\", null, \"b\", \"c\"]");
  EXPECT_EQ(a->Slice(3)->ToString(), "[\"b\", \"c\"]");
  EXPECT_EQ(As<DictionaryArray>(a->Slice(3))->indices()->ToString(), "[0, 2]");
  EXPECT_OK(a->Validate());

  // Make() from parts, checking types and ranges.
  ASSERT_OK_AND_ASSIGN(
      auto made,
      DictionaryArray::Make(dictionary(int32(), utf8()),
                            I32({2, 0, 0}, {true, true, false}), Str({"x", "y", "z"})));
  EXPECT_EQ(made->ToString(), "[\"z\", \"x\", null]");
  EXPECT_THAT(DictionaryArray::Make(dictionary(int32(), utf8()), I32({3}), Str({"x"})),
              IsErrorWith(StatusCode::kInvalid, "index 3 of slot 0 is outside"));
  EXPECT_THAT(DictionaryArray::Make(dictionary(int32(), utf8()), I32({-1}), Str({"x"})),
              IsErrorWith(StatusCode::kInvalid, "outside"));
  EXPECT_THAT(DictionaryArray::Make(dictionary(int32(), utf8()), I8({0}), Str({"x"})),
              IsErrorWith(StatusCode::kInvalid, "indices are int8"));
  EXPECT_THAT(DictionaryArray::Make(dictionary(int32(), utf8()), I32({0}), I32({1})),
              IsErrorWith(StatusCode::kInvalid, "the dictionary is int32"));
  // Out-of-range indices under null slots do not matter.
  EXPECT_OK(
      DictionaryArray::Make(dictionary(int32(), utf8()), I32({7}, {false}), Str({"x"}))
          .status());

  // Equality is by value: another encoding of the same values is equal.
  // Indices into another dictionary, the third slot null.
  auto int8_encoded = [](const std::vector<int8_t>& indices) {
    return DictionaryArray::Make(dictionary(int8(), utf8()),
                                 I8(indices, {true, true, false, true, true}),
                                 Str({"q", "b", "a", "c"}));
  };
  ASSERT_OK_AND_ASSIGN(auto other, int8_encoded({1, 2, 0, 1, 3}));
  EXPECT_TRUE(a->Equals(*other));
  ASSERT_OK_AND_ASSIGN(auto different, int8_encoded({1, 2, 0, 1, 0}));
  EXPECT_FALSE(a->Equals(*different));

  // A dictionary type without a dictionary, or the other way round, is invalid.
  auto broken = std::make_shared<ArrayData>(*a->data());
  broken->dictionary = nullptr;
  EXPECT_THAT(MakeArray(broken)->Validate(),
              IsErrorWith(StatusCode::kInvalid, "dictionary is missing"));
  auto extra = std::make_shared<ArrayData>(*I32({1})->data());
  extra->dictionary = Str({"x"})->data();
  EXPECT_THAT(MakeArray(extra)->Validate(),
              IsErrorWith(StatusCode::kInvalid, "unexpected dictionary"));
}

TEST(ArrowTypesArrayTest, MapArray) {
  ArrayPtr m =
      StrIntMap({{{"a", 1}, {"b", 2}}, {}, {}, {{"c", 3}}}, {true, true, false, true});
  auto map_array = As<MapArray>(m);
  EXPECT_EQ(map_array->length(), 4);
  EXPECT_EQ(map_array->null_count(), 1);
  EXPECT_EQ(map_array->keys()->ToString(), "[\"a\", \"b\", \"c\"]");
  EXPECT_EQ(map_array->items()->ToString(), "[1, 2, 3]");
  EXPECT_EQ(map_array->value_offset(3), 2);
  EXPECT_EQ(map_array->value_length(0), 2);
  EXPECT_EQ(m->ToString(), "[{\"a\": 1, \"b\": 2}, {}, null, {\"c\": 3}]");
  EXPECT_EQ(m->Slice(3)->ToString(), "[{\"c\": 3}]");
  EXPECT_OK(m->Validate());
  EXPECT_TRUE(m->Equals(
      *StrIntMap({{{"a", 1}, {"b", 2}}, {}, {}, {{"c", 3}}}, {true, true, false, true})));
  EXPECT_FALSE(m->Equals(
      *StrIntMap({{{"a", 1}, {"b", 2}}, {}, {}, {{"c", 4}}}, {true, true, false, true})));

  // A null key or a null entry is invalid.
  const ArrayData& entries = *m->data()->children[0];
  auto keys_with_null = Str({"a", "", "c"}, {true, false, true})->data();
  auto bad_entries = std::make_shared<ArrayData>(entries);
  bad_entries->children[0] = keys_with_null;
  auto bad = std::make_shared<ArrayData>(*m->data());
  bad->children[0] = bad_entries;
  EXPECT_THAT(MakeArray(bad)->Validate(),
              IsErrorWith(StatusCode::kInvalid, "the key of entry 1 is null"));
  BufferPtr bits = Buffer::Allocate(1).value();
  bits->mutable_data()[0] = 0b101;
  bad_entries = std::make_shared<ArrayData>(entries);
  bad_entries->buffers[0] = bits;
  bad_entries->null_count = 1;
  bad->children[0] = bad_entries;
  EXPECT_THAT(MakeArray(bad)->Validate(),
              IsErrorWith(StatusCode::kInvalid, "entry 1 is null"));
}

TEST(ArrowTypesArrayTest, PrettyPrintElidesLongMaps) {
  std::vector<std::pair<std::string, int32_t>> entries;
  for (int i = 0; i < 5; ++i) entries.push_back({"k" + std::to_string(i), i});
  ArrayPtr m = StrIntMap({entries});
  PrettyPrintOptions options;
  options.window = 1;
  EXPECT_EQ(PrettyPrint(*m, options), "[{\"k0\": 0, ..., \"k4\": 4}]");
  EXPECT_EQ(FormatValue(*m, 0),
            "{\"k0\": 0, \"k1\": 1, \"k2\": 2, \"k3\": 3, \"k4\": 4}");
}

// ---------------------------------------------------------------------------------------
// Builders

TEST(ArrowTypesBuilderTest, MakeBuilderCoversEveryNewType) {
  const std::vector<DataTypePtr> types = {
      null(),
      decimal128(10, 2),
      decimal256(50, 10),
      date64(),
      time32(TimeUnit::kSecond),
      time64(TimeUnit::kNano),
      duration(TimeUnit::kMicro),
      dictionary(int32(), utf8()),
      dictionary(uint8(), list(int32())),
      map(utf8(), int32()),
      map(int64(), dictionary(int16(), utf8())),
      struct_({field("m", map(utf8(), null()), false),
               field("d", dictionary(int8(), utf8()), false)}),
  };
  for (const DataTypePtr& type : types) {
    SCOPED_TRACE(type->ToString());
    ASSERT_OK_AND_ASSIGN(auto builder, MakeBuilder(type));
    EXPECT_TRUE(builder->type()->Equals(*type));
    // Placeholders: nulls and "empty" values, then a valid, finishable array.
    ASSERT_OK(builder->AppendNulls(2));
    ASSERT_OK(builder->AppendEmptyValues(2));
    ASSERT_OK_AND_ASSIGN(ArrayPtr array, builder->Finish());
    EXPECT_EQ(array->length(), 4);
    EXPECT_TRUE(array->type()->Equals(*type));
    EXPECT_OK(array->Validate());
    EXPECT_TRUE(array->IsNull(0));
    // And the builder is reusable.
    ASSERT_OK(builder->AppendArray(*array));
    ASSERT_OK_AND_ASSIGN(ArrayPtr again, builder->Finish());
    EXPECT_TRUE(again->Equals(*array))
        << again->ToString() << " vs " << array->ToString();
  }
  EXPECT_THAT(MakeBuilder(decimal128(40, 0)),
              IsErrorWith(StatusCode::kInvalid, "precision"));
  EXPECT_THAT(MakeBuilder(time32(TimeUnit::kNano)), IsError(StatusCode::kInvalid));
  EXPECT_THAT(MakeBuilder(dictionary(utf8(), utf8())),
              IsErrorWith(StatusCode::kInvalid, "integer"));
}

TEST(ArrowTypesBuilderTest, NullBuilder) {
  NullBuilder builder;
  ASSERT_OK(builder.AppendNull());
  ASSERT_OK(builder.AppendNulls(2));
  ASSERT_OK(builder.AppendArraySlice(*NullArray::Make(5), 1, 3));
  EXPECT_EQ(builder.length(), 6);
  EXPECT_EQ(builder.null_count(), 6);
  ASSERT_OK_AND_ASSIGN(ArrayPtr array, builder.Finish());
  EXPECT_EQ(array->null_count(), 6);
  EXPECT_EQ(array->data()->buffers.size(), 1u);
  EXPECT_EQ(array->data()->buffers[0], nullptr);
  EXPECT_OK(array->Validate());
}

TEST(ArrowTypesBuilderTest, DecimalBuilder) {
  Decimal128Builder builder(decimal128(5, 2));
  ASSERT_OK(builder.AppendUnscaled(-12345));
  ASSERT_OK(builder.AppendDecimalText("1.5"));
  ASSERT_OK(builder.AppendNull());
  EXPECT_THAT(builder.AppendUnscaled(100000),
              IsErrorWith(StatusCode::kInvalid, "5 digits"));
  EXPECT_THAT(builder.AppendDecimalText("1.005"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(builder.AppendDecimalText("abc"), IsError(StatusCode::kInvalid));
  EXPECT_EQ(builder.length(), 3);  // failed appends append nothing
  ASSERT_OK_AND_ASSIGN(ArrayPtr array, builder.Finish());
  EXPECT_EQ(array->ToString(), "[-123.45, 1.50, null]");

  Decimal256Builder wide(decimal256(60, 30));
  ASSERT_OK(wide.AppendDecimalText(
      "123456789012345678901234567890.123456789012345678901234567890"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr w, wide.Finish());
  EXPECT_EQ(As<DecimalArray>(w)->FormatValue(0),
            "123456789012345678901234567890.123456789012345678901234567890");
}

TEST(ArrowTypesBuilderTest, TemporalBuildersCheckTheirType) {
  Date64Builder d;
  ASSERT_OK(d.Append(86'400'000));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, d.Finish());
  EXPECT_TRUE(a->type()->Equals(*date64()));
  Time32Builder t32(time32(TimeUnit::kMilli));
  ASSERT_OK(t32.Append(1));
  ASSERT_OK_AND_ASSIGN(a, t32.Finish());
  EXPECT_EQ(a->ToString(), "[00:00:00.001]");
  Time64Builder t64(time64(TimeUnit::kMicro));
  ASSERT_OK(t64.Append(1));
  ASSERT_OK_AND_ASSIGN(a, t64.Finish());
  EXPECT_EQ(a->ToString(), "[00:00:00.000001]");
  DurationBuilder dur(duration(TimeUnit::kNano));
  ASSERT_OK(dur.Append(-5));
  ASSERT_OK_AND_ASSIGN(a, dur.Finish());
  EXPECT_EQ(a->ToString(), "[-5ns]");
  // A 4-byte builder cannot make an 8-byte type.
  Int32Builder wrong(time64(TimeUnit::kMicro));
  ASSERT_OK(wrong.Append(1));
  EXPECT_THAT(wrong.Finish(), IsError(StatusCode::kInvalid));
}

TEST(ArrowTypesBuilderTest, MapBuilder) {
  ASSERT_OK_AND_ASSIGN(auto made, MakeBuilder(map(utf8(), int32())));
  auto& builder = static_cast<MapBuilder&>(*made);
  auto* keys = static_cast<StringBuilder*>(builder.key_builder());
  auto* items = static_cast<Int32Builder*>(builder.item_builder());
  ASSERT_OK(builder.Append());
  ASSERT_OK(keys->Append("a"));
  ASSERT_OK(items->Append(1));
  ASSERT_OK(keys->Append("b"));
  ASSERT_OK(items->AppendNull());
  ASSERT_OK(builder.AppendNull());
  ASSERT_OK(builder.Append());
  ASSERT_OK_AND_ASSIGN(ArrayPtr m, builder.Finish());
  EXPECT_EQ(m->ToString(), "[{\"a\": 1, \"b\": null}, null, {}]");
  EXPECT_OK(m->Validate());
  // The entries struct was kept in step with the keys.
  EXPECT_EQ(m->data()->children[0]->length, 2);
  EXPECT_EQ(m->data()->children[0]->GetNullCount(), 0);

  // Unbalanced keys and items, and null keys, are errors.
  ASSERT_OK(builder.Append());
  ASSERT_OK(keys->Append("x"));
  EXPECT_THAT(builder.Finish(), IsErrorWith(StatusCode::kInvalid, "1 keys but 0 items"));
  builder.Reset();
  ASSERT_OK(builder.Append());
  ASSERT_OK(keys->AppendNull());
  ASSERT_OK(items->Append(1));
  EXPECT_THAT(builder.Finish(),
              IsErrorWith(StatusCode::kInvalid, "keys must not be null"));
}

TEST(ArrowTypesBuilderTest, DictionaryBuilderEncodesValues) {
  DictionaryBuilder builder(dictionary(int16(), utf8()));
  ASSERT_OK(builder.AppendValues(*Str({"x", "y", "", "x"}, {true, true, false, true})));
  ASSERT_OK(builder.AppendValues(*Str({"z", "y"}), 0, 2));
  EXPECT_EQ(builder.dictionary_length(), 3);
  ASSERT_OK(builder.AppendIndex(2));
  EXPECT_THAT(builder.AppendIndex(3), IsErrorWith(StatusCode::kInvalid, "index 3"));
  EXPECT_THAT(builder.AppendIndex(-1), IsError(StatusCode::kInvalid));
  EXPECT_THAT(builder.AppendValues(*I32({1})), IsError(StatusCode::kInvalid));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, builder.Finish());
  auto dict = As<DictionaryArray>(a);
  EXPECT_EQ(dict->dictionary()->ToString(), "[\"x\", \"y\", \"z\"]");
  EXPECT_EQ(dict->indices()->ToString(), "[0, 1, null, 0, 2, 1, 2]");
  EXPECT_OK(a->Validate());
  // Finishing resets the dictionary too.
  ASSERT_OK(builder.AppendValues(*Str({"q"})));
  ASSERT_OK_AND_ASSIGN(a, builder.Finish());
  EXPECT_EQ(As<DictionaryArray>(a)->dictionary()->ToString(), "[\"q\"]");
}

TEST(ArrowTypesBuilderTest, DictionaryBuilderFromIndices) {
  DictionaryBuilder builder(dictionary(int32(), float64()));
  ArrayPtr values = ArrayFromVector<DoubleBuilder>({0.5, 1.5}).value();
  ASSERT_OK(builder.SetDictionary(values));
  EXPECT_THAT(builder.SetDictionary(values),
              IsErrorWith(StatusCode::kInvalid, "already"));
  ASSERT_OK(builder.AppendIndices(*I32({1, 0, 0}, {true, false, true})));
  EXPECT_THAT(builder.AppendIndices(*I32({2})), IsError(StatusCode::kInvalid));
  // A new value is added after the lent dictionary.
  ASSERT_OK(builder.AppendValues(*ArrayFromVector<DoubleBuilder>({2.5, 0.5}).value()));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, builder.Finish());
  auto dict = As<DictionaryArray>(a);
  EXPECT_EQ(dict->dictionary()->ToString(), "[0.5, 1.5, 2.5]");
  EXPECT_EQ(dict->indices()->ToString(), "[1, null, 0, 2, 0]");

  // Without new values the dictionary is shared, not copied.
  ASSERT_OK(builder.SetDictionary(values));
  ASSERT_OK(builder.AppendIndex(0));
  ASSERT_OK_AND_ASSIGN(a, builder.Finish());
  EXPECT_EQ(a->data()->dictionary, values->data());
}

TEST(ArrowTypesBuilderTest, DictionaryBuilderIndexOverflow) {
  DictionaryBuilder builder(dictionary(int8(), int32()));
  std::vector<int32_t> many(200);
  for (int i = 0; i < 200; ++i) many[i] = i;
  ASSERT_OK(builder.AppendValues(*I32(many)));
  EXPECT_THAT(builder.Finish(), IsErrorWith(StatusCode::kInvalid, "do not fit int8"));
  DictionaryBuilder unsigned_builder(dictionary(uint8(), int32()));
  ASSERT_OK(unsigned_builder.AppendValues(*I32(many)));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, unsigned_builder.Finish());
  EXPECT_EQ(As<DictionaryArray>(a)->GetValueIndex(199), 199);
  EXPECT_OK(a->Validate());
}

TEST(ArrowTypesBuilderTest, DictionaryBuilderNestedValues) {
  // Values that cannot be hashed by bytes get one entry each.
  auto type = dictionary(int32(), list(int32()));
  ASSERT_OK_AND_ASSIGN(auto list_builder, MakeBuilder(list(int32())));
  auto& lb = static_cast<ListBuilder&>(*list_builder);
  ASSERT_OK(lb.Append());
  ASSERT_OK(static_cast<Int32Builder*>(lb.value_builder())->Append(7));
  ASSERT_OK(lb.AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr lists, lb.Finish());
  DictionaryBuilder builder(type);
  ASSERT_OK(builder.AppendValues(*lists));
  ASSERT_OK(builder.AppendValues(*lists));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, builder.Finish());
  EXPECT_EQ(a->ToString(), "[[7], null, [7], null]");
  EXPECT_EQ(As<DictionaryArray>(a)->dictionary()->length(), 2);
  EXPECT_OK(a->Validate());
}

// ---------------------------------------------------------------------------------------
// Concatenate

TEST(ArrowTypesConcatenateTest, DictionarySharedDictionaryIsKept) {
  ArrayPtr a = Dict(dictionary(int32(), utf8()), Str({"a", "b", "a"}));
  ArrayPtr a2 = a->Slice(1);
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, Concatenate({a, a2, a}));
  EXPECT_EQ(out->ToString(), "[\"a\", \"b\", \"a\", \"b\", \"a\", \"a\", \"b\", \"a\"]");
  EXPECT_EQ(out->data()->dictionary, a->data()->dictionary);
  EXPECT_EQ(As<DictionaryArray>(out)->indices()->ToString(), "[0, 1, 0, 1, 0, 0, 1, 0]");
  // An equal (but distinct) dictionary is kept too.
  ASSERT_OK_AND_ASSIGN(
      auto same_values,
      DictionaryArray::Make(dictionary(int32(), utf8()), I32({1}), Str({"a", "b"})));
  ASSERT_OK_AND_ASSIGN(out, Concatenate({a, same_values}));
  EXPECT_EQ(out->data()->dictionary, a->data()->dictionary);
  EXPECT_EQ(As<DictionaryArray>(out)->indices()->ToString(), "[0, 1, 0, 1]");
}

TEST(ArrowTypesConcatenateTest, DictionaryDifferentDictionariesAreUnified) {
  ArrayPtr a =
      Dict(dictionary(int32(), utf8()), Str({"a", "b", ""}, {true, true, false}));
  ASSERT_OK_AND_ASSIGN(
      auto b, DictionaryArray::Make(dictionary(int32(), utf8()), I32({0, 1, 2, 0}),
                                    Str({"c", "a", ""}, {true, true, false})));
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, Concatenate({a, b}));
  EXPECT_EQ(out->ToString(), "[\"a\", \"b\", null, \"c\", \"a\", null, \"c\"]");
  auto dict = As<DictionaryArray>(out);
  EXPECT_EQ(dict->dictionary()->ToString(), "[\"a\", \"b\", \"c\"]");
  EXPECT_EQ(dict->indices()->ToString(), "[0, 1, null, 2, 0, null, 2]");
  EXPECT_OK(out->Validate());
  EXPECT_TRUE(out->Equals(*Dict(dictionary(int32(), utf8()),
                                Str({"a", "b", "", "c", "a", "", "c"},
                                    {true, true, false, true, true, false, true}))));
  // Unification beyond the index type fails cleanly.
  std::vector<int32_t> first(100);
  std::vector<int32_t> second(100);
  for (int i = 0; i < 100; ++i) {
    first[i] = i;
    second[i] = 1000 + i;
  }
  ArrayPtr x = Dict(dictionary(int8(), int32()), I32(first));
  ArrayPtr y = Dict(dictionary(int8(), int32()), I32(second));
  EXPECT_THAT(Concatenate({x, y}), IsErrorWith(StatusCode::kInvalid, "int8"));
}

TEST(ArrowTypesConcatenateTest, OtherNewTypes) {
  ASSERT_OK_AND_ASSIGN(ArrayPtr nulls,
                       Concatenate({NullArray::Make(2), NullArray::Make(3)}));
  EXPECT_EQ(nulls->length(), 5);
  EXPECT_EQ(nulls->null_count(), 5);
  ArrayPtr d = Dec(decimal128(5, 1), {"1.5", "", "-2.0"});
  ASSERT_OK_AND_ASSIGN(ArrayPtr dd, Concatenate({d->Slice(1), d}));
  EXPECT_EQ(dd->ToString(), "[null, -2.0, 1.5, null, -2.0]");
  ArrayPtr m = StrIntMap({{{"a", 1}}, {}, {{"b", 2}, {"c", 3}}}, {true, false, true});
  ASSERT_OK_AND_ASSIGN(ArrayPtr mm, Concatenate({m->Slice(2), m}));
  EXPECT_EQ(mm->ToString(),
            "[{\"b\": 2, \"c\": 3}, {\"a\": 1}, null, {\"b\": 2, \"c\": 3}]");
  EXPECT_OK(mm->Validate());
  ArrayPtr t = Numeric64(time64(TimeUnit::kMicro), {1, 2});
  ASSERT_OK_AND_ASSIGN(ArrayPtr tt, Concatenate({t, t}));
  EXPECT_EQ(tt->ToString(),
            "[00:00:00.000001, 00:00:00.000002, 00:00:00.000001, 00:00:00.000002]");
  EXPECT_THAT(Concatenate({t, Numeric64(time64(TimeUnit::kNano), {1})}),
              IsError(StatusCode::kInvalid));
}

// ---------------------------------------------------------------------------------------
// Filter / Take

TEST(ArrowTypesComputeTest, FilterAndTakeEveryNewType) {
  const std::vector<bool> mask_values = {true, false, true, true, false};
  ArrayPtr mask = ArrayFromVector<BooleanBuilder>(mask_values).value();
  const std::vector<int64_t> take = {4, 0, 0, 2};
  struct Case {
    ArrayPtr array;
    std::string filtered;
    std::string taken;
  };
  const std::vector<Case> cases = {
      {NullArray::Make(5), "[null, null, null]", "[null, null, null, null]"},
      {Dec(decimal128(6, 2), {"1.00", "2.00", "", "-4.00", "5.55"}),
       "[1.00, null, -4.00]", "[5.55, 1.00, 1.00, null]"},
      {Dec(decimal256(60, 0), {"1", "2", "3", "", "5"}), "[1, 3, null]", "[5, 1, 1, 3]"},
      {Numeric64(date64(), {0, 86'400'000, 0, 0, 0}, {true, true, true, false, true}),
       "[1970-01-01, 1970-01-01, null]",
       "[1970-01-01, 1970-01-01, 1970-01-01, 1970-01-01]"},
      {ArrayFromVector<Int32Builder>(time32(TimeUnit::kSecond), {1, 2, 3, 4, 5}).value(),
       "[00:00:01, 00:00:03, 00:00:04]", "[00:00:05, 00:00:01, 00:00:01, 00:00:03]"},
      {Numeric64(duration(TimeUnit::kSecond), {1, 2, 3, 4, 5}), "[1s, 3s, 4s]",
       "[5s, 1s, 1s, 3s]"},
      {Dict(dictionary(int16(), utf8()),
            Str({"a", "b", "c", "", "a"}, {true, true, true, false, true})),
       "[\"a\", \"c\", null]", "[\"a\", \"a\", \"a\", \"c\"]"},
      {StrIntMap({{{"a", 1}}, {{"b", 2}}, {}, {{"c", 3}, {"d", 4}}, {}},
                 {true, true, false, true, true}),
       "[{\"a\": 1}, null, {\"c\": 3, \"d\": 4}]", "[{}, {\"a\": 1}, {\"a\": 1}, null]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.array->type()->ToString());
    ASSERT_OK_AND_ASSIGN(ArrayPtr filtered, compute::Filter(*c.array, *mask));
    EXPECT_EQ(filtered->ToString(), c.filtered);
    EXPECT_OK(filtered->Validate());
    ASSERT_OK_AND_ASSIGN(ArrayPtr taken, compute::Take(*c.array, take));
    EXPECT_EQ(taken->ToString(), c.taken);
    EXPECT_OK(taken->Validate());
    // Sliced input: the offset is honoured.
    ASSERT_OK_AND_ASSIGN(ArrayPtr sliced_take, compute::Take(*c.array->Slice(1), {0, 3}));
    ASSERT_OK_AND_ASSIGN(ArrayPtr expected, compute::Take(*c.array, {1, 4}));
    EXPECT_TRUE(sliced_take->Equals(*expected)) << sliced_take->ToString();
  }
}

TEST(ArrowTypesComputeTest, TakeKeepsTheDictionary) {
  ArrayPtr a = Dict(dictionary(int32(), utf8()), Str({"x", "y"}));
  ASSERT_OK_AND_ASSIGN(ArrayPtr taken, compute::Take(*a, {1, 1, 0}));
  EXPECT_EQ(taken->data()->dictionary, a->data()->dictionary);
  // A dictionary array that lost its dictionary fails cleanly.
  auto broken = std::make_shared<ArrayData>(*a->data());
  broken->dictionary = nullptr;
  EXPECT_THAT(compute::Take(*MakeArray(broken), {0}),
              IsErrorWith(StatusCode::kInvalid, "no dictionary"));
}

}  // namespace
}  // namespace lance
