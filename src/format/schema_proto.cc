// SPDX-License-Identifier: Apache-2.0
// LanceSchema <-> lance.file.Field protobufs.

#include "format/schema_proto.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lance/macros.h"

namespace lance::format {

namespace {

lance::file::Field::Encoding EncodingHint(const DataType& type) {
  // The legacy v1 hint real writers still emit; v2 readers ignore it, but keeping it
  // makes our manifests and file schemas byte-for-byte like Lance's.
  // (pylance 14.0.2: null and struct unset, dictionaries DICTIONARY, map PLAIN like
  // lists, every fixed-width type PLAIN.)
  switch (type.id()) {
    case TypeId::kStruct:
    case TypeId::kNull:
      return lance::file::Field::NONE;
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return lance::file::Field::VAR_BINARY;
    case TypeId::kDictionary:
      return lance::file::Field::DICTIONARY;
    default:
      return lance::file::Field::PLAIN;
  }
}

Status AppendField(const Field& f, int32_t parent_id, const std::vector<int32_t>& ids,
                   size_t* next,
                   google::protobuf::RepeatedPtrField<lance::file::Field>* out) {
  if (*next >= ids.size())
    return Status::Invalid("Lance schema has fewer ids than fields");
  const int32_t id = ids[(*next)++];
  LANCE_ASSIGN_OR_RAISE(std::string logical_type, LogicalTypeString(*f.type()));
  lance::file::Field* pb = out->Add();
  pb->set_name(f.name());
  pb->set_id(id);
  pb->set_parent_id(parent_id);
  pb->set_logical_type(std::move(logical_type));
  pb->set_nullable(f.nullable());
  pb->set_encoding(EncodingHint(*f.type()));
  // Real Lance attaches an empty Dictionary message (offset and length 0: the values are
  // not in the schema) to every dictionary field.
  if (f.type()->id() == TypeId::kDictionary) pb->mutable_dictionary();
  for (const auto& [key, value] : f.metadata()) (*pb->mutable_metadata())[key] = value;
  const TypeId tid = f.type()->id();
  if (tid == TypeId::kStruct || tid == TypeId::kList || tid == TypeId::kLargeList ||
      tid == TypeId::kMap) {
    for (const auto& child : f.type()->fields()) {
      LANCE_RETURN_NOT_OK(AppendField(*child, id, ids, next, out));
    }
  }
  return Status::OK();
}

KeyValueMetadata SortedMetadata(
    const google::protobuf::Map<std::string, std::string>& map) {
  KeyValueMetadata out(map.begin(), map.end());
  std::sort(out.begin(), out.end());
  return out;
}

struct Node {
  const lance::file::Field* pb = nullptr;
  int32_t id = 0;  // pb->id(), or the id given to a blob description field
  std::vector<size_t> children;
  int depth = 1;
};

std::string Describe(const lance::file::Field& f) {
  return "field '" + f.name() + "' (id " + std::to_string(f.id()) + ")";
}

Result<FieldPtr> BuildField(const std::vector<Node>& nodes, size_t index,
                            std::vector<int32_t>* preorder_ids) {
  const Node& node = nodes[index];
  const lance::file::Field& pb = *node.pb;
  preorder_ids->push_back(node.id);
  std::vector<FieldPtr> children;
  children.reserve(node.children.size());
  for (size_t child : node.children) {
    LANCE_ASSIGN_OR_RAISE(FieldPtr f, BuildField(nodes, child, preorder_ids));
    children.push_back(std::move(f));
  }
  auto type = DataTypeFromLogicalType(pb.logical_type(), std::move(children));
  if (!type.ok()) {
    // A shape error (a list without its item, a child under an int) means the stored
    // schema is damaged; an unknown type name is a feature we lack.
    const StatusCode code = type.status().IsNotImplemented() ? StatusCode::kNotImplemented
                                                             : StatusCode::kCorrupt;
    return Status(code, Describe(pb) + ": " + type.status().message());
  }
  KeyValueMetadata metadata = SortedMetadata(pb.metadata());
  if (!pb.extension_name().empty()) {
    const bool has_key =
        std::any_of(metadata.begin(), metadata.end(),
                    [](const auto& kv) { return kv.first == "ARROW:extension:name"; });
    if (!has_key) {
      metadata.emplace_back("ARROW:extension:name", pb.extension_name());
      std::sort(metadata.begin(), metadata.end());
    }
  }
  return field(pb.name(), std::move(*type), pb.nullable(), std::move(metadata));
}

}  // namespace

Status SchemaToProtoFields(const LanceSchema& schema,
                           google::protobuf::RepeatedPtrField<lance::file::Field>* out) {
  if (!schema.schema()) return Status::OK();
  size_t next = 0;
  for (const auto& f : schema.schema()->fields()) {
    LANCE_RETURN_NOT_OK(AppendField(*f, -1, schema.field_ids(), &next, out));
  }
  return Status::OK();
}

Status SchemaToProto(const LanceSchema& schema, lance::file::Schema* out) {
  LANCE_RETURN_NOT_OK(SchemaToProtoFields(schema, out->mutable_fields()));
  if (schema.schema()) {
    for (const auto& [key, value] : schema.schema()->metadata()) {
      (*out->mutable_metadata())[key] = value;
    }
  }
  return Status::OK();
}

Result<LanceSchema> SchemaFromProtoFields(
    const google::protobuf::RepeatedPtrField<lance::file::Field>& fields,
    const google::protobuf::Map<std::string, std::string>& schema_metadata) {
  std::vector<Node> nodes(static_cast<size_t>(fields.size()));
  std::unordered_map<int32_t, size_t> by_id;
  std::vector<size_t> top_level;
  // Lance 2.2 writes a blob column's description fields (kind, position, size, blob_id,
  // blob_uri) right after the column's struct with id -1 and parent -1, though they are
  // its children (stored as one packed-struct column). They get ids above every real one.
  int32_t max_id = 0;
  for (const auto& f : fields) max_id = std::max(max_id, f.id());
  int32_t next_synthetic = max_id;
  std::optional<size_t> blob_parent;  // the blob struct the -1 fields that follow belong to
  for (int i = 0; i < fields.size(); ++i) {
    const lance::file::Field& f = fields.Get(i);
    Node& node = nodes[static_cast<size_t>(i)];
    node.pb = &f;
    if (f.id() == -1 && f.parent_id() == -1 && blob_parent.has_value() &&
        next_synthetic < std::numeric_limits<int32_t>::max()) {
      node.id = ++next_synthetic;
      Node& parent_node = nodes[*blob_parent];
      node.depth = parent_node.depth + 1;
      parent_node.children.push_back(static_cast<size_t>(i));
      continue;
    }
    blob_parent.reset();
    if (f.id() < 0) return Status::Corrupt(Describe(f) + " has a negative id");
    node.id = f.id();
    if (f.logical_type() == "struct" && f.metadata().count("lance-encoding:blob") != 0) {
      blob_parent = static_cast<size_t>(i);
    }
    if (!by_id.emplace(f.id(), static_cast<size_t>(i)).second) {
      return Status::Corrupt(Describe(f) + ": the field id repeats");
    }
    if (f.parent_id() == -1) {
      top_level.push_back(static_cast<size_t>(i));
      continue;
    }
    auto parent = by_id.find(f.parent_id());
    if (parent == by_id.end() || parent->second == static_cast<size_t>(i)) {
      return Status::Corrupt(Describe(f) + " refers to parent id " +
                             std::to_string(f.parent_id()) +
                             ", which is missing or listed after it");
    }
    Node& parent_node = nodes[parent->second];
    node.depth = parent_node.depth + 1;
    if (node.depth > kMaxNestingDepth) {
      return Status::Corrupt(Describe(f) + " is nested deeper than " +
                             std::to_string(kMaxNestingDepth) + " levels");
    }
    parent_node.children.push_back(static_cast<size_t>(i));
  }
  std::vector<FieldPtr> top_fields;
  std::vector<int32_t> ids;
  ids.reserve(nodes.size());
  for (size_t index : top_level) {
    LANCE_ASSIGN_OR_RAISE(FieldPtr f, BuildField(nodes, index, &ids));
    top_fields.push_back(std::move(f));
  }
  auto result = LanceSchema::Make(
      schema(std::move(top_fields), SortedMetadata(schema_metadata)), std::move(ids));
  if (!result.ok() && result.status().IsInvalid()) {
    return Status::Corrupt("stored Lance schema: " + result.status().message());
  }
  return result;
}

Result<LanceSchema> SchemaFromProto(const lance::file::Schema& schema) {
  return SchemaFromProtoFields(schema.fields(), schema.metadata());
}

}  // namespace lance::format
