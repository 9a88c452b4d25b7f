// SPDX-License-Identifier: Apache-2.0
// Transaction files (.txn): the protobuf, then what a commit does with one: applied to a
// small two-fragment manifest (and to no manifest), checked for conflicts against
// itself and an Append, and the resulting manifest written and read back.
#include <string>

#include "format/schema_proto.h"
#include "fuzz/fuzz_entries.h"
#include "table/manifest.h"
#include "table/proto/table.pb.h"
#include "table/proto/transaction.pb.h"
#include "table/transaction.h"

namespace lance::fuzz {

namespace ti = lance::table_internal;

void AddTopLevelField(table::Manifest* manifest, const std::string& name, int32_t id,
                      const std::string& logical_type, bool nullable) {
  auto* f = manifest->add_fields();
  f->set_name(name);
  f->set_id(id);
  f->set_parent_id(-1);
  f->set_logical_type(logical_type);
  f->set_nullable(nullable);
}

namespace {

// Version 3 of a dataset with columns x (int64) and s (string), fragments 0 and 1 (one
// with a deletion file).
table::Manifest BaseManifest() {
  table::Manifest m;
  AddTopLevelField(&m, "x", 0, "int64", true);
  AddTopLevelField(&m, "s", 1, "string", true);
  for (uint64_t id = 0; id < 2; ++id) {
    auto* frag = m.add_fragments();
    frag->set_id(id);
    frag->set_physical_rows(10);
    auto* file = frag->add_files();
    file->set_path("f" + std::to_string(id) + ".lance");
    file->add_fields(0);
    file->add_fields(1);
    file->add_column_indices(0);
    file->add_column_indices(1);
    file->set_file_major_version(2);
    file->set_file_minor_version(0);
    if (id == 1) {
      auto* del = frag->mutable_deletion_file();
      del->set_file_type(table::DeletionFile::ARROW_ARRAY);
      del->set_read_version(2);
      del->set_id(7);
      del->set_num_deleted_rows(3);
    }
  }
  m.set_version(3);
  m.set_max_fragment_id(1);
  m.mutable_data_format()->set_file_format("lance");
  m.mutable_data_format()->set_version("2.0");
  return m;
}

}  // namespace

Status FuzzTransaction(std::string_view data) {
  table::Transaction txn;
  if (!txn.ParseFromArray(data.data(), static_cast<int>(data.size()))) {
    return Status::Corrupt("transaction does not parse");
  }
  (void)ti::OperationName(txn);
  const table::Manifest base = BaseManifest();
  table::Transaction append;
  append.set_read_version(3);
  append.mutable_append()->add_fragments()->set_physical_rows(1);
  (void)ti::CheckConflict(txn, txn, 4, "memory://fuzz/ds");
  (void)ti::CheckConflict(txn, append, 4, "memory://fuzz/ds");
  (void)ti::CheckConflict(append, txn, 4, "memory://fuzz/ds");
  (void)ti::BuildManifest(nullptr, txn, 1, {});
  auto built = ti::BuildManifest(&base, txn, 4, {});
  if (!built.ok()) return built.status();
  // What opening the new version would check first.
  auto schema = format::SchemaFromProtoFields(built->fields(), built->schema_metadata());
  if (!schema.ok()) return schema.status();
  std::string bytes = ti::SerializeManifestFile(*built, "", &txn);
  auto back = ti::ParseManifestFile(bytes, "fuzz/_versions/4.manifest");
  if (!back.ok()) return back.status();
  return Status::OK();
}

}  // namespace lance::fuzz
