// SPDX-License-Identifier: Apache-2.0
// Helpers for the format tests: random arrays, a JSON rendering of rows shared with the
// pylance helper scripts, tolerant JSON comparison and running those scripts.

#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/core/type.h"
#include "lance/core/visit_type.h"
#include "lance/format/file_reader.h"
#include "lance/macros.h"
#include "lance/result.h"
#include "tests/testing/matchers.h"
#include "tests/testing/python.h"

namespace lance::format::testing {

using nlohmann::json;

inline std::string TestDataDir() { return LANCE_TEST_DATA_DIR; }
inline std::string FormatTestDir() { return LANCE_FORMAT_TEST_DIR; }

// ---------------------------------------------------------------------------------------
// Random data

inline uint16_t FloatToHalf(float f) {
  // Only used on small, exactly representable values (multiples of 1/4 below 1024).
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000;
  const int exp = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  const uint32_t mant = (x >> 13) & 0x3ff;
  if ((x & 0x7fffffff) == 0) return static_cast<uint16_t>(sign);
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exp) << 10) | mant);
}

inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const int exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  float value;
  if (exp == 0) {
    value = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    value = mant ? NAN : INFINITY;
  } else {
    value = std::ldexp(static_cast<float>(mant | 0x400), exp - 25);
  }
  return sign ? -value : value;
}

struct RandomOptions {
  double null_probability = 0.2;
  int max_list_length = 5;
  int max_string_length = 12;
  /// v2.0 cannot store struct validity; round-trip data keeps structs valid by default.
  bool null_structs = false;
};

/// Appends one random slot (null with the given probability) to `builder` of `type`.
inline Status AppendRandom(ArrayBuilder* builder, const DataType& type,
                           std::mt19937_64& rng, const RandomOptions& opts,
                           bool allow_null = true) {
  std::uniform_real_distribution<double> coin(0, 1);
  if (allow_null && coin(rng) < opts.null_probability &&
      (type.id() != TypeId::kStruct || opts.null_structs)) {
    return builder->AppendNull();
  }
  auto small = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  switch (type.id()) {
    case TypeId::kBool:
      return static_cast<BooleanBuilder*>(builder)->Append(small(0, 1) == 1);
    case TypeId::kInt8:
      return static_cast<Int8Builder*>(builder)->Append(
          static_cast<int8_t>(small(-128, 127)));
    case TypeId::kInt16:
      return static_cast<Int16Builder*>(builder)->Append(
          static_cast<int16_t>(small(-30000, 30000)));
    case TypeId::kInt32:
    case TypeId::kDate32:
      return static_cast<Int32Builder*>(builder)->Append(
          static_cast<int32_t>(small(-1000000, 1000000)));
    case TypeId::kInt64:
    case TypeId::kTimestamp:
      return static_cast<Int64Builder*>(builder)->Append(
          static_cast<int64_t>(rng() >> 2) - (1ll << 60));
    case TypeId::kUInt8:
      return static_cast<UInt8Builder*>(builder)->Append(
          static_cast<uint8_t>(small(0, 255)));
    case TypeId::kUInt16:
      return static_cast<UInt16Builder*>(builder)->Append(
          static_cast<uint16_t>(small(0, 65535)));
    case TypeId::kUInt32:
      return static_cast<UInt32Builder*>(builder)->Append(static_cast<uint32_t>(rng()));
    case TypeId::kUInt64:
      return static_cast<UInt64Builder*>(builder)->Append(rng());
    case TypeId::kFloat16:
      return static_cast<UInt16Builder*>(builder)->Append(
          FloatToHalf(static_cast<float>(small(-4000, 4000)) / 4.0f));
    case TypeId::kFloat32:
      return static_cast<FloatBuilder*>(builder)->Append(
          static_cast<float>(small(-1 << 20, 1 << 20)) / 8.0f);
    case TypeId::kFloat64:
      return static_cast<DoubleBuilder*>(builder)->Append(coin(rng) * 1e6 - 5e5);
    case TypeId::kUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: {
      std::string s(static_cast<size_t>(small(0, opts.max_string_length)), ' ');
      const bool text = type.id() == TypeId::kUtf8 || type.id() == TypeId::kLargeUtf8;
      for (char& c : s) c = static_cast<char>(text ? small('a', 'z') : small(0, 255));
      if (type.id() == TypeId::kUtf8 || type.id() == TypeId::kBinary) {
        return static_cast<BaseBinaryBuilder<int32_t>*>(builder)->Append(s);
      }
      return static_cast<BaseBinaryBuilder<int64_t>*>(builder)->Append(s);
    }
    case TypeId::kFixedSizeBinary: {
      std::string s(static_cast<size_t>(type.fixed_size()), ' ');
      for (char& c : s) c = static_cast<char>(small(0, 255));
      return static_cast<FixedSizeBinaryBuilder*>(builder)->Append(s);
    }
    case TypeId::kList:
    case TypeId::kLargeList: {
      ArrayBuilder* child;
      if (type.id() == TypeId::kList) {
        auto* b = static_cast<ListBuilder*>(builder);
        LANCE_RETURN_NOT_OK(b->Append(true));
        child = b->value_builder();
      } else {
        auto* b = static_cast<LargeListBuilder*>(builder);
        LANCE_RETURN_NOT_OK(b->Append(true));
        child = b->value_builder();
      }
      const int64_t n = small(0, opts.max_list_length);
      for (int64_t i = 0; i < n; ++i) {
        LANCE_RETURN_NOT_OK(AppendRandom(child, *type.value_type(), rng, opts,
                                         type.fields()[0]->nullable()));
      }
      return Status::OK();
    }
    case TypeId::kFixedSizeList: {
      auto* b = static_cast<FixedSizeListBuilder*>(builder);
      LANCE_RETURN_NOT_OK(b->Append(true));
      for (int32_t i = 0; i < type.fixed_size(); ++i) {
        LANCE_RETURN_NOT_OK(AppendRandom(b->value_builder(), *type.value_type(), rng,
                                         opts, type.fields()[0]->nullable()));
      }
      return Status::OK();
    }
    case TypeId::kStruct: {
      auto* b = static_cast<StructBuilder*>(builder);
      LANCE_RETURN_NOT_OK(b->Append(true));
      for (int i = 0; i < b->num_fields(); ++i) {
        LANCE_RETURN_NOT_OK(AppendRandom(b->field_builder(i), *type.fields()[i]->type(),
                                         rng, opts, type.fields()[i]->nullable()));
      }
      return Status::OK();
    }
    default:
      // The newer types are exercised by their own tests (roundtrip_test's new-types
      // cases).
      break;
  }
  return Status::NotImplemented("random " + type.ToString());
}

inline Result<ArrayPtr> RandomArray(const DataTypePtr& type, int64_t length,
                                    uint64_t seed, const RandomOptions& opts = {}) {
  std::mt19937_64 rng(seed);
  LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(type));
  for (int64_t i = 0; i < length; ++i) {
    LANCE_RETURN_NOT_OK(AppendRandom(builder.get(), *type, rng, opts));
  }
  return builder->Finish();
}

inline Result<RecordBatchPtr> RandomBatch(const SchemaPtr& schema, int64_t length,
                                          uint64_t seed, const RandomOptions& opts = {}) {
  std::vector<ArrayPtr> columns;
  for (int i = 0; i < schema->num_fields(); ++i) {
    LANCE_ASSIGN_OR_RAISE(
        ArrayPtr a, RandomArray(schema->field(i)->type(), length, seed * 131 + i, opts));
    columns.push_back(std::move(a));
  }
  return RecordBatch::Make(schema, length, std::move(columns));
}

// ---------------------------------------------------------------------------------------
// JSON rendering (the same conventions as tests/format/pylance_helper.py)

inline std::string Hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

/// Slot i of `array`: numbers, bools, strings, binary as lowercase hex, lists as arrays,
/// structs as objects, null as null; date32 as days, timestamp as ticks, float16 as
/// float.
inline json SlotToJson(const Array& array, int64_t i);

/// Slots [begin, end) of `values` as a JSON array.
inline json SlotsToJson(const Array& values, int64_t begin, int64_t end) {
  json out = json::array();
  for (int64_t k = begin; k < end; ++k) out.push_back(SlotToJson(values, k));
  return out;
}

/// Slot `i` of a list or large list as a JSON array of its items.
template <typename ListArrayT>
json ListSlotToJson(const ListArrayT& list, int64_t i) {
  return SlotsToJson(*list.values(), list.value_offset(i), list.value_offset(i + 1));
}

inline json SlotToJson(const Array& array, int64_t i) {
  if (array.IsNull(i)) return nullptr;
  return VisitType(*array.type(), [&](auto traits) -> json {
    using T = decltype(traits);
    constexpr TypeId kId = T::kId;
    if constexpr (kId == TypeId::kNull) {
      return nullptr;
    } else {
      const auto& typed = static_cast<const typename T::ArrayType&>(array);
      if constexpr (kId == TypeId::kFloat16) {
        return static_cast<double>(HalfToFloat(typed.Value(i)));
      } else if constexpr (T::kIsNumeric) {
        // Ints as ints, floats as doubles; dates, times, timestamps and durations as
        // ticks.
        return typed.Value(i);
      } else if constexpr (kId == TypeId::kUtf8 || kId == TypeId::kLargeUtf8) {
        return typed.GetString(i);
      } else if constexpr (T::kIsBaseBinary || kId == TypeId::kFixedSizeBinary) {
        return Hex(typed.GetView(i));
      } else if constexpr (kId == TypeId::kList || kId == TypeId::kLargeList) {
        return ListSlotToJson(typed, i);
      } else if constexpr (kId == TypeId::kFixedSizeList) {
        return SlotsToJson(*typed.values(), typed.value_offset(i),
                           typed.value_offset(i) + typed.list_size());
      } else if constexpr (kId == TypeId::kStruct) {
        json out = json::object();
        for (int f = 0; f < typed.num_fields(); ++f) {
          out[array.type()->fields()[f]->name()] = SlotToJson(*typed.field(f), i);
        }
        return out;
      } else if constexpr (kId == TypeId::kDecimal128 || kId == TypeId::kDecimal256) {
        // Decimals as exact strings.
        return typed.FormatValue(i);
      } else if constexpr (kId == TypeId::kDictionary) {
        // Dictionaries as their values.
        return SlotToJson(*typed.dictionary(), typed.GetValueIndex(i));
      } else if constexpr (kId == TypeId::kMap) {
        // Maps as [[key, value], ...].
        json out = json::array();
        for (int64_t k = typed.value_offset(i); k < typed.value_offset(i + 1); ++k) {
          out.push_back(
              json::array({SlotToJson(*typed.keys(), k), SlotToJson(*typed.items(), k)}));
        }
        return out;
      } else {
        return typed.Value(i);  // bool
      }
    }
  });
}

inline json TableToJsonRows(const Table& table) {
  json rows = json::array();
  for (const auto& batch : table.batches()) {
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      json row = json::object();
      for (int c = 0; c < batch->num_columns(); ++c) {
        row[batch->schema()->field(c)->name()] = SlotToJson(*batch->column(c), r);
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

/// Structural comparison where numbers compare by value (1 == 1.0) and an expected
/// string equals an actual integer with the same decimal spelling (JSON producers that
/// print int64 as strings). Returns "" when equal, else the path of the first difference.
inline std::string JsonDiff(const json& expected, const json& actual,
                            const std::string& path = "$") {
  if (expected.is_number() && actual.is_number()) {
    if (expected.is_number_float() || actual.is_number_float()) {
      const double a = expected.get<double>();
      const double b = actual.get<double>();
      if (a == b || (std::isnan(a) && std::isnan(b))) return "";
      return path + ": " + expected.dump() + " != " + actual.dump();
    }
    return expected == actual ? ""
                              : path + ": " + expected.dump() + " != " + actual.dump();
  }
  if (expected.is_string() && actual.is_number_integer()) {
    return expected.get<std::string>() == actual.dump()
               ? ""
               : path + ": " + expected.dump() + " != " + actual.dump();
  }
  if (expected.type() != actual.type()) {
    return path + ": " + expected.dump().substr(0, 200) +
           " != " + actual.dump().substr(0, 200);
  }
  if (expected.is_array()) {
    if (expected.size() != actual.size()) {
      return path + ": " + std::to_string(expected.size()) +
             " elements != " + std::to_string(actual.size());
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      std::string d =
          JsonDiff(expected[i], actual[i], path + "[" + std::to_string(i) + "]");
      if (!d.empty()) return d;
    }
    return "";
  }
  if (expected.is_object()) {
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      if (!actual.contains(it.key())) return path + "." + it.key() + ": missing";
      std::string d = JsonDiff(it.value(), actual[it.key()], path + "." + it.key());
      if (!d.empty()) return d;
    }
    if (expected.size() != actual.size()) return path + ": extra keys";
    return "";
  }
  return expected == actual ? "" : path + ": " + expected.dump() + " != " + actual.dump();
}

// ---------------------------------------------------------------------------------------
// Python (pylance) helpers

using lance::testing::PythonExecutable;
using lance::testing::RunPython;

/// True when the interpreter can import lance and pyarrow (else the interop tests skip).
inline bool PylanceAvailable(std::string* why) {
  std::string out;
  const int rc = RunPython({"-c", "import lance, pyarrow"}, &out);
  if (rc != 0) *why = "python '" + PythonExecutable() + "' cannot import lance: " + out;
  return rc == 0;
}

inline Result<json> ReadJsonFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IOError("cannot open " + path);
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Invalid("bad JSON in " + path);
  return j;
}

/// \brief Reads the whole file in batches of `batch_size` rows and validates every
/// column, so that a damaged file's bad offsets show up (under the sanitizers too).
/// Returns the first error of the read.
inline Status ReadAllValidating(const LanceFileReader& reader, int64_t batch_size) {
  FileReadOptions ro;
  ro.batch_size = batch_size;
  auto stream = reader.Read(ro);
  if (!stream.ok()) return stream.status();
  while (true) {
    auto batch = (*stream)->Next();
    if (!batch.ok()) return batch.status();
    if (*batch == nullptr) return Status::OK();
    for (const auto& column : (*batch)->columns()) (void)column->Validate();
  }
}

/// Reads `stream` to its end into `*batches`, expecting each batch to hold at most
/// `batch_size` rows; stops with a fatal failure at the first batch that cannot be read
/// (wrap the call in ASSERT_NO_FATAL_FAILURE). A failure is reported at this line.
inline void ReadBatches(RecordBatchReader& stream, int64_t batch_size,
                        std::vector<RecordBatchPtr>* batches) {
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto batch, stream.Next());
    if (!batch) return;
    EXPECT_LE(batch->num_rows(), batch_size);
    batches->push_back(batch);
  }
}

/// The rows of `batches` together.
inline int64_t TotalRows(const std::vector<RecordBatchPtr>& batches) {
  int64_t rows = 0;
  for (const auto& batch : batches) rows += batch->num_rows();
  return rows;
}

}  // namespace lance::format::testing
