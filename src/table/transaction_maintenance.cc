// SPDX-License-Identifier: Apache-2.0
// Manifest building and conflict rules of the maintenance operations (see transaction.h):
// Rewrite (compaction), Restore and UpdateConfig, as Lance applies and checks them
// (rust/lance/src/dataset/transaction.rs, rust/lance/src/io/commit/conflict_resolver.rs).
#include <algorithm>
#include <set>
#include <unordered_map>

#include "lance/macros.h"
#include "lance/str_cat.h"
#include "table/transaction.h"

namespace lance::table_internal {

namespace {

using Op = pb::Transaction::OperationCase;

thread_local const pb::Manifest* g_restore_source = nullptr;

// The rewrite groups of `op`, the deprecated flat lists counting as one group.
std::vector<pb::Transaction::Rewrite::RewriteGroup> Groups(
    const pb::Transaction::Rewrite& op) {
  std::vector<pb::Transaction::Rewrite::RewriteGroup> groups(op.groups().begin(),
                                                             op.groups().end());
  if (op.old_fragments_size() > 0 || op.new_fragments_size() > 0) {
    pb::Transaction::Rewrite::RewriteGroup g;
    *g.mutable_old_fragments() = op.old_fragments();
    *g.mutable_new_fragments() = op.new_fragments();
    groups.push_back(std::move(g));
  }
  return groups;
}

Status ApplyRewrite(const pb::Transaction::Rewrite& op, pb::Manifest* m) {
  int64_t mark = HighWaterMark(*m);
  for (const auto& group : Groups(op)) {
    std::set<uint64_t> old_ids;
    for (const auto& f : group.old_fragments()) old_ids.insert(f.id());
    std::set<uint64_t> present;
    for (const auto& f : m->fragments()) {
      if (old_ids.count(f.id()) != 0) present.insert(f.id());
    }
    if (present.size() != old_ids.size()) {
      for (uint64_t id : old_ids) {
        if (present.count(id) == 0) {
          return Status::Conflict(
              "Fragment ", id, " this Rewrite replaces no longer exists in the dataset");
        }
      }
    }
    // Lance splices the new fragments where the old ones were; the manifest is sorted
    // by id afterwards by BuildManifest.
    google::protobuf::RepeatedPtrField<pb::DataFragment> kept;
    for (auto& f : *m->mutable_fragments()) {
      if (old_ids.count(f.id()) == 0) *kept.Add() = std::move(f);
    }
    m->mutable_fragments()->Swap(&kept);
    for (const auto& f : group.new_fragments()) {
      pb::DataFragment* out = m->add_fragments();
      *out = f;
      // Ids reserved beforehand (ReserveFragments, as Lance's compaction does) are
      // kept; reservations start above the high-water mark, so they are never 0.
      if (f.id() != 0) {
        mark = std::max(mark, static_cast<int64_t>(f.id()));
      } else {
        out->set_id(static_cast<uint64_t>(++mark));
      }
    }
  }
  return SetHighWaterMark(m, mark);
}

template <typename MapT, typename Convert>
void ApplyUpdateMap(const pb::Transaction::UpdateMap& update, MapT* target,
                    Convert convert) {
  if (update.replace()) target->clear();
  for (const auto& entry : update.update_entries()) {
    if (entry.has_value()) {
      (*target)[entry.key()] = convert(entry.value());
    } else {
      target->erase(entry.key());
    }
  }
}

::lance::file::Field* FindField(pb::Manifest* m, int32_t id) {
  for (auto& f : *m->mutable_fields()) {
    if (f.id() == id) return &f;
  }
  return nullptr;
}

Status ApplyUpdateConfig(const pb::Transaction::UpdateConfig& op, pb::Manifest* m) {
  auto same = [](const std::string& s) { return s; };
  // Deprecated forms first, then the maps Lance 8 writes.
  for (const auto& [k, v] : op.upsert_values()) (*m->mutable_config())[k] = v;
  for (const std::string& k : op.delete_keys()) m->mutable_config()->erase(k);
  if (!op.schema_metadata().empty()) {
    m->mutable_schema_metadata()->clear();
    for (const auto& [k, v] : op.schema_metadata())
      (*m->mutable_schema_metadata())[k] = v;
  }
  for (const auto& [id, update] : op.field_metadata()) {
    ::lance::file::Field* field = FindField(m, static_cast<int32_t>(id));
    if (field == nullptr) {
      return Status::Invalid("UpdateConfig names field id ", id,
                             ", which the schema does not have");
    }
    field->mutable_metadata()->clear();
    for (const auto& [k, v] : update.metadata()) (*field->mutable_metadata())[k] = v;
  }
  if (op.has_config_updates())
    ApplyUpdateMap(op.config_updates(), m->mutable_config(), same);
  if (op.has_table_metadata_updates()) {
    ApplyUpdateMap(op.table_metadata_updates(), m->mutable_table_metadata(), same);
  }
  if (op.has_schema_metadata_updates()) {
    ApplyUpdateMap(op.schema_metadata_updates(), m->mutable_schema_metadata(), same);
  }
  for (const auto& [id, update] : op.field_metadata_updates()) {
    ::lance::file::Field* field = FindField(m, id);
    if (field == nullptr) {
      return Status::Invalid("UpdateConfig names field id ", id,
                             ", which the schema does not have");
    }
    ApplyUpdateMap(update, field->mutable_metadata(), same);
  }
  return Status::OK();
}

bool TouchesSchemaMetadata(const pb::Transaction::UpdateConfig& op) {
  return op.has_schema_metadata_updates() || !op.schema_metadata().empty();
}
bool TouchesFieldMetadata(const pb::Transaction::UpdateConfig& op) {
  return !op.field_metadata_updates().empty() || !op.field_metadata().empty();
}

Status CheckRewriteConflict(const ConflictCheck& c) {
  std::set<uint64_t> mine_ids;
  for (const auto& g : Groups(c.mine.rewrite())) {
    for (const auto& f : g.old_fragments()) mine_ids.insert(f.id());
  }
  auto clash = [&](uint64_t id) { return mine_ids.count(id) != 0; };
  // Their delete and update both name the fragments they kept changed and the ones
  // they dropped; touching either is the same conflict.
  auto changed = [&](const auto& updated, const auto& removed_ids) -> Status {
    for (const auto& f : updated) {
      if (clash(f.id())) return c.Retryable(StrCat("both changed fragment ", f.id()));
    }
    for (uint64_t id : removed_ids) {
      if (clash(id)) return c.Retryable(StrCat("both changed fragment ", id));
    }
    return Status::OK();
  };
  const pb::Transaction& theirs = c.theirs;
  switch (c.their_op()) {
    case Op::kAppend:
    case Op::kReserveFragments:
    case Op::kProject:
    case Op::kClone:
    case Op::kUpdateConfig:
    case Op::kUpdateMemWalState:
    case Op::kUpdateBases:
      return Status::OK();
    case Op::kDelete:
      return changed(theirs.delete_().updated_fragments(),
                     theirs.delete_().deleted_fragment_ids());
    case Op::kUpdate:
      return changed(theirs.update().updated_fragments(),
                     theirs.update().removed_fragment_ids());
    case Op::kRewrite:
      for (const auto& g : Groups(theirs.rewrite())) {
        for (const auto& f : g.old_fragments()) {
          if (clash(f.id())) {
            return c.Retryable(StrCat("both rewrote fragment ", f.id()));
          }
        }
      }
      return Status::OK();
    case Op::kDataReplacement:
      for (const auto& r : theirs.data_replacement().replacements()) {
        if (clash(r.fragment_id())) {
          return c.Retryable(StrCat("both changed fragment ", r.fragment_id()));
        }
      }
      return Status::OK();
    case Op::kMerge:
      return c.Retryable("");
    case Op::kCreateIndex:
      // Lance remaps indices covering rewritten fragments; we cannot, so we ask
      // for the compaction to be planned again (Lance: retryable when the index
      // covers a rewritten fragment).
      return c.Retryable("an index was created concurrently");
    case Op::kOverwrite:
    case Op::kRestore:
      return c.Incompatible("it replaced the dataset's fragments");
    default:
      return c.Incompatible("");
  }
}

Status CheckUpdateConfigConflict(const ConflictCheck& c) {
  const auto& op = c.mine.update_config();
  switch (c.their_op()) {
    case Op::kOverwrite:
      if (TouchesSchemaMetadata(op) || TouchesFieldMetadata(op)) {
        return c.Incompatible("it replaced the schema");
      }
      return c.IncompatibleIfSameConfigKey();
    case Op::kUpdateConfig: {
      LANCE_RETURN_NOT_OK(c.IncompatibleIfSameConfigKey());
      const auto& other = c.theirs.update_config();
      if ((TouchesSchemaMetadata(op) && TouchesSchemaMetadata(other)) ||
          (TouchesFieldMetadata(op) && TouchesFieldMetadata(other)) ||
          (op.has_table_metadata_updates() && other.has_table_metadata_updates()) ||
          (op.config_updates().replace() || other.config_updates().replace())) {
        return c.Incompatible("both changed the same metadata");
      }
      return Status::OK();
    }
    case Op::kRestore:
    case Op::kUpdateMemWalState:
    case Op::OPERATION_NOT_SET:
      return c.Incompatible("");
    case Op::kMerge:
    case Op::kProject:
      if (TouchesFieldMetadata(op)) return c.Retryable("the schema changed");
      return Status::OK();
    default:
      return Status::OK();
  }
}

}  // namespace

std::set<std::string> ConfigKeys(const pb::Transaction& txn) {
  std::set<std::string> keys;
  if (txn.has_update_config()) {
    const auto& op = txn.update_config();
    for (const auto& [k, v] : op.upsert_values()) keys.insert(k);
    for (const auto& k : op.delete_keys()) keys.insert(k);
    for (const auto& e : op.config_updates().update_entries()) keys.insert(e.key());
  } else if (txn.has_overwrite()) {
    for (const auto& [k, v] : txn.overwrite().config_upsert_values()) keys.insert(k);
  }
  return keys;
}

RestoreSourceScope::RestoreSourceScope(const pb::Manifest* source)
    : previous_(g_restore_source) {
  g_restore_source = source;
}
RestoreSourceScope::~RestoreSourceScope() { g_restore_source = previous_; }
const pb::Manifest* RestoreSourceScope::Current() { return g_restore_source; }

Status ApplyMaintenance(const pb::Transaction& txn, pb::Manifest* m) {
  switch (txn.operation_case()) {
    case Op::kRewrite:
      return ApplyRewrite(txn.rewrite(), m);
    case Op::kUpdateConfig:
      return ApplyUpdateConfig(txn.update_config(), m);
    case Op::kReserveFragments: {
      // Lance's compaction reserves the ids of its new fragments in a version of its
      // own (which changes nothing else), then commits the Rewrite with those ids.
      return SetHighWaterMark(
          m, HighWaterMark(*m) + txn.reserve_fragments().num_fragments());
    }
    case Op::kRestore: {
      // Lance: the new version is the old manifest as it was (schema, fragments,
      // config), under the next version number.
      const pb::Manifest* source = RestoreSourceScope::Current();
      if (source == nullptr || source->version() != txn.restore().version()) {
        return Status::NotImplemented(
            "lance-cpp applies a Restore only through Dataset::Restore (version ",
            txn.restore().version(), " is not loaded on this thread)");
      }
      *m = *source;
      return Status::OK();
    }
    default:
      return CannotApply(txn, " yet");
  }
}

Status CheckMaintenanceConflict(const ConflictCheck& check) {
  const Op t = check.their_op();
  switch (check.mine.operation_case()) {
    case Op::kReserveFragments:
      // Lance: reserving ids changes no data; only a dataset replaced meanwhile makes
      // the reservation meaningless.
      if (t == Op::kOverwrite || t == Op::kRestore || t == Op::OPERATION_NOT_SET)
        return check.Incompatible("it replaced the dataset's fragments");
      return Status::OK();
    case Op::kRestore:
      // Lance: a Restore wins over everything but a MemWAL state change.
      if (t == Op::kUpdateMemWalState || t == Op::OPERATION_NOT_SET)
        return check.Incompatible("");
      return Status::OK();
    case Op::kRewrite:
      return CheckRewriteConflict(check);
    case Op::kUpdateConfig:
      return CheckUpdateConfigConflict(check);
    default:
      return check.Incompatible("");
  }
}

}  // namespace lance::table_internal
