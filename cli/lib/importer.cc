// SPDX-License-Identifier: Apache-2.0
#include "lib/importer.h"

#include <iterator>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "lance/core/ascii.h"
#include "lance/core/builder.h"
#include "lance/core/text.h"
#include "lance/macros.h"
#include "lib/csv.h"
#include "lib/input_source.h"
#include "lib/json.h"
#include "lib/scalar_codec.h"
#include "lib/schema_spec.h"

namespace lance::cli {

namespace {

// Spaces and tabs around a cell, and the CR of a CRLF line end.
std::string_view Trim(std::string_view s) { return TrimAscii(s, " \t\r"); }

bool IsSpecialFloatWord(std::string_view s) {
  return s == "NaN" || s == "Infinity" || s == "-Infinity";
}

// --- where a value sits, for error messages
// ---------------------------------------------

struct PathNode {
  const PathNode* parent;
  std::string_view name;  // a field name; empty for a list item
  int64_t index;          // the list index when name is empty
};

std::string RenderPath(const PathNode* node) {
  std::vector<const PathNode*> chain;
  for (; node != nullptr; node = node->parent) chain.push_back(node);
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if ((*it)->name.empty()) {
      out += "[" + std::to_string((*it)->index) + "]";
    } else {
      if (!out.empty()) out.push_back('.');
      out.append((*it)->name);
    }
  }
  return out;
}

Status ValueError(const PathNode* path, const std::string& message) {
  return Status::Invalid("column '", RenderPath(path), "': ", message);
}

Status WithPath(Status st, const PathNode* path) {
  if (st.ok()) return st;
  return ValueError(path, st.message());
}

std::string Describe(const JsonValue& v) {
  switch (v.kind) {
    case JsonValue::Kind::kNumber:
      return "number " + v.text.substr(0, 40);
    case JsonValue::Kind::kString:
      return "string " + QuoteForMessage(v.text);
    case JsonValue::Kind::kBool:
      return v.boolean ? "true" : "false";
    default:
      return JsonKindName(v.kind);
  }
}

// --- appending values
// --------------------------------------------------------------------

template <typename T>
Status AppendParsed(ArrayBuilder* b, Result<T> parsed) {
  if (!parsed.ok()) return parsed.status();
  return static_cast<NumericBuilder<T>*>(b)->Append(*parsed);
}

bool IsStringLike(TypeId id) {
  return id == TypeId::kUtf8 || id == TypeId::kLargeUtf8 || id == TypeId::kBinary ||
         id == TypeId::kLargeBinary;
}

Status AppendBytes(ArrayBuilder* b, TypeId id, std::string_view bytes) {
  if (id == TypeId::kUtf8 || id == TypeId::kBinary) {
    return static_cast<BaseBinaryBuilder<int32_t>*>(b)->Append(bytes);
  }
  return static_cast<BaseBinaryBuilder<int64_t>*>(b)->Append(bytes);
}

Status AppendScalarText(ArrayBuilder* b, const DataType& type, std::string_view text);

// Dictionary columns take the values of their value type; each is encoded as it comes.
// `append` appends one value to a builder of the value type.
template <typename AppendFn>
Status AppendDictionaryValue(ArrayBuilder* b, const DataType& type, AppendFn&& append) {
  LANCE_ASSIGN_OR_RAISE(auto values, MakeBuilder(type.value_type()));
  LANCE_RETURN_NOT_OK(append(values.get()));
  LANCE_ASSIGN_OR_RAISE(auto array, values->Finish());
  return static_cast<DictionaryBuilder*>(b)->AppendValues(*array);
}

// The types whose text parses on its own (no type parameters) into the C type of their
// builder.
template <typename T, Result<T> (*Parse)(std::string_view)>
Status AppendParsedText(ArrayBuilder* b, std::string_view text) {
  return AppendParsed(b, Parse(text));
}

struct TextParser {
  TypeId id;
  Status (*append)(ArrayBuilder* b, std::string_view text);
};
constexpr TextParser kTextParsers[] = {
    {TypeId::kInt8, AppendParsedText<int8_t, ParseInteger<int8_t>>},
    {TypeId::kInt16, AppendParsedText<int16_t, ParseInteger<int16_t>>},
    {TypeId::kInt32, AppendParsedText<int32_t, ParseInteger<int32_t>>},
    {TypeId::kInt64, AppendParsedText<int64_t, ParseInteger<int64_t>>},
    {TypeId::kUInt8, AppendParsedText<uint8_t, ParseInteger<uint8_t>>},
    {TypeId::kUInt16, AppendParsedText<uint16_t, ParseInteger<uint16_t>>},
    {TypeId::kUInt32, AppendParsedText<uint32_t, ParseInteger<uint32_t>>},
    {TypeId::kUInt64, AppendParsedText<uint64_t, ParseInteger<uint64_t>>},
    {TypeId::kFloat16, AppendParsedText<uint16_t, ParseHalf>},
    {TypeId::kFloat32, AppendParsedText<float, ParseFloat>},
    {TypeId::kFloat64, AppendParsedText<double, ParseDouble>},
    {TypeId::kDate32, AppendParsedText<int32_t, ParseDate32>},
    {TypeId::kDate64, AppendParsedText<int64_t, ParseDate64>},
};

// A time of day in ticks of `unit`, from a tick count or a clock time.
Result<int64_t> ParseTimeTicks(std::string_view text, TimeUnit unit) {
  LANCE_ASSIGN_OR_RAISE(auto ticks, LooksLikeInteger(text) ? ParseInteger<int64_t>(text)
                                                           : ParseTimeOfDay(text, unit));
  if (ticks < 0 || ticks >= 86'400 * TicksPerSecond(unit)) {
    return Status::Invalid(QuoteForMessage(text), " is not a time of day");
  }
  return ticks;
}

// A scalar from its text form (a JSON string or number, or a CSV cell).
Status AppendScalarText(ArrayBuilder* b, const DataType& type, std::string_view text) {
  for (const TextParser& parser : kTextParsers) {
    if (parser.id == type.id()) return parser.append(b, text);
  }
  switch (type.id()) {
    case TypeId::kBool:
      if (EqualsIgnoreAsciiCase(text, "true"))
        return static_cast<BooleanBuilder*>(b)->Append(true);
      if (EqualsIgnoreAsciiCase(text, "false")) {
        return static_cast<BooleanBuilder*>(b)->Append(false);
      }
      return Status::Invalid(QuoteForMessage(text), " is not a valid bool");
    case TypeId::kTimestamp:
      return AppendParsed(b, ParseTimestamp(text, type.unit()));
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
      if (!IsValidUtf8(text)) return Status::Invalid("the text is not valid UTF-8");
      return AppendBytes(b, type.id(), text);
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      LANCE_ASSIGN_OR_RAISE(auto bytes, Base64Decode(text));
      return AppendBytes(b, type.id(), bytes);
    }
    case TypeId::kFixedSizeBinary: {
      LANCE_ASSIGN_OR_RAISE(auto bytes, Base64Decode(text));
      if (static_cast<int64_t>(bytes.size()) != type.fixed_size()) {
        return Status::Invalid("base64 value decodes to ", bytes.size(),
                               " bytes, expected ", type.fixed_size());
      }
      return static_cast<FixedSizeBinaryBuilder*>(b)->Append(bytes);
    }
    case TypeId::kNull:
      return Status::Invalid(QuoteForMessage(text),
                             " given for a null column, which only holds nulls");
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      return static_cast<DecimalBuilder*>(b)->AppendDecimalText(text);
    case TypeId::kTime32: {
      LANCE_ASSIGN_OR_RAISE(int64_t ticks, ParseTimeTicks(text, type.unit()));
      return static_cast<Int32Builder*>(b)->Append(static_cast<int32_t>(ticks));
    }
    case TypeId::kTime64: {
      LANCE_ASSIGN_OR_RAISE(int64_t ticks, ParseTimeTicks(text, type.unit()));
      return static_cast<Int64Builder*>(b)->Append(ticks);
    }
    case TypeId::kDuration:
      return AppendParsed(b, ParseInteger<int64_t>(text));
    case TypeId::kDictionary:
      return AppendDictionaryValue(b, type, [&](ArrayBuilder* values) {
        return AppendScalarText(values, *type.value_type(), text);
      });
    default:
      return Status::Invalid("a ", FormatTypeString(type),
                             " value cannot be given as text");
  }
}

Status AppendNullChecked(ArrayBuilder* b, const Field& f, const PathNode* path) {
  if (!f.nullable())
    return ValueError(path, "null or missing value in a non-nullable column");
  return b->AppendNull();
}

Status AppendJson(ArrayBuilder* b, const Field& f, const JsonValue& v,
                  const PathNode* path);

// A map from a JSON object ({"key": value, ...}; keys are text of the key type) or from
// an array of [key, value] pairs (what `scan` prints for non-string keys).
Status AppendJsonMap(ArrayBuilder* b, const DataType& type, const JsonValue& v,
                     const PathNode* path) {
  auto* mb = static_cast<MapBuilder*>(b);
  const Field& key_field = *type.key_field();
  const Field& item_field = *type.item_field();
  LANCE_RETURN_NOT_OK(mb->Append(true));
  const auto append_entry = [&](const JsonValue& key, const JsonValue& item,
                                const PathNode* node) -> Status {
    if (key.is_null()) return ValueError(node, "a map key is null");
    LANCE_RETURN_NOT_OK(AppendJson(mb->key_builder(), key_field, key, node));
    return AppendJson(mb->item_builder(), item_field, item, node);
  };
  if (v.is_object()) {
    for (const auto& [key_text, item] : v.members) {
      PathNode node{path, key_text, 0};
      // Object keys are strings, which every scalar key type reads as its text form
      // (AppendJson takes strings for numbers, dates, decimals ...; bool needs the text
      // parser).
      JsonValue key;
      key.kind = JsonValue::Kind::kString;
      key.text = key_text;
      if (key_field.type()->id() == TypeId::kBool) {
        key.kind = JsonValue::Kind::kBool;
        if (EqualsIgnoreAsciiCase(key_text, "true")) {
          key.boolean = true;
        } else if (!EqualsIgnoreAsciiCase(key_text, "false")) {
          return ValueError(&node, QuoteForMessage(key_text) + " is not a valid bool");
        }
      }
      LANCE_RETURN_NOT_OK(append_entry(key, item, &node));
    }
    return Status::OK();
  }
  for (size_t k = 0; k < v.items.size(); ++k) {
    PathNode node{path, {}, static_cast<int64_t>(k)};
    const JsonValue& pair = v.items[k];
    if (!pair.is_array() || pair.items.size() != 2) {
      return ValueError(&node, "expected a [key, value] pair, got " + Describe(pair));
    }
    LANCE_RETURN_NOT_OK(append_entry(pair.items[0], pair.items[1], &node));
  }
  return Status::OK();
}

// Appends one list (of any list builder) holding the items of the JSON array `v`.
template <typename ListBuilderT>
Status AppendJsonItems(ArrayBuilder* b, const DataType& type, const JsonValue& v,
                       const PathNode* path) {
  auto* lb = static_cast<ListBuilderT*>(b);
  LANCE_RETURN_NOT_OK(lb->Append(true));
  const Field& item = *type.fields()[0];
  for (size_t k = 0; k < v.items.size(); ++k) {
    PathNode node{path, {}, static_cast<int64_t>(k)};
    LANCE_RETURN_NOT_OK(AppendJson(lb->value_builder(), item, v.items[k], &node));
  }
  return Status::OK();
}

Status AppendJson(ArrayBuilder* b, const Field& f, const JsonValue& v,
                  const PathNode* path) {
  if (v.is_null()) return AppendNullChecked(b, f, path);
  const DataType& type = *f.type();
  const auto mismatch = [&] {
    return ValueError(path,
                      "expected " + FormatTypeString(type) + ", got " + Describe(v));
  };
  if (type.is_integer() || type.is_floating()) {
    if (!v.is_number() && !v.is_string()) return mismatch();
    return WithPath(AppendScalarText(b, type, v.text), path);
  }
  switch (type.id()) {
    case TypeId::kBool:
      if (v.kind != JsonValue::Kind::kBool) return mismatch();
      return static_cast<BooleanBuilder*>(b)->Append(v.boolean);
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary:
      if (!v.is_string()) return mismatch();
      return WithPath(AppendScalarText(b, type, v.text), path);
    case TypeId::kDate32:
    case TypeId::kTimestamp:
      // Integers are raw values (days, ticks); strings the printed forms.
      if (v.is_integer_literal()) {
        return WithPath(type.id() == TypeId::kDate32
                            ? AppendParsed(b, ParseInteger<int32_t>(v.text))
                            : AppendParsed(b, ParseInteger<int64_t>(v.text)),
                        path);
      }
      if (!v.is_string()) return mismatch();
      return WithPath(AppendScalarText(b, type, v.text), path);
    case TypeId::kList:
      if (!v.is_array()) return mismatch();
      return AppendJsonItems<BaseListBuilder<int32_t>>(b, type, v, path);
    case TypeId::kLargeList:
      if (!v.is_array()) return mismatch();
      return AppendJsonItems<BaseListBuilder<int64_t>>(b, type, v, path);
    case TypeId::kFixedSizeList: {
      if (!v.is_array()) return mismatch();
      if (static_cast<int64_t>(v.items.size()) != type.fixed_size()) {
        return ValueError(path, "expected " + std::to_string(type.fixed_size()) +
                                    " items, got " + std::to_string(v.items.size()));
      }
      return AppendJsonItems<FixedSizeListBuilder>(b, type, v, path);
    }
    case TypeId::kNull:
      return mismatch();  // only null (handled above) fits
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      // Numbers keep their source text, so both 1.25 and "1.25" convert exactly.
      if (!v.is_number() && !v.is_string()) return mismatch();
      return WithPath(AppendScalarText(b, type, v.text), path);
    case TypeId::kDate64:
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kDuration:
      // Integers are raw values in the type's unit; strings the printed forms.
      if (!v.is_integer_literal() && !v.is_string()) return mismatch();
      if (type.id() == TypeId::kDate64 && v.is_integer_literal()) {
        return WithPath(AppendParsed(b, ParseInteger<int64_t>(v.text)), path);
      }
      return WithPath(AppendScalarText(b, type, v.text), path);
    case TypeId::kDictionary: {
      const Field value_field(f.name(), type.value_type(), /*nullable=*/false);
      return AppendDictionaryValue(b, type, [&](ArrayBuilder* values) {
        return AppendJson(values, value_field, v, path);
      });
    }
    case TypeId::kMap:
      if (!v.is_object() && !v.is_array()) return mismatch();
      return AppendJsonMap(b, type, v, path);
    case TypeId::kStruct: {
      if (!v.is_object()) return mismatch();
      std::vector<const JsonValue*> values(type.fields().size(), nullptr);
      for (const auto& [key, value] : v.members) {
        size_t k = 0;
        while (k < type.fields().size() && type.fields()[k]->name() != key) ++k;
        if (k == type.fields().size()) {
          return ValueError(path, "unknown field " + JsonQuote(key));
        }
        if (values[k] != nullptr)
          return ValueError(path, "duplicate key " + JsonQuote(key));
        values[k] = &value;
      }
      auto* sb = static_cast<StructBuilder*>(b);
      LANCE_RETURN_NOT_OK(sb->Append(true));
      for (size_t k = 0; k < values.size(); ++k) {
        const Field& child = *type.fields()[k];
        PathNode node{path, child.name(), 0};
        ArrayBuilder* cb = sb->field_builder(static_cast<int>(k));
        Status st = values[k] == nullptr ? AppendNullChecked(cb, child, &node)
                                         : AppendJson(cb, child, *values[k], &node);
        if (!st.ok()) return st;
      }
      return Status::OK();
    }
    default:  // numbers are handled above; the other types take no JSON value
      break;
  }
  return mismatch();
}

Status AppendCsvCell(ArrayBuilder* b, const Field& f, const CsvField& cell,
                     const PathNode* path) {
  const DataType& type = *f.type();
  if (cell.text.empty()) {
    if (cell.quoted && IsStringLike(type.id())) return AppendBytes(b, type.id(), "");
    return AppendNullChecked(b, f, path);
  }
  if (type.is_nested()) {
    auto json = ParseJson(cell.text);
    if (!json.ok()) return ValueError(path, json.status().message());
    return AppendJson(b, f, *json, path);
  }
  if (type.id() == TypeId::kUtf8 || type.id() == TypeId::kLargeUtf8) {
    return WithPath(AppendScalarText(b, type, cell.text), path);
  }
  return WithPath(AppendScalarText(b, type, Trim(cell.text)), path);
}

// --- input lines
// -------------------------------------------------------------------------

Status LineError(int64_t line, const Status& st) {
  return Status::Invalid("line ", line, ", ", st.message());
}

Result<JsonValue> ParseJsonRow(std::string_view line, int64_t number) {
  auto row = ParseJson(line);
  if (!row.ok()) {
    return Status::Invalid("line ", number, ": ", row.status().message());
  }
  if (!row->is_object()) {
    return Status::Invalid("line ", number,
                           ": expected a JSON object (one per line), got ",
                           JsonKindName(row->kind));
  }
  return row;
}

Result<std::vector<std::string>> ReadCsvHeader(CsvReader* csv) {
  CsvRecord header;
  LANCE_ASSIGN_OR_RAISE(auto has, csv->Next(&header));
  if (!has) return Status::Invalid("the CSV input is empty (a header row is required)");
  std::vector<std::string> names;
  // A set, not a scan of the names so far: a header of 100k columns must not take
  // minutes (found by fuzzing).
  std::unordered_set<std::string_view> seen;
  names.reserve(header.fields.size());
  for (size_t i = 0; i < header.fields.size(); ++i) {
    const std::string& name = header.fields[i].text;
    if (name.empty()) {
      return Status::Invalid("CSV header: column ", i + 1, " has no name");
    }
    if (!seen.insert(name).second) {
      return Status::Invalid("CSV header: duplicate column ", JsonQuote(name));
    }
    names.push_back(name);
  }
  return names;
}

// --- inference
// ---------------------------------------------------------------------------

struct Inferred {
  enum class Kind : uint8_t { kNull, kBool, kInt, kFloat, kString, kList, kStruct };
  Kind kind = Kind::kNull;
  bool negative = false;     // kInt: some value < 0
  bool above_int64 = false;  // kInt: some value > INT64_MAX
  bool all_special = true;   // kString: every value is "NaN"/"Infinity"/"-Infinity"
  std::unique_ptr<Inferred> item;
  std::vector<std::pair<std::string, std::unique_ptr<Inferred>>> fields;
};

const char* InferredKindName(Inferred::Kind kind) {
  // Each inferred kind is named as the JSON kind it came from (the messages speak of the
  // input), but integers, which JSON does not tell from other numbers. Indexed by Kind.
  using J = JsonValue::Kind;
  static constexpr J kJsonKind[] = {J::kNull,   J::kBool,  J::kNumber, J::kNumber,
                                    J::kString, J::kArray, J::kObject};
  static_assert(std::size(kJsonKind) == static_cast<size_t>(Inferred::Kind::kStruct) + 1);
  if (kind == Inferred::Kind::kInt) return "integer";
  return JsonKindName(kJsonKind[static_cast<size_t>(kind)]);
}

Inferred::Kind KindOf(const JsonValue& v) {
  switch (v.kind) {
    case JsonValue::Kind::kNull:
      return Inferred::Kind::kNull;
    case JsonValue::Kind::kBool:
      return Inferred::Kind::kBool;
    case JsonValue::Kind::kNumber:
      return v.is_integer_literal() ? Inferred::Kind::kInt : Inferred::Kind::kFloat;
    case JsonValue::Kind::kString:
      return Inferred::Kind::kString;
    case JsonValue::Kind::kArray:
      return Inferred::Kind::kList;
    case JsonValue::Kind::kObject:
      return Inferred::Kind::kStruct;
  }
  return Inferred::Kind::kNull;
}

Status Observe(Inferred* node, const JsonValue& v, const PathNode* path) {
  using K = Inferred::Kind;
  K kind = KindOf(v);
  if (kind == K::kNull) return Status::OK();
  if (kind == K::kInt) {
    // Integers beyond uint64 (or below int64) can only be floats.
    if (ParseInteger<int64_t>(v.text).ok()) {
      if (v.text[0] == '-') node->negative = true;
    } else if (ParseInteger<uint64_t>(v.text).ok()) {
      node->above_int64 = true;
    } else {
      kind = K::kFloat;
    }
  }
  const bool special = kind == K::kString && IsSpecialFloatWord(v.text);
  if (node->kind == K::kNull) {
    node->kind = kind;
  } else if (node->kind != kind) {
    const bool numeric_new = kind == K::kInt || kind == K::kFloat;
    const bool numeric_old = node->kind == K::kInt || node->kind == K::kFloat;
    if (numeric_new && numeric_old) {
      node->kind = K::kFloat;
    } else if (numeric_old && special) {
      node->kind = K::kFloat;
    } else if (numeric_new && node->kind == K::kString && node->all_special) {
      node->kind = K::kFloat;
    } else {
      return ValueError(path, std::string("has both ") + InferredKindName(node->kind) +
                                  " and " + InferredKindName(kind) +
                                  " values; pass --schema to say which type it is");
    }
  }
  if (node->kind == K::kString) node->all_special = node->all_special && special;
  if (node->kind == K::kList && v.is_array()) {
    if (!node->item) node->item = std::make_unique<Inferred>();
    for (size_t k = 0; k < v.items.size(); ++k) {
      PathNode child{path, {}, static_cast<int64_t>(k)};
      LANCE_RETURN_NOT_OK(Observe(node->item.get(), v.items[k], &child));
    }
  }
  if (node->kind == K::kStruct && v.is_object()) {
    for (const auto& [key, value] : v.members) {
      Inferred* child = nullptr;
      for (auto& [name, f] : node->fields) {
        if (name == key) child = f.get();
      }
      if (child == nullptr) {
        node->fields.emplace_back(key, std::make_unique<Inferred>());
        child = node->fields.back().second.get();
      }
      PathNode child_path{path, key, 0};
      LANCE_RETURN_NOT_OK(Observe(child, value, &child_path));
    }
  }
  return Status::OK();
}

DataTypePtr ToType(const Inferred& node) {
  using K = Inferred::Kind;
  switch (node.kind) {
    case K::kNull:
      return utf8();
    case K::kBool:
      return boolean();
    case K::kInt:
      if (node.above_int64) return node.negative ? float64() : uint64();
      return int64();
    case K::kFloat:
      return float64();
    case K::kString:
      return utf8();
    case K::kList:
      return list(node.item ? ToType(*node.item) : utf8());
    case K::kStruct: {
      std::vector<FieldPtr> fields;
      for (const auto& [name, child] : node.fields)
        fields.push_back(field(name, ToType(*child)));
      return struct_(std::move(fields));
    }
  }
  return utf8();
}

// How much of the input inference reads: `max_rows` rows (<= 0: all), stopping after the
// row that ends past `max_bytes` bytes read from `replay` (<= 0 or null: no limit).
struct Sample {
  int64_t max_rows = 0;
  int64_t max_bytes = 0;
  const ReplaySource* replay = nullptr;
  int64_t rows = 0;       // out: rows read
  int64_t last_line = 0;  // out: the line of the last row read

  bool Full() const {
    if (max_rows > 0 && rows >= max_rows) return true;
    return replay != nullptr && max_bytes > 0 &&
           static_cast<int64_t>(replay->recorded()) >= max_bytes;
  }
};

Result<SchemaPtr> InferJsonLines(ByteSource* source, Sample* sample) {
  LineReader lines(source);
  std::string_view line;
  int64_t number = 0;
  Inferred root;
  root.kind = Inferred::Kind::kStruct;
  int64_t rows = 0;
  while (!sample->Full()) {
    LANCE_ASSIGN_OR_RAISE(auto more, lines.Next(&line, &number));
    if (!more) break;
    LANCE_ASSIGN_OR_RAISE(auto row, ParseJsonRow(line, number));
    for (size_t i = 0; i < row.members.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (row.members[j].first == row.members[i].first) {
          return Status::Invalid("line ", number, ": duplicate key ",
                                 JsonQuote(row.members[i].first));
        }
      }
    }
    if (Status st = Observe(&root, row, nullptr); !st.ok()) return LineError(number, st);
    ++rows;
    sample->rows = rows;
    sample->last_line = number;
  }
  if (rows == 0) {
    return Status::Invalid("the input has no rows to infer a schema from; pass --schema");
  }
  if (root.fields.empty()) return Status::Invalid("the input rows have no keys");
  return schema(ToType(root)->fields());
}

Result<SchemaPtr> InferCsv(ByteSource* source, Sample* sample) {
  CsvReader csv(source);
  LANCE_ASSIGN_OR_RAISE(auto names, ReadCsvHeader(&csv));
  struct Stats {
    bool any = false, all_int64 = true, all_uint64 = true, all_number = true,
         all_bool = true;
  };
  std::vector<Stats> stats(names.size());
  CsvRecord record;
  while (!sample->Full()) {
    LANCE_ASSIGN_OR_RAISE(auto has, csv.Next(&record));
    if (!has) break;
    ++sample->rows;
    sample->last_line = record.line;
    if (record.fields.size() != names.size()) {
      return Status::Invalid("line ", record.line, ": expected ", names.size(),
                             " fields, got ", record.fields.size());
    }
    for (size_t c = 0; c < names.size(); ++c) {
      const std::string_view value = Trim(record.fields[c].text);
      if (record.fields[c].text.empty())
        continue;  // null (or "" which is null unless utf8)
      Stats& s = stats[c];
      s.any = true;
      if (s.all_int64 && !ParseInteger<int64_t>(value).ok()) s.all_int64 = false;
      if (s.all_uint64 && !ParseInteger<uint64_t>(value).ok()) s.all_uint64 = false;
      if (s.all_number && !ParseDouble(value).ok()) s.all_number = false;
      if (s.all_bool && !EqualsIgnoreAsciiCase(value, "true") &&
          !EqualsIgnoreAsciiCase(value, "false")) {
        s.all_bool = false;
      }
    }
  }
  std::vector<FieldPtr> fields;
  for (size_t c = 0; c < names.size(); ++c) {
    const Stats& s = stats[c];
    DataTypePtr type = utf8();
    if (!s.any) {
      type = utf8();
    } else if (s.all_int64) {
      type = int64();
    } else if (s.all_uint64) {
      type = uint64();
    } else if (s.all_number) {
      type = float64();
    } else if (s.all_bool) {
      type = boolean();
    }
    fields.push_back(field(names[c], type));
  }
  return schema(std::move(fields));
}

}  // namespace

// --- formats
// -----------------------------------------------------------------------------

Result<InputFormat> ParseInputFormat(std::string_view name) {
  if (name == "csv") return InputFormat::kCsv;
  if (name == "jsonl" || name == "ndjson" || name == "json")
    return InputFormat::kJsonLines;
  if (name == "arrow" || name == "ipc" || name == "feather") return InputFormat::kArrow;
  if (name == "arrows" || name == "arrow-stream") return InputFormat::kArrowStream;
  if (name == "parquet") return InputFormat::kParquet;
  return Status::Invalid("unknown input format ", JsonQuote(name),
                         " (expected csv, jsonl, arrow, arrows or parquet)");
}

Result<InputFormat> InputFormatFromPath(std::string_view path) {
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  if (dot != std::string_view::npos && (slash == std::string_view::npos || dot > slash)) {
    std::string ext(path.substr(dot + 1));
    for (char& c : ext) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    auto format = ParseInputFormat(ext);
    if (format.ok()) return format;
  }
  return Status::Invalid(
      "cannot tell the format of ", JsonQuote(path),
      " from its extension; pass --format csv, jsonl, arrow or arrows");
}

Result<SchemaPtr> InferSchema(std::string_view text, InputFormat format) {
  if (!IsTextFormat(format))
    return Status::Invalid("schema inference reads CSV or JSON lines");
  StringSource source{std::string(text)};
  Sample all;
  return format == InputFormat::kCsv ? InferCsv(&source, &all)
                                     : InferJsonLines(&source, &all);
}

// --- the reader
// --------------------------------------------------------------------------

class ImportReader::Impl {
 public:
  Impl(ByteSource* source, ImportOptions options)
      : source_(source), options_(std::move(options)) {}
  Impl(std::string text, ImportOptions options)
      : owned_(std::make_unique<StringSource>(std::move(text))),
        source_(owned_.get()),
        options_(std::move(options)) {}

  Status Init() {
    if (!IsTextFormat(options_.format)) {
      return Status::Invalid("only CSV and JSON lines are converted from text");
    }
    ByteSource* input = source_;
    if (!options_.schema) {
      // Infer from a sample, which is kept and read again for the conversion.
      replay_ = std::make_unique<ReplaySource>(source_);
      sample_.max_rows = options_.infer_rows;
      sample_.max_bytes = options_.infer_bytes;
      sample_.replay = replay_.get();
      LANCE_ASSIGN_OR_RAISE(auto inferred, options_.format == InputFormat::kCsv
                                               ? InferCsv(replay_.get(), &sample_)
                                               : InferJsonLines(replay_.get(), &sample_));
      options_.schema = inferred;
      replay_->Rewind();
      input = replay_.get();
      inferred_ = true;
    }
    if (options_.format == InputFormat::kCsv) {
      csv_ = std::make_unique<CsvReader>(input);
    } else {
      lines_ = std::make_unique<LineReader>(input);
    }
    if (options_.batch_rows <= 0) options_.batch_rows = 8192;
    const Schema& s = *options_.schema;
    for (int i = 0; i < s.num_fields(); ++i) {
      field_index_.emplace(s.field(i)->name(), i);
      LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(s.field(i)->type()));
      builders_.push_back(std::move(builder));
    }
    if (options_.format == InputFormat::kCsv) {
      LANCE_ASSIGN_OR_RAISE(auto names, ReadCsvHeader(csv_.get()));
      csv_width_ = names.size();
      std::vector<bool> present(static_cast<size_t>(s.num_fields()), false);
      for (const auto& name : names) {
        auto it = field_index_.find(name);
        if (it == field_index_.end()) {
          return Status::Invalid("CSV header: column ", JsonQuote(name),
                                 " is not in the schema");
        }
        csv_columns_.push_back(it->second);
        present[static_cast<size_t>(it->second)] = true;
      }
      for (int i = 0; i < s.num_fields(); ++i) {
        if (!present[static_cast<size_t>(i)]) csv_missing_.push_back(i);
      }
    }
    return Status::OK();
  }

  const SchemaPtr& schema() const { return options_.schema; }
  int64_t rows_read() const { return rows_read_; }
  int64_t rows_sampled() const { return inferred_ ? sample_.rows : 0; }

  Result<RecordBatchPtr> Next() {
    if (!error_.ok()) return error_;
    if (done_) return RecordBatchPtr();
    int64_t rows = 0;
    int64_t text_bytes = 0;  // input text of the rows in this batch
    while (rows < options_.batch_rows &&
           (options_.batch_bytes <= 0 || text_bytes < options_.batch_bytes)) {
      row_bytes_ = 0;
      auto more = ReadRow();
      if (!more.ok()) {
        error_ = more.status();
        return error_;
      }
      if (!*more) {
        done_ = true;
        break;
      }
      ++rows;
      text_bytes += row_bytes_;
    }
    if (rows == 0) return RecordBatchPtr();
    std::vector<ArrayPtr> columns;
    for (auto& b : builders_) {
      LANCE_ASSIGN_OR_RAISE(auto array, b->Finish());
      columns.push_back(array);
    }
    LANCE_ASSIGN_OR_RAISE(auto batch,
                          RecordBatch::Make(options_.schema, rows, std::move(columns)));
    rows_read_ += rows;
    return batch;
  }

 private:
  const Field& FieldAt(int i) const { return *options_.schema->field(i); }

  Result<bool> ReadRow() {
    return options_.format == InputFormat::kCsv ? ReadCsvRow() : ReadJsonRow();
  }

  // A row past the inference sample that does not fit the inferred types: say where
  // the types came from.
  Status AfterSample(int64_t line, Status st) const {
    if (!inferred_ || line <= sample_.last_line || sample_.rows == 0) return st;
    return Status::Invalid(st.message(), " (the types were inferred from the first ",
                           sample_.rows, " row", sample_.rows == 1 ? "" : "s",
                           ", up to line ", sample_.last_line,
                           "; pass --schema, or a larger --infer-rows)");
  }

  Result<bool> ReadJsonRow() {
    std::string_view line;
    int64_t number = 0;
    LANCE_ASSIGN_OR_RAISE(auto more, lines_->Next(&line, &number));
    if (!more) return false;
    row_bytes_ = static_cast<int64_t>(line.size());
    LANCE_ASSIGN_OR_RAISE(auto row, ParseJsonRow(line, number));
    std::vector<const JsonValue*> values(builders_.size(), nullptr);
    for (const auto& [key, value] : row.members) {
      auto it = field_index_.find(key);
      if (it == field_index_.end()) {
        return AfterSample(number,
                           Status::Invalid("line ", number, ": column ", JsonQuote(key),
                                           " is not in the schema"));
      }
      const auto i = static_cast<size_t>(it->second);
      if (values[i] != nullptr) {
        return Status::Invalid("line ", number, ": duplicate key ", JsonQuote(key));
      }
      values[i] = &value;
    }
    for (size_t i = 0; i < values.size(); ++i) {
      const Field& f = FieldAt(static_cast<int>(i));
      PathNode path{nullptr, f.name(), 0};
      Status st = values[i] == nullptr
                      ? AppendNullChecked(builders_[i].get(), f, &path)
                      : AppendJson(builders_[i].get(), f, *values[i], &path);
      if (!st.ok()) return AfterSample(number, LineError(number, st));
    }
    return true;
  }

  Result<bool> ReadCsvRow() {
    LANCE_ASSIGN_OR_RAISE(auto has, csv_->Next(&record_));
    if (!has) return false;
    if (record_.fields.size() != csv_width_) {
      return Status::Invalid("line ", record_.line, ": expected ", csv_width_,
                             " fields, got ", record_.fields.size());
    }
    for (const auto& field : record_.fields) {
      row_bytes_ += static_cast<int64_t>(field.text.size()) + 1;
    }
    for (size_t c = 0; c < csv_width_; ++c) {
      const int i = csv_columns_[c];
      const Field& f = FieldAt(i);
      PathNode path{nullptr, f.name(), 0};
      Status st = AppendCsvCell(builders_[static_cast<size_t>(i)].get(), f,
                                record_.fields[c], &path);
      if (!st.ok()) return AfterSample(record_.line, LineError(record_.line, st));
    }
    for (int i : csv_missing_) {
      const Field& f = FieldAt(i);
      PathNode path{nullptr, f.name(), 0};
      Status st = AppendNullChecked(builders_[static_cast<size_t>(i)].get(), f, &path);
      if (!st.ok()) return LineError(record_.line, st);
    }
    return true;
  }

  std::unique_ptr<ByteSource> owned_;
  ByteSource* source_;
  ImportOptions options_;
  std::unique_ptr<ReplaySource> replay_;
  Sample sample_;
  bool inferred_ = false;
  std::unique_ptr<LineReader> lines_;
  std::unique_ptr<CsvReader> csv_;
  CsvRecord record_;
  size_t csv_width_ = 0;
  std::vector<int> csv_columns_;  // CSV column -> schema field
  std::vector<int> csv_missing_;  // schema fields without a CSV column
  std::unordered_map<std::string, int> field_index_;
  std::vector<std::unique_ptr<ArrayBuilder>> builders_;
  int64_t rows_read_ = 0;
  int64_t row_bytes_ = 0;  // input text of the row just read
  bool done_ = false;
  Status error_;
};

ImportReader::ImportReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ImportReader::~ImportReader() = default;

Result<std::unique_ptr<ImportReader>> ImportReader::Make(ByteSource* source,
                                                         ImportOptions options) {
  auto impl = std::make_unique<Impl>(source, std::move(options));
  LANCE_RETURN_NOT_OK(impl->Init());
  return std::unique_ptr<ImportReader>(new ImportReader(std::move(impl)));
}

Result<std::unique_ptr<ImportReader>> ImportReader::Make(std::string text,
                                                         ImportOptions options) {
  auto impl = std::make_unique<Impl>(std::move(text), std::move(options));
  LANCE_RETURN_NOT_OK(impl->Init());
  return std::unique_ptr<ImportReader>(new ImportReader(std::move(impl)));
}

SchemaPtr ImportReader::schema() const { return impl_->schema(); }
Result<RecordBatchPtr> ImportReader::Next() { return impl_->Next(); }
int64_t ImportReader::rows_read() const { return impl_->rows_read(); }
int64_t ImportReader::rows_sampled() const { return impl_->rows_sampled(); }

Result<TablePtr> ImportText(std::string text, ImportOptions options) {
  LANCE_ASSIGN_OR_RAISE(auto reader,
                        ImportReader::Make(std::move(text), std::move(options)));
  return reader->ToTable();
}

}  // namespace lance::cli
