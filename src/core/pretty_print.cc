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

// The characters with a short escape; other control bytes are escaped as \xHH.
struct ShortEscape {
  char c;
  const char* escaped;
};
constexpr ShortEscape kShortEscapes[] = {
    {'"', "\\\""}, {'\\', "\\\\"}, {'\n', "\\n"}, {'\t', "\\t"}, {'\r', "\\r"},
};

const char* ShortEscapeOf(char c) {
  for (const ShortEscape& e : kShortEscapes) {
    if (e.c == c) return e.escaped;
  }
  return nullptr;
}

void AppendQuoted(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->push_back('"');
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (const char* escaped = ShortEscapeOf(c)) {
      out->append(escaped);
    } else if (u < 0x20 || u == 0x7f) {
      // Bytes >= 0x80 pass through so that UTF-8 text stays readable.
      out->append("\\x");
      out->push_back(kHex[u >> 4]);
      out->push_back(kHex[u & 0xf]);
    } else {
      out->push_back(c);
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

// Scalar types whose slot renders from the slot alone; the others need the printer
// (nested, dictionary) or are handled in AppendValue.
using ScalarAppender = void (*)(const ArrayData& data, int64_t i, std::string* out);

// A slot read as a T and rendered by Render, alone or with the type (units, zones).
template <typename T, void (*Render)(T, std::string*)>
void AppendAt(const ArrayData& data, int64_t i, std::string* out) {
  Render(ValueAt<T>(data, i), out);
}
template <typename T, void (*Render)(T, const DataType&, std::string*)>
void AppendTypedAt(const ArrayData& data, int64_t i, std::string* out) {
  Render(ValueAt<T>(data, i), *data.type, out);
}
// A variable-length slot rendered by Render.
template <typename OffsetT, void (*Render)(std::string_view, std::string*)>
void AppendViewAt(const ArrayData& data, int64_t i, std::string* out) {
  Render(BinaryView<OffsetT>(data, i), out);
}

void AppendHalfFloat(uint16_t bits, std::string* out) {
  AppendFloat(HalfToFloat(bits), out);
}
template <typename T>
void AppendTimeOfDay(T value, const DataType& type, std::string* out) {
  AppendIsoTimeOfDay(value, type.unit(), out);
}

struct ScalarPrinter {
  TypeId id;
  ScalarAppender append;
};
constexpr ScalarPrinter kScalarPrinters[] = {
    {TypeId::kInt8, AppendAt<int8_t, AppendInteger>},
    {TypeId::kInt16, AppendAt<int16_t, AppendInteger>},
    {TypeId::kInt32, AppendAt<int32_t, AppendInteger>},
    {TypeId::kInt64, AppendAt<int64_t, AppendInteger>},
    {TypeId::kUInt8, AppendAt<uint8_t, AppendInteger>},
    {TypeId::kUInt16, AppendAt<uint16_t, AppendInteger>},
    {TypeId::kUInt32, AppendAt<uint32_t, AppendInteger>},
    {TypeId::kUInt64, AppendAt<uint64_t, AppendInteger>},
    {TypeId::kFloat16, AppendAt<uint16_t, AppendHalfFloat>},
    {TypeId::kFloat32, AppendAt<float, AppendFloat>},
    {TypeId::kFloat64, AppendAt<double, AppendFloat>},
    {TypeId::kDate32, AppendAt<int32_t, AppendDate32>},
    {TypeId::kDate64, AppendAt<int64_t, AppendDate64>},
    {TypeId::kTimestamp, AppendTypedAt<int64_t, AppendTimestamp>},
    {TypeId::kTime32, AppendTypedAt<int32_t, AppendTimeOfDay>},
    {TypeId::kTime64, AppendTypedAt<int64_t, AppendTimeOfDay>},
    {TypeId::kUtf8, AppendViewAt<int32_t, AppendQuoted>},
    {TypeId::kLargeUtf8, AppendViewAt<int64_t, AppendQuoted>},
    {TypeId::kBinary, AppendViewAt<int32_t, AppendHex>},
    {TypeId::kLargeBinary, AppendViewAt<int64_t, AppendHex>},
};

ScalarAppender ScalarAppenderOf(TypeId id) {
  for (const ScalarPrinter& printer : kScalarPrinters) {
    if (printer.id == id) return printer.append;
  }
  return nullptr;
}

class Printer {
 public:
  explicit Printer(const PrettyPrintOptions& options) : options_(options) {}

  // Renders slots [start, start + length) of `data` (indices relative to its offset).
  void AppendRange(const ArrayData& data, int64_t start, int64_t length,
                   std::string* out) {
    out->push_back('[');
    AppendElided(length, out, [&](int64_t k) { AppendValue(data, start + k, out); });
    out->push_back(']');
  }

  void AppendValue(const ArrayData& data, int64_t i, std::string* out) {
    if (!data.IsValid(i)) {
      out->append("null");
      return;
    }
    const DataType& type = *data.type;
    if (ScalarAppender append = ScalarAppenderOf(type.id())) return append(data, i, out);
    switch (type.id()) {
      case TypeId::kBool:
        out->append(bit_util::GetBit(data.buffers[1]->data(), data.offset + i) ? "true"
                                                                               : "false");
        return;
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
      case TypeId::kDuration:
        AppendInteger(ValueAt<int64_t>(data, i), out);
        out->append(TimeUnitSuffix(type.unit()));
        return;
      case TypeId::kDictionary:
        // Slots read as the values they stand for.
        return AppendValue(*data.dictionary, IntegerValueAt(data, i), out);
      case TypeId::kMap:
        return AppendMap(data, i, out);
      default:  // the scalar types of kScalarPrinters, rendered above
        return;
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
    out->push_back('{');
    AppendElided(offsets[i + 1] - begin, out, [&](int64_t k) {
      const int64_t slot = entries.offset + begin + k;
      AppendValue(keys, slot, out);
      out->append(": ");
      AppendValue(items, slot, out);
    });
    out->push_back('}');
  }

  // Items 0..length-1, comma separated, through append_item(k); beyond twice the window
  // only the first and last `window` items, with "..." between.
  template <typename AppendItem>
  void AppendElided(int64_t length, std::string* out, const AppendItem& append_item) {
    const int64_t window = options_.window;
    const bool elide = window >= 0 && length > 2 * window;
    for (int64_t k = 0; k < length; ++k) {
      if (elide && k == window) {
        out->append(", ...");
        k = length - window - 1;
        continue;
      }
      if (k > 0) out->append(", ");
      append_item(k);
    }
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
