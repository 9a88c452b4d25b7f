// SPDX-License-Identifier: Apache-2.0
// Column projection by name, nested fields included, as pylance 14 does it:
//
//  - a name is a top-level column, else a dotted path through struct fields ("s.a",
//    "s.c.d"; a segment may be `backtick quoted` to hold a dot);
//  - scans return a nested field as a top-level column named by the path as given, typed
//    as the field, nullable when it or any struct above it is, with the field's metadata
//    and a null wherever a struct above it is null;
//  - takes return the top-level struct pruned to the requested fields
//    (`s: struct<a, c: struct<d>>`); a field requested whole next to some of its children
//    stays whole. LanceDataset.take orders the kept children as the schema does,
//    LanceFragment.take as they were first requested.
//
// Scans cannot walk into lists (pylance refuses "l.item"); takes can, through the item
// field ("l.item.x" keeps `l: list<item: struct<x>>`), as pylance's take does.
// Data files are still read per top-level field (the format layer reads top-level field
// ids); the nested field is cut out of it here.
#pragma once

#include <string>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/type.h"
#include "lance/result.h"

namespace lance::table_internal {

/// \brief A field of a schema: a top-level index and the struct child indices below it.
struct FieldPath {
  int top = -1;
  std::vector<int> children;
};

/// \brief Resolves `name` against `schema`: an exact top-level name first, else a dotted
/// path through structs. With `through_lists` (takes) as pylance's take resolves it:
/// lists are entered by their item field ("l.item.x"), and segments past a field without
/// children are ignored ("id.x" is `id`). `what` prefixes errors ("Scan", "Take") and
/// `where` names the dataset. \return Invalid naming the missing field, or the field a
/// path cannot enter.
Result<FieldPath> ResolveFieldPath(const Schema& schema, const std::string& name,
                                   const std::string& what, const std::string& where,
                                   bool through_lists = false);

/// \brief The field `path` names, as a scan outputs it: called `name`, nullable if it or
/// any struct above it is, with the field's own metadata.
FieldPtr FlatField(const Schema& schema, const FieldPath& path, const std::string& name);

/// \brief The child at `children` (struct child indices) of `array`, with the nulls of
/// every struct above it added to its own. Buffers are shared; only a validity bitmap may
/// be allocated. `array` is returned as is for an empty path.
Result<ArrayPtr> ExtractPath(const ArrayPtr& array, const std::vector<int>& children);

/// \brief Which parts of one top-level field a take keeps (children are struct field
/// indices, or 0 for a list's item).
class PruneNode {
 public:
  /// \brief Marks the field at `children` (below this node) as wanted whole.
  void Add(const std::vector<int>& children, size_t depth = 0);
  bool whole() const { return whole_; }

  /// \brief `field` pruned to the wanted parts (itself when whole), children in schema
  /// order or in the order they were first added.
  FieldPtr Prune(const FieldPtr& field, bool schema_order) const;
  /// \brief `array` (of `field`'s type) cut down to `pruned` = Prune(field,
  /// schema_order): the dropped children left out, buffers shared.
  ArrayPtr Apply(const ArrayPtr& array, const FieldPtr& pruned, bool schema_order) const;

 private:
  ArrayDataPtr ApplyData(const ArrayDataPtr& data, const DataTypePtr& type,
                         const DataType& original, bool schema_order) const;
  std::vector<std::pair<int, PruneNode>> Ordered(bool schema_order) const;

  bool whole_ = false;
  std::vector<std::pair<int, PruneNode>> children_;  // in the order first added
};

}  // namespace lance::table_internal
