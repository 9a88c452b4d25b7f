// SPDX-License-Identifier: Apache-2.0
#include "dataset/projection.h"

#include <algorithm>

#include "lance/macros.h"

namespace lance::table_internal {
namespace {

// Splits "a.b.c" into its segments; a segment in backticks may hold dots (`` is a
// backtick). Empty when the text is not a well-formed path.
std::vector<std::string> SplitPath(const std::string& name) {
  std::vector<std::string> out;
  std::string current;
  size_t i = 0;
  bool expect_segment = true;
  while (i < name.size()) {
    if (expect_segment && name[i] == '`') {
      ++i;
      bool closed = false;
      while (i < name.size()) {
        if (name[i] == '`') {
          if (i + 1 < name.size() && name[i + 1] == '`') {
            current += '`';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        current += name[i++];
      }
      if (!closed || (i < name.size() && name[i] != '.')) return {};
      expect_segment = false;
      continue;
    }
    if (name[i] == '.') {
      if (current.empty()) return {};
      out.push_back(std::move(current));
      current.clear();
      expect_segment = true;
      ++i;
      continue;
    }
    current += name[i++];
    expect_segment = false;
  }
  if (current.empty()) return {};
  out.push_back(std::move(current));
  return out;
}

int ChildIndex(const DataType& type, const std::string& name) {
  for (int i = 0; i < type.num_fields(); ++i) {
    if (type.fields()[i]->name() == name) return i;
  }
  return -1;
}

}  // namespace

Result<FieldPath> ResolveFieldPath(const Schema& schema, const std::string& name,
                                   const std::string& what, const std::string& where,
                                   bool through_lists) {
  FieldPath out;
  out.top = schema.GetFieldIndex(name);
  if (out.top >= 0) return out;
  const std::vector<std::string> segments = SplitPath(name);
  if (segments.size() >= 2) out.top = schema.GetFieldIndex(segments[0]);
  if (out.top < 0) {
    return Status::Invalid(what + ": no column '" + name + "' in dataset " + where +
                           " (columns: " + schema.ToString() + ")");
  }
  FieldPtr current = schema.field(out.top);
  std::string walked = segments[0];
  for (size_t s = 1; s < segments.size(); ++s) {
    const DataType& type = *current->type();
    const bool enter =
        type.id() == TypeId::kStruct || (through_lists && type.is_list_like());
    if (!enter && through_lists && type.num_fields() == 0) {
      // pylance's take stops at a field without children ("id.x" takes `id`).
      return out;
    }
    if (!enter) {
      return Status::Invalid(what, ": cannot project '", name, "' of dataset ", where,
                             ": '", walked, "' is ", type.ToString(),
                             ", not a struct (only struct fields can be reached with a "
                             "dotted path, as in Lance)");
    }
    const int child = ChildIndex(type, segments[s]);
    if (child < 0) {
      return Status::Invalid(what, ": no column '", name, "' in dataset ", where, ": '",
                             walked, "' has no field '", segments[s], "' (",
                             type.ToString(), ")");
    }
    out.children.push_back(child);
    current = type.fields()[child];
    walked += "." + segments[s];
  }
  return out;
}

FieldPtr FlatField(const Schema& schema, const FieldPath& path, const std::string& name) {
  FieldPtr current = schema.field(path.top);
  bool nullable = current->nullable();
  for (int child : path.children) {
    current = current->type()->fields()[child];
    nullable = nullable || current->nullable();
  }
  if (path.children.empty()) return current;
  return field(name, current->type(), nullable, current->metadata());
}

Result<ArrayPtr> ExtractPath(const ArrayPtr& array, const std::vector<int>& children) {
  ArrayPtr current = array;
  for (int child : children) {
    if (current->type_id() != TypeId::kStruct || child < 0 ||
        child >= current->type()->num_fields()) {
      return Status::Invalid("Projecting a nested field: " + current->type()->ToString() +
                             " has no struct field " + std::to_string(child));
    }
    const auto& parent = static_cast<const StructArray&>(*current);
    ArrayPtr field = parent.field(child);  // offset and length of the parent applied
    if (current->null_count() == 0 || field->null_count() == field->length()) {
      // No struct nulls to add, or nothing left to null (the null type among others).
      current = std::move(field);
      continue;
    }
    // A null struct makes its fields null: AND the two validity bitmaps, in the bit
    // positions of the field's own data (its offset).
    const ArrayDataPtr& data = field->data();
    const int64_t n = data->length;
    LANCE_ASSIGN_OR_RAISE(BufferPtr bits,
                          Buffer::Allocate(bit_util::BytesForBits(data->offset + n)));
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (current->IsValid(i) && field->IsValid(i)) {
        bit_util::SetBit(bits->mutable_data(), data->offset + i);
      } else {
        ++nulls;
      }
    }
    auto out = std::make_shared<ArrayData>(*data);
    if (out->buffers.empty()) out->buffers.resize(1);
    out->buffers[0] = std::move(bits);
    out->null_count = nulls;
    current = MakeArray(std::move(out));
  }
  return current;
}

// -- PruneNode ------------------------------------------------------------------------

void PruneNode::Add(const std::vector<int>& children, size_t depth) {
  if (whole_) return;
  if (depth == children.size()) {
    whole_ = true;
    children_.clear();
    return;
  }
  const int index = children[depth];
  for (auto& [i, node] : children_) {
    if (i == index) {
      node.Add(children, depth + 1);
      return;
    }
  }
  children_.emplace_back(index, PruneNode());
  children_.back().second.Add(children, depth + 1);
}

std::vector<std::pair<int, PruneNode>> PruneNode::Ordered(bool schema_order) const {
  std::vector<std::pair<int, PruneNode>> out = children_;
  if (schema_order) {
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  return out;
}

FieldPtr PruneNode::Prune(const FieldPtr& f, bool schema_order) const {
  const DataType& type = *f->type();
  if (whole_ || children_.empty()) return f;
  if (type.is_list_like()) {
    // The item field is the only child: prune inside it.
    FieldPtr item = children_.front().second.Prune(type.fields()[0], schema_order);
    switch (type.id()) {
      case TypeId::kList:
        return f->WithType(list(std::move(item)));
      case TypeId::kLargeList:
        return f->WithType(large_list(std::move(item)));
      default:
        return f->WithType(fixed_size_list(std::move(item), type.fixed_size()));
    }
  }
  if (type.id() != TypeId::kStruct) return f;
  std::vector<FieldPtr> kept;
  for (const auto& [index, node] : Ordered(schema_order)) {
    kept.push_back(node.Prune(type.fields()[index], schema_order));
  }
  return f->WithType(struct_(std::move(kept)));
}

ArrayDataPtr PruneNode::ApplyData(const ArrayDataPtr& data, const DataTypePtr& type,
                                  const DataType& original, bool schema_order) const {
  const bool nested = original.id() == TypeId::kStruct || original.is_list_like();
  if (whole_ || children_.empty() || !nested ||
      data->children.size() != static_cast<size_t>(original.num_fields())) {
    auto out = std::make_shared<ArrayData>(*data);
    out->type = type;
    return out;
  }
  if (original.is_list_like()) {
    // Offsets (or the fixed size) stay; only the items are cut down.
    auto out = std::make_shared<ArrayData>(*data);
    out->type = type;
    out->children[0] =
        children_.front().second.ApplyData(data->children[0], type->fields()[0]->type(),
                                           *original.fields()[0]->type(), schema_order);
    return out;
  }
  // Struct children are not sliced by the parent's offset in ArrayData (the parent's
  // offset applies to them), so they are carried over as they are.
  auto out = std::make_shared<ArrayData>(*data);
  out->type = type;
  out->children.clear();
  const auto ordered = Ordered(schema_order);
  for (size_t k = 0; k < ordered.size(); ++k) {
    const auto& [index, node] = ordered[k];
    out->children.push_back(node.ApplyData(
        data->children[static_cast<size_t>(index)], type->fields()[k]->type(),
        *original.fields()[index]->type(), schema_order));
  }
  return out;
}

ArrayPtr PruneNode::Apply(const ArrayPtr& array, const FieldPtr& pruned,
                          bool schema_order) const {
  return MakeArray(
      ApplyData(array->data(), pruned->type(), *array->type(), schema_order));
}

}  // namespace lance::table_internal
