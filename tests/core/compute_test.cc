// SPDX-License-Identifier: Apache-2.0
#include "lance/core/compute.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/core/visit_type.h"
#include "tests/testing/array_helpers.h"
#include "tests/testing/matchers.h"
#include "tests/testing/type_lists.h"

namespace lance::compute {
namespace {

using namespace ::lance::testing;  // NOLINT(build/namespaces): the test helpers

// Random values of any type, built through the builders so that the test data is
// independent of the code under test. About a quarter of the slots are null.
void AppendRandom(ArrayBuilder* builder, const DataType& type, std::mt19937_64& rng,
                  bool allow_null = true) {
  if (allow_null && rng() % 4 == 0) {
    Check(builder->AppendNull());
    return;
  }
  auto next = [&] { return rng(); };
  // Integers, and the types stored as integers whose every value is valid, take raw
  // random bits; floats small fractions. Dates and times keep the ranges below.
  const bool appended = VisitType(type, [&](auto traits) {
    using T = decltype(traits);
    using C = typename T::CType;
    constexpr bool kRanged = T::kId == TypeId::kDate64 || T::kId == TypeId::kTime32 ||
                             T::kId == TypeId::kTime64;
    if constexpr (!T::kIsNumeric || kRanged) {
      return false;
    } else if constexpr (std::is_floating_point_v<C>) {
      const C divisor = std::is_same_v<C, float> ? 7 : 3;
      Check(static_cast<NumericBuilder<C>*>(builder)->Append(
          static_cast<C>(next() % 1000) / divisor));
      return true;
    } else {
      Check(static_cast<NumericBuilder<C>*>(builder)->Append(static_cast<C>(next())));
      return true;
    }
  });
  if (appended) return;
  switch (type.id()) {
    case TypeId::kBool:
      Check(static_cast<BooleanBuilder*>(builder)->Append(next() & 1));
      return;
    case TypeId::kUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: {
      std::string s(next() % 6, 'a');
      for (auto& c : s) c = static_cast<char>('a' + next() % 26);
      if (type.id() == TypeId::kUtf8 || type.id() == TypeId::kBinary) {
        Check(static_cast<BaseBinaryBuilder<int32_t>*>(builder)->Append(s));
      } else {
        Check(static_cast<BaseBinaryBuilder<int64_t>*>(builder)->Append(s));
      }
      return;
    }
    case TypeId::kFixedSizeBinary: {
      std::string s(static_cast<size_t>(type.fixed_size()), 'x');
      for (auto& c : s) c = static_cast<char>(next());
      Check(static_cast<FixedSizeBinaryBuilder*>(builder)->Append(s));
      return;
    }
    case TypeId::kList:
    case TypeId::kLargeList: {
      ArrayBuilder* child;
      if (type.id() == TypeId::kList) {
        auto* list = static_cast<ListBuilder*>(builder);
        Check(list->Append());
        child = list->value_builder();
      } else {
        auto* list = static_cast<LargeListBuilder*>(builder);
        Check(list->Append());
        child = list->value_builder();
      }
      const int n = static_cast<int>(next() % 4);
      for (int i = 0; i < n; ++i) AppendRandom(child, *type.value_type(), rng);
      return;
    }
    case TypeId::kFixedSizeList: {
      auto* list = static_cast<FixedSizeListBuilder*>(builder);
      Check(list->Append());
      for (int i = 0; i < list->list_size(); ++i) {
        AppendRandom(list->value_builder(), *type.value_type(), rng);
      }
      return;
    }
    case TypeId::kStruct: {
      auto* st = static_cast<StructBuilder*>(builder);
      Check(st->Append());
      for (int i = 0; i < st->num_fields(); ++i) {
        AppendRandom(st->field_builder(i), *type.fields()[i]->type(), rng);
      }
      return;
    }
    case TypeId::kNull:
      Check(builder->AppendNull());
      return;
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      // Within any precision >= 5.
      Check(static_cast<DecimalBuilder*>(builder)->AppendUnscaled(
          static_cast<int64_t>(next() % 199999) - 99999));
      return;
    case TypeId::kDate64:
      Check(static_cast<Int64Builder*>(builder)->Append(
          (static_cast<int64_t>(next() % 40000) - 20000) * 86'400'000));
      return;
    case TypeId::kTime32:
      Check(static_cast<Int32Builder*>(builder)->Append(
          static_cast<int32_t>(next() % (86'400 * TicksPerSecond(type.unit())))));
      return;
    case TypeId::kTime64:
      Check(static_cast<Int64Builder*>(builder)->Append(
          static_cast<int64_t>(next() % (86'400 * TicksPerSecond(type.unit())))));
      return;
    case TypeId::kDictionary: {
      // One random value of the value type, dictionary-encoded.
      auto values = MakeBuilder(type.value_type()).value();
      AppendRandom(values.get(), *type.value_type(), rng, /*allow_null=*/false);
      Check(static_cast<DictionaryBuilder*>(builder)->AppendValues(
          *values->Finish().value()));
      return;
    }
    case TypeId::kMap: {
      auto* m = static_cast<MapBuilder*>(builder);
      Check(m->Append());
      const int n = static_cast<int>(next() % 4);
      for (int i = 0; i < n; ++i) {
        AppendRandom(m->key_builder(), *type.key_type(), rng, /*allow_null=*/false);
        AppendRandom(m->item_builder(), *type.item_type(), rng);
      }
      return;
    }
    default:  // the numeric types, appended above
      break;
  }
  std::abort();
}

ArrayPtr RandomArray(const DataTypePtr& type, int64_t n, std::mt19937_64& rng) {
  auto builder = MakeBuilder(type).value();
  for (int64_t i = 0; i < n; ++i) AppendRandom(builder.get(), *type, rng);
  return builder->Finish().value();
}

// The expected gather, computed slot by slot with a builder (an independent code path).
ArrayPtr ReferenceTake(const ArrayPtr& values, const std::vector<int64_t>& indices) {
  auto builder = MakeBuilder(values->type()).value();
  for (int64_t i : indices) Check(builder->AppendArraySlice(*values, i, 1));
  return builder->Finish().value();
}

std::vector<int64_t> ReferenceSelection(const ArrayPtr& mask) {
  std::vector<int64_t> out;
  const auto& bools = static_cast<const BooleanArray&>(*mask);
  for (int64_t i = 0; i < mask->length(); ++i) {
    if (bools.IsValid(i) && bools.Value(i)) out.push_back(i);
  }
  return out;
}

std::vector<DataTypePtr> AllTypes() {
  return testing::FlatTypes(
      3, {
             timestamp(TimeUnit::kMicro, "UTC"),
             list(int32()),
             large_list(utf8()),
             fixed_size_list(int16(), 3),
             fixed_size_list(utf8(), 2),
             struct_({field("x", int32()), field("s", utf8())}),
             list(struct_({field("a", boolean()), field("b", list(int64()))})),
             struct_({field("l", large_list(float64())),
                      field("f", fixed_size_list(int8(), 2)),
                      field("n", struct_({field("z", utf8())}))}),
             null(),
             decimal128(9, 2),
             decimal256(60, -1),
             date64(),
             time32(TimeUnit::kMilli),
             time64(TimeUnit::kNano),
             duration(TimeUnit::kSecond),
             dictionary(int16(), utf8()),
             dictionary(uint8(), int64(), /*ordered=*/true),
             map(utf8(), int32()),
             map(int64(), list(decimal128(5, 1))),
             struct_({field("n", null()), field("d", dictionary(int32(), binary())),
                      field("m", map(utf8(), date64()))}),
             list(dictionary(int8(), float64())),
             fixed_size_list(time32(TimeUnit::kSecond), 2),
         });
}

void ExpectFreshAndValid(const ArrayPtr& out) {
  EXPECT_EQ(out->offset(), 0);
  EXPECT_OK(out->Validate());
}

TEST(FilterTest, Int32WithNullsInValuesAndMask) {
  ArrayPtr values = I32({1, 2, 3, 4, 5, 6}, {true, false, true, true, true, true});
  ArrayPtr mask = Bools({true, true, false, true, true, false},
                        {true, true, true, true, false, true});
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, Filter(*values, *mask));
  ExpectFreshAndValid(out);
  EXPECT_TRUE(out->Equals(I32({1, 0, 4}, {true, false, true}))) << out->ToString();
  EXPECT_EQ(out->null_count(), 1);
}

TEST(FilterTest, SlicedValuesAndSlicedMask) {
  ArrayPtr values =
      I64({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
          {true, true, true, false, true, true, true, true, true, true, true});
  ArrayPtr mask = Bools({false, false, false, false, false, true, true, false, true, true,
                         true, false, false});
  // values[2..9) = [2, null, 4, 5, 6, 7, 8]; mask[5..12) = [1, 1, 0, 1, 1, 1, 0]
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, Filter(*values->Slice(2, 7), *mask->Slice(5, 7)));
  ExpectFreshAndValid(out);
  EXPECT_TRUE(out->Equals(I64({2, 0, 5, 6, 7}, {true, false, true, true, true})))
      << out->ToString();
}

TEST(FilterTest, StringsAndBooleans) {
  ArrayPtr values = Str({"a", "bb", "", "dddd", "e"}, {true, true, true, false, true});
  ArrayPtr mask = Bools({false, true, true, true, false});
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, Filter(*values, *mask));
  ExpectFreshAndValid(out);
  EXPECT_TRUE(out->Equals(Str({"bb", "", ""}, {true, true, false}))) << out->ToString();

  ArrayPtr bools =
      Bools({true, false, true, true, false}, {true, true, false, true, true});
  ASSERT_OK_AND_ASSIGN(out, Filter(*bools->Slice(1), *mask->Slice(1)));
  // bools[1..] = [false, null, true, false]; mask[1..] = [1, 1, 1, 0]
  EXPECT_TRUE(out->Equals(Bools({false, false, true}, {true, false, true})))
      << out->ToString();
}

TEST(FilterTest, AllAndNothingSelected) {
  ArrayPtr values = Str({"x", "y", "z"});
  ASSERT_OK_AND_ASSIGN(ArrayPtr all, Filter(*values, *Bools({true, true, true})));
  EXPECT_TRUE(all->Equals(values));
  ASSERT_OK_AND_ASSIGN(ArrayPtr none, Filter(*values, *Bools({false, false, false})));
  EXPECT_EQ(none->length(), 0);
  ExpectFreshAndValid(none);
  ASSERT_OK_AND_ASSIGN(
      ArrayPtr nulls, Filter(*values, *Bools({true, true, true}, {false, false, false})));
  EXPECT_EQ(nulls->length(), 0);
  ASSERT_OK_AND_ASSIGN(ArrayPtr empty, Filter(*values->Slice(3), *Bools({})));
  EXPECT_EQ(empty->length(), 0);
}

TEST(FilterTest, StructSlicedWithNulls) {
  auto type = struct_({field("x", int32()), field("s", utf8())});
  auto made = MakeBuilder(type).value();
  auto& builder = static_cast<StructBuilder&>(*made);
  auto* x = static_cast<Int32Builder*>(builder.field_builder(0));
  auto* s = static_cast<StringBuilder*>(builder.field_builder(1));
  // [{0,"a"}, {1,null}, null, {null,"d"}, {4,"e"}]
  Check(builder.Append());
  Check(x->Append(0));
  Check(s->Append("a"));
  Check(builder.Append());
  Check(x->Append(1));
  Check(s->AppendNull());
  Check(builder.AppendNull());
  Check(builder.Append());
  Check(x->AppendNull());
  Check(s->Append("d"));
  Check(builder.Append());
  Check(x->Append(4));
  Check(s->Append("e"));
  ArrayPtr values = builder.Finish().value();
  ArrayPtr sliced = values->Slice(1, 4);  // [{1,null}, null, {null,"d"}, {4,"e"}]
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, Filter(*sliced, *Bools({true, true, false, true})));
  ExpectFreshAndValid(out);
  EXPECT_EQ(out->ToString(), "[{x: 1, s: null}, null, {x: 4, s: \"e\"}]");
  const auto& st = static_cast<const StructArray&>(*out);
  EXPECT_TRUE(st.IsNull(1));
  EXPECT_TRUE(st.field(1)->Slice(0, 1)->IsNull(0));
  EXPECT_EQ(st.field(1)->Slice(2)->ToString(), "[\"e\"]");
}

TEST(FilterTest, ListOfStringsSliced) {
  // [["a","b"], null, [], ["c", null], ["d"]]
  ArrayPtr values = testing::StringLists(
      {testing::StringItems{"a", "b"}, std::nullopt, testing::StringItems{},
       testing::StringItems{"c", std::nullopt}, testing::StringItems{"d"}});
  ASSERT_OK_AND_ASSIGN(ArrayPtr out,
                       Filter(*values->Slice(1), *Bools({true, false, true, true})));
  ExpectFreshAndValid(out);
  EXPECT_EQ(out->ToString(), "[null, [\"c\", null], [\"d\"]]");
  ASSERT_OK_AND_ASSIGN(out, Take(*values->Slice(1), {3, 3, 0, 2}));
  ExpectFreshAndValid(out);
  EXPECT_EQ(out->ToString(), "[[\"d\"], [\"d\"], null, [\"c\", null]]");
}

TEST(FilterTest, FixedSizeListSliced) {
  using Items = std::vector<std::optional<int32_t>>;
  ArrayPtr values = FixedSizeListsOf<Int32Builder>(
      2, std::vector<std::optional<Items>>{Items{1, 2}, std::nullopt,
                                           Items{5, std::nullopt}, Items{7, 8}});
  ASSERT_OK_AND_ASSIGN(ArrayPtr out,
                       Filter(*values->Slice(1), *Bools({true, true, true})));
  ExpectFreshAndValid(out);
  EXPECT_EQ(out->ToString(), "[null, [5, null], [7, 8]]");
  ASSERT_OK_AND_ASSIGN(out, Take(*values->Slice(2), {1, 0}));
  EXPECT_EQ(out->ToString(), "[[7, 8], [5, null]]");
}

TEST(FilterTest, RandomEveryTypeAgainstReference) {
  std::mt19937_64 rng(42);
  for (const auto& type : AllTypes()) {
    SCOPED_TRACE(type->ToString());
    for (int round = 0; round < 6; ++round) {
      const int64_t n = static_cast<int64_t>(rng() % 200);
      ArrayPtr base = RandomArray(type, n + 20, rng);
      const int64_t offset = static_cast<int64_t>(rng() % 20);
      ArrayPtr values = base->Slice(offset, n);
      ArrayPtr mask_base = RandomArray(boolean(), n + 9, rng);
      ArrayPtr mask = mask_base->Slice(round % 9, n);
      ASSERT_OK_AND_ASSIGN(ArrayPtr out, Filter(*values, *mask));
      ExpectFreshAndValid(out);
      ArrayPtr expected = ReferenceTake(values, ReferenceSelection(mask));
      ASSERT_TRUE(out->Equals(expected))
          << "got " << out->ToString() << "\nexpected " << expected->ToString();
      EXPECT_EQ(out->null_count(), expected->null_count());
    }
  }
}

TEST(FilterTest, LongRunsOfSelectedAndDroppedRows) {
  // Word-sized runs exercise the byte-skipping paths of the run scanner.
  std::mt19937_64 rng(7);
  std::vector<int64_t> v(1000);
  std::vector<bool> valid(1000), sel(1000);
  for (int i = 0; i < 1000; ++i) {
    v[i] = i;
    valid[i] = i % 13 != 0;
    sel[i] = (i / 100) % 2 == 0 || i % 17 == 0;
  }
  ArrayPtr values = I64(v, valid);
  ArrayPtr mask = Bools(sel);
  ASSERT_OK_AND_ASSIGN(ArrayPtr out,
                       Filter(*values->Slice(3, 990), *mask->Slice(5, 990)));
  EXPECT_TRUE(out->Equals(
      ReferenceTake(values->Slice(3, 990), ReferenceSelection(mask->Slice(5, 990)))));
}

TEST(FilterTest, Errors) {
  ArrayPtr values = I32({1, 2, 3});
  EXPECT_THAT(Filter(*values, *Bools({true, false})),
              IsErrorWith(StatusCode::kInvalid, "2"));
  EXPECT_THAT(Filter(*values, *I32({1, 0, 1})),
              IsErrorWith(StatusCode::kInvalid, "boolean"));
}

TEST(TakeTest, RepeatsAndOrder) {
  ArrayPtr values = Str({"a", "b", "c", "d"}, {true, false, true, true});
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, Take(*values, {3, 0, 1, 3, 2}));
  ExpectFreshAndValid(out);
  EXPECT_TRUE(
      out->Equals(Str({"d", "a", "", "d", "c"}, {true, true, false, true, true})));
  ASSERT_OK_AND_ASSIGN(out, Take(*values, {}));
  EXPECT_EQ(out->length(), 0);
  ExpectFreshAndValid(out);
}

TEST(TakeTest, IndicesOutOfRange) {
  ArrayPtr values = I32({1, 2, 3});
  EXPECT_THAT(Take(*values, {0, 3}), IsErrorWith(StatusCode::kInvalid, "out of range"));
  EXPECT_THAT(Take(*values, {-1}), IsErrorWith(StatusCode::kInvalid, "-1"));
  // Indices are relative to the slice, not to the parent.
  EXPECT_THAT(Take(*values->Slice(1), {2}), IsError(StatusCode::kInvalid));
}

TEST(TakeTest, RandomEveryTypeAgainstReference) {
  std::mt19937_64 rng(1234);
  for (const auto& type : AllTypes()) {
    SCOPED_TRACE(type->ToString());
    for (int round = 0; round < 6; ++round) {
      const int64_t n = 1 + static_cast<int64_t>(rng() % 150);
      ArrayPtr base = RandomArray(type, n + 11, rng);
      ArrayPtr values = base->Slice(static_cast<int64_t>(rng() % 11), n);
      std::vector<int64_t> indices(rng() % 300);
      for (auto& i : indices) i = static_cast<int64_t>(rng() % n);
      ASSERT_OK_AND_ASSIGN(ArrayPtr out, Take(*values, indices));
      ExpectFreshAndValid(out);
      ArrayPtr expected = ReferenceTake(values, indices);
      ASSERT_TRUE(out->Equals(expected))
          << "got " << out->ToString() << "\nexpected " << expected->ToString();
    }
  }
}

TEST(BatchTest, FilterAndTakeBatch) {
  auto schema = lance::schema({field("i", int32()), field("s", utf8())});
  ASSERT_OK_AND_ASSIGN(auto batch,
                       RecordBatch::Make(schema, 4,
                                         {I32({1, 2, 3, 4}, {true, true, false, true}),
                                          Str({"a", "b", "c", "d"})}));
  ASSERT_OK_AND_ASSIGN(
      auto filtered,
      FilterBatch(*batch, *Bools({true, false, true, true}, {true, true, true, false})));
  EXPECT_EQ(filtered->num_rows(), 2);
  EXPECT_TRUE(filtered->column(0)->Equals(I32({1, 0}, {true, false})));
  EXPECT_TRUE(filtered->column(1)->Equals(Str({"a", "c"})));

  ASSERT_OK_AND_ASSIGN(auto taken, TakeBatch(*batch->Slice(1, 3), {2, 0}));
  EXPECT_EQ(taken->num_rows(), 2);
  EXPECT_TRUE(taken->column(0)->Equals(I32({4, 2})));
  EXPECT_TRUE(taken->column(1)->Equals(Str({"d", "b"})));
  EXPECT_TRUE(taken->schema()->Equals(*schema));

  EXPECT_THAT(FilterBatch(*batch, *Bools({true})), IsError(StatusCode::kInvalid));
  EXPECT_THAT(TakeBatch(*batch, {4}), IsError(StatusCode::kInvalid));
}

TEST(SelectedIndicesTest, NullsCountAsFalse) {
  ArrayPtr mask = Bools({true, false, true, true, false, true},
                        {true, true, false, true, true, true});
  ASSERT_OK_AND_ASSIGN(auto indices, SelectedIndices(*mask));
  EXPECT_EQ(indices, (std::vector<int64_t>{0, 3, 5}));
  ASSERT_OK_AND_ASSIGN(indices, SelectedIndices(*mask->Slice(2)));
  EXPECT_EQ(indices, (std::vector<int64_t>{1, 3}));
  EXPECT_THAT(SelectedIndices(*I32({1})), IsError(StatusCode::kInvalid));
}

}  // namespace
}  // namespace lance::compute
