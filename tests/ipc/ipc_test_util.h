// SPDX-License-Identifier: Apache-2.0
// Helpers for the Arrow IPC tests: arrays built directly from ArrayData (so that odd
// layouts such as non-zero first offsets can be made on purpose), golden file access and
// the table every types golden file holds.

#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/array_data.h"
#include "lance/core/buffer.h"
#include "lance/core/record_batch.h"
#include "lance/core/type.h"

namespace lance::ipc::testing {

template <typename T>
using Opt = std::optional<T>;
inline constexpr std::nullopt_t kNull = std::nullopt;

/// \brief Path of a file under tests/ipc/data.
inline std::string DataPath(const std::string& name) {
  return std::string(LANCE_IPC_TEST_DATA) + "/" + name;
}

/// \brief The bytes of a file, or an empty string when it cannot be read.
inline std::string ReadFileToString(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

/// \brief A 64-byte aligned buffer holding a copy of `bytes`.
inline BufferPtr BufferOf(const std::string& bytes) {
  auto result = Buffer::CopyFrom(bytes.data(), static_cast<int64_t>(bytes.size()));
  return result.ok() ? *result : nullptr;
}

/// \brief The committed golden file tests/ipc/data/`name`; a failed expectation (and an
/// empty buffer) when it cannot be read.
inline BufferPtr LoadGolden(const std::string& name) {
  const std::string bytes = ReadFileToString(DataPath(name));
  EXPECT_FALSE(bytes.empty()) << "cannot read " << DataPath(name);
  return BufferOf(bytes);
}

/// \brief Overwrites the golden file tests/ipc/data/`name` with `bytes` (the tools that
/// regenerate the goldens).
inline void WriteGolden(const std::string& name, const Buffer& bytes) {
  std::ofstream(DataPath(name), std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

inline BufferPtr BytesBuffer(const void* data, int64_t size) {
  auto result = Buffer::CopyFrom(data, size);
  return result.ok() ? *result : nullptr;
}

/// \brief Validity bitmap for `valid`, or null when every slot is valid.
inline BufferPtr ValidityOf(const std::vector<bool>& valid, int64_t* null_count) {
  *null_count = 0;
  std::vector<uint8_t> bits(bit_util::BytesForBits(static_cast<int64_t>(valid.size())),
                            0);
  for (size_t i = 0; i < valid.size(); ++i) {
    if (valid[i]) {
      bit_util::SetBit(bits.data(), static_cast<int64_t>(i));
    } else {
      ++*null_count;
    }
  }
  if (*null_count == 0) return nullptr;
  return BytesBuffer(bits.data(), static_cast<int64_t>(bits.size()));
}

template <typename T>
std::vector<bool> ValidOf(const std::vector<Opt<T>>& values) {
  std::vector<bool> valid;
  for (const auto& v : values) valid.push_back(v.has_value());
  return valid;
}

/// \brief A fixed-width array of `type` (ints, floats, date32, timestamp, float16 bits).
template <typename CType>
ArrayPtr Numeric(DataTypePtr type, const std::vector<Opt<CType>>& values) {
  std::vector<CType> raw;
  for (const auto& v : values) raw.push_back(v.value_or(CType{}));
  int64_t nulls = 0;
  BufferPtr validity = ValidityOf(ValidOf(values), &nulls);
  BufferPtr data =
      BytesBuffer(raw.data(), static_cast<int64_t>(raw.size() * sizeof(CType)));
  return MakeArray(ArrayData::Make(std::move(type), static_cast<int64_t>(values.size()),
                                   {validity, data}, nulls));
}

inline ArrayPtr Bools(const std::vector<Opt<bool>>& values) {
  std::vector<uint8_t> bits(bit_util::BytesForBits(static_cast<int64_t>(values.size())),
                            0);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].value_or(false)) bit_util::SetBit(bits.data(), static_cast<int64_t>(i));
  }
  int64_t nulls = 0;
  BufferPtr validity = ValidityOf(ValidOf(values), &nulls);
  return MakeArray(ArrayData::Make(boolean(), static_cast<int64_t>(values.size()),
                                   {validity, BytesBuffer(bits.data(), bits.size())},
                                   nulls));
}

/// \brief The offsets as 64-bit (large types) or 32-bit values.
inline BufferPtr OffsetsBuffer(const std::vector<int64_t>& offsets, bool large) {
  if (large) return BytesBuffer(offsets.data(), offsets.size() * 8);
  std::vector<int32_t> narrow(offsets.begin(), offsets.end());
  return BytesBuffer(narrow.data(), narrow.size() * 4);
}

/// \brief utf8 / binary / large_utf8 / large_binary values.
inline ArrayPtr Strings(DataTypePtr type, const std::vector<Opt<std::string>>& values) {
  const bool large =
      type->id() == TypeId::kLargeUtf8 || type->id() == TypeId::kLargeBinary;
  std::string data;
  std::vector<int64_t> offsets{0};
  for (const auto& v : values) {
    if (v) data += *v;
    offsets.push_back(static_cast<int64_t>(data.size()));
  }
  BufferPtr offsets_buffer = OffsetsBuffer(offsets, large);
  int64_t nulls = 0;
  BufferPtr validity = ValidityOf(ValidOf(values), &nulls);
  return MakeArray(ArrayData::Make(std::move(type), static_cast<int64_t>(values.size()),
                                   {validity, offsets_buffer, BufferOf(data)}, nulls));
}

inline ArrayPtr FixedBinary(int32_t width, const std::vector<Opt<std::string>>& values) {
  std::string data;
  for (const auto& v : values) data += v ? *v : std::string(width, '\0');
  int64_t nulls = 0;
  BufferPtr validity = ValidityOf(ValidOf(values), &nulls);
  return MakeArray(ArrayData::Make(fixed_size_binary(width),
                                   static_cast<int64_t>(values.size()),
                                   {validity, BufferOf(data)}, nulls));
}

/// \brief list / large_list with one slot per entry of `sizes` (nullopt: a null list).
inline ArrayPtr Lists(DataTypePtr type, const std::vector<Opt<int64_t>>& sizes,
                      const ArrayPtr& child) {
  std::vector<int64_t> offsets{0};
  for (const auto& s : sizes) offsets.push_back(offsets.back() + s.value_or(0));
  BufferPtr offsets_buffer = OffsetsBuffer(offsets, type->id() == TypeId::kLargeList);
  int64_t nulls = 0;
  BufferPtr validity = ValidityOf(ValidOf(sizes), &nulls);
  return MakeArray(ArrayData::Make(std::move(type), static_cast<int64_t>(sizes.size()),
                                   {validity, offsets_buffer}, nulls, 0,
                                   {child->data()}));
}

/// \brief fixed_size_list or struct with the given slot validity and children.
inline ArrayPtr Nested(DataTypePtr type, const std::vector<bool>& valid,
                       const std::vector<ArrayPtr>& children) {
  int64_t nulls = 0;
  BufferPtr validity = ValidityOf(valid, &nulls);
  std::vector<ArrayDataPtr> child_data;
  for (const auto& c : children) child_data.push_back(c->data());
  return MakeArray(ArrayData::Make(std::move(type), static_cast<int64_t>(valid.size()),
                                   {validity}, nulls, 0, std::move(child_data)));
}

/// \brief The schema of the pyarrow_types_* goldens (see data/make_golden.py).
inline SchemaPtr TypesSchema() {
  auto nested_struct = struct_({field("a", int64()), field("b", list(utf8()))});
  return schema(
      {
          field("id", int32(), /*nullable=*/false),
          field("b", boolean()),
          field("i8", int8()),
          field("i16", int16()),
          field("i32", int32(), true, {{"lance:k", "v"}}),
          field("i64", int64()),
          field("u8", uint8()),
          field("u16", uint16()),
          field("u32", uint32()),
          field("u64", uint64()),
          field("f16", float16()),
          field("f32", float32()),
          field("f64", float64()),
          field("utf8", utf8()),
          field("large_utf8", large_utf8()),
          field("binary", binary()),
          field("large_binary", large_binary()),
          field("fsb3", fixed_size_binary(3)),
          field("date32", date32()),
          field("ts_s", timestamp(TimeUnit::kSecond)),
          field("ts_ms_tz", timestamp(TimeUnit::kMilli, "America/New_York")),
          field("ts_us_utc", timestamp(TimeUnit::kMicro, "UTC")),
          field("ts_ns", timestamp(TimeUnit::kNano)),
          field("list_i32", list(int32())),
          field("large_list_utf8", large_list(utf8())),
          field("fsl_f32", fixed_size_list(float32(), 2)),
          field("struct", struct_({field("x", int32()), field("y", utf8())})),
          field("nested", list(nested_struct)),
      },
      {{"origin", "make_golden.py"}});
}

/// \brief The 4-row batch of the pyarrow_types_* goldens, value for value.
inline RecordBatchPtr TypesBatch() {
  SchemaPtr s = TypesSchema();
  std::vector<ArrayPtr> columns = {
      Numeric<int32_t>(int32(), {1, 2, 3, 4}),
      Bools({true, kNull, false, true}),
      Numeric<int8_t>(int8(), {-128, kNull, 0, 127}),
      Numeric<int16_t>(int16(), {-32768, kNull, 7, 32767}),
      Numeric<int32_t>(int32(), {INT32_MIN, kNull, 42, INT32_MAX}),
      Numeric<int64_t>(int64(), {INT64_MIN, kNull, 42, INT64_MAX}),
      Numeric<uint8_t>(uint8(), {0, kNull, 200, 255}),
      Numeric<uint16_t>(uint16(), {0, kNull, 40000, 65535}),
      Numeric<uint32_t>(uint32(), {0, kNull, 3000000000u, UINT32_MAX}),
      Numeric<uint64_t>(uint64(), {0, kNull, 10000000000000000000ull, UINT64_MAX}),
      // 1.5, null, -2.0, 0.0 as IEEE half bits.
      Numeric<uint16_t>(float16(), {0x3E00, kNull, 0xC000, 0x0000}),
      Numeric<float>(float32(), {1.5f, kNull, -0.25f, 1024.0f}),
      Numeric<double>(float64(), {1.5, kNull, -0.25, 1e300}),
      Strings(utf8(), {"hello", kNull, "", "w\xc3\xb6rld"}),
      Strings(large_utf8(), {"a", kNull, "bc", "def"}),
      Strings(binary(), {std::string("\x00\x01", 2), kNull, "", "xyz"}),
      Strings(large_binary(), {"", kNull, "\xff", "ab"}),
      FixedBinary(3, {"abc", kNull, "def", std::string("\x00\x01\x02", 3)}),
      Numeric<int32_t>(date32(), {0, kNull, 19000, -1}),
      Numeric<int64_t>(timestamp(TimeUnit::kSecond), {0, kNull, 1700000000, -1}),
      Numeric<int64_t>(timestamp(TimeUnit::kMilli, "America/New_York"),
                       {0, kNull, 1700000000000, -1}),
      Numeric<int64_t>(timestamp(TimeUnit::kMicro, "UTC"),
                       {0, kNull, 1700000000000000, -1}),
      Numeric<int64_t>(timestamp(TimeUnit::kNano), {0, kNull, 1700000000000000000, -1}),
      Lists(list(int32()), {2, kNull, 0, 2}, Numeric<int32_t>(int32(), {1, 2, 3, kNull})),
      Lists(large_list(utf8()), {1, 2, kNull, 0}, Strings(utf8(), {"a", "b", kNull})),
      Nested(fixed_size_list(float32(), 2), {true, false, true, true},
             {Numeric<float>(float32(), {1, 2, 0, 0, 3, kNull, 5, 6})}),
      // pyarrow leaves the children of the null struct slot valid (0 and "").
      Nested(s->field(26)->type(), {true, false, true, true},
             {Numeric<int32_t>(int32(), {1, 0, kNull, 4}),
              Strings(utf8(), {"a", "", "c", kNull})}),
      Lists(s->field(27)->type(), {1, kNull, 2, 0},
            Nested(s->field(27)->type()->value_type(), {true, true, true},
                   {Numeric<int64_t>(int64(), {1, kNull, 3}),
                    Lists(list(utf8()), {1, kNull, 0}, Strings(utf8(), {"x"}))})),
  };
  return std::make_shared<RecordBatch>(s, 4, std::move(columns));
}

/// \brief Asserts that two batches hold the same schema (with metadata) and values,
/// naming the first differing column.
inline void ExpectBatchesEqual(const RecordBatch& expected, const RecordBatch& actual) {
  ASSERT_TRUE(expected.schema()->Equals(*actual.schema(), /*check_metadata=*/true))
      << "expected schema:\n"
      << expected.schema()->ToString() << "\nactual:\n"
      << actual.schema()->ToString();
  ASSERT_EQ(expected.num_rows(), actual.num_rows());
  ASSERT_EQ(expected.num_columns(), actual.num_columns());
  for (int i = 0; i < expected.num_columns(); ++i) {
    EXPECT_TRUE(expected.column(i)->Equals(*actual.column(i)))
        << "column " << expected.schema()->field(i)->name() << "\nexpected "
        << expected.column(i)->ToString() << "\nactual   "
        << actual.column(i)->ToString();
    EXPECT_TRUE(actual.column(i)->Validate().ok())
        << expected.schema()->field(i)->name() << ": " << actual.column(i)->Validate();
  }
}

}  // namespace lance::ipc::testing
