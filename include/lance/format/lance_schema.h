// SPDX-License-Identifier: Apache-2.0
/// \file lance_schema.h
/// \brief A schema with Lance field ids and Lance logical type strings.
///
/// Lance numbers every field of a schema -- struct, list and map parents included -- in
/// depth-first pre-order; data files and manifests refer to columns by these ids.
/// fixed_size_list is a single field (its item type lives in the logical type string,
/// "fixed_size_list:float:128"), list and large_list have one child field, a map has
/// one child (its "entries" struct, whose two children are the key and the value: four
/// fields in all for map<K, V> with leaf K and V), and a dictionary is a single field
/// (its value and index types live in the logical type string).

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/type.h"
#include "lance/format/file_version.h"
#include "lance/result.h"

namespace lance::format {

/// \brief An Arrow-style schema plus one Lance field id per field in pre-order.
///
/// Immutable value type; cheap to copy (shares the schema).
class LanceSchema {
 public:
  LanceSchema() = default;

  /// \brief Numbers the fields of `schema` first_id, first_id+1, ... in pre-order.
  /// \return NotImplemented naming a field whose type Lance cannot store (see
  /// LogicalTypeString); Invalid for a null schema, a negative first_id or nesting
  /// deeper than kMaxNestingDepth.
  static Result<LanceSchema> Assign(SchemaPtr schema, int32_t first_id = 0);
  /// \brief Pairs `schema` with existing ids (pre-order). \return Invalid if the count
  /// does not match the schema's pre-order field count or ids repeat.
  static Result<LanceSchema> Make(SchemaPtr schema, std::vector<int32_t> preorder_ids);

  const SchemaPtr& schema() const { return schema_; }
  /// \brief Ids of all fields, depth-first pre-order.
  const std::vector<int32_t>& field_ids() const { return ids_; }
  /// \brief Ids of the subtree of top-level field i (the field first), pre-order.
  std::vector<int32_t> SubtreeIds(int top_level_index) const;
  /// \brief The largest id, or -1 for an empty schema.
  int32_t max_field_id() const;
  /// \brief Index of the top-level field whose own id is `id`, or -1.
  int TopLevelIndexOfId(int32_t id) const;

  /// \brief The named top-level columns in the given order, keeping their ids.
  /// \return Invalid naming a missing column.
  Result<LanceSchema> Project(const std::vector<std::string>& names) const;

  bool Equals(const LanceSchema& other) const;

 private:
  LanceSchema(SchemaPtr schema, std::vector<int32_t> ids,
              std::vector<int> top_level_starts);

  SchemaPtr schema_;
  std::vector<int32_t> ids_;
  /// Offset into ids_ where each top-level field's subtree starts (plus a final end).
  std::vector<int> top_level_starts_;
};

/// \brief Deepest nesting of struct/list fields accepted (guards recursion on bad input).
inline constexpr int kMaxNestingDepth = 64;

/// \brief Number of pre-order Lance fields of `type` (itself included).
int CountLanceFields(const DataType& type);

/// \brief Lance's logical type string, as pylance 14.0.2 writes it: "int64", "string",
/// "timestamp:us:UTC", "fixed_size_list:float:128", "struct", "list",
/// "large_list.struct", "null", "decimal:128:10:2", "decimal:256:40:2", "date64:ms",
/// "time32:s", "time64:us", "duration:ms", "dict:string:int32:false", "map", ...
///
/// fixed_size_list items must be fixed-width (bool, numbers, float16, temporal types,
/// decimals, fixed_size_binary, null); Lance stores no item field for them. Dictionaries
/// must have leaf values without ':' in their own logical type (bool, numbers, strings,
/// binary, null) and integer indices, as Lance requires; their ordered flag is not
/// stored (Lance always writes "false"). Decimal scales must fit Lance's i8.
/// \return NotImplemented for types Lance cannot store (also maps with sorted keys,
/// which Lance 14 rejects).
Result<std::string> LogicalTypeString(const DataType& type);

/// \brief The inverse of LogicalTypeString.
///
/// `children` are the child fields Lance stores for the type: the members of a struct,
/// the single item field of list / large_list (and of list.struct / large_list.struct,
/// whose item must then be a struct), the entries struct of a map; none for every other
/// type. A fixed_size_list gets a nullable item field named "item", as Lance recreates
/// it. "dict:...:true" reads as an ordered dictionary (Lance never writes it).
/// \return NotImplemented naming logical types this build cannot represent (json, blob,
/// fixed_size_list:struct, bfloat16, decimal32/64 ...); Invalid for malformed strings or
/// a child count that does not fit the type.
Result<DataTypePtr> DataTypeFromLogicalType(std::string_view logical_type,
                                            std::vector<FieldPtr> children = {});

}  // namespace lance::format
