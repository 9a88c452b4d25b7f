// SPDX-License-Identifier: Apache-2.0
// Internal: how the fields of a 2.1 / 2.2 file map to columns, shared by the reader
// and the writer. Only leaves have columns (in pre-order); a struct (unless packed or
// empty) and a list / large_list add a layer to the levels of the leaves below them.

#pragma once

#include <string>
#include <vector>

#include "format/structural/levels.h"
#include "lance/core/type.h"
#include "lance/result.h"

namespace lance::format::structural {

struct FieldNode {
  enum class Kind : uint8_t { kLeaf, kStruct, kList };
  FieldPtr field;
  Kind kind = Kind::kLeaf;
  std::vector<FieldNode> children;
  int leaf = -1;        ///< leaves: index of the leaf (= its column)
  int first_leaf = -1;  ///< the first leaf at or below this node
  size_t depth = 0;     ///< this node's position in the paths of its leaves
};

struct LeafInfo {
  std::vector<NodeKind> path;  ///< from the top-level field down to the leaf
  DataTypePtr type;            ///< the leaf's Arrow type
  std::string name;            ///< dotted path, for messages
};

/// The read/write tree of a schema's top-level fields, and its leaves in column order.
struct FieldTree {
  std::vector<FieldNode> top_level;
  std::vector<LeafInfo> leaves;

  /// \return NotImplemented naming a field whose shape 2.1/2.2 files store in a way this
  /// build does not handle (fixed_size_list of structs); `what` names the file.
  static Result<FieldTree> Make(const Schema& schema, const std::string& what);
  /// Leaves below top-level field `field`, in order.
  std::vector<int> LeavesOf(int field) const;
};

/// Whether Lance stores this struct field as one packed column (field metadata
/// "lance-encoding:packed" or "packed" set to true).
bool IsPackedStruct(const Field& field);

}  // namespace lance::format::structural
