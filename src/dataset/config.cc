// SPDX-License-Identifier: Apache-2.0
// Table config and schema / field metadata: Lance's `UpdateConfig` operation, written in
// the form Lance 8 writes (config_updates, schema_metadata_updates,
// field_metadata_updates).
#include "dataset/dataset_internal.h"
#include "lance/dataset/dataset.h"
#include "lance/macros.h"
#include "table/commit.h"
#include "table/transaction.h"

namespace lance {

namespace ti = table_internal;
namespace pb = ti::pb;

namespace {

Status CommitUpdateConfig(const std::shared_ptr<DatasetImpl>& ds, pb::Transaction txn,
                          std::shared_ptr<DatasetImpl>* out) {
  txn.set_read_version(ds->proto().version());
  ti::CommitOptions options;
  LANCE_ASSIGN_OR_RAISE(
      ti::LoadedManifest committed,
      ti::CommitTransaction(ds->dir, &ds->manifest, std::move(txn), options));
  LANCE_ASSIGN_OR_RAISE(
      *out, ti::MakeDatasetImpl(ds->uri, ds->access, ds->dir, std::move(committed)));
  return Status::OK();
}

void FillMap(const std::map<std::string, std::string>& values, bool replace,
             pb::Transaction::UpdateMap* out) {
  out->set_replace(replace);
  for (const auto& [k, v] : values) {
    auto* e = out->add_update_entries();
    e->set_key(k);
    e->set_value(v);
  }
}

// The field id of a top-level name or a dotted path of struct members.
Result<int32_t> FieldIdOf(const pb::Manifest& m, const std::string& path) {
  int32_t parent = -1;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string part =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    std::optional<int32_t> found;
    for (const auto& f : m.fields()) {
      if (f.parent_id() == parent && f.name() == part) found = f.id();
    }
    if (!found) {
      return Status::Invalid("Cannot replace the metadata of field ", path,
                             ": the schema has no such field");
    }
    if (dot == std::string::npos) return *found;
    parent = *found;
    start = dot + 1;
  }
}

}  // namespace

std::map<std::string, std::string> Dataset::Config() const {
  return {impl_->proto().config().begin(), impl_->proto().config().end()};
}

Status Dataset::UpdateConfig(
    const std::map<std::string, std::optional<std::string>>& updates, bool replace) {
  pb::Transaction txn;
  auto* map = txn.mutable_update_config()->mutable_config_updates();
  map->set_replace(replace);
  for (const auto& [k, v] : updates) {
    auto* e = map->add_update_entries();
    e->set_key(k);
    if (v) e->set_value(*v);
  }
  return CommitUpdateConfig(impl_, std::move(txn), &impl_);
}

Status Dataset::DeleteConfigKeys(const std::vector<std::string>& keys) {
  pb::Transaction txn;
  auto* map = txn.mutable_update_config()->mutable_config_updates();
  for (const std::string& k : keys) map->add_update_entries()->set_key(k);
  return CommitUpdateConfig(impl_, std::move(txn), &impl_);
}

Status Dataset::ReplaceSchemaMetadata(
    const std::map<std::string, std::string>& metadata) {
  pb::Transaction txn;
  FillMap(metadata, true, txn.mutable_update_config()->mutable_schema_metadata_updates());
  return CommitUpdateConfig(impl_, std::move(txn), &impl_);
}

Status Dataset::ReplaceFieldMetadata(const std::string& field,
                                     const std::map<std::string, std::string>& metadata) {
  LANCE_ASSIGN_OR_RAISE(int32_t id, FieldIdOf(impl_->proto(), field));
  pb::Transaction txn;
  pb::Transaction::UpdateMap map;
  FillMap(metadata, true, &map);
  (*txn.mutable_update_config()->mutable_field_metadata_updates())[id] = std::move(map);
  return CommitUpdateConfig(impl_, std::move(txn), &impl_);
}

}  // namespace lance
