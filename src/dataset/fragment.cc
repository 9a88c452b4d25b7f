// SPDX-License-Identifier: Apache-2.0
// FragmentMetadata: pylance's JSON shape and the manifest protobuf.
//
// pylance (`FragmentMetadata.to_json()`, checked with pylance 14) produces:
//   {"id": 0,
//    "files": [{"fields": [0, 1], "column_indices": [0, 1], "file_major_version": 2,
//               "file_minor_version": 0, "file_size_bytes": 639 | null,
//               "base_id": null, "path": "<name>.lance"}],
//    "overlays": [], "physical_rows": 3,
//    "deletion_file": null | {"read_version": 1, "id": 149..., "file_type": "array" |
//                             "bitmap", "num_deleted_rows": 1, "base_id": null},
//    "row_id_meta": null, "created_at_version_meta": null,
//    "last_updated_at_version_meta": null}
// Older pylance versions omit some keys; absent keys take their defaults.
#include "lance/dataset/fragment.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "dataset/fragment_internal.h"
#include "lance/macros.h"
#include "table/deletion.h"

namespace lance {
namespace {

using Json = nlohmann::ordered_json;
namespace ti = table_internal;
namespace pb = ::lance::table;

// Readers of one JSON value; each returns Invalid naming `where` on a type mismatch.
Result<uint64_t> GetU64(const Json& obj, const char* key, const std::string& where,
                        bool required, uint64_t fallback = 0) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required)
      return Status::Invalid("Fragment JSON: " + where + "." + key + " is missing");
    return fallback;
  }
  if (!it->is_number_integer() ||
      (it->is_number_integer() && !it->is_number_unsigned() && it->get<int64_t>() < 0)) {
    return Status::Invalid("Fragment JSON: " + where + "." + key +
                           " must be a non-negative integer, got " + it->dump());
  }
  return it->get<uint64_t>();
}

Result<std::optional<uint32_t>> GetOptionalU32(const Json& obj, const char* key,
                                               const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<uint32_t>();
  auto v = GetU64(obj, key, where, true);
  if (!v.ok()) return v.status();
  if (*v > std::numeric_limits<uint32_t>::max()) {
    return Status::Invalid("Fragment JSON: " + where + "." + key + " exceeds 32 bits");
  }
  return std::optional<uint32_t>(static_cast<uint32_t>(*v));
}

Result<std::vector<int32_t>> GetI32List(const Json& obj, const char* key,
                                        const std::string& where) {
  std::vector<int32_t> out;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return out;
  if (!it->is_array()) {
    return Status::Invalid("Fragment JSON: " + where + "." + key + " must be an array");
  }
  for (const Json& v : *it) {
    if (!v.is_number_integer() ||
        v.get<int64_t>() < std::numeric_limits<int32_t>::min() ||
        v.get<int64_t>() > std::numeric_limits<int32_t>::max()) {
      return Status::Invalid("Fragment JSON: " + where + "." + key +
                             " must hold 32-bit integers, got " + v.dump());
    }
    out.push_back(static_cast<int32_t>(v.get<int64_t>()));
  }
  return out;
}

Json OptionalToJson(const std::optional<uint32_t>& v) {
  return v ? Json(*v) : Json(nullptr);
}

// files[i] of a fragment; `where` names it in errors ("files[i]").
Result<DataFileMeta> ParseDataFile(const Json& f, const std::string& where) {
  if (!f.is_object())
    return Status::Invalid("Fragment JSON: " + where + " must be an object");
  DataFileMeta file;
  auto path = f.find("path");
  if (path == f.end() || !path->is_string() || path->get<std::string>().empty()) {
    return Status::Invalid("Fragment JSON: " + where +
                           ".path must be a non-empty string");
  }
  file.path = path->get<std::string>();
  LANCE_ASSIGN_OR_RAISE(file.fields, GetI32List(f, "fields", where));
  LANCE_ASSIGN_OR_RAISE(file.column_indices, GetI32List(f, "column_indices", where));
  LANCE_ASSIGN_OR_RAISE(std::optional<uint32_t> major,
                        GetOptionalU32(f, "file_major_version", where));
  file.file_major_version = major.value_or(0);
  LANCE_ASSIGN_OR_RAISE(std::optional<uint32_t> minor,
                        GetOptionalU32(f, "file_minor_version", where));
  file.file_minor_version = minor.value_or(0);
  LANCE_ASSIGN_OR_RAISE(file.file_size_bytes, GetU64(f, "file_size_bytes", where, false));
  LANCE_ASSIGN_OR_RAISE(file.base_id, GetOptionalU32(f, "base_id", where));
  return file;
}

Result<DeletionFileMeta> ParseDeletionFile(const Json& del) {
  if (!del.is_object()) {
    return Status::Invalid("Fragment JSON: deletion_file must be an object or null");
  }
  DeletionFileMeta d;
  LANCE_ASSIGN_OR_RAISE(d.read_version,
                        GetU64(del, "read_version", "deletion_file", true));
  LANCE_ASSIGN_OR_RAISE(d.id, GetU64(del, "id", "deletion_file", true));
  LANCE_ASSIGN_OR_RAISE(d.num_deleted_rows,
                        GetU64(del, "num_deleted_rows", "deletion_file", false));
  auto type = del.find("file_type");
  if (type == del.end() || type->is_null()) {
    return Status::Invalid("Fragment JSON: deletion_file.file_type is missing");
  }
  if (type->is_string() && (*type == "array" || *type == "arrow")) {
    d.file_type = DeletionFileMeta::Type::kArrowArray;
  } else if (type->is_string() && *type == "bitmap") {
    d.file_type = DeletionFileMeta::Type::kBitmap;
  } else if (type->is_number_integer() && (*type == 0 || *type == 1)) {
    d.file_type = *type == 0 ? DeletionFileMeta::Type::kArrowArray
                             : DeletionFileMeta::Type::kBitmap;
  } else {
    return Status::Invalid(
        "Fragment JSON: deletion_file.file_type must be \"array\" or "
        "\"bitmap\", got " +
        type->dump());
  }
  LANCE_ASSIGN_OR_RAISE(d.base_id, GetOptionalU32(del, "base_id", "deletion_file"));
  return d;
}

// Metadata for features we cannot carry (stable row ids, row lineage, overlays):
// refuse rather than silently drop it.
Status CheckNoUnsupportedMetadata(const Json& root) {
  for (const char* key :
       {"row_id_meta", "created_at_version_meta", "last_updated_at_version_meta"}) {
    auto it = root.find(key);
    if (it != root.end() && !it->is_null()) {
      return Status::NotImplemented(std::string("Fragment JSON: ") + key +
                                    " (stable row ids / row lineage) is not supported");
    }
  }
  auto overlays = root.find("overlays");
  if (overlays != root.end() && !overlays->is_null() &&
      !(overlays->is_array() && overlays->empty())) {
    return Status::NotImplemented("Fragment JSON: overlays are not supported");
  }
  return Status::OK();
}

Result<FragmentMetadata> ParseFragment(const Json& root) {
  if (!root.is_object()) return Status::Invalid("Fragment JSON must be an object");
  FragmentMetadata out;
  LANCE_ASSIGN_OR_RAISE(out.id, GetU64(root, "id", "fragment", false));
  LANCE_ASSIGN_OR_RAISE(out.physical_rows,
                        GetU64(root, "physical_rows", "fragment", false));

  auto files = root.find("files");
  if (files != root.end() && !files->is_null()) {
    if (!files->is_array())
      return Status::Invalid("Fragment JSON: files must be an array");
    for (size_t i = 0; i < files->size(); ++i) {
      LANCE_ASSIGN_OR_RAISE(
          DataFileMeta file,
          ParseDataFile((*files)[i], "files[" + std::to_string(i) + "]"));
      out.files.push_back(std::move(file));
    }
  }

  auto del = root.find("deletion_file");
  if (del != root.end() && !del->is_null()) {
    LANCE_ASSIGN_OR_RAISE(out.deletion_file, ParseDeletionFile(*del));
  }
  LANCE_RETURN_NOT_OK(CheckNoUnsupportedMetadata(root));
  return out;
}

}  // namespace

std::string DeletionFileMeta::RelativePath(uint64_t fragment_id) const {
  return "_deletions/" + std::to_string(fragment_id) + "-" +
         std::to_string(read_version) + "-" + std::to_string(id) +
         (file_type == Type::kBitmap ? ".bin" : ".arrow");
}

uint64_t FragmentMetadata::num_rows() const {
  const uint64_t deleted = deletion_file ? deletion_file->num_deleted_rows : 0;
  return physical_rows > deleted ? physical_rows - deleted : 0;
}

std::string FragmentMetadata::ToJson() const {
  Json root;
  root["id"] = id;
  Json files_json = Json::array();
  for (const DataFileMeta& f : files) {
    Json file;
    file["fields"] = f.fields;
    file["column_indices"] = f.column_indices;
    file["file_major_version"] = f.file_major_version;
    file["file_minor_version"] = f.file_minor_version;
    file["file_size_bytes"] =
        f.file_size_bytes == 0 ? Json(nullptr) : Json(f.file_size_bytes);
    file["base_id"] = OptionalToJson(f.base_id);
    file["path"] = f.path;
    files_json.push_back(std::move(file));
  }
  root["files"] = std::move(files_json);
  root["overlays"] = Json::array();
  root["physical_rows"] = physical_rows;
  if (deletion_file) {
    Json d;
    d["read_version"] = deletion_file->read_version;
    d["id"] = deletion_file->id;
    d["file_type"] =
        deletion_file->file_type == DeletionFileMeta::Type::kBitmap ? "bitmap" : "array";
    d["num_deleted_rows"] = deletion_file->num_deleted_rows;
    d["base_id"] = OptionalToJson(deletion_file->base_id);
    root["deletion_file"] = std::move(d);
  } else {
    root["deletion_file"] = nullptr;
  }
  root["row_id_meta"] = nullptr;
  root["created_at_version_meta"] = nullptr;
  root["last_updated_at_version_meta"] = nullptr;
  return root.dump();
}

Result<FragmentMetadata> FragmentMetadata::FromJson(const std::string& json) {
  Json root = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded())
    return Status::Invalid("Fragment JSON does not parse: " + json.substr(0, 200));
  try {
    return ParseFragment(root);
  } catch (const nlohmann::json::exception& e) {
    // Defensive: every access above is type-checked first.
    return Status::Invalid(std::string("Fragment JSON: ") + e.what());
  }
}

namespace table_internal {

pb::DataFragment FragmentToProto(const FragmentMetadata& fragment) {
  pb::DataFragment out;
  out.set_id(fragment.id);
  out.set_physical_rows(fragment.physical_rows);
  for (const DataFileMeta& f : fragment.files) {
    pb::DataFile* file = out.add_files();
    file->set_path(f.path);
    for (int32_t v : f.fields) file->add_fields(v);
    for (int32_t v : f.column_indices) file->add_column_indices(v);
    file->set_file_major_version(f.file_major_version);
    file->set_file_minor_version(f.file_minor_version);
    file->set_file_size_bytes(f.file_size_bytes);
    if (f.base_id) file->set_base_id(*f.base_id);
  }
  if (fragment.deletion_file) {
    const DeletionFileMeta& d = *fragment.deletion_file;
    pb::DeletionFile* del = out.mutable_deletion_file();
    del->set_file_type(d.file_type == DeletionFileMeta::Type::kBitmap
                           ? pb::DeletionFile::BITMAP
                           : pb::DeletionFile::ARROW_ARRAY);
    del->set_read_version(d.read_version);
    del->set_id(d.id);
    del->set_num_deleted_rows(d.num_deleted_rows);
    if (d.base_id) del->set_base_id(*d.base_id);
  }
  return out;
}

FragmentMetadata FragmentFromProto(const pb::DataFragment& fragment) {
  FragmentMetadata out;
  out.id = fragment.id();
  out.physical_rows = fragment.physical_rows();
  for (const pb::DataFile& f : fragment.files()) {
    DataFileMeta file;
    file.path = f.path();
    file.fields.assign(f.fields().begin(), f.fields().end());
    file.column_indices.assign(f.column_indices().begin(), f.column_indices().end());
    file.file_major_version = f.file_major_version();
    file.file_minor_version = f.file_minor_version();
    file.file_size_bytes = f.file_size_bytes();
    if (f.has_base_id()) file.base_id = f.base_id();
    out.files.push_back(std::move(file));
  }
  if (fragment.has_deletion_file()) {
    const pb::DeletionFile& d = fragment.deletion_file();
    DeletionFileMeta del;
    del.file_type = d.file_type() == pb::DeletionFile::BITMAP
                        ? DeletionFileMeta::Type::kBitmap
                        : DeletionFileMeta::Type::kArrowArray;
    del.read_version = d.read_version();
    del.id = d.id();
    del.num_deleted_rows = d.num_deleted_rows();
    if (d.has_base_id()) del.base_id = d.base_id();
    out.deletion_file = del;
  }
  return out;
}

}  // namespace table_internal
}  // namespace lance
