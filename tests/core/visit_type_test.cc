// SPDX-License-Identifier: Apache-2.0
#include "lance/core/visit_type.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "tests/testing/matchers.h"
#include "tests/testing/type_lists.h"

namespace lance {
namespace {

using ::lance::testing::IsErrorWith;

static_assert(kNumTypeIds == static_cast<int>(TypeId::kMap) + 1,
              "LANCE_TYPE_ID_LIST must name every TypeId");
static_assert(TypeTraits<TypeId::kFloat16>::kIsNumeric);
static_assert(std::is_same_v<TypeTraits<TypeId::kTimestamp>::CType, int64_t>);
static_assert(std::is_same_v<TypeTraits<TypeId::kLargeUtf8>::OffsetType, int64_t>);
static_assert(TypeTraits<TypeId::kDecimal256>::kByteWidth == 32);
static_assert(!TypeTraits<TypeId::kBool>::kIsNumeric);

TEST(VisitTypeTest, EveryTypeIdIsVisitedWithItsTraits) {
  std::set<int> seen;
  for (int i = 0; i < kNumTypeIds; ++i) {
    const auto id = static_cast<TypeId>(i);
    const TypeId visited = VisitTypeId(id, [](auto traits) { return traits.kId; });
    EXPECT_EQ(visited, id) << i;
    seen.insert(static_cast<int>(visited));
  }
  EXPECT_EQ(static_cast<int>(seen.size()), kNumTypeIds);
}

TEST(VisitTypeTest, UnknownIdIsAnInvalidStatus) {
  const auto bad = static_cast<TypeId>(kNumTypeIds + 3);
  const Status st = VisitTypeId(bad, [](auto) { return Status::OK(); });
  EXPECT_THAT(st, IsErrorWith(StatusCode::kInvalid, "unknown type id"));
  // A visitor whose result cannot hold a Status gets a value-initialized result.
  EXPECT_EQ(VisitTypeId(bad, [](auto) { return 7; }), 0);
}

TEST(VisitTypeTest, UnsupportedTypeNamesTheActionAndTheType) {
  const Result<int> r = VisitNumericType(
      *utf8(), "summing", [](auto traits) -> Result<int> { return traits.kByteWidth; });
  EXPECT_THAT(
      r, IsErrorWith(StatusCode::kNotImplemented, "summing is not supported for utf8"));
  const Result<int> width = VisitNumericType(
      *date32(), "summing", [](auto traits) -> Result<int> { return traits.kByteWidth; });
  ASSERT_TRUE(width.ok());
  EXPECT_EQ(*width, 4);
}

// The traits' byte width agrees with DataType::byte_width() wherever it is fixed by the
// id alone, and ArrayType / BuilderType are the classes MakeArray / MakeBuilder return.
TEST(VisitTypeTest, TraitsAgreeWithTheRunTimeClasses) {
  // Every type id once, in TypeId order: the flat ones, then the rest.
  const std::vector<DataTypePtr> types = testing::FlatTypes(
      3, {timestamp(TimeUnit::kMicro), list(int32()), large_list(int32()),
          fixed_size_list(int32(), 2), struct_({field("a", int32())}), null(),
          decimal128(10, 2), decimal256(40, 2), date64(), time32(TimeUnit::kMilli),
          time64(TimeUnit::kNano), duration(TimeUnit::kSecond),
          dictionary(int32(), utf8()), map(utf8(), int32())});
  ASSERT_EQ(static_cast<int>(types.size()), kNumTypeIds);
  for (const DataTypePtr& type : types) {
    SCOPED_TRACE(type->ToString());
    auto builder = MakeBuilder(type);
    ASSERT_TRUE(builder.ok()) << builder.status().ToString();
    auto array = (*builder)->Finish();
    ASSERT_TRUE(array.ok()) << array.status().ToString();
    VisitType(*type, [&](auto traits) {
      using T = decltype(traits);
      if (T::kByteWidth >= 0) {
        EXPECT_EQ(T::kByteWidth, type->byte_width());
      }
      EXPECT_NE(dynamic_cast<typename T::ArrayType*>(array->get()), nullptr);
      EXPECT_NE(dynamic_cast<typename T::BuilderType*>(builder->get()), nullptr);
    });
  }
}

}  // namespace
}  // namespace lance
