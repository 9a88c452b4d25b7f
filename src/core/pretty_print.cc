// SPDX-License-Identifier: Apache-2.0

#include "lance/core/pretty_print.h"

#include <charconv>
#include <cmath>
#include <string>

#include "lance/core/decimal.h"
#include "lance/core/float16.h"
#include "lance/core/temporal.h"

namespace lance {

namespace {

// Dates beyond roughly +-27,000 years print as raw numbers, as they always have (such
// values are almost always garbage, and a raw number shows that better than a huge year).
constexpr int64_t kMaxRenderableDays = 10'000'000;

template <typename T>
void AppendFloat(T value, std::string* out) {
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, result.ptr);
}

template <typename T>
void AppendInteger(T value, std::string* out) {
  char buf[32];
  auto result = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, result.ptr);
}

void AppendDate32(int32_t days, std::string* out) {
  if (days > kMaxRenderableDays || days < -kMaxRenderableDays) {
    AppendInteger(days, out);
    return;
  }
  AppendIsoDate(days, out);
}

// In the column's zone with its offset, like the CLI (docs/cli.md, "Time zones").
void AppendTimestamp(int64_t value, const DataType& type, std::string* out) {
  const int64_t days =
      FloorDiv(FloorDiv(value, TicksPerSecond(type.unit())), kSecondsPerDay);
  if (days > kMaxRenderableDays || days < -kMaxRenderableDays) {
    AppendInteger(value, out);
    return;
  }
  AppendIsoTimestamp(value, type.unit(), type.timezone(), ' ', out);
}

void AppendDate64(int64_t millis, std::string* out) {
  constexpr int64_t kMillisPerDay = 86'400'000;
  if (millis % kMillisPerDay == 0) {
    const int64_t days = millis / kMillisPerDay;
    if (days <= kMaxRenderableDays && days >= -kMaxRenderableDays) {
      AppendIsoDate(days, out);
      return;
    }
  }
  // Not a whole day (invalid in Arrow): show the instant rather than hide the remainder.
  AppendTimestamp(millis, *timestamp(TimeUnit::kMilli), out);
}

void AppendQuoted(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->push_back('"');
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\r':
        out->append("\\r");
        break;
      default:
        // Bytes >= 0x80 pass through so that UTF-8 text stays readable.
        if (u < 0x20 || u == 0x7f) {
          out->append("\\x");
          out->push_back(kHex[u >> 4]);
          out->push_back(kHex[u & 0xf]);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

void AppendHex(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->append("x'");
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    out->push_back(kHex[u >> 4]);
    out->push_back(kHex[u & 0xf]);
  }
  out->push_back('\'');
}

template <typename OffsetT>
std::string_view BinaryView(const ArrayData& data, int64_t i) {
  const OffsetT* offsets = data.buffers[1]->data_as<OffsetT>() + data.offset;
  const OffsetT begin = offsets[i];
  const OffsetT end = offsets[i + 1];
  if (begin == end) return {};
  return {reinterpret_cast<const char*>(data.buffers[2]->data()) + begin,
          static_cast<size_t>(end - begin)};
}

template <typename T>
T ValueAt(const ArrayData& data, int64_t i) {
  return data.buffers[1]->data_as<T>()[data.offset + i];
}

class Printer {
 public:
  explicit Printer(const PrettyPrintOptions& options) : options_(options) {}

  // Renders slots [start, start + length) of `data` (indices relative to its offset).
  void AppendRange(const ArrayData& data, int64_t start, int64_t length,
                   std::string* out) {
    out->push_back('[');
    const int64_t window = options_.window;
    const bool elide = window >= 0 && length > 2 * window;
    for (int64_t k = 0; k < length; ++k) {
      if (elide && k == window) {
        out->append(", ...");
        k = length - window - 1;
        continue;
      }
      if (k > 0) out->append(", ");
      AppendValue(data, start + k, out);
    }
    out->push_back(']');
  }

  void AppendValue(const ArrayData& data, int64_t i, std::string* out) {
    if (!data.IsValid(i)) {
      out->append("null");
      return;
    }
    const DataType& type = *data.type;
    switch (type.id()) {
      case TypeId::kBool:
        out->append(bit_util::GetBit(data.buffers[1]->data(), data.offset + i) ? "true"
                                                                               : "false");
        return;
      case TypeId::kInt8:
        return AppendInteger(ValueAt<int8_t>(data, i), out);
      case TypeId::kInt16:
        return AppendInteger(ValueAt<int16_t>(data, i), out);
      case TypeId::kInt32:
        return AppendInteger(ValueAt<int32_t>(data, i), out);
      case TypeId::kInt64:
        return AppendInteger(ValueAt<int64_t>(data, i), out);
      case TypeId::kUInt8:
        return AppendInteger(ValueAt<uint8_t>(data, i), out);
      case TypeId::kUInt16:
        return AppendInteger(ValueAt<uint16_t>(data, i), out);
      case TypeId::kUInt32:
        return AppendInteger(ValueAt<uint32_t>(data, i), out);
      case TypeId::kUInt64:
        return AppendInteger(ValueAt<uint64_t>(data, i), out);
      case TypeId::kFloat16:
        return AppendFloat(HalfToFloat(ValueAt<uint16_t>(data, i)), out);
      case TypeId::kFloat32:
        return AppendFloat(ValueAt<float>(data, i), out);
      case TypeId::kFloat64:
        return AppendFloat(ValueAt<double>(data, i), out);
      case TypeId::kDate32:
        return AppendDate32(ValueAt<int32_t>(data, i), out);
      case TypeId::kTimestamp:
        return AppendTimestamp(ValueAt<int64_t>(data, i), type, out);
      case TypeId::kUtf8:
        return AppendQuoted(BinaryView<int32_t>(data, i), out);
      case TypeId::kLargeUtf8:
        return AppendQuoted(BinaryView<int64_t>(data, i), out);
      case TypeId::kBinary:
        return AppendHex(BinaryView<int32_t>(data, i), out);
      case TypeId::kLargeBinary:
        return AppendHex(BinaryView<int64_t>(data, i), out);
      case TypeId::kFixedSizeBinary: {
        const int64_t width = type.fixed_size();
        const auto* bytes = data.buffers[1]->data() + (data.offset + i) * width;
        return AppendHex(
            {reinterpret_cast<const char*>(bytes), static_cast<size_t>(width)}, out);
      }
      case TypeId::kList:
        return AppendList<int32_t>(data, i, out);
      case TypeId::kLargeList:
        return AppendList<int64_t>(data, i, out);
      case TypeId::kFixedSizeList: {
        const int64_t size = type.fixed_size();
        return AppendRange(*data.children[0], (data.offset + i) * size, size, out);
      }
      case TypeId::kStruct: {
        out->push_back('{');
        for (int f = 0; f < type.num_fields(); ++f) {
          if (f > 0) out->append(", ");
          out->append(type.fields()[f]->name());
          out->append(": ");
          AppendValue(*data.children[f], data.offset + i, out);
        }
        out->push_back('}');
        return;
      }
      case TypeId::kNull:
        out->append("null");
        return;
      case TypeId::kDecimal128:
      case TypeId::kDecimal256: {
        const int width = type.byte_width();
        out->append(FormatDecimal(data.buffers[1]->data() + (data.offset + i) * width,
                                  width, type.scale()));
        return;
      }
      case TypeId::kDate64:
        return AppendDate64(ValueAt<int64_t>(data, i), out);
      case TypeId::kTime32:
        return AppendIsoTimeOfDay(ValueAt<int32_t>(data, i), type.unit(), out);
      case TypeId::kTime64:
        return AppendIsoTimeOfDay(ValueAt<int64_t>(data, i), type.unit(), out);
      case TypeId::kDuration:
        AppendInteger(ValueAt<int64_t>(data, i), out);
        out->append(TimeUnitSuffix(type.unit()));
        return;
      case TypeId::kDictionary:
        // Slots read as the values they stand for.
        return AppendValue(*data.dictionary, IntegerValueAt(data, i), out);
      case TypeId::kMap:
        return AppendMap(data, i, out);
    }
  }

 private:
  template <typename OffsetT>
  void AppendList(const ArrayData& data, int64_t i, std::string* out) {
    const OffsetT* offsets = data.buffers[1]->data_as<OffsetT>() + data.offset;
    AppendRange(*data.children[0], offsets[i], offsets[i + 1] - offsets[i], out);
  }

  // {key: value, ...}, elided like lists.
  void AppendMap(const ArrayData& data, int64_t i, std::string* out) {
    const int32_t* offsets = data.buffers[1]->data_as<int32_t>() + data.offset;
    const ArrayData& entries = *data.children[0];
    const ArrayData& keys = *entries.children[0];
    const ArrayData& items = *entries.children[1];
    const int64_t begin = offsets[i];
    const int64_t length = offsets[i + 1] - begin;
    const int64_t window = options_.window;
    const bool elide = window >= 0 && length > 2 * window;
    out->push_back('{');
    for (int64_t k = 0; k < length; ++k) {
      if (elide && k == window) {
        out->append(", ...");
        k = length - window - 1;
        continue;
      }
      if (k > 0) out->append(", ");
      const int64_t slot = entries.offset + begin + k;
      AppendValue(keys, slot, out);
      out->append(": ");
      AppendValue(items, slot, out);
    }
    out->push_back('}');
  }

  const PrettyPrintOptions& options_;
};

}  // namespace

std::string PrettyPrint(const Array& array, const PrettyPrintOptions& options) {
  std::string out;
  Printer(options).AppendRange(*array.data(), 0, array.length(), &out);
  return out;
}

std::string FormatValue(const Array& array, int64_t i,
                        const PrettyPrintOptions& options) {
  std::string out;
  Printer(options).AppendValue(*array.data(), i, &out);
  return out;
}

}  // namespace lance
