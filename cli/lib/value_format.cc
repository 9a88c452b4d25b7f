// SPDX-License-Identifier: Apache-2.0
#include "lib/value_format.h"

#include <charconv>

#include "lance/core/decimal.h"
#include "lance/core/temporal.h"
#include "lib/json.h"
#include "lib/scalar_codec.h"

namespace lance::cli {

namespace {

template <typename T>
void AppendInteger(T value, std::string* out) {
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, res.ptr);
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
  switch (array.type_id()) {
    case TypeId::kBool:
      out->append(static_cast<const BooleanArray&>(array).Value(i) ? "true" : "false");
      return;
    case TypeId::kInt8:
      AppendInteger(AsNumeric<int8_t>(array).Value(i), out);
      return;
    case TypeId::kInt16:
      AppendInteger(AsNumeric<int16_t>(array).Value(i), out);
      return;
    case TypeId::kInt32:
      AppendInteger(AsNumeric<int32_t>(array).Value(i), out);
      return;
    case TypeId::kInt64:
      AppendInteger(AsNumeric<int64_t>(array).Value(i), out);
      return;
    case TypeId::kUInt8:
      AppendInteger(AsNumeric<uint8_t>(array).Value(i), out);
      return;
    case TypeId::kUInt16:
      AppendInteger(AsNumeric<uint16_t>(array).Value(i), out);
      return;
    case TypeId::kUInt32:
      AppendInteger(AsNumeric<uint32_t>(array).Value(i), out);
      return;
    case TypeId::kUInt64:
      AppendInteger(AsNumeric<uint64_t>(array).Value(i), out);
      return;
    case TypeId::kFloat16:
      AppendFloatText(FormatHalf(AsNumeric<uint16_t>(array).Value(i)), out);
      return;
    case TypeId::kFloat32:
      AppendFloatText(FormatFloat(AsNumeric<float>(array).Value(i)), out);
      return;
    case TypeId::kFloat64:
      AppendFloatText(FormatDouble(AsNumeric<double>(array).Value(i)), out);
      return;
    case TypeId::kUtf8:
      AppendJsonString(static_cast<const StringArray&>(array).GetView(i), out);
      return;
    case TypeId::kLargeUtf8:
      AppendJsonString(static_cast<const LargeStringArray&>(array).GetView(i), out);
      return;
    case TypeId::kBinary:
      out->push_back('"');
      out->append(Base64Encode(static_cast<const BinaryArray&>(array).GetView(i)));
      out->push_back('"');
      return;
    case TypeId::kLargeBinary:
      out->push_back('"');
      out->append(Base64Encode(static_cast<const LargeBinaryArray&>(array).GetView(i)));
      out->push_back('"');
      return;
    case TypeId::kFixedSizeBinary:
      out->push_back('"');
      out->append(
          Base64Encode(static_cast<const FixedSizeBinaryArray&>(array).GetView(i)));
      out->push_back('"');
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
    case TypeId::kTime32:
      out->push_back('"');
      AppendIsoTimeOfDay(AsNumeric<int32_t>(array).Value(i), array.type()->unit(), out);
      out->push_back('"');
      return;
    case TypeId::kTime64:
      out->push_back('"');
      AppendIsoTimeOfDay(AsNumeric<int64_t>(array).Value(i), array.type()->unit(), out);
      out->push_back('"');
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
