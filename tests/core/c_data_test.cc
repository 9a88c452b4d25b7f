// SPDX-License-Identifier: Apache-2.0
// Tests for the Arrow C Data Interface and C Stream Interface (lance/core/c_data.h).
//
// Arrays are built by hand from Buffers (not through builders) so that every layout
// detail under test -- offsets at each nesting level, absent vs. present validity
// bitmaps, unknown null counts -- is controlled here. Leaks and double frees are caught
// by the ASan build; the tests additionally observe lifetimes through weak_ptrs and
// counting release callbacks so they fail without sanitizers too.

#include "lance/core/c_data.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/array_data.h"
#include "lance/core/buffer.h"
#include "lance/core/record_batch.h"
#include "lance/core/type.h"
#include "tests/testing/matchers.h"
#include "tests/testing/type_lists.h"

namespace lance {
namespace {

using ::lance::testing::IsError;
using ::lance::testing::IsErrorWith;
using ::lance::testing::IsOk;
using ::testing::HasSubstr;

// ------------------------------------------------------------------------------------
// Array construction helpers
// ------------------------------------------------------------------------------------

BufferPtr Alloc(int64_t size) { return Buffer::Allocate(size).value(); }

enum class Nulls { kNone, kSome, kAll };

const char* NullsName(Nulls nulls) {
  static constexpr const char* kNames[] = {"no nulls", "some nulls", "all nulls"};
  return kNames[static_cast<int>(nulls)];
}

template <typename T>
void Put(const BufferPtr& buffer, int64_t index, T value) {
  std::memcpy(buffer->mutable_data() + index * static_cast<int64_t>(sizeof(T)), &value,
              sizeof(T));
}

template <typename T>
T Get(const void* data, int64_t index) {
  T value;
  std::memcpy(&value, static_cast<const uint8_t*>(data) + index * sizeof(T), sizeof(T));
  return value;
}

// Deterministic sample data of any lance type. Nested types get children that are
// themselves slices (non-zero offsets) with nulls, so every level exercises offsets.
ArrayDataPtr Gen(const DataTypePtr& type, int64_t length, Nulls nulls, int seed = 0) {
  BufferPtr validity;
  int64_t null_count = 0;
  if (nulls != Nulls::kNone) {
    validity = Alloc(bit_util::BytesForBits(length));
    for (int64_t i = 0; i < length; ++i) {
      const bool valid = nulls == Nulls::kSome && (i + seed) % 3 != 1;
      if (valid) {
        bit_util::SetBit(validity->mutable_data(), i);
      } else {
        ++null_count;
      }
    }
  }
  std::vector<BufferPtr> buffers = {validity};
  std::vector<ArrayDataPtr> children;

  auto gen_binary = [&](int offset_width) {
    BufferPtr offsets = Alloc((length + 1) * offset_width);
    std::string bytes;
    for (int64_t i = 0; i <= length; ++i) {
      if (offset_width == 4) {
        Put<int32_t>(offsets, i, static_cast<int32_t>(bytes.size()));
      } else {
        Put<int64_t>(offsets, i, static_cast<int64_t>(bytes.size()));
      }
      if (i < length && (i + seed) % 4 != 0) {
        bytes += "v" + std::to_string(i * 7 + seed) + std::string(i % 5, 'x');
      }
    }
    buffers.push_back(offsets);
    buffers.push_back(
        Buffer::CopyFrom(bytes.data(), static_cast<int64_t>(bytes.size())).value());
  };
  auto gen_list = [&](int offset_width) {
    BufferPtr offsets = Alloc((length + 1) * offset_width);
    int64_t total = 0;
    for (int64_t i = 0; i <= length; ++i) {
      if (offset_width == 4) {
        Put<int32_t>(offsets, i, static_cast<int32_t>(total));
      } else {
        Put<int64_t>(offsets, i, total);
      }
      total += (i + seed) % 3;
    }
    const int64_t child_length = offset_width == 4
                                     ? Get<int32_t>(offsets->data(), length)
                                     : Get<int64_t>(offsets->data(), length);
    buffers.push_back(offsets);
    if (type->id() == TypeId::kMap) {
      // Entries and keys may not be null; items may.
      const DataTypePtr& entries = type->value_type();
      children.push_back(
          ArrayData::Make(
              entries, child_length + 2, {nullptr}, 0, 0,
              {Gen(type->key_type(), child_length + 2, Nulls::kNone, seed + 1),
               Gen(type->item_type(), child_length + 2, Nulls::kSome, seed + 2)})
              ->Slice(2, child_length));
      return;
    }
    children.push_back(Gen(type->value_type(), child_length + 2, Nulls::kSome, seed + 1)
                           ->Slice(2, child_length));
  };

  switch (type->id()) {
    case TypeId::kBool: {
      BufferPtr bits = Alloc(bit_util::BytesForBits(length));
      for (int64_t i = 0; i < length; ++i) {
        bit_util::SetBitTo(bits->mutable_data(), i, (i + seed) % 3 == 0);
      }
      buffers.push_back(bits);
      break;
    }
    case TypeId::kInt8:
    case TypeId::kUInt8:
    case TypeId::kInt16:
    case TypeId::kUInt16:
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kDate32:
    case TypeId::kTimestamp:
    case TypeId::kDuration: {
      const int width = type->byte_width();
      BufferPtr values = Alloc(length * width);
      for (int64_t i = 0; i < length; ++i) {
        const int64_t v = (i * 1000003 + seed * 17) * ((i % 2) ? -1 : 1);
        std::memcpy(values->mutable_data() + i * width, &v, width);  // little endian
      }
      buffers.push_back(values);
      break;
    }
    case TypeId::kFloat16: {
      BufferPtr values = Alloc(length * 2);
      for (int64_t i = 0; i < length; ++i) {
        Put<uint16_t>(values, i, static_cast<uint16_t>(0x3C00 + (i + seed) % 512));
      }
      buffers.push_back(values);
      break;
    }
    case TypeId::kFloat32: {
      BufferPtr values = Alloc(length * 4);
      for (int64_t i = 0; i < length; ++i) Put<float>(values, i, 0.5f * i - seed);
      buffers.push_back(values);
      break;
    }
    case TypeId::kFloat64: {
      BufferPtr values = Alloc(length * 8);
      for (int64_t i = 0; i < length; ++i) Put<double>(values, i, 0.25 * i + seed);
      buffers.push_back(values);
      break;
    }
    case TypeId::kFixedSizeBinary: {
      const int width = type->fixed_size();
      BufferPtr values = Alloc(length * width);
      for (int64_t i = 0; i < length * width; ++i) {
        values->mutable_data()[i] = static_cast<uint8_t>('a' + (i + seed) % 26);
      }
      buffers.push_back(values);
      break;
    }
    case TypeId::kUtf8:
    case TypeId::kBinary:
      gen_binary(4);
      break;
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary:
      gen_binary(8);
      break;
    case TypeId::kList:
      gen_list(4);
      break;
    case TypeId::kLargeList:
      gen_list(8);
      break;
    case TypeId::kFixedSizeList: {
      const int64_t n = length * type->fixed_size();
      children.push_back(
          Gen(type->value_type(), n + 1, Nulls::kSome, seed + 1)->Slice(1, n));
      break;
    }
    case TypeId::kStruct: {
      for (int i = 0; i < type->num_fields(); ++i) {
        children.push_back(
            Gen(type->fields()[i]->type(), length + 3, Nulls::kSome, seed + i + 1)
                ->Slice(3, length));
      }
      break;
    }
    case TypeId::kNull:
      return ArrayData::Make(type, length, {nullptr}, length);
    case TypeId::kDate64: {
      BufferPtr values = Alloc(length * 8);
      for (int64_t i = 0; i < length; ++i) {
        Put<int64_t>(values, i, (i * 37 - seed - 20) * int64_t{86'400'000});
      }
      buffers.push_back(values);
      break;
    }
    case TypeId::kTime32:
    case TypeId::kTime64: {
      // Valid times of day: [0, 86400 s) in the type's unit.
      const int64_t day = 86'400 * TicksPerSecond(type->unit());
      const int width = type->byte_width();
      BufferPtr values = Alloc(length * width);
      for (int64_t i = 0; i < length; ++i) {
        const int64_t v = (i * 1000003 + seed * 17) % day;
        std::memcpy(values->mutable_data() + i * width, &v, width);
      }
      buffers.push_back(values);
      break;
    }
    case TypeId::kDecimal128:
    case TypeId::kDecimal256: {
      // Small values in range of any precision >= 5, negative every other slot.
      const int width = type->byte_width();
      BufferPtr values = Alloc(length * width);
      for (int64_t i = 0; i < length; ++i) {
        const int64_t v = ((i * 7919 + seed) % 99999) * ((i % 2) ? -1 : 1);
        for (int b = 0; b < width; b += 8) {
          const int64_t word = b == 0 ? v : (v < 0 ? -1 : 0);
          std::memcpy(values->mutable_data() + i * width + b, &word, 8);
        }
      }
      buffers.push_back(values);
      break;
    }
    case TypeId::kMap:
      gen_list(4);
      break;
    case TypeId::kDictionary: {
      // A sliced dictionary of 5 values; indices cycle through it.
      const int width = type->index_type()->byte_width();
      BufferPtr indices = Alloc(length * width);
      for (int64_t i = 0; i < length; ++i) {
        const int64_t v = (i * 3 + seed) % 5;
        std::memcpy(indices->mutable_data() + i * width, &v, width);
      }
      buffers.push_back(indices);
      return ArrayData::Make(
          type, length, std::move(buffers), null_count, 0, {},
          Gen(type->value_type(), 7, Nulls::kSome, seed + 1)->Slice(2, 5));
    }
  }
  return ArrayData::Make(type, length, std::move(buffers), null_count, 0,
                         std::move(children));
}

ArrayPtr GenArray(const DataTypePtr& type, int64_t length, Nulls nulls, int seed = 0) {
  return MakeArray(Gen(type, length, nulls, seed));
}

std::vector<DataTypePtr> AllTypes() {
  std::vector<DataTypePtr> types = testing::FlatTypes(5);
  for (TimeUnit unit :
       {TimeUnit::kSecond, TimeUnit::kMilli, TimeUnit::kMicro, TimeUnit::kNano}) {
    types.push_back(timestamp(unit));
    types.push_back(timestamp(unit, "UTC"));
  }
  types.push_back(timestamp(TimeUnit::kMicro, "America/New_York"));
  types.push_back(list(int32()));
  types.push_back(large_list(utf8()));
  types.push_back(fixed_size_list(int16(), 3));
  types.push_back(list(field("element", float64(), false)));
  types.push_back(
      struct_({field("a", int64()), field("b", utf8()), field("c", list(boolean()))}));
  types.push_back(struct_({field("s", list(utf8()))}));
  types.push_back(
      list(struct_({field("x", fixed_size_binary(2)), field("y", date32())})));
  types.push_back(fixed_size_list(large_list(large_binary()), 2));
  // The types added for pylance 14 parity.
  types.push_back(null());
  types.push_back(decimal128(10, 2));
  types.push_back(decimal128(38, -3));
  types.push_back(decimal256(40, 5));
  types.push_back(date64());
  types.push_back(time32(TimeUnit::kSecond));
  types.push_back(time32(TimeUnit::kMilli));
  types.push_back(time64(TimeUnit::kMicro));
  types.push_back(time64(TimeUnit::kNano));
  for (TimeUnit unit :
       {TimeUnit::kSecond, TimeUnit::kMilli, TimeUnit::kMicro, TimeUnit::kNano}) {
    types.push_back(duration(unit));
  }
  types.push_back(dictionary(int32(), utf8()));
  types.push_back(dictionary(int8(), int64(), /*ordered=*/true));
  types.push_back(dictionary(uint16(), list(utf8())));
  types.push_back(map(utf8(), int32()));
  types.push_back(map(int64(), list(utf8()), /*keys_sorted=*/true));
  types.push_back(struct_({field("n", null()), field("m", map(utf8(), float64())),
                           field("d", dictionary(int16(), binary()))}));
  types.push_back(list(dictionary(int32(), utf8())));
  types.push_back(fixed_size_list(decimal128(7, 3), 2));
  return types;
}

// The imported array must view the original memory: same data pointers, level by level.
void ExpectSameMemory(const ArrayData& original, const ArrayData& imported,
                      const std::string& where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(original.offset, imported.offset);
  EXPECT_EQ(original.length, imported.length);
  ASSERT_EQ(original.buffers.size(), imported.buffers.size());
  for (size_t i = 0; i < original.buffers.size(); ++i) {
    const BufferPtr& a = original.buffers[i];
    const BufferPtr& b = imported.buffers[i];
    if (a == nullptr) {
      if (i == 0) {
        EXPECT_EQ(b, nullptr) << "validity appeared from nowhere";
      }
      continue;
    }
    if (a->size() == 0) continue;  // empty buffers may be replaced by static zeros
    ASSERT_NE(b, nullptr) << "buffer " << i;
    EXPECT_EQ(a->data(), b->data()) << "buffer " << i << " was copied";
  }
  ASSERT_EQ(original.children.size(), imported.children.size());
  for (size_t i = 0; i < original.children.size(); ++i) {
    ExpectSameMemory(*original.children[i], *imported.children[i],
                     where + "/child " + std::to_string(i));
  }
}

// Export (array + schema), import, compare.
void CheckRoundTrip(const ArrayPtr& array, const std::string& what) {
  SCOPED_TRACE(what);
  ArrowArray c_array;
  ArrowSchema c_schema;
  ASSERT_OK(ExportArray(*array, &c_array, &c_schema));
  ASSERT_NE(c_array.release, nullptr);
  ASSERT_NE(c_schema.release, nullptr);
  EXPECT_EQ(c_array.length, array->length());
  EXPECT_EQ(c_array.offset, array->offset());
  EXPECT_EQ(c_array.null_count, array->null_count());
  ASSERT_OK_AND_ASSIGN(ArrayPtr imported, ImportArray(&c_array, &c_schema));
  EXPECT_EQ(c_array.release, nullptr);
  EXPECT_EQ(c_schema.release, nullptr);
  EXPECT_TRUE(imported->type()->Equals(*array->type(), /*check_metadata=*/true))
      << imported->type()->ToString() << " vs " << array->type()->ToString();
  EXPECT_TRUE(imported->Equals(*array)) << imported->ToString() << "\nvs\n"
                                        << array->ToString();
  EXPECT_EQ(imported->null_count(), array->null_count());
  ExpectSameMemory(*array->data(), *imported->data(), "root");
}

// ------------------------------------------------------------------------------------
// Producer-side fakes with counting release callbacks
// ------------------------------------------------------------------------------------

// Hand-written producers (as a foreign library would be) of one ArrowArray or
// ArrowSchema node, described by the test, whose release is counted. An array's children
// belong to the test (it allocates them); a schema's to the node. C is the C struct.
template <typename C>
struct FakeNode {
  std::vector<const void*> buffers;  // arrays
  std::string format;                // schemas
  std::string name;                  // schemas
  std::vector<C*> children;
  int* release_count;
};

template <typename C>
void ReleaseFake(C* node) {
  auto* fake = static_cast<FakeNode<C>*>(node->private_data);
  for (C* child : fake->children) {
    if (child->release != nullptr) child->release(child);
    if constexpr (std::is_same_v<C, ArrowSchema>) delete child;
  }
  ++*fake->release_count;
  delete fake;
  node->release = nullptr;
}

// The members an array and a schema node share: children, no dictionary, the release.
template <typename C>
C FakeNodeOf(FakeNode<C>* fake) {
  C out{};
  out.n_children = static_cast<int64_t>(fake->children.size());
  out.children = fake->children.empty() ? nullptr : fake->children.data();
  out.dictionary = nullptr;
  out.release = &ReleaseFake<C>;
  out.private_data = fake;
  return out;
}

ArrowArray MakeFakeArray(int64_t length, int64_t null_count, int64_t offset,
                         std::vector<const void*> buffers, int* release_count,
                         std::vector<ArrowArray*> children = {}) {
  auto* fake = new FakeNode<ArrowArray>{std::move(buffers), "", "", std::move(children),
                                        release_count};
  ArrowArray out = FakeNodeOf(fake);
  out.length = length;
  out.null_count = null_count;
  out.offset = offset;
  out.n_buffers = static_cast<int64_t>(fake->buffers.size());
  out.buffers = fake->buffers.data();
  return out;
}

// A schema node; children are heap-allocated and owned by the parent.
ArrowSchema MakeFakeSchema(std::string format, std::string name, int* release_count,
                           std::vector<ArrowSchema> children = {}) {
  auto* fake = new FakeNode<ArrowSchema>{
      {}, std::move(format), std::move(name), {}, release_count};
  for (ArrowSchema& child : children) fake->children.push_back(new ArrowSchema(child));
  ArrowSchema out = FakeNodeOf(fake);
  out.format = fake->format.c_str();
  out.name = fake->name.c_str();
  out.metadata = nullptr;
  out.flags = ARROW_FLAG_NULLABLE;
  return out;
}

// ------------------------------------------------------------------------------------
// Formats and schemas
// ------------------------------------------------------------------------------------

std::string ExportedFormat(const DataTypePtr& type) {
  ArrowSchema c_schema;
  Status st = ExportType(*type, &c_schema);
  if (!st.ok()) return "error: " + st.ToString();
  std::string format = c_schema.format;
  c_schema.release(&c_schema);
  return format;
}

TEST(CDataFormatTest, FormatStringsMatchTheSpec) {
  const std::vector<std::pair<DataTypePtr, std::string>> cases = {
      {boolean(), "b"},
      {int8(), "c"},
      {uint8(), "C"},
      {int16(), "s"},
      {uint16(), "S"},
      {int32(), "i"},
      {uint32(), "I"},
      {int64(), "l"},
      {uint64(), "L"},
      {float16(), "e"},
      {float32(), "f"},
      {float64(), "g"},
      {utf8(), "u"},
      {large_utf8(), "U"},
      {binary(), "z"},
      {large_binary(), "Z"},
      {fixed_size_binary(16), "w:16"},
      {date32(), "tdD"},
      {timestamp(TimeUnit::kSecond), "tss:"},
      {timestamp(TimeUnit::kMilli), "tsm:"},
      {timestamp(TimeUnit::kMicro, "UTC"), "tsu:UTC"},
      {timestamp(TimeUnit::kNano, "Europe/Paris"), "tsn:Europe/Paris"},
      {list(int64()), "+l"},
      {large_list(utf8()), "+L"},
      {fixed_size_list(float32(), 128), "+w:128"},
      {struct_({field("a", int8())}), "+s"},
      {null(), "n"},
      {decimal128(10, 2), "d:10,2"},
      {decimal128(38, -4), "d:38,-4"},
      {decimal256(40, 2), "d:40,2,256"},
      {date64(), "tdm"},
      {time32(TimeUnit::kSecond), "tts"},
      {time32(TimeUnit::kMilli), "ttm"},
      {time64(TimeUnit::kMicro), "ttu"},
      {time64(TimeUnit::kNano), "ttn"},
      {duration(TimeUnit::kSecond), "tDs"},
      {duration(TimeUnit::kMilli), "tDm"},
      {duration(TimeUnit::kMicro), "tDu"},
      {duration(TimeUnit::kNano), "tDn"},
      {map(utf8(), int32()), "+m"},
      {dictionary(int32(), utf8()), "i"},
      {dictionary(uint8(), float64(), true), "C"},
  };
  for (const auto& [type, format] : cases) {
    EXPECT_EQ(ExportedFormat(type), format) << type->ToString();
    // And back.
    ArrowSchema c_schema;
    ASSERT_OK(ExportType(*type, &c_schema));
    ASSERT_OK_AND_ASSIGN(DataTypePtr imported, ImportType(&c_schema));
    EXPECT_TRUE(imported->Equals(*type, true)) << imported->ToString();
  }
}

TEST(CDataFormatTest, ExportedTypeStructure) {
  ArrowSchema c_schema;
  ASSERT_OK(ExportType(*list(field("element", int32(), false)), &c_schema));
  EXPECT_STREQ(c_schema.format, "+l");
  EXPECT_STREQ(c_schema.name, "");
  EXPECT_EQ(c_schema.flags, ARROW_FLAG_NULLABLE);
  EXPECT_EQ(c_schema.metadata, nullptr);
  EXPECT_EQ(c_schema.dictionary, nullptr);
  ASSERT_EQ(c_schema.n_children, 1);
  EXPECT_STREQ(c_schema.children[0]->format, "i");
  EXPECT_STREQ(c_schema.children[0]->name, "element");
  EXPECT_EQ(c_schema.children[0]->flags, 0);
  EXPECT_EQ(c_schema.children[0]->n_children, 0);
  c_schema.release(&c_schema);
  EXPECT_EQ(c_schema.release, nullptr);
}

// The spec's metadata encoding, written out independently of the implementation.
std::string EncodeMetadataForTest(const KeyValueMetadata& metadata) {
  std::string out;
  auto put = [&out](int32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  put(static_cast<int32_t>(metadata.size()));
  for (const auto& [k, v] : metadata) {
    put(static_cast<int32_t>(k.size()));
    out += k;
    put(static_cast<int32_t>(v.size()));
    out += v;
  }
  return out;
}

TEST(CDataSchemaTest, RoundTripWithMetadataNullabilityAndNestedNames) {
  const KeyValueMetadata schema_md = {
      {"lance:version", "2"}, {"", "empty key"}, {"binary", std::string("a\0b", 3)}};
  const KeyValueMetadata field_md = {{"unit", "m/s"}};
  SchemaPtr original = schema({field("id", int64(), false, field_md),
                               field("tags", list(field("tag", utf8(), false)), true),
                               field("point",
                                     struct_({field("x", float32(), false),
                                              field("y", float32(), true, {{"k", "v"}})}),
                                     false),
                               field("ts", timestamp(TimeUnit::kNano, "UTC"))},
                              schema_md);

  ArrowSchema c_schema;
  ASSERT_OK(ExportSchema(*original, &c_schema));
  EXPECT_STREQ(c_schema.format, "+s");
  EXPECT_EQ(c_schema.flags, 0);
  ASSERT_EQ(c_schema.n_children, 4);
  ASSERT_NE(c_schema.metadata, nullptr);
  const std::string expected_md = EncodeMetadataForTest(schema_md);
  EXPECT_EQ(std::string(c_schema.metadata, expected_md.size()), expected_md);

  ArrowSchema* id = c_schema.children[0];
  EXPECT_STREQ(id->name, "id");
  EXPECT_STREQ(id->format, "l");
  EXPECT_EQ(id->flags & ARROW_FLAG_NULLABLE, 0);
  const std::string expected_field_md = EncodeMetadataForTest(field_md);
  ASSERT_NE(id->metadata, nullptr);
  EXPECT_EQ(std::string(id->metadata, expected_field_md.size()), expected_field_md);

  ArrowSchema* tags = c_schema.children[1];
  EXPECT_STREQ(tags->name, "tags");
  EXPECT_EQ(tags->flags & ARROW_FLAG_NULLABLE, ARROW_FLAG_NULLABLE);
  EXPECT_EQ(tags->metadata, nullptr);
  ASSERT_EQ(tags->n_children, 1);
  EXPECT_STREQ(tags->children[0]->name, "tag");
  EXPECT_STREQ(tags->children[0]->format, "u");
  EXPECT_EQ(tags->children[0]->flags, 0);

  ArrowSchema* point = c_schema.children[2];
  ASSERT_EQ(point->n_children, 2);
  EXPECT_STREQ(point->children[1]->name, "y");
  EXPECT_STREQ(c_schema.children[3]->format, "tsn:UTC");

  ASSERT_OK_AND_ASSIGN(SchemaPtr imported, ImportSchema(&c_schema));
  EXPECT_EQ(c_schema.release, nullptr);
  EXPECT_TRUE(imported->Equals(*original, /*check_metadata=*/true))
      << imported->ToString() << "\nvs\n"
      << original->ToString();
  EXPECT_EQ(imported->metadata(), schema_md);
  EXPECT_EQ(imported->field(0)->metadata(), field_md);
  EXPECT_FALSE(imported->field(0)->nullable());
  EXPECT_FALSE(imported->field(1)->type()->fields()[0]->nullable());
  EXPECT_EQ(imported->field(1)->type()->fields()[0]->name(), "tag");
}

TEST(CDataSchemaTest, FieldRoundTrip) {
  FieldPtr original = field("f", fixed_size_list(field("v", int8(), false), 4), false,
                            {{"a", "1"}, {"b", ""}});
  ArrowSchema c_schema;
  ASSERT_OK(ExportField(*original, &c_schema));
  EXPECT_STREQ(c_schema.name, "f");
  EXPECT_STREQ(c_schema.format, "+w:4");
  EXPECT_EQ(c_schema.flags, 0);
  ASSERT_OK_AND_ASSIGN(FieldPtr imported, ImportField(&c_schema));
  EXPECT_TRUE(imported->Equals(*original, true)) << imported->ToString();
  EXPECT_EQ(imported->metadata(), original->metadata());
}

TEST(CDataSchemaTest, EmptySchema) {
  ArrowSchema c_schema;
  ASSERT_OK(ExportSchema(*schema({}), &c_schema));
  EXPECT_EQ(c_schema.n_children, 0);
  EXPECT_EQ(c_schema.metadata, nullptr);
  ASSERT_OK_AND_ASSIGN(SchemaPtr imported, ImportSchema(&c_schema));
  EXPECT_EQ(imported->num_fields(), 0);
}

TEST(CDataSchemaTest, ImportAcceptsNullName) {
  int released = 0;
  ArrowSchema c_schema = MakeFakeSchema("g", "", &released);
  c_schema.name = nullptr;
  c_schema.flags = 0;
  ASSERT_OK_AND_ASSIGN(FieldPtr f, ImportField(&c_schema));
  EXPECT_EQ(f->name(), "");
  EXPECT_FALSE(f->nullable());
  EXPECT_TRUE(f->type()->Equals(*float64()));
  EXPECT_EQ(released, 1);
}

TEST(CDataSchemaTest, ImportSchemaRequiresStruct) {
  int released = 0;
  ArrowSchema c_schema = MakeFakeSchema("l", "x", &released);
  EXPECT_THAT(ImportSchema(&c_schema), IsErrorWith(StatusCode::kInvalid, "'+s'"));
  EXPECT_EQ(released, 1);
  EXPECT_EQ(c_schema.release, nullptr);
}

TEST(CDataSchemaTest, ConsumerMovesChildOut) {
  ArrowSchema c_schema;
  ASSERT_OK(
      ExportSchema(*schema({field("a", int32()), field("b", list(utf8()))}), &c_schema));
  ArrowSchema moved = *c_schema.children[1];
  c_schema.children[1]->release = nullptr;
  c_schema.release(&c_schema);  // must skip the moved child
  EXPECT_EQ(c_schema.release, nullptr);
  EXPECT_STREQ(moved.name, "b");
  EXPECT_STREQ(moved.format, "+l");
  EXPECT_STREQ(moved.children[0]->format, "u");
  ASSERT_OK_AND_ASSIGN(FieldPtr b, ImportField(&moved));
  EXPECT_TRUE(b->type()->Equals(*list(utf8())));
}

// ------------------------------------------------------------------------------------
// Malformed schemas
// ------------------------------------------------------------------------------------

struct BadFormatCase {
  std::string format;
  StatusCode code;
};

TEST(CDataSchemaTest, BadFormatsFailCleanly) {
  const std::vector<BadFormatCase> cases = {
      {"tiM", StatusCode::kNotImplemented},
      {"d32:10,2", StatusCode::kNotImplemented},
      {"d:10,2,64", StatusCode::kNotImplemented},
      {"d:10", StatusCode::kInvalid},
      {"d:,2", StatusCode::kInvalid},
      {"d:0,2", StatusCode::kInvalid},
      {"d:39,2", StatusCode::kInvalid},
      {"d:77,2,256", StatusCode::kInvalid},
      {"ttx", StatusCode::kNotImplemented},
      {"tDx", StatusCode::kNotImplemented},
      {"tdx", StatusCode::kNotImplemented},
      {"+m", StatusCode::kInvalid},
      {"vu", StatusCode::kNotImplemented},
      {"", StatusCode::kNotImplemented},
      {"ll", StatusCode::kNotImplemented},
      {"w:", StatusCode::kInvalid},
      {"w:abc", StatusCode::kInvalid},
      {"w:-3", StatusCode::kInvalid},
      {"w:99999999999", StatusCode::kInvalid},
      {"tsu", StatusCode::kInvalid},
      {"tsx:", StatusCode::kNotImplemented},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE("format '" + c.format + "'");
    int released = 0;
    ArrowSchema c_schema = MakeFakeSchema(c.format, "col", &released);
    Result<DataTypePtr> type = ImportType(&c_schema);
    EXPECT_THAT(type, IsErrorWith(c.code, "'" + c.format + "'"));
    EXPECT_EQ(released, 1);
    EXPECT_EQ(c_schema.release, nullptr);
  }
}

TEST(CDataSchemaTest, BadNestedFormatNamesTheChild) {
  // Export a valid schema, then tamper with one child's format the way a buggy or newer
  // producer might; the exported private data is still freed by the release callback.
  ArrowSchema c_schema;
  ASSERT_OK(ExportSchema(
      *schema({field("a", int8()), field("b", int8()), field("x", int8())}), &c_schema));
  c_schema.children[2]->format = "tiM";
  EXPECT_THAT(ImportSchema(&c_schema),
              IsErrorWith(StatusCode::kNotImplemented,
                          "When importing ArrowSchema child 2 ('x'): unsupported format "
                          "'tiM'"));
  EXPECT_EQ(c_schema.release, nullptr);

  ASSERT_OK(
      ExportType(*struct_({field("outer", list(field("inner", int8())))}), &c_schema));
  c_schema.children[0]->children[0]->format = "w:";
  EXPECT_THAT(ImportType(&c_schema),
              IsErrorWith(StatusCode::kInvalid, "child 0 ('outer') > child 0 ('inner')"));
  EXPECT_EQ(c_schema.release, nullptr);
}

// Expects ImportType to refuse `c_schema` (Invalid, `text` in the message) and to have
// released it: then `released` counts `nodes` release calls.
void ExpectTypeRefused(ArrowSchema* c_schema, const std::string& text,
                       const int& released, int nodes) {
  EXPECT_THAT(ImportType(c_schema), IsErrorWith(StatusCode::kInvalid, text));
  EXPECT_EQ(released, nodes);
}

TEST(CDataSchemaTest, WrongChildCountsAndDictionaries) {
  int released = 0;
  {
    ArrowSchema c_schema = MakeFakeSchema(
        "+l", "list", &released,
        {MakeFakeSchema("i", "a", &released), MakeFakeSchema("i", "b", &released)});
    ExpectTypeRefused(&c_schema, "takes 1 children", released, 3);
  }
  {
    released = 0;
    ArrowSchema c_schema =
        MakeFakeSchema("l", "scalar", &released, {MakeFakeSchema("i", "a", &released)});
    ExpectTypeRefused(&c_schema, "takes 0 children", released, 2);
  }
  {
    released = 0;
    ArrowSchema c_schema = MakeFakeSchema("i", "indices", &released);
    ArrowSchema dictionary = MakeFakeSchema("u", "", &released);
    c_schema.dictionary = &dictionary;
    c_schema.flags |= ARROW_FLAG_DICTIONARY_ORDERED;
    ASSERT_OK_AND_ASSIGN(DataTypePtr type, ImportType(&c_schema));
    EXPECT_TRUE(type->Equals(*lance::dictionary(int32(), utf8(), /*ordered=*/true)))
        << type->ToString();
    EXPECT_EQ(released, 1);
    dictionary.release(&dictionary);  // our fake producer does not own it
  }
  {
    // Indices must be integers.
    released = 0;
    ArrowSchema c_schema = MakeFakeSchema("f", "indices", &released);
    ArrowSchema dictionary = MakeFakeSchema("u", "", &released);
    c_schema.dictionary = &dictionary;
    EXPECT_THAT(ImportType(&c_schema), IsErrorWith(StatusCode::kInvalid, "integer"));
    EXPECT_EQ(released, 1);
    dictionary.release(&dictionary);
  }
  {
    // A map's entries must be a non-nullable struct<key not null, value>.
    released = 0;
    std::vector<ArrowSchema> kv;
    kv.push_back(MakeFakeSchema("u", "key", &released));  // nullable key
    kv.push_back(MakeFakeSchema("i", "value", &released));
    std::vector<ArrowSchema> entries;
    entries.push_back(MakeFakeSchema("+s", "entries", &released, std::move(kv)));
    entries[0].flags = 0;
    ArrowSchema c_schema = MakeFakeSchema("+m", "m", &released, std::move(entries));
    ExpectTypeRefused(&c_schema, "key field", released, 4);
  }
  {
    released = 0;
    std::vector<ArrowSchema> entries;
    entries.push_back(MakeFakeSchema("i", "entries", &released));
    entries[0].flags = 0;
    ArrowSchema c_schema = MakeFakeSchema("+m", "m", &released, std::move(entries));
    ExpectTypeRefused(&c_schema, "struct", released, 2);
  }
  {
    released = 0;
    ArrowSchema c_schema = MakeFakeSchema("+s", "s", &released);
    c_schema.n_children = 2;  // but children == NULL
    ExpectTypeRefused(&c_schema, "children is NULL", released, 1);
  }
}

TEST(CDataSchemaTest, NullAndReleasedInputs) {
  EXPECT_THAT(ImportType(nullptr), IsError(StatusCode::kInvalid));
  ArrowSchema released{};
  EXPECT_THAT(ImportSchema(&released), IsErrorWith(StatusCode::kInvalid, "released"));
  EXPECT_THAT(ExportType(*int8(), nullptr), IsError(StatusCode::kInvalid));
}

// ------------------------------------------------------------------------------------
// Array round trips
// ------------------------------------------------------------------------------------

TEST(CDataArrayTest, RoundTripEveryTypeAndNullPattern) {
  for (const DataTypePtr& type : AllTypes()) {
    for (Nulls nulls : {Nulls::kNone, Nulls::kSome, Nulls::kAll}) {
      for (int64_t length : {0, 1, 13}) {
        CheckRoundTrip(GenArray(type, length, nulls), type->ToString() + ", " +
                                                          NullsName(nulls) + ", length " +
                                                          std::to_string(length));
      }
    }
  }
}

TEST(CDataArrayTest, RoundTripSlices) {
  for (const DataTypePtr& type : AllTypes()) {
    for (Nulls nulls : {Nulls::kNone, Nulls::kSome}) {
      ArrayPtr full = GenArray(type, 29, nulls, 5);
      for (auto [offset, length] : std::vector<std::pair<int64_t, int64_t>>{
               {1, 7}, {8, 16}, {13, 0}, {28, 1}, {0, 29}}) {
        ArrayPtr slice = full->Slice(offset, length);
        ASSERT_EQ(slice->offset(), offset);
        CheckRoundTrip(slice, type->ToString() + ", " + NullsName(nulls) + ", slice " +
                                  std::to_string(offset) + "+" + std::to_string(length));
      }
    }
  }
}

// struct<list<utf8>> with nulls at every level and sliced children at every level, then
// sliced again at the top.
TEST(CDataArrayTest, NestedStructListUtf8WithSlicedChildren) {
  // utf8: ["a", null, "bb", "ccc", null, "", "dddd", "e"], sliced to start at 1.
  const std::vector<std::optional<std::string>> strings = {
      "a", std::nullopt, "bb", "ccc", std::nullopt, "", "dddd", "e"};
  BufferPtr str_validity = Alloc(1);
  BufferPtr str_offsets = Alloc(4 * (strings.size() + 1));
  std::string bytes;
  for (size_t i = 0; i < strings.size(); ++i) {
    Put<int32_t>(str_offsets, i, static_cast<int32_t>(bytes.size()));
    if (strings[i]) {
      bit_util::SetBit(str_validity->mutable_data(), i);
      bytes += *strings[i];
    }
  }
  Put<int32_t>(str_offsets, strings.size(), static_cast<int32_t>(bytes.size()));
  auto utf8_data =
      ArrayData::Make(
          utf8(), 8,
          {str_validity, str_offsets,
           Buffer::CopyFrom(bytes.data(), static_cast<int64_t>(bytes.size())).value()},
          2)
          ->Slice(1, 7);  // [null, "bb", "ccc", null, "", "dddd", "e"]

  // list<utf8> with a dummy slot 0 that the slice drops:
  // [[], [null, "bb"], null, ["ccc", null, ""], [], ["dddd", "e"]] -> slice(1, 5).
  BufferPtr list_validity = Alloc(1);
  for (int i : {0, 1, 3, 4, 5}) bit_util::SetBit(list_validity->mutable_data(), i);
  BufferPtr list_offsets = Alloc(4 * 7);
  const int32_t offs[] = {0, 0, 2, 2, 5, 5, 7};
  for (int i = 0; i < 7; ++i) Put<int32_t>(list_offsets, i, offs[i]);
  auto list_type = list(utf8());
  auto list_data = ArrayData::Make(list_type, 6, {list_validity, list_offsets},
                                   kUnknownNullCount, 0, {utf8_data})
                       ->Slice(1, 5);

  // struct<s: list<utf8>, n: int32> with a null at slot 3; its int32 child is sliced too.
  auto struct_type = struct_({field("s", list_type), field("n", int32())});
  auto ints = Gen(int32(), 9, Nulls::kSome)->Slice(4, 5);
  BufferPtr struct_validity = Alloc(1);
  for (int i : {0, 1, 2, 4}) bit_util::SetBit(struct_validity->mutable_data(), i);
  auto struct_data =
      ArrayData::Make(struct_type, 5, {struct_validity}, 1, 0, {list_data, ints});
  ArrayPtr array = MakeArray(struct_data);

  CheckRoundTrip(array, "struct<list<utf8>>");
  CheckRoundTrip(array->Slice(1, 3), "struct<list<utf8>> sliced");
  CheckRoundTrip(array->Slice(4, 1), "struct<list<utf8>> last slot");

  // Check the raw C view of the sliced struct: offsets of each level are passed through.
  ArrowArray c_array;
  ASSERT_OK(ExportArray(*array->Slice(1, 3), &c_array));
  EXPECT_EQ(c_array.offset, 1);
  EXPECT_EQ(c_array.length, 3);
  EXPECT_EQ(c_array.null_count, 1);  // struct slots 1, 2 valid, 3 null
  ASSERT_EQ(c_array.n_children, 2);
  ArrowArray* c_list = c_array.children[0];
  EXPECT_EQ(c_list->offset, 1);
  EXPECT_EQ(c_list->length, 5);
  EXPECT_EQ(c_list->buffers[1], list_offsets->data());
  EXPECT_EQ(c_list->children[0]->offset, 1);
  EXPECT_EQ(c_list->children[0]->null_count, 2);
  EXPECT_EQ(c_array.children[1]->offset, 4);
  c_array.release(&c_array);
}

TEST(CDataArrayTest, ExportComputesUnknownNullCount) {
  ArrayDataPtr data = Gen(int16(), 10, Nulls::kSome);
  const int64_t nulls = data->null_count;
  ASSERT_GT(nulls, 0);
  data->null_count = kUnknownNullCount;
  ArrowArray c_array;
  ASSERT_OK(ExportArray(*MakeArray(data), &c_array));
  EXPECT_EQ(c_array.null_count, nulls);
  EXPECT_NE(c_array.buffers[0], nullptr);
  c_array.release(&c_array);

  ASSERT_OK(ExportArray(*GenArray(int16(), 10, Nulls::kNone), &c_array));
  EXPECT_EQ(c_array.null_count, 0);
  EXPECT_EQ(c_array.buffers[0], nullptr);
  c_array.release(&c_array);
}

TEST(CDataArrayTest, ImportWithUnknownNullCount) {
  int released = 0;
  const uint8_t validity = 0b101;
  const int64_t values[3] = {1, 2, 3};
  ArrowArray c_array = MakeFakeArray(3, -1, 0, {&validity, values}, &released);
  ASSERT_OK_AND_ASSIGN(ArrayPtr array, ImportArray(&c_array, int64()));
  EXPECT_EQ(array->null_count(), 1);
  EXPECT_TRUE(array->IsNull(1));
}

TEST(CDataArrayTest, EmptyArraysWithNullBuffersImportGracefully) {
  for (const DataTypePtr& type : {utf8(), large_binary(), int32(), boolean()}) {
    SCOPED_TRACE(type->ToString());
    int released = 0;
    std::vector<const void*> buffers(type->is_binary_like() ? 3 : 2, nullptr);
    ArrowArray c_array = MakeFakeArray(0, 0, 0, buffers, &released);
    ASSERT_OK_AND_ASSIGN(ArrayPtr array, ImportArray(&c_array, type));
    EXPECT_EQ(array->length(), 0);
    EXPECT_OK(array->Validate());
    ArrayPtr expected = GenArray(type, 0, Nulls::kNone);
    EXPECT_TRUE(array->Equals(*expected));
    // Re-exporting never hands out NULL for the offsets of an empty array.
    ArrowArray again;
    ASSERT_OK(ExportArray(*array, &again));
    EXPECT_NE(again.buffers[1], nullptr);
    again.release(&again);
    array.reset();
    EXPECT_EQ(released, 1);
  }
  // A list with NULL offsets and an empty child.
  int released = 0;
  auto child =
      std::make_unique<ArrowArray>(MakeFakeArray(0, 0, 0, {nullptr, nullptr}, &released));
  ArrowArray c_array =
      MakeFakeArray(0, 0, 0, {nullptr, nullptr}, &released, {child.get()});
  ASSERT_OK_AND_ASSIGN(ArrayPtr array, ImportArray(&c_array, list(int8())));
  EXPECT_EQ(array->length(), 0);
  EXPECT_TRUE(array->Equals(*GenArray(list(int8()), 0, Nulls::kNone)));
  array.reset();
  EXPECT_EQ(released, 2);  // the producer's root release also released the child
}

// ------------------------------------------------------------------------------------
// Release semantics
// ------------------------------------------------------------------------------------

TEST(CDataReleaseTest, ExportOutlivesTheLanceArray) {
  ArrayDataPtr data =
      Gen(struct_({field("i", int64()), field("s", utf8())}), 6, Nulls::kSome);
  std::weak_ptr<ArrayData> weak_root = data;
  std::weak_ptr<ArrayData> weak_child = data->children[1];
  // Expected values, computed before the lance objects disappear.
  const ArrayData& ints = *data->children[0];
  const int64_t expected_int = Get<int64_t>(ints.buffers[1]->data(), ints.offset + 2);
  const ArrayData& strs = *data->children[1];
  const int32_t begin = Get<int32_t>(strs.buffers[1]->data(), strs.offset + 2);
  const int32_t end = Get<int32_t>(strs.buffers[1]->data(), strs.offset + 3);
  const std::string expected_str(
      reinterpret_cast<const char*>(strs.buffers[2]->data()) + begin, end - begin);
  ASSERT_FALSE(expected_str.empty());

  ArrowArray c_array;
  ArrowSchema c_schema;
  {
    ArrayPtr array = MakeArray(data);
    data.reset();
    ASSERT_OK(ExportArray(*array, &c_array, &c_schema));
  }
  // Only the exported struct keeps the data alive now.
  EXPECT_FALSE(weak_root.expired());

  // Read through the raw C structs.
  EXPECT_STREQ(c_schema.children[1]->name, "s");
  ArrowArray* c_ints = c_array.children[0];
  EXPECT_EQ(Get<int64_t>(c_ints->buffers[1], c_ints->offset + 2), expected_int);
  ArrowArray* c_strs = c_array.children[1];
  const int32_t b = Get<int32_t>(c_strs->buffers[1], c_strs->offset + 2);
  const int32_t e = Get<int32_t>(c_strs->buffers[1], c_strs->offset + 3);
  EXPECT_EQ(std::string(static_cast<const char*>(c_strs->buffers[2]) + b, e - b),
            expected_str);

  c_schema.release(&c_schema);
  c_array.release(&c_array);
  EXPECT_EQ(c_array.release, nullptr);
  EXPECT_EQ(c_array.private_data, nullptr);
  EXPECT_TRUE(weak_root.expired());
  EXPECT_TRUE(weak_child.expired());
}

// Expects `imported`, the import of a node the consumer moved out, to be `expected` in
// the very memory the producer exported, and that memory (`weak`) to go with the two.
void ExpectMovedOut(ArrayPtr imported, ArrayPtr expected,
                    const std::weak_ptr<ArrayData>& weak, const std::string& what) {
  EXPECT_TRUE(imported->Equals(*expected));
  ExpectSameMemory(*expected->data(), *imported->data(), what);
  expected.reset();
  imported.reset();
  EXPECT_TRUE(weak.expired());
}

TEST(CDataReleaseTest, ConsumerMovesChildOut) {
  ArrayDataPtr data =
      Gen(struct_({field("a", int32()), field("b", list(utf8()))}), 5, Nulls::kSome);
  std::weak_ptr<ArrayData> weak_root = data;
  std::weak_ptr<ArrayData> weak_b = data->children[1];
  ArrayPtr expected_b = MakeArray(data->children[1]);
  ArrowArray c_array;
  ASSERT_OK(ExportArray(*MakeArray(std::move(data)), &c_array));

  // Move child 1 out, as the spec allows, then release the parent first.
  ArrowArray moved = *c_array.children[1];
  c_array.children[1]->release = nullptr;
  c_array.release(&c_array);
  EXPECT_TRUE(weak_root.expired());
  EXPECT_FALSE(weak_b.expired());

  ASSERT_OK_AND_ASSIGN(ArrayPtr b, ImportArray(&moved, list(utf8())));
  EXPECT_EQ(moved.release, nullptr);
  ExpectMovedOut(std::move(b), std::move(expected_b), weak_b, "moved child");
}

TEST(CDataReleaseTest, ConsumerMovesDictionaryOut) {
  ArrayDataPtr data = Gen(dictionary(int16(), utf8()), 6, Nulls::kSome);
  std::weak_ptr<ArrayData> weak_root = data;
  std::weak_ptr<ArrayData> weak_dict = data->dictionary;
  ArrayPtr expected_dict = MakeArray(data->dictionary);
  ArrowArray c_array;
  ArrowSchema c_schema;
  ASSERT_OK(ExportArray(*MakeArray(std::move(data)), &c_array, &c_schema));
  ASSERT_NE(c_array.dictionary, nullptr);
  ASSERT_NE(c_schema.dictionary, nullptr);
  EXPECT_STREQ(c_schema.format, "s");
  EXPECT_STREQ(c_schema.dictionary->format, "u");
  EXPECT_EQ(c_array.n_buffers, 2);

  // Move the dictionary out of both structs, release the parents first.
  ArrowArray moved = *c_array.dictionary;
  c_array.dictionary->release = nullptr;
  ArrowSchema moved_schema = *c_schema.dictionary;
  c_schema.dictionary->release = nullptr;
  c_array.release(&c_array);
  c_schema.release(&c_schema);
  EXPECT_TRUE(weak_root.expired());
  EXPECT_FALSE(weak_dict.expired());

  ASSERT_OK_AND_ASSIGN(ArrayPtr dict, ImportArray(&moved, &moved_schema));
  ExpectMovedOut(std::move(dict), std::move(expected_dict), weak_dict,
                 "moved dictionary");
}

TEST(CDataReleaseTest, ImportedDictionarySharesTheGuard) {
  // Indices and dictionary of a hand-made producer: one release, when the last buffer
  // (here: the dictionary's, kept after the array is gone) dies.
  int released = 0;
  const int32_t indices[3] = {1, 0, 1};
  const int32_t offsets[3] = {0, 1, 3};
  const char chars[] = "abc";
  ArrowArray* dict =
      new ArrowArray(MakeFakeArray(2, 0, 0, {nullptr, offsets, chars}, &released));
  ArrowArray c_array = MakeFakeArray(3, 0, 0, {nullptr, indices}, &released);
  c_array.dictionary = dict;
  // The fake producer releases children only; release the dictionary with the parent.
  static_cast<FakeNode<ArrowArray>*>(c_array.private_data)->children.push_back(dict);
  ASSERT_OK_AND_ASSIGN(ArrayPtr array,
                       ImportArray(&c_array, dictionary(int32(), utf8())));
  EXPECT_EQ(array->ToString(), "[\"bc\", \"a\", \"bc\"]");
  EXPECT_OK(array->Validate());
  BufferPtr keep = array->data()->dictionary->buffers[2];
  EXPECT_EQ(keep->data(), reinterpret_cast<const uint8_t*>(chars));
  array.reset();
  EXPECT_EQ(released, 0);
  keep.reset();
  EXPECT_EQ(released, 2);  // the parent's release also released the dictionary
  delete dict;
}

TEST(CDataReleaseTest, ImportCallsProducerReleaseOnceWhenLastBufferDies) {
  int released = 0;
  const uint8_t validity = 0b1101;
  const int32_t values[4] = {10, 20, 30, 40};
  ArrowArray c_array = MakeFakeArray(4, 1, 0, {&validity, values}, &released);
  ASSERT_OK_AND_ASSIGN(ArrayPtr array, ImportArray(&c_array, int32()));
  EXPECT_EQ(c_array.release, nullptr) << "source must be marked moved";
  EXPECT_EQ(released, 0);
  EXPECT_EQ(array->data()->buffers[1]->data(), reinterpret_cast<const uint8_t*>(values));
  EXPECT_TRUE(array->IsNull(1));

  // Importing the same struct again is refused (it is marked released).
  EXPECT_THAT(ImportArray(&c_array, int32()),
              IsErrorWith(StatusCode::kInvalid, "released"));

  BufferPtr keep = array->data()->buffers[1];
  ArrayPtr slice = array->Slice(1, 2);
  array.reset();
  EXPECT_EQ(released, 0);
  slice.reset();
  EXPECT_EQ(released, 0);
  keep.reset();
  EXPECT_EQ(released, 1);
}

TEST(CDataReleaseTest, NestedImportSharesOneGuard) {
  int released = 0;
  const int64_t values[3] = {1, 2, 3};
  const int32_t offsets[3] = {0, 1, 3};
  auto child =
      std::make_unique<ArrowArray>(MakeFakeArray(3, 0, 0, {nullptr, values}, &released));
  ArrowArray c_array =
      MakeFakeArray(2, 0, 0, {nullptr, offsets}, &released, {child.get()});
  ASSERT_OK_AND_ASSIGN(ArrayPtr array, ImportArray(&c_array, list(int64())));
  BufferPtr child_values = array->data()->children[0]->buffers[1];
  array.reset();
  EXPECT_EQ(released, 0) << "a child buffer still references the tree";
  EXPECT_EQ(Get<int64_t>(child_values->data(), 2), 3);
  child_values.reset();
  EXPECT_EQ(released, 2);  // the producer's root release released its child
}

TEST(CDataReleaseTest, ReExportOfImportedArrayKeepsProducerAlive) {
  int released = 0;
  const double values[2] = {1.5, 2.5};
  ArrowArray c_array = MakeFakeArray(2, 0, 0, {nullptr, values}, &released);
  ASSERT_OK_AND_ASSIGN(ArrayPtr array, ImportArray(&c_array, float64()));
  ArrowArray again;
  ASSERT_OK(ExportArray(*array, &again));
  array.reset();
  EXPECT_EQ(released, 0);
  EXPECT_EQ(again.buffers[1], values);
  again.release(&again);
  EXPECT_EQ(released, 1);
}

// ------------------------------------------------------------------------------------
// Malformed arrays
// ------------------------------------------------------------------------------------

TEST(CDataArrayTest, MalformedArraysFailCleanlyAndAreReleased) {
  const int32_t values[4] = {1, 2, 3, 4};
  const int32_t offsets[3] = {0, 4, 1};  // decreasing
  const char chars[4] = {'a', 'b', 'c', 'd'};
  const uint8_t validity = 0xff;
  struct Case {
    std::string what;
    DataTypePtr type;
    std::function<ArrowArray(int*)> make;
    StatusCode code;
    std::string message;
  };
  std::vector<Case> cases = {
      {"wrong n_buffers", int32(),
       [&](int* n) {
         return MakeFakeArray(4, 0, 0, {nullptr, values, values}, n);
       },
       StatusCode::kInvalid, "n_buffers is 3, expected 2"},
      {"wrong n_children", int32(),
       [&](int* n) {
         ArrowArray* kid = new ArrowArray(MakeFakeArray(0, 0, 0, {nullptr, values}, n));
         return MakeFakeArray(4, 0, 0, {nullptr, values}, n, {kid});
       },
       StatusCode::kInvalid, "n_children is 1, expected 0"},
      {"null data with length > 0", int32(),
       [&](int* n) {
         return MakeFakeArray(4, 0, 0, {nullptr, nullptr}, n);
       },
       StatusCode::kInvalid, "buffer 1 is NULL"},
      {"null string data", utf8(),
       [&](int* n) {
         static const int32_t offs[3] = {0, 2, 4};
         return MakeFakeArray(2, 0, 0, {nullptr, offs, nullptr}, n);
       },
       StatusCode::kInvalid, "buffer 2 is NULL but 4 bytes"},
      {"null offsets with length > 0", utf8(),
       [&](int* n) {
         return MakeFakeArray(2, 0, 0, {nullptr, nullptr, chars}, n);
       },
       StatusCode::kInvalid, "buffer 1 is NULL"},
      {"decreasing offsets", utf8(),
       [&](int* n) {
         // Slot range [1, 2): offsets 4 -> 1.
         return MakeFakeArray(1, 0, 1, {nullptr, offsets, chars}, n);
       },
       StatusCode::kInvalid, "out of order"},
      {"negative length", int32(),
       [&](int* n) {
         return MakeFakeArray(-1, 0, 0, {nullptr, values}, n);
       },
       StatusCode::kInvalid, "length"},
      {"nulls without bitmap", int32(),
       [&](int* n) {
         return MakeFakeArray(4, 2, 0, {nullptr, values}, n);
       },
       StatusCode::kInvalid, "validity buffer is NULL"},
      {"null_count > length", int32(),
       [&](int* n) {
         return MakeFakeArray(4, 5, 0, {&validity, values}, n);
       },
       StatusCode::kInvalid, "null_count"},
      {"short list child", list(int32()),
       [&](int* n) {
         static const int32_t offs[3] = {0, 3, 9};
         ArrowArray* kid = new ArrowArray(MakeFakeArray(4, 0, 0, {nullptr, values}, n));
         return MakeFakeArray(2, 0, 0, {nullptr, offs}, n, {kid});
       },
       StatusCode::kInvalid, "has length 4 but the parent needs 9"},
      {"bad child in struct", struct_({field("ok", int32()), field("bad", int32())}),
       [&](int* n) {
         ArrowArray* a = new ArrowArray(MakeFakeArray(4, 0, 0, {nullptr, values}, n));
         ArrowArray* b = new ArrowArray(MakeFakeArray(4, 0, 0, {nullptr}, n));
         return MakeFakeArray(4, 0, 0, {nullptr}, n, {a, b});
       },
       StatusCode::kInvalid, "child 1 ('bad')"},
      {"dictionary on a plain type", int32(),
       [&](int* n) {
         ArrowArray out = MakeFakeArray(4, 0, 0, {nullptr, values}, n);
         static ArrowArray dict{};
         out.dictionary = &dict;
         return out;
       },
       StatusCode::kInvalid, "not a dictionary type"},
      {"dictionary type without dictionary", dictionary(int32(), utf8()),
       [&](int* n) {
         return MakeFakeArray(4, 0, 0, {nullptr, values}, n);
       },
       StatusCode::kInvalid, "has no dictionary"},
      {"null type with a buffer", null(),
       [&](int* n) { return MakeFakeArray(4, 4, 0, {nullptr}, n); }, StatusCode::kInvalid,
       "n_buffers is 1, expected 0"},
      {"decimal values missing", decimal128(5, 2),
       [&](int* n) {
         return MakeFakeArray(4, 0, 0, {nullptr, nullptr}, n);
       },
       StatusCode::kInvalid, "buffer 1 is NULL"},
  };
  std::vector<ArrowArray*> kids_to_free;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    int released = 0;
    ArrowArray c_array = c.make(&released);
    const int64_t n_nodes = 1 + c_array.n_children;
    for (int64_t i = 0; i < c_array.n_children; ++i)
      kids_to_free.push_back(c_array.children[i]);
    EXPECT_THAT(ImportArray(&c_array, c.type), IsErrorWith(c.code, c.message));
    EXPECT_EQ(c_array.release, nullptr);
    EXPECT_EQ(released, n_nodes) << "input not released exactly once";
  }
  for (ArrowArray* kid : kids_to_free) delete kid;
}

// Import checks are O(1) per node (structure, buffer presence, the offsets that bound
// the data); interior offsets are left to Array::Validate(), as documented.
TEST(CDataArrayTest, InteriorOffsetsAreLeftToValidate) {
  int released = 0;
  const int32_t offsets[4] = {0, 3, 1, 4};
  const char chars[4] = {'a', 'b', 'c', 'd'};
  ArrowArray c_array = MakeFakeArray(3, 0, 0, {nullptr, offsets, chars}, &released);
  ASSERT_OK_AND_ASSIGN(ArrayPtr array, ImportArray(&c_array, utf8()));
  EXPECT_THAT(array->Validate(), IsError(StatusCode::kInvalid));
}

TEST(CDataArrayTest, ImportWithSchemaConsumesBothOnError) {
  int array_released = 0;
  int schema_released = 0;
  const int32_t values[2] = {1, 2};
  ArrowArray c_array = MakeFakeArray(2, 0, 0, {nullptr, values}, &array_released);
  ArrowSchema c_schema = MakeFakeSchema("w:", "bad", &schema_released);
  EXPECT_THAT(ImportArray(&c_array, &c_schema),
              IsErrorWith(StatusCode::kInvalid, "'w:'"));
  EXPECT_EQ(array_released, 1);
  EXPECT_EQ(schema_released, 1);

  // And the other way round: a released array still consumes the schema.
  schema_released = 0;
  c_schema = MakeFakeSchema("i", "ok", &schema_released);
  EXPECT_THAT(ImportArray(&c_array, &c_schema),
              IsErrorWith(StatusCode::kInvalid, "released"));
  EXPECT_EQ(schema_released, 1);
}

TEST(CDataArrayTest, MismatchedTypeIsRejected) {
  ArrowArray c_array;
  ASSERT_OK(ExportArray(*GenArray(utf8(), 4, Nulls::kSome), &c_array));
  EXPECT_THAT(ImportArray(&c_array, int64()),
              IsErrorWith(StatusCode::kInvalid, "n_buffers is 3, expected 2"));
  EXPECT_EQ(c_array.release, nullptr);
  EXPECT_THAT(ImportArray(nullptr, int64()), IsError(StatusCode::kInvalid));
  ASSERT_OK(ExportArray(*GenArray(utf8(), 4, Nulls::kSome), &c_array));
  EXPECT_THAT(ImportArray(&c_array, DataTypePtr()), IsError(StatusCode::kInvalid));
  EXPECT_EQ(c_array.release, nullptr);
}

TEST(CDataArrayTest, ExportRejectsBrokenArrayData) {
  // An int64 ArrayData whose values buffer is too short for its length.
  auto data = ArrayData::Make(int64(), 10, {nullptr, Alloc(16)}, 0);
  ArrowArray c_array;
  c_array.release = nullptr;
  EXPECT_THAT(ExportArray(*MakeArray(data), &c_array),
              IsErrorWith(StatusCode::kInvalid, "16 bytes but 80 are required"));
  EXPECT_EQ(c_array.release, nullptr) << "output written on error";
  auto two_buffers = ArrayData::Make(utf8(), 0, {nullptr, Alloc(4)}, 0);
  EXPECT_THAT(ExportArray(*MakeArray(two_buffers), &c_array),
              IsErrorWith(StatusCode::kInvalid, "2 buffers, expected 3"));
}

// ------------------------------------------------------------------------------------
// Record batches
// ------------------------------------------------------------------------------------

RecordBatchPtr MakeBatch(int64_t rows, int seed) {
  SchemaPtr s = schema({field("id", int64(), false), field("name", utf8()),
                        field("scores", list(float32()))},
                       {{"origin", "test"}});
  std::vector<ArrayPtr> columns = {GenArray(int64(), rows, Nulls::kNone, seed),
                                   GenArray(utf8(), rows, Nulls::kSome, seed),
                                   GenArray(list(float32()), rows, Nulls::kSome, seed)};
  return RecordBatch::Make(s, rows, columns).value();
}

TEST(CDataRecordBatchTest, RoundTrip) {
  RecordBatchPtr batch = MakeBatch(11, 1);
  ArrowArray c_array;
  ArrowSchema c_schema;
  ASSERT_OK(ExportRecordBatch(*batch, &c_array, &c_schema));
  EXPECT_EQ(c_array.length, 11);
  EXPECT_EQ(c_array.null_count, 0);
  EXPECT_EQ(c_array.n_buffers, 1);
  EXPECT_EQ(c_array.buffers[0], nullptr);
  EXPECT_EQ(c_array.n_children, 3);
  EXPECT_STREQ(c_schema.format, "+s");
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr imported, ImportRecordBatch(&c_array, &c_schema));
  EXPECT_TRUE(imported->Equals(*batch, /*check_metadata=*/true));
  for (int i = 0; i < batch->num_columns(); ++i) {
    ExpectSameMemory(*batch->column(i)->data(), *imported->column(i)->data(),
                     "column " + std::to_string(i));
  }

  // With a lance schema on the import side.
  ASSERT_OK(ExportRecordBatch(*batch, &c_array));
  ASSERT_OK_AND_ASSIGN(imported, ImportRecordBatch(&c_array, batch->schema()));
  EXPECT_TRUE(imported->Equals(*batch, true));
}

TEST(CDataRecordBatchTest, SlicedStructAppliesOffsetToColumns) {
  RecordBatchPtr batch = MakeBatch(12, 2);
  ASSERT_OK_AND_ASSIGN(ArrayPtr as_struct, batch->ToStructArray());
  ArrayPtr sliced = as_struct->Slice(3, 6);
  ArrowArray c_array;
  ASSERT_OK(ExportArray(*sliced, &c_array));
  EXPECT_EQ(c_array.offset, 3);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr imported,
                       ImportRecordBatch(&c_array, batch->schema()));
  EXPECT_TRUE(imported->Equals(*batch->Slice(3, 6))) << imported->ToString();
}

TEST(CDataRecordBatchTest, TopLevelNullsAreRejected) {
  auto type = struct_({field("a", int32())});
  ArrowArray c_array;
  ASSERT_OK(ExportArray(*GenArray(type, 4, Nulls::kSome), &c_array));
  EXPECT_THAT(ImportRecordBatch(&c_array, schema({field("a", int32())})),
              IsErrorWith(StatusCode::kInvalid, "top-level nulls"));
  EXPECT_EQ(c_array.release, nullptr);

  int released = 0;
  ASSERT_OK(ExportArray(*GenArray(int32(), 4, Nulls::kNone), &c_array));
  ArrowSchema c_schema = MakeFakeSchema("i", "", &released);
  EXPECT_THAT(ImportRecordBatch(&c_array, &c_schema),
              IsErrorWith(StatusCode::kInvalid, "'+s'"));
  EXPECT_EQ(c_array.release, nullptr);
  EXPECT_EQ(released, 1);
}

// ------------------------------------------------------------------------------------
// Streams
// ------------------------------------------------------------------------------------

// A reader over batches that can be told to fail at a given call.
class TestReader : public RecordBatchReader {
 public:
  TestReader(SchemaPtr schema, std::vector<RecordBatchPtr> batches, int fail_at = -1)
      : schema_(std::move(schema)), batches_(std::move(batches)), fail_at_(fail_at) {}
  SchemaPtr schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    const int call = calls_++;
    if (call == fail_at_)
      return Status::IOError("disk on fire at batch " + std::to_string(call));
    if (next_ >= batches_.size()) return RecordBatchPtr();
    return batches_[next_++];
  }
  int calls() const { return calls_; }

 private:
  SchemaPtr schema_;
  std::vector<RecordBatchPtr> batches_;
  int fail_at_;
  size_t next_ = 0;
  int calls_ = 0;
};

std::vector<RecordBatchPtr> ThreeBatches() {
  return {MakeBatch(5, 1), MakeBatch(0, 2), MakeBatch(9, 3)};
}

TEST(CDataStreamTest, RoundTripThreeBatches) {
  std::vector<RecordBatchPtr> batches = ThreeBatches();
  auto reader = std::make_shared<TestReader>(batches[0]->schema(), batches);
  std::weak_ptr<TestReader> weak_reader = reader;
  ArrowArrayStream c_stream;
  ASSERT_OK(ExportRecordBatchReader(std::move(reader), &c_stream));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<RecordBatchReader> imported,
                       ImportRecordBatchReader(&c_stream));
  EXPECT_EQ(c_stream.release, nullptr);
  EXPECT_TRUE(imported->schema()->Equals(*batches[0]->schema(), true));
  for (const RecordBatchPtr& expected : batches) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, imported->Next());
    ASSERT_NE(batch, nullptr);
    EXPECT_TRUE(batch->Equals(*expected, true));
    ExpectSameMemory(*expected->column(1)->data(), *batch->column(1)->data(), "column 1");
  }
  for (int i = 0; i < 2; ++i) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr end, imported->Next());
    EXPECT_EQ(end, nullptr);
  }
  EXPECT_FALSE(weak_reader.expired());
  imported.reset();
  EXPECT_TRUE(weak_reader.expired()) << "releasing the stream must drop the reader";
}

TEST(CDataStreamTest, RawCallbacksAndEndOfStream) {
  std::vector<RecordBatchPtr> batches = {MakeBatch(3, 1)};
  auto reader = std::make_shared<TestReader>(batches[0]->schema(), batches);
  ArrowArrayStream c_stream;
  ASSERT_OK(ExportRecordBatchReader(reader, &c_stream));

  ArrowSchema c_schema;
  ASSERT_EQ(c_stream.get_schema(&c_stream, &c_schema), 0);
  EXPECT_STREQ(c_schema.format, "+s");
  EXPECT_EQ(c_schema.n_children, 3);
  c_schema.release(&c_schema);

  ArrowArray c_array;
  ASSERT_EQ(c_stream.get_next(&c_stream, &c_array), 0);
  ASSERT_NE(c_array.release, nullptr);
  EXPECT_EQ(c_array.length, 3);
  c_array.release(&c_array);
  for (int i = 0; i < 3; ++i) {
    c_array.release =
        reinterpret_cast<void (*)(ArrowArray*)>(0x1);  // must be overwritten
    ASSERT_EQ(c_stream.get_next(&c_stream, &c_array), 0);
    EXPECT_EQ(c_array.release, nullptr);
  }
  EXPECT_EQ(reader->calls(), 2) << "Next() must not be called again after the end";
  c_stream.release(&c_stream);
  EXPECT_EQ(c_stream.release, nullptr);
}

TEST(CDataStreamTest, ErrorsPropagateWithMessage) {
  std::vector<RecordBatchPtr> batches = ThreeBatches();
  {
    // Raw: get_next fails with an errno and get_last_error explains.
    auto reader = std::make_shared<TestReader>(batches[0]->schema(), batches, 1);
    ArrowArrayStream c_stream;
    ASSERT_OK(ExportRecordBatchReader(reader, &c_stream));
    ArrowArray c_array;
    ASSERT_EQ(c_stream.get_next(&c_stream, &c_array), 0);
    c_array.release(&c_array);
    EXPECT_EQ(c_stream.get_next(&c_stream, &c_array), EIO);
    const char* message = c_stream.get_last_error(&c_stream);
    ASSERT_NE(message, nullptr);
    EXPECT_THAT(message, HasSubstr("disk on fire at batch 1"));
    // Sticky: the reader is not asked again.
    EXPECT_EQ(c_stream.get_next(&c_stream, &c_array), EIO);
    EXPECT_EQ(reader->calls(), 2);
    c_stream.release(&c_stream);
  }
  {
    // Imported: the error comes back as IOError with the producer's text.
    auto reader = std::make_shared<TestReader>(batches[0]->schema(), batches, 1);
    ArrowArrayStream c_stream;
    ASSERT_OK(ExportRecordBatchReader(reader, &c_stream));
    ASSERT_OK_AND_ASSIGN(auto imported, ImportRecordBatchReader(&c_stream));
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr first, imported->Next());
    EXPECT_TRUE(first->Equals(*batches[0]));
    Result<RecordBatchPtr> second = imported->Next();
    EXPECT_THAT(second, IsErrorWith(StatusCode::kIOError, "disk on fire at batch 1"));
    EXPECT_THAT(second, IsErrorWith(StatusCode::kIOError, "get_next"));
    EXPECT_THAT(imported->Next(), IsErrorWith(StatusCode::kIOError, "disk on fire"));
  }
}

TEST(CDataStreamTest, InvalidStatusMapsToEinval) {
  class Failing : public RecordBatchReader {
   public:
    SchemaPtr schema() const override { return schema_; }
    Result<RecordBatchPtr> Next() override { return Status::Invalid("bad batch"); }
    SchemaPtr schema_ = lance::schema({field("a", int8())});
  };
  ArrowArrayStream c_stream;
  ASSERT_OK(ExportRecordBatchReader(std::make_shared<Failing>(), &c_stream));
  ArrowArray c_array;
  EXPECT_EQ(c_stream.get_next(&c_stream, &c_array), EINVAL);
  EXPECT_THAT(c_stream.get_last_error(&c_stream), HasSubstr("bad batch"));
  c_stream.release(&c_stream);
}

TEST(CDataStreamTest, ReleaseMidwayLeavesBatchesValid) {
  std::vector<RecordBatchPtr> batches = ThreeBatches();
  auto reader = std::make_shared<TestReader>(batches[0]->schema(), batches);
  std::weak_ptr<TestReader> weak_reader = reader;
  ArrowArrayStream c_stream;
  ASSERT_OK(ExportRecordBatchReader(std::move(reader), &c_stream));
  ArrowArray c_array;
  ASSERT_EQ(c_stream.get_next(&c_stream, &c_array), 0);
  c_stream.release(&c_stream);
  EXPECT_TRUE(weak_reader.expired());
  // The batch handed out before the release is independent of the stream.
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr first,
                       ImportRecordBatch(&c_array, batches[0]->schema()));
  EXPECT_TRUE(first->Equals(*batches[0]));

  // Same through the imported reader: drop it after one batch.
  reader = std::make_shared<TestReader>(batches[0]->schema(), batches);
  ASSERT_OK(ExportRecordBatchReader(reader, &c_stream));
  ASSERT_OK_AND_ASSIGN(auto imported, ImportRecordBatchReader(&c_stream));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr got, imported->Next());
  imported.reset();
  EXPECT_EQ(reader.use_count(), 1);
  EXPECT_TRUE(got->Equals(*batches[0]));
}

// A foreign stream whose get_schema fails.
struct FailingStreamState {
  int* released;
};

TEST(CDataStreamTest, ImportFailsCleanly) {
  int released = 0;
  ArrowArrayStream c_stream{};
  c_stream.get_schema = [](ArrowArrayStream*, ArrowSchema*) { return ENOSYS; };
  c_stream.get_next = [](ArrowArrayStream*, ArrowArray*) { return EIO; };
  c_stream.get_last_error = [](ArrowArrayStream*) -> const char* {
    return "no schema here";
  };
  c_stream.release = [](ArrowArrayStream* s) {
    auto* state = static_cast<FailingStreamState*>(s->private_data);
    ++*state->released;
    delete state;
    s->release = nullptr;
  };
  c_stream.private_data = new FailingStreamState{&released};
  EXPECT_THAT(ImportRecordBatchReader(&c_stream),
              IsErrorWith(StatusCode::kIOError, "get_schema failed with errno"));
  EXPECT_EQ(released, 1);
  EXPECT_EQ(c_stream.release, nullptr);
  EXPECT_THAT(ImportRecordBatchReader(&c_stream),
              IsErrorWith(StatusCode::kInvalid, "released"));
  EXPECT_THAT(ImportRecordBatchReader(nullptr), IsError(StatusCode::kInvalid));
  EXPECT_THAT(ExportRecordBatchReader(nullptr, &c_stream), IsError(StatusCode::kInvalid));
}

}  // namespace
}  // namespace lance
