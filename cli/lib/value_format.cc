// SPDX-License-Identifier: Apache-2.0
#include "lib/value_format.h"

#include "lance/core/decimal.h"
#include "lance/core/temporal.h"
#include "lance/str_cat.h"
#include "lib/json.h"
#include "lib/scalar_codec.h"

namespace lance::cli {

namespace {

// A function to take the address of (kJsonAppenders); StrAppend writes integers with
// std::to_chars.
template <typename T>
void AppendInteger(T value, std::string* out) {
  StrAppend(out, value);
}

template <typename T>
const NumericArray<T>& AsNumeric(const Array& array) {
  return static_cast<const NumericArray<T>&>(array);
}

// A float rendered for JSON: numbers bare, non-finite values as strings.
void AppendFloatText(const std::string& text, std::string* out) {
  const bool is_number = !text.empty() && text[0] != 'N' && text[0] != 'I' &&
                         !(text[0] == '-' && text.size() > 1 && text[1] == 'I');
  if (is_number) {
    out->append(text);
  } else {
    out->push_back('"');
    out->append(text);
    out->push_back('"');
  }
}

template <typename ListT>
void AppendListJson(const Array& array, int64_t i, std::string* out) {
  const auto& list = static_cast<const ListT&>(array);
  const Array& values = *list.values();
  const int64_t begin = list.value_offset(i);
  const int64_t end = begin + list.value_length(i);
  out->push_back('[');
  for (int64_t k = begin; k < end; ++k) {
    if (k > begin) out->push_back(',');
    AppendJsonValue(values, k, out);
  }
  out->push_back(']');
}

void AppendQuotedAscii(const std::string& text, std::string* out) {
  out->push_back('"');
  out->append(text);
  out->push_back('"');
}

// Types whose slots render from their value alone, one function per type.
using JsonAppender = void (*)(const Array& array, int64_t i, std::string* out);

// The value of slot i of an ArrayT: a number, or a view of its bytes.
template <typename ArrayT>
auto SlotOf(const Array& array, int64_t i) {
  const auto& typed = static_cast<const ArrayT&>(array);
  if constexpr (requires { typed.GetView(i); }) {
    return typed.GetView(i);
  } else {
    return typed.Value(i);
  }
}

// Slot i of an ArrayT, rendered by Render.
template <typename ArrayT, auto Render>
void AppendSlot(const Array& array, int64_t i, std::string* out) {
  Render(SlotOf<ArrayT>(array, i), out);
}

template <typename T, std::string (*Format)(T)>
void AppendFormattedFloat(T value, std::string* out) {
  AppendFloatText(Format(value), out);
}

// Bytes as a base64 string.
void AppendBase64(std::string_view bytes, std::string* out) {
  AppendQuotedAscii(Base64Encode(bytes), out);
}

template <typename T>
void AppendTimeOfDayJson(const Array& array, int64_t i, std::string* out) {
  out->push_back('"');
  AppendIsoTimeOfDay(AsNumeric<T>(array).Value(i), array.type()->unit(), out);
  out->push_back('"');
}

struct JsonAppenderOfType {
  TypeId id;
  JsonAppender append;
};
constexpr JsonAppenderOfType kJsonAppenders[] = {
    {TypeId::kInt8, AppendSlot<NumericArray<int8_t>, AppendInteger<int8_t>>},
    {TypeId::kInt16, AppendSlot<NumericArray<int16_t>, AppendInteger<int16_t>>},
    {TypeId::kInt32, AppendSlot<NumericArray<int32_t>, AppendInteger<int32_t>>},
    {TypeId::kInt64, AppendSlot<NumericArray<int64_t>, AppendInteger<int64_t>>},
    {TypeId::kUInt8, AppendSlot<NumericArray<uint8_t>, AppendInteger<uint8_t>>},
    {TypeId::kUInt16, AppendSlot<NumericArray<uint16_t>, AppendInteger<uint16_t>>},
    {TypeId::kUInt32, AppendSlot<NumericArray<uint32_t>, AppendInteger<uint32_t>>},
    {TypeId::kUInt64, AppendSlot<NumericArray<uint64_t>, AppendInteger<uint64_t>>},
    {TypeId::kFloat16,
     AppendSlot<NumericArray<uint16_t>, AppendFormattedFloat<uint16_t, FormatHalf>>},
    {TypeId::kFloat32,
     AppendSlot<NumericArray<float>, AppendFormattedFloat<float, FormatFloat>>},
    {TypeId::kFloat64,
     AppendSlot<NumericArray<double>, AppendFormattedFloat<double, FormatDouble>>},
    {TypeId::kUtf8, AppendSlot<StringArray, AppendJsonString>},
    {TypeId::kLargeUtf8, AppendSlot<LargeStringArray, AppendJsonString>},
    {TypeId::kBinary, AppendSlot<BinaryArray, AppendBase64>},
    {TypeId::kLargeBinary, AppendSlot<LargeBinaryArray, AppendBase64>},
    {TypeId::kFixedSizeBinary, AppendSlot<FixedSizeBinaryArray, AppendBase64>},
    {TypeId::kTime32, AppendTimeOfDayJson<int32_t>},
    {TypeId::kTime64, AppendTimeOfDayJson<int64_t>},
};

JsonAppender JsonAppenderOf(TypeId id) {
  for (const JsonAppenderOfType& entry : kJsonAppenders) {
    if (entry.id == id) return entry.append;
  }
  return nullptr;
}

// Maps with string keys as JSON objects; any other key type as [[key, value], ...].
void AppendMapJson(const Array& array, int64_t i, std::string* out) {
  const auto& m = static_cast<const MapArray&>(array);
  const Array& keys = *m.keys();
  const Array& items = *m.items();
  const int64_t begin = m.value_offset(i);
  const int64_t end = begin + m.value_length(i);
  const TypeId key_id = keys.type_id();
  const bool as_object = key_id == TypeId::kUtf8 || key_id == TypeId::kLargeUtf8;
  out->push_back(as_object ? '{' : '[');
  for (int64_t k = begin; k < end; ++k) {
    if (k > begin) out->push_back(',');
    if (as_object) {
      AppendJsonValue(keys, k, out);
      out->push_back(':');
      AppendJsonValue(items, k, out);
    } else {
      out->push_back('[');
      AppendJsonValue(keys, k, out);
      out->push_back(',');
      AppendJsonValue(items, k, out);
      out->push_back(']');
    }
  }
  out->push_back(as_object ? '}' : ']');
}

// Control characters as JSON-style escapes so that the text stays on one line; quotes
// and backslashes as they are.
std::string EscapeForDisplay(std::string_view s) {
  std::string json;
  AppendJsonString(s, &json);
  std::string out;
  out.reserve(json.size());
  for (size_t k = 1; k + 1 < json.size(); ++k) {
    if (json[k] == '\\' && (json[k + 1] == '"' || json[k + 1] == '\\')) ++k;
    out.push_back(json[k]);
  }
  return out;
}

}  // namespace

void AppendJsonValue(const Array& array, int64_t i, std::string* out) {
  if (array.IsNull(i)) {
    out->append("null");
    return;
  }
  if (JsonAppender append = JsonAppenderOf(array.type_id())) return append(array, i, out);
  switch (array.type_id()) {
    case TypeId::kBool:
      out->append(static_cast<const BooleanArray&>(array).Value(i) ? "true" : "false");
      return;
    case TypeId::kDate32:
      out->push_back('"');
      AppendIsoDate(AsNumeric<int32_t>(array).Value(i), out);
      out->push_back('"');
      return;
    case TypeId::kTimestamp:
      out->push_back('"');
      // In the column's zone with its offset (docs/cli.md, "Time zones").
      AppendIsoTimestamp(AsNumeric<int64_t>(array).Value(i), array.type()->unit(),
                         array.type()->timezone(), 'T', out);
      out->push_back('"');
      return;
    case TypeId::kList:
      AppendListJson<ListArray>(array, i, out);
      return;
    case TypeId::kLargeList:
      AppendListJson<LargeListArray>(array, i, out);
      return;
    case TypeId::kFixedSizeList: {
      const auto& list = static_cast<const FixedSizeListArray&>(array);
      const Array& values = *list.values();
      const int64_t begin = list.value_offset(i);
      out->push_back('[');
      for (int64_t k = 0; k < list.list_size(); ++k) {
        if (k > 0) out->push_back(',');
        AppendJsonValue(values, begin + k, out);
      }
      out->push_back(']');
      return;
    }
    case TypeId::kStruct: {
      const auto& st = static_cast<const StructArray&>(array);
      const auto& fields = array.type()->fields();
      out->push_back('{');
      for (int f = 0; f < st.num_fields(); ++f) {
        if (f > 0) out->push_back(',');
        AppendJsonString(fields[static_cast<size_t>(f)]->name(), out);
        out->push_back(':');
        AppendJsonValue(*st.field(f), i, out);
      }
      out->push_back('}');
      return;
    }
    case TypeId::kNull:
      out->append("null");  // unreachable: every slot is null
      return;
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      // A string, so that no JSON reader rounds the value through a double.
      AppendQuotedAscii(static_cast<const DecimalArray&>(array).FormatValue(i), out);
      return;
    case TypeId::kDate64:
      AppendQuotedAscii(FormatDate64(AsNumeric<int64_t>(array).Value(i)), out);
      return;
    case TypeId::kDuration:
      // An integer count of the column's unit (the unit is in the schema).
      AppendInteger(AsNumeric<int64_t>(array).Value(i), out);
      return;
    case TypeId::kDictionary: {
      const auto& dict = static_cast<const DictionaryArray&>(array);
      AppendJsonValue(*dict.dictionary(), dict.GetValueIndex(i), out);
      return;
    }
    case TypeId::kMap:
      AppendMapJson(array, i, out);
      return;
    default:  // the types of kJsonAppenders, rendered above
      return;
  }
}

void AppendJsonRow(const RecordBatch& batch, int64_t row, std::string* out) {
  const Schema& schema = *batch.schema();
  out->push_back('{');
  for (int c = 0; c < batch.num_columns(); ++c) {
    if (c > 0) out->push_back(',');
    AppendJsonString(schema.field(c)->name(), out);
    out->push_back(':');
    AppendJsonValue(*batch.column(c), row, out);
  }
  out->push_back('}');
}

std::string FormatTextValue(const Array& array, int64_t i) {
  if (array.IsNull(i)) return "null";
  if (array.type_id() == TypeId::kDictionary) {
    // The value the slot stands for, rendered as a value of the dictionary's type.
    const auto& dict = static_cast<const DictionaryArray&>(array);
    return FormatTextValue(*dict.dictionary(), dict.GetValueIndex(i));
  }
  if (array.type_id() == TypeId::kUtf8) {
    return EscapeForDisplay(static_cast<const StringArray&>(array).GetView(i));
  }
  if (array.type_id() == TypeId::kLargeUtf8) {
    return EscapeForDisplay(static_cast<const LargeStringArray&>(array).GetView(i));
  }
  std::string json;
  AppendJsonValue(array, i, &json);
  switch (array.type_id()) {
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary:
    case TypeId::kDate32:
    case TypeId::kTimestamp:
    case TypeId::kDate64:
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      // Drop the JSON quotes (these values contain no characters that need escaping).
      if (json.size() >= 2 && json.front() == '"') return json.substr(1, json.size() - 2);
      return json;
    default:
      return json;
  }
}

}  // namespace lance::cli
