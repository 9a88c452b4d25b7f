// SPDX-License-Identifier: Apache-2.0
// Internal: LanceSchema <-> lance.file.Field protobufs, shared by data files (the
// FileDescriptor) and manifests (the table layer).

#pragma once

#include <google/protobuf/map.h>
#include <google/protobuf/repeated_ptr_field.h>

#include <string>

#include "format/proto/file.pb.h"
#include "lance/format/lance_schema.h"
#include "lance/result.h"
#include "lance/status.h"

namespace lance::format {

/// \brief Appends one Field per Lance field of `schema` in pre-order, as real Lance
/// writes them: name, id, parent_id (-1 at top level), logical_type, nullable, the legacy
/// encoding hint (PLAIN for fixed-width, fixed_size_list, lists and maps; VAR_BINARY for
/// string/binary; DICTIONARY plus an empty `dictionary` message for dictionaries; unset
/// for struct and null) and the Arrow field metadata. A map's child is its entries
/// struct, whose children are the key and the value.
/// \return NotImplemented for a type Lance cannot store.
Status SchemaToProtoFields(const LanceSchema& schema,
                           google::protobuf::RepeatedPtrField<lance::file::Field>* out);

/// \brief As SchemaToProtoFields, plus the schema metadata (FileDescriptor.schema).
Status SchemaToProto(const LanceSchema& schema, lance::file::Schema* out);

/// \brief Rebuilds a LanceSchema from Fields (any order in which every parent comes
/// before its children; children keep their relative order) plus schema metadata.
///
/// Metadata maps are unordered in protobuf; keys come back sorted.
/// \return NotImplemented naming an unknown logical type; Corrupt for duplicate ids, a
/// negative id, a dangling or later-listed parent, a child under a type that has none,
/// a list without exactly one child, or nesting deeper than kMaxNestingDepth.
Result<LanceSchema> SchemaFromProtoFields(
    const google::protobuf::RepeatedPtrField<lance::file::Field>& fields,
    const google::protobuf::Map<std::string, std::string>& schema_metadata);

/// \brief As above from a lance.file.Schema (fields + metadata).
Result<LanceSchema> SchemaFromProto(const lance::file::Schema& schema);

}  // namespace lance::format
