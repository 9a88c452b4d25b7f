// SPDX-License-Identifier: Apache-2.0
// Fields to columns in the structural formats (2.1, 2.2).

#include "format/structural/field_tree.h"

#include <algorithm>
#include <cctype>

#include "lance/macros.h"

namespace lance::format::structural {

bool IsPackedStruct(const Field& field) {
  for (const auto& [key, value] : field.metadata()) {
    if (key == "packed" || key == "lance-encoding:packed") {
      std::string lower = value;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (lower == "true") return true;
    }
  }
  return false;
}

namespace {

Result<FieldNode> Build(const FieldPtr& field, size_t depth, std::vector<NodeKind> path,
                        std::string name, const std::string& what,
                        std::vector<LeafInfo>* leaves) {
  FieldNode node;
  node.field = field;
  node.depth = depth;
  const DataType& type = *field->type();
  const TypeId id = type.id();
  if (id == TypeId::kStruct && type.num_fields() > 0 && !IsPackedStruct(*field)) {
    node.kind = FieldNode::Kind::kStruct;
    path.push_back(NodeKind::kItem);
    for (const auto& child : type.fields()) {
      LANCE_ASSIGN_OR_RAISE(FieldNode c, Build(child, depth + 1, path,
                                               name + "." + child->name(), what, leaves));
      node.children.push_back(std::move(c));
    }
    node.first_leaf = node.children[0].first_leaf;
    return node;
  }
  if (id == TypeId::kList || id == TypeId::kLargeList || id == TypeId::kMap) {
    // A map is a list of its entries struct (int32 offsets).
    node.kind = FieldNode::Kind::kList;
    path.push_back(NodeKind::kList);
    LANCE_ASSIGN_OR_RAISE(
        FieldNode c, Build(type.fields()[0], depth + 1, path, name + "[]", what, leaves));
    node.first_leaf = c.first_leaf;
    node.children.push_back(std::move(c));
    return node;
  }
  if (id == TypeId::kFixedSizeList && type.value_type()->id() == TypeId::kStruct) {
    return Status::NotImplemented(what, ": field '", name,
                                  "' is a fixed_size_list of structs, which this build "
                                  "cannot store in file format 2.1/2.2");
  }
  node.kind = FieldNode::Kind::kLeaf;
  path.push_back(NodeKind::kItem);
  node.leaf = static_cast<int>(leaves->size());
  node.first_leaf = node.leaf;
  leaves->push_back(LeafInfo{std::move(path), field->type(), std::move(name)});
  return node;
}

void Collect(const FieldNode& node, std::vector<int>* out) {
  if (node.kind == FieldNode::Kind::kLeaf) {
    out->push_back(node.leaf);
    return;
  }
  for (const auto& child : node.children) Collect(child, out);
}

}  // namespace

Result<FieldTree> FieldTree::Make(const Schema& schema, const std::string& what) {
  FieldTree tree;
  for (const auto& f : schema.fields()) {
    LANCE_ASSIGN_OR_RAISE(FieldNode node, Build(f, 0, {}, f->name(), what, &tree.leaves));
    tree.top_level.push_back(std::move(node));
  }
  return tree;
}

std::vector<int> FieldTree::LeavesOf(int field) const {
  std::vector<int> out;
  Collect(top_level[field], &out);
  return out;
}

}  // namespace lance::format::structural
