// SPDX-License-Identifier: Apache-2.0
// Manifest building and conflict rules of the mutation operations (see transaction.h):
// Update (update, merge-insert), Merge (add columns, casts), Project (drop, rename,
// nullability) and DataReplacement. The rules follow Lance's conflict_resolver.rs;
// docs/mutations.md has the table.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "lance/macros.h"
#include "table/transaction.h"

namespace lance::table_internal {
namespace {

using Op = pb::Transaction::OperationCase;

int64_t HighWaterMarkOf(const pb::Manifest& m) {
  int64_t mark = m.has_max_fragment_id() ? static_cast<int64_t>(m.max_fragment_id()) : -1;
  for (const auto& f : m.fragments()) mark = std::max(mark, static_cast<int64_t>(f.id()));
  return mark;
}

Status SetHighWaterMark(pb::Manifest* m, int64_t mark) {
  if (mark > static_cast<int64_t>(UINT32_MAX)) {
    return Status::Invalid("Fragment ids exhausted the 32-bit max_fragment_id");
  }
  if (mark >= 0) m->set_max_fragment_id(static_cast<uint32_t>(mark));
  return Status::OK();
}

Status ApplyUpdate(const pb::Transaction::Update& op, pb::Manifest* m) {
  std::unordered_map<uint64_t, int> index;
  for (int i = 0; i < m->fragments_size(); ++i) index[m->fragments(i).id()] = i;
  for (const pb::DataFragment& updated : op.updated_fragments()) {
    auto it = index.find(updated.id());
    if (it == index.end()) {
      return Status(
          StatusCode::kConflict,
          StrCat("Fragment ", updated.id(), " this Update changes no longer exists"),
          true);
    }
    // Only the deletion vector changes; everything else of the fragment is kept as the
    // latest version has it (a concurrent Project may have dropped one of its files).
    pb::DataFragment* target = m->mutable_fragments(it->second);
    if (updated.has_deletion_file()) {
      *target->mutable_deletion_file() = updated.deletion_file();
    } else {
      target->clear_deletion_file();
    }
  }
  std::set<uint64_t> removed;
  for (uint64_t id : op.removed_fragment_ids()) {
    if (index.find(id) == index.end()) {
      return Status(StatusCode::kConflict,
                    StrCat("Fragment ", id, " this Update removes no longer exists"),
                    true);
    }
    removed.insert(id);
  }
  int64_t mark = HighWaterMarkOf(*m);
  if (!removed.empty()) {
    google::protobuf::RepeatedPtrField<pb::DataFragment> kept;
    for (auto& f : *m->mutable_fragments()) {
      if (removed.count(f.id()) == 0) *kept.Add() = std::move(f);
    }
    m->mutable_fragments()->Swap(&kept);
  }
  for (const pb::DataFragment& frag : op.new_fragments()) {
    pb::DataFragment* out = m->add_fragments();
    *out = frag;
    out->set_id(static_cast<uint64_t>(++mark));
  }
  return SetHighWaterMark(m, mark);
}

Status ApplyMerge(const pb::Transaction::Merge& op, pb::Manifest* m) {
  // The Merge lists every fragment of the new version (ids kept).
  const int64_t mark = HighWaterMarkOf(*m);
  *m->mutable_fragments() = op.fragments();
  *m->mutable_fields() = op.schema();
  *m->mutable_schema_metadata() = op.schema_metadata();
  return SetHighWaterMark(m, std::max(mark, HighWaterMarkOf(*m)));
}

Status ApplyProject(const pb::Transaction::Project& op, pb::Manifest* m) {
  *m->mutable_fields() = op.schema();
  std::set<int32_t> remaining;
  for (const auto& field : op.schema()) remaining.insert(field.id());
  // Data files left without any field of the schema leave the manifest, as in Lance.
  for (pb::DataFragment& frag : *m->mutable_fragments()) {
    google::protobuf::RepeatedPtrField<pb::DataFile> kept;
    for (pb::DataFile& file : *frag.mutable_files()) {
      const bool used = std::any_of(file.fields().begin(), file.fields().end(),
                                    [&](int32_t id) { return remaining.count(id) != 0; });
      if (used) *kept.Add() = std::move(file);
    }
    frag.mutable_files()->Swap(&kept);
  }
  return Status::OK();
}

// Fragments an Update of ours changes (Lance's modified_fragment_ids).
std::set<uint64_t> UpdateTouches(const pb::Transaction::Update& op) {
  std::set<uint64_t> ids(op.removed_fragment_ids().begin(),
                         op.removed_fragment_ids().end());
  for (const auto& f : op.updated_fragments()) ids.insert(f.id());
  return ids;
}

// Existing fragments another commit rewrote, replaced, updated or removed.
std::set<uint64_t> TheirChangedFragments(const pb::Transaction& txn) {
  std::set<uint64_t> ids;
  switch (txn.operation_case()) {
    case Op::kDelete:
      ids.insert(txn.delete_().deleted_fragment_ids().begin(),
                 txn.delete_().deleted_fragment_ids().end());
      for (const auto& f : txn.delete_().updated_fragments()) ids.insert(f.id());
      break;
    case Op::kUpdate:
      ids = UpdateTouches(txn.update());
      break;
    case Op::kRewrite:
      for (const auto& f : txn.rewrite().old_fragments()) ids.insert(f.id());
      for (const auto& group : txn.rewrite().groups()) {
        for (const auto& f : group.old_fragments()) ids.insert(f.id());
      }
      break;
    case Op::kDataReplacement:
      for (const auto& r : txn.data_replacement().replacements())
        ids.insert(r.fragment_id());
      break;
    case Op::kDataOverlay:
      for (const auto& g : txn.data_overlay().groups()) ids.insert(g.fragment_id());
      break;
    default:
      break;
  }
  return ids;
}

}  // namespace

Status ApplyMutation(const pb::Transaction& txn, pb::Manifest* m) {
  switch (txn.operation_case()) {
    case Op::kUpdate:
      return ApplyUpdate(txn.update(), m);
    case Op::kMerge:
      return ApplyMerge(txn.merge(), m);
    case Op::kProject:
      return ApplyProject(txn.project(), m);
    default:
      return Status::NotImplemented("lance-cpp cannot apply this transaction (",
                                    OperationName(txn), ")");
  }
}

Status CheckMutationConflict(const pb::Transaction& mine, const pb::Transaction& theirs,
                             uint64_t their_version, std::string_view uri) {
  const Op t = theirs.operation_case();
  auto retryable = [&](std::string_view why) {
    return ConflictError(mine, theirs, their_version, uri, why, true);
  };
  auto incompatible = [&](std::string_view why) {
    return ConflictError(mine, theirs, their_version, uri, why, false);
  };
  auto overlap = [&](const std::set<uint64_t>& a) -> Status {
    const std::set<uint64_t> b = TheirChangedFragments(theirs);
    for (uint64_t id : a) {
      if (b.count(id) != 0) return retryable(StrCat("both changed fragment ", id));
    }
    return Status::OK();
  };
  switch (mine.operation_case()) {
    case Op::kUpdate:
      switch (t) {
        case Op::kAppend:
        case Op::kCreateIndex:
        case Op::kReserveFragments:
        case Op::kProject:
        case Op::kClone:
        case Op::kUpdateConfig:
        case Op::kUpdateBases:
          return Status::OK();
        case Op::kDelete:
        case Op::kUpdate:
        case Op::kRewrite:
        case Op::kDataReplacement:
        case Op::kDataOverlay:
          // Lance can sometimes merge two deletion vectors of one fragment; we ask for
          // a new plan instead whenever both touched the same fragment.
          return overlap(UpdateTouches(mine.update()));
        case Op::kMerge:
          return retryable("it changed the schema and every fragment's files");
        case Op::kOverwrite:
        case Op::kRestore:
          return incompatible("it replaced the dataset's fragments");
        default:
          return incompatible("");
      }
    case Op::kMerge:
      switch (t) {
        case Op::kCreateIndex:
        case Op::kReserveFragments:
        case Op::kClone:
        case Op::kUpdateConfig:
        case Op::kUpdateBases:
          return Status::OK();
        case Op::kAppend:
        case Op::kDelete:
        case Op::kUpdate:
        case Op::kRewrite:
        case Op::kMerge:
        case Op::kDataReplacement:
        case Op::kDataOverlay:
          // A Merge lists every fragment: any change to the fragments needs a new plan.
          return retryable("a Merge lists every fragment, and it changed the fragments");
        case Op::kOverwrite:
        case Op::kRestore:
        case Op::kProject:
          return incompatible("it replaced the schema or the fragments");
        default:
          return incompatible("");
      }
    case Op::kProject:
      switch (t) {
        case Op::kAppend:
        case Op::kUpdate:
        case Op::kDelete:
        case Op::kUpdateConfig:
        case Op::kCreateIndex:
        case Op::kDataReplacement:
        case Op::kRewrite:
        case Op::kClone:
        case Op::kReserveFragments:
        case Op::kUpdateBases:
          return Status::OK();
        case Op::kMerge:
        case Op::kProject:
          return retryable("the schema changed; compute the new schema again");
        case Op::kOverwrite:
        case Op::kRestore:
          return incompatible("it replaced the dataset's schema");
        default:
          return incompatible("");
      }
    case Op::kDataReplacement:
      switch (t) {
        case Op::kAppend:
        case Op::kClone:
        case Op::kDelete:
        case Op::kUpdate:
        case Op::kMerge:
        case Op::kUpdateConfig:
        case Op::kReserveFragments:
        case Op::kProject:
        case Op::kUpdateBases:
          return Status::OK();
        case Op::kCreateIndex:
          return retryable("");
        case Op::kRewrite:
        case Op::kDataReplacement: {
          std::set<uint64_t> ids;
          for (const auto& r : mine.data_replacement().replacements()) {
            ids.insert(r.fragment_id());
          }
          return overlap(ids);
        }
        case Op::kOverwrite:
        case Op::kRestore:
          return incompatible("");
        default:
          return incompatible("");
      }
    default:
      return incompatible("");
  }
}

}  // namespace lance::table_internal
