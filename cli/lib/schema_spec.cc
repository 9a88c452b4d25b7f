// SPDX-License-Identifier: Apache-2.0
#include "lib/schema_spec.h"

#include <charconv>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lance/macros.h"
#include "lib/json.h"

namespace lance::cli {

namespace {

constexpr char kExpectedTimeUnit[] = "expected a time unit (s, ms, us, ns)";

// The unit a type spec names by its suffix (s, ms, us, ns, as types print it).
std::optional<TimeUnit> UnitNamed(std::string_view name) {
  for (TimeUnit unit :
       {TimeUnit::kSecond, TimeUnit::kMilli, TimeUnit::kMicro, TimeUnit::kNano}) {
    if (name == TimeUnitSuffix(unit)) return unit;
  }
  return std::nullopt;
}

bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }

// The scalar types by name; the first name of each type is the one AppendType prints.
constexpr std::pair<const char*, DataTypePtr (*)()> kScalars[] = {
    {"bool", boolean},
    {"boolean", boolean},
    {"int8", int8},
    {"int16", int16},
    {"int32", int32},
    {"int64", int64},
    {"uint8", uint8},
    {"uint16", uint16},
    {"uint32", uint32},
    {"uint64", uint64},
    {"float16", float16},
    {"halffloat", float16},
    {"float32", float32},
    {"float", float32},
    {"float64", float64},
    {"double", float64},
    {"utf8", utf8},
    {"string", utf8},
    {"large_utf8", large_utf8},
    {"large_string", large_utf8},
    {"binary", binary},
    {"large_binary", large_binary},
    {"date32", date32},
    {"date64", date64},
    {"null", null},
};

DataTypePtr ScalarByName(std::string_view name) {
  for (const auto& [n, make] : kScalars) {
    if (name == n) return make();
  }
  return nullptr;
}

/// \brief The name of a scalar type `id`; nullptr for the types with parameters.
const char* ScalarName(TypeId id) {
  for (const auto& [n, make] : kScalars) {
    if (make()->id() == id) return n;
  }
  return nullptr;
}

class TypeParser {
 public:
  explicit TypeParser(std::string_view text) : s_(text) {}

  Result<DataTypePtr> ParseAll() {
    LANCE_ASSIGN_OR_RAISE(auto t, ParseType(0));
    SkipSpace();
    if (pos_ != s_.size()) return Error("unexpected text after the type");
    return t;
  }

 private:
  Status Error(const std::string& what) const {
    return Status::Invalid("invalid type ", JsonQuote(s_), " at column ", pos_ + 1, ": ",
                           what);
  }

  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' ||
                                s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Peek(char c) {
    SkipSpace();
    return pos_ < s_.size() && s_[pos_] == c;
  }

  Status Expect(char c) {
    if (!Peek(c)) return Error(std::string("expected '") + c + "'");
    ++pos_;
    return Status::OK();
  }

  std::string Identifier() {
    SkipSpace();
    const size_t start = pos_;
    if (pos_ < s_.size() && IsIdentStart(s_[pos_])) {
      while (pos_ < s_.size() && IsIdentChar(s_[pos_])) ++pos_;
    }
    return std::string(s_.substr(start, pos_ - start));
  }

  // An optionally negative int32 (a decimal scale).
  Result<int32_t> SignedInt(const char* what) {
    SkipSpace();
    const size_t start = pos_;
    if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) ++pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    int32_t value = 0;
    const size_t digits = start < s_.size() && s_[start] == '+' ? start + 1 : start;
    auto res = std::from_chars(s_.data() + digits, s_.data() + pos_, value);
    if (digits == pos_ || res.ec != std::errc() || res.ptr != s_.data() + pos_) {
      pos_ = start;
      return Error(std::string("expected an integer ") + what);
    }
    return value;
  }

  Result<int32_t> PositiveInt(const char* what) {
    SkipSpace();
    const size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    int32_t value = 0;
    auto res = std::from_chars(s_.data() + start, s_.data() + pos_, value);
    if (start == pos_ || res.ec != std::errc() || value <= 0) {
      pos_ = start;
      return Error(std::string("expected a positive ") + what);
    }
    return value;
  }

  // "not null" after an item or member type.
  bool NotNull() {
    SkipSpace();
    const size_t save = pos_;
    if (Identifier() == "not" && Identifier() == "null") return true;
    pos_ = save;
    return false;
  }

  Result<DataTypePtr> ParseType(int depth) {
    if (depth > 64) return Error("types nested deeper than 64 levels");
    SkipSpace();
    const size_t start = pos_;
    const std::string name = Identifier();
    if (name.empty()) return Error("expected a type name");
    if (DataTypePtr scalar = ScalarByName(name)) return scalar;
    if (name == "fixed_size_binary") {
      LANCE_RETURN_NOT_OK(Expect('['));
      LANCE_ASSIGN_OR_RAISE(auto width, PositiveInt("byte width"));
      LANCE_RETURN_NOT_OK(Expect(']'));
      return fixed_size_binary(width);
    }
    if (name == "timestamp") return ParseTimestampRest();
    if (name == "decimal128" || name == "decimal256" || name == "decimal") {
      return ParseDecimalRest(name, start);
    }
    if (name == "time32" || name == "time64" || name == "duration") {
      return ParseUnitTypeRest(name, start);
    }
    if (name == "dictionary") return ParseDictionaryRest(depth);
    if (name == "map") return ParseMapRest(depth);
    if (name == "list" || name == "large_list" || name == "fixed_size_list") {
      LANCE_RETURN_NOT_OK(Expect('<'));
      LANCE_ASSIGN_OR_RAISE(auto item, ParseType(depth + 1));
      const bool not_null = NotNull();
      FieldPtr item_field = field("item", item, !not_null);
      if (name == "fixed_size_list") {
        LANCE_RETURN_NOT_OK(Expect(','));
        LANCE_ASSIGN_OR_RAISE(auto size, PositiveInt("list size"));
        LANCE_RETURN_NOT_OK(Expect('>'));
        return fixed_size_list(item_field, size);
      }
      LANCE_RETURN_NOT_OK(Expect('>'));
      return name == "list" ? list(item_field) : large_list(item_field);
    }
    if (name == "struct") return ParseStructRest(depth);
    pos_ = start;
    return Error("unknown type '" + name + "'");
  }

  // "(precision, scale)"; "decimal" picks decimal128 up to 38 digits, else decimal256.
  Result<DataTypePtr> ParseDecimalRest(const std::string& name, size_t start) {
    LANCE_RETURN_NOT_OK(Expect('('));
    LANCE_ASSIGN_OR_RAISE(auto precision, PositiveInt("precision"));
    LANCE_RETURN_NOT_OK(Expect(','));
    LANCE_ASSIGN_OR_RAISE(auto scale, SignedInt("scale"));
    LANCE_RETURN_NOT_OK(Expect(')'));
    const bool wide = name == "decimal256" ||
                      (name == "decimal" && precision > kMaxDecimal128Precision);
    DataTypePtr type = wide ? decimal256(precision, scale) : decimal128(precision, scale);
    if (Status st = ValidateTypeParameters(*type); !st.ok()) {
      pos_ = start;
      return Error(st.message());
    }
    return type;
  }

  Result<TimeUnit> UnitInBrackets() {
    LANCE_RETURN_NOT_OK(Expect('['));
    const size_t at = pos_;
    const std::optional<TimeUnit> unit = UnitNamed(Identifier());
    if (!unit) {
      pos_ = at;
      return Error(kExpectedTimeUnit);
    }
    LANCE_RETURN_NOT_OK(Expect(']'));
    return *unit;
  }

  // time32[s|ms], time64[us|ns], duration[s|ms|us|ns].
  Result<DataTypePtr> ParseUnitTypeRest(const std::string& name, size_t start) {
    LANCE_ASSIGN_OR_RAISE(auto unit, UnitInBrackets());
    if (name == "duration") return duration(unit);
    DataTypePtr type = name == "time32" ? time32(unit) : time64(unit);
    if (Status st = ValidateTypeParameters(*type); !st.ok()) {
      pos_ = start;
      return Error(name == "time32" ? "time32 takes the unit s or ms"
                                    : "time64 takes the unit us or ns");
    }
    return type;
  }

  // dictionary<values=T[, indices=I][, ordered[=0|1]]> in any order (Arrow prints
  // "dictionary<values=utf8, indices=int32, ordered=0>"); indices default to int32.
  Result<DataTypePtr> ParseDictionaryRest(int depth) {
    LANCE_RETURN_NOT_OK(Expect('<'));
    DataTypePtr values;
    DataTypePtr indices = int32();
    bool ordered = false;
    while (true) {
      const size_t at = pos_;
      const std::string key = Identifier();
      if (key == "values" || key == "indices") {
        LANCE_RETURN_NOT_OK(Expect('='));
        const size_t type_at = pos_;
        LANCE_ASSIGN_OR_RAISE(auto type, ParseType(depth + 1));
        if (key == "indices" && !type->is_integer()) {
          pos_ = type_at;
          return Error("dictionary indices must be an integer type");
        }
        (key == "values" ? values : indices) = type;
      } else if (key == "ordered") {
        ordered = true;
        if (Peek('=')) {
          ++pos_;
          SkipSpace();
          if (pos_ < s_.size() && (s_[pos_] == '0' || s_[pos_] == '1')) {
            ordered = s_[pos_] == '1';
            ++pos_;
          } else {
            return Error("expected 0 or 1 after 'ordered='");
          }
        }
      } else {
        pos_ = at;
        return Error("expected values=, indices= or ordered");
      }
      if (Peek(',')) {
        ++pos_;
        continue;
      }
      LANCE_RETURN_NOT_OK(Expect('>'));
      break;
    }
    if (!values) return Error("a dictionary needs values=<type>");
    return dictionary(indices, values, ordered);
  }

  // map<K, V [not null][, keys_sorted]>; keys are never null.
  Result<DataTypePtr> ParseMapRest(int depth) {
    LANCE_RETURN_NOT_OK(Expect('<'));
    LANCE_ASSIGN_OR_RAISE(auto key, ParseType(depth + 1));
    NotNull();  // keys are non-nullable anyway
    LANCE_RETURN_NOT_OK(Expect(','));
    LANCE_ASSIGN_OR_RAISE(auto item, ParseType(depth + 1));
    const bool not_null = NotNull();
    bool keys_sorted = false;
    if (Peek(',')) {
      ++pos_;
      const size_t at = pos_;
      if (Identifier() != "keys_sorted") {
        pos_ = at;
        return Error("expected keys_sorted");
      }
      keys_sorted = true;
    }
    LANCE_RETURN_NOT_OK(Expect('>'));
    return map(field("key", key, false), field("value", item, !not_null), keys_sorted);
  }

  Result<DataTypePtr> ParseTimestampRest() {
    LANCE_RETURN_NOT_OK(Expect('['));
    const std::optional<TimeUnit> unit = UnitNamed(Identifier());
    if (!unit) return Error(kExpectedTimeUnit);
    std::string tz;
    if (Peek(',')) {
      ++pos_;
      SkipSpace();
      if (s_.substr(pos_, 3) == "tz=") pos_ += 3;
      const size_t start = pos_;
      while (pos_ < s_.size() && s_[pos_] != ']') ++pos_;
      std::string_view zone = s_.substr(start, pos_ - start);
      while (!zone.empty() && (zone.back() == ' ' || zone.back() == '\t')) {
        zone.remove_suffix(1);
      }
      if (zone.empty()) return Error("expected a timezone after ','");
      tz = std::string(zone);
    }
    LANCE_RETURN_NOT_OK(Expect(']'));
    return timestamp(*unit, tz);
  }

  Result<std::string> MemberName() {
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '"') {
      // A JSON string: find its end, honouring escapes.
      size_t end = pos_ + 1;
      while (end < s_.size() && s_[end] != '"') end += s_[end] == '\\' ? 2 : 1;
      if (end >= s_.size()) return Error("unterminated field name");
      auto parsed = ParseJson(s_.substr(pos_, end + 1 - pos_));
      if (!parsed.ok()) return Error("invalid quoted field name");
      pos_ = end + 1;
      return parsed->text;
    }
    std::string name = Identifier();
    if (name.empty()) return Error("expected a field name");
    return name;
  }

  Result<DataTypePtr> ParseStructRest(int depth) {
    LANCE_RETURN_NOT_OK(Expect('<'));
    std::vector<FieldPtr> fields;
    std::set<std::string> seen;
    if (Peek('>')) {
      ++pos_;
      return struct_(std::move(fields));
    }
    while (true) {
      const size_t name_pos = pos_;
      LANCE_ASSIGN_OR_RAISE(auto name, MemberName());
      if (!seen.insert(name).second) {
        pos_ = name_pos;
        return Error("duplicate field name " + JsonQuote(name));
      }
      LANCE_RETURN_NOT_OK(Expect(':'));
      LANCE_ASSIGN_OR_RAISE(auto type, ParseType(depth + 1));
      const bool not_null = NotNull();
      fields.push_back(field(name, type, !not_null));
      if (Peek(',')) {
        ++pos_;
        continue;
      }
      LANCE_RETURN_NOT_OK(Expect('>'));
      return struct_(std::move(fields));
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

bool IsPlainIdentifier(const std::string& name) {
  if (name.empty() || !IsIdentStart(name[0])) return false;
  for (char c : name) {
    if (!IsIdentChar(c)) return false;
  }
  // Names that would read as the "not null" marker stay quoted.
  return name != "not" && name != "null";
}

void AppendType(const DataType& type, std::string* out);

void AppendItem(const FieldPtr& f, std::string* out) {
  AppendType(*f->type(), out);
  if (!f->nullable()) out->append(" not null");
}

// How the spec of a type with parameters opens (its name and bracket).
const char* Opening(TypeId id) {
  static constexpr std::pair<TypeId, const char*> kOpenings[] = {
      {TypeId::kList, "list<"},
      {TypeId::kLargeList, "large_list<"},
      {TypeId::kFixedSizeList, "fixed_size_list<"},
      {TypeId::kDecimal128, "decimal128("},
      {TypeId::kDecimal256, "decimal256("},
      {TypeId::kTime32, "time32["},
      {TypeId::kTime64, "time64["},
      {TypeId::kDuration, "duration["},
  };
  for (const auto& [type_id, opening] : kOpenings) {
    if (type_id == id) return opening;
  }
  return "";
}

void AppendType(const DataType& type, std::string* out) {
  if (const char* name = ScalarName(type.id())) {
    out->append(name);
    return;
  }
  switch (type.id()) {
    case TypeId::kFixedSizeBinary:
      out->append("fixed_size_binary[" + std::to_string(type.fixed_size()) + "]");
      return;
    case TypeId::kTimestamp:
      out->append(std::string("timestamp[") + TimeUnitSuffix(type.unit()));
      if (!type.timezone().empty()) out->append(", " + type.timezone());
      out->push_back(']');
      return;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
      out->append(Opening(type.id()));
      AppendItem(type.fields()[0], out);
      if (type.id() == TypeId::kFixedSizeList) {
        out->append(", " + std::to_string(type.fixed_size()));
      }
      out->push_back('>');
      return;
    case TypeId::kStruct:
      out->append("struct<");
      for (int i = 0; i < type.num_fields(); ++i) {
        if (i > 0) out->append(", ");
        const FieldPtr& f = type.fields()[static_cast<size_t>(i)];
        out->append(IsPlainIdentifier(f->name()) ? f->name() : JsonQuote(f->name()));
        out->append(": ");
        AppendItem(f, out);
      }
      out->push_back('>');
      return;
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      out->append(Opening(type.id()));
      out->append(std::to_string(type.precision()) + ", " + std::to_string(type.scale()) +
                  ")");
      return;
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kDuration:
      out->append(Opening(type.id()));
      out->append(TimeUnitSuffix(type.unit()));
      out->push_back(']');
      return;
    case TypeId::kDictionary:
      out->append("dictionary<values=");
      AppendType(*type.value_type(), out);
      out->append(", indices=");
      AppendType(*type.index_type(), out);
      if (type.ordered()) out->append(", ordered");
      out->push_back('>');
      return;
    case TypeId::kMap:
      // Entry names are Arrow's defaults when read back ("entries", "key", "value").
      out->append("map<");
      AppendType(*type.key_type(), out);
      out->append(", ");
      AppendItem(type.item_field(), out);
      if (type.keys_sorted()) out->append(", keys_sorted");
      out->push_back('>');
      return;
    default:  // the scalars, named above
      return;
  }
}

}  // namespace

Result<DataTypePtr> ParseTypeString(std::string_view text) {
  return TypeParser(text).ParseAll();
}

std::string FormatTypeString(const DataType& type) {
  std::string out;
  AppendType(type, &out);
  return out;
}

Result<SchemaPtr> ParseSchemaJson(std::string_view json) {
  auto doc = ParseJson(json);
  if (!doc.ok()) return doc.status().WithContext("reading the schema file");
  const JsonValue* list = &*doc;
  if (list->is_object()) {
    list = doc->Find("schema");
    if (list == nullptr) list = doc->Find("fields");
    if (list == nullptr) {
      return Status::Invalid(
          "schema file: expected a list of fields, or an object with "
          "a \"schema\" list");
    }
  }
  if (!list->is_array()) return Status::Invalid("schema file: expected a list of fields");
  std::vector<FieldPtr> fields;
  std::set<std::string> seen;
  for (size_t i = 0; i < list->items.size(); ++i) {
    const JsonValue& entry = list->items[i];
    const std::string where = "schema file: field #" + std::to_string(i + 1);
    if (!entry.is_object()) return Status::Invalid(where, " is not an object");
    for (const auto& [key, value] : entry.members) {
      if (key != "name" && key != "type" && key != "nullable" && key != "metadata") {
        return Status::Invalid(where, ": unknown key ", JsonQuote(key));
      }
    }
    const JsonValue* name = entry.Find("name");
    const JsonValue* type = entry.Find("type");
    const JsonValue* nullable = entry.Find("nullable");
    if (name == nullptr || !name->is_string() || name->text.empty()) {
      return Status::Invalid(where, ": \"name\" must be a non-empty string");
    }
    if (type == nullptr || !type->is_string()) {
      return Status::Invalid(where, " (", JsonQuote(name->text),
                             "): \"type\" must be a string");
    }
    if (nullable != nullptr && nullable->kind != JsonValue::Kind::kBool) {
      return Status::Invalid(where, " (", JsonQuote(name->text),
                             "): \"nullable\" must be true or false");
    }
    if (!seen.insert(name->text).second) {
      return Status::Invalid("schema file: duplicate field name ", JsonQuote(name->text));
    }
    auto parsed = ParseTypeString(type->text);
    if (!parsed.ok()) {
      return parsed.status().WithContext("schema file, field " + JsonQuote(name->text));
    }
    fields.push_back(
        field(name->text, *parsed, nullable == nullptr || nullable->boolean));
  }
  if (fields.empty()) return Status::Invalid("schema file: no fields");
  return schema(std::move(fields));
}

JsonDoc SchemaJson(const Schema& s) {
  JsonDoc out = JsonDoc::array();
  for (const FieldPtr& f : s.fields()) {
    out.push_back(JsonDoc{{"name", f->name()},
                          {"type", FormatTypeString(*f->type())},
                          {"nullable", f->nullable()}});
  }
  return out;
}

std::string FormatSchemaJson(const Schema& s) { return DumpJson(SchemaJson(s)); }

}  // namespace lance::cli
