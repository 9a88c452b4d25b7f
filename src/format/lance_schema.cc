// SPDX-License-Identifier: Apache-2.0
// LanceSchema and Lance logical type strings.

#include "lance/format/lance_schema.h"

#include <charconv>
#include <limits>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "lance/macros.h"

namespace lance::format {

// ---------------------------------------------------------------------------------------
// Logical type strings

namespace {

// Lance stores fixed_size_list items as one flat fixed-width buffer: bool, numbers,
// temporal types, decimals, fixed_size_binary and null (pylance 14 writes
// "fixed_size_list:null:2").
// Fixed-size lists nest ("fixed_size_list:fixed_size_list:uint8:2:3"): the inner lists
// are fixed-width values too.
bool IsFslItemType(const DataType& type) {
  if (type.id() == TypeId::kFixedSizeList) return IsFslItemType(*type.value_type());
  return type.is_fixed_width();
}

// Whether a type has Lance child fields (struct members, the list item, the map's
// entries struct).
bool HasLanceChildren(const DataType& type) {
  return type.id() == TypeId::kStruct || type.id() == TypeId::kList ||
         type.id() == TypeId::kLargeList || type.id() == TypeId::kMap;
}

Result<TimeUnit> ParseUnit(std::string_view unit, std::string_view whole) {
  if (unit == "s") return TimeUnit::kSecond;
  if (unit == "ms") return TimeUnit::kMilli;
  if (unit == "us") return TimeUnit::kMicro;
  if (unit == "ns") return TimeUnit::kNano;
  return Status::Invalid("malformed time unit in Lance logical type '", whole, "'");
}

// Splits on ':' (Lance's separator).
std::vector<std::string_view> SplitColons(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t colon = s.find(':', start);
    parts.push_back(s.substr(start, colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return parts;
}

Result<int64_t> ParseInt(std::string_view text, int64_t min, int64_t max,
                         std::string_view what, std::string_view whole) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() ||
      value < min || value > max) {
    return Status::Invalid("malformed ", what, " '", text, "' in Lance logical type '",
                           whole, "'");
  }
  return value;
}

// Lance's dictionary value types: leaves whose own logical type has no ':' (the "dict:"
// string is split on ':' and must have exactly four parts when Lance reads it back).
bool IsDictionaryValueType(const DataType& type) {
  return type.id() == TypeId::kNull || type.id() == TypeId::kBool || type.is_integer() ||
         type.is_floating() || type.is_binary_like();
}

Result<int64_t> ParsePositive(std::string_view text, std::string_view what) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value <= 0 ||
      value > std::numeric_limits<int32_t>::max()) {
    return Status::Invalid("malformed ", what, " '", text, "' in a Lance logical type");
  }
  return value;
}

Status CheckNoChildren(std::string_view logical_type,
                       const std::vector<FieldPtr>& children) {
  if (!children.empty()) {
    return Status::Invalid("Lance logical type '", logical_type,
                           "' cannot have child fields, got ", children.size());
  }
  return Status::OK();
}

// The logical types that are a fixed name, in both directions.
struct NamedLogicalType {
  TypeId id;
  std::string_view name;
  DataTypePtr (*make)();
};
const NamedLogicalType kNamedLogicalTypes[] = {
    {TypeId::kBool, "bool", boolean},
    {TypeId::kInt8, "int8", int8},
    {TypeId::kInt16, "int16", int16},
    {TypeId::kInt32, "int32", int32},
    {TypeId::kInt64, "int64", int64},
    {TypeId::kUInt8, "uint8", uint8},
    {TypeId::kUInt16, "uint16", uint16},
    {TypeId::kUInt32, "uint32", uint32},
    {TypeId::kUInt64, "uint64", uint64},
    {TypeId::kFloat16, "halffloat", float16},
    {TypeId::kFloat32, "float", float32},
    {TypeId::kFloat64, "double", float64},
    {TypeId::kUtf8, "string", utf8},
    {TypeId::kLargeUtf8, "large_string", large_utf8},
    {TypeId::kBinary, "binary", binary},
    {TypeId::kLargeBinary, "large_binary", large_binary},
    {TypeId::kDate32, "date32:day", date32},
    {TypeId::kNull, "null", null},
    {TypeId::kDate64, "date64:ms", date64},
};

Result<DataTypePtr> SimpleTypeFromString(std::string_view s);

// "time32:<unit>", "time64:<unit>" or "duration:<unit>".
Result<DataTypePtr> TimeTypeFromString(std::string_view s) {
  const size_t colon = s.find(':');
  LANCE_ASSIGN_OR_RAISE(TimeUnit unit, ParseUnit(s.substr(colon + 1), s));
  if (s.starts_with("duration:")) return duration(unit);
  const bool is32 = s.starts_with("time32:");
  const bool short_unit = unit == TimeUnit::kSecond || unit == TimeUnit::kMilli;
  if (is32 != short_unit) {
    return Status::Invalid("Lance logical type '", s,
                           "' pairs the time width with the wrong unit");
  }
  return is32 ? time32(unit) : time64(unit);
}

// decimal:<bits>:<precision>:<scale>; Lance keeps precision as u8 and scale as i8.
Result<DataTypePtr> DecimalFromString(std::string_view s) {
  const std::vector<std::string_view> parts = SplitColons(s);
  if (parts.size() != 4) {
    return Status::Invalid("malformed Lance logical type '", s, "'");
  }
  LANCE_ASSIGN_OR_RAISE(int64_t bits, ParseInt(parts[1], 0, 1 << 15, "bit width", s));
  LANCE_ASSIGN_OR_RAISE(int64_t precision, ParseInt(parts[2], 0, 255, "precision", s));
  LANCE_ASSIGN_OR_RAISE(int64_t scale, ParseInt(parts[3], -128, 127, "scale", s));
  if (bits != 128 && bits != 256) {
    return Status::NotImplemented("Lance logical type '", s,
                                  "' is not supported by this build (only 128- and "
                                  "256-bit decimals)");
  }
  DataTypePtr type =
      bits == 128
          ? decimal128(static_cast<int32_t>(precision), static_cast<int32_t>(scale))
          : decimal256(static_cast<int32_t>(precision), static_cast<int32_t>(scale));
  Status st = ValidateTypeParameters(*type);
  if (!st.ok()) {
    return Status::Invalid("Lance logical type '", s, "': ", st.message());
  }
  return type;
}

// dict:<value type>:<index type>:<ordered>; Lance writes "false" whatever the Arrow
// type said, and both parts are leaves without ':' of their own.
Result<DataTypePtr> DictionaryFromString(std::string_view s) {
  const std::vector<std::string_view> parts = SplitColons(s);
  if (parts.size() != 4 || (parts[3] != "false" && parts[3] != "true")) {
    return Status::Invalid("malformed Lance logical type '", s, "'");
  }
  auto value_type = SimpleTypeFromString(parts[1]);
  auto index_type = SimpleTypeFromString(parts[2]);
  if (!value_type.ok() || !index_type.ok() || !IsDictionaryValueType(**value_type) ||
      !(*index_type)->is_integer()) {
    return Status::Invalid("Lance logical type '", s,
                           "' is not a dictionary over a leaf type with integer "
                           "indices");
  }
  return dictionary(*index_type, *value_type, parts[3] == "true");
}

// timestamp:<unit>:<time zone>
Result<DataTypePtr> TimestampFromString(std::string_view s) {
  std::string_view rest = s.substr(10);
  const size_t colon = rest.find(':');
  if (colon == std::string_view::npos) {
    return Status::Invalid("malformed Lance logical type '", s, "'");
  }
  std::string_view tz = rest.substr(colon + 1);
  LANCE_ASSIGN_OR_RAISE(TimeUnit u, ParseUnit(rest.substr(0, colon), s));
  // "-" is how Lance spells "no time zone".
  return timestamp(u, tz == "-" ? std::string() : std::string(tz));
}

Result<DataTypePtr> SimpleTypeFromString(std::string_view s) {
  for (const NamedLogicalType& named : kNamedLogicalTypes) {
    if (s == named.name) return named.make();
  }
  if (s.starts_with("time32:") || s.starts_with("time64:") ||
      s.starts_with("duration:")) {
    return TimeTypeFromString(s);
  }
  if (s.starts_with("decimal:")) return DecimalFromString(s);
  if (s.starts_with("dict:")) return DictionaryFromString(s);
  if (s.starts_with("timestamp:")) return TimestampFromString(s);
  if (s.starts_with("fixed_size_binary:")) {
    LANCE_ASSIGN_OR_RAISE(int64_t width, ParsePositive(s.substr(18), "byte width"));
    return fixed_size_binary(static_cast<int32_t>(width));
  }
  return Status::NotImplemented("Lance logical type '", s,
                                "' is not supported by this build");
}

// "fixed_size_list:<item>:<size>", the item possibly containing ':' (timestamp:us:UTC) or
// being a fixed-size list itself; the size is last.
Result<DataTypePtr> FixedSizeListFromString(std::string_view s) {
  std::string_view rest = s.substr(16);
  const size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos) {
    return Status::Invalid("malformed Lance logical type '", s, "'");
  }
  LANCE_ASSIGN_OR_RAISE(int64_t n, ParsePositive(rest.substr(colon + 1), "list size"));
  const std::string_view item = rest.substr(0, colon);
  auto inner = item.starts_with("fixed_size_list:") ? FixedSizeListFromString(item)
                                                    : SimpleTypeFromString(item);
  LANCE_RETURN_NOT_OK(inner.status());
  if (!IsFslItemType(**inner)) {
    return Status::NotImplemented("fixed_size_list of " + (*inner)->ToString());
  }
  return fixed_size_list(field("item", *inner, /*nullable=*/true),
                         static_cast<int32_t>(n));
}

Result<std::string> FixedSizeListLogicalType(const DataType& type) {
  const DataType& item = *type.value_type();
  if (!IsFslItemType(item)) {
    return Status::NotImplemented(
        "Lance stores fixed_size_list only over fixed-width items, not ",
        item.ToString());
  }
  LANCE_ASSIGN_OR_RAISE(std::string inner, LogicalTypeString(item));
  return "fixed_size_list:" + inner + ":" + std::to_string(type.fixed_size());
}

Result<std::string> DictionaryLogicalType(const DataType& type) {
  // As Lance 14 writes it: "dict:<values>:<indices>:false". The Arrow ordered flag
  // has no place in Lance (arrow-rs has none), so it is dropped, as Lance does.
  const DataTypePtr& values = type.value_type();
  const DataTypePtr& indices = type.index_type();
  if (!values || !indices || !IsDictionaryValueType(*values) || !indices->is_integer()) {
    return Status::NotImplemented(
        "Lance stores dictionaries of leaf values (bool, numbers, strings, binary, "
        "null) with integer indices, not ",
        type.ToString());
  }
  LANCE_ASSIGN_OR_RAISE(std::string value_string, LogicalTypeString(*values));
  LANCE_ASSIGN_OR_RAISE(std::string index_string, LogicalTypeString(*indices));
  return "dict:" + value_string + ":" + index_string + ":false";
}

}  // namespace

Result<std::string> LogicalTypeString(const DataType& type) {
  for (const NamedLogicalType& named : kNamedLogicalTypes) {
    if (type.id() == named.id) return std::string(named.name);
  }
  switch (type.id()) {
    case TypeId::kFixedSizeBinary:
      return "fixed_size_binary:" + std::to_string(type.fixed_size());
    case TypeId::kTimestamp:
      return std::string("timestamp:") + TimeUnitSuffix(type.unit()) + ":" +
             (type.timezone().empty() ? std::string("-") : type.timezone());
    case TypeId::kFixedSizeList:
      return FixedSizeListLogicalType(type);
    case TypeId::kStruct:
      return std::string("struct");
    case TypeId::kList:
    case TypeId::kLargeList: {
      std::string base = type.id() == TypeId::kList ? "list" : "large_list";
      if (type.value_type()->id() == TypeId::kStruct) base += ".struct";
      return base;
    }
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      if (type.scale() < -128 || type.scale() > 127) {
        return Status::NotImplemented("Lance stores decimal scales in [-128, 127], not ",
                                      type.ToString());
      }
      return std::string(type.id() == TypeId::kDecimal128 ? "decimal:128:"
                                                          : "decimal:256:") +
             std::to_string(type.precision()) + ":" + std::to_string(type.scale());
    case TypeId::kTime32:
      return std::string("time32:") + TimeUnitSuffix(type.unit());
    case TypeId::kTime64:
      return std::string("time64:") + TimeUnitSuffix(type.unit());
    case TypeId::kDuration:
      return std::string("duration:") + TimeUnitSuffix(type.unit());
    case TypeId::kDictionary:
      return DictionaryLogicalType(type);
    case TypeId::kMap:
      if (type.keys_sorted()) {
        // Lance 14 refuses these too (field.rs: "Unsupported map field with
        // keys_sorted=true").
        return Status::NotImplemented("Lance cannot store a map with sorted keys (",
                                      type.ToString(), ")");
      }
      return std::string("map");
    default:
      break;
  }
  return Status::NotImplemented("Lance cannot store the type ", type.ToString());
}

Result<DataTypePtr> DataTypeFromLogicalType(std::string_view logical_type,
                                            std::vector<FieldPtr> children) {
  const std::string_view s = logical_type;
  if (s == "struct") return struct_(std::move(children));
  if (s == "list" || s == "large_list" || s == "list.struct" ||
      s == "large_list.struct") {
    if (children.size() != 1) {
      return Status::Invalid("Lance logical type '", s,
                             "' needs exactly one child field, got ", children.size());
    }
    const bool struct_item = s.ends_with(".struct");
    if (struct_item != (children[0]->type()->id() == TypeId::kStruct)) {
      return Status::Invalid("Lance logical type '" + std::string(s) +
                             "' has an item of type " + children[0]->type()->ToString());
    }
    return s.starts_with("large_") ? large_list(children[0]) : list(children[0]);
  }
  if (s == "map") {
    // One child: the entries struct, whose two children are the key and the value.
    if (children.size() != 1) {
      return Status::Invalid(
          "Lance logical type 'map' needs exactly one child field "
          "(the entries struct), got ",
          children.size());
    }
    auto type = MapFromEntries(children[0], /*keys_sorted=*/false);
    if (!type.ok()) {
      return Status::Invalid("Lance logical type 'map': ", type.status().message());
    }
    return type;
  }
  if (s.starts_with("fixed_size_list:")) {
    LANCE_RETURN_NOT_OK(CheckNoChildren(s, children));
    auto type = FixedSizeListFromString(s);
    if (type.status().IsNotImplemented()) {
      return Status::NotImplemented("Lance logical type '", s,
                                    "' is not supported by this build");
    }
    return type;
  }
  LANCE_RETURN_NOT_OK(CheckNoChildren(s, children));
  return SimpleTypeFromString(s);
}

int CountLanceFields(const DataType& type) {
  int count = 1;
  if (HasLanceChildren(type)) {
    for (const auto& child : type.fields()) count += CountLanceFields(*child->type());
  }
  return count;
}

// ---------------------------------------------------------------------------------------
// LanceSchema

namespace {

Status CheckStorable(const Field& f, int depth) {
  if (depth > kMaxNestingDepth) {
    return Status::Invalid("field '", f.name(), "' is nested deeper than ",
                           kMaxNestingDepth, " levels");
  }
  auto lt = LogicalTypeString(*f.type());
  if (!lt.ok()) {
    return Status(lt.status().code(),
                  "field '" + f.name() + "': " + lt.status().message());
  }
  if (HasLanceChildren(*f.type())) {
    for (const auto& child : f.type()->fields()) {
      LANCE_RETURN_NOT_OK(CheckStorable(*child, depth + 1));
    }
  }
  return Status::OK();
}

}  // namespace

LanceSchema::LanceSchema(SchemaPtr schema, std::vector<int32_t> ids,
                         std::vector<int> top_level_starts)
    : schema_(std::move(schema)),
      ids_(std::move(ids)),
      top_level_starts_(std::move(top_level_starts)) {}

Result<LanceSchema> LanceSchema::Assign(SchemaPtr schema, int32_t first_id) {
  if (!schema) return Status::Invalid("assigning Lance field ids: the schema is null");
  if (first_id < 0) {
    return Status::Invalid("assigning Lance field ids: negative first id ", first_id);
  }
  int64_t total = 0;
  for (const auto& f : schema->fields()) {
    LANCE_RETURN_NOT_OK(CheckStorable(*f, 1));
    total += CountLanceFields(*f->type());
  }
  if (first_id + total - 1 > std::numeric_limits<int32_t>::max()) {
    return Status::Invalid("assigning Lance field ids: ids would overflow int32");
  }
  std::vector<int32_t> ids(static_cast<size_t>(total));
  for (int64_t i = 0; i < total; ++i) ids[i] = static_cast<int32_t>(first_id + i);
  return Make(std::move(schema), std::move(ids));
}

Result<LanceSchema> LanceSchema::Make(SchemaPtr schema,
                                      std::vector<int32_t> preorder_ids) {
  if (!schema) return Status::Invalid("making a Lance schema: the schema is null");
  std::vector<int> starts;
  starts.reserve(schema->fields().size() + 1);
  int64_t total = 0;
  for (const auto& f : schema->fields()) {
    LANCE_RETURN_NOT_OK(CheckStorable(*f, 1));
    starts.push_back(static_cast<int>(total));
    total += CountLanceFields(*f->type());
  }
  starts.push_back(static_cast<int>(total));
  if (total != static_cast<int64_t>(preorder_ids.size())) {
    return Status::Invalid("making a Lance schema: ", preorder_ids.size(),
                           " field ids for ", total, " fields");
  }
  std::unordered_set<int32_t> seen;
  for (int32_t id : preorder_ids) {
    if (id < 0) {
      return Status::Invalid("making a Lance schema: negative field id ", id);
    }
    if (!seen.insert(id).second) {
      return Status::Invalid("making a Lance schema: field id ", id, " repeats");
    }
  }
  return LanceSchema(std::move(schema), std::move(preorder_ids), std::move(starts));
}

std::vector<int32_t> LanceSchema::SubtreeIds(int top_level_index) const {
  if (top_level_index < 0 ||
      top_level_index + 1 >= static_cast<int>(top_level_starts_.size())) {
    return {};
  }
  return std::vector<int32_t>(ids_.begin() + top_level_starts_[top_level_index],
                              ids_.begin() + top_level_starts_[top_level_index + 1]);
}

int32_t LanceSchema::max_field_id() const {
  int32_t max_id = -1;
  for (int32_t id : ids_) max_id = std::max(max_id, id);
  return max_id;
}

int LanceSchema::TopLevelIndexOfId(int32_t id) const {
  for (size_t i = 0; i + 1 < top_level_starts_.size(); ++i) {
    if (ids_[top_level_starts_[i]] == id) return static_cast<int>(i);
  }
  return -1;
}

Result<LanceSchema> LanceSchema::Project(const std::vector<std::string>& names) const {
  if (!schema_) return Status::Invalid("projecting an empty Lance schema");
  std::vector<FieldPtr> fields;
  std::vector<int32_t> ids;
  for (const auto& name : names) {
    const int index = schema_->GetFieldIndex(name);
    if (index < 0) {
      return Status::Invalid("projecting a Lance schema: no column named '", name, "'");
    }
    fields.push_back(schema_->field(index));
    auto sub = SubtreeIds(index);
    ids.insert(ids.end(), sub.begin(), sub.end());
  }
  return Make(lance::schema(std::move(fields), schema_->metadata()), std::move(ids));
}

bool LanceSchema::Equals(const LanceSchema& other) const {
  if (ids_ != other.ids_) return false;
  if (!schema_ || !other.schema_) return schema_ == other.schema_;
  return schema_->Equals(*other.schema_, /*check_metadata=*/true);
}

}  // namespace lance::format
